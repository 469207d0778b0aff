# SPDX-License-Identifier: Apache-2.0
"""Unit tests for the npu-smi parser (plugins/module_utils/node/npu_smi.py).

The real captures are read from the repository's one copy of them,
tests/integration/targets/npu_facts/files/ (fixture ``capture``, tests/unit/conftest.py);
``test_in_repo_captures_are_verbatim`` checks that copy byte for byte against
../shared/fixtures/npu-smi/ when that directory is present. ``render_info`` rebuilds
the real layout from the captures' exact column widths; ``test_renderer_reproduces_capture``
proves it byte for byte, so the synthetic multi-card outputs have the real shape.
"""

import os

import pytest

from ansible_collections.ascend.vllm.plugins.module_utils.node.npu_smi import (
    NpuSmiParseError,
    parse_board_info,
    parse_npu_smi_info,
    parse_version_info,
)

# The captures by number (file names in tests/integration/targets/npu_facts/files/).
CAPTURE_NAMES = {
    '01': '01_npu-smi-info_300IDuo-96G_1card_2chips_with-process_25.0.rc1.1.txt',
    '02': '02_npu-smi-info_300IDuo-96G_1card_2chips_idle_25.2.0.txt',
    '06': '06_npu-smi-info_310P3_only-chip0-shown_NPU224_25.2.3.txt',
    '07': '07_npu-smi-info_310P3_VM-passthrough_22.0.4.txt',
    '11': '11_driver_version.info_24.1.rc2.2.txt',
}


# ---------------------------------------------------------------------------
# A renderer of the real layout, from the captures' exact column widths:
# cells of 31 | 17 | 54 characters between the pipes, 104 in all.

_SEP_TITLE = '+' + '-' * 104 + '+'
_SEP = dict((c, '+' + c * 31 + '+' + c * 17 + '+' + c * 54 + '+') for c in '-=')
_HEADER_2 = '| Chip    Device                | Bus-Id          | AICore(%)    Memory-Usage(MB)                        |'
_PROCESS_HEADER = ('| NPU     Chip                  | Process id      | Process name             '
                   '| Process memory(MB)        |')
STYLES = {
    # npu-smi 25.x (captures 01, 02, 06).
    '25': dict(
        header_1='| NPU     Name                  | Health          | Power(W)     Temp(C)           Hugepages-Usage(page) |',
        hugepages_widths=(6, 14),
        closing='=',
    ),
    # npu-smi 22.0.4 (capture 07): header row two characters short, hugepages shifted one left.
    '22': dict(
        header_1='| NPU     Name                  | Health          | Power(W)     Temp(C)     Hugepages-Usage(page)     |',
        hugepages_widths=(5, 15),
        closing='-',
    ),
}


def _na(value):
    return 'NA' if value is None else str(value)


def render_info(version, chips, processes=(), process_table=True, style='25'):
    """Render `npu-smi info` text; chips and processes use the parser's field names."""
    spec = STYLES[style]
    used_width, total_width = spec['hugepages_widths']
    lines = [
        _SEP_TITLE,
        '| ' + ('npu-smi ' + version).ljust(49) + ('Version: ' + version).ljust(54) + '|',
        _SEP['-'], spec['header_1'], _HEADER_2, _SEP['='],
    ]
    for index, chip in enumerate(chips):
        if index:
            # Chips of one card are divided by "+---+", cards by "+===+".
            lines.append(_SEP['-' if chip['npu_id'] == chips[index - 1]['npu_id'] else '='])
        lines.append('| %-8s%-22s| %-16s| %-13s%-18s%-*s/ %-*s|' % (
            chip['npu_id'], chip['name'], chip['health'], _na(chip['power_w']), chip['temperature_c'],
            used_width, chip['hugepages_used'], total_width, chip['hugepages_total']))
        lines.append('| %-8s%-22s| %-16s| %-13s%-40s|' % (
            chip['chip_id'], chip['device_id'], chip['bus_id'], chip['aicore_percent'],
            '%d / %d' % (chip['memory_used_mb'], chip['memory_total_mb'])))
    lines.append(_SEP[spec['closing']])
    if process_table:
        lines += [_SEP['-'], _PROCESS_HEADER, _SEP['=']]
        npu_ids = []
        for chip in chips:
            if chip['npu_id'] not in npu_ids:
                npu_ids.append(chip['npu_id'])
        for npu_id in npu_ids:
            rows = [p for p in processes if p['npu_id'] == npu_id]
            for process in rows:
                lines.append('| %-8s%-22s| %-16s| %-25s| %-26s|' % (
                    process['npu_id'], process['chip_id'], process['pid'], process['name'],
                    process['memory_mb']))
            if not rows:
                lines.append('| ' + ('No running processes found in NPU %d' % npu_id).ljust(103) + '|')
            lines.append(_SEP['='])
    return '\n'.join(lines) + '\n'


