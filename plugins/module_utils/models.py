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
         gpu_memory_utilization 0.90, num_speculative_tokens 1, served name qwen3.5).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
from typing import Any, Dict, List, Optional

# Guide 5.1: the same launch values for all three models.
GUIDE_DEFAULTS = {
    'max_model_len': 16384,
    'max_num_seqs': 32,
    'gpu_memory_utilization': 0.9,
    'num_speculative_tokens': 1,
    'served_model_name': 'qwen3.5',
}  # type: Dict[str, Any]

# Shared by the three dense models: [HF9B], [OMEGA] defaults, [REF].
_QWEN35_COMMON = {
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
}  # type: Dict[str, Any]


def _qwen35(**fields):
    # type: (**Any) -> Dict[str, Any]
    model = copy.deepcopy(_QWEN35_COMMON)
    model.update(fields)
    model['guide_defaults'] = copy.deepcopy(GUIDE_DEFAULTS)
    return model


MODELS = {
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
}  # type: Dict[str, Dict[str, Any]]

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
REQUIRED_FIELDS = _POSITIVE_INT_FIELDS + _NON_NEGATIVE_INT_FIELDS + _BOOL_FIELDS + _TAG_FIELDS
ALL_FIELDS = REQUIRED_FIELDS + _OPTIONAL_TAG_FIELDS + ('guide_defaults',)


class ModelSpecError(ValueError):
    """A model name or ``model_spec`` the planner cannot use, with what is wrong, item by item.

    ``unknown``: keys of model_spec that are not catalog fields; ``missing``: catalog fields
    a model outside the catalog lacks; ``bad``: (key, value, what it must be) tuples;
    ``unknown_model``: the model name when it is not in the catalog and no spec describes it.
    """

    def __init__(self, message, unknown=None, missing=None, bad=None, unknown_model=None):
        # type: (str, Optional[List[str]], Optional[List[str]], Optional[List[Any]], Optional[str]) -> None
        super(ModelSpecError, self).__init__(message)
        self.unknown = list(unknown or [])
        self.missing = list(missing or [])
        self.bad = list(bad or [])
        self.unknown_model = unknown_model


def model_names():
    # type: () -> List[str]
    return sorted(MODELS)


def _is_int(value):
    # type: (Any) -> bool
    return isinstance(value, int) and not isinstance(value, bool)


def _validate(name, model):
    # type: (str, Dict[str, Any]) -> Dict[str, Any]
    missing = [key for key in REQUIRED_FIELDS if key not in model]
    if missing:
        raise ModelSpecError(
            'model %s: missing key(s) %s in model_spec; a model outside the catalog (%s) needs all of: %s'
            % (name, ', '.join(missing), ', '.join(model_names()), ', '.join(REQUIRED_FIELDS)),
            missing=missing)
    bad = []  # type: List[Any]
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


def get_model(name, spec=None):
    # type: (str, Optional[Dict[str, Any]]) -> Dict[str, Any]
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
    model.update(copy.deepcopy(spec))
    model['name'] = name
    return _validate(name, model)
