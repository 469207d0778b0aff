# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""node/_node_docker: the collection's one Docker Engine client, against a real HTTP server that answers the
Engine API's paths, reached over every ``docker_host`` the doc fragment promises (unix:// and tcp://)."""

from __future__ import annotations

import json
import os
import socketserver
import struct
import tempfile
import threading

from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlsplit

import pytest

from ansible_collections.ascend.vllm.plugins.module_utils.node import _node_docker
from ansible_collections.ascend.vllm.plugins.module_utils.serve._keep import containers_to_remove
from ansible_collections.ascend.vllm.plugins.module_utils.serve._ready import NodeProbe, HttpClient


def frames(*parts):
    return b''.join(struct.pack('>BxxxI', stream, len(p)) + p for stream, p in parts)


class Engine(object):
    """What the fake Engine holds: containers by name, and every request it was sent."""

    def __init__(self):
        self.containers = {
            'vllm-ascend': {'Id': 'c1', 'State': 'running', 'Labels': {_node_docker.MANAGED_LABEL: 'ascend.vllm'},
                            'pids': ['4242', '4243']},
            'vllm-ascend-previous': {'Id': 'c2', 'State': 'exited',
                                     'Labels': {_node_docker.MANAGED_LABEL: 'ascend.vllm'}, 'pids': []},
            'theirs': {'Id': 'c3', 'State': 'running', 'Labels': {}, 'pids': ['99']},
        }
        self.requests = []


