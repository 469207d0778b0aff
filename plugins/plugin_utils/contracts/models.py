# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Model catalog: the architecture facts the memory planner needs, as data.

No official ``config.json`` is vendored here; each number names the public
copy it was checked against.  Sources:

[HF9B]   Qwen3.5-9B ``text_config`` used as a test fixture ("the real Qwen3.5-9B
         config"), with the checkpoint index ``total_size`` 19,306,216,416 bytes
         (bf16, so 9.653e9 parameters): layers 32, layer_types 3x linear + 1x full,
         full_attention_interval 4, heads 16, kv heads 4, head_dim 256,
         linear key heads 16, linear value heads 32, linear key/value head dim 128,
         linear_conv_kernel_dim 4, hidden 4096, vocab 248320,
         mtp_num_hidden_layers 1, tie_word_embeddings false.
[OMEGA]  p-doom/omegalax ``omegalax/models/qwen3_5/config.py`` (per-model overrides
         of the Hugging Face configs, defaults otherwise): 2B hidden 2048, 24 layers,
         8 heads, 2 kv heads, 16 linear value heads, tied embeddings; 4B hidden 2560,
         32 layers, 16 heads, 4 kv heads, 32 linear value heads, tied embeddings;
         defaults head_dim 256, linear key heads 16, linear head dims 128, conv 4,
         vocab 248320.
[HUB]    Hugging Face model pages ("Model size"): 2.27B, 4.66B, 9.65B parameters
         (vision encoder and MTP head included; vLLM loads both).
[REF]    shared/reference.md table (max positions 262144, one MTP layer, interval 4).
[GUIDE]  the deployment guide (vllm-ascend docs, "Qwen3.5-Dense" tutorial): support
         starts with vllm-ascend v0.23.0rc1 (section 1),
         "作为最低版本要求，请使用 vllm-ascend:v0.23.0-310p" (section 4.1), and the
         section 5.1 command's values (max_model_len 16384, max_num_seqs 32,
         gpu_memory_utilization 0.90, num_speculative_tokens 1, served name qwen3.5,
         "当启用张量并行（TP）时 ... 最多允许两个捕获大小（例如[1, 8]）").
[T27B]   vllm-ascend docs, "Qwen3.5-27B & Qwen3.6-27B" tutorial
         (docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md on the branch
         releases/v0.23.0, the line of the pinned image v0.23.0-310p): section 1 "Support
         for Atlas 300I DUO ... starts from vllm-ascend:v0.23.0rc1"; section 4.1 "For Atlas
         300I DUO, use vllm-ascend:v0.23.0-310p"; section 5.1 "On Atlas 300I DUO, at least 2
         devices are required", "Choose TP=2 or TP=4", "The quantized versions need to start
         with the --quantization ascend parameter", and the Atlas 300I DUO commands (TP 4,
         max_num_seqs 128, max_model_len 16384, gpu_memory_utilization 0.90, MTP 1, served
         names qwen3.5 / qwen3.6, non-MTP capture sizes [1,4]); the w8a8 weights are "only
         ~30 GB" (section 9.1).  The tutorial names no Atlas 200I Pro: the 27B models run on
         the 300I DUO only.  "They share the same hybrid attention design" and "the same MTP
         head design" (sections 1 and 5.1).
[Q36]    Qwen/Qwen3.6-27B config.json (revision 6a9e13bd), as quoted verbatim in public
         third-party code (no model hub is reachable from here): text_config hidden 5120,
         64 layers (3 linear + 1 full, interval 4), heads 24, kv heads 4, head_dim 256,
         linear key heads 16, linear value heads 48, linear head dims 128, conv 4, vocab
         248320, untied embeddings, max positions 262144, one MTP layer.  Third-party pages
         give 27.78B parameters and about 33 GB for the Eco-Tech w8a8 checkpoint; the plan
         takes 33 GB, the larger of that and the tutorial's ~30 GB.
