# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Parsers for ``npu-smi info`` output and the Ascend driver ``version.info`` file.

The ``npu-smi info`` table is read by its structure, never by character
offsets: column widths and header spacing differ between npu-smi releases
(22.0.4 pads the ``Temp(C)`` header differently from 25.x, 910 releases add
an ``HBM-Usage(MB)`` column and drop ``Device``), so rows are split on ``|``,
separator lines are recognised by their shape, and the values in a metrics
cell are matched, in order, to the header names printed above them.

Every function is pure. Unknown layouts raise ``NpuSmiParseError`` (a
``ValueError``) that names the line number and quotes the line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple


# "+----+----+" or "+====+====+"; the title separator has no inner "+".
_SEPARATOR_RE = re.compile(r'^\+[-=+]*\+$')
# "npu-smi 25.2.0      Version: 25.2.0" (on old releases the second is the driver version).
_TITLE_RE = re.compile(r'^npu-smi\s+(?P<tool>\S+)(?:\s+Version:\s*(?P<version>\S+))?$')
_NO_PROCESS_RE = re.compile(r'^No running processes found in NPU\s+\d+\b')
# One value in a metrics cell: "used / total" (the spaces around "/" vary) or one token.
_VALUE_RE = re.compile(r'\S+\s*/\s*\S+|\S+')
_NOT_AVAILABLE = frozenset(['NA', 'N/A', '-', '--'])

# Header words of the metrics cells -> the value they label. Unknown words are
# tolerated (their value is skipped) so a new optional column does not break hosts.
_ROW1_METRICS = {'Power(W)': 'power', 'Temp(C)': 'temperature', 'Hugepages-Usage(page)': 'hugepages'}
_ROW2_METRICS = {'AICore(%)': 'aicore', 'Memory-Usage(MB)': 'memory', 'HBM-Usage(MB)': 'hbm'}
_REQUIRED_ROW1 = ('temperature',)
_REQUIRED_ROW2 = ('aicore', 'memory')


class NpuSmiParseError(ValueError):
    """The text does not have a layout this parser knows; names the line it stopped at."""

    def __init__(self, lineno: int, line: str, reason: str, source: str = 'npu-smi output') -> None:
        self.lineno, self.line, self.reason = lineno, line, reason
        super().__init__('%s line %d: %s: %r' % (source, lineno, reason, line))


@dataclass
class _Line:
    """One non-blank input line: a separator or a row split into cells."""

    lineno: int
    text: str
    is_separator: bool
    cells: List[str]

    def error(self, reason: str) -> NpuSmiParseError:
        return NpuSmiParseError(self.lineno, self.text, reason)


def _classify(text: str) -> List[_Line]:
    lines: List[_Line] = []
    for index, raw in enumerate(text.splitlines()):
        stripped = raw.strip()
        if not stripped:
            continue
        if _SEPARATOR_RE.match(stripped):
            lines.append(_Line(index + 1, raw, True, []))
        elif len(stripped) >= 2 and stripped.startswith('|') and stripped.endswith('|'):
            lines.append(_Line(index + 1, raw, False, [cell.strip() for cell in stripped[1:-1].split('|')]))
        else:
            raise NpuSmiParseError(index + 1, raw, 'not a table row or separator')
    return lines


def _optional_number(value: str, line: _Line, what: str, kind: Any = int) -> Any:
    if value in _NOT_AVAILABLE:
        return None
    try:
        return kind(value)
    except ValueError:
        raise line.error('%s %r is not %s' % (what, value, 'a whole number' if kind is int else 'a number'))


def _required_int(value: str, line: _Line, what: str) -> int:
    result = _optional_number(value, line, what)
    if result is None:
        raise line.error('%s is %r, a number is needed' % (what, value))
    return result


def _usage(value: str, line: _Line, what: str) -> Tuple[Optional[int], Optional[int]]:
    parts = value.split('/')
    if len(parts) != 2:
        raise line.error('%s %r is not "used / total"' % (what, value))
    return (_optional_number(parts[0].strip(), line, what + ' used'),
            _optional_number(parts[1].strip(), line, what + ' total'))


def _metric_names(header: _Line, known: Dict[str, str], required: Tuple[str, ...]) -> List[Optional[str]]:
    names = [known.get(word) for word in header.cells[2].split()]
    for field in required:
        if field not in names:
            raise header.error('chip table header lacks the %s column' % field)
    return names


def _metric_values(row: _Line, names: List[Optional[str]]) -> Dict[str, str]:
    values = _VALUE_RE.findall(row.cells[2])
    if len(values) != len(names):
        raise row.error('expected %d values under the metrics header, found %d'
                        % (len(names), len(values)))
    return dict((name, value) for name, value in zip(names, values) if name is not None)


