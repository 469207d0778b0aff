# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The one Docker Engine client of the collection's own modules, with the Python standard library only.

The node needs no ``requests`` nor Docker SDK: one HTTP/1.1 connection over the
engine's Unix socket (or plain TCP) per request.  Every module of this collection
that asks the Engine itself (node_facts, vllm_ready, containers_absent,
container_rename, image_pull_wait, diagnose_collect, vllm_eval) goes through
``DockerApi``, with the connection policy of ``engine_host`` (doc fragment
``ascend.vllm.docker_engine``).  Creating containers and pulling or loading
images stay community.docker's modules (``docker_container``'s comparisons).
"""

from __future__ import annotations

import functools
import json
import os
import socket
import struct

from http.client import HTTPConnection
from typing import Any
from urllib.parse import quote, urlencode

from ansible_collections.ascend.vllm.plugins.module_utils._labels import INSTANCE_LABEL, MANAGED_LABEL, MANAGED_VALUE

DEFAULT_HOST = 'unix:///var/run/docker.sock'


def engine_host(docker_host: Any = None, environ: Any = None) -> str:
    """The Engine a module talks to: its docker_host option, else DOCKER_HOST, else the local socket.

    The one connection policy of every module of this collection that asks the node's Engine
    (doc fragment ``ascend.vllm.docker_engine``), as the Docker CLI and community.docker resolve it.
    """
    return docker_host or (os.environ if environ is None else environ).get('DOCKER_HOST') or DEFAULT_HOST


class DockerError(OSError):
    """The engine could not be reached or refused a request; ``status`` is the HTTP status or None.

    An OSError, as a failed connection is: a caller that survives an engine or a file it cannot read catches both
    at once (the readiness wait, the saved log)."""

    def __init__(self, msg, status=None):
        super().__init__(msg)
        self.status = status


class _UnixConnection(HTTPConnection):
    def __init__(self, path, timeout):
        HTTPConnection.__init__(self, 'localhost', timeout=timeout)
        self._socket_path = path

    def connect(self):
        # Kept in self.sock before it connects, so that the connection's close() closes it when connect fails.
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self._socket_path)


class DockerApi:
    """Requests against one Docker Engine (``unix:///path`` or ``tcp://host:port``)."""

    def __init__(self, host=DEFAULT_HOST, timeout=10):
        self.host, self.timeout = host or DEFAULT_HOST, timeout

    def _connection(self):
        if self.host.startswith('unix://'):
            return _UnixConnection(self.host[len('unix://'):], self.timeout)
        if self.host.startswith('tcp://') or self.host.startswith('http://'):
            if os.environ.get('DOCKER_TLS_VERIFY'):
                # A TLS endpoint would answer plain HTTP with a handshake error; say what is wrong instead.
                raise DockerError('docker_host=%s with DOCKER_TLS_VERIFY set: this collection speaks plain HTTP to a '
                                  'tcp:// Engine (no TLS); use the unix socket (unset DOCKER_HOST) or a plain tcp:// '
                                  'endpoint' % self.host)
            return HTTPConnection(self.host.split('://', 1)[1].rstrip('/'), timeout=self.timeout)
        raise DockerError('docker_host=%s is not unix:///path or tcp://host:port' % self.host)

    def request(self, path, method='GET', headers=None):
        """(HTTP status, raw body) of ``method path``; DockerError when the engine cannot be reached."""
        conn, response = self.open_stream(method, path, headers)
        try:
            return response.status, response.read()
        except OSError as exc:
            raise DockerError('cannot connect to the Docker Engine at %s: %s' % (self.host, exc))
        finally:
            conn.close()

    def open_stream(self, method, path, headers=None):
        """(connection, response) of a streamed answer (``POST /images/create``); the caller reads and closes.

        DockerError when the engine cannot be reached."""
        conn = self._connection()
        try:
            conn.request(method, path, headers=dict({'Host': 'docker'}, **(headers or {})))
            return conn, conn.getresponse()
        except OSError as exc:
            conn.close()
            raise DockerError('cannot connect to the Docker Engine at %s: %s' % (self.host, exc))

    def inspect(self, name):
        """``GET /containers/NAME/json`` (``docker inspect``), or None when there is no such container."""
        return inspect_raw(self, name)

    def logs(self, name, since=None, tail=None, timestamps=False, tty=False):
        """The text of ``docker logs NAME`` (stdout and stderr), demultiplexed unless the container has a TTY."""
        params = {'stdout': 1, 'stderr': 1, 'timestamps': int(bool(timestamps)), 'since': since,
                  'tail': None if tail is None else int(tail)}
        status, body = self.request('/containers/%s/logs?%s' % (
            quote(name, safe=''), urlencode({key: value for key, value in params.items() if value is not None})))
        if status >= 400:
            raise DockerError('reading the log of %s answered HTTP %d: %s'
                              % (name, status, body[:300].decode('utf-8', 'replace')), status)
        return demux(body, tty)

    def _json(self, method, path):
        """The decoded JSON body (None when empty) of ``method path`` without a body; DockerError on any failure."""
        status, body = self.request(path, method)
        text = body.decode('utf-8', 'replace')
        if status >= 400:
            raise DockerError('%s %s: HTTP %d: %s' % (method, path, status, error_detail(text)), status)
        try:
            return json.loads(text) if text.strip() else None
        except ValueError:
            raise DockerError('%s %s: the answer is not JSON: %r' % (method, path, text[:200]))

    get = functools.partialmethod(_json, 'GET')
    post = functools.partialmethod(_json, 'POST')
    delete = functools.partialmethod(_json, 'DELETE')


def error_detail(text):
    """The Engine's ``message`` of an error answer's JSON body, else the body's text."""
    try:
        return str(json.loads(text).get('message', text)).strip()
    except (ValueError, AttributeError):
        return text.strip()


def unless_missing(call, path, missing=None):
    """``call(path)``, or ``missing`` when the Engine answers 404 (no such container or image)."""
    try:
        return call(path)
    except DockerError as exc:
        if exc.status == 404:
            return missing
        raise


def demux(data: bytes, tty: bool) -> str:
    """The text of a ``/logs`` answer: raw for a TTY container, else Docker's
    multiplexed frames (8-byte header: stream, 0, 0, 0, big-endian size)."""
    if tty:
        return data.decode('utf-8', 'replace')
    out, pos = [], 0
    while pos + 8 <= len(data):
        size = struct.unpack('>I', data[pos + 4:pos + 8])[0]
        out.append(data[pos + 8:pos + 8 + size])
        pos += 8 + size
    return b''.join(out).decode('utf-8', 'replace')


def _names(summary):
    return [name.lstrip('/') for name in summary.get('Names') or []]


def container_summary(summary):
    """The fields of one /containers/json entry that preflight reads."""
    names = _names(summary)
    return {'name': names[0] if names else '?', 'id': summary.get('Id'), 'image': summary.get('Image'),
            'state': summary.get('State'), 'status': summary.get('Status'),
            'ports': sorted(set(p['PublicPort'] for p in summary.get('Ports') or [] if p.get('PublicPort'))),
            'labels': summary.get('Labels') or {}}


def inspect_container(api, name):
    """The fields of container ``name``'s inspect that preflight reads, with the pids of its top;
    ``{'exists': False}`` when there is none."""
    inspect = inspect_raw(api, name)
    if inspect is None:
        return {'exists': False}
    state = inspect.get('State') or {}
    host_config = inspect.get('HostConfig') or {}
    return {
        'exists': True, 'id': inspect.get('Id'), 'running': bool(state.get('Running')),
        'restarting': bool(state.get('Restarting')), 'restart_count': inspect.get('RestartCount', 0),
        'status': state.get('Status'), 'exit_code': state.get('ExitCode'), 'started_at': state.get('StartedAt'),
        # The image id the container runs (a later pull under the same tag gives another).
        'image_id': inspect.get('Image'),
        'labels': (inspect.get('Config') or {}).get('Labels') or {},
        'devices': [d.get('PathOnHost') for d in host_config.get('Devices') or []],
        # "8080/tcp" -> "8080", as the port list of a running instance.
        'ports': sorted(key.split('/')[0] for key in host_config.get('PortBindings') or {}),
        'pids': top_pids(api, name) if state.get('Running') else [],
    }


def top_pids(api, name):
    """Host pids of a running container's processes, as `docker top NAME -eo pid` lists them."""
    try:
        top = api.get('/containers/%s/top?ps_args=%s' % (quote(name, safe=''), quote('-eo pid'))) or {}
    except DockerError:
        return []
    titles = top.get('Titles') or []
    column = titles.index('PID') if 'PID' in titles else 0
    values = [str(row[column]).strip() for row in top.get('Processes') or [] if len(row) > column]
    return [int(value) for value in values if value.isdigit()]


def managed_containers(api):
    """Every container of ours on the node, stopped ones too: ``[{name, id, state, labels}]``."""
    listed = api.get('/containers/json?' + urlencode({'all': 1, 'filters': json.dumps(
        {'label': ['%s=%s' % (MANAGED_LABEL, MANAGED_VALUE)]})})) or []
    return [{'name': _names(c)[0], 'id': c.get('Id'), 'state': c.get('State'), 'labels': c.get('Labels') or {}}
            for c in listed if _names(c)]


def remove_container(api, name, stop_timeout):
    """``docker stop -t STOP_TIMEOUT NAME`` then ``docker rm -f NAME``: True when it was removed, False when there
    was none.  DockerError when the Engine refuses."""
    path = '/containers/%s' % quote(name, safe='')
    for call, target in ((api.post, '%s/stop?t=%d' % (path, int(stop_timeout))), (api.delete, path + '?force=1')):
        if unless_missing(call, target, False) is False:
            return False
    return True


def inspect_raw(api, name):
    """The ``docker inspect`` of container ``name``, or None when there is none."""
    return unless_missing(api.get, '/containers/%s/json' % quote(name, safe=''))


def rename_container(api, name, new_name):
    """Rename container ``name`` to ``new_name`` (``docker rename``); DockerError when refused."""
    api.post('/containers/%s/rename?name=%s' % (quote(name, safe=''), quote(new_name, safe='')))


def image_config(api, ref):
    """``{id, env, architecture}`` of image ``ref`` (its own ``Config.Env`` and ``Architecture``, what a
    container of it starts with); None when the node has no such image."""
    inspect = unless_missing(api.get, '/images/%s/json' % quote(ref, safe=''))
    return None if inspect is None else inspect_config(inspect)


def inspect_config(inspect):
    """``{id, env, architecture}`` of an image's inspect output (the Engine's, or docker_image_pull's ``image``)."""
    return {'id': inspect.get('Id'), 'env': list((inspect.get('Config') or {}).get('Env') or []),
            'architecture': str(inspect.get('Architecture') or '')}


def engine_facts(api, container_names, image_refs=()):
    """What preflight needs from the engine: version, data root, images, containers, and the own configuration
    of each reference of ``image_refs`` the node has (``image_configs``).

    Never raises: an engine that cannot be asked gives ``reachable: false`` and ``error``.
    """
    out = {'reachable': False, 'error': None, 'version': None, 'api_version': None, 'root_dir': None,
           'images': [], 'image_ids': {}, 'image_configs': {}, 'containers': [], 'inspected': {}}
    try:
        info = api.get('/info') or {}
        version = api.get('/version') or {}
        images = api.get('/images/json') or []
        # Running and restarting containers: a port they publish is taken.
        containers = api.get('/containers/json') or []
        # Every running instance container of ours too: one the plan no longer has is removed first, and its
        # chips, port and memory are judged as ours (plugin_utils/plan/_node.unplanned).
        ours = [_names(c)[0] for c in containers if _names(c) and (c.get('Labels') or {}).get(MANAGED_LABEL) == MANAGED_VALUE
                and (c.get('Labels') or {}).get(INSTANCE_LABEL)]
        inspected = dict((name, inspect_container(api, name)) for name in sorted(set(container_names) | set(ours)))
        configs = dict((ref, image_config(api, ref)) for ref in image_refs)
    except DockerError as exc:
        return dict(out, error=str(exc))
    ids = dict((tag, image.get('Id')) for image in images for tag in image.get('RepoTags') or []
               if tag and tag != '<none>:<none>')
    out.update(reachable=True, version=info.get('ServerVersion') or version.get('Version'),
               api_version=version.get('ApiVersion'), root_dir=info.get('DockerRootDir'),
               images=sorted(ids), image_ids=ids, containers=[container_summary(c) for c in containers],
               image_configs=dict((ref, found) for ref, found in configs.items() if found),
               inspected=inspected)
    return out
