#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import annotations

DOCUMENTATION = r'''
---
module: upgrade_step
short_description: End one instance's rolling upgrade - put it back into the balancer and say what happened
version_added: 0.3.0
description:
  - The last step of replacing one serving instance during a rolling upgrade (the vllm_serve role, one instance at
    a time), after its container was replaced and checked, or after the replacement failed.
  - When the instance was drained from the host's load balancer (O(drained)) and serves again -- the new container,
    or the previous one put back -- sets its server ready again (M(ascend.vllm.balancer_server), C(state=ready)).
  - When the instance is behind no balancer, says for how long it did not serve (from O(stopped_at) to now) and how to
    avoid that.
  - When the step failed, fails with one message -- the instance, the cause, whether the previous container serves
    again, and which instances and hosts were left untouched (O(left)). In check mode nothing was replaced, nothing
    fails, and the message says what would happen.
extends_documentation_fragment:
  - ascend.vllm.module.action
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.flow
options:
  name:
    description: The container of the instance (named in the messages when it has no status yet).
    type: str
    required: true
  status:
    description: The instance's entry in C(vllm_serve_status) (C(state) ready or failed, C(error), C(container)); empty
      when the step failed before the check.
    type: dict
    default: {}
  drained:
    description: The result of draining the instance (C(container_run_drained), M(ascend.vllm.balancer_server)); its
      C(drain) says whether it was drained, its C(why) why not.
    type: dict
    default: {}
  stopped_at:
    description: When the serving container was stopped for its replacement (C(container_run_stopped_at), seconds
      since the epoch); null when it was not.
    type: float
  restored:
    description: The M(ascend.vllm.vllm_ready) result of the previous container put back, when it was.
    type: dict
  left:
    description: The instances of this host not upgraded yet, named when the step fails.
    type: list
    elements: str
    default: []
  error:
    description: Why the step failed before the instance could be checked (the failed task's message).
    type: str
    default: ''
  socket:
    description: The balancer's admin socket on the node.
    type: str
    default: ''
  backend:
    description: The balancer backend that carries the instance (empty when none does).
    type: str
    default: ''
  server:
    description: The instance's server in that backend.
    type: str
    default: ''
  service:
    description: The instance is a systemd service (the source install method), not a container; the message says so.
    type: bool
    default: false
attributes:
  action:
    details: Decided on the controller; only the put-back runs on the node.
seealso:
  - module: ascend.vllm.balancer_server
'''

EXAMPLES = r'''
- name: End the upgrade of instance a
  ascend.vllm.upgrade_step:
    name: vllm-ascend-a
    status: "{{ vllm_serve_status.a }}"
    drained: "{{ container_run_drained }}"
    stopped_at: "{{ container_run_stopped_at }}"
    socket: /var/lib/ascend-vllm/balancer/run/admin.sock
    backend: qwen3.5
    server: a
'''

RETURN = r'''
put_back:
  description: Whether the server was set ready again in the balancer.
  returned: always
  type: bool
failed:
  description: Whether the step failed (the task fails then).
  returned: always
  type: bool
gap:
  description: Seconds the instance did not serve, when it is behind no balancer (null otherwise).
  returned: always
  type: float
msg:
  description: What happened, empty when an instance behind a balancer was upgraded without a word to say.
  returned: always
  type: str
'''

from ansible_collections.ascend.vllm.plugins.module_utils._controller_only import controller_only
from ansible_collections.ascend.vllm.plugins.module_utils.serve._specs import UPGRADE_STEP


def main():
    # Decided on the controller from the run's results: only the action plugin can.
    controller_only('upgrade_step', UPGRADE_STEP)


if __name__ == '__main__':
    main()
