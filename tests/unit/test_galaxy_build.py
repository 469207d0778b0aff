# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The built collection holds only what runs on a controller.

Builds the tarball with ``ansible-galaxy collection build`` from a copy of the
repository (with the caches a working tree has) and lists its entries.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import shutil
import subprocess
import sys
import tarfile

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
GALAXY = shutil.which('ansible-galaxy', path=os.path.dirname(sys.executable) + os.pathsep + os.environ.get('PATH', ''))

# What a user needs; each must be in the tarball.
SHIPPED = ('MANIFEST.json', 'README.md', 'LICENSE', 'meta/runtime.yml',
           'plugins/modules/vllm_config.py', 'plugins/plugin_utils/contracts/platforms.py',
           # The vllm serve flag tables the planner reads (plugin_utils/contracts/_vllm_flags.py).
           'plugins/plugin_utils/contracts/vllm_flags/0.23.0.json',
           # ansible-doc's documentation of filters that share a plugin file.
           'plugins/filter/platform_group.yml', 'plugins/filter/platform_names.yml',
           'plugins/filter/platform_profile.yml',
           'roles/vllm_serve/tasks/main.yml', 'playbooks/site.yml', 'playbooks/vars/targets.yml', 'site.yml',
           'inventories/examples/atlas_300i_duo/hosts.yml',
           # The dashboard and alert rules a user installs (playbooks/monitoring.yml) or copies by hand.
           'playbooks/monitoring.yml', 'roles/vllm_serve/files/monitoring/ascend-vllm-dashboard.json',
           'roles/vllm_serve/files/monitoring/ascend-vllm-alerts.yml',
           'roles/vllm_serve/files/monitoring/metric-sources.yml',
           # Galaxy reads the release notes from these (galaxy-importer wants a changelog).
           'CHANGELOG.rst', 'changelogs/changelog.yaml')
# Top-level paths (or path prefixes) that must never ship.
NOT_SHIPPED = ('tests/', 'tests', 'molecule', 'bench', 'scripts', 'Makefile', 'ansible.cfg',
               'requirements-dev.txt', '.venv', '.ansible', '.ci', '.cache', '.pytest_cache',
               'changelogs/fragments', 'inventories/demo', '.gitignore', '.ansible-lint', '.ansible-lint-ignore',
               '.venv-core')


@pytest.fixture(scope='module')
def tarball(tmp_path_factory):
    if GALAXY is None:
        pytest.fail('ansible-galaxy is not installed: run `make setup`')
    work = tmp_path_factory.mktemp('build')
    src = work / 'src'
    tracked = subprocess.run(['git', 'ls-files', '-z'], cwd=ROOT, check=True, capture_output=True).stdout
    for rel in filter(None, tracked.decode().split('\0')):
        if os.path.lexists(os.path.join(ROOT, rel)):
            dest = src / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(os.path.join(ROOT, rel), dest, follow_symlinks=False)
    # What a working tree also holds: caches and local tool directories.
    for junk in ('.venv/bin/python', '.venv-core/2.21.5/bin/python', '.ansible/collections/x', 'plugins/module_utils/__pycache__/x.cpython-311.pyc',
                 'tests/output/junk.txt', '.pytest_cache/v/cache', 'ascend-vllm-0.0.1.tar.gz'):
        (src / junk).parent.mkdir(parents=True, exist_ok=True)
        (src / junk).write_text('junk')
    out = work / 'dist'
    subprocess.run([GALAXY, 'collection', 'build', str(src), '--output-path', str(out)],
                   check=True, capture_output=True)
    [built] = list(out.iterdir())
    return built


@pytest.fixture(scope='module')
def entries(tarball):
    with tarfile.open(str(tarball)) as tar:
        return [name[2:] if name.startswith('./') else name for name in tar.getnames()]


def test_the_tarball_installs_offline_and_its_plugins_load(tarball, tmp_path):
    """What an air-gapped site does: install the tarball without Galaxy, then use it."""
    dest = tmp_path / 'collections'
    # Away from this checkout's ansible.cfg, which makes the checkout itself the collection.
    (tmp_path / 'ansible.cfg').write_text('[defaults]\n')
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=str(dest), ANSIBLE_CONFIG=str(tmp_path / 'ansible.cfg'))
    subprocess.run([GALAXY, 'collection', 'install', '--offline', '--no-deps', str(tarball), '-p', str(dest)],
                   env=env, cwd=str(tmp_path), check=True, capture_output=True)
    installed = dest / 'ansible_collections' / 'ascend' / 'vllm'
    assert (installed / 'MANIFEST.json').is_file()
    assert not (installed / 'tests').exists()
    doc = subprocess.run([os.path.join(os.path.dirname(GALAXY), 'ansible-doc'), '--json', 'ascend.vllm.vllm_config',
                          'ascend.vllm.node_facts', 'ascend.vllm.vllm_ready'], env=env, cwd=str(tmp_path),
                         check=True, capture_output=True, text=True)
    assert set(json.loads(doc.stdout)) == {'ascend.vllm.vllm_config', 'ascend.vllm.node_facts',
                                           'ascend.vllm.vllm_ready'}


@pytest.mark.parametrize('path', SHIPPED)
def test_runtime_files_ship(entries, path):
    assert path in entries


@pytest.mark.parametrize('path', NOT_SHIPPED)
def test_development_files_do_not_ship(entries, path):
    leaked = [name for name in entries if name == path.rstrip('/') or name.startswith(path.rstrip('/') + '/')]
    assert leaked == []


def test_no_caches_or_archives_ship(entries):
    leaked = [name for name in entries if '__pycache__' in name or name.endswith(('.pyc', '.tar.gz'))]
    assert leaked == []
