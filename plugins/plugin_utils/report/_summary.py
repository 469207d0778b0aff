# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The summary of a host at the end of a run: its instances, then its balancer, then any warning line."""

from typing import Any, Dict, List

from ansible_collections.ascend.vllm.plugins.plugin_utils.fleet._balancer import summary_lines as balancer_summary_lines
from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._serve import exposure_line, summary_lines


def host_summary(plan: List[Dict[str, Any]], status: Dict[str, Any], check_mode: bool, exposure: Dict[str, Any],
                 balancer: Dict[str, Any]) -> List[str]:
    """The summary of a host: its instances, its balancer (``balancer_status``), then any UNAUTHENTICATED line."""
    exposure = exposure or {}
    warning = exposure_line(plan, exposure.get('publish_address'), exposure.get('allow_unauthenticated'))
    return summary_lines(plan, status, check_mode) + balancer_summary_lines(balancer) + ([warning] if warning else [])
