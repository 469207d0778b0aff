# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""A problem and the message that lists problems: one shape and one renderer for every phase.

A problem is a plain dict (it travels in task results as JSON): ``check`` (which check found it), ``msg``
(what is wrong, naming the variable and its value), ``fix`` (what to do), and, where the request knows,
``variable`` and ``origin`` (the file and line where the user set it). Preflight, the image inputs, the
node judgement and the evaluation inputs all render their problems with ``report``.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional


def problem(check: str, msg: str, fix: str, variable: Optional[str] = None, origin: Optional[str] = None) -> Dict[str, str]:
    """One problem; ``variable`` and ``origin`` only when known."""
    known = {'variable': variable, 'origin': origin}
    return dict({'check': check, 'msg': msg, 'fix': fix}, **{key: value for key, value in known.items() if value})


def line(item: Dict[str, Any]) -> str:
    """``- [check] msg. Fix: fix (set in origin)``: a msg's own final stop is dropped, the origin added when known."""
    return '- [%s] %s. Fix: %s%s' % (
        item.get('check'), re.sub(r'[.\s]+$', '', str(item.get('msg'))), item.get('fix'),
        ' (set in %s)' % item['origin'] if item.get('origin') else '')


def report(kind: str, host: str, problems: List[Dict[str, Any]], then: str = '') -> str:
    """The message that stops a phase: ``N <kind> problem(s) on HOST[; then]:``, then one line per problem.

    ``then`` says what did not happen because of them (``nothing was pulled``). Every line ends with a line break.
    """
    header = '%d %s problem(s) on %s%s:' % (len(problems), kind, host, '; ' + then if then else '')
    return '\n'.join([header] + [line(item) for item in problems]) + '\n'
