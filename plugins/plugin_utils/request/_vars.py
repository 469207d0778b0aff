# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The names and types of a host's variables against the roles' argument specs.

Every host variable named like one of this collection's (a role prefix or
``ascend_vllm_``, or nearly so: ``vlm_serve_port``, ``VLLM_SERVE_PORT``) must be a
name the roles' ``meta/argument_specs.yml`` define or mention, with a value of
the type they declare (Ansible's own argument spec validator). A misspelt name
would otherwise be ignored without a word. Used by the ``ascend.vllm.host_plan``
action (the request); pure, raises ``ValueError``.
"""

import difflib
import os
import re

from ansible.module_utils.common.text.converters import to_text
from collections.abc import Mapping


from ansible_collections.ascend.vllm.plugins.module_utils._redact import HIDDEN, secret_name
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.platforms import PLATFORMS
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._coerce import SPEC_KEYS, _show, arrived
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._formats import format_problem
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._ranges import range_problem

GLOBAL_PREFIX = 'ascend_vllm_'
# A name whose start is this close to a prefix is taken for a misspelt role variable.
PREFIX_CUTOFF = 0.8
# difflib ratio a suggestion needs.
SUGGESTION_CUTOFF = 0.6
_ALIAS_RE = re.compile(r'^\s*\{\{\s*(%s\w+)\s*\|\s*default\(' % GLOBAL_PREFIX)
# A dict, list or bool option whose role default is a template has no spec default (the documentation
# schema wants a real dict, list or bool there); its description names the variable it defaults to.
_DESCRIBED_ALIAS_RE = re.compile(r'\bdefaults to C\((%s\w+)\)' % GLOBAL_PREFIX)


def _strings(node):
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for key, value in node.items():
            yield from _strings(key)
            yield from _strings(value)
    elif isinstance(node, (list, tuple)):
        for item in node:
            yield from _strings(item)


def known_variables(specs, prefixes):
    """Names the specs define as options, names they mention (outputs, globals) and option aliases.

    Returns (known names, {name: option spec}, {ascend_vllm_* name: [option names it feeds]}).
    """
    if not isinstance(specs, dict) or not specs:
        # An empty spec set would pass every variable: fail instead of checking nothing.
        raise ValueError('check_role_vars: specs must be a non-empty dict of role name to argument_specs document')
    options = {}
    aliases = {}
    mentioned = set()
    mention_re = re.compile(r'\b((?:%s)\w*[A-Za-z0-9])' % '|'.join(re.escape(prefix) for prefix in prefixes))
    for role, document in specs.items():
        entry_points = (document or {}).get('argument_specs') if isinstance(document, dict) else None
        if not isinstance(entry_points, dict):
            raise ValueError('check_role_vars: the spec of role %s has no argument_specs' % role)
        for entry in entry_points.values():
            for name, spec in ((entry or {}).get('options') or {}).items():
                spec = spec or {}
                options.setdefault(name, dict((key, spec[key]) for key in SPEC_KEYS if key in spec))
                default = spec.get('default')
                match = _ALIAS_RE.match(default) if isinstance(default, str) else None
                if 'default' not in spec and not spec.get('required'):
                    match = _DESCRIBED_ALIAS_RE.search(' '.join(_strings(spec.get('description'))))
                if match and name not in aliases.setdefault(match.group(1), []):
                    aliases[match.group(1)].append(name)
        for text in _strings(document):
            mentioned.update(mention_re.findall(text))
    known = set(options) | set(aliases) | mentioned
    return known, options, aliases


def _prefix_of(name, prefixes):
    """(prefix, exact) when ``name`` starts with a prefix or nearly does, else (None, False)."""
    for prefix in prefixes:
        if name.startswith(prefix):
            return prefix, True
    lowered = name.lower()
    best, best_ratio = None, 0.0
    if len(name) < min(len(prefix) for prefix in prefixes):
        return None, False
    for prefix in prefixes:
        if lowered.startswith(prefix):
            return prefix, False
        for length in range(max(1, len(prefix) - 2), len(prefix) + 3):
            ratio = difflib.SequenceMatcher(None, lowered[:length], prefix).ratio()
            if ratio > best_ratio:
                best, best_ratio = prefix, ratio
    # A name no longer than the prefix itself (a group named vllm_serve) is no variable of a role.
    if best_ratio >= PREFIX_CUTOFF and len(name) > len(best):
        return best, False
    return None, False


def _type_phrase(spec):
    kind = spec.get('type', 'str')
    if spec.get('choices'):
        return 'one of: %s' % ', '.join(to_text(choice) for choice in spec['choices'])
    if kind == 'list' and spec.get('elements'):
        return 'a list of %s' % spec['elements']
    if kind == 'raw':
        return 'a value'
    return '%s %s' % ('an' if kind[0] in 'aeiou' else 'a', kind)


def _example(default):
    """', e.g. DEFAULT' for a default worth showing (not unset, empty or a template)."""
    if default is None or default in ('', [], {}) or (isinstance(default, str) and '{{' in default):
        return ''
    return ', e.g. %s' % _show(default)


def _plain(value):
    """Plain dicts, lists and scalars: Ansible's lazy containers would show up by class name in errors."""
    if isinstance(value, Mapping):
        return dict((_plain(key), _plain(item)) for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if isinstance(value, bool) or value is None:
        return value
    return next((kind(value) for kind in (int, float, str) if isinstance(value, kind)), value)


def _contract_problem(name, value):
    """A value of the right type outside its range (contracts/_ranges.py) or its format (contracts/_formats.py),
    whichever role reads it, as a problem; else None."""
    for kind, judge in (('range', range_problem), ('format', format_problem)):
        found = judge(name, value)
        if found is not None:
            return _variables_problem(kind, name, value, found['msg'], found['fix'])
    return None


def _variables_problem(kind, name, value, msg, fix, suggestion=None):
    """A problem of the variables check: ``kind`` type, range, format or unknown, with the value and a suggestion."""
    return {'check': 'variables', 'kind': kind, 'variable': name, 'value': value, 'suggestion': suggestion,
            'msg': msg, 'fix': fix}


def _value(variables, name):
    try:
        return _plain(variables[name]), None
    except Exception as exc:  # noqa: BLE001 - an undefined/erroring template is reported, not raised
        return None, to_text(exc)


def _prefixes(specs, prefixes=None):
    """``prefixes``, by default each role's and ascend_vllm_, longest first (a name takes the longest that fits)."""
    prefixes = ['%s_' % role for role in (specs or {})] + [GLOBAL_PREFIX] if prefixes is None else prefixes
    return sorted(set(prefixes), key=len, reverse=True)


def check_role_vars(variables, specs, prefixes=None):
    """Problems with the host's role variables: unknown names and values of the wrong type."""
    prefixes = _prefixes(specs, prefixes)
    known, options, aliases = known_variables(specs, prefixes)
    defaults = {}
    for document in (specs or {}).values():
        for entry in document['argument_specs'].values():
            for name, spec in ((entry or {}).get('options') or {}).items():
                defaults.setdefault(name, (spec or {}).get('default'))
    known_lower = dict((name.lower(), name) for name in known)
    profile_keys = set().union(*PLATFORMS.values())

    problems = []
    for name in sorted(to_text(key) for key in variables.keys()):
        if name.startswith('ansible_') or name.startswith('_'):
            continue
        prefix, exact = _prefix_of(name, prefixes)
        if prefix is None:
            continue
        if name in known:
            specs_for = [options[name]] if name in options else [options[option] for option in aliases.get(name, [])]
            if not specs_for:
                continue
            value, error = _value(variables, name)
            if error:
                problems.append(_variables_problem('type', name, None, '%s cannot be templated: %s' % (name, error),
                                                   'correct the template of %s' % name))
                continue
            for spec in specs_for:
                errors = arrived(name, value, spec)[1]
                outside = None if errors else _contract_problem(name, value)
                if outside is not None:
                    problems.append(outside)
                    break
                if errors:
                    option = name if name in options else aliases[name][0]
                    secret = spec.get('no_log')
                    said = '; '.join(errors).replace(_show(value), HIDDEN) if secret else '; '.join(errors)
                    problems.append(_variables_problem(
                        'type', name, HIDDEN if secret else value,
                        '%s=%s: not %s (%s)' % (name, HIDDEN if secret else _show(value), _type_phrase(spec), said),
                        'set %s to %s%s' % (name, _type_phrase(spec), _example(defaults.get(option)))))
                    break
            continue
        value, error = _value(variables, name)
        shown = _show(value) if error is None else '(%s)' % error
        suggestion = known_lower.get(name.lower())
        if suggestion is None:
            close = difflib.get_close_matches(name.lower(), sorted(known), n=1, cutoff=SUGGESTION_CUTOFF)
            suggestion = close[0] if close else None
        # A misspelt variable with a secret's word in its name is taken for a secret.
        if secret_name(name, loose=True) or (options.get(suggestion) or {}).get('no_log'):
            shown, value = HIDDEN, HIDDEN
        rest = name[len(prefix):] if exact else ''
        if rest in profile_keys and rest not in ('description',):
            fix = ('remove it: %s is a platform profile field; set ascend_vllm_platform_overrides: {%s: %s} instead'
                   % (rest, rest, shown))
        elif suggestion:
            fix = 'rename it to %s' % suggestion
        else:
            same = sorted(known_name for known_name in known if known_name.startswith(prefix) and known_name in options)
            fix = 'remove it, or use one of the %s variables: %s' % (prefix, ', '.join(same))
        problems.append(_variables_problem('unknown', name, value, '%s=%s: no role of ascend.vllm reads this '
                                           'variable, so Ansible would ignore it' % (name, shown), fix, suggestion))
    return problems


def value_specs(specs):
    """{variable: the argument spec its value is read by}: every option of every role, and each ``ascend_vllm_*``
    global the spec of the first option it stands in for (``ascend_vllm_offline`` is a bool like
    ``vllm_serve_offline``)."""
    _known, options, aliases = known_variables(specs, _prefixes(specs))
    return dict(((name, options[fed[0]]) for name, fed in aliases.items() if fed), **options)


def judged(name, value, by_spec):
    """The value of ``name`` as every role reads it (``contracts/_coerce.arrived`` by its argument spec), or the
    value as it came when it cannot be read so (the variables check reports it)."""
    coerced, errors = arrived(name, value, by_spec.get(name))
    return value if errors else coerced


def role_argument_specs(roles_dir):
    """{role: argument_specs document} for each role directory with meta/argument_specs.yml."""
    import yaml  # the controller always has PyYAML (ansible-core needs it)
    # libyaml's loader when PyYAML has it: the same documents, read about ten times faster, and every
    # host_plan task reads them (0.19 s against 0.016 s for the six roles' specs).
    loader = getattr(yaml, 'CSafeLoader', yaml.SafeLoader)
    specs = {}
    roles_dir = str(roles_dir)
    if not os.path.isdir(roles_dir):
        raise ValueError('role_argument_specs: %s is not a directory' % roles_dir)
    for role in sorted(os.listdir(roles_dir)):
        path = os.path.join(roles_dir, role, 'meta', 'argument_specs.yml')
        if os.path.isfile(path):
            with open(path) as handle:
                specs[role] = yaml.load(handle, Loader=loader)  # nosec B506 - a safe loader
    if not specs:
        raise ValueError('role_argument_specs: no role under %s has meta/argument_specs.yml' % roles_dir)
    return specs
