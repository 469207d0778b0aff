# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""node_facts: the module on the node, and with ``checks`` the npu_check role's whole read and judgement.

The documentation is the module's (plugins/modules/node_facts.py). Without ``checks`` the module
runs with the task's arguments, as any module does. With ``checks`` (the npu_check settings) the
arguments come from them (``node_query``), the read and the opt-in page-cache drop run as
host_plan's ``read_node`` runs them (plugin_utils/judge/_node_read.py), and the node is judged on
the controller (``node_verdict``); the module itself never sees ``checks``.
"""

from __future__ import annotations

from ansible.module_utils.parsing.convert_bool import boolean
from ansible.plugins.action import ActionBase
from ansible.utils.vars import merge_hash

from ansible_collections.ascend.vllm.plugins.plugin_utils.judge._node_problems import node_query, node_verdict
from ansible_collections.ascend.vllm.plugins.plugin_utils.judge._node_read import NodeReadError, read_node

# The options node_query computes from the checks: giving them too would have no effect.
QUERIED = ('paths', 'npu_smi_path', 'driver_version_file', 'containers', 'ports', 'gather', 'manifests',
           'registry_timeout')
REQUIRED = ('driver_dir', 'driver_version_file')


def checks_problem(checks, args):
    """Why the task's ``checks`` cannot be used (a message), or None."""
    if not isinstance(checks, dict):
        return 'checks must be a dict (the npu_check settings), got %s' % type(checks).__name__
    missing = [name for name in REQUIRED if not checks.get(name)]
    if missing:
        return 'checks lacks %s (the npu_check settings name the driver files)' % ', '.join(missing)
    given = sorted(name for name in QUERIED if name in args)
    if given:
        return 'with checks, %s come from the checks: leave %s out' % (', '.join(given), 'it' if len(given) == 1 else 'them')
    return None


class ActionModule(ActionBase):
    """node_facts on the node; with ``checks``, the npu_check read and verdict."""

    _supports_async = True

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        args = dict(self._task.args)
        if 'checks' not in args:
            # As ansible.builtin.normal runs any module: the task's own arguments, async when asked.
            wrap_async = self._task.async_val and not self._connection.has_native_async
            return merge_hash(result, self._execute_module(task_vars=task_vars, wrap_async=wrap_async))
        checks = args.pop('checks')
        problem = checks_problem(checks, args)
        if problem is None and self._task.async_val:
            problem = 'with checks, node_facts runs several modules in turn: it cannot run async'
        if problem:
            return dict(result, failed=True, changed=False, msg='node_facts: ' + problem)
        return dict(result, **self._check(checks, args, task_vars))

    def _check(self, checks, args, task_vars):
        host = task_vars.get('inventory_hostname', '?')
        settings = dict(checks)
        opted_in = boolean(settings.pop('drop_page_cache', False) or False, strict=False)
        query = dict(args, **node_query(settings))

        def execute(name, module_args):
            return self._execute_module(module_name=name, module_args=module_args, task_vars=task_vars)

        try:
            # The module only reads: it runs in check mode as in a normal run. The drop never does.
            node, drop, memory_again = read_node(execute, query, settings, opted_in, self._task.check_mode, host)
        except NodeReadError as exc:
            out = {'failed': True, 'changed': False,
                   'msg': 'node_facts could not read %s for its checks: %s' % (host, exc.result.get('msg', exc.result))}
            if exc.unreachable:
                out['unreachable'] = True
            return out
        verdict = node_verdict(node, dict(settings, drop=drop or {}, memory_again=memory_again or {}))
        return dict(node, changed=bool(drop and drop['changed']), **verdict)
