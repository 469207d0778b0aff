#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import annotations

DOCUMENTATION = r'''
---
module: balancer_server
short_description: Drain one server of the host's HAProxy balancer, or put it back
version_added: 0.2.0
description:
  - Talks to the admin socket of the balancer the C(ascend.vllm.balancer) role runs (HAProxy runtime API, C(show stat)
    and C(set server BACKEND/SERVER state ...)). No reload, so no connection is dropped.
  - O(state=drained) - only when another server of the same backend is up, sets the server to C(drain) (no new
    request goes to it) and waits until the balancer holds no request on it or queued for it. When it cannot drain
    (no socket, the running balancer has no such server, no other server is up) nothing changes and C(drain=false)
    says why; the caller then replaces the instance with a gap in service.
  - O(state=ready) - puts the server back (C(state ready)) and waits (up to O(timeout)) until the health check has it
    up, so that the next instance of a rolling upgrade can be drained behind it.
  - O(state=query) - reports only.
extends_documentation_fragment:
  - ascend.vllm.module
  - ansible.builtin.action_common_attributes
options:
  socket:
    description: Path of HAProxy's admin socket on the node.
    type: path
    required: true
  backend:
    description: The backend (one per served model name in the host plan of M(ascend.vllm.host_plan)).
    type: str
    required: true
  server:
    description: The server of the instance in that backend.
    type: str
    required: true
  state:
    description: What to do with the server.
    type: str
    choices: [drained, ready, query]
    default: query
  timeout:
    description: Seconds to wait for the requests the server holds to finish (O(state=drained)); the server is put back
      and the module fails when they have not. With O(state=ready), seconds to wait for the server to be up.
    type: int
    default: 600
notes:
  - The socket belongs to root (mode 0600); run as root on the node.
seealso:
  - module: ascend.vllm.vllm_ready
'''

EXAMPLES = r'''
- name: Drain instance b before it is replaced
  ascend.vllm.balancer_server:
    socket: /var/lib/ascend-vllm/balancer/run/admin.sock
    backend: qwen3_5
    server: b
    state: drained
  register: drained

- name: Put it back
  ascend.vllm.balancer_server:
    socket: /var/lib/ascend-vllm/balancer/run/admin.sock
    backend: qwen3_5
    server: b
    state: ready
  when: drained.drain
'''

RETURN = r'''
drain:
  description: Whether the server was drained (O(state=drained)); false means the caller replaces it with a gap.
  returned: always
  type: bool
found:
  description: Whether the running balancer has the server.
  returned: always
  type: bool
others_up:
  description: The other servers of the backend that are up.
  returned: always
  type: list
  elements: str
why:
  description: One line saying why it was or was not drained.
  returned: always
  type: str
up:
  description: Whether the server is up in the balancer when the module returned.
  returned: always
  type: bool
in_flight:
  description: Requests the balancer still held on the server or queued for it when the module returned.
  returned: always
  type: int
waited:
  description: Seconds spent waiting for those requests.
  returned: always
  type: float
'''

import os
import socket
import time

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.ascend.vllm.plugins.module_utils.serve._haproxy import drain_plan, in_flight, is_up, parse_stat


def ask(path, command):
    """HAProxy's answer to one runtime API command."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(10)
    try:
        conn.connect(path)
        conn.sendall((command + '\n').encode())
        chunks = []
        while True:
            chunk = conn.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        conn.close()
    return b''.join(chunks).decode('utf-8', 'replace')


def _set(module, target, state):
    answer = ask(module.params['socket'], 'set server %s state %s' % (target, state)).strip()
    if answer:
        module.fail_json(msg='HAProxy refused `set server %s state %s`: %s' % (target, state, answer))


def main():
    module = AnsibleModule(argument_spec=dict(
        socket=dict(type='path', required=True), backend=dict(type='str', required=True),
        server=dict(type='str', required=True), state=dict(type='str', default='query', choices=['drained', 'ready', 'query']),
        timeout=dict(type='int', default=600)), supports_check_mode=True)
    params = module.params
    backend, server = params['backend'], params['server']
    target = '%s/%s' % (backend, server)
    result = dict(changed=False, drain=False, found=False, others_up=[], in_flight=0, waited=0.0, up=False)
    if not os.path.exists(params['socket']):
        module.exit_json(why='no balancer admin socket at %s' % params['socket'], **result)
    rows = parse_stat(ask(params['socket'], 'show stat'))
    plan = drain_plan(rows, backend, server)
    result.update(plan, in_flight=in_flight(rows, backend, server), up=is_up(rows, backend, server))
    if params['state'] == 'ready' and plan['found'] and not module.check_mode:
        _set(module, target, 'ready')
        result['changed'] = True
        start = time.time()
        while not result['up'] and time.time() - start < params['timeout']:
            time.sleep(0.5)
            result['up'] = is_up(parse_stat(ask(params['socket'], 'show stat')), backend, server)
        result['waited'] = round(time.time() - start, 2)
        if not result['up']:
            module.fail_json(msg='%s is back in the balancer but its health check has not had it up for %d s'
                             % (target, params['timeout']), **result)
    if params['state'] != 'drained' or not plan['drain'] or module.check_mode:
        result['drain'] = plan['drain'] and params['state'] == 'drained'
        module.exit_json(**result)
    _set(module, target, 'drain')
    start = time.time()
    while True:
        result['in_flight'] = in_flight(parse_stat(ask(params['socket'], 'show stat')), backend, server)
        result['waited'] = round(time.time() - start, 2)
        if result['in_flight'] == 0:
            module.exit_json(changed=True, **dict((k, v) for k, v in result.items() if k != 'changed'))
        if result['waited'] > params['timeout']:
            _set(module, target, 'ready')
            module.fail_json(msg='%s still held %d requests after %d s of draining; it was put back and not replaced'
                             % (target, result['in_flight'], params['timeout']), **result)
        time.sleep(0.2)


if __name__ == '__main__':
    main()
