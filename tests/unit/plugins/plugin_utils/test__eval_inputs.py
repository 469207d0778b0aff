# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""eval_inputs (evaluation/_eval_inputs.py, behind the eval_plan action): the AISBench runner's installation and
dataset layout, the builtin runner's datasets and the report directory, judged before any request."""

import json

import pytest

from ansible_collections.ascend.vllm.plugins.plugin_utils.evaluation._eval_inputs import eval_inputs
from ansible_collections.ascend.vllm.plugins.module_utils.evaluation._eval_aisbench import AISBENCH_VERSION, READY_MARKER

GOOD = {
    'eval_tolerance': 2.0, 'eval_runner': 'aisbench', 'eval_performance': False,
    'eval_concurrency': [1], 'eval_batch_size': 16, 'eval_max_out_len': 4096, 'eval_perf_requests': 8,
    'eval_perf_input_len': 32, 'eval_perf_output_len': 16, 'eval_request_timeout': 60, 'eval_limit': None,
    'eval_accuracy': True, 'eval_datasets': ['gsm8k'], 'eval_report_dir': 'eval-results',
}


def _venv(path):
    (path / 'bin').mkdir(parents=True)
    (path / 'bin' / 'ais_bench').write_text('')
    (path / READY_MARKER).write_text(AISBENCH_VERSION)
    return str(path)


def _gsm8k(path, splits=('train.jsonl', 'test.jsonl')):
    path.mkdir()
    for name in splits:
        (path / name).write_text(json.dumps({'question': 'Two plus two?', 'answer': '#### 4'}) + '\n')
    return str(path)


def test_aisbench_ready_gives_the_venv_and_absolute_dirs(tmp_path):
    out = eval_inputs(dict(GOOD, eval_aisbench_venv=_venv(tmp_path / 'v'),
                           eval_dataset_dirs={'gsm8k': _gsm8k(tmp_path / 'g'), 'textvqa': '/not/asked'}))
    assert out['problems'] == []
    assert out['aisbench_venv'] == str(tmp_path / 'v')
    assert out['aisbench_dirs'] == {'gsm8k': str(tmp_path / 'g')}  # only the datasets asked for
    assert out['datasets'] == {}  # the builtin runner's questions are not read


def test_aisbench_missing_and_train_split_missing_are_both_reported(tmp_path):
    out = eval_inputs(dict(GOOD, eval_aisbench_venv=str(tmp_path / 'none'),
                           eval_dataset_dirs={'gsm8k': _gsm8k(tmp_path / 'g', splits=('test.jsonl',))}), 'n1')
    assert [p['check'] for p in out['problems']] == ['eval_aisbench_venv', 'eval_dataset_dirs']
    assert 'Fix: run on the controller: make aisbench' in out['message']
    assert 'missing: train.jsonl' in out['message']
    assert out['message'].startswith('2 evaluation problem(s) on n1; no request was sent to any instance:')
    assert out['aisbench_dirs'] == {}


def test_aisbench_missing_directory_is_reported_once(tmp_path):
    out = eval_inputs(dict(GOOD, eval_aisbench_venv=_venv(tmp_path / 'v'), eval_dataset_dirs={'gsm8k': '/nope'}))
    assert len(out['problems']) == 1 and 'eval_dataset_dirs.gsm8k=/nope: no such directory' in out['message']


def test_aisbench_venv_defaults_to_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path))
    out = eval_inputs(dict(GOOD, eval_aisbench_venv=None, eval_dataset_dirs={'gsm8k': _gsm8k(tmp_path / 'g')}))
    assert out['aisbench_venv'] == str(tmp_path / 'ascend-vllm' / ('aisbench-' + AISBENCH_VERSION))
    assert 'AISBench 3.1.20260630 is not installed there' in out['message']


def test_builtin_runner_does_not_ask_for_aisbench(tmp_path):
    out = eval_inputs(dict(GOOD, eval_runner='builtin', eval_aisbench_venv=str(tmp_path / 'none'),
                           eval_dataset_dirs={'gsm8k': _gsm8k(tmp_path / 'g', splits=('test.jsonl',))}))
    assert out['problems'] == [] and out['datasets']['gsm8k'] == [{'question': 'Two plus two?', 'answer': '4'}]


def test_a_relative_report_dir_is_taken_from_the_controllers_working_directory(tmp_path, monkeypatch):
    """eval_plan runs it in the controller's process: its working directory is where ansible-playbook was run
    (a module delegated to localhost runs in the playbook's directory instead)."""
    monkeypatch.chdir(tmp_path)
    out = eval_inputs(dict(GOOD, eval_runner='builtin', eval_accuracy=False, eval_performance=True,
                           eval_report_dir='reports/site-a'))
    assert out['problems'] == [] and out['report_dir'] == str(tmp_path / 'reports' / 'site-a')
    out = eval_inputs(dict(GOOD, eval_runner='builtin', eval_accuracy=False, eval_performance=True,
                           eval_report_dir=''))
    assert [p['check'] for p in out['problems']] == ['eval_report_dir'] and out['report_dir'] == ''


def test_only_eval_names_are_read_and_the_message_names_the_host(tmp_path):
    """Other variables (the action passes only eval_* ones) change nothing; without a host the message says localhost."""
    settings = dict(GOOD, eval_runner='builtin', eval_dataset_dirs={'gsm8k': '/nope'})
    out = eval_inputs(dict(settings, inventory_hostname='n1', tolerance=500, runner='aisbench'))
    assert out == eval_inputs(settings)
    assert out['message'].startswith('1 evaluation problem(s) on localhost; no request was sent to any instance:')
    assert 'eval_dataset_dirs.gsm8k=/nope: no such directory' in out['message']


def test_variables_must_be_a_dict():
    with pytest.raises(ValueError, match='expects the variables as a dict, got list'):
        eval_inputs([('eval_runner', 'builtin')])
