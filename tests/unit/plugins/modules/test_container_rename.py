# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Unit tests for the container_rename module: main() against a fake Docker Engine on a
unix socket (real HTTP), with exit/fail patched."""

import json
import socketserver
import threading
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, unquote, urlparse

import pytest


from ansible_collections.ascend.vllm.plugins.modules import container_rename
from moduleargs import ExitJson, FailJson, patch_exit_fail, set_module_args as module_args  # noqa: E402,F401 pylint: disable=wrong-import-position,unused-import

OURS = {'ascend.vllm.managed-by': 'ascend.vllm'}


class UnixHTTPServer(socketserver.UnixStreamServer):
    def get_request(self):
        return self.socket.accept()[0], ('local', 0)


def handler(containers, posts):
    """The engine's containers by name ({name: inspect}); a rename moves an entry."""
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def _send(self, code, payload=None):
            body = json.dumps(payload).encode() if payload is not None else b''
            self.send_response(code)
            self.send_header('Content-Length', str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _name(self):
            return unquote(urlparse(self.path).path.split('/')[2])

        def do_GET(self):
            name = self._name()
            if name in containers:
                self._send(200, containers[name])
            else:
                self._send(404, {'message': 'No such container: %s' % name})

        def do_POST(self):
            url = urlparse(self.path)
            name, new = self._name(), parse_qs(url.query)['name'][0]
            posts.append((url.path, new))
            if new in containers:
                self._send(409, {'message': 'Conflict. The container name "/%s" is already in use' % new})
                return
            containers[new] = containers.pop(name)
            self._send(204)
    return Handler


@pytest.fixture
def engine(tmp_path):
    containers, posts = {}, []
    path = str(tmp_path / 'docker.sock')
    server = UnixHTTPServer(path, handler(containers, posts))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield containers, posts, 'unix://' + path
    server.shutdown()
    server.server_close()


def run(args):
    with module_args(args):
        with pytest.raises((ExitJson, FailJson)) as raised:
            container_rename.main()
    return raised.value.args[0]


def container(cid, labels=None):
    return {'Id': cid, 'State': {'Status': 'exited', 'Running': False}, 'Config': {'Labels': labels or {}}}


def test_renames_and_keeps_the_container(engine):
    containers, posts, host = engine
    containers['vllm-ascend'] = container('abc', OURS)
    result = run({'name': 'vllm-ascend', 'new_name': 'vllm-ascend-previous', 'docker_host': host})
    assert result['changed'] and result['id'] == 'abc' and result['name'] == 'vllm-ascend-previous'
    assert list(containers) == ['vllm-ascend-previous'] and containers['vllm-ascend-previous']['Id'] == 'abc'
    assert posts == [('/containers/vllm-ascend/rename', 'vllm-ascend-previous')]


def test_done_already_is_not_a_change(engine):
    containers, posts, host = engine
    containers['vllm-ascend-previous'] = container('abc', OURS)
    result = run({'name': 'vllm-ascend', 'new_name': 'vllm-ascend-previous', 'docker_host': host})
    assert not result['changed'] and not result.get('failed') and result['id'] == 'abc'
    assert posts == []


def test_check_mode_changes_nothing(engine):
    containers, posts, host = engine
    containers['vllm-ascend'] = container('abc', OURS)
    result = run({'name': 'vllm-ascend', 'new_name': 'vllm-ascend-previous', 'docker_host': host,
                  '_ansible_check_mode': True})
    assert result['changed'] and posts == [] and list(containers) == ['vllm-ascend']


@pytest.mark.parametrize('present, args, message', [
    ({'vllm-ascend': OURS, 'vllm-ascend-previous': OURS}, {}, 'a container of that name exists (exited)'),
    ({}, {}, 'no container vllm-ascend (nor vllm-ascend-previous) on the node'),
    ({'vllm-ascend': {'owner': 'someone'}}, {}, 'vllm-ascend was not created by ascend.vllm'),
    ({'vllm-ascend': OURS}, {'new_name': 'vllm-ascend'}, 'name and new_name are both vllm-ascend'),
])
def test_refuses_and_changes_nothing(engine, present, args, message):
    containers, posts, host = engine
    for name, labels in present.items():
        containers[name] = container(name, labels)
    result = run(dict({'name': 'vllm-ascend', 'new_name': 'vllm-ascend-previous', 'docker_host': host}, **args))
    assert result['failed'] and message in result['msg']
    assert posts == [] and sorted(containers) == sorted(present)


def test_a_foreign_container_is_renamed_only_when_asked(engine):
    containers, _posts, host = engine
    containers['mine'] = container('abc', {'owner': 'me'})
    result = run({'name': 'mine', 'new_name': 'mine-old', 'managed_only': False, 'docker_host': host})
    assert result['changed'] and list(containers) == ['mine-old']


def test_an_engine_that_refuses_is_a_failure_with_its_message(engine):
    containers, _posts, host = engine
    containers['vllm-ascend'] = container('abc', OURS)
    containers['other'] = container('def', OURS)
    # The engine says no (a race: the name was taken after the module looked).
    original = container_rename.inspect_raw
    calls = []

    def inspect(api, name):
        calls.append(name)
        return None if name == 'other' else original(api, name)
    container_rename.inspect_raw = inspect
    try:
        result = run({'name': 'vllm-ascend', 'new_name': 'other', 'docker_host': host})
    finally:
        container_rename.inspect_raw = original
    assert result['failed'] and 'HTTP 409' in result['msg'] and 'already in use' in result['msg']
    assert calls == ['vllm-ascend', 'other']


def test_no_engine_is_a_failure(tmp_path):
    result = run({'name': 'a', 'new_name': 'b', 'docker_host': 'unix://%s' % (tmp_path / 'none.sock')})
    assert result['failed'] and 'cannot connect to the Docker Engine' in result['msg']
