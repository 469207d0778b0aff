#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import annotations

DOCUMENTATION = r'''
---
module: containers_absent
short_description: Remove this collection's containers from a node and wait until their processes leave the chips
version_added: 0.3.0
description:
  - Lists the node's containers that carry the collection's label C(ascend.vllm.managed-by=ascend.vllm), stopped ones
    too; a container with one of O(names) that the collection did not create (another user's) is left alone.
  - Removes each container of O(names) that is ours, with its kept C(<name>-previous) (left by an interrupted
    deploy), and with O(all_managed=true) every container of ours on the node (stopped with O(stop_timeout), then
    removed, as C(docker rm -f) after C(docker stop -t)).
  - Before the removal it notes the host pids of their processes (the Engine's C(top)); after it, reads
    C(npu-smi info) every half second until none of them is listed, for at most O(wait) seconds, and fails naming the
    pids still holding a chip. A node whose npu-smi cannot be read gets a warning, not a failure.
  - One module run on the node, through the Docker Engine API (the collection's one Engine client). Model files and
    images are never touched. The vllm_serve role's C(teardown) entry point calls it.
extends_documentation_fragment:
  - ascend.vllm.module
  - ansible.builtin.action_common_attributes
  - ascend.vllm.docker_engine
options:
  names:
    description: The container names to remove (the host plan's instances' C(container_name)).
    type: list
    elements: str
    default: []
  all_managed:
    description: Remove every container of the collection on the node, not only O(names).
    type: bool
    default: false
  stop_timeout:
    description: Seconds Docker waits for a container to stop before it kills it.
    type: int
    default: 30
  wait:
    description: Seconds to wait for npu-smi to stop listing the removed containers' processes.
    type: float
    default: 60
  npu_smi_path:
    description: The npu-smi to read after the removal; unset, the one on E(PATH) or at its usual places.
    type: path
attributes:
  check_mode:
    details: Says what it would remove (C(changed), O(names) in RV(removed)); nothing is stopped and npu-smi is not read.
seealso:
  - module: ascend.vllm.npu_facts
'''

EXAMPLES = r'''
- name: Remove the instances' containers and wait until npu-smi lists none of their processes
  ascend.vllm.containers_absent:
    names: "{{ ascend_vllm_plan.plan.instances | map(attribute='container_name') | list }}"
    wait: 60
'''

RETURN = r'''
removed:
  description: The containers removed (in check mode, the ones it would remove).
  returned: always
  type: list
  elements: str
pids:
  description: The host pids their processes had.
  returned: success
  type: list
  elements: int
still_listed:
  description: The pids npu-smi still listed after O(wait) seconds.
  returned: success
  type: list
  elements: int
msg:
  description: C(Removed containers:) and the names (the ones that would be removed, in check mode).
  returned: always
  type: str
'''

import os

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.ascend.vllm.plugins.module_utils.node import DRIVER_VERSION_FILE
from ansible_collections.ascend.vllm.plugins.module_utils._text import seconds_text
from ansible_collections.ascend.vllm.plugins.module_utils.node._node_docker import (
    DockerApi, DockerError, engine_host, managed_containers, remove_container, top_pids,
)
from ansible_collections.ascend.vllm.plugins.module_utils.node._node_npu import (
    NpuSmiError, locate_npu_smi, npu_facts_from, read_until_gone, run_npu_smi,
)
from ansible_collections.ascend.vllm.plugins.module_utils.serve._keep import containers_to_remove
from ansible_collections.ascend.vllm.plugins.module_utils.serve._specs import CONTAINERS_ABSENT


def remove(module, api):
    """The module's result: list ours, note their pids, remove them, wait for npu-smi to let go of the pids."""
    params = module.params
    ours = managed_containers(api)
    names = containers_to_remove(params['names'], [c['name'] for c in ours], params['all_managed'])
    running = set(c['name'] for c in ours if c['state'] in ('running', 'restarting', 'paused'))
    pids = [pid for name in names if name in running for pid in top_pids(api, name)]
    # Shown at every verbosity (the names), as ansible.builtin.debug's message is.
    out = {'changed': False, 'removed': [], 'pids': pids, 'still_listed': [], '_ansible_verbose_always': True,
           'msg': '%s containers: %s' % ('Would remove' if module.check_mode else 'Removed',
                                         ', '.join(names) if names else 'none')}
    if module.check_mode:
        # As every module in check mode: changed and the names when it would remove something.
        return dict(out, changed=bool(names), removed=list(names))
    for name in names:
        if remove_container(api, name, params['stop_timeout']):
            out['changed'] = True
            out['removed'].append(name)
    if not pids:
        return out

    def read():
        path = locate_npu_smi(params['npu_smi_path'], os.environ.get('PATH', ''))
        return npu_facts_from(run_npu_smi(module.run_command, path), path, DRIVER_VERSION_FILE,
                              module.warn)

    try:
        _facts, out['still_listed'] = read_until_gone(read, pids, params['wait'])
    except NpuSmiError as exc:
        module.warn('npu-smi could not be read after the removal: %s' % exc.msg)
        return out
    if out['still_listed']:
        return dict(out, failed=True, msg=(
            'npu-smi still lists processes of the removed containers after %ss: %s. Fix: kill them (kill PID) '
            'or reboot the node.' % (seconds_text(params['wait']), out['still_listed'])))
    return out


def main():
    module = AnsibleModule(argument_spec=CONTAINERS_ABSENT, supports_check_mode=True)
    api = DockerApi(engine_host(module.params['docker_host']), max(30, module.params['stop_timeout'] + 10))
    try:
        result = remove(module, api)
    except DockerError as exc:
        module.fail_json(msg='Removing the containers failed: %s' % exc, changed=False, removed=[])
    if result.pop('failed', False):
        module.fail_json(**result)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