# ---------------------------------------------------------------------------
# Expected results, written by hand from the capture text.

EXPECTED = {
    '01': {
        'npu_smi_version': '25.0.rc1.1',
        'chips': [
            {'npu_id': 6, 'chip_id': 0, 'device_id': 0, 'name': '310P3', 'health': 'OK',
             'power_w': None, 'temperature_c': 55, 'hugepages_used': 0, 'hugepages_total': 0,
             'bus_id': '0000:83:00.0', 'aicore_percent': 0,
             'memory_used_mb': 1175, 'memory_total_mb': 44280, 'memory_free_mb': 43105},
            {'npu_id': 6, 'chip_id': 1, 'device_id': 1, 'name': '310P3', 'health': 'OK',
             'power_w': None, 'temperature_c': 52, 'hugepages_used': 3262, 'hugepages_total': 3262,
             'bus_id': '0000:83:00.0', 'aicore_percent': 0,
             'memory_used_mb': 8322, 'memory_total_mb': 43693, 'memory_free_mb': 35371},
        ],
        'processes': [
            {'npu_id': 6, 'chip_id': 1, 'device_id': 1, 'pid': 293029, 'name': 'python3.11', 'memory_mb': 6612},
        ],
        'process_table_present': True,
    },
    '02': {
        'npu_smi_version': '25.2.0',
        'chips': [
            {'npu_id': 2, 'chip_id': 0, 'device_id': 0, 'name': '310P3', 'health': 'OK',
             'power_w': None, 'temperature_c': 51, 'hugepages_used': 0, 'hugepages_total': 0,
             'bus_id': '0000:01:00.0', 'aicore_percent': 0,
             'memory_used_mb': 1529, 'memory_total_mb': 44280, 'memory_free_mb': 42751},
            {'npu_id': 2, 'chip_id': 1, 'device_id': 1, 'name': '310P3', 'health': 'OK',
             'power_w': None, 'temperature_c': 49, 'hugepages_used': 0, 'hugepages_total': 0,
             'bus_id': '0000:01:00.0', 'aicore_percent': 0,
             'memory_used_mb': 1411, 'memory_total_mb': 43693, 'memory_free_mb': 42282},
        ],
        'processes': [],
        'process_table_present': True,
    },
    '06': {
        'npu_smi_version': '25.2.3',
        'chips': [
            {'npu_id': 224, 'chip_id': 0, 'device_id': 0, 'name': '310P3', 'health': 'OK',
             'power_w': None, 'temperature_c': 71, 'hugepages_used': 0, 'hugepages_total': 0,
             'bus_id': '0000:04:00.0', 'aicore_percent': 0,
             'memory_used_mb': 1263, 'memory_total_mb': 44280, 'memory_free_mb': 43017},
        ],
        'processes': [],
        'process_table_present': False,
    },
    '07': {
        'npu_smi_version': '22.0.4',
        'chips': [
            {'npu_id': 7, 'chip_id': 0, 'device_id': 0, 'name': '310P3', 'health': 'OK',
             'power_w': None, 'temperature_c': 28, 'hugepages_used': 0, 'hugepages_total': 0,
             'bus_id': '0000:00:07.0', 'aicore_percent': 0,
             'memory_used_mb': 1805, 'memory_total_mb': 21527, 'memory_free_mb': 19722},
        ],
        'processes': [],
        'process_table_present': False,
    },
}


