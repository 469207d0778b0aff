# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
name: hosts_left_out
short_description: Why each host that dropped out of a play is not serving
version_added: 0.1.0
description:
  - >-
    One line per host, C(HOST: NOT deployed, REASON): unreachable or not answering the preflight ping (from
    C(ascend_vllm_plan), the node read that playbooks/preflight.yml registers, or C(__npu_check_node) when the
    npu_check role ran alone), an instance that failed (from
    C(vllm_serve_status)), or an earlier error.
author:
  - ascend.vllm maintainers (!UNKNOWN)
positional: hostvars
options:
  _input:
    description: The hosts that dropped out, e.g. C(ansible_play_hosts_all | difference(ansible_play_hosts)).
    type: list
    elements: str
    required: true
  hostvars:
    description: C(hostvars); only C(vllm_serve_status), C(ascend_vllm_plan) and C(__npu_check_node) of those hosts
      are read.
    type: dict
    required: true
'''

EXAMPLES = r'''
- name: Name the hosts that are not serving
  ansible.builtin.debug:
    msg: "{{ ansible_play_hosts_all | difference(ansible_play_hosts) | ascend.vllm.hosts_left_out(hostvars) }}"
  run_once: true
'''

RETURN = r'''
_value:
  description: One line per host, sorted by host name.
  type: list
  elements: str
'''

from ansible_collections.ascend.vllm.plugins.module_utils.serve._instances import plain
from ansible_collections.ascend.vllm.plugins.module_utils.serve._serve import left_out_line


def hosts_left_out(hosts, hostvars):
    """'HOST: NOT deployed, REASON' for each host."""
    lines = []
    for host in sorted(hosts or []):
        variables = hostvars[host]
        status = plain(variables['vllm_serve_status']) if 'vllm_serve_status' in variables else {}
        # The first task that contacts a node: preflight's node read (host_plan with read_node, registered
        # as ascend_vllm_plan), or npu_check's own when its role ran alone.
        reach = {}
        for name in ('ascend_vllm_plan', '__npu_check_node'):
            found = plain(variables[name]) if name in variables else {}
            if isinstance(found, dict) and (found.get('unreachable') or found.get('failed')):
                reach = found
                break
        lines.append(left_out_line(host, status, reach))
    return lines


class FilterModule(object):
    """Hosts left out, for the vllm_serve summary."""

    def filters(self):
        return {'hosts_left_out': hosts_left_out}
