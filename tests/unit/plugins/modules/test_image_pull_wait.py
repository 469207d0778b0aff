# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The image_pull_wait module's entry: options, the job's results file, the Engine asked only while the job runs."""

import json

import pytest

from ansible_collections.ascend.vllm.plugins.modules import image_pull_wait
from moduleargs import ExitJson, FailJson, patch_exit_fail, set_module_args as module_args  # noqa: E402,F401 pylint: disable=wrong-import-position,unused-import


def run_module(args):
    with module_args(args):
        with pytest.raises((ExitJson, FailJson)) as raised:
            image_pull_wait.main()
    return raised.value.args[0]


def test_an_ended_job_is_returned_at_once(tmp_path):
    job = tmp_path / 'j1'
    job.write_text(json.dumps({'changed': True, 'image': {'Id': 'sha256:1'}}))
    result = run_module({'results_file': str(job), 'name': 'reg:5000/a/b:1', 'report_after': 5,
                         'docker_host': 'unix:///nonexistent/docker.sock'})
    assert result['finished'] and result['answer'] == {'changed': True, 'image': {'Id': 'sha256:1'}}
    assert result['progress'] is None and result['seconds'] < 1 and not result['changed']


def test_a_running_job_returns_after_report_after_with_why_the_engine_said_nothing(tmp_path):
    job = tmp_path / 'j1'
    job.write_text(json.dumps({'started': 1, 'finished': 0, 'ansible_job_id': 'j1'}))
    result = run_module({'results_file': str(job), 'name': 'reg:5000/a/b:1', 'report_after': 0.6,
                         'docker_host': 'unix:///nonexistent/docker.sock'})
    assert not result['finished'] and result['answer'] is None and 0.6 <= result['seconds'] < 2
    assert 'No such file or directory' in result['progress']['error']


def test_cleanup_removes_the_results_file_of_an_ended_job_only(tmp_path):
    ended, running = tmp_path / 'j1', tmp_path / 'j2'
    ended.write_text(json.dumps({'changed': True}))
    running.write_text(json.dumps({'started': 1, 'finished': 0, 'ansible_job_id': 'j2'}))
    result = run_module({'results_file': str(ended), 'name': 'reg:5000/a/b:1', 'cleanup': True})
    assert result['finished'] and result['cleaned'] and not ended.exists()
    result = run_module({'results_file': str(running), 'name': 'reg:5000/a/b:1', 'cleanup': True, 'report_after': 0.3,
                         'docker_host': 'unix:///nonexistent/docker.sock'})
    assert not result['finished'] and 'cleaned' not in result and running.exists()


@pytest.mark.parametrize('option', ['timeout', 'report_after'])
def test_a_time_must_be_positive(tmp_path, option):
    result = run_module({'results_file': str(tmp_path / 'j1'), 'name': 'x', option: 0})
    assert result['failed'] and result['msg'] == '%s=0.0: must be more than 0' % option
