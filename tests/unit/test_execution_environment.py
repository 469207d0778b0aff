# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""execution-environment.yml: pinned, and `ansible-builder create` makes a build context holding the
collection's dependencies at the versions the tests run (a real build needs a base image, which
cannot be pulled here)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re
import shutil
import subprocess
import sys

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
EE = os.path.join(ROOT, 'execution-environment.yml')
BUILDER = os.path.join(os.path.dirname(sys.executable), 'ansible-builder')


def _ee():
    with open(EE) as handle:
        return yaml.safe_load(handle)


def _installed_version(namespace, name):
    import json  # pylint: disable=import-outside-toplevel
    import ansible_collections  # pylint: disable=import-outside-toplevel
    for base in ansible_collections.__path__:
        manifest = os.path.join(base, namespace, name, 'MANIFEST.json')
        if os.path.isfile(manifest):
            with open(manifest) as handle:
                return json.load(handle)['collection_info']['version']
    return None


def test_everything_is_pinned():
    deps = _ee()['dependencies']
    assert _ee()['version'] == 3
    assert re.match(r'^ansible-core==\d+\.\d+\.\d+$', deps['ansible_core']['package_pip'])
    assert re.match(r'^ansible-runner==\d+\.\d+\.\d+$', deps['ansible_runner']['package_pip'])
    for collection in deps['galaxy']['collections']:
        assert re.match(r'^\d+\.\d+\.\d+$', str(collection.get('version', ''))), collection


def test_pins_are_what_the_tests_run():
    from ansible.release import __version__ as core  # pylint: disable=import-outside-toplevel
    deps = _ee()['dependencies']
    assert deps['ansible_core']['package_pip'] == 'ansible-core==' + core
    for collection in deps['galaxy']['collections']:
        namespace, name = collection['name'].split('.')
        assert collection['version'] == _installed_version(namespace, name), collection
    with open(os.path.join(ROOT, 'galaxy.yml')) as handle:
        needed = set(yaml.safe_load(handle)['dependencies'])
    assert needed <= set(c['name'] for c in deps['galaxy']['collections'])


def test_ansible_builder_create(tmp_path):
    context = tmp_path / 'context'
    subprocess.run([BUILDER, 'create', '-f', EE, '-c', str(context)], cwd=str(tmp_path), check=True,
                   capture_output=True, text=True)
    dockerfile = (context / 'Dockerfile').read_text()
    assert 'ARG EE_BASE_IMAGE="quay.io/centos/centos:stream9"' in dockerfile
    deps = _ee()['dependencies']
    refs = re.search(r'^ARG ANSIBLE_INSTALL_REFS="([^"]*)"', dockerfile, re.M).group(1).split()
    assert refs == [deps['ansible_core']['package_pip'], deps['ansible_runner']['package_pip']]
    galaxy = yaml.safe_load((context / '_build' / 'requirements.yml').read_text())
    assert dict((c['name'], c['version']) for c in galaxy['collections']) == dict(
        (c['name'], c['version']) for c in _ee()['dependencies']['galaxy']['collections'])
    shutil.rmtree(str(context))
