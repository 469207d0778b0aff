# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Keep each role's defaults/main.yml and meta/argument_specs.yml in step.

Every default needs an argument spec entry with a description, a type and the same
default; every spec option needs a default (unless required); choices hold the
default; every entry point has its task file.
"""

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
        if choices and value is not None and not _is_template(value) and kind != 'list' and value not in choices:
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


# ---------------------------------------------------------------- one declaration per role variable
# The argument specs are each role variable's one declaration (as vllm_options.OPTIONS is vllm_config's):
# defaults/main.yml must agree with them (above), every entry point shares them, the rendered docs come
# from them (antsibull-docs, ansible-doc -t role), and the docs' option tables and variable names must
# agree with them (below).
SPEC_KEYS = {'description', 'type', 'default', 'choices', 'elements', 'required', 'options', 'no_log',
             'version_added', 'aliases', 'apply_defaults'}
DOCS = sorted(
    [os.path.join(ROOT, 'README.md')]
    + [os.path.join(dirpath, name) for dirpath, _dirs, names in os.walk(os.path.join(ROOT, 'docs'))
       for name in names if name.endswith('.md')])


def _options(role):
    """{entry point: {option: spec}} of a role."""
    return dict((entry, spec.get('options') or {}) for entry, spec in _entry_points(role).items())


def _elements_ok(kind, value):
    return kind not in TYPES or isinstance(value, TYPES[kind]) and not (
        kind in ('int', 'float') and isinstance(value, bool))


@pytest.mark.parametrize('role', ROLES)
def test_every_field_of_every_option_is_one_the_spec_knows(role):
    """A misspelt field (defualt, choises) would be ignored by Ansible without a word."""
    problems = []
    for entry, options in _options(role).items():
        for name, spec in options.items():
            unknown = sorted(set(spec) - SPEC_KEYS)
            if unknown:
                problems.append('%s/%s: unknown field(s) %s' % (entry, name, ', '.join(unknown)))
            if spec.get('required') and 'default' in spec:
                problems.append('%s/%s: required and with a default' % (entry, name))
            if spec.get('required') and name in _defaults(role):
                problems.append('%s/%s: required, yet defaults/main.yml gives it a value' % (entry, name))
            if 'elements' in spec and spec.get('type') != 'list':
                problems.append('%s/%s: elements on a %s' % (entry, name, spec.get('type')))
            if spec.get('elements') is not None and spec['elements'] not in TYPES:
                problems.append('%s/%s: elements %r is not one of %s' % (entry, name, spec['elements'], sorted(TYPES)))
            if isinstance(spec.get('description'), list) and not all(spec['description']):
                problems.append('%s/%s: an empty description line' % (entry, name))
    assert not problems, '%s:\n  %s' % (role, '\n  '.join(problems))


@pytest.mark.parametrize('role', ROLES)
def test_a_list_default_holds_its_elements_and_its_choices(role):
    problems = []
    for name, spec in _options(role)['main'].items():
        default = spec.get('default')
        if spec.get('type') != 'list' or not isinstance(default, list):
            continue
        for item in default:
            if not _elements_ok(spec.get('elements'), item):
                problems.append('%s: default item %r is not a %s' % (name, item, spec.get('elements')))
            if spec.get('choices') and item not in spec['choices']:
                problems.append('%s: default item %r not in choices %r' % (name, item, spec['choices']))
    for name, spec in _options(role)['main'].items():
        for choice in spec.get('choices') or []:
            kind = spec.get('elements') if spec.get('type') == 'list' else spec.get('type')
            if not _elements_ok(kind, choice):
                problems.append('%s: choice %r is not a %s' % (name, choice, kind))
    assert not problems, '%s:\n  %s' % (role, '\n  '.join(problems))


@pytest.mark.parametrize('role', ROLES)
def test_every_entry_point_shares_the_one_declaration(role):
    """An option declared in two entry points is the same declaration (a YAML anchor), never a copy that drifts."""
    options = _options(role)
    problems = []
    for entry, declared in options.items():
        for name, spec in declared.items():
            first = next(opts[name] for opts in options.values() if name in opts)
            if spec != first:
                problems.append('%s/%s differs from its first declaration' % (entry, name))
    assert not problems, '%s:\n  %s' % (role, '\n  '.join(problems))


def _all_options():
    out = {}
    for role in ROLES:
        for declared in _options(role).values():
            out.update(declared)
    return out


def _plugin_names():
    names = set()
    for kind in ('modules', 'action', 'filter'):
        folder = os.path.join(ROOT, 'plugins', kind)
        names.update(os.path.splitext(name)[0] for name in os.listdir(folder) if not name.startswith('_'))
    return names


_TABLE_ROW_RE = re.compile(r'^\|(.*)\|\s*$')
_CODE_RE = re.compile(r'^`([^`]*)`$')


def _tables(path):
    """Each markdown table of a file as (header cells, [row cells]), cells stripped."""
    tables, current = [], None
    with open(path) as handle:
        for line in handle:
            match = _TABLE_ROW_RE.match(line.strip())
            if not match:
                current = None
                continue
            cells = [cell.strip() for cell in match.group(1).split('|')]
            if current is None:
                current = (cells, [])
                tables.append(current)
            elif not all(set(cell) <= set('-: ') for cell in cells):
                current[1].append(cells)
    return tables


def _doc_default(cell):
    """A default as a docs table writes it: `yaml`, or null."""
    if cell in ('null', '`null`'):
        return None
    match = _CODE_RE.match(cell)
    return yaml.safe_load(match.group(1)) if match else cell


@pytest.mark.parametrize('path', DOCS, ids=lambda path: os.path.relpath(path, ROOT))
def test_the_docs_option_tables_agree_with_the_argument_specs(path):
    """A table of role variables with a default column (docs/evaluation.md, en and zh_CN) says what the
    argument spec says: the variable exists, its default is the spec's."""
    options = _all_options()
    problems = []
    for header, rows in _tables(path):
        column = next((index for index, cell in enumerate(header) if cell.lower() in ('default', '默认值')), None)
        if column is None:
            continue
        for row in rows:
            match = _CODE_RE.match(row[0])
            if not match or not any(match.group(1).startswith(role + '_') for role in ROLES):
                continue
            name = match.group(1)
            if name not in options:
                problems.append('%s: no role has this option' % name)
            elif _doc_default(row[column]) != options[name].get('default'):
                problems.append('%s: the docs say the default is %s, the argument spec %r'
                                % (name, row[column], options[name].get('default')))
    assert not problems, '%s:\n  %s' % (os.path.relpath(path, ROOT), '\n  '.join(problems))


@pytest.mark.parametrize('path', DOCS, ids=lambda path: os.path.relpath(path, ROOT))
def test_every_role_variable_the_docs_name_exists(path):
    """A variable renamed or removed in an argument spec cannot live on in the docs."""
    from ansible_collections.ascend.vllm.plugins.plugin_utils.request._vars import known_variables
    specs = dict((role, _load(role, 'meta', 'argument_specs.yml')) for role in ROLES)
    prefixes = sorted(['%s_' % role for role in ROLES] + ['ascend_vllm_'], key=len, reverse=True)
    known = known_variables(specs, prefixes)[0] | _plugin_names()
    for role in ROLES:
        known |= set(_defaults(role))
    named_re = re.compile(r'`((?:%s)[A-Za-z0-9_]*[A-Za-z0-9])`' % '|'.join(prefixes))
    with open(path) as handle:
        unknown = sorted(set(named_re.findall(handle.read())) - known)
    assert not unknown, '%s names variables no role declares or mentions: %s' % (
        os.path.relpath(path, ROOT), ', '.join(unknown))
