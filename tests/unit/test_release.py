# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Release hygiene: galaxy.yml's version, the changelog's releases and every version_added agree.

- CHANGELOG.rst is generated from changelogs/changelog.yaml: its newest release is the YAML's newest.
- galaxy.yml is that release, or the next one being prepared; never older.
- Every module, filter and role says in which version it was added; a released version must list it
  as new in changelogs/changelog.yaml (antsibull-changelog lists a plugin as new only when its
  version_added is exactly the release's version), and an unreleased one must be galaxy.yml's.
- The install examples in the README and docs name the version galaxy.yml builds.
- Numbering after a release: galaxy.yml stays the released version until the first change that adds a
  changelog fragment; that change raises galaxy.yml to the next version (0.2.0 -> 0.3.0 while the
  collection is 0.x), and content added from then on says ``version_added`` of that next version.
  A checkout with unreleased changes therefore never builds a tarball named like a release.
"""

import ast
import importlib
import os
import re

import pytest
import yaml

from ansible.utils.version import SemanticVersion

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
FIX = ('release again: `antsibull-changelog release --update-existing --reload-plugins` (same version), or set '
       'version_added to the next version and raise galaxy.yml to it')


def _yaml(*parts):
    with open(os.path.join(ROOT, *parts)) as handle:
        return yaml.safe_load(handle)


GALAXY_VERSION = str(_yaml('galaxy.yml')['version'])
RELEASES = _yaml('changelogs', 'changelog.yaml').get('releases') or {}
NEWEST = max(RELEASES, key=SemanticVersion) if RELEASES else None


def _documentation(path):
    with open(path) as handle:
        for node in ast.parse(handle.read()).body:
            if isinstance(node, ast.Assign) and [getattr(t, 'id', None) for t in node.targets] == ['DOCUMENTATION']:
                return yaml.safe_load(node.value.value)
    raise AssertionError('no DOCUMENTATION in %s' % path)


def _filter_documentation(directory, file_name, filter_name):
    """A filter's DOCUMENTATION where ansible-doc finds it: <filter>.yml beside the plugin file when that
    file's own DOCUMENTATION is empty (a file of several filters), else the file's."""
    own = _documentation(os.path.join(directory, file_name))
    if own:
        return own
    with open(os.path.join(directory, filter_name + '.yml')) as handle:
        return yaml.safe_load(handle)['DOCUMENTATION']


def _content():
    """(kind, name, version_added): every module, filter and role of the collection."""
    found = []
    modules = os.path.join(ROOT, 'plugins', 'modules')
    for name in sorted(os.listdir(modules)):
        if name.endswith('.py') and name != '__init__.py':
            found.append(('module', name[:-3], _documentation(os.path.join(modules, name)).get('version_added')))
    filters = os.path.join(ROOT, 'plugins', 'filter')
    for name in sorted(os.listdir(filters)):
        if name.endswith('.py') and name != '__init__.py':
            plugin = importlib.import_module('ansible_collections.ascend.vllm.plugins.filter.' + name[:-3])
            for filter_name in sorted(plugin.FilterModule().filters()):
                found.append(('filter', filter_name, _filter_documentation(filters, name, filter_name).get('version_added')))
    for role in sorted(os.listdir(os.path.join(ROOT, 'roles'))):
        main = _yaml('roles', role, 'meta', 'argument_specs.yml')['argument_specs']['main']
        found.append(('role', role, main.get('version_added')))
    return found


def _listed(release, kind):
    """The names changelog.yaml lists as new of one kind in one release."""
    data = RELEASES.get(release) or {}
    entries = {'module': data.get('modules'), 'filter': (data.get('plugins') or {}).get('filter'),
               'role': (data.get('objects') or {}).get('role')}[kind] or []
    return set(entry['name'] for entry in entries)


def test_changelog_rst_is_generated_from_the_newest_release():
    with open(os.path.join(ROOT, 'CHANGELOG.rst')) as handle:
        headings = re.findall(r'^v(\d+\.\d+\.\d+\S*)\n=+$', handle.read(), re.M)
    assert NEWEST is not None, 'changelogs/changelog.yaml has no release: run `antsibull-changelog release`'
    assert headings and headings[0] == NEWEST, (headings, NEWEST, 'run `antsibull-changelog generate`')
    assert sorted(headings, key=SemanticVersion, reverse=True) == sorted(RELEASES, key=SemanticVersion, reverse=True)


def test_galaxy_version_is_the_newest_release_or_the_next():
    assert SemanticVersion(GALAXY_VERSION) >= SemanticVersion(NEWEST), (GALAXY_VERSION, NEWEST)


@pytest.mark.parametrize('kind, name, added', _content(), ids=str)
def test_version_added_is_released_with_the_plugin_or_next(kind, name, added):
    assert added, '%s %s has no version_added (new content: %s)' % (kind, name, GALAXY_VERSION)
    assert SemanticVersion(str(added)) <= SemanticVersion(GALAXY_VERSION), \
        '%s %s: version_added %s is newer than galaxy.yml %s' % (kind, name, added, GALAXY_VERSION)
    if str(added) in RELEASES:
        assert name in _listed(str(added), kind), \
            ('%s %s says version_added %s, but that release in changelogs/changelog.yaml does not list it as new: %s'
             % (kind, name, added, FIX))
    else:
        assert str(added) == GALAXY_VERSION and SemanticVersion(GALAXY_VERSION) > SemanticVersion(NEWEST), \
            '%s %s: version_added %s is neither a release nor the next one (galaxy.yml %s)' % (
                kind, name, added, GALAXY_VERSION)


def _pending_fragments():
    """The changelog fragments not yet released: {file name: text}."""
    directory = os.path.join(ROOT, 'changelogs', 'fragments')
    found = {}
    for name in sorted(os.listdir(directory)) if os.path.isdir(directory) else []:
        if name.endswith(('.yml', '.yaml')):
            with open(os.path.join(directory, name)) as handle:
                found[name] = handle.read()
    return found


def test_every_listed_plugin_exists():
    """A renamed or removed plugin leaves no stale "new" entry in the newest release, unless a pending
    changelog fragment tells users it is gone (a removal after the release)."""
    names = {}
    for kind, name, _added in _content():
        names.setdefault(kind, set()).add(name)
    told = '\n'.join(_pending_fragments().values())
    for kind in ('module', 'filter', 'role'):
        gone = _listed(NEWEST, kind) - names.get(kind, set())
        untold = set(name for name in gone if not re.search(r'\b%s\b' % re.escape(name), told))
        assert untold == set(), (kind, sorted(untold), 'say in a changelog fragment that it was removed or renamed')


def test_unreleased_changes_raise_the_version():
    """Fragments waiting for the next release mean galaxy.yml already names that next version."""
    pending = sorted(_pending_fragments())
    if pending:
        assert SemanticVersion(GALAXY_VERSION) > SemanticVersion(NEWEST), (
            'changelogs/fragments holds unreleased changes (%s) but galaxy.yml is %s, the version already released: '
            'raise galaxy.yml to the next version (and the examples test_install_examples_name_the_version_galaxy_builds '
            'checks), and give new content that version_added' % (', '.join(pending), GALAXY_VERSION))


@pytest.mark.parametrize('path', ['README.md', 'docs/getting-started.md', 'docs/zh_CN/getting-started.md',
                                  'docs/awx.md', 'docs/zh_CN/awx.md', 'execution-environment.yml'])
def test_install_examples_name_the_version_galaxy_builds(path):
    with open(os.path.join(ROOT, path)) as handle:
        text = handle.read()
    versions = re.findall(r'ascend-vllm-(?:ee:)?(\d+\.\d+\.\d+)', text)
    assert versions and set(versions) == {GALAXY_VERSION}, (path, versions, GALAXY_VERSION)
    for low, high in re.findall(r'version: ">=(\d+\.\d+\.\d+),<(\d+\.\d+\.\d+)"', text):
        assert SemanticVersion(low) <= SemanticVersion(GALAXY_VERSION) < SemanticVersion(high), (path, low, high)
