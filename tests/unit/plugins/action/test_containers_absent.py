# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""containers_absent: which containers go (ours only), their pids noted before, npu-smi read after.

The rules are plugin_utils/serve/_serve.py's (containers_to_remove, container_pids); the action
is run with the node's modules faked, and what it asked the node recorded in order.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from unittest import mock

import pytest
from hypothesis import given, settings, strategies as st

from ansible_collections.ascend.vllm.plugins.action import containers_absent as action_module
from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._serve import container_pids, containers_to_remove

PLAN = [{'container_name': 'vllm-ascend-a'}, {'container_name': 'vllm-ascend-b'}]
MANAGED = [{'Names': ['/vllm-ascend-b']}, {'Names': ['/old']}]


@pytest.mark.parametrize('all_managed, expected', [
    (True, ['vllm-ascend-b', 'old']),
    (False, ['vllm-ascend-b']),
])
def test_planned_first_then_the_managed_ones_once(all_managed, expected):
    assert containers_to_remove(PLAN, MANAGED, all_managed) == expected


def test_a_kept_previous_container_goes_with_its_instance():
    managed = [{'Names': ['/vllm-ascend-b']}, {'Names': ['/vllm-ascend-b-previous']}, {'Names': ['/vllm-ascend-a-previous']}]
    # vllm-ascend-a itself is not ours (or gone); its kept container is ours and goes.
    assert containers_to_remove(PLAN, managed, False) == ['vllm-ascend-a-previous', 'vllm-ascend-b', 'vllm-ascend-b-previous']


def test_a_previous_container_that_is_not_ours_stays():
    assert containers_to_remove(PLAN, [{'Names': ['/vllm-ascend-b']}], False) == ['vllm-ascend-b']


@pytest.mark.parametrize('results, expected', [
    ([{'stdout_lines': ['PID', '  4242', '4243 ']}, {'stdout_lines': ['PID', '17']}], [4242, 4243, 17]),
    # A container that was not there: docker top failed, nothing to wait for.
    ([{'rc': 1, 'stdout_lines': []}, {'skipped': True}], []),
])
def test_pids(results, expected):
    assert container_pids(results) == expected


def run(args, managed, check_mode=False, npu=None, tops=None):
    """The action with the node faked: ``managed`` containers carry our label, ``tops`` their pid lines."""
    calls = []
    tops = tops or {}

    def module(name, module_args, task_vars):
        calls.append((name, dict(module_args)))
        if name == 'community.docker.docker_host_info':
            return {'containers': [{'Names': ['/' + n]} for n in managed]}
        if name == 'ansible.legacy.command':
            pids = tops.get(module_args['argv'][2])
            return {'rc': 0, 'stdout_lines': ['PID'] + [str(p) for p in pids]} if pids else {'rc': 1, 'stdout_lines': []}
        if name == 'community.docker.docker_container':
            return {'changed': not check_mode}
        if name == 'ascend.vllm.npu_facts':
            return npu if npu is not None else {'npu': {}, 'still_listed': []}
        raise AssertionError(name)

    task = mock.MagicMock()
    task.check_mode = check_mode
    task.args = dict(args)
    task.async_val = 0
    action = action_module.ActionModule(task, mock.MagicMock(), mock.MagicMock(), loader=None, templar=None,
                                        shared_loader_obj=None)
    action._module = module
    action._remove_tmp_path = lambda path: None
    return action.run(task_vars={'inventory_hostname': 'n1'}), calls


def names(calls, module):
    return [args.get('name') or args.get('argv', [None, None, None])[2] for name, args in calls if name == module]


def test_ours_are_listed_then_their_pids_read_then_removed_then_npu_smi_waited_for():
    result, calls = run({'names': ['vllm-ascend-a', 'vllm-ascend-b'], 'wait': 5},
                        ['vllm-ascend-b', 'vllm-ascend-b-previous', 'other'], tops={'vllm-ascend-b': [41, 42]})
    assert [name for name, _args in calls] == [
        'community.docker.docker_host_info', 'ansible.legacy.command', 'ansible.legacy.command',
        'community.docker.docker_container', 'community.docker.docker_container', 'ascend.vllm.npu_facts']
    assert calls[0][1]['containers_filters'] == {'label': 'ascend.vllm.managed-by=ascend.vllm'}
    assert names(calls, 'community.docker.docker_container') == ['vllm-ascend-b', 'vllm-ascend-b-previous']
    assert calls[-1][1] == {'gone_pids': [41, 42], 'wait': 5.0}
    assert (result.get('failed'), result['changed'], result['removed']) == (None, True, ['vllm-ascend-b', 'vllm-ascend-b-previous'])
    assert result['msg'] == 'Removed containers: vllm-ascend-b, vllm-ascend-b-previous'


def test_processes_still_on_the_chips_fail_naming_the_pids_and_the_fix():
    result, _calls = run({'names': ['a'], 'wait': 60}, ['a'], tops={'a': [7]}, npu={'npu': {}, 'still_listed': [7]})
    assert result['failed'] and result['msg'] == (
        'npu-smi still lists processes of the removed containers after 60s: [7]. Fix: kill them (kill PID) or reboot '
        'the node.')


def test_npu_smi_unreadable_is_a_warning_not_a_failure():
    with mock.patch.object(action_module.display, 'warning') as warning:
        result, _calls = run({'names': ['a']}, ['a'], tops={'a': [7]}, npu={'msg': 'npu-smi: not found'})
    assert not result.get('failed') and 'npu-smi: not found' in warning.call_args[0][0]


def test_check_mode_removes_nothing_and_reads_no_npu_smi():
    result, calls = run({'names': ['a']}, ['a'], check_mode=True, tops={'a': [7]})
    assert result['removed'] == [] and result['msg'] == 'Would remove containers: a'
    assert 'ascend.vllm.npu_facts' not in [name for name, _args in calls]


def test_arguments_are_checked():
    result, calls = run({'names': 'a', 'wait': 'soon'}, [])
    assert result['failed'] and 'wait' in result['msg'] and calls == []


@settings(max_examples=150, deadline=None)
@given(planned=st.lists(st.sampled_from(['a', 'b', 'c']), unique=True),
       on_node=st.lists(st.sampled_from(['a', 'b', 'a-previous', 'x', 'y']), unique=True),
       all_managed=st.booleans())
def test_only_our_containers_ever_go(planned, on_node, all_managed):
    """Whatever is planned and on the node: nothing without our label goes; with all_managed every one of ours
    goes; without it, only planned ones and their kept containers."""
    result, calls = run({'names': planned, 'all_managed': all_managed}, on_node)
    gone = names(calls, 'community.docker.docker_container')
    assert set(gone) <= set(on_node) and len(gone) == len(set(gone))
    if all_managed:
        assert set(gone) == set(on_node)
    else:
        assert set(gone) == set(n for n in on_node if n in planned or n.endswith('-previous') and n[:-9] in planned)
    assert result['removed'] == gone
