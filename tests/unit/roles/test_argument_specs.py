# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Keep each role's defaults/main.yml and meta/argument_specs.yml in step.

Every default needs an argument spec entry with a description, a type and the same
default; every spec option needs a default (unless required); choices hold the
default; every entry point has its task file.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re

import pytest
import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))
ROLES_DIR = os.path.join(ROOT, 'roles')
ROLES = sorted(
    name for name in os.listdir(ROLES_DIR)
    if os.path.isfile(os.path.join(ROLES_DIR, name, 'meta', 'argument_specs.yml'))
) if os.path.isdir(ROLES_DIR) else []

# Python types a default may have for each argument spec type (None is always allowed).
TYPES = {
    'str': (str,),
    'path': (str,),
    'int': (int,),
    'float': (float, int),
    'bool': (bool,),
    'list': (list,),
    'dict': (dict,),
    'raw': (object,),
}


def _load(role, *parts):
    with open(os.path.join(ROLES_DIR, role, *parts)) as handle:
        return yaml.safe_load(handle) or {}


def _defaults(role):
    return _load(role, 'defaults', 'main.yml')


def _entry_points(role):
    return _load(role, 'meta', 'argument_specs.yml')['argument_specs']


def _is_template(value):
    return isinstance(value, str) and '{{' in value


_DESCRIBED_RE = re.compile(r'\bdefaults to C\((ascend_vllm_\w+)\)')
_TEMPLATE_RE = re.compile(r'^\{\{\s*(ascend_vllm_\w+)\s*\|\s*default\((?:\{\}|\[\]|false)\)\s*\}\}$')


def _described_default(option):
    description = option.get('description') or ''
    if isinstance(description, list):
        description = ' '.join(description)
    match = _DESCRIBED_RE.search(description)
    return match.group(1) if match else None


def _template_source(value):
    match = _TEMPLATE_RE.match(value.strip()) if isinstance(value, str) else None
    return match.group(1) if match else None


def _entry_cases():
    return [(role, entry) for role in ROLES for entry in _entry_points(role)]


def test_roles_found():
    assert set(ROLES) >= {'npu_check', 'image_pull', 'container_run', 'vllm_serve'}


@pytest.mark.parametrize('role', ROLES)
def test_every_default_has_a_spec_entry(role):
    options = _entry_points(role)['main']['options']
    missing = sorted(set(_defaults(role)) - set(options))
    assert not missing, '%s: defaults without argument_specs entry: %s' % (role, missing)


@pytest.mark.parametrize('role', ROLES)
def test_every_spec_option_has_a_default(role):
    options = _entry_points(role)['main']['options']
    defaults = _defaults(role)
    missing = sorted(name for name, spec in options.items()
                     if not spec.get('required') and name not in defaults)
    assert not missing, '%s: argument_specs options missing from defaults/main.yml: %s' % (role, missing)


@pytest.mark.parametrize('role', ROLES)
def test_variables_carry_the_role_prefix(role):
    bad = sorted(name for name in _defaults(role) if not name.startswith(role + '_'))
    assert not bad, '%s: defaults not prefixed with %s_: %s' % (role, role, bad)


@pytest.mark.parametrize('role,entry', _entry_cases())
def test_spec_entries_are_complete_and_match_defaults(role, entry):
    spec = _entry_points(role)[entry]
    assert spec.get('short_description'), '%s/%s: no short_description' % (role, entry)
    defaults = _defaults(role)
    problems = []
    for name, option in sorted(spec.get('options', {}).items()):
        if not option.get('description'):
            problems.append('%s: no description' % name)
        kind = option.get('type')
        if kind not in TYPES:
            problems.append('%s: type %r is not one of %s' % (name, kind, sorted(TYPES)))
            continue
        if kind == 'list' and 'elements' not in option:
            problems.append('%s: list without elements' % name)
        if option.get('required'):
            continue
        if name not in defaults:
            problems.append('%s: not in defaults/main.yml' % name)
            continue
        if 'default' not in option:
            # The documentation schema (antsibull-docs) wants a real dict, list or bool as a dict/list/bool
            # default; a role default that is a template is named in the description instead.
            described = _described_default(option)
            if described is None:
                problems.append('%s: no default in the spec' % name)
            elif kind not in ('dict', 'list', 'bool') or described != _template_source(defaults[name]):
                problems.append('%s: no spec default, and the description says it defaults to %s, '
                                'while defaults/main.yml has %r' % (name, described, defaults[name]))
            continue
        if kind in ('dict', 'list') and _is_template(option['default']):
            problems.append('%s: a %s option cannot have a template as its spec default (antsibull-docs '
                            'rejects it): drop the default and say "defaults to C(<variable>)"' % (name, kind))
        if option['default'] != defaults[name]:
            problems.append('%s: spec default %r != defaults/main.yml %r' % (name, option['default'], defaults[name]))
        value = defaults[name]
        if value is not None and not _is_template(value) and not isinstance(value, TYPES[kind]):
            problems.append('%s: default %r is not a %s' % (name, value, kind))
        if kind in ('int', 'float') and isinstance(value, bool):
            problems.append('%s: default %r is a bool, not a %s' % (name, value, kind))
        choices = option.get('choices')
        if choices and value is not None and not _is_template(value) and value not in choices:
            problems.append('%s: default %r not in choices %r' % (name, value, choices))
    assert not problems, '%s/%s:\n  %s' % (role, entry, '\n  '.join(problems))


@pytest.mark.parametrize('role,entry', _entry_cases())
def test_entry_points_have_task_files(role, entry):
    path = os.path.join(ROLES_DIR, role, 'tasks', entry + '.yml')
    assert os.path.isfile(path), '%s: entry point %s has no tasks/%s.yml' % (role, entry, entry)


@pytest.mark.parametrize('role', ROLES)
def test_main_tasks_only_dispatch(role):
    tasks = _load(role, 'tasks', 'main.yml')
    kinds = set()
    for task in tasks:
        kinds.update(key for key in task if key.startswith('ansible.builtin.'))
    assert kinds <= {'ansible.builtin.import_tasks', 'ansible.builtin.include_tasks'}, \
        '%s: tasks/main.yml does more than dispatch: %s' % (role, sorted(kinds))
