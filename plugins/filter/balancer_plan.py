# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
name: balancer_plan
short_description: The load balancer of a host, its frontends and what is wrong with them
version_added: 0.2.0
description:
  - >-
    Groups the host's vLLM instances (the vllm_serve plan) by the model name they serve. Each group is one HAProxy
    frontend on its own port (C(balancer_port) plus the group's index) whose servers are the group's instances on the
    node's loopback address.
  - >-
    The balancer is on when C(balancer_enabled) is true, off when it is false, and by default (null) on when some
    model is served by more than one instance. Two models served under one name are two frontends. By default a
    model whose instances have different API keys is left out (its instances serve on their own ports); with
    C(balancer_enabled) true that is a problem.
  - >-
    Reports in the preflight report shape (C(check), C(msg), C(fix)) ports that are not port numbers or that an
    instance uses, instances of one frontend with different API keys, and a balancer published beyond the node
    without an API key unless C(vllm_serve_allow_unauthenticated) is true.
  - >-
    API keys are read from the inventory values and only their SHA-256 digests (of C(Bearer KEY), what HAProxy
    compares the C(Authorization) header against) are returned.
author:
  - ascend.vllm maintainers (!UNKNOWN)
positional: plan, configs
options:
  _input:
    description: The host's variables with the roles' defaults, normally C(vars); the C(balancer_*) variables,
      C(vllm_serve_instances), C(vllm_serve_api_key) and C(vllm_serve_allow_unauthenticated) are read.
    type: dict
    required: true
  plan:
    description: The vllm_serve plan of the host (C(__vllm_serve_plan)).
    type: list
    elements: dict
    required: true
  configs:
    description: The vllm_config results of the host (C(__vllm_serve_configs)), for each instance's served model name.
    type: dict
'''

EXAMPLES = r'''
- name: Work out the balancer of this host
  ansible.builtin.set_fact:
    __balancer: "{{ vars | ascend.vllm.balancer_plan(__vllm_serve_plan, __vllm_serve_configs) }}"
  no_log: true
'''

RETURN = r'''
_value:
  description: The balancer of the host.
  type: dict
  contains:
    enabled:
      description: Whether the host runs a balancer.
      type: bool
    why:
      description: Why it is on or off, as the summary says it.
      type: str
    frontends:
      description: >-
        One per served model name (empty when off): C(name) (HAProxy proxy name), C(served), C(model), C(port),
        C(index), C(servers) (C(name), C(instance), C(port)) and C(key_required).
      type: list
      elements: dict
    key_digests:
      description: Per frontend name, the SHA-256 digests of the accepted C(Authorization) header values (empty
        without an API key).
      type: dict
    bind:
      description: The address HAProxy binds (C(ipv6@) for IPv6; empty for every IPv4 address).
      type: str
    reach:
      description: The address to call the frontends at from the node itself.
      type: str
    problems:
      description: Each problem as C(check), C(msg) and C(fix); empty when all is well.
      type: list
      elements: dict
'''

from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.module_utils.serve._instances import plain
from ansible_collections.ascend.vllm.plugins.module_utils.plan._host import balancer
from ansible_collections.ascend.vllm.plugins.module_utils.request._request import variables_request


def balancer_plan(variables, plan, configs=None):
    """The balancer of the host from its variables, the vllm_serve plan and the vllm_config results."""
    if not hasattr(variables, 'keys'):
        raise AnsibleFilterError('balancer_plan: give it the host variables (vars), not %r' % type(variables).__name__)
    return balancer(variables_request(variables), plain(plan or []), plain(configs or {}))


class FilterModule(object):
    """Planning of the balancer role."""

    def filters(self):
        return {'balancer_plan': balancer_plan}
