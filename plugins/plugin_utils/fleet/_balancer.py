# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The load balancer of a host: which instances it fronts, on which ports, with which keys.

Pure functions over plain data (no Ansible imports), used by the host plan (plan/_host.py). The instances
of a host are grouped by the model name they serve; each group becomes one HAProxy frontend on its own port,
its servers the group's instances on the node's loopback. The balancer is on by default when a group has more
than one instance.

API keys never leave this module: a frontend carries the SHA-256 of the
``Authorization`` header value (``Bearer KEY``) that HAProxy compares against
(``req.hdr(authorization),sha2(256),hex,lower``), so neither the balancer's files nor
``docker inspect`` of its container hold a key.
"""

import hashlib
import json
import re
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._boolean import to_bool
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._grammar import is_ip_address
from ansible_collections.ascend.vllm.plugins.module_utils._problem import problem
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._address import bracketed, is_ipv6, reach_address
from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._instances import (
    is_integer, to_json, unauthenticated_exposure)

_PROXY_NAME_RE = r'[^A-Za-z0-9_.:-]'


def key_digest(key: str) -> str:
    """What HAProxy compares a request's Authorization header against: sha256('Bearer KEY'), lower hex."""
    return hashlib.sha256(('Bearer ' + key).encode('utf-8')).hexdigest()


def groups(plan: List[Dict[str, Any]]) -> List[Tuple[str, List[Dict[str, Any]]]]:
    """The instances grouped by model and served model name, in plan order: [(served name, [entries])].

    Two models served under one name (each catalog model defaults to qwen3.5) are two groups.
    """
    out: Dict[str, Tuple[str, List[Dict[str, Any]]]] = {}
    for entry in plan:
        # Keyed by the values as text: an unchecked value may be a list.
        key = to_json([entry['served_model_name'], entry['options'].get('model')])
        out.setdefault(key, (entry['served_model_name'], []))[1].append(entry)
    return list(out.values())


def key_problems(name: str, members: List[Dict[str, Any]], keys: Dict[str, str]) -> List[Dict[str, str]]:
    """Instances of one frontend whose API keys differ (a request may go to any of them)."""
    digests = set(key_digest(keys[entry['name']]) for entry in members if keys.get(entry['name']))
    keyless = [entry['name'] for entry in members if not keys.get(entry['name'])]
    if len(digests) > 1:
        return [problem('balancer', 'instances %s serve %s behind one balancer with different API keys' % (
            ', '.join(entry['name'] for entry in members), name),
            'give them the same api_key (a request goes to any of them), or set balancer_enabled: false')]
    if digests and keyless:
        return [problem('balancer', 'of the instances serving %s behind one balancer, %s have no API key' % (
            name, ', '.join(keyless)),
            'give every instance of %s the same api_key, or set balancer_enabled: false' % name)]
    return []


def enabled(setting: Any, grouped: List[Tuple[str, List[Dict[str, Any]]]],
            mixed: Sequence[str] = ()) -> Tuple[bool, str]:
    """Whether the host runs a balancer, and why (the summary says it).

    By default a model served by several instances with different API keys (``mixed``) is
    not balanced (its instances keep serving on their own ports).
    """
    several = [name for name, members in grouped if len(members) > 1 and name not in mixed]
    choice = to_bool(setting) if setting is not None else None
    if choice is False:
        return False, 'off (balancer_enabled: false)'
    if choice is True:
        return True, 'on (balancer_enabled: true)'
    left = '; not %s: different API keys' % ', '.join(mixed) if mixed else ''
    if several:
        return True, 'on: more than one instance serves %s%s' % (', '.join(several), left)
    return False, 'off: no model is served by more than one instance%s' % left


def _port_problems(settings: Dict[str, Any], used: Dict[int, str], count: int) -> List[Dict[str, str]]:
    out = []
    for var, key, span in (('balancer_port', 'port', count), ('balancer_metrics_port', 'metrics_port', 1)):
        port = settings.get(key)
        if not (is_integer(port) and 1 <= int(port) and int(port) + span - 1 <= 65535):
            out.append(problem('balancer', '%s=%s is not a port number' % (var, to_json(port)),
                               'set %s to an integer in 1..65535' % var))
            continue
        for offset in range(span):
            taken = used.get(int(port) + offset)
            if taken:
                out.append(problem('balancer', '%s=%s: port %d is already %s' % (var, port, int(port) + offset, taken),
                                   'give the balancer ports no instance uses (%s%s)' % (
                                       var, ' .. + %d, one per model served' % (span - 1) if span > 1 else '')))
            used[int(port) + offset] = 'the balancer\'s (%s)' % var
    return out


