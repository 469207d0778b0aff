# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The range of every numeric role variable, declared once (data/ranges.yml).

The roles' argument specs say a variable is an ``int`` or a ``float`` (or a list of them); this table says which
numbers make sense (a timeout of 0 s, a port of 70000, a log of -3 lines do not). One generic
check (``range_problem``) judges every entry, in the variables stage of the host plan, before
any host is contacted. A unit test fails when a numeric option of any role's argument spec has
no entry here, so a new variable cannot arrive without its range.

The numeric options of vllm_config (``vllm_serve_<option>``: tensor_parallel_size,
max_num_seqs, gpu_memory_utilization, ...) are not here: their ranges depend on the model and
the platform and are rules of the planner (``contracts/_rules.py``), each quoting the guide.
"""

from __future__ import annotations

import collections
import math
import re

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts import _data
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._coerce import _show

Range = collections.namedtuple('Range', ['minimum', 'maximum', 'example'])

_DATA = _data.load('ranges')
PORT = (_DATA['common']['port']['minimum'], _DATA['common']['port']['maximum'])
RANGES = dict((name, Range(entry.get('minimum'), entry.get('maximum'), entry['example']))
              for name, entry in _DATA['entries'].items())
# Variables whose null means "no limit" (every other ranged variable needs a number).
NULLABLE = tuple(name for name, entry in _DATA['entries'].items() if entry.get('nullable'))

_NUMBER_RE = re.compile(r'^\s*[-+]?([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][-+]?[0-9]+)?\s*$')


def _number(value):
    """The value as a number (an int or float, or text that reads as one), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value if not isinstance(value, float) or math.isfinite(value) else None
    if isinstance(value, str) and _NUMBER_RE.match(value):
        number = float(value)
        return int(number) if number.is_integer() and '.' not in value and 'e' not in value.lower() else number
    return None


def range_problem(name, value):
    """{msg, fix} when ``name`` has a range and ``value`` (of the right type) lies outside it, else None.

    A value that is not a number is the type check's to report, not this one's. For a list variable
    (``eval_concurrency``) the range is every item's.
    """
    bounds = RANGES.get(name)
    if bounds is None:
        return None
    if isinstance(value, (list, tuple)):
        for item in value:
            problem = range_problem(name, item) if item is not None else None
            if problem is not None:
                # "NAME=ITEM is below N" -> "NAME=[...]: the item ITEM is below N"
                why = problem['msg'][len('%s=%s ' % (name, _show(item))):]
                return {'msg': '%s=%s: the item %s %s' % (name, _show(list(value)), _show(item), why),
                        'fix': problem['fix'].replace('set %s to' % name, 'set every item of %s to' % name, 1)}
        return None
    number = _number(value)
    if value is None and name not in NULLABLE:
        why = 'is not a number'
    elif number is None:
        return None
    elif bounds.minimum is not None and number < bounds.minimum:
        why = 'is below %s' % bounds.minimum
    elif bounds.maximum is not None and number > bounds.maximum:
        why = 'is above %s' % bounds.maximum
    else:
        return None
    if bounds.maximum is None:
        fix = 'set %s to %s or more, e.g. %s' % (name, bounds.minimum, bounds.example)
    else:
        fix = 'set %s to a number in %s..%s, e.g. %s' % (name, bounds.minimum, bounds.maximum, bounds.example)
    return {'msg': '%s=%s %s' % (name, _show(value), why), 'fix': fix}


def range_problems(values, prefix=''):
    """{check: settings, msg, fix} for every variable of ``values`` (a mapping) whose name starts with
    ``prefix`` and lies outside its range."""
    found = (range_problem(name, values[name]) for name in sorted(RANGES) if name.startswith(prefix) and name in values)
    return [dict(problem, check='settings') for problem in found if problem is not None]
