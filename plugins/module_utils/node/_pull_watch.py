# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""On the node: wait a while for a background image pull, and say how far it got.

The pull itself is community.docker's ``docker_image_pull``, run as an Ansible
async job; its result lands in the job's results file.  While it runs, this
module asks the Docker Engine for the same image (``POST /images/create``): the
Engine shares the layer downloads of concurrent pulls of one image, so that
request joins the running pull instead of starting another, and its stream
reports each layer's status and bytes (``progressDetail``).  Closing it leaves
the job's pull running (measured on Docker Engine 20.10: a pull joined and left
after 3 s ended as fast as one alone, its byte counts never went back).

The stream is read with the standard library over the Engine's socket
(``_node_docker``); community.docker's module utils are private from its 5.0.0 on.
Registry credentials come from the Docker client's ``config.json`` ``auths``
(what ``docker login`` and community.docker.docker_login write); a credential
helper is not asked, and a registry that then refuses only costs the layer
figures of the progress line, never the pull.
"""

from __future__ import annotations

import base64
import contextlib
import glob
import json
import os
import re
import socket
import threading
import time
from typing import Any, Callable, Dict, Iterable, Optional

from ansible_collections.ascend.vllm.plugins.module_utils._diff import file_size
from ansible_collections.ascend.vllm.plugins.module_utils._image import parse
from ansible_collections.ascend.vllm.plugins.module_utils.node._node_docker import DockerApi, error_detail

from http.client import HTTPException
from urllib.parse import urlencode

# Seconds between two looks at the job's results file.
POLL_INTERVAL = 0.2
# Layer statuses of the Engine's pull stream (``POST /images/create``), by what they mean for the pull.
LAYER_DONE = ('Already exists', 'Pull complete')
LAYER_DOWNLOADED = ('Verifying Checksum', 'Download complete', 'Extracting', 'Pull complete')
LAYER_STATUSES = ('Pulling fs layer', 'Waiting', 'Downloading', 'Retrying', 'Verifying Checksum',
                  'Download complete', 'Extracting', 'Pull complete', 'Already exists')


def job_answer(text: Optional[str]) -> Optional[Dict[str, Any]]:
    """The async job's final result from its results file's text, or None while it runs.

    The job first writes ``{"started": 1, "finished": 0, ...}``; its final content is
    the module's result (or the wrapper's failure), without ``started``.
    """
    try:
        data = json.loads(text or '')
    except ValueError:
        return None  # not written yet (the wrapper renames a complete file into place)
    return data if isinstance(data, dict) and not (data.get('started') and not data.get('finished')) else None


def fold_pull(events: Iterable[Dict[str, Any]],
              layers: Optional[Dict[str, Dict[str, Any]]] = None) -> Dict[str, Any]:
    """The state of a pull from its stream's events, which say per layer ``{"status": ..., "progressDetail":
    {"current": N, "total": M}, "id": LAYER}``: ``{layers: {id: {status, current, total}}, status, error}``, the
    newest status of each layer; ``layers`` continues an earlier fold."""
    state: Dict[str, Any] = {'layers': dict(layers or {}), 'status': '', 'error': ''}
    for event in events:
        if not isinstance(event, dict):
            continue
        status, layer = str(event.get('status') or ''), event.get('id')
        if event.get('error'):
            state['error'] = str(event.get('error'))
        elif layer and status in LAYER_STATUSES:
            before = state['layers'].get(layer, {})
            detail = event.get('progressDetail') or {}
            total = detail.get('total') or before.get('total') or 0
            current = detail.get('current', before.get('current', 0) if status == before.get('status') else 0)
            state['layers'][layer] = {'status': status, 'current': int(current or 0), 'total': int(total or 0)}
        elif status.startswith('Status: ') or status.startswith('Digest: '):
            state['status'] = status
    return state


def registry_auth(registry: str, config: Optional[Dict[str, Any]]) -> Optional[str]:
    """The ``X-Registry-Auth`` header for ``registry`` from a Docker ``config.json`` (None: no entry)."""
    auths = (config or {}).get('auths') or {}
    server = registry or 'https://index.docker.io/v1/'
    for key in (server, 'https://' + server, 'http://' + server, 'https://%s/v1/' % server):
        entry = auths[key] if isinstance(auths.get(key), dict) else {}
        body = {'serveraddress': server}
        if entry.get('identitytoken'):
            body['identitytoken'] = entry['identitytoken']
        elif entry.get('auth'):
            try:
                user, _sep, password = base64.b64decode(entry['auth']).decode('utf-8').partition(':')
            except (ValueError, TypeError, UnicodeDecodeError):
                continue
            body.update(username=user, password=password)
        else:
            continue
        return base64.urlsafe_b64encode(json.dumps(body).encode('utf-8')).decode('ascii')
    return None


def read_docker_config(environ: Optional[Dict[str, str]] = None) -> Optional[Dict[str, Any]]:
    """The Docker client's ``config.json`` ($DOCKER_CONFIG or ~/.docker), None when absent or unreadable."""
    environ = os.environ if environ is None else environ
    folder = environ.get('DOCKER_CONFIG') or os.path.join(os.path.expanduser('~'), '.docker')
    try:
        with open(os.path.join(folder, 'config.json')) as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