def test_in_repo_captures_are_verbatim(capture_dirs):
    # The one in-repo copy (tests/integration/targets/npu_facts/files/) against the originals.
    # SOURCES.md there is the target's own note, not a copy.
    in_repo, shared = capture_dirs
    if shared is None:
        pytest.skip('shared fixtures directory not present (../shared/fixtures/npu-smi or ASCEND_VLLM_FIXTURES)')
    names = sorted(name for name in os.listdir(in_repo) if name != 'SOURCES.md')
    assert names
    differing = []
    for name in names:
        with open(os.path.join(in_repo, name), 'rb') as copy:
            with open(os.path.join(shared, name), 'rb') as original:
                if copy.read() != original.read():
                    differing.append(name)
    assert differing == []


@pytest.mark.parametrize('key', sorted(EXPECTED))
def test_capture_parsed_exactly(capture, key):
    assert parse_npu_smi_info(capture(CAPTURE_NAMES[key])) == EXPECTED[key]


@pytest.mark.parametrize('key, chip_index, field, value', [
    # The fields that differ between the captures, one row each so a failure names it.
    ('01', 1, 'hugepages_used', 3262),
    ('01', 1, 'memory_free_mb', 43693 - 8322),
    ('02', 0, 'bus_id', '0000:01:00.0'),
    ('06', 0, 'npu_id', 224),
    ('06', 0, 'temperature_c', 71),
    ('07', 0, 'bus_id', '0000:00:07.0'),
    ('07', 0, 'memory_total_mb', 21527),
])
def test_capture_field(capture, key, chip_index, field, value):
    assert parse_npu_smi_info(capture(CAPTURE_NAMES[key]))['chips'][chip_index][field] == value


@pytest.mark.parametrize('key, style, process_table', [
    ('01', '25', True),
    ('02', '25', True),
    ('06', '25', False),
    ('07', '22', False),
])
def test_renderer_reproduces_capture(capture, key, style, process_table):
    expected = EXPECTED[key]
    text = render_info(expected['npu_smi_version'], expected['chips'], expected['processes'],
                       process_table=process_table, style=style)
    assert text == capture(CAPTURE_NAMES[key])


# ---------------------------------------------------------------------------
# Synthetic multi-card hosts: 4 cards x 2 chips, non-contiguous NPU ids.

def _chip(npu_id, chip_id, device_id, health, power, temp, used, total, bus, hugepages=(0, 0), aicore=0):
    return {'npu_id': npu_id, 'chip_id': chip_id, 'device_id': device_id, 'name': '310P3',
            'health': health, 'power_w': power, 'temperature_c': temp,
            'hugepages_used': hugepages[0], 'hugepages_total': hugepages[1], 'bus_id': bus,
            'aicore_percent': aicore, 'memory_used_mb': used, 'memory_total_mb': total}


MULTI_CHIPS = [
    _chip(1, 0, 0, 'OK', None, 45, 1529, 44280, '0000:01:00.0'),
    _chip(1, 1, 1, 'OK', None, 44, 1411, 43693, '0000:01:00.0'),
    _chip(2, 0, 2, 'Warning', 12.8, 61, 2048, 44280, '0000:02:00.0'),
    _chip(2, 1, 3, 'OK', 13.5, 58, 8322, 43693, '0000:02:00.0', hugepages=(3262, 3262), aicore=37),
    _chip(5, 0, 4, 'Alarm', None, 88, 1300, 44280, '0000:81:00.0'),
    _chip(5, 1, 5, 'OK', None, 52, 1300, 43693, '0000:81:00.0'),
    _chip(224, 0, 6, 'OK', None, 71, 31383, 44280, '0000:82:00.0', aicore=100),
    _chip(224, 1, 7, 'Critical', None, 95, 0, 43693, '0000:82:00.0'),
]
MULTI_PROCESSES = [
    {'npu_id': 2, 'chip_id': 1, 'device_id': 3, 'pid': 4101, 'name': 'python3.11', 'memory_mb': 6612},
    {'npu_id': 224, 'chip_id': 0, 'device_id': 6, 'pid': 77, 'name': 'vllm', 'memory_mb': 30120},
]


