# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import annotations

DOCUMENTATION = r'''
---
name: metrics_targets
short_description: The Prometheus file_sd target groups of one host
version_added: 0.2.0
description:
  - >-
    One target group per planned vLLM instance (C(ADDRESS:PORT), its C(/metrics)) and one for the host's balancer
    (HAProxy's exporter on C(balancer_metrics_port)) when it runs, each labelled C(host), C(platform), C(model),
    C(instance) and C(component) (V(vllm) or V(balancer)).
  - >-
    With O(npu_exporter_port), one more group for MindCluster's NPU Exporter on the node (C(component) V(npu),
    C(instance) V(npu-exporter), C(model) the models the host serves).
  - >-
    ADDRESS is C(vllm_serve_metrics_address) when set, else C(vllm_serve_publish_address), else (published on every
    address) the host's address.
author:
  - ascend.vllm maintainers (!UNKNOWN)
positional: host, platform, addresses, balancer, npu_exporter_port
options:
  _input:
    description: The vllm_serve plan of the host (C(__vllm_serve_plan)).
    type: list
    elements: dict
    required: true
  host:
    description: The inventory name of the host (label C(host)).
    type: str
    required: true
  platform:
    description: The host's platform (label C(platform)).
    type: str
    required: true
  addresses:
    description: C(metrics_address) (C(vllm_serve_metrics_address)), C(publish_address)
      (C(vllm_serve_publish_address)) and C(host_address) (the host's address, e.g. C(ansible_host)), from which the
      address Prometheus scrapes is chosen.
    type: dict
    required: true
  balancer:
    description: C(balancer_status) of the host, as the balancer role records it.
    type: dict
  npu_exporter_port:
    description: Port of the node's NPU Exporter (its default is 8082); null or 0 adds no group for it.
    type: int
'''

EXAMPLES = r'''
- name: Work out this host's scrape targets
  ansible.builtin.set_fact:
    __targets: >-
      {{ __vllm_serve_plan | ascend.vllm.metrics_targets(inventory_hostname, vllm_serve_platform,
           {'metrics_address': none, 'publish_address': '', 'host_address': '10.0.0.5'},
           balancer_status | default({})) }}
'''

RETURN = r'''
_value:
  description: Prometheus file_sd target groups, each C(targets) (one C(HOST:PORT)) and C(labels).
  type: list
  elements: dict
'''

from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._instances import plain
from ansible_collections.ascend.vllm.plugins.plugin_utils.fleet._metrics import metrics_targets as targets, target_address


def metrics_targets(plan, host, platform, addresses, balancer=None, npu_exporter_port=None):
    """The scrape target groups of one host."""
    addresses = plain(addresses or {})
    address = target_address(addresses.get('metrics_address'), addresses.get('publish_address'),
                             str(addresses.get('host_address') or host))
    return targets(plain(plan or []), str(host), str(platform or ''), address, plain(balancer or {}),
                   int(npu_exporter_port) if npu_exporter_port else None)


class FilterModule:
    """Prometheus targets of the vllm_serve role."""

    def filters(self):
        return {'metrics_targets': metrics_targets}
