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

from ansible.module_utils.common.parameters import remove_values

from ansible_collections.ascend.vllm.plugins.plugin_utils._controller_action import ControllerAction
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.planner import config_result
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.vllm_options import argument_spec


class ActionModule(ControllerAction):
    """Plan a vLLM deployment from the task's options, on the controller."""

    SPEC = argument_spec()

    def act(self, checked, task_vars):
        params = checked.validated_parameters
        output = config_result(params)
        output['invocation'] = {'module_args': params}
        return remove_values(output, checked._no_log_values)
