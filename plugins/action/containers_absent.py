# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""containers_absent: remove the collection's containers of a host and wait until their processes leave the chips.

The documentation is the module's (plugins/modules/containers_absent.py). One phase, each step a
module on the node: community.docker's docker_host_info lists the containers carrying the
collection's label (stopped ones too), ``docker top`` gives each one's host pids, community.docker's
docker_container removes them, and ascend.vllm.npu_facts reads npu-smi until none of the pids is
listed. Which containers go is decided in plugin_utils/serve/_serve.py (containers_to_remove).
"""

from __future__ import annotations

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

from ansible_collections.ascend.vllm.plugins.module_utils.node._node_docker import MANAGED_LABEL
from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._serve import container_pids, containers_to_remove
from ansible_collections.ascend.vllm.plugins.module_utils.serve._specs import CONTAINERS_ABSENT


display = Display()


class ActionModule(ActionBase):
    """List ours, note their pids, remove them, wait for npu-smi to let go of the pids."""

    TRANSFERS_FILES = False
    _supports_check_mode = True
    _supports_async = False

    def _module(self, name, args, task_vars):
        return self._execute_module(module_name=name, module_args=args, task_vars=task_vars)

    def run(self, tmp=None, task_vars=None):
        super(ActionModule, self).run(tmp, task_vars)
        task_vars = task_vars or {}
        checked = ArgumentSpecValidator(CONTAINERS_ABSENT).validate(dict(self._task.args))
        if checked.error_messages:
            return {'failed': True, 'changed': False, 'msg': 'containers_absent: %s' % '; '.join(checked.error_messages)}
        try:
            return self._remove(checked.validated_parameters, task_vars)
        finally:
            self._remove_tmp_path(self._connection._shell.tmpdir)

    def _remove(self, args, task_vars):
        host = task_vars.get('inventory_hostname', '?')
        listed = self._module('community.docker.docker_host_info', {
            'containers': True, 'containers_all': True,
            'containers_filters': {'label': '%s=ascend.vllm' % MANAGED_LABEL}}, task_vars)
        if listed.get('failed'):
            return {'failed': True, 'changed': False, 'removed': [],
                    'msg': 'Could not list the containers on %s: %s' % (host, listed.get('msg'))}
        names = containers_to_remove([{'container_name': name} for name in args['names']],
                                     listed.get('containers') or [], args['all_managed'])
        # Read-only: the host pids of their processes, to look for in npu-smi once they are gone.
        tops = [self._module('ansible.legacy.command', {'argv': ['docker', 'top', name, '-eo', 'pid']}, task_vars)
                for name in names]
        pids = container_pids(tops)
        # Shown at every verbosity (the names), as ansible.builtin.debug's message is.
        out = {'changed': False, 'removed': [], 'pids': pids, 'still_listed': [], '_ansible_verbose_always': True}
        for name in names:
            gone = self._module('community.docker.docker_container',
                                {'name': name, 'state': 'absent', 'stop_timeout': args['stop_timeout']}, task_vars)
            if gone.get('failed'):
                return dict(out, failed=True, msg='Could not remove the container %s on %s: %s'
                            % (name, host, gone.get('msg')))
            if gone.get('changed'):
                out['changed'] = True
                out['removed'].append(name)
        out['msg'] = '%s containers: %s' % ('Would remove' if self._task.check_mode else 'Removed',
                                            ', '.join(names) if names else 'none')
        if self._task.check_mode or not pids:
            return out
        npu = self._module('ascend.vllm.npu_facts', {'gone_pids': pids, 'wait': args['wait']}, task_vars)
        if npu.get('npu') is None:
            display.warning('npu-smi could not be read on %s after the removal: %s' % (host, npu.get('msg', '')))
            return out
        out['still_listed'] = npu.get('still_listed') or []
        if out['still_listed']:
            return dict(out, failed=True, msg=(
                'npu-smi still lists processes of the removed containers after %ss: %s. Fix: kill them (kill PID) '
                'or reboot the node.' % (_seconds(args['wait']), out['still_listed'])))
        return out


def _seconds(value):
    return int(value) if float(value).is_integer() else value
