# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The eval_report entry file: the run folder with its provenance (unknowns named), tables and plots."""

import json
import re

import pytest

from ansible_collections.ascend.vllm.plugins.modules import eval_report
from moduleargs import ExitJson, FailJson, patch_exit_fail, set_module_args as module_args  # noqa: E402,F401 pylint: disable=wrong-import-position,unused-import

LEVEL = {'concurrency': 2, 'requests': 4, 'failed': 0, 'duration_s': 1.0, 'request_throughput': 4.0,
         'output_throughput': 40.0, 'total_throughput': 80.0,
         'ttft_ms': {'mean': 5.0, 'p50': 5.0, 'p90': 6.0, 'p99': 7.0},
         'tpot_ms': {'mean': 2.0, 'p50': 2.0, 'p90': 2.5, 'p99': 3.0},
         'e2el_ms': {'mean': 30.0, 'p50': 30.0, 'p90': 33.0, 'p99': 35.0}, 'records': []}
INST = {'name': 'default', 'port': 8080, 'served': 'qwen3.5', 'model': 'Qwen/Qwen3.5-2B',
        'accuracy': {'gsm8k': {'accuracy': 75.0, 'correct': 3, 'total': 4}}, 'performance': [LEVEL]}
PROVENANCE = {'n1': {'node': {'hostname': 'atlas-1', 'driver': '24.1.rc2.2', 'firmware': 'unknown'},
                     'instances': [{'instance': 'default', 'container': 'vllm-ascend',
                                    'image': 'quay.io/ascend/vllm-ascend:v0.23.0-310p', 'image_id': 'sha256:1',
                                    'digest': 'sha256:2', 'argv': ['vllm', 'serve', '/m'], 'cann': 'unknown'}]}}


def run(args):
    with module_args(args):
        with pytest.raises(ExitJson) as exc:
            eval_report.main()
    return exc.value.args[0]


def test_the_run_folder_records_where_and_what_ran(tmp_path):
    out = run({'results': {'n1': [INST], 'n2': [INST]}, 'dest': str(tmp_path), 'run_id': 'r1', 'tolerance': 5.0,
               'provenance': PROVENANCE})
    run_dir = tmp_path / 'r1'
    assert out['path'] == str(run_dir) and out['failures'] == []
    assert re.match(r'^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$', out['date'])
    raw = json.loads((run_dir / 'results.json').read_text())
    assert raw['date'] == out['date']
    assert raw['provenance']['n1']['instances'][0]['digest'] == 'sha256:2'
    # n2's node was never read: its provenance is there, empty, and the tables say unknown.
    assert raw['provenance']['n2'] == {'node': {}, 'instances': [{'instance': 'default'}]}
    summary = (run_dir / 'summary.md').read_text()
    assert 'written %s' % out['date'] in summary
    assert ('| n1 | atlas-1 | default | quay.io/ascend/vllm-ascend:v0.23.0-310p | sha256:2 | 24.1.rc2.2 | unknown '
            '| unknown |') in summary
    assert '| n2 | unknown | default | unknown | unknown | unknown | unknown | unknown |' in summary
    assert '## Provenance' in (run_dir / 'n1-default.md').read_text()
    suffixes = ('.md', '-vllm_api_general_chat.py', '-throughput.png', '-latency.png')
    assert sorted(out['files']) == sorted(['results.json', 'summary.md', 'compare.png'] + [
        '%s-default%s' % (host, suffix) for host in ('n1', 'n2') for suffix in suffixes])
    assert (run_dir / 'compare.png').read_bytes()[:8] == b'\x89PNG\r\n\x1a\n'


def test_no_sweep_no_plots(tmp_path):
    inst = dict(INST, performance=[])
    out = run({'results': {'n1': [inst]}, 'dest': str(tmp_path), 'run_id': 'r2', 'tolerance': 5.0})
    assert not [name for name in out['files'] if name.endswith('.png')]
    assert '| n1 | unknown | default |' in out['summary']


def test_check_mode_writes_nothing(tmp_path):
    out = run({'results': {'n1': [INST]}, 'dest': str(tmp_path), 'run_id': 'r3', 'tolerance': 5.0,
               '_ansible_check_mode': True})
    assert out['files'] == [] and not (tmp_path / 'r3').exists()
    assert out['changed'] and 'diff' not in out


def test_diff_shows_each_new_report_file_as_created(tmp_path):
    out = run({'results': {'n1': [INST]}, 'dest': str(tmp_path), 'run_id': 'r4', 'tolerance': 5.0,
               '_ansible_diff': True})
    run_dir = tmp_path / 'r4'
    shown = dict((entry['after_header'], entry) for entry in out['diff'])
    assert sorted(shown) == sorted(str(run_dir / name) for name in out['files'])
    for name in out['files']:
        entry = shown[str(run_dir / name)]
        assert entry['before_header'] == '%s (absent)' % (run_dir / name) and entry['before'] == ''
        if name.endswith('.png'):
            assert entry['after'] == '<PNG image, %d bytes>\n' % (run_dir / name).stat().st_size
        else:
            assert entry['after'] == (run_dir / name).read_text()
    # The same run again: summary.md and the tables carry the new date, before and after.
    again = run({'results': {'n1': [INST]}, 'dest': str(tmp_path), 'run_id': 'r4', 'tolerance': 5.0,
                 '_ansible_diff': True, 'references': {'Qwen/Qwen3.5-2B': {'gsm8k': 80.0}}})
    summary = [entry for entry in again['diff'] if entry['after_header'] == str(run_dir / 'summary.md')][0]
    assert summary['before_header'] == str(run_dir / 'summary.md') and summary['before'] == out['summary']
    assert summary['after'] == again['summary'] != out['summary']


def test_check_mode_diff_shows_what_a_run_would_write(tmp_path):
    out = run({'results': {'n1': [INST]}, 'dest': str(tmp_path), 'run_id': 'r5', 'tolerance': 5.0,
               '_ansible_check_mode': True, '_ansible_diff': True})
    assert not (tmp_path / 'r5').exists() and out['changed']
    shown = dict((entry['after_header'].rsplit('/', 1)[1], entry['after']) for entry in out['diff'])
    assert shown['summary.md'] == out['summary']
    assert shown['compare.png'] == shown['n1-default-latency.png'] == '<PNG image the run would draw>\n'
    assert json.loads(shown['results.json'])['run_id'] == 'r5'
