# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Reasoning and tool-call parsers as data: which names each vLLM version registers, what its API returns.

Sources, as read:

[V0230]  vLLM 0.23.0, the wheel ``vllm-0.23.0-2-cp38-abi3-manylinux_2_28_x86_64.whl`` from PyPI
         (``vllm/_version.py``: 0.23.0, commit g0fc695fc6), the vLLM inside the vllm-ascend
         v0.23.0 images (versions.py [DF]: ``ARG VLLM_TAG=v0.23.0``):
         - ``vllm/reasoning/__init__.py`` ``_REASONING_PARSERS_TO_REGISTER`` and
           ``vllm/tool_parsers/__init__.py`` ``_TOOL_PARSERS_TO_REGISTER`` (the names
           ``--reasoning-parser`` and ``--tool-call-parser`` accept; nothing registers another one
           eagerly in that tree);
         - ``vllm/entrypoints/openai/api_server.py`` ``validate_api_server_args``: an unknown tool-call
           parser stops the server at start with ``KeyError: invalid tool call parser: NAME (chose
           from { ... })`` (only with ``--enable-auto-tool-choice``). Its reasoning-parser check reads
           ``structured_outputs_config.reasoning_parser``, which ``--reasoning-parser`` fills only when
           the engine config is made (``engine/arg_utils.py`` ``create_engine_config``), so an unknown
           ``--reasoning-parser`` passes it and ends the engine after the model loaded:
           ``EngineCore.__init__`` (``v1/engine/core.py``) makes the ``StructuredOutputManager``
           (``v1/structured_output/__init__.py``), whose lookup raises ``KeyError: Reasoning parser
           'NAME' not found. Available parsers: ...``;
         - ``vllm/entrypoints/openai/cli_args.py`` ``validate_parsed_serve_args``:
           ``Error: --enable-auto-tool-choice requires --tool-call-parser``;
         - ``vllm/entrypoints/serve/render/serving.py``: a request whose ``tool_choice`` is
           ``auto`` (the default when it carries ``tools``) on a server without
           ``--enable-auto-tool-choice`` gets 400 ``"auto" tool choice requires
           --enable-auto-tool-choice and --tool-call-parser to be set``;
         - ``vllm/entrypoints/openai/chat_completion/protocol.py`` ``ChatMessage``: the reasoning
           text is the message field ``reasoning`` ("vLLM-specific"); ``reasoning_content`` is
           accepted only in requests, as a deprecated name that is renamed to ``reasoning``;
         - ``vllm/reasoning/qwen3_reasoning_parser.py``: "Reasoning parser for the Qwen3/Qwen3.5
           model family"; with ``chat_template_kwargs`` ``enable_thinking`` false the whole
           answer is content.
"""

from __future__ import annotations

import copy
from typing import Any, Dict, Optional

# The option values that are not parser names.
AUTO = 'auto'
NONE = 'none'

# Flags of vllm serve these options pass.
REASONING_FLAG = '--reasoning-parser'
TOOL_CALL_FLAG = '--tool-call-parser'
AUTO_TOOL_CHOICE_FLAG = '--enable-auto-tool-choice'

_SOURCE_V0230 = 'vllm/reasoning/__init__.py and vllm/tool_parsers/__init__.py of vLLM 0.23.0'

REGISTRY: Dict[str, Dict[str, Any]] = {
    'v0.23.0': {
        'reasoning': (
            'cohere_command3', 'cohere_command4', 'deepseek_r1', 'deepseek_v3', 'deepseek_v4', 'ernie45', 'gemma4',
            'glm45', 'granite', 'holo2', 'hunyuan_a13b', 'hy_v3', 'kimi_k2', 'mimo', 'minimax_m2',
            'minimax_m2_append_think', 'mistral', 'nemotron_v3', 'olmo3', 'openai_gptoss', 'poolside_v1', 'qwen3',
            'seed_oss', 'step3', 'step3p5',
        ),
        'tool_call': (
            'apertus', 'cohere_command3', 'cohere_command4', 'deepseek_v3', 'deepseek_v31', 'deepseek_v32',
            'deepseek_v4', 'ernie45', 'functiongemma', 'gemma4', 'gigachat3', 'glm45', 'glm47', 'granite',
            'granite-20b-fc', 'granite4', 'hermes', 'hunyuan_a13b', 'hy_v3', 'internlm', 'jamba', 'kimi_k2', 'lfm2',
            'llama3_json', 'llama4_json', 'llama4_pythonic', 'longcat', 'mimo', 'minicpm5', 'minimax', 'minimax_m2',
            'mistral', 'olmo3', 'openai', 'phi4_mini_json', 'poolside_v1', 'pythonic', 'qwen3_coder', 'qwen3_xml',
            'seed_oss', 'step3', 'step3p5', 'xlam',
        ),
        # [V0230] ChatMessage.reasoning.
        'reasoning_field': 'reasoning',
        'source': _SOURCE_V0230,
    },
}

KINDS = ('reasoning', 'tool_call')


def registry_for(vllm_version: Any) -> Optional[Dict[str, Any]]:
    """The parser names of a vLLM version ("v0.23.0" or "0.23.0"), or None when they were not read."""
    text = str(vllm_version or '')
    entry = REGISTRY.get(text if text.startswith('v') else 'v' + text)
    return copy.deepcopy(entry) if entry is not None else None
