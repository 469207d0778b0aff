# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Model catalog: the architecture facts the memory planner needs (data/models.yml, each with its source)."""

from __future__ import annotations

import copy
from typing import Any, Dict, List, Optional

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts import _data

_DATA = _data.load('models')
_SCHEMA: Dict[str, str] = _DATA['schema']
GUIDE_DEFAULTS: Dict[str, Any] = _DATA['guide_defaults']
MODELS: Dict[str, Dict[str, Any]] = dict(
    (name, dict(model, guide_defaults=dict(GUIDE_DEFAULTS, **model.get('guide_defaults', {}))))
    for name, model in _DATA['entries'].items())

REQUIRED_FIELDS = tuple(key for key, kind in _SCHEMA.items() if not kind.endswith('?'))
ALL_FIELDS = tuple(_SCHEMA)
# Positive integers every model needs; mtp_num_layers may be 0 (no MTP head).
_NON_NEGATIVE_INT_FIELDS = ('mtp_num_layers',)
_POSITIVE_INT_FIELDS = tuple(key for key in REQUIRED_FIELDS
                             if _SCHEMA[key] == 'int' and key not in _NON_NEGATIVE_INT_FIELDS)
_BOOL_FIELDS = tuple(key for key in REQUIRED_FIELDS if _SCHEMA[key] == 'bool')
PARSER_FIELDS = ('reasoning_parser', 'tool_call_parser')


class ModelSpecError(ValueError):
    """A model name or ``model_spec`` the planner cannot use, with what is wrong, item by item.

    ``unknown``: keys of model_spec that are not catalog fields; ``missing``: catalog fields
    a model outside the catalog lacks; ``bad``: (key, value, what it must be) tuples;
    ``unknown_model``: the model name when it is not in the catalog and no spec describes it.
    """

    def __init__(self, message: str, unknown: Optional[List[str]] = None, missing: Optional[List[str]] = None,
                 bad: Optional[List[Any]] = None, unknown_model: Optional[str] = None) -> None:
        super().__init__(message)
        self.unknown = list(unknown or [])
        self.missing = list(missing or [])
        self.bad = list(bad or [])
        self.unknown_model = unknown_model


def model_names() -> List[str]:
    return sorted(MODELS)


def _validate(name: str, model: Dict[str, Any]) -> Dict[str, Any]:
    missing = [key for key in REQUIRED_FIELDS if key not in model]
    if missing:
        raise ModelSpecError(
            'model %s: missing key(s) %s in model_spec; a model outside the catalog (%s) needs all of: %s'
            % (name, ', '.join(missing), ', '.join(model_names()), ', '.join(REQUIRED_FIELDS)),
            missing=missing)
    bad: List[Any] = []
    # YAML may give a parameter or byte count as 2.27e9; accept an integral float.
    for key in ('num_parameters', 'weight_bytes'):
        if isinstance(model.get(key), float) and model[key].is_integer():
            model[key] = int(model[key])
    for keys, least, what in ((_POSITIVE_INT_FIELDS, 1, 'a positive integer'), (_NON_NEGATIVE_INT_FIELDS, 0, 'an integer >= 0')):
        bad.extend((key, model[key], what) for key in keys if not _data.is_kind(model[key], 'int') or model[key] < least)
    bad.extend((key, model[key], 'true or false') for key in _BOOL_FIELDS if not isinstance(model[key], bool))
    bad.extend((key, model[key], 'an image tag such as v0.23.0rc1-310p') for key in ('min_image_tag', 'guide_min_image_tag')
               if key in model and not (isinstance(model[key], str) and model[key].startswith('v')))
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
    model['guide_defaults'] = dict(copy.deepcopy(GUIDE_DEFAULTS), **defaults)
    return model


def _optional_problems(model: Dict[str, Any]) -> List[Any]:
    bad: List[Any] = []
    weight_bytes = model.get('weight_bytes')
    if weight_bytes is not None and (not _data.is_kind(weight_bytes, 'int') or weight_bytes < 1):
        bad.append(('weight_bytes', weight_bytes, 'a positive integer (bytes of one copy of the weights)'))
    quantization = model.get('quantization')
    if quantization is not None and not (isinstance(quantization, str) and quantization):
        bad.append(('quantization', quantization, 'a quantization method such as ascend, or null'))
    allowed = model.get('allowed_tp')
    if allowed is not None and not (isinstance(allowed, dict) and allowed and all(
            isinstance(platform, str) and isinstance(sizes, list) and sizes
            and all(_data.is_kind(size, 'int') and size >= 1 for size in sizes) for platform, sizes in allowed.items())):
        bad.append(('allowed_tp', allowed, 'a mapping of platform names to lists of TP sizes, '
                    'e.g. {atlas_300i_duo: [2, 4]}'))
    sizes = model.get('tp_cudagraph_batch_sizes')
    if sizes is not None and not (isinstance(sizes, list) and 1 <= len(sizes) <= 2
                                  and all(_data.is_kind(size, 'int') and size >= 1 for size in sizes)):
        bad.append(('tp_cudagraph_batch_sizes', sizes, 'one or two requests-per-graph sizes, e.g. [1, 8] '
                    '(TP allows at most two capture sizes)'))
    for key in PARSER_FIELDS:
        value = model.get(key)
        if value is not None and not (isinstance(value, str) and value and value.strip() == value
                                      and value.lower() not in ('auto', 'none')):
            bad.append((key, value, 'a vLLM parser name such as %s, or null (the model has none)'
                        % _DATA['common']['qwen35'][key]))
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
