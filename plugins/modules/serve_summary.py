#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import annotations

DOCUMENTATION = r'''
---
module: serve_summary
short_description: What a host serves, and which hosts of the play are not serving and why
version_added: 0.3.0
description:
  - >-
    One line per planned vLLM instance, C(NAME: MODEL as SERVED_NAME in CONTAINER on chips 0,1, port 8080: STATE),
    followed by the smoke test's answer when there is one. An instance without a status is C(not verified)
    (C(check mode: not verified) in check mode).
  - >-
    Then one line per balancer frontend (C(balancer: SERVED at http://ADDRESS:PORT across a, b)), or one saying why
    the host runs none (C(balancer: off: ...)).
  - >-
    With O(exposure), a line starting C(UNAUTHENTICATED:) names the instances published beyond the node without an
    API key because C(vllm_serve_allow_unauthenticated) is true, on every run.
  - >-
    Then, for each host of O(left_out), C(HOST: NOT deployed, REASON) -- unreachable (with the connection's message),
    an instance that failed (with its error), or an error earlier in the run -- read from that host's own
    variables (C(vllm_serve_status), and the first result that contacted it -- preflight's node read
    C(ascend_vllm_plan), or the npu_check role's own read).
  - Runs on the controller (an action plugin); shows its lines at every verbosity, as M(ansible.builtin.debug) does.
    The vllm_serve role's C(summary) entry point calls it once per host.
extends_documentation_fragment:
  - ascend.vllm.module.action
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.flow
options:
  instances:
    description: The host's planned instances, C(plan.instances) of M(ascend.vllm.host_plan).
    type: list
    elements: dict
    required: true
  status:
    description: C(vllm_serve_status) of the host (each instance's state, URL and smoke-test answer).
    type: dict
    default: {}
  exposure:
    description: C(publish_address) and C(allow_unauthenticated) of the host (C(vllm_serve_publish_address),
      C(vllm_serve_allow_unauthenticated)).
    type: dict
    default: {}
  balancer:
    description: C(balancer_status) of the host, as the balancer role records it (C(enabled), C(why), C(frontends)),
      or C(enabled) false and C(why) from the plan.
    type: dict
    default: {}
  left_out:
    description: Hosts of the play that dropped out on the way (C(ansible_play_hosts_all) minus C(ansible_play_hosts));
      give them on one host only.
    type: list
    elements: str
    default: []
  removed:
    description:
      - The containers of ours this run removed because the plan no longer has them (C(containers_absent)'s
        C(removed)); the summary names them after the instances, or says that a check-mode run would remove them.
    type: list
    elements: str
    default: []
    version_added: 0.4.0
seealso:
  - module: ascend.vllm.host_plan
'''

EXAMPLES = r'''
- name: Show what this host serves, and the hosts that are not serving
  ascend.vllm.serve_summary:
    instances: "{{ ascend_vllm_plan.plan.instances }}"
    status: "{{ vllm_serve_status | default({}) }}"
    balancer: "{{ balancer_status | default({}) }}"
    left_out: "{{ ansible_play_hosts_all | difference(ansible_play_hosts) if inventory_hostname == ansible_play_hosts[0] else [] }}"
'''

RETURN = r'''
msg:
  description: The lines, in the order above.
  returned: success
  type: list
  elements: str
'''

from ansible_collections.ascend.vllm.plugins.module_utils._controller_only import controller_only
from ansible_collections.ascend.vllm.plugins.module_utils.serve._specs import SERVE_SUMMARY


def main():
    # The lines read other hosts' variables: only the action plugin, on the controller, can.
    controller_only('serve_summary', SERVE_SUMMARY)


if __name__ == '__main__':
    main()
