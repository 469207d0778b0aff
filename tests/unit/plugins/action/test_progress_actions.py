# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The vllm_ready and image_pull_wait action plugins: module runs on the node, progress lines on the display."""

import time
from unittest import mock

from ansible.utils.display import Display

from ansible_collections.ascend.vllm.plugins.action import image_pull_wait, job_wait, vllm_ready


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
            mock.patch.object(Display(), 'display', side_effect=lambda msg, **kw: shown.append((msg, kw))):
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
    with mock.patch.object(time, 'monotonic', side_effect=[0, 0, 0, 2, 2, 2, 2]):
        result, sent, _shown = run_action(image_pull_wait, dict(PULL_ARGS, timeout=2, report_after=5),
                                          [{'finished': False, 'progress': None}])
    assert sent[0][1]['report_after'] == 2
    assert result['failed'] and result['msg'] == 'the pull of reg:5000/a/b:1 did not end within the timeout (2 s)'


def test_image_pull_wait_rejects_a_bad_timeout_before_any_run():
    result, sent, _shown = run_action(image_pull_wait, dict(PULL_ARGS, timeout='soon'), [])
    assert result['failed'] and result['msg'] == 'timeout=soon: must be a number of seconds more than 0' and not sent


def test_image_pull_wait_fails_at_the_timeout_with_the_callers_message():
    with mock.patch.object(time, 'monotonic', side_effect=[0, 0, 0, 2, 2, 2, 2]):
        result, _sent, _shown = run_action(image_pull_wait, dict(PULL_ARGS, timeout=2, msg='past image_pull_timeout'),
                                           [{'finished': False, 'progress': None}])
    assert result['failed'] and result['msg'] == 'past image_pull_timeout'


# --- what the outcome means for the run: the action's notes (plugin_utils/serve/_keep.py) ---

CRASHED = {'state': 'crashed', 'failed': True, 'error': 'vLLM crashed while starting', 'cause': 'ValueError: x',
           'log_file': '/var/log/ascend-vllm/v.log', 'log_file_error': ''}


def test_a_failure_comes_back_with_its_reason_and_where_the_log_is():
    result, sent, _shown = run_action(vllm_ready, dict(READY_ARGS, report_after=0), [dict(CRASHED)])
    assert result['reason'] == 'vLLM crashed while starting; cause in the log: ValueError: x'
    assert result['log_note'] == ' Its whole log is saved on n1 at /var/log/ascend-vllm/v.log.'
    assert result['after'] == 'none'
    timeout = {'state': 'timeout', 'failed': True, 'error': 'no 200', 'log_file': '', 'log_file_error': 'disk full'}
    result, _sent, _shown = run_action(vllm_ready, dict(READY_ARGS, report_after=0), [timeout])
    assert result['reason'] == 'no 200 (raise vllm_serve_ready_timeout for slow first downloads)'
    assert result['log_note'] == ' (Its whole log could not be saved: disk full.)'


def test_a_kept_container_is_dropped_when_the_new_one_serves_and_put_back_when_it_fails():
    args = dict(READY_ARGS, report_after=0, kept='vllm-ascend-previous')
    served, sent, _shown = run_action(vllm_ready, args, [{'state': 'ready', 'error': ''}])
    assert (served['after'], served['reason'], served['log_note']) == ('drop', '', '')
    # The action's own options never reach the node.
    assert 'kept' not in sent[0][1] and 'restoring' not in sent[0][1]
    failed, _sent, _shown = run_action(vllm_ready, args, [dict(CRASHED)])
    assert failed['after'] == 'restore'


def test_a_container_put_back_says_whether_it_serves_again():
    args = dict(READY_ARGS, report_after=0, restoring=True)
    back, _sent, _shown = run_action(vllm_ready, args, [{'state': 'ready', 'error': ''}])
    assert 'restored: it serves again' in back['restore_note']
    lost, _sent, _shown = run_action(vllm_ready, args, [dict(CRASHED)])
    assert 'does not serve either: vLLM crashed while starting' in lost['restore_note']


