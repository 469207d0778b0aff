# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Prometheus file_sd targets of the vLLM instances and balancers of a fleet.

Pure functions over plain data (no Ansible imports), used by the
``ascend.vllm.metrics_targets`` and ``ascend.vllm.file_sd_merge`` filters.  One
target group per scrape target (each with its own labels ``host``, ``platform``,
``model``, ``instance`` and ``component``); a run replaces the groups of the hosts
it deployed (or removes them on teardown) and keeps every other host's.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
from typing import Any, Dict, List, Optional, Sequence

from ansible_collections.ascend.vllm.plugins.module_utils.plan._address import WILDCARDS, host_port


def target_address(metrics_address, publish_address, host_address):
    # type: (Optional[str], Optional[str], str) -> str
    """Where Prometheus reaches the host: the operator's address, else the publish address, else the host's."""
    if metrics_address:
        return metrics_address
    if publish_address in WILDCARDS or publish_address is None:
        return host_address
    return publish_address


def metrics_targets(plan, host, platform, address, balancer=None):
    # type: (List[Dict[str, Any]], str, str, str, Optional[Dict[str, Any]]) -> List[Dict[str, Any]]
    """The target groups of one host: every planned instance's /metrics and its balancer's."""
    out = []
    for entry in plan:
        out.append({'targets': [host_port(address, entry['port'])],
                    'labels': {'host': host, 'platform': platform, 'model': str(entry['options'].get('model', '')),
                               'instance': entry['name'], 'component': 'vllm'}})
    balancer = balancer or {}
    if balancer.get('enabled') and balancer.get('metrics_port'):
        models = sorted(set(str(frontend.get('model', '')) for frontend in balancer.get('frontends') or []))
        out.append({'targets': [host_port(address, balancer['metrics_port'])],
                    'labels': {'host': host, 'platform': platform, 'model': ','.join(models),
                               'instance': balancer.get('container', 'balancer'), 'component': 'balancer'}})
    return out


def file_sd_merge(existing, hosts, groups):
    # type: (Any, Sequence[str], List[Dict[str, Any]]) -> List[Dict[str, Any]]
    """The file's target groups with those of ``hosts`` replaced by ``groups`` (an empty list removes them).

    ``existing`` is the file's text (or its parsed list); text that is not a list of target
    groups counts as an empty file (it is rewritten).
    """
    if isinstance(existing, (str, bytes)):
        try:
            existing = json.loads(existing) if existing.strip() else []
        except ValueError:
            existing = []
    if not isinstance(existing, list):
        existing = []
    hosts = set(hosts or [])
    kept = [group for group in existing
            if isinstance(group, dict) and (group.get('labels') or {}).get('host') not in hosts]
    return sorted(kept + list(groups or []), key=lambda group: (
        str((group.get('labels') or {}).get('host', '')), str((group.get('labels') or {}).get('component', '')),
        str((group.get('labels') or {}).get('instance', ''))))