@pytest.mark.parametrize('style', sorted(STYLES))
def test_multi_card_host(style):
    text = render_info('25.2.0', MULTI_CHIPS, MULTI_PROCESSES, style=style)
    # Idle NPUs each get their own line; busy ones list their processes instead.
    assert text.count('No running processes found in NPU') == 2
    parsed = parse_npu_smi_info(text)
    expected_chips = [dict(chip, memory_free_mb=chip['memory_total_mb'] - chip['memory_used_mb'])
                      for chip in MULTI_CHIPS]
    assert parsed == {
        'npu_smi_version': '25.2.0',
        'chips': expected_chips,
        'processes': MULTI_PROCESSES,
        'process_table_present': True,
    }


def test_multi_card_values_by_field():
    parsed = parse_npu_smi_info(render_info('25.2.0', MULTI_CHIPS, MULTI_PROCESSES))
    assert [c['npu_id'] for c in parsed['chips']] == [1, 1, 2, 2, 5, 5, 224, 224]
    assert [c['device_id'] for c in parsed['chips']] == list(range(8))
    assert [c['health'] for c in parsed['chips']] == ['OK', 'OK', 'Warning', 'OK', 'Alarm', 'OK', 'OK', 'Critical']
    assert [c['power_w'] for c in parsed['chips'][2:4]] == [12.8, 13.5]
    assert [(p['npu_id'], p['chip_id'], p['device_id']) for p in parsed['processes']] == [(2, 1, 3), (224, 0, 6)]


def test_multi_card_without_process_table():
    parsed = parse_npu_smi_info(render_info('22.0.4', MULTI_CHIPS, style='22', process_table=False))
    assert len(parsed['chips']) == 8
    assert parsed['processes'] == []
    assert parsed['process_table_present'] is False


def test_several_processes_on_one_npu():
    processes = [
        {'npu_id': 1, 'chip_id': 0, 'device_id': 0, 'pid': 10, 'name': 'python3', 'memory_mb': 100},
        {'npu_id': 1, 'chip_id': 1, 'device_id': 1, 'pid': 11, 'name': 'python3', 'memory_mb': 200},
    ]
    parsed = parse_npu_smi_info(render_info('25.2.0', MULTI_CHIPS[:2], processes))
    assert parsed['processes'] == processes


def test_process_on_unlisted_chip_has_no_device_id():
    # Capture 06 shows one chip only; a process row for a chip not in the table must not guess.
    processes = [{'npu_id': 224, 'chip_id': 1, 'device_id': None, 'pid': 5, 'name': 'atc', 'memory_mb': 'NA'}]
    parsed = parse_npu_smi_info(render_info('25.2.3', EXPECTED['06']['chips'], processes))
    assert parsed['processes'] == [dict(processes[0], memory_mb=None)]


@pytest.mark.parametrize('health', ['OK', 'Warning', 'Alarm', 'Critical', 'UNKNOWN'])
def test_health_kept_as_printed(health):
    chips = [dict(EXPECTED['06']['chips'][0], health=health)]
    assert parse_npu_smi_info(render_info('25.2.3', chips))['chips'][0]['health'] == health


@pytest.mark.parametrize('power, expected', [(None, None), (8, 8.0), (12.8, 12.8)])
def test_power_na_or_number(power, expected):
    chips = [dict(EXPECTED['06']['chips'][0], power_w=power)]
    assert parse_npu_smi_info(render_info('25.2.3', chips))['chips'][0]['power_w'] == expected


