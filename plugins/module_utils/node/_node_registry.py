# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""What a registry says an image tag points to, asked from the node (where the pull happens).

A HEAD (then, for an index, a GET) of ``/v2/<repository>/manifests/<tag>`` with the
Accept headers Docker sends, following the anonymous bearer-token challenge a public
registry answers with.  HTTPS first, plain HTTP when the registry does not speak TLS
(a local registry Docker is told is insecure).  Read-only; nothing is pulled.
"""

from __future__ import annotations

import hashlib
import json
import re

from urllib.error import HTTPError
from urllib.parse import urlencode
from ansible.module_utils.urls import open_url

from ansible_collections.ascend.vllm.plugins.module_utils._image import parse

# What Docker accepts for a manifest: OCI index/manifest, Docker list/manifest v2.
ACCEPT = ', '.join((
    'application/vnd.oci.image.index.v1+json',
    'application/vnd.docker.distribution.manifest.list.v2+json',
    'application/vnd.oci.image.manifest.v1+json',
    'application/vnd.docker.distribution.manifest.v2+json',
))
_INDEX_TYPES = ('application/vnd.oci.image.index.v1+json', 'application/vnd.docker.distribution.manifest.list.v2+json')


def _headers(response):
    info = response.info() if hasattr(response, 'info') else response.headers
    return dict((key.lower(), value) for key, value in info.items())


def _open(url, method, headers, timeout):
    """(status, headers, body) of one request; HTTP errors are answers, not exceptions."""
    try:
        response = open_url(url, method=method, headers=headers, timeout=timeout, follow_redirects='all',
                            validate_certs=True, use_proxy=True)
        return response.getcode(), _headers(response), response.read() if method == 'GET' else b''
    except HTTPError as exc:
        return exc.code, _headers(exc), b''


def _token(challenge, fetch, timeout):
    """An anonymous bearer token for a 'Bearer realm=...,service=...,scope=...' challenge, or None."""
    fields = dict(re.findall(r'(\w+)="([^"]*)"', challenge or ''))
    if not challenge or not challenge.lower().startswith('bearer') or 'realm' not in fields:
        return None
    query = urlencode(dict((key, fields[key]) for key in ('service', 'scope') if key in fields))
    status, _headers_, body = fetch(fields['realm'] + ('?' + query if query else ''), 'GET', {}, timeout)
    if status != 200:
        return None
    try:
        data = json.loads(body.decode('utf-8') if isinstance(body, bytes) else body)
    except ValueError:
        return None
    return data.get('token') or data.get('access_token')


def _ask(url, method, timeout, fetch):
    headers = {'Accept': ACCEPT}
    status, answer, body = fetch(url, method, headers, timeout)
    if status == 401:
        token = _token(answer.get('www-authenticate'), fetch, timeout)
        if token:
            headers['Authorization'] = 'Bearer ' + token
            status, answer, body = fetch(url, method, headers, timeout)
    return status, answer, body


def tag_digest(ref, timeout=10, fetch=_open):
    """{ref, digest, children, status, error}: the digest the registry gives the tag of ``ref``
    and, when that is an index (several platforms), the digests it lists."""
    out = {'ref': ref, 'digest': None, 'children': [], 'status': None, 'error': None}
    registry, repository, tag = parse(ref).registry_parts()
    if not tag:
        return dict(out, error='no tag in %s' % ref)
    errors = []
    for scheme in ('https', 'http'):
        url = '%s://%s/v2/%s/manifests/%s' % (scheme, registry, repository, tag)
        try:
            status, answer, _body = _ask(url, 'HEAD', timeout, fetch)
            if status == 200 and (answer.get('content-type') or '').split(';')[0] in _INDEX_TYPES:
                status, answer, body = _ask(url, 'GET', timeout, fetch)
                data = json.loads(body.decode('utf-8') if isinstance(body, bytes) else body or '{}')
                out['children'] = [item.get('digest') for item in data.get('manifests') or [] if item.get('digest')]
        except (OSError, ValueError) as exc:
            errors.append('%s: %s' % (scheme, getattr(exc, 'reason', exc)))
            continue
        out.update(status=status, digest=answer.get('docker-content-digest') if status == 200 else None)
        if status == 200 and not out['digest']:
            # No digest header: the digest is the sha256 of the manifest as served.
            status, answer, body = _ask(url, 'GET', timeout, fetch)
            out['digest'] = 'sha256:' + hashlib.sha256(body or b'').hexdigest() if status == 200 else None
        if status != 200:
            out['error'] = 'HTTP %s from %s' % (status, url)
        return out
    out['error'] = '; '.join(str(item) for item in errors)
    return out
