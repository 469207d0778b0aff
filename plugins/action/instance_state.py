# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""instance_state: one lifecycle step of the vllm_serve role's instances, on what runs them.

The documentation is the module's (plugins/modules/instance_state.py). With ``service`` (the source
install method) every step is one ascend.vllm.vllm_service run on the node. With containers,
``absent`` is one ascend.vllm.containers_absent run and the others are the container_run role's
states, through its action (ascend.vllm.container_ensure): a kept container is dropped by removing it.
"""

from __future__ import annotations

from ansible.plugins.action import ActionBase

from ansible_collections.ascend.vllm.plugins.module_utils.serve._specs import (
    INSTANCE_STATE, INSTANCE_STATE_REQUIRED_IF)
from ansible_collections.ascend.vllm.plugins.plugin_utils._controller_action import task_args

CONTAINER_STATES = {'stopped': 'stopped', 'dropped': 'absent', 'restored': 'restored'}


def _given(args, *names):
    """The arguments of ``names`` that were set (the others keep the called module's defaults)."""
    return dict((name, args[name]) for name in names if args[name] is not None)


class ActionModule(ActionBase):
    """Dispatch one step to the module of the instance's runtime and return its result."""

    def run(self, tmp=None, task_vars=None):
        super().run(tmp, task_vars)
        checked, failed = task_args(self, INSTANCE_STATE, required_if=INSTANCE_STATE_REQUIRED_IF)
        if failed:
            return failed
        args = checked.validated_parameters
        state = args['state']
        if args['service']:
            module = 'ascend.vllm.vllm_service'
            module_args = (dict(_given(args, 'names', 'all_managed'), state=state) if state == 'absent'
                           else _given(args, 'name', 'state'))
        elif state == 'absent':
            module = 'ascend.vllm.containers_absent'
            module_args = _given(args, 'names', 'all_managed', 'stop_timeout', 'wait')
        else:
            return self._container_run(args, task_vars)
        return self._execute_module(module_name=module, module_args=module_args, task_vars=task_vars)

    def _container_run(self, args, task_vars):
        """The container_run role's one task (ascend.vllm.container_ensure) for the step's state."""
        task = self._task.copy()
        inputs = {'container_run_name': args['name'], 'container_run_state': CONTAINER_STATES[args['state']]}
        if args['stop_timeout'] is not None:
            inputs['container_run_stop_timeout'] = args['stop_timeout']
        task.args = {'inputs': inputs}
        action = self._shared_loader_obj.action_loader.get(
            'ascend.vllm.container_ensure', task=task, connection=self._connection, play_context=self._play_context,
            loader=self._loader, templar=self._templar, shared_loader_obj=self._shared_loader_obj)
        return action.run(task_vars=task_vars)
