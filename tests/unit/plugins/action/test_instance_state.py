# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""instance_state: each lifecycle step goes to the module of the instance's runtime, with its arguments.

The node is faked at ``_execute_module``: every module run is recorded. The container steps run the real
container_ensure action (the container_run role's), as the action loader would hand it over.
"""

from __future__ import annotations

from unittest import mock

import pytest

from ansible_collections.ascend.vllm.plugins.action import container_ensure, instance_state


class Task(object):
    def __init__(self, args, check_mode=False):
        self.args, self.check_mode, self.no_log, self.diff, self.async_val = dict(args), check_mode, False, False, 0

    def copy(self):
        return Task(self.args, self.check_mode)


def run(args, check_mode=False, answer=None):
    """(the action's result, [(module, its arguments, check mode)], the arguments container_ensure was given)."""
    sent, handed = [], []

    def execute(action):
        def _execute(module_name=None, module_args=None, task_vars=None, **_kwargs):
            sent.append((module_name, dict(module_args), action._task.check_mode))
            return dict(answer or {'changed': True})
        return _execute

    def build(cls, task):
        action = cls.ActionModule(task, mock.MagicMock(), mock.MagicMock(), loader=None, templar=None)
        action._shared_loader_obj = loader
        action._execute_module = execute(action)
        action._remove_tmp_path = lambda path: None
        return action

    def get(name, task=None, **_kwargs):
        assert name == 'ascend.vllm.container_ensure'
        handed.append(task.args)
        return build(container_ensure, task)

    loader = mock.MagicMock()
    loader.action_loader.get.side_effect = get
    with mock.patch.object(container_ensure.display, 'display'):
        result = build(instance_state, Task(args, check_mode)).run(task_vars={'inventory_hostname': 'n1'})
    return result, sent, handed


@pytest.mark.parametrize('state', ['stopped', 'dropped', 'restored'])
def test_a_service_step_is_one_vllm_service_run_with_the_same_state(state):
    result, sent, handed = run({'name': 'vllm-ascend.service', 'state': state, 'service': True, 'stop_timeout': 9})
    assert sent == [('ascend.vllm.vllm_service', {'name': 'vllm-ascend.service', 'state': state}, False)]
    assert handed == [] and result == {'changed': True}


def test_a_service_teardown_removes_the_units_named_or_every_one_of_ours():
    _result, sent, _handed = run({'state': 'absent', 'service': True, 'names': ['a.service'], 'all_managed': True,
                                  'stop_timeout': 9, 'wait': 5})
    assert sent == [('ascend.vllm.vllm_service', {'state': 'absent', 'names': ['a.service'], 'all_managed': True},
                     False)]


def test_a_container_teardown_is_containers_absent_with_the_settings_given():
    _result, sent, _handed = run({'state': 'absent', 'names': ['vllm-ascend'], 'wait': 5.0})
    assert sent == [('ascend.vllm.containers_absent', {'names': ['vllm-ascend'], 'all_managed': False, 'wait': 5.0},
                     False)]
    _result, sent, _handed = run({'state': 'absent', 'names': ['vllm-ascend'], 'stop_timeout': 9}, check_mode=True)
    assert sent == [('ascend.vllm.containers_absent', {'names': ['vllm-ascend'], 'all_managed': False,
                                                       'stop_timeout': 9}, True)]


@pytest.mark.parametrize('state, role_state, calls', [
    ('stopped', 'stopped', [('vllm-ascend', 'stopped')]),
    ('dropped', 'absent', [('vllm-ascend', 'absent')]),
    ('restored', 'restored', [('vllm-ascend', 'absent'), ('vllm-ascend-previous', None), ('vllm-ascend', 'started')]),
])
def test_a_container_step_is_the_container_run_state(state, role_state, calls):
    result, sent, handed = run({'name': 'vllm-ascend', 'state': state, 'stop_timeout': 9}, check_mode=True)
    assert handed == [{'inputs': {'container_run_name': 'vllm-ascend', 'container_run_state': role_state,
                                  'container_run_stop_timeout': 9}}]
    assert [(args['name'], args.get('state')) for _module, args, _check in sent] == calls
    # The task's check mode reaches the node's modules.
    assert all(check for _module, _args, check in sent) and result['stage'] == role_state


def test_a_container_step_keeps_container_run_stop_timeout_unless_given():
    _result, sent, handed = run({'name': 'vllm-ascend-previous', 'state': 'dropped'})
    assert 'container_run_stop_timeout' not in handed[0]['inputs'] and sent[0][1]['stop_timeout'] == 30


def test_a_failure_of_the_module_is_the_step_s():
    result, _sent, _handed = run({'name': 'vllm-ascend.service', 'state': 'restored', 'service': True},
                                 answer={'failed': True, 'msg': 'no kept files of vllm-ascend.service'})
    assert result['failed'] and result['msg'] == 'no kept files of vllm-ascend.service'


@pytest.mark.parametrize('args, words', [
    ({'state': 'stopped'}, ['state is stopped', 'name']),
    ({'state': 'gone', 'name': 'a'}, ['state', 'stopped, dropped, restored, absent', 'gone']),
])
def test_bad_arguments_stop_before_the_node(args, words):
    result, sent, handed = run(args)
    assert result['failed'] and sent == [] and handed == []
    for word in words:
        assert word in result['msg'], result['msg']
