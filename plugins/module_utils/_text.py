# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""How messages write values, in one place (problems: module_utils/_problem.py).

The roles used to build these strings in Jinja; the Python that replaced them keeps
Jinja's exact output (``truncate``).
"""

from __future__ import annotations


def truncate(text: str, length: int, end: str = '...', leeway: int = 5) -> str:
    """Jinja's ``truncate(length)``: cut at a word boundary, leave text within the leeway whole."""
    if len(text) <= length + leeway:
        return text
    return text[:length - len(end)].rsplit(' ', 1)[0] + end


def seconds_text(value: float) -> str:
    """A number of seconds as the user wrote it: ``3600``, ``2.5`` (no ``.0``)."""
    return str(int(value)) if float(value) == int(value) else str(value)
