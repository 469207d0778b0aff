# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""How messages write values and lists of problems, in one place.

The roles used to build these strings in Jinja; the Python that replaced them keeps
Jinja's exact output (``truncate``) and the preflight report's one shape.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re
from typing import Any, Dict, List


def truncate(text, length, end='...', leeway=5):
    # type: (str, int, str, int) -> str
    """Jinja's ``truncate(length)``: cut at a word boundary, leave text within the leeway whole."""
    if len(text) <= length + leeway:
        return text
    return text[:length - len(end)].rsplit(' ', 1)[0] + end


def problem_report(header, problems):
    # type: (str, List[Dict[str, Any]]) -> str
    """``header``, then one ``- [check] msg. Fix: fix`` line per problem (a msg's own final stop dropped)."""
    lines = [header]
    # ``origin`` (the request knows where the user wrote the variable): the file and line to edit.
    lines += ['- [%s] %s. Fix: %s%s' % (
        p.get('check'), re.sub(r'[.]\s*$', '', str(p.get('msg'))), p.get('fix'),
        ' (set in %s)' % p['origin'] if p.get('origin') else '') for p in problems]
    return '\n'.join(lines)
