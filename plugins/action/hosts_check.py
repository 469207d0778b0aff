# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""hosts_check: the hosts a run targets, judged on the controller (plugin_utils/fleet/_targets.py).

The documentation is the module's (plugins/modules/hosts_check.py). The hosts a pattern matches
are the inventory's own answer (the same matching a play's ``hosts:`` gets, with ``--limit``), so
every pattern Ansible accepts is judged as Ansible reads it.
"""

from __future__ import annotations

from ansible_collections.ascend.vllm.plugins.module_utils._problem import line, report
from ansible_collections.ascend.vllm.plugins.modules.hosts_check import ARGUMENT_SPEC
from ansible_collections.ascend.vllm.plugins.plugin_utils._controller_action import ControllerAction
from ansible_collections.ascend.vllm.plugins.plugin_utils.fleet._targets import targets_problems


def _matched(inventory, pattern, limits):
    """The hosts ``pattern`` matches: the inventory's answer."""
    return sorted(host.name for host in inventory.get_hosts(pattern, ignore_limits=not limits, ignore_restrictions=True))


class ActionModule(ControllerAction):
    """Fail a run that targets none of the collection's hosts; warn of look-alike platform groups."""

    SPEC = ARGUMENT_SPEC

    def act(self, checked, task_vars):
        args = checked.validated_parameters
        groups = dict((name, list(hosts)) for name, hosts in (task_vars.get('groups') or {}).items())
        # The inventory itself, for Ansible's own pattern matching (host_plan reads host_vars through it too).
        inventory = task_vars['hostvars']._inventory
        hosts = _matched(inventory, args['pattern'], True)
        verdict = targets_problems(groups, args['platform_groups'], args['pattern'], hosts, args['given'],
                                   _matched(inventory, args['pattern'], False))
        out = {'changed': False, 'hosts': hosts, 'problems': verdict['problems'], 'lookalikes': verdict['lookalikes']}
        if verdict['problems']:
            return dict(out, failed=True, msg=report('hosts', 'this run', verdict['problems'],
                                                     'no play of ascend.vllm runs'))
        if verdict['warnings']:
            out['warnings'] = [line(item) for item in verdict['warnings']]
        return out