def test_hbm_column_and_no_device_column():
    # Shape of npu-smi on 910 hosts: "Chip" without "Device", an extra HBM-Usage(MB) value,
    # a header cell with no space before its "|", and cards divided by "+===+".
    text = '\n'.join([
        '+------------------------------------------------------------------------------------------------+',
        '| npu-smi 23.0.rc3                 Version: 23.0.rc3                                             |',
        '+---------------------------+---------------+----------------------------------------------------+',
        '| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|',
        '| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |',
        '+===========================+===============+====================================================+',
        '| 0     910B3               | OK            | 93.2        36                0    / 0             |',
        '| 0                         | 0000:C1:00.0  | 0           0    / 0          3387 / 65536         |',
        '+===========================+===============+====================================================+',
        '| 1     910B3               | Warning       | 91.6        37                0    / 0             |',
        '| 0                         | 0000:C2:00.0  | 12          0    / 0          40123/ 65536         |',
        '+===========================+===============+====================================================+',
        '+---------------------------+---------------+----------------------------------------------------+',
        '| NPU     Chip              | Process id    | Process name             | Process memory(MB)      |',
        '+===========================+===============+====================================================+',
        '| No running processes found in NPU 0                                                            |',
        '+===========================+===============+====================================================+',
        '| 1       0                 | 5555          | python                   | 36000                   |',
        '+===========================+===============+====================================================+',
    ])
    parsed = parse_npu_smi_info(text)
    assert parsed['npu_smi_version'] == '23.0.rc3'
    assert parsed['chips'][0] == {
        'npu_id': 0, 'chip_id': 0, 'device_id': None, 'name': '910B3', 'health': 'OK',
        'power_w': 93.2, 'temperature_c': 36, 'hugepages_used': 0, 'hugepages_total': 0,
        'bus_id': '0000:C1:00.0', 'aicore_percent': 0, 'memory_used_mb': 0, 'memory_total_mb': 0,
        'memory_free_mb': 0, 'hbm_used_mb': 3387, 'hbm_total_mb': 65536,
    }
    assert (parsed['chips'][1]['hbm_used_mb'], parsed['chips'][1]['aicore_percent']) == (40123, 12)
    assert parsed['processes'] == [
        {'npu_id': 1, 'chip_id': 0, 'device_id': None, 'pid': 5555, 'name': 'python', 'memory_mb': 36000},
    ]


def test_310p_rows_have_no_hbm_keys(capture):
    assert 'hbm_used_mb' not in parse_npu_smi_info(capture(CAPTURE_NAMES['02']))['chips'][0]


def test_tolerates_crlf_and_markdown_indent(capture):
    indented = '\r\n'.join('    ' + line for line in capture(CAPTURE_NAMES['01']).splitlines()) + '\r\n\r\n'
    assert parse_npu_smi_info(indented) == EXPECTED['01']


# ---------------------------------------------------------------------------
# Malformed output: a ValueError that names the line number and quotes the line.

def _mutate(text, edit):
    lines = text.splitlines()
    edit(lines)
    return '\n'.join(lines) + '\n'


def _set(index, value):
    def edit(lines):
        lines[index - 1] = value
    return edit


def _cut_after(index):
    def edit(lines):
        del lines[index:]
    return edit


def _delete(index):
    def edit(lines):
        del lines[index - 1]
    return edit


def _insert(index, value):
    def edit(lines):
        lines.insert(index - 1, value)
    return edit


def _replace(index, old, new):
    def edit(lines):
        assert old in lines[index - 1]
        lines[index - 1] = lines[index - 1].replace(old, new)
    return edit


