# SPDX-License-Identifier: Apache-2.0
"""Unit tests for the vllm_ready module: main() against a fake Docker Engine on a unix
socket and a fake vLLM server on a TCP port (both real HTTP), with exit/fail patched."""

import json
import os
import socketserver
import struct
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import parse_qs, urlparse

import pytest


from ansible_collections.ascend.vllm.plugins.modules import vllm_ready
from moduleargs import ExitJson, FailJson, patch_exit_fail, set_module_args as module_args  # noqa: E402,F401 pylint: disable=wrong-import-position,unused-import

API_KEY = 'sk-secret-7f3a'


def run_module(args):
    with module_args(args):
        with pytest.raises((ExitJson, FailJson)) as raised:
            vllm_ready.main()
    return raised.value.args[0]


# ------------------------------------------------------------------ fake Docker Engine
class Engine(object):
    def __init__(self):
        self.container = {'State': {'Status': 'running', 'Restarting': False, 'ExitCode': 0,
                                    'StartedAt': '2026-11-30T22:00:00.000000000Z'},
                          'RestartCount': 0, 'Config': {'Tty': False}}
        self.lines = ['Starting to load model Qwen/Qwen3.5-2B...', '(APIServer pid=7) INFO:     Application startup complete.']
        self.queries = []


def docker_handler(engine):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            url = urlparse(self.path)
            engine.queries.append((url.path, parse_qs(url.query)))
            if url.path == '/containers/vllm-ascend/json':
                body = json.dumps(engine.container).encode()
            elif url.path == '/containers/vllm-ascend/logs':
                stamp = '2026-11-30T22:00:01.000000000Z ' if parse_qs(url.query).get('timestamps') == ['1'] else ''
                body = b''.join(struct.pack('>BxxxI', 1, len(line) + len(stamp) + 1) + (stamp + line + '\n').encode()
                                for line in engine.lines)
            else:
                self.send_response(404)
                self.send_header('Content-Length', '0')
                self.end_headers()
                return
            self.send_response(200)
            self.send_header('Content-Length', str(len(body)))
            self.end_headers()
            self.wfile.write(body)
    return Handler


class UnixHTTPServer(socketserver.UnixStreamServer):
    def get_request(self):
        return self.socket.accept()[0], ('local', 0)


# ------------------------------------------------------------------ fake vLLM server
def vllm_handler(seen):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def _answer(self, code, payload):
            body = json.dumps(payload).encode()
            self.send_response(code)
            self.send_header('Content-Type', 'application/json')
            self.send_header('Content-Length', str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _authorized(self):
            seen.append((self.command, self.path, self.headers.get('Authorization')))
            if self.path != '/health' and self.headers.get('Authorization') != 'Bearer ' + API_KEY:
                self._answer(401, {'error': 'Unauthorized'})
                return False
            return True

        def do_GET(self):
            if not self._authorized():
                return
            if self.path == '/health':
                self._answer(200, {})
            else:
                self._answer(200, {'object': 'list', 'data': [{'id': 'qwen3.5', 'object': 'model'}]})

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers['Content-Length'])))
            seen.append(('body', self.path, body))
            if not self._authorized():
                return
            if self.path == '/v1/completions':
                self._answer(200, {'choices': [{'index': 0, 'text': ' bright.'}]})
            else:
                self._answer(200, {'choices': [{'index': 0, 'message': {'role': 'assistant', 'content': 'Hi.'}}]})
    return Handler


@pytest.fixture
def node():
    """``(engine, seen requests, args)`` with both fake servers running."""
    engine, seen = Engine(), []
    tmp = tempfile.mkdtemp()
    sock = os.path.join(tmp, 'docker.sock')
    docker = UnixHTTPServer(sock, docker_handler(engine))
    vllm = HTTPServer(('127.0.0.1', 0), vllm_handler(seen))
    for server in (docker, vllm):
        threading.Thread(target=server.serve_forever, kwargs={'poll_interval': 0.05}, daemon=True).start()
    args = {'name': 'vllm-ascend', 'url': 'http://127.0.0.1:%d' % vllm.server_address[1], 'served_model_name': 'qwen3.5',
            'timeout': 10, 'docker_host': 'unix://' + sock}
    try:
        yield engine, seen, args
    finally:
        for server in (docker, vllm):
            server.shutdown()
            server.server_close()


def test_ready_with_smoke_tests_and_api_key(node):
    engine, seen, args = node
    result = run_module(dict(args, smoke_test=True, api_key=API_KEY))
    assert result['state'] == 'ready' and not result.get('failed'), result
    assert (result['completion'], result['chat'], result['models']) == (' bright.', 'Hi.', ['qwen3.5'])
    assert result['changed'] is False
    # The key goes to the server as a Bearer header, and nowhere into the result.
    assert ('GET', '/v1/models', 'Bearer ' + API_KEY) in seen
    assert ('POST', '/v1/chat/completions', 'Bearer ' + API_KEY) in seen
    assert API_KEY not in json.dumps(result)
    # The logs were asked since the container's start, with timestamps.
    logs = [q for path, q in engine.queries if path.endswith('/logs')]
    assert logs[0]['since'] == ['1796076000.000000000'] and logs[0]['timestamps'] == ['1']


def test_wrong_api_key_fails_without_showing_it(node):
    engine, seen, args = node
    result = run_module(dict(args, api_key='sk-wrong-key-123'))
    assert result['failed'] and result['state'] == 'request_failed'
    assert result['msg'].startswith('List the served models: GET /v1/models answered 401')
    assert 'sk-wrong-key-123' not in json.dumps(result)


