# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The summary of a host at the end of a run: its instances, then its balancer, then any warning line."""

from typing import Any, Dict, List

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._boolean import to_bool
from ansible_collections.ascend.vllm.plugins.plugin_utils.fleet._balancer import summary_lines as balancer_summary_lines
from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._instances import exposed, keyless


def host_summary(plan: List[Dict[str, Any]], status: Dict[str, Any], check_mode: bool, exposure: Dict[str, Any],
                 balancer: Dict[str, Any]) -> List[str]:
    """The summary of a host: one line per instance (model, served name, container, chips, port, state and the
    smoke answer), its balancer (``balancer_status``), then the UNAUTHENTICATED line repeated while instances are
    served beyond the node without an API key."""
    lines = []
    for entry in plan:
        state = (status or {}).get(entry['name']) or {}
        # The status names what the check found served (a restored container's own); else the plan's name.
        served = state.get('served_model_name') or entry['served_model_name']
        line = '%s: %s as %s in %s on chips %s, port %s: %s' % (
            # The container, or the systemd unit the status names (the source install method).
            entry['name'], entry['options'].get('model', '?'), served, state.get('container') or entry['container_name'],
            ','.join(str(chip) for chip in entry['chips']), entry['port'],
            state.get('state', 'check mode: not verified' if check_mode else 'not verified'))
        lines.append(line + (' -- "%s"' % state['completion'] if state.get('completion') else ''))
    lines += balancer_summary_lines(balancer)
    exposure = exposure or {}
    where = exposed(exposure.get('publish_address'), False) if to_bool(exposure.get('allow_unauthenticated')) else None
    if where is not None and keyless(plan):
        lines.append('UNAUTHENTICATED: instance %s published on %s without an API key (vllm_serve_allow_unauthenticated: '
                     'true); anyone who reaches it can use the model' % (', '.join(keyless(plan)), where))
    return lines
