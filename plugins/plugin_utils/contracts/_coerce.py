# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Coercion of user values: a role variable as it arrives, integers, vLLM sizes ("16k", "16K"), floats, booleans.

``arrived`` is the one reading of a role variable's value for every role: as it arrives from an
inventory (native YAML), from ``-e key=value`` (text) or from an AWX survey (text, or a number for an
integer or float question), read by the type its argument spec declares. The request reads every
variable through it (so preflight judges, and the plan holds, the value every role then uses), and so
does the eval role's ``eval_plan``. The rest is private to the planner (import from ``planner``). Pure."""

from __future__ import annotations

import json
import math
import re
from typing import Any, Dict, List, Optional, Tuple

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.module_utils.common.text.converters import to_text

_INT_RE = re.compile(r'^[+-]?\d+$')
_HUMAN_INT_RE = re.compile(r'^(\d+(?:\.\d+)?)([kKmMgGtT])$')
_DECIMAL_SUFFIX = {'k': 10 ** 3, 'm': 10 ** 6, 'g': 10 ** 9, 't': 10 ** 12}
_BINARY_SUFFIX = {'K': 2 ** 10, 'M': 2 ** 20, 'G': 2 ** 30, 'T': 2 ** 40}


def _to_int(value: Any) -> Optional[int]:
    """Integer from an int, an integral float or a decimal string; None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and _INT_RE.match(value.strip()):
        return int(value.strip())
    return None


def _to_float(value: Any) -> Optional[float]:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        return float(value.strip() if isinstance(value, str) else value)
    except ValueError:
        return None


def parse_human_int(value: Any) -> int:
    """Parse an int the way vLLM's CLI does (vllm/engine/arg_utils.py human_readable_int).

    Lower-case suffixes are decimal and may carry decimals ("16k" = 16000,
    "25.6k" = 25600); upper-case ones are binary and may not ("16K" = 16384,
    "1M" = 1048576).  Raises ``ValueError`` for anything else.
    """
    if isinstance(value, bool):
        raise ValueError('not an integer: %r' % (value,))
    as_int = _to_int(value)
    if as_int is not None:
        return as_int
    if isinstance(value, str):
        match = _HUMAN_INT_RE.match(value.strip())
        if match:
            number, suffix = match.groups()
            if suffix in _DECIMAL_SUFFIX:
                return int(float(number) * _DECIMAL_SUFFIX[suffix])
            if '.' in number:
                raise ValueError('decimals are not allowed with binary suffix %s in %r (did you mean %s%s?)'
                                 % (suffix, value, number, suffix.lower()))
            return int(number) * _BINARY_SUFFIX[suffix]
    raise ValueError('not an integer or a vLLM size such as 16384, 16k or 16K: %r' % (value,))


def format_utilization(value: float) -> str:
    """At least two decimals, as the guide writes it: 0.9 -> "0.90", 0.925 -> "0.925"."""
    whole, decimals = ('%.10f' % value).rstrip('0').split('.')
    return '%s.%s' % (whole, decimals.ljust(2, '0'))


def compact_json(data: Any) -> str:
    return json.dumps(data, separators=(',', ':'))


# Argument spec keys that say what a value is (the rest is documentation).
SPEC_KEYS = ('type', 'elements', 'choices', 'options', 'no_log')


def _show(value: Any) -> str:
    try:
        return json.dumps(value, sort_keys=True, ensure_ascii=False)
    except (TypeError, ValueError):
        return to_text(value)


def _as_text_paths(spec: Dict[str, Any]) -> Dict[str, Any]:
    """The spec with ``path`` read as ``str``: Ansible's path conversion expands ``~`` and ``$VARS`` with the
    controller's environment, and most of these paths are the node's."""
    spec = dict((key, spec[key]) for key in SPEC_KEYS if key in spec)
    for key in ('type', 'elements'):
        if spec.get(key) == 'path':
            spec[key] = 'str'
    if isinstance(spec.get('options'), dict):
        spec['options'] = dict((name, _as_text_paths(option or {})) for name, option in spec['options'].items())
    return spec


def arrived(name: str, value: Any, spec: Optional[Dict[str, Any]]) -> Tuple[Any, List[str]]:
    """(the value read as its argument spec declares, [errors]) for a variable as it arrives.

    Ansible's own conversions (its argument spec validator: ``"8080"`` is 8080 for an ``int``, ``"yes"``
    True for a ``bool``, with Ansible's truth table), and three refusals of its own: a string where a
    list is expected is not split at its commas ("[0,1]" or "0, 1" copied from a spreadsheet would
    become "[0" and "1]"), a list or mapping where a string is expected is not turned into its Python
    text, and YAML's ``.nan``/``.inf`` are not numbers. With errors, the value is returned as it came.
    """
    if not spec:
        return value, []
    if spec.get('type') == 'list' and isinstance(value, str):
        return value, ['a string, not a list: write it as a YAML list']
    if spec.get('type') in ('str', 'path') and isinstance(value, (list, dict)):
        return value, ['a %s, not a string' % ('list' if isinstance(value, list) else 'mapping')]
    if isinstance(value, float) and not math.isfinite(value):
        # YAML's .nan and .inf: Ansible's own int conversion raises on them (OverflowError).
        return value, ['%s is not a finite number' % _show(value)]
    try:
        result = ArgumentSpecValidator({name: _as_text_paths(spec)}).validate({name: value})
    except (OverflowError, TypeError, ValueError) as exc:
        # Ansible's converters raise on some values instead of reporting them (a list holding an
        # integer wider than 64 bits where an int is expected): report it like any wrong type.
        return value, ['cannot be read as %s (%s)' % (spec.get('type', 'str'), to_text(exc))]
    errors = [to_text(error) for error in result.errors]
    if errors:
        return value, errors
    return result.validated_parameters.get(name, value), []
