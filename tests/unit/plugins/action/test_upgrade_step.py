# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""upgrade_step: the end of one instance's rolling upgrade, decided on the controller, put back on the node.

The rules are plugin_utils/serve/_rolling.py's upgrade_outcome; the action is run with the node's
balancer_server faked, and what it sent recorded.
"""

from unittest import mock

from hypothesis import given, settings, strategies as st

from ansible_collections.ascend.vllm.plugins.action import upgrade_step as action_module

BEHIND = {'socket': '/var/lib/ascend-vllm/balancer/run/admin.sock', 'backend': 'qwen3.5', 'server': 'a'}


def run(args, check_mode=False, answer=None, now=1000.0):
    sent = []
    task = mock.MagicMock()
    task.check_mode = check_mode
    task.args = dict(args)
    task.async_val = 0
    action = action_module.ActionModule(task, mock.MagicMock(), mock.MagicMock(), loader=None, templar=None,
                                        shared_loader_obj=None)
    action._remove_tmp_path = lambda path: None

    def execute(module_name=None, module_args=None, task_vars=None, **kwargs):
        sent.append((module_name, dict(module_args)))
        return answer if answer is not None else {'changed': True}
    with mock.patch.object(action, '_execute_module', side_effect=execute), \
            mock.patch.object(action_module.time, 'time', lambda: now):
        return action.run(task_vars={'inventory_hostname': 'n1'}), sent


def test_a_drained_instance_that_serves_goes_back_into_the_balancer():
    result, sent = run(dict(BEHIND, name='vllm-a', status={'state': 'ready', 'container': 'vllm-a'},
                            drained={'drain': True}, stopped_at=990.0))
    assert sent == [('ascend.vllm.balancer_server', dict(BEHIND, state='ready'))]
    assert (bool(result.get('failed')), result['put_back'], result['changed']) == (False, True, True)
    assert result['msg'] == 'vllm-a on n1 upgraded; back in the balancer' and result['_ansible_verbose_always']


def test_an_instance_behind_no_balancer_reports_its_gap_and_how_to_avoid_it():
    result, sent = run({'name': 'vllm-a', 'status': {'state': 'ready', 'container': 'vllm-a'},
                        'drained': {'drain': False, 'why': 'the instance is not behind a balancer'},
                        'stopped_at': 987.5}, now=1000.0)
    assert sent == [] and result['gap'] == 12.5 and not result.get('failed')
    assert 'did not serve for up to 12.5 s' in result['msg'] and 'behind the balancer' in result['msg']


def test_a_failed_replacement_put_back_fails_naming_the_cause_and_what_was_left():
    result, sent = run(dict(BEHIND, name='vllm-a', status={'state': 'failed', 'container': 'vllm-a', 'error': 'crashed'},
                            drained={'drain': True}, restored={'state': 'ready'}, left=['b'],
                            error='Instance a is not serving'))
    assert [name for name, _args in sent] == ['ascend.vllm.balancer_server']
    assert result['failed'] and result['msg'] == (
        'Rolling upgrade stopped at vllm-a on n1: crashed. Rolled back: the previous container serves again and is back '
        'in the balancer. Not upgraded (untouched): b and the hosts after n1.')


def test_a_refusal_before_the_check_is_the_cause():
    result, sent = run(dict(BEHIND, name='vllm-a', error='docker_container refused the container vllm-a: bad port.'))
    assert sent == [] and result['failed']
    assert result['msg'].startswith('Rolling upgrade stopped at vllm-a on n1: docker_container refused the container')


def test_check_mode_says_what_would_happen_and_changes_nothing():
    result, sent = run(dict(BEHIND, name='vllm-a', drained={'drain': True}), check_mode=True)
    assert sent == [] and not result.get('failed')
    assert result['msg'] == 'vllm-a on n1 would be replaced and checked, one instance at a time (check mode: nothing changed)'


def test_a_put_back_that_fails_fails_the_step():
    result, _sent = run(dict(BEHIND, name='vllm-a', status={'state': 'ready', 'container': 'vllm-a'},
                             drained={'drain': True}), answer={'failed': True, 'msg': 'no such server'})
    assert result['failed'] and 'Putting it back into the balancer failed: no such server' in result['msg']


@settings(max_examples=150, deadline=None)
@given(state=st.sampled_from(['ready', 'failed', None]), drained=st.booleans(),
       restored=st.sampled_from([None, 'ready', 'crashed']), behind=st.booleans())
def test_put_back_exactly_when_drained_and_something_serves(state, drained, restored, behind):
    """For any outcome: the server is set ready only when it was drained, a balancer carries it, and the new or the
    restored container serves; the step fails exactly when the new one does not serve."""
    args = dict(BEHIND if behind else {}, name='vllm-a', drained={'drain': drained},
                status={'state': state, 'container': 'vllm-a'} if state else {},
                restored={'state': restored} if restored else None, error='' if state else 'refused')
    result, sent = run(args)
    # A restore only follows a check that failed (a refusal before the check has no status, nothing restored).
    serves = state == 'ready' or (state == 'failed' and restored == 'ready')
    assert bool(sent) == (drained and behind and serves)
    assert bool(result.get('failed')) == (state != 'ready')
