# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The aisbench_eval entry file: the files it writes under workdir, shown with --diff (AISBench itself stubbed)."""

import os

import pytest

from ansible_collections.ascend.vllm.plugins.modules import aisbench_eval
from moduleargs import ExitJson, FailJson, patch_exit_fail, set_module_args as module_args  # noqa: E402,F401 pylint: disable=wrong-import-position,unused-import

INST = {'name': 'default', 'port': 8080, 'served': 'qwen3.5', 'model': 'Qwen/Qwen3.5-2B'}


def run(args):
    with module_args(args):
        with pytest.raises(ExitJson) as exc:
            aisbench_eval.main()
    return exc.value.args[0]


@pytest.fixture
def stub_aisbench(monkeypatch):
    """AISBench's CLI and its result readers: every run recorded, a performance summary of one level."""
    runs = []
    monkeypatch.setattr(aisbench_eval, 'ais_bench', lambda module, args, what, cwd: runs.append(args))
    monkeypatch.setattr(aisbench_eval, 'latest_run', lambda folder: folder + '/20260101_000000')
    monkeypatch.setattr(aisbench_eval, 'read_performance', lambda run_dir, levels: [{'concurrency': levels[0]}])
    return runs


def args(tmp_path, **more):
    return dict({'venv': '/opt/aisbench', 'host': '10.0.0.11', 'where': 'n1', 'instances': [INST],
                 'concurrency': [2], 'requests': 4, 'workdir': str(tmp_path), 'api_key': 'sk-s3cret-0123'}, **more)


def test_diff_shows_every_file_written_as_created_with_the_key_hidden(tmp_path, stub_aisbench):
    out = run(args(tmp_path, _ansible_diff=True))
    base = tmp_path / 'default'
    assert out['changed'] and out['instances'][0]['performance'] == [{'concurrency': 2}]
    assert len(stub_aisbench) == 1 and stub_aisbench[0][0] == str(base / 'performance.py')
    written = sorted(os.path.join(folder, name) for folder, _dirs, names in os.walk(str(base)) for name in names)
    shown = dict((entry['after_header'], entry) for entry in out['diff'])
    assert sorted(shown) == written and str(base / 'performance.py') in shown and str(base / 'perf.jsonl') in shown
    for path in written:
        entry = shown[path]
        assert entry['before_header'] == path + ' (absent)' and entry['before'] == ''
        assert entry['after'] == open(path).read().replace('sk-s3cret-0123', '********')
    assert 'sk-s3cret-0123' in (base / 'performance.py').read_text()
    assert 'sk-s3cret-0123' not in repr(out['diff']) and '********' in shown[str(base / 'performance.py')]['after']
    # The same run again writes the same files: nothing to show.
    assert 'diff' not in run(args(tmp_path, _ansible_diff=True))
    # Another prompt length changes the dataset and nothing else.
    again = run(args(tmp_path, _ansible_diff=True, input_len=8))
    assert [entry['after_header'] for entry in again['diff']] == [str(base / 'perf.jsonl')]
    assert again['diff'][0]['before'] != again['diff'][0]['after'] == (base / 'perf.jsonl').read_text()


def test_check_mode_shows_what_a_run_would_write_and_writes_and_sends_nothing(tmp_path, stub_aisbench):
    out = run(args(tmp_path, _ansible_diff=True, _ansible_check_mode=True))
    assert out['changed'] and out['instances'] == [INST] and stub_aisbench == []
    assert not os.listdir(str(tmp_path))
    shown = dict((entry['after_header'], entry['after']) for entry in out['diff'])
    config = shown[str(tmp_path / 'default' / 'performance.py')]
    assert 'sk-s3cret-0123' not in config and '********' in config and "port=8080" in config.replace(' ', '')


def test_without_diff_no_diff_is_returned(tmp_path, stub_aisbench):
    assert 'diff' not in run(args(tmp_path))
