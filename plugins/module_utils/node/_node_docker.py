# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Questions to the Docker Engine API, with the Python standard library only.

The node needs no ``requests`` nor Docker SDK: one HTTP/1.1 connection over the
engine's Unix socket (or plain TCP) per request.  Every function here only reads
(``GET``); ``DockerApi.post`` is for the modules that change a container
(container_rename), which call it themselves.
"""

from __future__ import annotations

import json
import os
import socket

from http.client import HTTPConnection
from typing import Any
from urllib.parse import quote

DEFAULT_HOST = 'unix:///var/run/docker.sock'


def engine_host(docker_host: Any = None, environ: Any = None) -> str:
    """The Engine a module talks to: its docker_host option, else DOCKER_HOST, else the local socket.

    The one connection policy of every module of this collection that asks the node's Engine
    (doc fragment ``ascend.vllm.docker_engine``), as the Docker CLI and community.docker resolve it.
    """
    environ = os.environ if environ is None else environ
    return docker_host or environ.get('DOCKER_HOST') or DEFAULT_HOST


# Label that marks the containers this collection created (container_run sets it).
MANAGED_LABEL = 'ascend.vllm.managed-by'
# The instance a container of ours runs (serve/_container_spec.labels writes both).
INSTANCE_LABEL = 'ascend.vllm.instance'


class DockerError(Exception):
    """The engine could not be reached or refused a request; ``status`` is the HTTP status or None."""

    def __init__(self, msg, status=None):
        super(DockerError, self).__init__(msg)
        self.status = status


class _UnixConnection(HTTPConnection):
    def __init__(self, path, timeout):
        HTTPConnection.__init__(self, 'localhost', timeout=timeout)
        self._socket_path = path

    def connect(self):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        try:
            sock.connect(self._socket_path)
        except Exception:
            sock.close()
            raise
        self.sock = sock


class DockerApi(object):
    """Requests against one Docker Engine (``unix:///path`` or ``tcp://host:port``)."""

    def __init__(self, host=DEFAULT_HOST, timeout=10):
        self.host = host or DEFAULT_HOST
        self.timeout = timeout

    def _connection(self):
        if self.host.startswith('unix://'):
            return _UnixConnection(self.host[len('unix://'):], self.timeout)
        if self.host.startswith('tcp://') or self.host.startswith('http://'):
            hostport = self.host.split('://', 1)[1].rstrip('/')
            return HTTPConnection(hostport, timeout=self.timeout)
        raise DockerError('docker_host=%s is not unix:///path or tcp://host:port' % self.host)

    def request(self, path, method='GET'):
        """(HTTP status, raw body) of ``method path``; DockerError when the engine cannot be reached."""
        conn = self._connection()
        try:
            conn.request(method, path, headers={'Host': 'docker'})
            response = conn.getresponse()
            return response.status, response.read()
        except (OSError, socket.error, IOError) as exc:
            raise DockerError('cannot connect to the Docker Engine at %s: %s' % (self.host, exc))
        finally:
            conn.close()

    def get(self, path):
        """The decoded JSON body of GET ``path``; DockerError on any failure."""
        return self._json('GET', path)

    def post(self, path):
        """The decoded JSON body (None when empty) of POST ``path`` without a body; DockerError on any failure."""
        return self._json('POST', path)

    def _json(self, method, path):
        status, body = self.request(path, method)
        text = body.decode('utf-8', 'replace')
        if status >= 400:
            try:
                detail = json.loads(text).get('message', text)
            except (ValueError, AttributeError):
                detail = text
            raise DockerError('%s %s: HTTP %d: %s' % (method, path, status, detail.strip()), status)
        try:
            return json.loads(text) if text.strip() else None
        except ValueError:
            raise DockerError('%s %s: the answer is not JSON: %r' % (method, path, text[:200]))


def _names(summary):
    return [name.lstrip('/') for name in summary.get('Names') or []]


def container_summary(summary):
    """The fields of one /containers/json entry that preflight reads."""
    names = _names(summary)
    return {
        'name': names[0] if names else '?',
        'id': summary.get('Id'),
        'image': summary.get('Image'),
        'state': summary.get('State'),
        'status': summary.get('Status'),
        'ports': sorted(set(p['PublicPort'] for p in summary.get('Ports') or [] if p.get('PublicPort'))),
        'labels': summary.get('Labels') or {},
    }


def container_details(inspect, pids):
    """The fields of one container inspect that preflight reads; ``pids`` from its top."""
    state = inspect.get('State') or {}
    host_config = inspect.get('HostConfig') or {}
    config = inspect.get('Config') or {}
    return {
        'exists': True,
        'id': inspect.get('Id'),
        'running': bool(state.get('Running')),
        'restarting': bool(state.get('Restarting')),
        'restart_count': inspect.get('RestartCount', 0),
        'status': state.get('Status'),
        'exit_code': state.get('ExitCode'),
        'started_at': state.get('StartedAt'),
        # The image id the container runs (a later pull under the same tag gives another).
        'image_id': inspect.get('Image'),
        'labels': config.get('Labels') or {},
        'devices': [d.get('PathOnHost') for d in host_config.get('Devices') or []],
        # "8080/tcp" -> "8080", as the port list of a running instance.
        'ports': sorted(key.split('/')[0] for key in host_config.get('PortBindings') or {}),
        'pids': pids,
    }


def _top_pids(api, name):
    """Host pids of a running container's processes, as `docker top NAME -eo pid` lists them."""
    try:
        top = api.get('/containers/%s/top?ps_args=%s' % (quote(name, safe=''), quote('-eo pid'))) or {}
    except DockerError:
        return []
    titles = top.get('Titles') or []
    column = titles.index('PID') if 'PID' in titles else 0
    pids = []
    for row in top.get('Processes') or []:
        value = str(row[column]).strip() if len(row) > column else ''
        if value.isdigit():
            pids.append(int(value))
    return pids


def inspect_raw(api, name):
    """The ``docker inspect`` of container ``name``, or None when there is none."""
    try:
        return api.get('/containers/%s/json' % quote(name, safe=''))
    except DockerError as exc:
        if exc.status == 404:
            return None
        raise


def rename_container(api, name, new_name):
    """Rename container ``name`` to ``new_name`` (``docker rename``); DockerError when refused."""
    api.post('/containers/%s/rename?name=%s' % (quote(name, safe=''), quote(new_name, safe='')))


def inspect_container(api, name):
    """Details of container ``name``; ``{'exists': False}`` when there is none."""
    try:
        inspect = api.get('/containers/%s/json' % quote(name, safe=''))
    except DockerError as exc:
        if exc.status == 404:
            return {'exists': False}
        raise
    running = bool((inspect.get('State') or {}).get('Running'))
    return container_details(inspect, _top_pids(api, name) if running else [])


def image_config(api, ref):
    """``{id, env, architecture}`` of image ``ref`` (its own ``Config.Env`` and ``Architecture``, what a
    container of it starts with); None when the node has no such image."""
    try:
        inspect = api.get('/images/%s/json' % quote(ref, safe='')) or {}
    except DockerError as exc:
        if exc.status == 404:
            return None
        raise
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
        ours = [_names(c)[0] for c in containers if _names(c) and (c.get('Labels') or {}).get(MANAGED_LABEL) == 'ascend.vllm'
                and (c.get('Labels') or {}).get(INSTANCE_LABEL)]
        inspected = dict((name, inspect_container(api, name)) for name in sorted(set(container_names) | set(ours)))
        configs = dict((ref, image_config(api, ref)) for ref in image_refs)
    except DockerError as exc:
        out['error'] = str(exc)
        return out
    tags = []
    ids = {}
    for image in images:
        for tag in image.get('RepoTags') or []:
            if tag and tag != '<none>:<none>':
                tags.append(tag)
                ids[tag] = image.get('Id')
    out.update(reachable=True, version=info.get('ServerVersion') or version.get('Version'),
               api_version=version.get('ApiVersion'), root_dir=info.get('DockerRootDir'),
               images=sorted(set(tags)), image_ids=ids, containers=[container_summary(c) for c in containers],
               image_configs=dict((ref, found) for ref, found in configs.items() if found),
               inspected=inspected)
    return out
