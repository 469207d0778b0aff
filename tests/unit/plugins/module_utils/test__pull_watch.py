# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The node side of image_pull_wait (module_utils/node/_pull_watch.py): the job file, the Engine's stream."""

import base64
import json
import os
import socketserver
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler

import pytest

from ansible_collections.ascend.vllm.plugins.module_utils.node import _pull_watch as w
from ansible_collections.ascend.vllm.plugins.module_utils.node._node_docker import DockerApi


@pytest.mark.parametrize('text, answer', [
    (None, None), ('', None), ('{"started": 1, "fin', None),
    ('{"started": 1, "finished": 0, "ansible_job_id": "j1"}', None),
    ('{"changed": true, "image": {"Id": "sha256:1"}}', {'changed': True, 'image': {'Id': 'sha256:1'}}),
    ('{"failed": 1, "msg": "Job reached maximum time limit of 60 seconds."}',
     {'failed': 1, 'msg': 'Job reached maximum time limit of 60 seconds.'}),
    ('{"started": 1, "finished": 1, "changed": false}', {'started': 1, 'finished': 1, 'changed': False}),
])
def test_job_answer(text, answer):
    assert w.job_answer(text) == answer


def _decoded(header):
    return json.loads(base64.urlsafe_b64decode(header.encode()).decode())


def test_registry_auth_from_config_json():
    config = {'auths': {'reg.example:5000': {'auth': base64.b64encode(b'bob:pa:ss').decode()},
                        'https://quay.io': {'identitytoken': 'tok'}}}
    assert _decoded(w.registry_auth('reg.example:5000', config)) == {
        'username': 'bob', 'password': 'pa:ss', 'serveraddress': 'reg.example:5000'}
    assert _decoded(w.registry_auth('quay.io', config)) == {'identitytoken': 'tok', 'serveraddress': 'quay.io'}
    assert w.registry_auth('other.example', config) is None
    assert w.registry_auth('reg', {'auths': {'reg': {}}, 'credsStore': 'pass'}) is None
    assert w.registry_auth('reg', None) is None


def test_read_docker_config(tmp_path):
    assert w.read_docker_config({'DOCKER_CONFIG': str(tmp_path)}) is None
    (tmp_path / 'config.json').write_text('{"auths": {}}')
    assert w.read_docker_config({'DOCKER_CONFIG': str(tmp_path)}) == {'auths': {}}
    (tmp_path / 'config.json').write_text('not json')
    assert w.read_docker_config({'DOCKER_CONFIG': str(tmp_path)}) is None


# ------------------------------------------------------------------ the loop
class Clock(object):
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now

    def sleep(self, seconds):
        self.now += seconds


class FakeObserver(object):
    def __init__(self):
        self.events = []

    def start(self):
        self.events.append('start')

    def stop(self):
        self.events.append('stop')

    def snapshot(self):
        return {'layers': {'a': {'status': 'Downloading', 'current': 1, 'total': 2}}, 'status': '', 'error': ''}


def test_watch_pull_ends_within_a_poll_of_the_job():
    clock, observer = Clock(), FakeObserver()
    texts = iter(['{"started": 1, "finished": 0}'] * 5 + ['{"changed": true}'])
    result = w.watch_pull(lambda: w.job_answer(next(texts)), observer, 15, clock=clock, sleep=clock.sleep)
    assert result['finished'] and result['answer'] == {'changed': True}
    assert result['seconds'] == 5 * w.POLL_INTERVAL and observer.events == ['start', 'stop']
    assert result['progress']['layers']['a']['current'] == 1


def test_watch_pull_returns_after_the_seconds_with_the_progress():
    clock, observer = Clock(), FakeObserver()
    result = w.watch_pull(lambda: None, observer, 3, clock=clock, sleep=clock.sleep)
    assert not result['finished'] and result['answer'] is None and result['seconds'] == 3.0
    assert observer.events == ['start', 'stop'] and result['progress']['layers']


def test_watch_pull_does_not_ask_the_engine_once_the_job_ended():
    observer = FakeObserver()
    result = w.watch_pull(lambda: {'changed': False}, observer, 15)
    assert result == {'finished': True, 'answer': {'changed': False}, 'progress': None, 'seconds': result['seconds']}
    assert observer.events == []


# ------------------------------------------------------------------ the Engine's stream
class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # the observer left while the fake engine was still writing


