# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""What a registry says a tag points to: HEAD with Docker's Accept headers, token challenge, index, HTTP fallback."""

import hashlib
import json

from ansible_collections.ascend.vllm.plugins.module_utils.node._node_registry import tag_digest

DIGEST = 'sha256:' + 'a' * 64
CHILD = 'sha256:' + 'b' * 64
INDEX = 'application/vnd.oci.image.index.v1+json'


class Registry(object):
    """A fake registry: answers by (method, url), records what was asked."""

    def __init__(self, answers):
        self.answers = answers
        self.asked = []

    def __call__(self, url, method, headers, timeout):
        self.asked.append((method, url, dict(headers)))
        answer = self.answers.get((method, url))
        if isinstance(answer, Exception):
            raise answer
        return answer or (404, {}, b'')


def test_the_digest_header_of_a_head_is_the_answer():
    url = 'https://r:5000/v2/a/b/manifests/v1'
    registry = Registry({('HEAD', url): (200, {'docker-content-digest': DIGEST,
                                               'content-type': 'application/vnd.docker.distribution.manifest.v2+json'},
                                         b'')})
    out = tag_digest('r:5000/a/b:v1', fetch=registry)
    assert (out['digest'], out['status'], out['error']) == (DIGEST, 200, None)
    assert 'application/vnd.docker.distribution.manifest.v2+json' in registry.asked[0][2]['Accept']
    assert INDEX in registry.asked[0][2]['Accept']


def test_plain_http_when_the_registry_does_not_speak_tls():
    url = 'http://r:5000/v2/a/b/manifests/v1'
    registry = Registry({('HEAD', 'https://r:5000/v2/a/b/manifests/v1'): IOError('wrong version number'),
                         ('HEAD', url): (200, {'docker-content-digest': DIGEST}, b'')})
    assert tag_digest('r:5000/a/b:v1', fetch=registry)['digest'] == DIGEST


def test_an_anonymous_token_is_fetched_on_a_bearer_challenge():
    url = 'https://quay.io/v2/a/b/manifests/v1'
    challenge = 'Bearer realm="https://quay.io/v2/auth",service="quay.io",scope="repository:a/b:pull"'
    answers = {('HEAD', url): (401, {'www-authenticate': challenge}, b''),
               ('GET', 'https://quay.io/v2/auth?service=quay.io&scope=repository%3Aa%2Fb%3Apull'):
                   (200, {}, json.dumps({'token': 't0k'}).encode())}
    calls = []

    def fetch(target, method, headers, timeout):
        calls.append(dict(headers))
        if target == url and headers.get('Authorization') == 'Bearer t0k':
            return 200, {'docker-content-digest': DIGEST}, b''
        return answers.get((method, target)) or (404, {}, b'')

    assert tag_digest('quay.io/a/b:v1', fetch=fetch)['digest'] == DIGEST
    assert calls[-1]['Authorization'] == 'Bearer t0k'


def test_an_index_lists_its_platform_manifests():
    url = 'https://r.io/v2/a/b/manifests/v1'
    body = json.dumps({'manifests': [{'digest': CHILD}]}).encode()
    registry = Registry({('HEAD', url): (200, {'docker-content-digest': DIGEST, 'content-type': INDEX}, b''),
                         ('GET', url): (200, {'docker-content-digest': DIGEST, 'content-type': INDEX}, body)})
    out = tag_digest('r.io/a/b:v1', fetch=registry)
    assert (out['digest'], out['children']) == (DIGEST, [CHILD])


def test_without_a_digest_header_the_manifest_is_hashed():
    url = 'https://r.io/v2/a/b/manifests/v1'
    body = b'{"schemaVersion": 2}'
    registry = Registry({('HEAD', url): (200, {}, b''), ('GET', url): (200, {}, body)})
    assert tag_digest('r.io/a/b:v1', fetch=registry)['digest'] == 'sha256:' + hashlib.sha256(body).hexdigest()


def test_no_such_tag_and_no_answer_are_reported_not_raised():
    missing = tag_digest('r.io/a/b:v9', fetch=Registry({}))
    assert (missing['digest'], missing['status']) == (None, 404) and 'HTTP 404' in missing['error']
    down = tag_digest('r.io/a/b:v1', fetch=Registry({
        ('HEAD', 'https://r.io/v2/a/b/manifests/v1'): IOError('refused'),
        ('HEAD', 'http://r.io/v2/a/b/manifests/v1'): IOError('refused')}))
    assert down['digest'] is None and down['status'] is None and 'refused' in down['error']
    assert tag_digest('r.io/a/b', fetch=Registry({}))['error'] == 'no tag in r.io/a/b'