def test_the_served_name_of_a_restored_container_is_its_own_commands():
    from ansible_collections.ascend.vllm.plugins.modules.vllm_ready import command_served_name

    class Probe(object):
        def __init__(self, inspect):
            self.answer = inspect

        def inspect(self):
            if isinstance(self.answer, Exception):
                raise self.answer
            return self.answer
    cmd = {'Config': {'Cmd': ['vllm', 'serve', 'm', '--served-model-name', 'old-name']}}
    assert command_served_name(Probe(cmd), 'qwen3.5') == 'old-name'
    assert command_served_name(Probe({'Config': {'Cmd': ['vllm', 'serve', 'Qwen/Qwen3.5-2B']}}), 'x') == 'Qwen/Qwen3.5-2B'
    assert command_served_name(Probe(None), 'qwen3.5') == 'qwen3.5'
    assert command_served_name(Probe(IOError('socket gone')), 'qwen3.5') == 'qwen3.5'


def test_check_mode_does_not_watch_a_container_the_run_did_not_start():
    task_args = dict(READY_ARGS, report_after=0, not_started=True, kept='vllm-ascend-previous')
    import ansible_collections.ascend.vllm.plugins.action.vllm_ready as plugin
    from unittest import mock as m
    task = m.MagicMock()
    task.args, task.async_val, task.check_mode, task.no_log = dict(task_args), 0, True, False
    action = plugin.ActionModule(task, m.MagicMock(), m.MagicMock(), loader=None, templar=None, shared_loader_obj=None)
    with m.patch.object(action, '_execute_module', side_effect=AssertionError('the node was asked')):
        result = action.run(task_vars={'inventory_hostname': 'n1'})
    assert (result['state'], result['after'], result['reason'], result['log_tail']) == ('not_started', 'none', '', [])


def test_every_outcome_has_the_same_keys_even_a_refused_option():
    result, _sent, _shown = run_action(vllm_ready, dict(READY_ARGS, report_after=0),
                                       [{'failed': True, 'msg': 'timeout=0: must be more than 0'}])
    assert (result['state'], result['task'], result['log_tail'], result['completion']) == ('error', '', [], '')
    assert result['reason'] == 'timeout=0: must be more than 0' and result['after'] == 'none'


JOB_ARGS = {'results_file': '/root/.ansible_async/j1', 'log': '/var/tmp/build.log', 'what': 'building vllm-ascend',
            'timeout': 7200, 'report_after': 30}


def test_job_wait_prints_the_newest_log_line_and_returns_the_jobs_own_result():
    answers = [{'finished': False, 'progress': {'log': '/var/tmp/build.log', 'size': 10, 'newest': None}},
               {'finished': False, 'progress': {'log': '/var/tmp/build.log', 'size': 99,
                                                'newest': '[12/480]   Building CXX object  csrc/x.o'}},
               {'finished': True, 'answer': {'changed': True, 'rc': 0, 'stdout': 'Successfully installed vllm-ascend',
                                             'ansible_job_id': 'j1', 'finished': 1}}]
    with mock.patch.object(time, 'monotonic', return_value=0):
        result, sent, shown = run_action(job_wait, JOB_ARGS, answers)
    assert [msg.split(': ', 1)[1] for msg, _kw in shown] == [
        '0s elapsed, timeout in 2h00m; no output yet',
        '0s elapsed, timeout in 2h00m; newest line: [12/480] Building CXX object csrc/x.o']
    assert all(msg.startswith('[n1] building vllm-ascend: ') for msg, _kw in shown)
    # Registered as the build's own result: stdout and rc at the top.
    assert result['stdout'] == 'Successfully installed vllm-ascend' and result['rc'] == 0 and result['changed']
    assert not result['failed'] and 'ansible_job_id' not in result
    assert [args['log'] for _name, args in sent] == ['/var/tmp/build.log'] * 3


def test_job_wait_fails_as_the_job_failed_and_at_its_timeout():
    failed, _sent, _shown = run_action(job_wait, JOB_ARGS, [{'finished': True, 'answer': {
        'failed': True, 'rc': 1, 'msg': 'non-zero return code', 'stdout': 'error: ninja failed'}}])
    assert failed['failed'] and failed['rc'] == 1 and failed['stdout'] == 'error: ninja failed'
    with mock.patch.object(time, 'monotonic', side_effect=[0, 0, 0, 2, 2, 2, 2]):
        late, _sent, _shown = run_action(job_wait, dict(JOB_ARGS, timeout=2), [{'finished': False, 'progress': None}])
    assert late['failed'] and late['msg'] == 'building vllm-ascend did not end within the timeout (2 s)'