[QCARD]  The Qwen3.5 dense model cards (Hugging Face Qwen/Qwen3.5-9B and siblings, section
         "vLLM", as quoted in public copies; no model hub is reachable from here): the standard
         command ``vllm serve Qwen/Qwen3.5-9B ... --reasoning-parser qwen3`` and for tool use
         ``... --reasoning-parser qwen3 --enable-auto-tool-choice --tool-call-parser qwen3_coder``.
[RECIPE] vLLM recipes, ``Qwen/Qwen3.5.md`` (vllm-project/recipes at 5d7daec2): every command passes
         ``--reasoning-parser qwen3``; "To enable tool calling, add ``--enable-auto-tool-choice
         --tool-call-parser qwen3_coder``"; ``Qwen/Qwen3.6.md`` says the same for Qwen3.6 ("shares
         the same architecture family as Qwen3.5").  Both names are registered in vLLM 0.23.0
         (chat_parsers.py).
"""

from __future__ import annotations

import copy
from typing import Any, Dict, List, Optional

# Guide 5.1: the same launch values for all three models.
GUIDE_DEFAULTS: Dict[str, Any] = {
    'max_model_len': 16384,
    'max_num_seqs': 32,
    'gpu_memory_utilization': 0.9,
    'num_speculative_tokens': 1,
    'served_model_name': 'qwen3.5',
}

# Shared by the three dense models: [HF9B], [OMEGA] defaults, [REF].
_QWEN35_COMMON: Dict[str, Any] = {
    'full_attention_interval': 4,
    'head_dim': 256,
    'linear_num_key_heads': 16,
    'linear_key_head_dim': 128,
    'linear_value_head_dim': 128,
    'linear_conv_kernel_dim': 4,
    'vocab_size': 248320,
    'mtp_num_layers': 1,
    'max_position_embeddings': 262144,
    # [GUIDE] section 1: first release that runs Qwen3.5 dense on 310P.
    'min_image_tag': 'v0.23.0rc1-310p',
    # [GUIDE] section 4.1: the minimum the guide asks for; older tags get a warning.
    'guide_min_image_tag': 'v0.23.0-310p',
    # [QCARD], [RECIPE]: the parsers the model's own documentation passes to vllm serve.
    'reasoning_parser': 'qwen3',
    'tool_call_parser': 'qwen3_coder',
}


def _qwen35(**fields: Any) -> Dict[str, Any]:
    model = copy.deepcopy(_QWEN35_COMMON)
    model.update(fields)
    model['guide_defaults'] = copy.deepcopy(GUIDE_DEFAULTS)
    return model


MODELS: Dict[str, Dict[str, Any]] = {
    # [OMEGA] 2B entry, [HUB] 2.27B.
    'Qwen/Qwen3.5-2B': _qwen35(
        num_hidden_layers=24,
        num_attention_heads=8,
        num_key_value_heads=2,
        linear_num_value_heads=16,
        hidden_size=2048,
        tie_word_embeddings=True,
        num_parameters=2270000000,
    ),
    # [OMEGA] 4B entry, [HUB] 4.66B.
    'Qwen/Qwen3.5-4B': _qwen35(
        num_hidden_layers=32,
        num_attention_heads=16,
        num_key_value_heads=4,
        linear_num_value_heads=32,
        hidden_size=2560,
        tie_word_embeddings=True,
        num_parameters=4660000000,
    ),
    # [HF9B] config and index, [HUB] 9.65B.
    'Qwen/Qwen3.5-9B': _qwen35(
        num_hidden_layers=32,
        num_attention_heads=16,
        num_key_value_heads=4,
        linear_num_value_heads=32,
        hidden_size=4096,
        tie_word_embeddings=False,
        num_parameters=9650000000,
    ),
}


def _qwen_27b_w8a8(served_model_name: str) -> Dict[str, Any]:
    """[T27B] and [Q36]: the W8A8 checkpoints of Qwen3.5-27B and Qwen3.6-27B on the 300I DUO."""
    model = _qwen35(
        num_hidden_layers=64,
        num_attention_heads=24,
        num_key_value_heads=4,
        linear_num_value_heads=48,
        hidden_size=5120,
        tie_word_embeddings=False,
        num_parameters=27780000000,
        # Int8 weights (embeddings and head stay 16-bit): what one copy of the checkpoint takes.
        weight_bytes=33000000000,
        quantization='ascend',
        allowed_tp={'atlas_300i_duo': [2, 4]},
        source='vllm-ascend docs, "Qwen3.5-27B & Qwen3.6-27B" tutorial',
    )
    model['guide_defaults'].update(max_num_seqs=128, served_model_name=served_model_name)
    # The tutorial's non-MTP sizes at TP > 1 ("the non-MTP sizes [1,4] become [2,8]").
    model['tp_cudagraph_batch_sizes'] = [1, 4]
    return model


# [T27B] section 3.1: Qwen3.5-27B-w8a8 is Eco-Tech/Qwen3.5-27B-w8a8-mtp, Qwen3.6-27B-w8a8 is
# Eco-Tech/Qwen3.6-27B-w8a8 (the names in its Atlas 300I DUO commands).
MODELS['Eco-Tech/Qwen3.5-27B-w8a8-mtp'] = _qwen_27b_w8a8('qwen3.5')
MODELS['Eco-Tech/Qwen3.6-27B-w8a8'] = _qwen_27b_w8a8('qwen3.6')
# Later docs name this checkpoint for the 300I DUO: vllm-ascend pull request 16588 (merged
# 2026-09-15, fixes issue 15621) "corrects the Atlas 300I DUO section to use
# Eco-Tech/Qwen3.6-27B-w8a8-310p"; the v0.23.0 tutorial and the weekly CI still name the other.
MODELS['Eco-Tech/Qwen3.6-27B-w8a8-310p'] = _qwen_27b_w8a8('qwen3.6')

# Positive integers every model needs; mtp_num_layers may be 0 (no MTP head).
_POSITIVE_INT_FIELDS = (
    'num_hidden_layers', 'full_attention_interval', 'num_attention_heads',
    'num_key_value_heads', 'head_dim', 'linear_num_key_heads', 'linear_num_value_heads',
    'linear_key_head_dim', 'linear_value_head_dim', 'linear_conv_kernel_dim',
    'hidden_size', 'vocab_size', 'num_parameters', 'max_position_embeddings',
)
_NON_NEGATIVE_INT_FIELDS = ('mtp_num_layers',)
_BOOL_FIELDS = ('tie_word_embeddings',)
_TAG_FIELDS = ('min_image_tag',)
_OPTIONAL_TAG_FIELDS = ('guide_min_image_tag',)
# weight_bytes: one copy of the weights when not num_parameters x 2 (fp16), e.g. int8 weights;
# quantization: the --quantization method the checkpoint needs (None: not quantized);
# allowed_tp: {platform: [TP sizes]} when the model runs only on those platforms, with
# those sizes (its tutorial's), instead of every platform with the platform's sizes;
# source: the document the model's rules come from, quoted in messages;
# tp_cudagraph_batch_sizes: requests per graph at TP > 1 when none are given (the guide's [1, 8]);
# reasoning_parser / tool_call_parser: the vLLM --reasoning-parser / --tool-call-parser names that suit
# the model (None: it has none), which vllm_serve_reasoning_parser / vllm_serve_tool_call_parser "auto" pass.
PARSER_FIELDS = ('reasoning_parser', 'tool_call_parser')
_OPTIONAL_FIELDS = ('weight_bytes', 'quantization', 'allowed_tp', 'source', 'tp_cudagraph_batch_sizes') + PARSER_FIELDS
MODELS_EXAMPLE_PARSERS = {'reasoning_parser': 'qwen3', 'tool_call_parser': 'qwen3_coder'}
REQUIRED_FIELDS = _POSITIVE_INT_FIELDS + _NON_NEGATIVE_INT_FIELDS + _BOOL_FIELDS + _TAG_FIELDS
ALL_FIELDS = REQUIRED_FIELDS + _OPTIONAL_TAG_FIELDS + _OPTIONAL_FIELDS + ('guide_defaults',)


class ModelSpecError(ValueError):
    """A model name or ``model_spec`` the planner cannot use, with what is wrong, item by item.

    ``unknown``: keys of model_spec that are not catalog fields; ``missing``: catalog fields
    a model outside the catalog lacks; ``bad``: (key, value, what it must be) tuples;
    ``unknown_model``: the model name when it is not in the catalog and no spec describes it.
    """

    def __init__(self,
                 message: str,
                 unknown: Optional[List[str]] = None,
                 missing: Optional[List[str]] = None,
                 bad: Optional[List[Any]] = None,
                 unknown_model: Optional[str] = None) -> None:
        super(ModelSpecError, self).__init__(message)
        self.unknown = list(unknown or [])
        self.missing = list(missing or [])
        self.bad = list(bad or [])
        self.unknown_model = unknown_model


def model_names() -> List[str]:
    return sorted(MODELS)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _validate(name: str, model: Dict[str, Any]) -> Dict[str, Any]:
    missing = [key for key in REQUIRED_FIELDS if key not in model]
    if missing:
        raise ModelSpecError(
            'model %s: missing key(s) %s in model_spec; a model outside the catalog (%s) needs all of: %s'
            % (name, ', '.join(missing), ', '.join(model_names()), ', '.join(REQUIRED_FIELDS)),
            missing=missing)
    bad: List[Any] = []
    # YAML may give the parameter count as 2.27e9; accept an integral float.
    params = model['num_parameters']
    if isinstance(params, float) and params.is_integer():
        model['num_parameters'] = int(params)
    for key in _POSITIVE_INT_FIELDS:
        if not _is_int(model[key]) or model[key] < 1:
            bad.append((key, model[key], 'a positive integer'))
    for key in _NON_NEGATIVE_INT_FIELDS:
        if not _is_int(model[key]) or model[key] < 0:
            bad.append((key, model[key], 'an integer >= 0'))
    for key in _BOOL_FIELDS:
        if not isinstance(model[key], bool):
            bad.append((key, model[key], 'true or false'))
    for key in _TAG_FIELDS + _OPTIONAL_TAG_FIELDS:
        if key in model and not (isinstance(model[key], str) and model[key].startswith('v')):
            bad.append((key, model[key], 'an image tag such as v0.23.0rc1-310p'))
    bad.extend(_optional_problems(model))
    if not bad and model['num_hidden_layers'] < model['full_attention_interval']:
        # Without one full-attention layer there is no KV cache to plan.
        bad.append(('num_hidden_layers', model['num_hidden_layers'],
                    'at least full_attention_interval=%d' % model['full_attention_interval']))
    defaults = model.get('guide_defaults', {})
    if not isinstance(defaults, dict):
        bad.append(('guide_defaults', defaults, 'a dict'))
    else:
        unknown = sorted(set(defaults) - set(GUIDE_DEFAULTS))
        if unknown:
            bad.append(('guide_defaults', defaults, 'keys from %s' % ', '.join(sorted(GUIDE_DEFAULTS)),
                        'guide_defaults keys %s (valid: %s)' % (', '.join(unknown), ', '.join(sorted(GUIDE_DEFAULTS)))))
    if bad:
        raise ModelSpecError('model %s: bad value(s) in model_spec: %s'
                             % (name, '; '.join(item[3] if len(item) > 3 else '%s=%r (%s)' % item for item in bad)),
                             bad=[item[:3] for item in bad])
    merged_defaults = copy.deepcopy(GUIDE_DEFAULTS)
    merged_defaults.update(defaults)
    model['guide_defaults'] = merged_defaults
    return model


def _optional_problems(model: Dict[str, Any]) -> List[Any]:
    bad: List[Any] = []
    weight_bytes = model.get('weight_bytes')
    if isinstance(weight_bytes, float) and weight_bytes.is_integer():
        model['weight_bytes'] = weight_bytes = int(weight_bytes)
    if weight_bytes is not None and (not _is_int(weight_bytes) or weight_bytes < 1):
        bad.append(('weight_bytes', weight_bytes, 'a positive integer (bytes of one copy of the weights)'))
    quantization = model.get('quantization')
    if quantization is not None and not (isinstance(quantization, str) and quantization):
        bad.append(('quantization', quantization, 'a quantization method such as ascend, or null'))
    allowed = model.get('allowed_tp')
    if allowed is not None and not (isinstance(allowed, dict) and allowed and all(
            isinstance(platform, str) and isinstance(sizes, list) and sizes
            and all(_is_int(size) and size >= 1 for size in sizes) for platform, sizes in allowed.items())):
        bad.append(('allowed_tp', allowed, 'a mapping of platform names to lists of TP sizes, '
                    'e.g. {atlas_300i_duo: [2, 4]}'))
    sizes = model.get('tp_cudagraph_batch_sizes')
    if sizes is not None and not (isinstance(sizes, list) and 1 <= len(sizes) <= 2
                                  and all(_is_int(size) and size >= 1 for size in sizes)):
        bad.append(('tp_cudagraph_batch_sizes', sizes, 'one or two requests-per-graph sizes, e.g. [1, 8] '
                    '(TP allows at most two capture sizes)'))
    for key in PARSER_FIELDS:
        value = model.get(key)
        if value is not None and not (isinstance(value, str) and value and value.strip() == value
                                      and value.lower() not in ('auto', 'none')):
            bad.append((key, value, 'a vLLM parser name such as %s, or null (the model has none)'
                        % MODELS_EXAMPLE_PARSERS[key]))
    source = model.get('source')
    if source is not None and not isinstance(source, str):
        bad.append(('source', source, 'a text naming the document the model\'s rules come from'))
    return bad


def get_model(name: str, spec: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """Return a copy of catalog model ``name``, updated with ``spec``.

    ``spec`` (inventory data) may override fields of a catalog model or
    describe a model the catalog does not know, in which case every field in
    ``REQUIRED_FIELDS`` must be given.  Unknown keys, missing keys and values
    of the wrong type raise ``ModelSpecError`` (a ``ValueError``) naming them.
    """
    if spec is not None and not isinstance(spec, dict):
        raise ModelSpecError('model_spec for %s must be a dict, got %r' % (name, spec),
                             bad=[('model_spec', spec, 'a dict')])
    spec = spec or {}
    unknown = sorted(set(spec) - set(ALL_FIELDS))
    if unknown:
        raise ModelSpecError('model %s: unknown model_spec key(s) %s; valid keys: %s'
                             % (name, ', '.join(unknown), ', '.join(sorted(ALL_FIELDS))), unknown=unknown)
    if name in MODELS:
        model = copy.deepcopy(MODELS[name])
    elif not spec:
        raise ModelSpecError('unknown model %r; catalog models: %s (describe another model with model_spec)'
                             % (name, ', '.join(model_names())), unknown_model=name)
    else:
        model = {}
    spec = copy.deepcopy(spec)
    if isinstance(spec.get('guide_defaults'), dict) and isinstance(model.get('guide_defaults'), dict):
        # A catalog model's own defaults stay unless the spec changes them.
        spec['guide_defaults'] = dict(model['guide_defaults'], **spec['guide_defaults'])
    model.update(spec)
    model['name'] = name
    return _validate(name, model)