class PullObserver:
    """Reads the Engine's pull stream for one image in a background thread; ``snapshot()`` is the fold so far."""

    def __init__(self, api: DockerApi, ref: str, auth: Optional[str] = None) -> None:
        self.api, self.ref, self.auth = api, ref, auth
        self.lock = threading.Lock()
        self.state: Dict[str, Any] = fold_pull([])
        self.connection: Any = None
        self.thread: Optional[threading.Thread] = None
        self.stopped = False

    def start(self) -> None:
        self.thread = threading.Thread(target=self._read, name='pull-observer', daemon=True)
        self.thread.start()

    def _read(self) -> None:
        _registry, repository, tag = parse(self.ref).engine_parts()
        headers = {'X-Registry-Auth': self.auth} if self.auth else {}
        try:
            self.connection, response = self.api.open_stream(
                'POST', '/images/create?' + urlencode({'fromImage': repository, 'tag': tag}), headers)
            if response.status >= 400:
                text = response.read().decode('utf-8', 'replace')
                self._fold([{'error': 'HTTP %d: %s' % (response.status, error_detail(text))}])
                return
            for line in iter(response.readline, b''):
                with contextlib.suppress(ValueError):
                    self._fold([json.loads(line.decode('utf-8', 'replace'))])
        except (OSError, HTTPException, ValueError, AttributeError) as exc:
            if not self.stopped:  # not ended by stop()
                self._fold([{'error': str(exc)}])

    def _fold(self, events):
        with self.lock:
            state = fold_pull(events, self.state['layers'])
            self.state = {'layers': state['layers'], 'status': state['status'] or self.state['status'],
                          'error': state['error'] or self.state['error']}

    def snapshot(self) -> Dict[str, Any]:
        with self.lock:
            return dict(self.state, layers=dict(self.state['layers']))

    def stop(self) -> None:
        """Leave the pull: the Engine keeps it running for the job, which holds it too."""
        self.stopped = True
        connection, self.connection = self.connection, None
        # Ends the reader's blocking read (none when it has not connected yet); the connection closes with the process.
        with contextlib.suppress(AttributeError, OSError):
            connection.sock.shutdown(socket.SHUT_RDWR)


def watch_pull(read_job: Callable[[], Optional[Dict[str, Any]]], observer: Any, seconds: float,
               clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep,
               poll: float = POLL_INTERVAL) -> Dict[str, Any]:
    """Look at the job every ``poll`` seconds for at most ``seconds``: ``{finished, answer, progress, seconds}``.

    ``observer`` (start/snapshot/stop, or None) is started only when the job has not ended at the first look.
    """
    start = clock()
    answer = read_job()
    started = False
    try:
        while answer is None and clock() - start < seconds:
            if observer is not None and not started:
                observer.start()
                started = True
            sleep(max(0.0, min(poll, seconds - (clock() - start))))
            answer = read_job()
    finally:
        if started:
            observer.stop()
    return {'finished': answer is not None, 'answer': answer, 'progress': observer.snapshot() if started else None,
            'seconds': round(clock() - start, 3)}


def archive_read(path: str, proc: str = '/proc') -> Dict[str, Any]:
    """How far a `docker load` has read its archive: ``{archive, size, read}``.

    community.docker's docker_image_load sends the archive as the body of ``POST /images/load`` from an open file;
    that file's offset (``pos`` in ``/proc/PID/fdinfo/FD`` of the process holding it) is how many bytes the Engine
    has been sent. ``read`` is the largest offset of any process that has the archive open, None when none has
    (not yet opened, or already sent and closed while the Engine registers the layers).
    """
    real = os.path.realpath(path)
    offsets = []
    # A process that is gone, or not ours to read, lists no fd here or fails the readlink.
    for link in glob.glob(os.path.join(proc, '[0-9]*', 'fd', '*')):
        fds, fd = os.path.split(link)
        with contextlib.suppress(OSError):
            if os.readlink(link) == real:
                with open(os.path.join(os.path.dirname(fds), 'fdinfo', fd)) as handle:
                    offsets += [int(pos) for pos in re.findall(r'^pos:\s*(\d+)', handle.read(), re.M)]
    return {'archive': path, 'size': file_size(real), 'read': max(offsets) if offsets else None}


def newest_line(path: str, tail: int = 8192) -> Dict[str, Any]:
    """``{log, size, newest}``: a job's log file, its size and its last line that is not blank (None while the file
    does not exist or holds none). Only the last ``tail`` bytes are read; a carriage return ends a line too (pip's
    and ninja's progress bars rewrite one line)."""
    try:
        with open(path, 'rb') as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - tail))
            text = handle.read().decode('utf-8', 'replace')
    except OSError:
        return {'log': path, 'size': None, 'newest': None}
    lines = [line.strip() for line in text.replace('\r', '\n').split('\n') if line.strip()]
    return {'log': path, 'size': size, 'newest': lines[-1] if lines else None}


class FileObserver:
    """watch_pull's observer of a file (``archive_read`` of a `docker load`'s archive, ``newest_line`` of a job's
    log): nothing to start or stop, ``look()`` when asked."""

    def __init__(self, look: Callable[[], Dict[str, Any]]) -> None:
        self.snapshot = look

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass
