# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""How messages write values, in one place (problems: module_utils/_problem.py).

The roles used to build these strings in Jinja; the Python that replaced them keeps
Jinja's exact output (``truncate``).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


def truncate(text, length, end='...', leeway=5):
    # type: (str, int, str, int) -> str
    """Jinja's ``truncate(length)``: cut at a word boundary, leave text within the leeway whole."""
    if len(text) <= length + leeway:
        return text
    return text[:length - len(end)].rsplit(' ', 1)[0] + end
