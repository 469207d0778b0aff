# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Provenance of an evaluation: versions from the real captures' formats, image digest, masked argv, and
``unknown`` for every value that cannot be read."""

import io
import tarfile

import pytest

from ansible_collections.ascend.vllm.plugins.module_utils.evaluation import _eval_provenance as prov


def test_driver_version_from_the_real_capture(capture):
    assert prov.version_info(capture('11_driver_version.info_24.1.rc2.2.txt')) == '24.1.rc2.2'


@pytest.mark.parametrize('text', [None, '', 'garbage\n', 'Innerversion=V100\n'])
def test_a_missing_or_unreadable_version_is_unknown(text):
    assert prov.version_info(text) == 'unknown'


def test_cann_version_from_the_real_captures(capture):
    install = capture('14_cann_ascend_toolkit_install.info_310P3-host_8.1.RC1.txt')
    cfg = capture('13_cann_toolkit_version.cfg_310P3-host_8.2.RC2.txt')
    assert prov.cann_version(install, None) == '8.1.RC1'
    assert prov.cann_version(None, cfg) == '8.2.RC2'
    # ascend_toolkit_install.info first: it names the installed package.
    assert prov.cann_version(install, cfg) == '8.1.RC1'
    assert prov.cann_version(None, None) == 'unknown'


@pytest.mark.parametrize('argv, shown', [
    (['vllm', 'serve', 'm', '--api-key', 'sk-1', '--port', '8080'], ['vllm', 'serve', 'm', '--api-key', '(hidden)',
                                                                     '--port', '8080']),
    (['vllm', 'serve', '--api-key=sk-1'], ['vllm', 'serve', '--api-key=(hidden)']),
    (['vllm', 'serve', 'm', '--port', 8080], ['vllm', 'serve', 'm', '--port', '8080']),
])
def test_the_api_key_never_reaches_the_report(argv, shown):
    assert prov.masked_argv(argv) == shown


def _tar(name, text):
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode='w') as archive:
        body = text.encode()
        info = tarfile.TarInfo(name)
        info.size = len(body)
        archive.addfile(info, io.BytesIO(body))
    return data.getvalue()


def test_a_file_from_the_engines_archive_answer():
    assert prov.file_from_tar(_tar('version.cfg', 'a=b\n')) == 'a=b\n'
    assert prov.file_from_tar(b'not a tar') is None


INSPECT = {'Image': 'sha256:abc', 'Config': {
    'Image': '127.0.0.1:5000/quay.io/ascend/vllm-ascend:v0.23.0-310p', 'Entrypoint': None,
    'Cmd': ['vllm', 'serve', '/models/q', '--api-key', 'sk-1'],
    'Env': ['PATH=/usr/bin', 'ASCEND_TOOLKIT_HOME=/usr/local/Ascend/ascend-toolkit/latest/']}}
IMAGE = {'Architecture': 'arm64', 'RepoDigests': ['other/repo@sha256:111',
                                                  '127.0.0.1:5000/quay.io/ascend/vllm-ascend@sha256:222']}


def test_instance_provenance_from_docker_inspect():
    got = prov.instance_provenance('default', 'vllm-ascend', INSPECT, IMAGE, '8.2.RC2')
    assert got == {'instance': 'default', 'container': 'vllm-ascend',
                   'image': '127.0.0.1:5000/quay.io/ascend/vllm-ascend:v0.23.0-310p', 'image_id': 'sha256:abc',
                   'digest': 'sha256:222', 'argv': ['vllm', 'serve', '/models/q', '--api-key', '(hidden)'],
                   'cann': '8.2.RC2'}
    assert prov.cann_paths(INSPECT, IMAGE) == [
        '/usr/local/Ascend/ascend-toolkit/latest/aarch64-linux/ascend_toolkit_install.info',
        '/usr/local/Ascend/ascend-toolkit/latest/version.cfg']


def test_an_image_loaded_from_an_archive_has_no_digest():
    assert prov.image_digest({'RepoDigests': []}, 'quay.io/ascend/vllm-ascend:v0.23.0-310p') == 'unknown'
    assert prov.image_digest(None, None) == 'unknown'
    assert prov.cann_paths({'Config': {'Env': []}}, IMAGE) == []


def test_no_container_leaves_every_field_unknown_and_says_why():
    got = prov.instance_provenance('default', 'vllm-ascend', None, None, 'unknown')
    assert [got[k] for k in ('image', 'image_id', 'digest', 'argv', 'cann')] == ['unknown'] * 5
    assert got['note'] == 'no container vllm-ascend on the node'


def test_rows_name_unknown_explicitly():
    rows = prov.provenance_rows({'n1': {'node': {'hostname': 'atlas-1', 'driver': '24.1.rc2.2'},
                                        'instances': [prov.instance_provenance('a', 'c', INSPECT, IMAGE, 'unknown')]},
                                 'n2': None})
    assert [(r['host'], r['hostname'], r['driver'], r['firmware'], r['cann']) for r in rows] == [
        ('n1', 'atlas-1', '24.1.rc2.2', 'unknown', 'unknown'), ('n2', 'unknown', 'unknown', 'unknown', 'unknown')]
    assert rows[0]['argv'] == 'vllm serve /models/q --api-key (hidden)' and rows[1]['argv'] == 'unknown'
