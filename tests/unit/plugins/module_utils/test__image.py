# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The one reader of image references: generated references read back into the parts they were made of."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from ansible_collections.ascend.vllm.plugins.module_utils._image import (
    DOCKER_HUB, ImageRef, parse, tag_of, written_tag)

_ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789'
_component = st.text(_ALNUM, min_size=1, max_size=8).flatmap(
    lambda head: st.sampled_from(['', '-x', '_y', '.z']).map(lambda tail: head + tail))
_host = st.one_of(
    st.lists(st.text(_ALNUM, min_size=1, max_size=6), min_size=2, max_size=3).map('.'.join),  # quay.io
    st.just('localhost'),
    st.text(_ALNUM, min_size=1, max_size=6).map(lambda h: h.upper() if h.isalpha() else h + '.lan'))
_registry = st.one_of(st.just(''), st.tuples(_host, st.one_of(st.just(''), st.integers(1, 65535).map(':{}'.format)))
                      .map(''.join))
_tag = st.one_of(st.just(''), st.from_regex(r'\A[A-Za-z0-9_][A-Za-z0-9_.-]{0,20}\Z'))
_digest = st.one_of(st.just(''), st.text('0123456789abcdef', min_size=64, max_size=64).map('sha256:'.__add__))


@st.composite
def references(draw):
    registry = draw(_registry)
    components = draw(st.lists(_component, min_size=1, max_size=3))
    if not registry and len(components) > 1:
        # Docker reads a first component with a dot as the registry ("0.z/x"): without one, it has none.
        components[0] = components[0].replace('.', '_')
    repository = '/'.join(components)
    return ImageRef(registry, repository, draw(_tag), draw(_digest))


@given(references())
def test_a_reference_reads_back_into_its_parts(ref):
    text = str(ref)
    assert parse(text) == ref, text
    assert written_tag(text) == (ref.tag or None)


@given(references())
def test_the_engine_and_the_registry_views_agree_on_the_name(ref):
    registry, from_image, tag = parse(str(ref)).engine_parts()
    assert (registry, from_image) == (ref.registry, ref.name)
    assert tag == (ref.digest or ref.tag or 'latest')
    host, path, api_tag = parse(str(ref)).registry_parts()
    assert host == (ref.registry or DOCKER_HUB)
    assert path.endswith(ref.repository) and api_tag == (ref.tag or None)


@pytest.mark.parametrize('text,parts', [
    ('quay.io/ascend/vllm-ascend:v0.23.0-310p', ('quay.io', 'ascend/vllm-ascend', 'v0.23.0-310p', '')),
    ('localhost:5000/vllm-ascend', ('localhost:5000', 'vllm-ascend', '', '')),
    ('127.0.0.1:5000/ascend/vllm-ascend:v0.23.0-310p@sha256:' + 'a' * 64,
     ('127.0.0.1:5000', 'ascend/vllm-ascend', 'v0.23.0-310p', 'sha256:' + 'a' * 64)),
    ('ascend/vllm-ascend:latest', ('', 'ascend/vllm-ascend', 'latest', '')),
    ('haproxy', ('', 'haproxy', '', '')),
    ('Mirror/ascend/vllm-ascend:v1', ('Mirror', 'ascend/vllm-ascend', 'v1', '')),
])
def test_references_the_guide_and_the_harness_write(text, parts):
    assert tuple(parse(text)) == parts


def test_docker_hub_names_read_as_the_registry_api_wants_them():
    assert parse('haproxy:2.8').registry_parts() == (DOCKER_HUB, 'library/haproxy', '2.8')
    assert parse('ascend/vllm-ascend').registry_parts() == (DOCKER_HUB, 'ascend/vllm-ascend', None)


@pytest.mark.parametrize('text,tag', [
    ('v0.23.0-310p', 'v0.23.0-310p'),                       # a bare tag is its own tag
    ('quay.io/ascend/vllm-ascend:v0.23.0-310p@sha256:' + 'b' * 64, 'v0.23.0-310p'),
    ('localhost:5000/vllm-ascend', ''),                     # a registry port is not a tag
    ('vllm-ascend@sha256:' + 'c' * 64, ''),                 # pinned to a digest only
    ('', ''), (None, ''), (3, ''),
])
def test_tag_of_a_tag_or_a_reference(text, tag):
    assert tag_of(text) == tag


@pytest.mark.parametrize('text', ['', '   ', None, 7, ['quay.io/x']])
def test_what_is_not_a_reference_is_refused(text):
    with pytest.raises(ValueError):
        parse(text)
    assert written_tag(text) is None


@pytest.mark.parametrize('ref, parts', [
    ('172.18.0.1:5000/ascend/vllm-ascend:v0.23.0-310p', ('172.18.0.1:5000', 'ascend/vllm-ascend', 'v0.23.0-310p')),
    ('quay.io/ascend/vllm-ascend:v0.23.0-310p@' + 'sha256:' + 'a' * 64, ('quay.io', 'ascend/vllm-ascend', 'v0.23.0-310p')),
    ('ascend/vllm-ascend:v1', (DOCKER_HUB, 'ascend/vllm-ascend', 'v1')),
    ('ubuntu:22.04', (DOCKER_HUB, 'library/ubuntu', '22.04')),
    ('localhost/x', ('localhost', 'x', None)),
])
def test_the_registry_api_view(ref, parts):
    """What node_facts asks a registry about (node/_node_registry.py)."""
    assert parse(ref).registry_parts() == parts


@pytest.mark.parametrize('ref, parts', [
    ('quay.io/ascend/vllm-ascend:v0.23.0-310p', ('quay.io', 'quay.io/ascend/vllm-ascend', 'v0.23.0-310p')),
    ('172.18.0.1:5000/ascend/vllm-ascend:v0.23.0-310p',
     ('172.18.0.1:5000', '172.18.0.1:5000/ascend/vllm-ascend', 'v0.23.0-310p')),
    ('m.daocloud.io/quay.io/ascend/vllm-ascend@sha256:' + 'a' * 64,
     ('m.daocloud.io', 'm.daocloud.io/quay.io/ascend/vllm-ascend', 'sha256:' + 'a' * 64)),
    ('localhost:5000/x', ('localhost:5000', 'localhost:5000/x', 'latest')),
    ('library/haproxy:2.6', ('', 'library/haproxy', '2.6')),
    ('haproxy', ('', 'haproxy', 'latest')),
])
def test_the_engine_view(ref, parts):
    """What image_pull_wait hands the Engine (node/_pull_watch.py)."""
    assert parse(ref).engine_parts() == parts
