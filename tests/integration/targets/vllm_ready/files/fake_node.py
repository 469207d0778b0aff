# SPDX-License-Identifier: Apache-2.0
"""A fake node for the vllm_ready target: the Docker Engine API on a unix socket (containers
ready-one, crash-one, slow-one, stopped-one) and a vLLM server on a free TCP port (written to PORT_FILE) that wants
``Authorization: Bearer sk-integration``. Exits by itself after --lifetime seconds."""

import argparse
import json
import os
import socketserver
import struct
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import urlparse

KEY = 'sk-integration'
STARTED = '2026-11-30T22:00:00.000000000Z'
LOAD = ['(EngineCore_DP0 pid=180) INFO 11-30 22:00:01 [model_runner_v1.py:2683] Starting to load model Qwen/Qwen3.5-2B...']
CRASH = LOAD + [
    '(EngineCore_DP0 pid=180) ERROR 11-30 22:00:02 [core.py:708] Traceback (most recent call last):',
    '(EngineCore_DP0 pid=180) ERROR 11-30 22:00:02 [core.py:708] ValueError: max_num_seqs (32) exceeds available '
    'Mamba cache blocks (16)',
    "(APIServer pid=7) RuntimeError: Engine core initialization failed. See root cause above. "
    "Failed core proc(s): {'EngineCore_DP0': 1}"]
CONTAINERS = {
    'ready-one': ('running', False, 0, LOAD + ['(APIServer pid=7) INFO:     Application startup complete.']),
    'crash-one': ('restarting', True, 1, CRASH),
    'slow-one': ('running', False, 0, LOAD),
    'stopped-one': ('exited', False, 0, LOAD),
}


class Docker(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        parts = urlparse(self.path).path.strip('/').split('/')
        if len(parts) != 3 or parts[0] != 'containers' or parts[1] not in CONTAINERS:
            return self.reply(404, b'{"message": "No such container"}')
        status, restarting, code, lines = CONTAINERS[parts[1]]
        if parts[2] == 'json':
            return self.reply(200, json.dumps({
                'State': {'Status': status, 'Restarting': restarting, 'ExitCode': code, 'StartedAt': STARTED},
                'RestartCount': 1 if restarting else 0, 'Config': {'Tty': False}}).encode())
        stamp = '2026-11-30T22:00:01.000000000Z ' if 'timestamps=1' in self.path else ''
        return self.reply(200, b''.join(struct.pack('>BxxxI', 1, len((stamp + l + '\n').encode()))
                                        + (stamp + l + '\n').encode() for l in lines))

    def reply(self, code, body):
        self.send_response(code)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class Vllm(Docker):
    def do_GET(self):
        if self.path == '/health':
            return self.reply(200, b'')
        if self.headers.get('Authorization') != 'Bearer ' + KEY:
            return self.reply(401, b'{"error": "Unauthorized"}')
        return self.reply(200, json.dumps({'object': 'list', 'data': [{'id': 'qwen3.5'}]}).encode())

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers['Content-Length'])))
        if self.headers.get('Authorization') != 'Bearer ' + KEY:
            return self.reply(401, b'{"error": "Unauthorized"}')
        if self.path == '/v1/completions':
            choice = {'index': 0, 'text': ' bright (t=%s)' % body.get('temperature')}
        else:
            choice = {'index': 0, 'message': {'role': 'assistant', 'content': 'top_p=%s' % body.get('top_p')}}
        return self.reply(200, json.dumps({'choices': [choice]}).encode())


class UnixServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True

    def get_request(self):
        return self.socket.accept()[0], ('local', 0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('socket')
    parser.add_argument('port_file', help='where to write the port the server listens on')
    parser.add_argument('--lifetime', type=float, default=120)
    args = parser.parse_args()
    if os.path.exists(args.socket):
        for path in (args.socket, args.port_file):
            os.unlink(path)
    vllm = HTTPServer(('127.0.0.1', 0), Vllm)
    for server in (vllm, UnixServer(args.socket, Docker)):
        threading.Thread(target=server.serve_forever, daemon=True).start()
    with open(args.port_file, 'w') as handle:
        handle.write('%d\n' % vllm.server_address[1])
    try:
        time.sleep(args.lifetime)
    finally:
        for path in (args.socket, args.port_file):
            os.unlink(path)


if __name__ == '__main__':
    main()
