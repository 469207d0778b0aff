# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""A boolean as it arrives from an inventory, ``-e key=value`` or an AWX survey: the one reading of it.

The truth table is Ansible's own (``ansible.module_utils.parsing.convert_bool``: ``y``, ``yes``, ``on``,
``1``, ``true``, ``t`` and their false twins, in any case, around spaces), so a value means here what
``| bool`` and a module's ``type: bool`` make of it. Every caller in the collection reads booleans
through these two functions.
"""

from __future__ import annotations

from typing import Any, Optional

from ansible.module_utils.parsing.convert_bool import BOOLEANS_FALSE, BOOLEANS_TRUE


def to_bool(value: Any) -> Optional[bool]:
    """True or False for a value Ansible reads as a boolean; None for anything else (a problem to report)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        value = value.strip().lower()
    elif isinstance(value, float) and value in (0.0, 1.0):
        value = int(value)
    elif not isinstance(value, int):
        return None
    if value in BOOLEANS_TRUE:
        return True
    if value in BOOLEANS_FALSE:
        return False
    return None


def is_true(value: Any) -> bool:
    """Whether a setting is on: Ansible's non-strict reading (anything that is not a true value is off)."""
    return to_bool(value) is True