class _ChipLayout:
    """What the columns mean, read from the two chip table header rows."""

    def __init__(self, first: _Line, second: _Line) -> None:
        if len(first.cells) != 3:
            raise first.error('chip table header must have 3 cells')
        if second.is_separator or len(second.cells) != 3:
            raise second.error('expected the second chip table header row ("Chip Device | Bus-Id | ...")')
        words2 = second.cells[0].split()
        if first.cells[0].split() != ['NPU', 'Name']:
            raise first.error('chip table header does not start with "NPU Name"')
        if words2[:1] != ['Chip']:
            raise second.error('chip table header does not start with "Chip"')
        if second.cells[1] != 'Bus-Id':
            raise second.error('chip table header lacks the Bus-Id column')
        # 310P prints "Chip Device"; some 910 releases print only "Chip" or "Chip Phy-ID".
        self.device_index: Optional[int] = words2.index('Device') if 'Device' in words2 else None
        self.id_words = len(words2)
        self.row1 = _metric_names(first, _ROW1_METRICS, _REQUIRED_ROW1)
        self.row2 = _metric_names(second, _ROW2_METRICS, _REQUIRED_ROW2)
        self.has_hbm = 'hbm' in self.row2


def _is_chip_header(line: _Line) -> bool:
    return (not line.is_separator and len(line.cells) >= 2
            and line.cells[0].split()[:1] == ['NPU'] and line.cells[1] == 'Health')


def _is_process_header(line: _Line) -> bool:
    return (len(line.cells) >= 4 and line.cells[0].split() == ['NPU', 'Chip']
            and line.cells[1].lower().startswith('process'))


def _check_first_chip_row(line: _Line) -> None:
    if len(line.cells) != 3:
        raise line.error('chip row must have 3 cells ("NPU Name | Health | Power Temp Hugepages")')
    if len(line.cells[0].split()) < 2:
        raise line.error('chip row lacks the NPU id or the chip name')
    if not line.cells[1]:
        raise line.error('chip row has an empty Health cell')


def _parse_chip(layout: _ChipLayout, first: _Line, second: _Line) -> Dict[str, Any]:
    if len(second.cells) != 3:
        raise second.error('chip row must have 3 cells ("Chip Device | Bus-Id | AICore Memory")')
    ident = first.cells[0].split()
    ids = second.cells[0].split()
    if len(ids) != layout.id_words:
        raise second.error('expected %d ids in the first cell, found %d' % (layout.id_words, len(ids)))
    if not second.cells[1]:
        raise second.error('chip row has an empty Bus-Id cell')

    row1 = _metric_values(first, layout.row1)
    row2 = _metric_values(second, layout.row2)
    hugepages = _usage(row1['hugepages'], first, 'Hugepages-Usage') if 'hugepages' in row1 else (None, None)
    memory_used, memory_total = _usage(row2['memory'], second, 'Memory-Usage')
    device_id = None if layout.device_index is None else _required_int(ids[layout.device_index], second, 'device id')
    chip: Dict[str, Any] = {
        'npu_id': _required_int(ident[0], first, 'NPU id'), 'chip_id': _required_int(ids[0], second, 'chip id'),
        'device_id': device_id, 'name': ' '.join(ident[1:]), 'health': first.cells[1],
        'power_w': _optional_number(row1['power'], first, 'Power(W)', float) if 'power' in row1 else None,
        'temperature_c': _optional_number(row1['temperature'], first, 'Temp(C)'),
        'hugepages_used': hugepages[0], 'hugepages_total': hugepages[1], 'bus_id': second.cells[1],
        'aicore_percent': _optional_number(row2['aicore'], second, 'AICore(%)'),
        'memory_used_mb': memory_used, 'memory_total_mb': memory_total,
        'memory_free_mb': None if memory_used is None or memory_total is None else memory_total - memory_used,
    }
    if layout.has_hbm:
        chip['hbm_used_mb'], chip['hbm_total_mb'] = _usage(row2['hbm'], second, 'HBM-Usage')
    return chip


def _parse_process(line: _Line) -> Dict[str, Any]:
    if len(line.cells) < 4:
        raise line.error('process row must have 4 cells ("NPU Chip | pid | name | memory")')
    ids = line.cells[0].split()
    if len(ids) != 2:
        raise line.error('process row must start with the NPU and chip ids')
    return {
        'npu_id': _required_int(ids[0], line, 'NPU id'), 'chip_id': _required_int(ids[1], line, 'chip id'),
        'device_id': None, 'pid': _required_int(line.cells[1], line, 'process id'),
        # A process name may itself contain "|": everything between pid and memory is the name.
        'name': '|'.join(line.cells[2:-1]).strip(),
        'memory_mb': _optional_number(line.cells[-1], line, 'process memory'),
    }


