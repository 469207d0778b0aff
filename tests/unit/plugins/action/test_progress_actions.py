# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The vllm_ready and image_pull_wait action plugins: module runs on the node, progress lines on the display."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from unittest import mock

from ansible_collections.ascend.vllm.plugins.action import image_pull_wait, vllm_ready


def run_action(plugin, args, answers, no_log=False):
    """The action with the module runs answered from ``answers``; returns (result, module args, lines shown)."""
    task = mock.MagicMock()
    task.args = dict(args)
    task.async_val = 0
    task.check_mode = False
    task.no_log = no_log
    connection = mock.MagicMock()
    connection._shell.tmpdir = None
    action = plugin.ActionModule(task, connection, mock.MagicMock(), loader=None, templar=None, shared_loader_obj=None)
    sent, shown = [], []
    replies = iter(answers)

    def execute(module_name=None, module_args=None, task_vars=None, **kwargs):
        sent.append((module_name, dict(module_args)))
        return next(replies)
    with mock.patch.object(action, '_execute_module', side_effect=execute), \
            mock.patch.object(plugin.display, 'display', side_effect=lambda msg, **kw: shown.append((msg, kw))):
        result = action.run(task_vars={'inventory_hostname': 'n1'})
    return result, sent, shown


READY_ARGS = {'name': 'vllm-ascend', 'url': 'http://127.0.0.1:8080', 'served_model_name': 'qwen3.5',
              'timeout': 1800, 'report_after': 30, 'api_key': 'sk-1'}


def test_vllm_ready_prints_progress_and_returns_the_outcome():
    answers = [{'state': 'waiting', 'waited': 31.2, 'log_tail': ['Loading weights took 3.20 seconds']},
               {'state': 'ready', 'waited': 40.0, 'completion': ' bright'}]
    result, sent, shown = run_action(vllm_ready, READY_ARGS, answers)
    assert result == answers[-1]
    assert [name for name, _args in sent] == ['ascend.vllm.vllm_ready'] * 2
    assert 'waited' not in sent[0][1] and sent[1][1]['waited'] == 31.2 and sent[1][1]['api_key'] == 'sk-1'
    assert shown == [('[n1] vllm-ascend is starting: 31s since its start, timeout in 29m28s; '
                      'newest log line: Loading weights took 3.20 seconds', {'stderr': True})]


def test_vllm_ready_hides_the_log_line_of_a_no_log_task():
    answers = [{'state': 'waiting', 'waited': 5, 'log_tail': ['secret']}, {'state': 'ready'}]
    _result, _sent, shown = run_action(vllm_ready, READY_ARGS, answers, no_log=True)
    assert 'secret' not in shown[0][0] and shown[0][0].endswith('(log line hidden by no_log)')


def test_vllm_ready_without_report_after_is_one_module_run():
    result, sent, shown = run_action(vllm_ready, dict(READY_ARGS, report_after=0), [{'state': 'timeout', 'failed': True}])
    assert result['state'] == 'timeout' and len(sent) == 1 and not shown


PULL_ARGS = {'results_file': '/root/.ansible_async/j1', 'name': 'reg:5000/a/b:1', 'timeout': 3600,
             'report_after': 15}


def test_image_pull_wait_prints_progress_and_returns_the_jobs_answer():
    progress = {'layers': {'l1': {'status': 'Downloading', 'current': 5e8, 'total': 1e9}}, 'status': '', 'error': ''}
    answers = [{'finished': False, 'progress': progress}, {'finished': True, 'answer': {'changed': True}}]
    result, sent, shown = run_action(image_pull_wait, PULL_ARGS, answers)
    assert result['finished'] and result['answer'] == {'changed': True} and not result.get('failed')
    assert [args['report_after'] for _name, args in sent] == [15.0, 15.0]
    assert len(shown) == 1 and shown[0][0].startswith(
        '[n1] pulling reg:5000/a/b:1: 0/1 layers done (1 downloading), 500 MB of 1 GB downloaded (50%); ')


def test_image_pull_wait_fails_at_the_timeout():
    with mock.patch.object(image_pull_wait.time, 'monotonic', side_effect=[0, 0, 0, 2, 2, 2, 2]):
        result, sent, _shown = run_action(image_pull_wait, dict(PULL_ARGS, timeout=2, report_after=5),
                                          [{'finished': False, 'progress': None}])
    assert sent[0][1]['report_after'] == 2
    assert result['failed'] and result['msg'] == 'the pull of reg:5000/a/b:1 did not end within the timeout (2 s)'


def test_image_pull_wait_rejects_a_bad_timeout_before_any_run():
    result, sent, _shown = run_action(image_pull_wait, dict(PULL_ARGS, timeout='soon'), [])
    assert result['failed'] and result['msg'] == 'timeout=soon: must be a number of seconds more than 0' and not sent


def test_image_pull_wait_fails_at_the_timeout_with_the_callers_message():
    with mock.patch.object(image_pull_wait.time, 'monotonic', side_effect=[0, 0, 0, 2, 2, 2, 2]):
        result, _sent, _shown = run_action(image_pull_wait, dict(PULL_ARGS, timeout=2, msg='past image_pull_timeout'),
                                           [{'finished': False, 'progress': None}])
    assert result['failed'] and result['msg'] == 'past image_pull_timeout'
