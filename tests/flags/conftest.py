# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Make ``ansible_collections.ascend.vllm`` and scripts/gen-vllm-flags.py importable (``make flags-check``)."""

from __future__ import annotations

import os
import sys

_REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_COLLECTIONS = os.path.join(_REPO_ROOT, '.ansible', 'collections')

if os.path.isdir(os.path.join(_COLLECTIONS, 'ansible_collections')) and _COLLECTIONS not in sys.path:
    sys.path.insert(0, _COLLECTIONS)
