# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The host's HAProxy as its runtime API shows it: the rows of ``show stat`` and what they say of one server.

Node-side: ``ascend.vllm.balancer_server`` reads and drains through the admin socket with these; the
rolling order and the outcome of a step are the controller's (plugin_utils/serve/_rolling.py).
"""

from __future__ import annotations

import csv
from typing import Any, Dict, List, Optional

# HAProxy `show stat` columns this module reads.
_COLUMNS = ('pxname', 'svname', 'qcur', 'scur', 'status')


def parse_stat(text: str) -> List[Dict[str, Any]]:
    """The rows of HAProxy's `show stat` (CSV, header line starting with '# ')."""
    lines = [line for line in (text or '').splitlines() if line.strip()]
    if not lines or not lines[0].startswith('# '):
        return []
    rows = [{key: values.get(key) or '' for key in _COLUMNS} for values in csv.DictReader([lines[0][2:]] + lines[1:])]
    for row in rows:
        row.update((key, int(row[key]) if row[key].isdigit() else 0) for key in ('qcur', 'scur'))
    return rows


def drain_plan(rows: List[Dict[str, Any]], backend: Optional[str], server: Optional[str]) -> Dict[str, Any]:
    """Whether the server can be drained without a gap: it is in the running balancer and
    another server of its backend is up (and not drained or in maintenance)."""
    if not backend or not server:
        return {'found': False, 'drain': False, 'others_up': [], 'why': 'the instance is not behind the balancer'}
    if not any(row['pxname'] == backend and row['svname'] == server for row in rows):
        return {'found': False, 'drain': False, 'others_up': [],
                'why': 'the running balancer has no server %s/%s (yet)' % (backend, server)}
    others = [row['svname'] for row in rows if row['pxname'] == backend
              and row['svname'] not in (server, 'BACKEND', 'FRONTEND') and row['status'].split(' ')[0] == 'UP']
    return {'found': True, 'drain': bool(others), 'others_up': others,
            'why': 'drained; %s keep serving' % ', '.join(others) if others else 'no other server of %s is up' % backend}


def is_up(rows: List[Dict[str, Any]], backend: str, server: str) -> bool:
    """Whether the health check has the server up (and it is not drained or in maintenance)."""
    return any(row['pxname'] == backend and row['svname'] == server and row['status'].split(' ')[0] == 'UP'
               for row in rows)


def in_flight(rows: List[Dict[str, Any]], backend: str, server: str) -> int:
    """Requests the balancer still has on (or queued for) the server."""
    return sum(row['scur'] + row['qcur'] for row in rows if row['pxname'] == backend and row['svname'] == server)
