# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""vllm_eval action=provenance against a stand-in Docker Engine on a Unix socket: what the container runs,
the CANN version inside it, the node's driver and firmware, and ``unknown`` for what is not there."""

import io
import json
import socketserver
import tarfile
import threading
from http.server import BaseHTTPRequestHandler
from urllib.parse import unquote, urlparse, parse_qs

import pytest

from ansible_collections.ascend.vllm.plugins.modules import vllm_eval
from moduleargs import ExitJson, FailJson, patch_exit_fail, set_module_args as module_args  # noqa: E402,F401 pylint: disable=wrong-import-position,unused-import

HOME = '/usr/local/Ascend/ascend-toolkit/latest'
INSPECT = {'Id': 'c1', 'Image': 'sha256:img', 'Config': {
    'Image': '127.0.0.1:5000/quay.io/ascend/vllm-ascend:v0.23.0-310p', 'Entrypoint': ['/usr/local/bin/entrypoint.sh'],
    'Cmd': ['vllm', 'serve', '/models/Qwen3.5-2B', '--api-key', 'sk-secret', '--port', '8080'],
    'Env': ['ASCEND_TOOLKIT_HOME=' + HOME]}}
IMAGE = {'Id': 'sha256:img', 'Architecture': 'amd64',
         'RepoDigests': ['127.0.0.1:5000/quay.io/ascend/vllm-ascend@sha256:feed']}
FILES = {HOME + '/version.cfg': 'toolkit_running_version=[8.2.0.2.220:8.2.RC2]\n'}


def _tar(text):
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode='w') as archive:
        info = tarfile.TarInfo('f')
        info.size = len(text.encode())
        archive.addfile(info, io.BytesIO(text.encode()))
    return data.getvalue()


class Engine(BaseHTTPRequestHandler):
    """The three GETs the module makes, for one container 'vllm-ascend'."""

    def do_GET(self):  # noqa: N802 pylint: disable=invalid-name
        url = urlparse(self.path)
        path = unquote(url.path)
        if path == '/containers/vllm-ascend/json':
            self._send(200, json.dumps(INSPECT).encode())
        elif path == '/images/sha256:img/json':
            self._send(200, json.dumps(IMAGE).encode())
        elif path == '/containers/vllm-ascend/archive' and parse_qs(url.query)['path'][0] in FILES:
            self._send(200, _tar(FILES[parse_qs(url.query)['path'][0]]))
        else:
            self._send(404, b'{"message": "No such container or path"}')

    def _send(self, status, body):
        self.send_response(status)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def address_string(self):
        return 'unix'

    def log_message(self, *args):  # pylint: disable=arguments-differ
        pass


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


@pytest.fixture
def engine(tmp_path):
    path = str(tmp_path / 'docker.sock')
    server = _Server(path, Engine)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield 'unix://' + path
    server.shutdown()
    server.server_close()


@pytest.fixture
def node_files(tmp_path, monkeypatch):
    driver = tmp_path / 'driver.info'
    driver.write_text('Version=24.1.rc2.2\npackage_version=24.1.rc2.2\n')
    monkeypatch.setattr(vllm_eval, 'DRIVER_VERSION_FILE', str(driver))
    monkeypatch.setattr(vllm_eval, 'FIRMWARE_VERSION_FILE', str(tmp_path / 'no-firmware.info'))
    monkeypatch.setattr(vllm_eval.socket, 'gethostname', lambda: 'atlas-01')


def run(args):
    with module_args(args):
        with pytest.raises(ExitJson) as exc:
            vllm_eval.main()
    return exc.value.args[0]


def test_provenance_reads_the_container_the_image_and_the_node(engine, node_files):
    out = run({'action': 'provenance', 'docker_host': engine,
               'instances': [{'name': 'default', 'port': 8080, 'container_name': 'vllm-ascend', 'api_key': 'x'},
                             {'name': 'gone', 'port': 8081, 'container_name': 'vllm-gone'},
                             {'name': 'bare', 'port': 8082}]})
    assert out['changed'] is False and out['problems'] == []
    assert out['provenance']['node'] == {'hostname': 'atlas-01', 'driver': '24.1.rc2.2', 'firmware': 'unknown'}
    default, gone, bare = out['provenance']['instances']
    assert default == {'instance': 'default', 'container': 'vllm-ascend',
                       'image': '127.0.0.1:5000/quay.io/ascend/vllm-ascend:v0.23.0-310p', 'image_id': 'sha256:img',
                       'digest': 'sha256:feed', 'cann': '8.2.RC2',
                       'argv': ['/usr/local/bin/entrypoint.sh', 'vllm', 'serve', '/models/Qwen3.5-2B', '--api-key',
                                '(hidden)', '--port', '8080']}
    assert 'sk-secret' not in json.dumps(out)
    assert gone['image'] == gone['digest'] == gone['argv'] == gone['cann'] == 'unknown'
    assert gone['note'] == 'no container vllm-gone on the node'
    assert bare['note'] == 'no container name given'


def test_an_engine_that_does_not_answer_leaves_everything_unknown(tmp_path, node_files):
    out = run({'action': 'provenance', 'docker_host': 'unix://%s' % (tmp_path / 'none.sock'),
               'instances': [{'name': 'default', 'port': 8080, 'container_name': 'vllm-ascend'}]})
    (inst,) = out['provenance']['instances']
    assert [inst[k] for k in ('image', 'digest', 'argv', 'cann')] == ['unknown'] * 4
    assert out['provenance']['node']['driver'] == '24.1.rc2.2'


# ------------------------------------------------------------------ progress lines of a run (job_wait shows them)
def test_each_request_that_ends_adds_a_progress_line(tmp_path, monkeypatch):
    progress = tmp_path / 'eval.progress'
    progress.write_text('an older run\n')

    def replies(target, prompts, settings):
        for count in range(1, len(prompts) + 1):
            settings['done'](count, len(prompts))
        return ['#### 1'] * len(prompts), [], 0.1

    def sweep(target, settings):
        for level in settings['concurrency']:
            settings['progress'](level, settings['requests'], settings['requests'])
        return []

    monkeypatch.setattr(vllm_eval, 'accuracy_replies', replies)
    monkeypatch.setattr(vllm_eval, 'performance_sweep', sweep)
    params = {'host': '127.0.0.1', 'max_out_len': 16, 'batch_size': 2, 'timeout': 5, 'concurrency': [1, 4],
              'requests': 3, 'input_len': 8, 'output_len': 8, 'progress_file': str(progress),
              'datasets': {'gsm8k': [{'question': 'q1', 'answer': '#### 1'}, {'question': 'q2', 'answer': '#### 1'}]}}
    progress.write_text('')  # main() empties it when a run starts
    vllm_eval.evaluate(params, {'name': 'default', 'port': 8080, 'served': 'qwen3.5'}, {})
    assert progress.read_text().splitlines() == [
        'default: gsm8k 1/2 answered', 'default: gsm8k 2/2 answered',
        'default: performance at concurrency 1, 3/3 requests done',
        'default: performance at concurrency 4, 3/3 requests done']


def test_the_pool_says_when_each_job_ends():
    from ansible_collections.ascend.vllm.plugins.module_utils.evaluation._eval_client import run_pool
    seen = []
    results, _duration = run_pool(list(range(5)), 3, lambda job: job * 2, lambda count, total: seen.append((count, total)))
    assert results == [0, 2, 4, 6, 8] and seen == [(count, 5) for count in range(1, 6)]