def parse_npu_smi_info(text: str) -> Dict[str, Any]:
    """Parse the text printed by ``npu-smi info``.

    Returns ``npu_smi_version``, ``chips`` (one dict per chip, in output
    order), ``processes`` (``device_id`` looked up from the chip table, None
    when the chip is not listed) and ``process_table_present``.
    """
    lines = _classify(text)
    if not lines:
        raise ValueError('npu-smi output is empty: there is no line to read')

    rows = [index for index, line in enumerate(lines) if not line.is_separator]
    if not rows:
        raise lines[-1].error('no table rows in npu-smi output')
    title = lines[rows[0]]
    match = _TITLE_RE.match(title.cells[0]) if len(title.cells) == 1 else None
    if match is None:
        raise title.error('expected the title row "npu-smi <version>  Version: <version>"')

    header = lines[rows[1]] if len(rows) > 1 else None
    if header is None or not _is_chip_header(header):
        raise (header or title).error('expected the chip table header ("NPU Name | Health | ...")')
    position = rows[1] + 2
    if position > len(lines):
        raise header.error('chip table header has no second row')
    layout = _ChipLayout(header, lines[position - 1])

    chips: List[Dict[str, Any]] = []
    processes: List[Dict[str, Any]] = []
    process_table_present = False
    # A chip is two rows with no separator between them; separators ("+---+"
    # between chips of one card, "+===+" between cards) may repeat.
    pending: Optional[_Line] = None
    for line in lines[position:]:
        if line.is_separator:
            if pending is not None:
                raise pending.error('chip row is missing its second row ("Chip Device | Bus-Id | ...")')
            continue
        if process_table_present:
            if len(line.cells) == 1:
                # One "No running processes found in NPU N" line per idle NPU.
                if not _NO_PROCESS_RE.match(line.cells[0]):
                    raise line.error('unknown line in the process table')
            elif _is_process_header(line):
                raise line.error('second process table header')
            else:
                processes.append(_parse_process(line))
        elif pending is not None:
            chips.append(_parse_chip(layout, pending, line))
            pending = None
        elif _is_process_header(line):
            process_table_present = True
        else:
            _check_first_chip_row(line)
            pending = line
    if pending is not None:
        raise pending.error('chip row is missing its second row ("Chip Device | Bus-Id | ...")')

    devices = dict(((chip['npu_id'], chip['chip_id']), chip['device_id']) for chip in chips)
    for process in processes:
        process['device_id'] = devices.get((process['npu_id'], process['chip_id']))
    return {'npu_smi_version': match.group('tool'), 'chips': chips, 'processes': processes,
            'process_table_present': process_table_present}


def parse_version_info(text: str) -> Dict[str, Any]:
    """Parse an Ascend ``version.info`` file (one ``key=value`` per line).

    Returns ``{"version": ..., "info": {key: value, ...}}``; ``version`` is the
    ``Version`` key, else ``version``, else ``package_version``, else None.
    Blank lines and ``#`` comments are skipped; any other line without ``=``
    raises ``NpuSmiParseError`` quoting it.
    """
    info: Dict[str, str] = {}
    for index, raw in enumerate(text.splitlines()):
        stripped = raw.strip()
        if not stripped or stripped.startswith('#'):
            continue
        key, sep, value = stripped.partition('=')
        if not sep or not key.strip():
            raise NpuSmiParseError(index + 1, raw, 'line is not "key=value"', source='version.info')
        info[key.strip()] = value.strip()
    version = info.get('Version') or info.get('version') or info.get('package_version') or None
    return {'version': version, 'info': info}


# "\tFirmware Version               : 7.8.0.6.201": npu-smi prints every line of the board view
# as printf("\t%-30s : %s\n", key, value) (npucli npu_info_print.c in the public copy of the
# Ascend driver source); pasted copies often lose the tab.
_BOARD_LINE_RE = re.compile(r'^\s*(?P<key>[^:]*?\S)\s+:\s?(?P<value>.*)$')
_BOARD_FIELDS = {'NPU ID': 'npu_id', 'Software Version': 'software_version', 'Firmware Version': 'firmware_version',
                 'Compatibility': 'compatibility', 'Chip Count': 'chip_count'}


def parse_board_info(text: str) -> Dict[str, Any]:
    """Parse ``npu-smi info -t board -i ID`` (one ``Key : Value`` per line).

    Returns ``npu_id``, ``software_version`` (the driver version, as Huawei's NPU driver and
    firmware installation guides say), ``firmware_version``, ``compatibility`` (the driver's
    verdict on the firmware; None where npu-smi does not print it, as on RC boards) and
    ``chip_count`` (None when absent), plus every line in ``fields``. Raises
    ``NpuSmiParseError`` when no line has that shape.
    """
    fields = {match.group('key').strip(): match.group('value').strip()
              for match in map(_BOARD_LINE_RE.match, text.splitlines()) if match}
    if not fields:
        stripped = [line for line in text.splitlines() if line.strip()]
        raise NpuSmiParseError(1, stripped[0] if stripped else text, 'no "Key : Value" line of the board view',
                               source='npu-smi info -t board')
    out: Dict[str, Any] = {name: fields.get(key) for key, name in _BOARD_FIELDS.items()}
    for name in ('npu_id', 'chip_count'):
        out[name] = int(out[name]) if (out[name] or '').isdigit() else None
    return dict(out, fields=fields)