MALFORMED = [
    # (id, edit of capture 02, line number reported, words in the reason)
    ('truncated-chip-row', _set(7, '| 2       310P3                 | OK              | NA'), 7, 'not a table row'),
    ('output-cut-after-first-chip-row', _cut_after(7), 7, 'missing its second row'),
    ('second-chip-row-missing', _delete(8), 7, 'missing its second row'),
    ('garbage-line', _insert(9, 'Segmentation fault (core dumped)'), 9, 'not a table row'),
    ('garbage-row', _insert(10, '| hello |'), 10, 'must have 3 cells'),
    ('missing-hugepages-value', _replace(7, '0     / 0  ', '           '), 7, 'expected 3 values'),
    ('memory-not-a-number', _replace(8, '1529 / 44280', 'abcd / 44280'), 8, 'not a whole number'),
    ('memory-not-used-total', _replace(8, '1529 / 44280', '1529   44280'), 8, 'expected 2 values'),
    ('npu-id-not-a-number', _replace(7, '| 2       310P3', '| x       310P3'), 7, 'NPU id'),
    ('device-id-missing', _replace(8, '| 0       0     ', '| 0             '), 8, 'expected 2 ids'),
    ('unknown-process-line', _replace(16, 'No running processes found in NPU 2', 'Nothing to see here!               '),
     16, 'process table'),
    ('process-pid-not-a-number', _set(16, '| 2       0                     | abc             | python3.11               '
                                          '| 6612                      |'), 16, 'process id'),
    ('no-title', _delete(2), 3, 'title row'),
    ('header-lacks-memory', _replace(5, 'Memory-Usage(MB)', 'Memory(MB)      '), 5, 'memory column'),
    ('header-not-npu-name', _replace(4, 'NPU     Name', 'Card    Name'), 4, 'chip table header'),
    ('header-has-no-second-row', _cut_after(4), 4, 'no second row'),
    ('second-header-not-chip', _replace(5, 'Chip    Device', 'Card    Device'), 5, 'Chip'),
]


@pytest.mark.parametrize('edit, lineno, reason', [m[1:] for m in MALFORMED], ids=[m[0] for m in MALFORMED])
def test_malformed_output_quotes_the_line(capture, edit, lineno, reason):
    text = _mutate(capture(CAPTURE_NAMES['02']), edit)
    with pytest.raises(ValueError) as caught:
        parse_npu_smi_info(text)
    error = caught.value
    assert isinstance(error, NpuSmiParseError)
    bad_line = text.splitlines()[lineno - 1]
    assert (error.lineno, error.line) == (lineno, bad_line)
    assert 'line %d' % lineno in str(error)
    assert repr(bad_line) in str(error)
    assert reason in str(error)


@pytest.mark.parametrize('text, lineno', [
    ('dcmi module initialize failed. ret is -8005\n', 1),
    ('\n\nnpu-smi: command not found\n', 3),
    ('+------+\n', 1),
    ('+------+\n| hello world |\n+------+\n', 2),
])
def test_not_npu_smi_output(text, lineno):
    with pytest.raises(NpuSmiParseError) as caught:
        parse_npu_smi_info(text)
    assert caught.value.lineno == lineno
    assert 'line %d' % lineno in str(caught.value)


@pytest.mark.parametrize('text', ['', '\n', '   \n\t\n'])
def test_empty_output(text):
    with pytest.raises(ValueError, match='empty'):
        parse_npu_smi_info(text)


# ---------------------------------------------------------------------------
# Driver version.info

def test_version_info_capture(capture):
    parsed = parse_version_info(capture(CAPTURE_NAMES['11']))
    assert parsed == {
        'version': '24.1.rc2.2',
        'info': {
            'Version': '24.1.rc2.2',
            'ascendhal_version': '7.35.23',
            'aicpu_version': '1.0',
            'tdt_version': '1.0',
            'log_version': '1.0',
            'prof_version': '2.0',
            'dvppkernels_version': '1.1',
            'tsfw_version': '1.0',
            'Innerversion': 'V100R001C18SPC001B233',
            'compatible_version': '[V100R001C30],[V100R001C13],[V100R001C15],[V100R001C17],[V100R001C18]',
            'compatible_version_fw': '[7.0.0,7.2.99]',
            'package_version': '24.1.rc2.2',
        },
    }


