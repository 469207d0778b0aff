# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Shape targets of the roles and playbooks (docs/architecture.md): a small public surface, roles with
explicit inputs, plays that target the collection's hosts.

They hold for every file of the tree, so a new task file, filter or play that breaks one fails
here, naming it:
- role entry points (meta/argument_specs.yml) at most 12, public filters at most 8, each with its
  own documentation (what ``ansible-doc -t filter ascend.vllm.NAME`` shows);
- ``set_fact`` tasks in the roles and playbooks at most 10;
- ``| default(`` at most 25 per 1,000 lines of role YAML;
- no play with ``hosts: all``;
- a role includes another role only by one of that role's entry points (``tasks_from``), never a
  private task file of it.
"""

import ast
import glob
import json
import os
import re
import subprocess
import sys

import pytest
import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
MAX_ENTRY_POINTS = 12
MAX_PUBLIC_FILTERS = 8
MAX_SET_FACT = 10
MAX_DEFAULTS_PER_1000 = 25
INCLUDES = ('include_role', 'import_role')
_SET_FACT = re.compile(r'^\s*(?:-\s+)?(?:ansible\.builtin\.|ansible\.legacy\.)?set_fact:', re.M)


def _yaml_files(*patterns):
    found = set()
    for pattern in patterns:
        found.update(glob.glob(os.path.join(ROOT, pattern), recursive=True))
    return sorted(found)


def _relative(path):
    return os.path.relpath(path, ROOT).replace(os.sep, '/')


def entry_points():
    """{role: [entry point, ...]} from each role's meta/argument_specs.yml."""
    out = {}
    for path in _yaml_files('roles/*/meta/argument_specs.yml'):
        with open(path) as handle:
            out[path.split(os.sep)[-3]] = sorted((yaml.safe_load(handle) or {}).get('argument_specs') or {})
    return out


def public_filters():
    """{filter name: its plugin file} of every filter plugin's FilterModule.filters()."""
    out = {}
    for path in _yaml_files('plugins/filter/*.py'):
        tree = ast.parse(open(path).read(), path)
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name == 'filters':
                for ret in ast.walk(node):
                    if isinstance(ret, ast.Return) and isinstance(ret.value, ast.Dict):
                        for key in ret.value.keys:
                            out[ast.literal_eval(key)] = path
    return out


def _tasks(node):
    """Every task of a task list, blocks opened."""
    for task in node or []:
        if not isinstance(task, dict):
            continue
        yield task
        for key in ('block', 'rescue', 'always'):
            yield from _tasks(task.get(key))


def _plays_and_tasks():
    """(file, play or None, task) of every task of the roles and playbooks, and (file, play, None) per play."""
    for path in _yaml_files('roles/*/tasks/*.yml', 'roles/*/handlers/*.yml'):
        with open(path) as handle:
            for task in _tasks(yaml.safe_load(handle)):
                yield path, None, task
    for path in _yaml_files('site.yml', 'playbooks/*.yml'):
        with open(path) as handle:
            for play in yaml.safe_load(handle) or []:
                if not isinstance(play, dict) or 'hosts' not in play:
                    continue
                yield path, play, None
                for key in ('pre_tasks', 'tasks', 'post_tasks', 'handlers'):
                    for task in _tasks(play.get(key)):
                        yield path, play, task


def test_the_roles_and_playbooks_are_found():
    assert set(entry_points()) >= {'vllm_serve', 'container_run', 'image_pull', 'npu_check', 'balancer', 'eval'}
    assert 'instance_secrets' in public_filters()
    assert any(play for _path, play, _task in _plays_and_tasks())


def test_role_entry_points_are_few():
    points = entry_points()
    count = sum(len(names) for names in points.values())
    assert count <= MAX_ENTRY_POINTS, 'role entry points: %d > %d: %s' % (count, MAX_ENTRY_POINTS, points)


def test_public_filters_are_few():
    filters = public_filters()
    assert len(filters) <= MAX_PUBLIC_FILTERS, 'public filters: %d > %d: %s' % (
        len(filters), MAX_PUBLIC_FILTERS, sorted(filters))


@pytest.fixture(scope='module')
def filter_docs():
    """What `ansible-doc -t filter --json ascend.vllm.NAME ...` shows for every public filter, from this checkout."""
    names = ['ascend.vllm.' + name for name in sorted(public_filters())]
    doc = os.path.join(os.path.dirname(sys.executable), 'ansible-doc')
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, 'ansible.cfg'))
    proc = subprocess.run([doc, '-t', 'filter', '--json'] + names, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


@pytest.mark.parametrize('name', sorted(public_filters()))
def test_each_public_filter_has_its_own_doc(filter_docs, name):
    """ansible-doc reads one DOCUMENTATION per file: a file holding several filters documents each in
    <filter>.yml beside it (and leaves its DOCUMENTATION empty), or every filter but one shows another's doc."""
    entry = filter_docs.get('ascend.vllm.' + name) or {}
    doc = entry.get('doc') or {}
    assert doc.get('name') == name, (name, doc.get('name'), doc.get('filename'))
    assert doc.get('short_description') and doc.get('description') and doc.get('version_added'), (name, doc)
    assert entry.get('examples') and ('ascend.vllm.' + name) in entry['examples'], (name, 'EXAMPLES use it')
    assert (entry.get('return') or {}).get('_value'), (name, 'RETURN says what it gives: _value')


def test_set_fact_tasks_are_few():
    found = []
    for path in _yaml_files('roles/*/tasks/*.yml', 'roles/*/handlers/*.yml', 'site.yml', 'playbooks/*.yml'):
        found += [_relative(path)] * len(_SET_FACT.findall(open(path).read()))
    assert len(found) <= MAX_SET_FACT, 'set_fact tasks: %d > %d: %s' % (len(found), MAX_SET_FACT, found)


def test_defaults_in_role_yaml_are_rare():
    lines = defaults = 0
    for path in _yaml_files('roles/**/*.yml'):
        text = open(path).read()
        lines += len(text.splitlines())
        defaults += text.count('| default(')
    assert defaults * 1000 <= MAX_DEFAULTS_PER_1000 * lines, (
        '| default( %d times in %d lines of role YAML: %.1f per 1,000 > %d'
        % (defaults, lines, defaults * 1000.0 / lines, MAX_DEFAULTS_PER_1000))


def test_no_play_targets_all():
    for path, play, task in _plays_and_tasks():
        if task is None:
            assert str(play['hosts']).strip() != 'all', '%s: play %r targets all' % (_relative(path), play.get('name'))


# Plays that do not deploy to the collection's hosts: the AWX objects and the monitoring files go where their
# own variables say; the host scan runs on the controller (or the --limit'ed hosts) without contacting them.
OTHER_TARGETS = {'awx_objects.yml', 'monitoring.yml', 'hosts.yml'}


def test_every_play_targets_the_one_definition_of_the_collections_hosts():
    """One home for the hosts expression: playbooks/vars/targets.yml, read by every play that deploys."""
    targeting = []
    for path, play, task in _plays_and_tasks():
        if task is not None or os.path.basename(path) in OTHER_TARGETS and path.startswith(os.path.join(ROOT, 'playbooks')):
            continue
        targeting.append(path)
        assert play['hosts'] == '{{ __ascend_vllm_targets }}', '%s: play %r' % (_relative(path), play.get('name'))
        assert 'vars/targets.yml' in (play.get('vars_files') or []), '%s: play %r' % (_relative(path), play.get('name'))
    assert len(targeting) >= 12, targeting


def test_the_platform_groups_are_the_built_in_platforms():
    from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.platforms import PLATFORMS
    with open(os.path.join(ROOT, 'playbooks', 'vars', 'targets.yml')) as handle:
        targets = yaml.safe_load(handle)
    assert targets['__ascend_vllm_platform_groups'] == sorted(PLATFORMS)


@pytest.mark.parametrize('path', _yaml_files('roles/*/tasks/*.yml'), ids=_relative)
def test_a_role_includes_another_only_by_an_entry_point(path):
    points = entry_points()
    own = path.split(os.sep)[-3]
    with open(path) as handle:
        tasks = list(_tasks(yaml.safe_load(handle)))
    for task in tasks:
        for key in INCLUDES + tuple('ansible.builtin.' + name for name in INCLUDES):
            spec = task.get(key)
            if not isinstance(spec, dict):
                continue
            role = str(spec.get('name', '')).rsplit('.', maxsplit=1)[-1]
            entry = spec.get('tasks_from', 'main')
            if role != own:
                assert entry in points.get(role, []), '%s: %s includes %s tasks_from %s, not an entry point of %s' % (
                    _relative(path), task.get('name'), role, entry, role)