def engine(lines, status=200, hold=0.0):
    """A fake Docker Engine on a unix socket: POST /images/create streams ``lines`` (chunked), then holds."""
    seen = []

    class Handler(BaseHTTPRequestHandler):
        protocol_version = 'HTTP/1.1'

        def address_string(self):
            return 'unix'

        def log_message(self, *args):
            pass

        def do_POST(self):
            seen.append((self.path, self.headers.get('X-Registry-Auth')))
            if status != 200:
                body = json.dumps({'message': 'pull access denied'}).encode()
                self.send_response(status)
                self.send_header('Content-Length', str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            self.send_response(200)
            self.send_header('Transfer-Encoding', 'chunked')
            self.end_headers()
            for line in lines:
                data = (json.dumps(line) + '\r\n').encode()
                self.wfile.write(b'%x\r\n%s\r\n' % (len(data), data))
                self.wfile.flush()
            time.sleep(hold)
            self.wfile.write(b'0\r\n\r\n')

    folder = tempfile.mkdtemp()
    path = os.path.join(folder, 'docker.sock')
    server = _Server(path, Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, path, seen


def test_observer_folds_the_engines_stream_and_sends_the_credentials():
    lines = [{'status': 'Pulling from ascend/vllm-ascend', 'id': 'v0.23.0-310p'},
             {'status': 'Downloading', 'progressDetail': {'current': 5, 'total': 10}, 'id': 'aaa'}]
    server, path, seen = engine(lines, hold=5)
    try:
        observer = w.PullObserver(DockerApi('unix://' + path), 'reg:5000/ascend/vllm-ascend:v0.23.0-310p', 'AUTH')
        result = w.watch_pull(lambda: None, observer, 1.0)
    finally:
        server.shutdown()
    assert result['progress']['layers'] == {'aaa': {'status': 'Downloading', 'current': 5, 'total': 10}}
    assert result['progress']['error'] == '' and 0.9 <= result['seconds'] < 2
    assert seen == [('/images/create?fromImage=reg%3A5000%2Fascend%2Fvllm-ascend&tag=v0.23.0-310p', 'AUTH')]


def test_observer_reports_a_refusal_as_its_error():
    server, path, _seen = engine([], status=404)
    try:
        result = w.watch_pull(lambda: None, w.PullObserver(DockerApi('unix://' + path), 'x/y:1'), 0.6)
    finally:
        server.shutdown()
    assert result['progress']['error'] == 'HTTP 404: pull access denied'


def test_observer_without_an_engine_reports_why():
    result = w.watch_pull(lambda: None, w.PullObserver(DockerApi('unix:///nonexistent/docker.sock'), 'x/y:1'), 0.6)
    assert 'No such file or directory' in result['progress']['error']


def _proc_with(tmp_path, holders):
    """A /proc tree where each (pid, fd, target, pos) of ``holders`` is an open file with its offset."""
    proc = tmp_path / 'proc'
    for pid, fd, target, pos in holders:
        (proc / pid / 'fd').mkdir(parents=True, exist_ok=True)
        (proc / pid / 'fdinfo').mkdir(parents=True, exist_ok=True)
        (proc / pid / 'fd' / fd).symlink_to(target)
        (proc / pid / 'fdinfo' / fd).write_text('pos:\t%d\nflags:\t0100000\nmnt_id:\t25\n' % pos)
    (proc / 'self').mkdir(parents=True, exist_ok=True)
    return str(proc)


def test_the_load_progress_is_the_offset_of_the_open_archive(tmp_path):
    archive = tmp_path / 'v.tar'
    archive.write_bytes(b'x' * 1000)
    other = tmp_path / 'other'
    other.write_text('')
    proc = _proc_with(tmp_path, [('41', '3', str(archive), 250), ('41', '4', str(other), 900),
                                 ('42', '7', str(archive), 600)])
    assert w.archive_read(str(archive), proc) == {'archive': str(archive), 'size': 1000, 'read': 600}
    assert w.FileObserver(lambda: w.archive_read(str(archive), proc)).snapshot()['read'] == 600


def test_an_archive_nobody_reads_has_no_offset(tmp_path):
    archive = tmp_path / 'v.tar'
    archive.write_bytes(b'x' * 10)
    proc = _proc_with(tmp_path, [('41', '3', str(tmp_path / 'elsewhere'), 5)])
    assert w.archive_read(str(archive), proc) == {'archive': str(archive), 'size': 10, 'read': None}
    assert w.archive_read(str(tmp_path / 'gone.tar'), proc)['size'] is None


@pytest.mark.parametrize('text, newest', [
    ('', None),
    ('Collecting vllm\n  Downloading x.whl\n\n', 'Downloading x.whl'),
    ('[1/9] Building\r[2/9] Building\r[3/9] Linking', '[3/9] Linking'),  # one line rewritten with \r
])
def test_a_jobs_log_gives_its_newest_line(tmp_path, text, newest):
    log = tmp_path / 'job.log'
    log.write_text(text)
    assert w.newest_line(str(log)) == {'log': str(log), 'size': len(text.encode()), 'newest': newest}
    assert w.FileObserver(lambda: w.newest_line(str(log))).snapshot()['newest'] == newest


def test_a_log_not_written_yet_has_no_line(tmp_path):
    assert w.newest_line(str(tmp_path / 'none.log')) == {'log': str(tmp_path / 'none.log'), 'size': None, 'newest': None}


def test_only_the_tail_of_a_long_log_is_read(tmp_path):
    log = tmp_path / 'big.log'
    log.write_text('x' * 100000 + '\nlast line\n')
    assert w.newest_line(str(log), tail=64)['newest'] == 'last line'
