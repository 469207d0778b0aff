# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Reasoning and tool-call parsers as data (data/chat_parsers.yml): which names each vLLM version registers, what
its API returns."""

from __future__ import annotations

import copy
from typing import Any, Dict, Optional

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts import _data

# The option values that are not parser names.
AUTO = 'auto'
NONE = 'none'

# Flags of vllm serve these options pass.
REASONING_FLAG = '--reasoning-parser'
TOOL_CALL_FLAG = '--tool-call-parser'
AUTO_TOOL_CHOICE_FLAG = '--enable-auto-tool-choice'

REGISTRY: Dict[str, Dict[str, Any]] = _data.load('chat_parsers')['entries']


def registry_for(vllm_version: Any) -> Optional[Dict[str, Any]]:
    """The parser names of a vLLM version ("v0.23.0" or "0.23.0"), or None when they were not read."""
    text = str(vllm_version or '')
    entry = REGISTRY.get(text if text.startswith('v') else 'v' + text)
    return copy.deepcopy(entry) if entry is not None else None