@pytest.mark.parametrize('text, version', [
    ('package_version=23.0.0\n', '23.0.0'),
    ('# driver\n\nversion=22.0.4\npackage_version=x\n', '22.0.4'),
    ('Innerversion=V100R001C18\n', None),
    ('', None),
    ('Version=24.1.rc2\r\nkey = spaced value \r\n', '24.1.rc2'),
])
def test_version_info_variants(text, version):
    assert parse_version_info(text)['version'] == version


def test_version_info_keeps_spaced_values():
    assert parse_version_info('key = spaced value \n')['info'] == {'key': 'spaced value'}


@pytest.mark.parametrize('text, lineno', [
    ('Version=24.1\ngarbage line\n', 2),
    ('=value\n', 1),
])
def test_version_info_bad_line(text, lineno):
    with pytest.raises(ValueError) as caught:
        parse_version_info(text)
    assert 'version.info line %d' % lineno in str(caught.value)
    assert repr(text.splitlines()[lineno - 1]) in str(caught.value)


# `npu-smi info -t board -i 2944` of an Atlas 300I Duo (310P3, PCI device 0xD500, two chips), as a
# public repository's Go test pastes it (TestParseBoardOutput "full_board"; the repository could
# not be named): flush left, the tab npu-smi prints before each line lost in the paste.
BOARD_300I_DUO = """NPU ID                         : 2944
Product Name                   : IT21PD2G10
Model                          : NA
Manufacturer                   : Huawei
Serial Number                  : 2106030737ZERC003572
Software Version               : 25.5.1
Firmware Version               : 7.8.0.6.201
Compatibility                  : OK
Board ID                       : 0xb1
PCB ID                         : E
BOM ID                         : 3
PCIe Bus Info                  : 0000:0C:00.0
Slot ID                        : NA
Class ID                       : NA
PCI Vendor ID                  : 0x19E5
PCI Device ID                  : 0xD500
Subsystem Vendor ID            : 0x0200
Subsystem Device ID            : 0x0110
Chip Count                     : 2
Chip Fault                     : 0"""
# A board without the Compatibility line (npu-smi prints none on SoC boards), with npu-smi's own
# tab indent: the "Atlas 200" board of a public Chinese note (driver 22.0.4), comments removed.
BOARD_SOC_TABS = ('\tNPU ID                         : 0\n\tProduct Name                   : NA\n'
                  '\tModel                          : NA\n\tManufacturer                   : NA\n'
                  '\tSerial Number                  : 033GWL10LB000840\n'
                  '\tSoftware Version               : 22.0.4\n\tFirmware Version               : 1.84.15.1.310\n'
                  '\tBoard ID                       : 0x3ec\n\tPCB ID                         : NA\n'
                  '\tBOM ID                         : 0\n\tChip Count                     : 1\n'
                  '\tFaulty Chip Count              : 0\n')


@pytest.mark.parametrize('text, expected', [
    (BOARD_300I_DUO, {'npu_id': 2944, 'software_version': '25.5.1', 'firmware_version': '7.8.0.6.201',
                      'compatibility': 'OK', 'chip_count': 2}),
    ('\t' + BOARD_300I_DUO.replace('\n', '\n\t') + '\n',
     {'npu_id': 2944, 'software_version': '25.5.1', 'firmware_version': '7.8.0.6.201', 'compatibility': 'OK',
      'chip_count': 2}),
    (BOARD_SOC_TABS, {'npu_id': 0, 'software_version': '22.0.4', 'firmware_version': '1.84.15.1.310',
                      'compatibility': None, 'chip_count': 1}),
])
def test_parse_board_info(text, expected):
    out = parse_board_info(text)
    assert dict((k, out[k]) for k in expected) == expected
    assert out['fields']['Board ID'] in ('0xb1', '0x3ec')


@pytest.mark.parametrize('text', ['', 'Error: the command is not supported\n'])
def test_board_info_that_is_not_a_board_view(text):
    with pytest.raises(NpuSmiParseError, match='npu-smi info -t board line 1'):
        parse_board_info(text)
