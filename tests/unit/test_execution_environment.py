# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""execution-environment.yml: pinned, and `ansible-builder create` makes a build context holding the
collection's dependencies at the versions the tests run (a real build needs a base image, which
cannot be pulled here)."""

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
    # The collection's Python and system needs are in the context, as the EE installs them.
    assert (context / '_build' / 'requirements.txt').read_text() == open(os.path.join(ROOT, 'meta', 'ee-requirements.txt')).read()
    assert (context / '_build' / 'bindep.txt').read_text() == open(os.path.join(ROOT, 'meta', 'ee-bindep.txt')).read()
    assert 'matplotlib==' in (context / '_build' / 'requirements.txt').read_text()
    galaxy = yaml.safe_load((context / '_build' / 'requirements.yml').read_text())
    assert dict((c['name'], c['version']) for c in galaxy['collections']) == dict(
        (c['name'], c['version']) for c in _ee()['dependencies']['galaxy']['collections'])
    shutil.rmtree(str(context))


# What a user-built EE gets from the collection itself (meta/execution-environment.yml).
META_EE = os.path.join(ROOT, 'meta', 'execution-environment.yml')


def _meta_ee():
    with open(META_EE) as handle:
        return yaml.safe_load(handle)


def _requirement_lines(path):
    with open(path) as handle:
        return [line.strip() for line in handle if line.strip() and not line.lstrip().startswith('#')]


def _third_party_imports():
    """Top-level module name -> files, for every import under plugins/ that is neither the standard library
    nor Ansible (Python 2 fallbacks in an ``except ImportError`` handler are left out)."""
    import ast  # pylint: disable=import-outside-toplevel
    found = {}
    for folder, _dirs, names in os.walk(os.path.join(ROOT, 'plugins')):
        for name in (n for n in names if n.endswith('.py')):
            path = os.path.join(folder, name)
            with open(path) as handle:
                tree = ast.parse(handle.read())
            fallback = set()
            for node in ast.walk(tree):
                if isinstance(node, ast.ExceptHandler) and 'ImportError' in ast.dump(node.type or ast.Name('')):
                    fallback.update(id(inner) for stmt in node.body for inner in ast.walk(stmt))
            for node in ast.walk(tree):
                if id(node) in fallback:
                    continue
                if isinstance(node, ast.Import):
                    modules = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and not node.level:
                    modules = [node.module]
                else:
                    continue
                for module in modules:
                    top = module.split('.')[0]
                    if top not in sys.stdlib_module_names and top not in ('ansible', 'ansible_collections'):
                        found.setdefault(top, set()).add(os.path.relpath(path, ROOT))
    return found


def _ansible_core_requirements():
    from importlib import metadata  # pylint: disable=import-outside-toplevel
    return set(re.split(r'[<>=!~; \[]', req)[0].lower() for req in metadata.requires('ansible-core'))


def test_every_import_of_the_plugins_is_in_the_ee_requirements():
    """Class-level check: a plugin importing a package the EE lacks fails here, not in a job."""
    from importlib import metadata  # pylint: disable=import-outside-toplevel
    imports = _third_party_imports()
    assert 'matplotlib' in imports, imports
    distributions = metadata.packages_distributions()
    needed = {}
    for module, files in imports.items():
        assert module in distributions, 'plugins import %s (%s), which no installed package provides' % (
            module, sorted(files))
        for dist in distributions[module]:
            needed[dist.lower()] = files
    listed = dict((re.split(r'[<>=!~ ]', line)[0].lower(), line)
                  for line in _requirement_lines(os.path.join(ROOT, _meta_ee()['dependencies']['python'])))
    # ansible-core brings its own requirements (PyYAML, Jinja2); everything else must be listed.
    missing = sorted(set(needed) - _ansible_core_requirements() - set(listed))
    assert missing == [], ['%s (imported by %s)' % (dist, sorted(needed[dist])) for dist in missing]
    assert sorted(set(listed) - set(needed)) == [], 'listed but imported nowhere under plugins/'
    for dist, line in listed.items():
        assert line == '%s==%s' % (dist, metadata.version(dist)), 'pin %r is not what the tests run' % line


def test_the_ee_installs_the_collection_requirements():
    deps = _ee()['dependencies']
    assert (deps['python'], deps['system']) == (_meta_ee()['dependencies']['python'],
                                                _meta_ee()['dependencies']['system'])
    with open(os.path.join(ROOT, 'galaxy.yml')) as handle:
        ignored = yaml.safe_load(handle)['build_ignore']
    for rel in (_meta_ee()['dependencies']['python'], _meta_ee()['dependencies']['system']):
        assert os.path.isfile(os.path.join(ROOT, rel)), rel
        # ansible-builder reads these from the installed collection: they must ship.
        assert not any(rel == pattern or rel.startswith(pattern.rstrip('/') + '/') for pattern in ignored), rel
    bindep = _requirement_lines(os.path.join(ROOT, _meta_ee()['dependencies']['system']))
    assert 'openssh-clients [platform:rpm]' in bindep and any(line.startswith('sshpass ') for line in bindep)


def test_ansible_builder_introspect_finds_the_collection_requirements(tmp_path):
    """What ansible-builder reads from the collection when a user's EE lists ascend.vllm in galaxy."""
    collection = tmp_path / 'ansible_collections' / 'ascend' / 'vllm'
    for rel in ('galaxy.yml', 'meta/execution-environment.yml', _meta_ee()['dependencies']['python'],
                _meta_ee()['dependencies']['system']):
        (collection / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(os.path.join(ROOT, rel), str(collection / rel))
    proc = subprocess.run([BUILDER, 'introspect', str(tmp_path)], check=True, capture_output=True, text=True)
    found = yaml.safe_load(proc.stdout)
    for kind in ('python', 'system'):
        expected = _requirement_lines(os.path.join(ROOT, _meta_ee()['dependencies'][kind]))
        assert found[kind] == ['%s  # from collection ascend.vllm' % line for line in expected], (kind, found)
