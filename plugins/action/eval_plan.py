# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""eval_plan: the eval role's inputs judged and its datasets read, on the controller.

The documentation is the module's (plugins/modules/eval_plan.py). The action reads the
task host's ``eval_*`` variables itself, templated as the role would read them, and hands
them to plugin_utils/evaluation/_eval_inputs.py, where the dataset directories are: on the
controller. No node is contacted.
"""

from __future__ import annotations

from ansible.errors import AnsibleError
from ansible.module_utils.common.text.converters import to_text

from ansible_collections.ascend.vllm.plugins.plugin_utils._controller_action import ControllerAction
from ansible_collections.ascend.vllm.plugins.plugin_utils.evaluation._eval_inputs import eval_inputs
from ansible_collections.ascend.vllm.plugins.plugin_utils.request._vars import judged
from ansible_collections.ascend.vllm.plugins.action.host_plan import role_value_specs

PREFIX = 'eval_'


class ActionModule(ControllerAction):
    """Judge the eval_* variables of the task's host and read its datasets, on the controller."""

    def act(self, checked, task_vars):
        host = task_vars.get('inventory_hostname', 'localhost')
        templar = self._templar.copy_with_new_env(available_variables=task_vars)
        settings = {}
        by_spec = role_value_specs()
        for name in sorted(task_vars):
            if str(name).startswith(PREFIX):
                try:
                    # Read as every role reads it (contracts/_coerce.arrived, as preflight's request does):
                    # "false" from -e is False, "16" is 16.
                    settings[name] = judged(name, templar.template(task_vars[name]), by_spec)
                except AnsibleError as exc:
                    return {'failed': True, 'changed': False,
                            'msg': 'eval_plan could not read %s on %s: %s' % (name, host, to_text(exc))}
        out = eval_inputs(settings, host)
        message = out.pop('message')
        if out['problems']:
            # The message says it all; the datasets read so far would only bury it.
            return {'failed': True, 'changed': False, 'msg': message, 'problems': out['problems']}
        # The judged values the role's later tasks use (secrets stay in their variables).
        return dict(out, changed=False, settings=dict((name, value) for name, value in settings.items()
                                                      if name in by_spec and not by_spec[name].get('no_log')))
