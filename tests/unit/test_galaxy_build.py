# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The built collection holds only what runs on a controller.

Builds the tarball with ``ansible-galaxy collection build`` from a copy of the
repository (with the caches a working tree has) and lists its entries.
"""

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
           # The catalogs the contracts read (plugin_utils/contracts/_data.py).
           'plugins/plugin_utils/contracts/data/releases.yml', 'plugins/plugin_utils/contracts/data/models.yml',
           'plugins/plugin_utils/contracts/data/platforms.yml', 'plugins/plugin_utils/contracts/data/chat_parsers.yml',
           'plugins/plugin_utils/contracts/data/options.yml', 'plugins/plugin_utils/contracts/data/ranges.yml',
           'plugins/plugin_utils/contracts/data/formats.yml', 'plugins/plugin_utils/contracts/data/serve_flags.yml',
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


# ---------------------------------------------------------------- the offline controller install (README "Install")
SCRIPT = os.path.join(ROOT, 'scripts', 'collection-tarballs.py')
PLAYBOOK_NAMES = sorted(name[:-4] for name in os.listdir(os.path.join(ROOT, 'playbooks')) if name.endswith('.yml'))


def _no_network():
    """The argv prefix that runs a command with no network (a new network namespace), or [] where none can be made."""
    unshare = shutil.which('unshare')
    if unshare and subprocess.run([unshare, '-n', 'true'], capture_output=True, check=False).returncode == 0:
        return [unshare, '-n']
    return []


@pytest.fixture(scope='module')
def offline_tarballs(tmp_path_factory):
    """What README "Install" has a connected machine run: every tarball the offline controller needs."""
    out = tmp_path_factory.mktemp('offline') / 'dist'
    proc = subprocess.run([sys.executable, SCRIPT, '--output', str(out)], check=True, capture_output=True, text=True)
    return proc.stdout.split()


def _controller(tmp_path):
    """An empty controller: its own collections path, none of this Python's bundled collections, an index that
    does not answer, and no ansible.cfg of this checkout."""
    (tmp_path / 'ansible.cfg').write_text('[defaults]\n')
    return dict(os.environ, ANSIBLE_CONFIG=str(tmp_path / 'ansible.cfg'),
                ANSIBLE_COLLECTIONS_PATH=str(tmp_path / 'collections'), ANSIBLE_COLLECTIONS_SCAN_SYS_PATH='false',
                ANSIBLE_GALAXY_SERVER='http://127.0.0.1:9/', ANSIBLE_FORCE_COLOR='0')


def test_the_offline_tarballs_are_ascend_vllm_and_every_dependency(offline_tarballs):
    import yaml
    with open(os.path.join(ROOT, 'galaxy.yml')) as handle:
        meta = yaml.safe_load(handle)
    names = [os.path.basename(path) for path in offline_tarballs]
    assert names[0] == 'ascend-vllm-%s.tar.gz' % meta['version']
    # Each dependency, and each of theirs, read from what is installed (community.docker's MANIFEST.json).
    wanted, seen = list(meta['dependencies']), []
    while wanted:
        fqcn = wanted.pop(0)
        namespace, name = fqcn.split('.', 1)
        with tarfile.open(offline_tarballs[names.index(
                next(n for n in names if n.startswith('%s-%s-' % (namespace, name))))]) as tar:
            info = json.load(tar.extractfile('MANIFEST.json'))['collection_info']
        seen.append(fqcn)
        wanted += [dep for dep in info.get('dependencies') or {} if dep not in seen]
    assert 'community.library_inventory_filtering_v1' in seen  # community.docker's own dependency
    assert len(names) == 1 + len(seen)


def test_offline_install_of_the_tarballs_runs_the_plan_with_no_index_and_no_network(offline_tarballs, tmp_path):
    env = _controller(tmp_path)
    galaxy = [GALAXY, 'collection', 'install', '--offline', '-p', str(tmp_path / 'collections')]
    isolated = _no_network()
    # Without community.docker's own dependency the install stops: it is one of the tarballs for that reason.
    partial = subprocess.run(isolated + galaxy + [p for p in offline_tarballs if 'library_inventory' not in p],
                             env=env, cwd=str(tmp_path), capture_output=True, text=True, check=False)
    assert partial.returncode != 0 and 'community.library_inventory_filtering_v1' in partial.stdout + partial.stderr
    subprocess.run(isolated + galaxy + offline_tarballs, env=env, cwd=str(tmp_path), check=True, capture_output=True)
    listed = subprocess.run([GALAXY, 'collection', 'list', '--format', 'json'], env=env, cwd=str(tmp_path),
                            check=True, capture_output=True, text=True).stdout
    found = set(name for path in json.loads(listed).values() for name in path)
    assert {'ascend.vllm', 'community.docker', 'community.library_inventory_filtering_v1'} <= found, found

    bindir = os.path.dirname(GALAXY)
    installed = tmp_path / 'collections' / 'ansible_collections' / 'ascend' / 'vllm'
    # Every playbook resolves by its name in the installed collection.
    syntax = subprocess.run(isolated + [os.path.join(bindir, 'ansible-playbook'), '--syntax-check', '-i', 'localhost,']
                            # awx_objects needs awx.awx, which README "Install" brings with --also awx.awx.
                            + ['ascend.vllm.' + name for name in PLAYBOOK_NAMES if name not in ('hosts', 'awx_objects')],
                            env=env, cwd=str(tmp_path), capture_output=True, text=True, check=False)
    assert syntax.returncode == 0, syntax.stdout[-3000:] + syntax.stderr[-3000:]
    # The plan of an example inventory, from the install: no host contacted (there is no network to contact one).
    plan = subprocess.run(isolated + [os.path.join(bindir, 'ansible-playbook'), 'ascend.vllm.plan', '-i',
                                      str(installed / 'inventories' / 'examples' / 'atlas_300i_duo')],
                          env=env, cwd=str(tmp_path), capture_output=True, text=True, check=False)
    assert plan.returncode == 0, plan.stdout[-3000:] + plan.stderr[-3000:]
    assert plan.stdout.count('vllm serve Qwen/Qwen3.5-2B ') == 3 and 'problems: none' in plan.stdout
    assert 'unreachable=0' in plan.stdout and 'unreachable=1' not in plan.stdout
