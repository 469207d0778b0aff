# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""vllm_config on the controller: the same options and result as the module, no node contacted.

The documentation is the module's (plugins/modules/vllm_config.py).  Planning
needs only the task's options, so the action validates them with the option
table (plugin_utils/contracts/vllm_options.py) and runs the planner here, once per host,
instead of shipping the module to the node: no connection, no round trip.
"""

from __future__ import annotations

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.module_utils.common.parameters import remove_values
from ansible.module_utils.errors import UnsupportedError
from ansible.plugins.action import ActionBase

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.planner import plan, summary, task_result
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.vllm_options import argument_spec


class ActionModule(ActionBase):
    """Plan a vLLM deployment from the task's options, on the controller."""

    TRANSFERS_FILES = False
    _requires_connection = False
    _supports_check_mode = True
    _supports_async = False

    def run(self, tmp=None, task_vars=None):
        super(ActionModule, self).run(tmp, task_vars)
        validation = ArgumentSpecValidator(argument_spec()).validate(dict(self._task.args))
        no_log_values = validation._no_log_values
        if validation.error_messages:
            # The module's own wording (AnsibleModule._check_arguments).
            msg = validation.errors.msg
            if isinstance(validation.errors[0], UnsupportedError):
                msg = 'Unsupported parameters for (%s) module: %s' % (self._task.action, msg)
            return remove_values({'failed': True, 'changed': False, 'msg': msg}, no_log_values)
        params = validation.validated_parameters
        try:
            result = plan(dict(params))
        except ValueError as exc:
            return {'failed': True, 'changed': False, 'msg': 'vllm_config could not plan: %s' % exc}
        output = task_result(result)
        if result['violations']:
            output.update(failed=True, msg=summary(result['violations']))
        if result['warnings']:
            output['warnings'] = list(result['warnings'])
        output['invocation'] = {'module_args': params}
        return remove_values(output, no_log_values)