def test_crash_is_reported_with_the_cause(node):
    engine, seen, args = node
    engine.container['State'].update(Status='restarting', Restarting=True, ExitCode=1)
    engine.lines = ['(EngineCore_DP0 pid=180) ERROR 11-30 22:13:53 [core.py:708] ValueError: max_num_seqs (32) '
                    'exceeds available Mamba cache blocks (16)', 'RuntimeError: Engine core initialization failed.']
    result = run_module(dict(args, log_lines=1))
    assert result['failed'] and result['state'] == 'crashed' and result['exit_code'] == 1
    assert result['msg'] == ("Wait for 'Application startup complete.' in the log of vllm-ascend: vLLM in vllm-ascend "
                             "did not log 'Application startup complete.': vLLM crashed while starting (exit code 1) "
                             "and Docker restarted it 1 time(s)")
    assert result['cause'] == 'ValueError: max_num_seqs (32) exceeds available Mamba cache blocks (16)'
    assert result['log_tail'] == ['RuntimeError: Engine core initialization failed.']


def test_absent_container(node):
    engine, seen, args = node
    result = run_module(dict(args, name='nope'))
    assert result['state'] == 'absent' and 'Container nope does not exist' in result['msg']


@pytest.mark.parametrize('extra, message', [
    ({'timeout': 0}, 'timeout=0.0: must be more than 0'),
    ({'poll_interval': -1}, 'poll_interval=-1.0: must be more than 0'),
    ({'log_lines': -1}, 'log_lines=-1: must be 0 or more'),
    # The doc fragment's other kind of Engine is honoured: a closed port is an Engine that cannot be reached.
    ({'docker_host': 'tcp://127.0.0.1:1'}, 'Watching vllm-ascend through the Docker API at tcp://127.0.0.1:1 failed: '
                                           'cannot connect to the Docker Engine at tcp://127.0.0.1:1'),
    ({'docker_host': 'ssh://node'}, 'Watching vllm-ascend through the Docker API at ssh://node failed: '
                                    'docker_host=ssh://node is not unix:///path or tcp://host:port'),
])
def test_bad_options(node, extra, message):
    engine, seen, args = node
    result = run_module(dict(args, **extra))
    assert result['failed'] and result['msg'].startswith(message)


def test_an_engine_over_tcp_is_watched_like_the_local_socket(node):
    engine, seen, args = node
    docker = HTTPServer(('127.0.0.1', 0), docker_handler(engine))
    threading.Thread(target=docker.serve_forever, kwargs={'poll_interval': 0.05}, daemon=True).start()
    try:
        result = run_module(dict(args, docker_host='tcp://127.0.0.1:%d' % docker.server_address[1], smoke_test=True,
                                 api_key=API_KEY))
    finally:
        docker.shutdown()
        docker.server_close()
    assert result['state'] == 'ready' and not result.get('failed'), result


def test_no_docker_engine(node, tmp_path):
    engine, seen, args = node
    result = run_module(dict(args, docker_host='unix://%s/none.sock' % tmp_path))
    assert result['failed'] and result['msg'].startswith('Watching vllm-ascend through the Docker API at ')


def test_a_failure_saves_the_whole_log_with_the_key_removed(node, tmp_path):
    engine, seen, args = node
    engine.container['State'].update(Status='exited', ExitCode=1)
    engine.lines = ['vLLM API server version 0.23.0', 'Authorization: Bearer %s' % API_KEY,
                    "non-default args: {'api_key': ['%s']}" % API_KEY, 'RuntimeError: no chip']
    saved = tmp_path / 'failed'
    result = run_module(dict(args, log_lines=1, save_log_dir=str(saved), api_key=API_KEY))
    assert result['failed'] and result['state'] == 'exited' and result['log_file_error'] == ''
    path = result['log_file']
    assert os.path.dirname(path) == str(saved) and os.path.basename(path).startswith('vllm-ascend-')
    text = open(path).read()
    # Every line (not the one of log_tail), with Docker's timestamps, the key nowhere.
    assert text.splitlines()[0] == '2026-11-30T22:00:01.000000000Z vLLM API server version 0.23.0'
    assert len(text.splitlines()) == 4 and text.splitlines()[-1].endswith('RuntimeError: no chip')
    assert API_KEY not in text and API_KEY not in json.dumps(result)
    assert oct(os.stat(path).st_mode & 0o777) == '0o600' and oct(os.stat(str(saved)).st_mode & 0o777) == '0o700'
    # A second failure in the same second gets its own file.
    again = run_module(dict(args, save_log_dir=str(saved)))
    assert again['log_file'] != path and os.path.isfile(again['log_file'])


def test_nothing_is_saved_when_ready_in_check_mode_or_without_a_directory(node, tmp_path):
    engine, seen, args = node
    first = run_module(dict(args, save_log_dir=str(tmp_path / 'a'), api_key=API_KEY))
    assert first['state'] == 'ready' and first['log_file'] == '', first
    engine.container['State'].update(Status='exited', ExitCode=1)
    assert run_module(dict(args, save_log_dir=str(tmp_path / 'b'), _ansible_check_mode=True))['log_file'] == ''
    assert run_module(args)['log_file'] == ''
    assert not os.path.exists(str(tmp_path / 'a')) and not os.path.exists(str(tmp_path / 'b'))


def test_a_log_that_cannot_be_saved_is_said_and_the_failure_stays_the_same(node, tmp_path):
    engine, seen, args = node
    engine.container['State'].update(Status='exited', ExitCode=1)
    blocker = tmp_path / 'file'
    blocker.write_text('not a directory')
    result = run_module(dict(args, save_log_dir=str(blocker / 'logs')))
    assert result['state'] == 'exited' and result['log_file'] == ''
    assert result['log_file_error'].startswith('saving the log to %s failed: ' % (blocker / 'logs'))
