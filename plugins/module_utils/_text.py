# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""How messages write values, in one place (problems: module_utils/_problem.py), and the one reading of a text file.

The roles used to build these strings in Jinja; the Python that replaced them keeps
Jinja's exact output (``truncate``).
"""

from __future__ import annotations

from typing import Optional


def truncate(text: str, length: int, end: str = '...', leeway: int = 5) -> str:
    """Jinja's ``truncate(length)``: cut at a word boundary, leave text within the leeway whole."""
    return text if len(text) <= length + leeway else text[:length - len(end)].rsplit(' ', 1)[0] + end


def seconds_text(value: float) -> str:
    """A number of seconds as the user wrote it: ``3600``, ``2.5`` (no ``.0``)."""
    return str(int(value)) if float(value) == int(value) else str(value)


def read_text(path: str, missing: Optional[str] = None, limit: int = -1) -> Optional[str]:
    """The text of the file at ``path`` (its first ``limit`` bytes when given, bytes that are not UTF-8 replaced), or
    ``missing`` when it cannot be read."""
    try:
        with open(path, 'rb') as handle:
            return handle.read(limit).decode('utf-8', 'replace')
    except OSError:
        return missing