def handler_for(engine):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def _send(self, status, body=b'', content_type='application/json'):
            self.send_response(status)
            self.send_header('Content-Type', content_type)
            self.send_header('Content-Length', str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _route(self, method):
            url = urlsplit(self.path)
            query = parse_qs(url.query)
            engine.requests.append((method, url.path, query))
            parts = url.path.strip('/').split('/')
            if url.path == '/containers/json':
                wanted = json.loads(query['filters'][0])['label'][0].split('=', 1) if 'filters' in query else None
                listed = [{'Names': ['/' + n], 'Id': c['Id'], 'State': c['State'], 'Labels': c['Labels']}
                          for n, c in engine.containers.items()
                          if (query.get('all') == ['1'] or c['State'] == 'running')
                          and (wanted is None or c['Labels'].get(wanted[0]) == wanted[1])]
                return self._send(200, json.dumps(listed).encode())
            if parts[0] == 'containers' and len(parts) >= 2:
                found = engine.containers.get(parts[1])
                if found is None:
                    return self._send(404, b'{"message": "No such container: %s"}' % parts[1].encode())
                tail = parts[2] if len(parts) > 2 else ''
                if method == 'GET' and tail == 'json':
                    return self._send(200, json.dumps({'Id': found['Id'], 'State': {'Running': found['State'] == 'running'},
                                                       'Config': {'Tty': False}}).encode())
                if method == 'GET' and tail == 'top':
                    return self._send(200, json.dumps({'Titles': ['PID'], 'Processes': [[p] for p in found['pids']]}).encode())
                if method == 'GET' and tail == 'logs':
                    return self._send(200, frames((1, b'INFO Application startup complete.\n'), (2, b'WARN x\n')),
                                      'application/vnd.docker.multiplexed-stream')
                if method == 'POST' and tail == 'stop':
                    if found['State'] != 'running':
                        return self._send(304)
                    found['State'] = 'exited'
                    return self._send(204)
                if method == 'DELETE' and tail == '':
                    del engine.containers[parts[1]]
                    return self._send(204)
            return self._send(404, b'{"message": "page not found"}')

        def do_GET(self):
            self._route('GET')

        def do_POST(self):
            self._route('POST')

        def do_DELETE(self):
            self._route('DELETE')
    return Handler


class UnixServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True

    def get_request(self):
        request, _addr = super().get_request()
        return request, ('local', 0)


class TcpServer(socketserver.ThreadingMixIn, socketserver.TCPServer):
    daemon_threads = True
    allow_reuse_address = True


@pytest.fixture(params=['unix', 'tcp'])
def engine(request):
    state = Engine()
    if request.param == 'unix':
        folder = tempfile.mkdtemp()
        path = os.path.join(folder, 'docker.sock')
        server = UnixServer(path, handler_for(state))
        host = 'unix://' + path
    else:
        server = TcpServer(('127.0.0.1', 0), handler_for(state))
        host = 'tcp://127.0.0.1:%d' % server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield state, _node_docker.DockerApi(host, 5)
    server.shutdown()
    server.server_close()


def test_demux():
    assert _node_docker.demux(frames((1, b'out\n'), (2, b'err\n')), tty=False) == 'out\nerr\n'
    assert _node_docker.demux(b'raw\n', tty=True) == 'raw\n'


def test_inspect_logs_and_top_over_every_promised_docker_host(engine):
    _state, api = engine
    assert api.inspect('vllm-ascend')['Id'] == 'c1'
    assert api.inspect('nothing') is None
    assert api.logs('vllm-ascend', tail=50) == 'INFO Application startup complete.\nWARN x\n'
    assert _node_docker.top_pids(api, 'vllm-ascend') == [4242, 4243]


def test_the_readiness_probe_reads_the_container_through_the_same_client(engine):
    _state, api = engine
    probe = NodeProbe(api, HttpClient('http://127.0.0.1:9'), 'vllm-ascend')
    assert probe.inspect()['Id'] == 'c1'
    assert 'Application startup complete.' in probe.logs(tail=10)


def test_only_ours_are_listed_and_removed(engine):
    state, api = engine
    ours = _node_docker.managed_containers(api)
    assert sorted(c['name'] for c in ours) == ['vllm-ascend', 'vllm-ascend-previous']
    names = containers_to_remove(['vllm-ascend', 'theirs'], [c['name'] for c in ours], False)
    assert names == ['vllm-ascend', 'vllm-ascend-previous']
    assert [_node_docker.remove_container(api, n, 7) for n in names] == [True, True]
    assert sorted(state.containers) == ['theirs']
    # Stopped with the timeout asked for, then removed with force; the stopped one answered 304 and went too.
    stops = [r for r in state.requests if r[0] == 'POST']
    assert stops[0][1] == '/containers/vllm-ascend/stop' and stops[0][2] == {'t': ['7']}
    assert _node_docker.remove_container(api, 'vllm-ascend', 7) is False


def test_an_unreachable_or_unknown_engine_is_a_docker_error():
    with pytest.raises(_node_docker.DockerError, match='cannot connect'):
        _node_docker.DockerApi('unix:///nonexistent/docker.sock', 1).get('/info')
    with pytest.raises(_node_docker.DockerError, match='is not unix:///path or tcp://host:port'):
        _node_docker.DockerApi('ssh://node', 1).get('/info')


@pytest.mark.parametrize('names, ours, all_managed, expected', [
    (['a', 'b'], ['b', 'old'], True, ['b', 'old']),
    (['a', 'b'], ['b', 'old'], False, ['b']),
    # a itself is not ours (or gone); its kept container is ours and goes.
    (['a', 'b'], ['b', 'b-previous', 'a-previous'], False, ['a-previous', 'b', 'b-previous']),
    (['a', 'b'], [], True, []),
])
def test_containers_to_remove(names, ours, all_managed, expected):
    assert containers_to_remove(names, ours, all_managed) == expected


def test_a_tls_engine_is_refused_with_the_reason(monkeypatch):
    monkeypatch.setenv('DOCKER_TLS_VERIFY', '1')
    with pytest.raises(_node_docker.DockerError, match='no TLS'):
        _node_docker.DockerApi('tcp://127.0.0.1:2376', 1).get('/info')


def test_the_node_read_reports_a_refused_docker_host_as_the_engine_unreachable():
    facts = _node_docker.engine_facts(_node_docker.DockerApi('ssh://node', 1), [])
    assert facts['reachable'] is False and 'ssh://node is not unix:///path or tcp://host:port' in facts['error']
