#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import annotations

DOCUMENTATION = r'''
---
module: instance_state
short_description: Stop, drop, restore or remove the vllm_serve role's instances, as containers or as services
version_added: 0.4.0
description:
  - One lifecycle step of the vllm_serve role's instances on what runs them, as the host plan's install method says
    (O(service)); returns the called module's result.
  - With O(service=true) (the source install method), one M(ascend.vllm.vllm_service) run with the same state. With
    containers, V(absent) is one M(ascend.vllm.containers_absent) run, the others the container_run role's
    C(stopped), C(absent) and C(restored) (M(ascend.vllm.container_ensure)).
extends_documentation_fragment:
  - ascend.vllm.module.action
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.flow
options:
  state:
    description:
      - V(stopped) - stop the instance (one that crashed while starting), keeping it and its logs.
      - V(dropped) - remove what was kept for a replacement that serves (the container C(<name>-previous), the unit's
        C(.previous) files); O(name) is what the deploy returned as kept.
      - V(restored) - put the kept one back under O(name) and start it.
      - V(absent) - stop and remove the instances of O(names) (the teardown).
    type: str
    required: true
    choices: [stopped, dropped, restored, absent]
  service:
    description: The instances are systemd services (the source install method), not containers.
    type: bool
    default: false
  name:
    description: The container or unit of the instance (every O(state) but V(absent)).
    type: str
  names:
    description: The containers or units to remove (V(absent)).
    type: list
    elements: str
    default: []
  all_managed:
    description: With V(absent), remove every container or unit of the collection on the node, not only O(names).
    type: bool
    default: false
  stop_timeout:
    description: Seconds Docker waits for a container to stop before it kills it; unset, the called module's default.
    type: int
  wait:
    description: With V(absent) and containers, seconds to wait for npu-smi to stop listing their processes; unset,
      M(ascend.vllm.containers_absent)'s default.
    type: float
attributes:
  action:
    details: Decided on the controller; each step is a module run on the node.
  diff_mode:
    support: full
    details: The called module's.
'''

EXAMPLES = r'''
- name: Stop the instance that crashed while starting
  ascend.vllm.instance_state:
    name: vllm-ascend
    state: stopped
    service: "{{ vllm_serve_install_method == 'source' }}"
'''

RETURN = r'''
msg:
  description: The called module's message, when it failed.
  returned: on failure
  type: str
'''

from ansible_collections.ascend.vllm.plugins.module_utils._controller_only import controller_only
from ansible_collections.ascend.vllm.plugins.module_utils.serve._specs import INSTANCE_STATE


def main():
    # Dispatched on the controller to the module of the runtime: only the action plugin can.
    controller_only('instance_state', INSTANCE_STATE)


if __name__ == '__main__':
    main()