def _address_problems(settings: Dict[str, Any]) -> List[Dict[str, str]]:
    """balancer_publish_address: an IP address of the node (HAProxy binds it), or "" for every address."""
    address = settings.get('publish_address')
    if address is None or address == '' or is_ip_address(address):
        return []
    return [problem('balancer', 'balancer_publish_address=%s is not an IP address' % json.dumps(address),
                    'set balancer_publish_address to an IP address of the node such as 127.0.0.1 (no port: the port '
                    'is balancer_port), or "" to listen on every address')]


def addresses(publish_address: Any) -> Tuple[str, str]:
    """(HAProxy's bind address, the address to call from the node) for a publish address."""
    address = publish_address if isinstance(publish_address, str) else '127.0.0.1'
    if address in ('', '0.0.0.0'):
        return '', reach_address(address)
    # HAProxy's "ipv6@::" also accepts IPv4 (v4-mapped), so the node reaches it on 127.0.0.1.
    if address == '::':
        return 'ipv6@::', '127.0.0.1'
    if is_ipv6(address):
        return 'ipv6@' + address.strip('[]'), bracketed(address)
    return address, address


def balancer_plan(plan: List[Dict[str, Any]], keys: Dict[str, str], settings: Dict[str, Any]) -> Dict[str, Any]:
    """The balancer of a host and its problems.

    ``plan`` is the vllm_serve plan, each instance with its ``served_model_name`` (plan/_host.named),
    ``keys`` each instance's API key ('' without one) and
    ``settings`` holds ``enabled``, ``port``, ``metrics_port``, ``publish_address`` and
    ``allow_unauthenticated`` (the balancer_* variables).
    """
    grouped = groups(plan)
    checked = [(name, members, key_problems(name, members, keys)) for name, members in grouped]
    mixed = [name for name, members, found in checked if found and len(members) > 1]
    on, why = enabled(settings.get('enabled'), grouped, mixed)
    auto = settings.get('enabled') is None
    problems, frontends, key_digests = [], [], {}
    for name, members, found in checked:
        if found and auto:
            continue
        problems += found
        digests = sorted(set(key_digest(keys[entry['name']]) for entry in members if keys.get(entry['name'])))
        proxy = re.sub(_PROXY_NAME_RE, '_', name)
        proxy = proxy if proxy not in key_digests else '%s_%d' % (proxy, len(frontends))
        index = len(frontends)
        frontends.append({
            'name': proxy,
            'served': name,
            'model': members[0]['options'].get('model', ''),
            'port': int(settings['port']) + index if is_integer(settings.get('port')) else None,
            'index': index,
            'servers': [{'name': re.sub(_PROXY_NAME_RE, '_', entry['name']), 'instance': entry['name'],
                         'port': entry['port']} for entry in members],
            'key_required': bool(digests),
        })
        key_digests[proxy] = digests
    if on:
        used = dict((int(entry['port']), 'instance %s\'s' % entry['name']) for entry in plan if is_integer(entry['port']))
        problems += _port_problems(settings, used, len(frontends))
        problems += _address_problems(settings) or unauthenticated_exposure(
            'balancer_publish_address', settings.get('publish_address'), settings.get('allow_unauthenticated'),
            'the balancer of', [frontend['served'] for frontend in frontends if not frontend['key_required']],
            'the balancer')
    bind, reach = addresses(settings.get('publish_address'))
    return {'enabled': on, 'why': why, 'frontends': frontends if on else [], 'problems': problems if on else [],
            'key_digests': key_digests if on else {}, 'bind': bind, 'reach': reach}


def summary_lines(status: Optional[Dict[str, Any]]) -> List[str]:
    """One line per frontend: where it listens and which instances it spreads requests over.

    ``status`` is the role's ``balancer_status``: ``enabled``, ``why``, ``address``, ``tls``,
    ``metrics_port`` and the plan's ``frontends``.
    """
    status = status or {}
    if not status.get('enabled'):
        return ['balancer: %s' % status['why']] if status.get('why') else []
    scheme = 'https' if status.get('tls') else 'http'
    return ['balancer: %s at %s://%s:%s across %s (%s)%s' % (
        frontend['served'], scheme, status.get('address', '127.0.0.1'), frontend['port'],
        ', '.join(server['instance'] for server in frontend['servers']), status.get('why', 'on'),
        ', API key required' if frontend.get('key_required') else '') for frontend in status.get('frontends') or []]
