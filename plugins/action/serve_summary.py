# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""serve_summary: what a host serves, and which hosts of the play dropped out and why, on the controller.

The documentation is the module's (plugins/modules/serve_summary.py). The lines are built in
plugin_utils/serve/_serve.py; the hosts that dropped out are read from their own variables
(``hostvars``): their vllm_serve_status, and the first result that contacted them.
"""

from __future__ import annotations

from ansible.module_utils.parsing.convert_bool import boolean

from ansible_collections.ascend.vllm.plugins.plugin_utils._controller_action import ControllerAction
from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._instances import plain
from ansible_collections.ascend.vllm.plugins.plugin_utils.report._summary import host_summary
from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._serve import left_out_line
from ansible_collections.ascend.vllm.plugins.module_utils.serve._specs import SERVE_SUMMARY


# The results that contact a node first: preflight's node read (host_plan with read_node,
# registered as ascend_vllm_plan), or the npu_check role's own read when it ran alone.
REACH_RESULTS = ('ascend_vllm_plan', '__npu_check_node')


def _reach(variables):
    """The first result that says the host could not be reached or read, else {}."""
    for name in REACH_RESULTS:
        found = plain(variables[name]) if name in variables else {}
        if isinstance(found, dict) and (found.get('unreachable') or found.get('failed')):
            return found
    return {}


class ActionModule(ControllerAction):
    """The summary lines of the task's host, then (``left_out``) one line per host that is not serving."""

    SPEC = SERVE_SUMMARY

    def act(self, checked, task_vars):
        args = checked.validated_parameters
        lines = host_summary(plain(args['instances']), plain(args['status']),
                             boolean(self._task.check_mode or False, strict=False),
                             plain(args['exposure']), plain(args['balancer']))
        if args['removed']:
            lines.append('%s: %s (ours, no longer in the plan)' % (
                'would remove' if self._task.check_mode else 'removed', ', '.join(sorted(args['removed']))))
        hostvars = task_vars.get('hostvars') or {}
        for host in sorted(args['left_out']):
            variables = hostvars[host] if host in hostvars else {}
            status = plain(variables['vllm_serve_status']) if 'vllm_serve_status' in variables else {}
            lines.append(left_out_line(host, status, _reach(variables)))
        # Shown at every verbosity, as ansible.builtin.debug's message is.
        return {'changed': False, 'msg': lines, '_ansible_verbose_always': True}
