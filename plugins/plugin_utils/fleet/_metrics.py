# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Prometheus file_sd targets of the vLLM instances and balancers of a fleet.

Pure functions over plain data (no Ansible imports), used by the
``ascend.vllm.metrics_targets`` and ``ascend.vllm.file_sd_merge`` filters.  One
target group per scrape target (each with its own labels ``host``, ``platform``,
``model``, ``instance`` and ``component``); a run replaces the groups of the hosts
it deployed (or removes them on teardown) and keeps every other host's.

MindCluster's NPU Exporter, when the operator runs it on the node, is one more
group per host (``component`` ``npu``): it answers ``/metrics`` on port 8082 by
default (MindCluster docs, "NPU Exporter Home Page" and "Prometheus Metrics API",
https://www.hiascend.com/document/detail/en/mindcluster/730/clustersched/schedulingug/dlug_api_115.html).
"""

import json
from typing import Any, Dict, List, Optional, Sequence

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._address import WILDCARDS, host_port


def target_address(metrics_address: Optional[str], publish_address: Optional[str], host_address: str) -> str:
    """Where Prometheus reaches the host: the operator's address, else the publish address, else the host's."""
    if metrics_address:
        return metrics_address
    if publish_address in WILDCARDS or publish_address is None:
        return host_address
    return publish_address


def metrics_targets(plan: List[Dict[str, Any]], host: str, platform: str, address: str,
                    balancer: Optional[Dict[str, Any]] = None,
                    npu_exporter_port: Optional[int] = None) -> List[Dict[str, Any]]:
    """The target groups of one host: every planned instance's /metrics, its balancer's and,
    with ``npu_exporter_port``, the node's NPU Exporter (chip health, AI Core utilisation, memory).

    The exporter's group carries the same labels as the instances'; its ``model`` lists the
    models the host serves (its chips serve them), as the balancer's does.
    """
    def group(port, models, instance, component):
        return {'targets': [host_port(address, port)], 'labels': {
            'host': host, 'platform': platform, 'model': ','.join(sorted(set(models))), 'instance': instance,
            'component': component}}

    out = [group(entry['port'], [str(entry['options'].get('model', ''))], entry['name'], 'vllm') for entry in plan]
    balancer = balancer or {}
    if balancer.get('enabled') and balancer.get('metrics_port'):
        out.append(group(balancer['metrics_port'], [str(frontend.get('model', '')) for frontend in
                                                    balancer.get('frontends') or []],
                         balancer.get('container', 'balancer'), 'balancer'))
    if npu_exporter_port:
        # Its label ``instance`` names the exporter: one per node, not per vLLM instance.
        out.append(group(int(npu_exporter_port), [str(entry['options'].get('model', '')) for entry in plan],
                         'npu-exporter', 'npu'))
    return out


def file_sd_merge(existing: Any, hosts: Sequence[str], groups: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """The file's target groups with those of ``hosts`` replaced by ``groups`` (an empty list removes them).

    ``existing`` is the file's text (or its parsed list); text that is not a list of target
    groups counts as an empty file (it is rewritten).
    """
    if isinstance(existing, (str, bytes)):
        try:
            existing = json.loads(existing)
        except ValueError:  # empty or not JSON
            existing = []
    hosts = set(hosts or [])
    kept = [group for group in (existing if isinstance(existing, list) else [])
            if isinstance(group, dict) and (group.get('labels') or {}).get('host') not in hosts]
    return sorted(kept + list(groups or []), key=lambda group: tuple(
        str((group.get('labels') or {}).get(label, '')) for label in ('host', 'component', 'instance')))
