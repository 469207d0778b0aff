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
    too (M(community.docker.docker_host_info)); a container with one of O(names) that the collection did not create
    (another user's) is left alone.
  - Removes each container of O(names) that is ours, with its kept C(<name>-previous) (left by an interrupted
    deploy), and with O(all_managed=true) every container of ours on the node (M(community.docker.docker_container),
    C(state=absent)).
  - Before the removal it notes the host pids of their processes (C(docker top)); after it, reads C(npu-smi info)
    every half second (M(ascend.vllm.npu_facts)) until none of them is listed, for at most O(wait) seconds, and fails
    naming the pids still holding a chip. A node whose npu-smi cannot be read gets a warning, not a failure.
  - Model files and images are never touched. The vllm_serve role's C(teardown) entry point calls it.
author:
  - ascend.vllm maintainers (!UNKNOWN)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.flow
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
attributes:
  action:
    support: full
    details: The action plugin runs each step on the node through its module.
  async:
    support: none
  bypass_host_loop:
    support: none
  check_mode:
    support: full
    details: M(community.docker.docker_container) only says what it would remove; npu-smi is not read.
  diff_mode:
    support: none
  platform:
    support: full
    platforms: posix
seealso:
  - module: community.docker.docker_container
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
  description: The containers removed (none in check mode).
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

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.ascend.vllm.plugins.module_utils.serve._specs import CONTAINERS_ABSENT


def main():
    # The steps run on the node one after another, driven from the controller: only the action plugin can.
    module = AnsibleModule(argument_spec=CONTAINERS_ABSENT, supports_check_mode=True)
    module.fail_json(msg='ascend.vllm.containers_absent runs from the controller only (its action plugin); '
                         'call it as a task, not as a module on a node')


if __name__ == '__main__':
    main()
