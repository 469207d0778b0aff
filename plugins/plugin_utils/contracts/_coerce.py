# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Coercion of user values: integers, vLLM sizes ("16k", "16K"), floats, booleans.

Private to the planner (import from ``planner``).  Pure, Python 3.8 compatible."""

from __future__ import annotations

import json
import re
from typing import Any, Optional

from ansible_collections.ascend.vllm.plugins.module_utils._boolean import to_bool as _to_bool

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
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
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
