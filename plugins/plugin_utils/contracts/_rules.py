# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The planner's rules, one function each, over a shared request context.

Each rule reads the request and what earlier rules settled on the context
(``ctx.tp``, ``ctx.model``, ...), records every broken rule in ``ctx.violations``
and sets what later rules and the command need; a value a rule rejects is left
None so no later rule reports it twice.  ``RULES`` is the order problems are
reported in.  The rules come from the vllm-ascend docs, "Qwen3.5-Dense"
tutorial ("guide"; section numbers in the messages are its sections), and
from what vLLM / vllm-ascend do at start.  Private to the planner.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Tuple

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._capture import (
    MAX_CAPTURE_SIZES_WITH_TP, capture_sizes, default_batch_sizes)
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._cli_args import (
    ADDITIONAL_CONFIG, _enables_npugraph_ex, _flag_name, extra_arg_problems, parser_flags, split_extra_args)
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.chat_parsers import (
    AUTO, AUTO_TOOL_CHOICE_FLAG, NONE, REASONING_FLAG, REGISTRY, TOOL_CALL_FLAG, registry_for)
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._boolean import to_bool
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._coerce import (
    _BINARY_SUFFIX, _to_float, _to_int, compact_json, format_utilization, parse_human_int)
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._grammar import (
    listen_host_problem, served_name_problem)
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._image_tags import image_sort_key, parse_image_tag
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._memory import memory_plan
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts import releases
from ansible_collections.ascend.vllm.plugins.module_utils._redact import HIDDEN, secret_name
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.models import (
    ALL_FIELDS, GUIDE_DEFAULTS, ModelSpecError, get_model, model_names)
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.vllm_options import BOUNDS, Bounds
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._vllm_flags import (
    DEFAULT_VERSION as DEFAULT_FLAGS_VERSION, flags_for, versions as flag_versions)
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.platforms import (
    did_you_mean as _did_you_mean, platform_violation, resolve_profile)

# Guide 5.1 ("在 Atlas 300I DUO 和 Atlas 200I Pro 上必须设置 --dtype float16。这些设备仅支持
# FP16 数据类型" and "--mamba-ssm-cache-dtype ... 仅支持 float16").
SUPPORTED_DTYPE = 'float16'
# vLLM CUDAGraphMode names (vllm/config/compilation.py); guide 5.1 recommends FULL_DECODE_ONLY.
CUDAGRAPH_MODES = ('NONE', 'PIECEWISE', 'FULL', 'FULL_DECODE_ONLY', 'FULL_AND_PIECEWISE')
RECOMMENDED_CUDAGRAPH_MODE = 'FULL_DECODE_ONLY'
# Guide 5.1 uses qwen3_5_mtp; newer vLLM also accepts the generic "mtp" and
# logs qwen3_5_mtp as deprecated.
SPECULATIVE_METHODS = ('qwen3_5_mtp', 'mtp')
_HEAD_KEYS = ('num_attention_heads', 'linear_num_key_heads', 'linear_num_value_heads')
# vllm-ascend NPUPlatform.supported_quantization (vllm_ascend/platform.py and utils.py, v0.23.0).
QUANTIZATION_METHODS = ('ascend', 'compressed-tensors', 'fp8', 'deepseek_v4_fp8')


class Context:
    """One request being checked: the request, its violations and warnings, the result and the settled values.

    A violation names ``prefix + option`` unless the request's ``var_names`` maps the option to the variable
    the caller really reads it from (``platform`` -> ``ascend_vllm_platform``).
    """

    def __init__(self, req: Dict[str, Any]) -> None:
        self.req = req
        self.prefix = req['var_prefix'] if isinstance(req['var_prefix'], str) else ''
        names = req['var_names'] if isinstance(req['var_names'], dict) else {}
        self.names = dict((key, value) for key, value in names.items()
                          if isinstance(key, str) and isinstance(value, str) and value)
        self.violations: List[Dict[str, Any]] = []
        self.warnings: List[str] = []
        self.warn = self.warnings.append
        self.result: Dict[str, Any] = {
            'argv': None, 'command': None, 'env': None, 'api_key_env': None, 'settings': None,
            'cudagraph_capture_sizes': None, 'memory': None, 'warnings': self.warnings,
            'violations': self.violations, 'profile': None, 'model': None, 'image': None,
        }
        # Settled by the rules; None while unknown or wrong.
        self.profile = self.model = self.tp = self.visible = self.k = self.seqs = self.mode = None
        self.batch = self.sizes = self.length = self.util = self.port = self.name = self.host = None
        self.model_path = self.extra = self.quant = None
        # rule_chat_parsers: the parsers the server runs with and which flags the module passes.
        self.chat: Optional[Dict[str, Any]] = None
        self.guide = GUIDE_DEFAULTS
        self.trim = False
        self.bools: Dict[str, Optional[bool]] = {}
        self.ints: Dict[str, Optional[int]] = {}

    def name_of(self, option: str) -> str:
        return self.names.get(option, self.prefix + option)

    def violation(self, option: str, value: Any, rule: str, fix: str) -> None:
        self.violations.append({'variable': self.name_of(option), 'value': value, 'rule': rule, 'fix': fix})

    def model_platform(self) -> Optional[str]:
        """The platform the model's ``allowed_tp`` knows this profile as (itself or its based_on), or None."""
        allowed = (self.model or {}).get('allowed_tp') or {}
        return next((name for name in (self.req['platform'], (self.profile or {}).get('based_on'))
                     if isinstance(name, str) and name in allowed), None)

    def allowed_tp(self, fallback: List[int]) -> List[int]:
        """TP sizes: the model's own on this platform (its tutorial's), else the platform's."""
        platform = self.model_platform()
        if platform is not None:
            return list(self.model['allowed_tp'][platform])
        return self.profile['allowed_tp'] if self.profile else fallback

    def tp_source(self) -> str:
        return self.model['source'] if self.model_platform() and self.model.get('source') else 'guide 5.1'


def _phrase(bounds: Bounds) -> str:
    """What a value of ``bounds`` must be, as the violation says it."""
    if bounds.kind == 'bool':
        return 'true or false'
    if bounds.kind == 'float':
        return 'in %s%g, %g]' % ('(' if bounds.open_minimum else '[', bounds.minimum, bounds.maximum)
    if bounds.maximum is None:
        return 'an integer >= %d' % bounds.minimum
    return 'an integer in %d..%d' % (bounds.minimum, bounds.maximum)


def _within(bounds: Bounds, value: Any) -> bool:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return False
    if bounds.minimum is not None and (value <= bounds.minimum if bounds.open_minimum else value < bounds.minimum):
        return False
    return bounds.maximum is None or value <= bounds.maximum


def bounded(ctx: Context, option: str, default: Any = None, required: bool = True) -> Any:
    """The request's ``option`` (``default`` when it is unset) within its BOUNDS (vllm_options), or None with a
    violation naming the user's variable, the value, the range and the fix. No value at all is a violation only
    when ``required``."""
    bounds = BOUNDS[option]
    raw = ctx.req[option] if ctx.req[option] is not None else default
    if raw is None and not required:
        return None
    value = {'bool': to_bool, 'int': _to_int, 'float': _to_float}[bounds.kind](raw)
    if (bounds.kind == 'bool' and value is not None) or (bounds.kind != 'bool' and _within(bounds, value)):
        return value
    ctx.violation(option, raw, '%s must be %s%s' % (option, _phrase(bounds), bounds.unit),
                  'set %s%s' % (ctx.name_of(option), bounds.fix))
    return None


def _fix_for_fit(ctx: Context, mem: Dict[str, Any]) -> str:
    tp, util, name_of = ctx.tp, ctx.util, ctx.name_of
    parts = []
    if mem['max_num_seqs_fit'] >= 1:
        parts.append('lower %s to at most %d (at this max_model_len)' % (name_of('max_num_seqs'), mem['max_num_seqs_fit']))
    if mem['max_model_len_fit'] >= 1:
        parts.append('lower %s to at most %d (at this max_num_seqs)' % (name_of('max_model_len'), mem['max_model_len_fit']))
    if mem['max_num_seqs_fit'] < 1 and mem['max_model_len_fit'] < 1 and mem['max_model_len_fit_one_seq'] >= 1:
        parts.append('lower both: a single sequence fits up to %s %d'
                     % (name_of('max_model_len'), mem['max_model_len_fit_one_seq']))
    bigger_tp = [size for size in ctx.allowed_tp([tp]) if size > tp]
    if bigger_tp:
        parts.append('raise %s to %d' % (name_of('tensor_parallel_size'), bigger_tp[0]))
    if util < 0.95:
        parts.append('raise %s (now %s) if the chip has the free memory'
                     % (name_of('gpu_memory_utilization'), format_utilization(util)))
    if not parts:
        parts.append('use a smaller model: the weights leave no room on this chip')
    return '; or '.join(parts)


def _model_fix(exc: ModelSpecError, model: Any, model_var: str, spec_var: str) -> str:
    """What to change for a model name or model_spec that get_model refused."""
    if exc.unknown_model is not None:
        return ('set %s to one of %s%s, or describe the model completely in %s'
                % (model_var, ', '.join(model_names()), _did_you_mean(model, model_names()), spec_var))
    if exc.unknown:
        return 'in %s: %s; valid keys: %s' % (
            spec_var, '; '.join('%s is not a field%s' % (key, _did_you_mean(key, sorted(ALL_FIELDS)))
                                for key in exc.unknown), ', '.join(sorted(ALL_FIELDS)))
    if exc.missing:
        return ('%s is not a catalog model (%s): give %s every field, missing %s'
                % (model, ', '.join(model_names()), spec_var, ', '.join(exc.missing)))
    return 'in %s: %s' % (spec_var, '; '.join('give %s %s' % (key, expected) for key, _value, expected in exc.bad))


def rule_platform(ctx: Context) -> None:
    """The platform profile: the rule source for TP, devices and the image suffix."""
    req = ctx.req
    profile, bad = resolve_profile(req['platform'], req['platform_overrides'], req.get('platform_spec'))
    if bad:
        ctx.violation(*platform_violation(bad, ctx.name_of))
    ctx.profile = ctx.result['profile'] = profile


def rule_model(ctx: Context) -> None:
    """The model catalog entry, with model_spec applied."""
    req = ctx.req
    try:
        ctx.model = get_model(req['model'], req['model_spec'])
    except ModelSpecError as exc:
        option = 'model' if exc.unknown_model is not None else 'model_spec'
        ctx.violation(option, req['model'] if option == 'model' else req['model_spec'], str(exc),
                      _model_fix(exc, req['model'], ctx.name_of('model'), ctx.name_of('model_spec')))
    ctx.result['model'] = ctx.model
    # Without a valid model fall back to the guide's values, so one bad model
    # name does not also show up as missing names and sizes.
    ctx.guide = ctx.model['guide_defaults'] if ctx.model else GUIDE_DEFAULTS
    if ctx.model and ctx.model.get('allowed_tp') and ctx.profile and ctx.model_platform() is None:
        platforms = sorted(ctx.model['allowed_tp'])
        others = [name for name in model_names() if not get_model(name).get('allowed_tp')]
        ctx.violation('model', req['model'],
                      '%s runs on %s only (%s); %s is not among them'
                      % (ctx.model['name'], ', '.join(platforms), ctx.model.get('source') or 'its catalog entry',
                         req['platform']),
                      'serve it from a host of platform %s, or set %s to a model for %s: %s'
                      % (' or '.join(platforms), ctx.name_of('model'), req['platform'], ', '.join(others)))


def rule_quantization(ctx: Context) -> None:
    """The --quantization method: the model's (a quantized checkpoint needs it), one vllm-ascend knows."""
    req, model = ctx.req, ctx.model
    wanted = req['quantization']
    own = model.get('quantization') if model else None
    if wanted is None:
        ctx.quant = own
        return
    if wanted not in QUANTIZATION_METHODS:
        ctx.violation('quantization', wanted,
                      'vllm-ascend knows the quantization methods %s (NPUPlatform.supported_quantization); '
                      'vLLM refuses any other at start' % ', '.join(QUANTIZATION_METHODS),
                      'unset %s (the model\'s own: %s) or set one of %s'
                      % (ctx.name_of('quantization'), own or 'none', ', '.join(QUANTIZATION_METHODS)))
    elif (model and own is None and wanted == 'ascend' and not req['model_spec']
          and req['model_path'] in (None, '', req['model'])):
        # The catalog's own checkpoint is loaded (a local model_path may hold quantized weights).
        ctx.violation('quantization', wanted,
                      '%s is an unquantized checkpoint in the catalog; --quantization ascend needs weights '
                      'quantized with ModelSlim (their quant_model_description.json)' % model['name'],
                      'unset %s, or serve a quantized model (%s)'
                      % (ctx.name_of('quantization'),
                         ', '.join(name for name in model_names() if get_model(name).get('quantization'))))
    elif model and own is not None and wanted != own:
        ctx.violation('quantization', wanted,
                      '%s holds %s-quantized weights (%s: "The quantized versions need to start with the '
                      '--quantization %s parameter")' % (model['name'], own, model.get('source') or 'its catalog entry', own),
                      'unset %s (it takes %s) or set it to %s' % (ctx.name_of('quantization'), own, own))
    else:
        ctx.quant = wanted


def rule_dtype(ctx: Context) -> None:
    """Rule 1: FP16 only."""
    for option in ('dtype', 'mamba_ssm_cache_dtype'):
        if ctx.req[option] != SUPPORTED_DTYPE:
            ctx.violation(
                option, ctx.req[option],
                'Atlas 300I DUO and Atlas 200I Pro support FP16 only (guide 5.1); %s'
                % ('bfloat16 fails later inside the NPU ops' if option == 'dtype' else
                   'vLLM would otherwise keep the checkpoint\'s float32 mamba_ssm_dtype'),
                'set %s: float16' % ctx.name_of(option))


def rule_tensor_parallel_size(ctx: Context) -> None:
    """Rule 2: a positive TP the platform allows, within the visible chips."""
    req, name_of = ctx.req, ctx.name_of
    tp = _to_int(req['tensor_parallel_size'])
    if tp is None or tp < 1:
        ctx.violation('tensor_parallel_size', req['tensor_parallel_size'],
                      'tensor_parallel_size must be a positive integer',
                      'set %s to one of %s' % (name_of('tensor_parallel_size'), ctx.allowed_tp([1, 2])))
        tp = None
    ctx.visible = bounded(ctx, 'visible_chips', required=False)
    ctx.tp = tp
    if tp is None:
        return
    allowed = ctx.allowed_tp([])
    if ctx.profile and tp not in allowed:
        ctx.violation('tensor_parallel_size', tp,
                      'TP %d is not supported %son %s; allowed: %s (%s)'
                      % (tp, 'for %s ' % ctx.model['name'] if ctx.model_platform() else '', req['platform'],
                         allowed, ctx.tp_source()),
                      'set %s to %s' % (name_of('tensor_parallel_size'), ' or '.join(str(size) for size in allowed)))
    if ctx.visible is not None and tp > ctx.visible:
        ctx.violation('tensor_parallel_size', tp,
                      'TP %d needs %d chips but only %d are visible' % (tp, tp, ctx.visible),
                      'set %s to at most %d or give the server more chips'
                      % (name_of('tensor_parallel_size'), ctx.visible))


def rule_tp_divides_heads(ctx: Context) -> None:
    """Rule 2 (part): attention, KV and GDN heads divide by TP."""
    model, tp = ctx.model, ctx.tp
    if tp is None or not model:
        return
    bad = ['%s=%d' % (key, model[key]) for key in _HEAD_KEYS if model[key] % tp]
    kv = model['num_key_value_heads']
    # vLLM: kv heads split across ranks, or replicated when TP > kv heads.
    if (tp <= kv and kv % tp) or (tp > kv and tp % kv):
        bad.append('num_key_value_heads=%d' % kv)
    if bad:
        good = [size for size in ctx.allowed_tp([1, 2]) if not any(model[key] % size for key in _HEAD_KEYS)]
        ctx.violation('tensor_parallel_size', tp,
                      'TP %d does not divide %s of %s' % (tp, ', '.join(bad), model['name']),
                      'set %s to one of %s' % (ctx.name_of('tensor_parallel_size'), good or [1]))


def rule_speculative(ctx: Context) -> None:
    """Rule 9 (part): MTP speculative decoding needs an MTP head and the MTP method."""
    req, name_of = ctx.req, ctx.name_of
    k = bounded(ctx, 'num_speculative_tokens', ctx.guide.get('num_speculative_tokens', 1))
    if k and ctx.model and ctx.model['mtp_num_layers'] < 1:
        ctx.violation('num_speculative_tokens', k,
                      '%s has no MTP head, so MTP speculative decoding cannot run' % ctx.model['name'],
                      'set %s: 0' % name_of('num_speculative_tokens'))
        k = None
    elif k and k > 1:
        ctx.warn('num_speculative_tokens is %d; the guide recommends 1 (guide 5.1)' % k)
    if k and req['speculative_method'] not in SPECULATIVE_METHODS:
        ctx.violation('speculative_method', req['speculative_method'],
                      'Qwen3.5 dense models speculate with their MTP head (guide 5.1: qwen3_5_mtp)',
                      'set %s: qwen3_5_mtp' % name_of('speculative_method'))
    elif k and req['speculative_method'] != 'qwen3_5_mtp':
        ctx.warn('speculative_method %s: the guide uses qwen3_5_mtp' % req['speculative_method'])
    ctx.k = k


def rule_max_num_seqs(ctx: Context) -> None:
    """Rule 9 (part): max_num_seqs, the model's guide default when unset."""
    ctx.seqs = bounded(ctx, 'max_num_seqs', ctx.guide.get('max_num_seqs', 32))


def rule_cudagraph_mode(ctx: Context) -> None:
    """Rule 4: a vLLM cudagraph mode, FULL_DECODE_ONLY recommended."""
    raw = ctx.req['cudagraph_mode']
    mode = raw.upper() if isinstance(raw, str) else raw
    if mode not in CUDAGRAPH_MODES:
        ctx.violation('cudagraph_mode', raw, 'not a vLLM cudagraph mode (%s)' % ', '.join(CUDAGRAPH_MODES),
                      'set %s: %s (guide 5.1)' % (ctx.name_of('cudagraph_mode'), RECOMMENDED_CUDAGRAPH_MODE))
        mode = None
    elif mode != RECOMMENDED_CUDAGRAPH_MODE:
        ctx.warn('cudagraph_mode %s: the guide recommends %s on these devices' % (mode, RECOMMENDED_CUDAGRAPH_MODE))
    ctx.mode = mode


def rule_batch_sizes(ctx: Context) -> None:
    """Rule 3 (part): cudagraph_trim and the requests-per-graph list, or the TP default."""
    req, name_of, tp = ctx.req, ctx.name_of, ctx.tp
    ctx.trim = bool(bounded(ctx, 'cudagraph_trim'))
    batch_raw = req['cudagraph_batch_sizes']
    if batch_raw is None:
        ctx.batch = default_batch_sizes(tp, (ctx.model or {}).get('tp_cudagraph_batch_sizes')) if tp is not None else None
        return
    fix = 'set %s: %s' % (name_of('cudagraph_batch_sizes'), default_batch_sizes(tp or 1))
    if not isinstance(batch_raw, list) or not batch_raw:
        ctx.violation('cudagraph_batch_sizes', batch_raw, 'cudagraph_batch_sizes must be a non-empty list of requests '
                      'per graph', fix)
        return
    converted = [_to_int(item) for item in batch_raw]
    wrong = [item for item, value in zip(batch_raw, converted) if value is None or value < 1]
    if wrong:
        ctx.violation('cudagraph_batch_sizes', batch_raw, 'every size must be a positive integer (requests per graph); '
                      'bad: %s' % ', '.join(repr(item) for item in wrong), fix)
        return
    ctx.batch = sorted(set(converted))


def rule_batch_sizes_with_tp(ctx: Context) -> None:
    """Rule 3 (part): at most two capture sizes with tensor parallelism (hardware event ids)."""
    batch, tp, name_of = ctx.batch, ctx.tp, ctx.name_of
    if batch is None or tp is None or tp <= 1 or len(batch) <= MAX_CAPTURE_SIZES_WITH_TP:
        return
    keep = [batch[0], batch[-1]]
    if ctx.trim:
        ctx.warn('TP %d allows at most two capture sizes (guide 5.1, hardware event ids): kept %s '
                 'requests per graph, dropped %s' % (tp, keep, batch[1:-1]))
        ctx.batch = keep
        return
    ctx.violation('cudagraph_batch_sizes', ctx.req['cudagraph_batch_sizes'],
                  'with tensor parallelism the hardware event-id limit allows at most two '
                  'capture sizes (guide 5.1); %d given' % len(batch),
                  'set %s: %s (smallest and largest), or %s: '
                  'true to keep those two' % (name_of('cudagraph_batch_sizes'), keep, name_of('cudagraph_trim')))
    ctx.batch = None


def rule_capture_sizes(ctx: Context) -> None:
    """Rule 3 (part): tokens per graph n*(k+1), and advice against max_num_seqs."""
    batch, k, seqs = ctx.batch, ctx.k, ctx.seqs
    if batch is not None and k is not None:
        # Multiples of k+1 at or below the largest: a fixed point of vLLM's
        # adjust_cudagraph_sizes_for_spec_decode, so vLLM never rewrites the list.
        ctx.sizes = capture_sizes(batch, k)
        if seqs is not None:
            if ctx.sizes[-1] < seqs * (k + 1):
                ctx.warn('largest capture size %d (%d requests) is below max_num_seqs %d x %d tokens: '
                         'decode batches above %d requests run without a graph (vllm-ascend logs '
                         'the same)' % (ctx.sizes[-1], batch[-1], seqs, k + 1, batch[-1]))
            over = [n for n in batch if n > seqs]
            if over:
                ctx.warn('capture sizes for %s requests exceed max_num_seqs %d and are never used' % (over, seqs))
    ctx.result['cudagraph_capture_sizes'] = ctx.sizes


def rule_max_model_len(ctx: Context) -> None:
    """Rule 6: max_model_len is set, a positive vLLM size, within the model's positions."""
    raw, name_of, model = ctx.req['max_model_len'], ctx.name_of, ctx.model
    if raw is None:
        ctx.violation('max_model_len', None,
                      'max_model_len must be set: the 310P attention mask is an fp16 [len, len] '
                      'tensor, 128 GiB at the model default of 262144',
                      'set %s, e.g. 16384 (guide 5.1)' % name_of('max_model_len'))
        return
    try:
        length = parse_human_int(raw)
    except ValueError as exc:
        # "16.5K": vLLM allows decimals only with the decimal (lower-case) suffixes.
        decimal = (' or %s%s (decimal suffix)' % (raw.strip()[:-1], raw.strip()[-1].lower())
                   if isinstance(raw, str) and raw.strip()[-1:] in _BINARY_SUFFIX and '.' in raw else '')
        ctx.violation('max_model_len', raw, str(exc),
                      'set %s to an integer such as 16384%s' % (name_of('max_model_len'), decimal))
        return
    if length < 1:
        ctx.violation('max_model_len', raw, 'max_model_len must be a positive token count (no -1/auto on 310P)',
                      'set %s, e.g. 16384 (guide 5.1)' % name_of('max_model_len'))
    elif model is not None and length > model['max_position_embeddings']:
        ctx.violation('max_model_len', raw, 'max_model_len %d exceeds %s max_position_embeddings %d'
                      % (length, model['name'], model['max_position_embeddings']),
                      'set %s to at most %d' % (name_of('max_model_len'), model['max_position_embeddings']))
    else:
        ctx.length = length


def rule_utilization_and_port(ctx: Context) -> None:
    """Rule 9 (part): gpu_memory_utilization in (0, 1] and a port."""
    ctx.util = bounded(ctx, 'gpu_memory_utilization', ctx.guide.get('gpu_memory_utilization', 0.9))
    ctx.port = bounded(ctx, 'port')


def rule_names(ctx: Context) -> None:
    """Rule 9 (part): served name, listen address and model path are strings vLLM and uvicorn accept."""
    req, name_of = ctx.req, ctx.name_of
    name = req['served_model_name'] if req['served_model_name'] is not None else ctx.guide.get('served_model_name')
    if not isinstance(name, str) or not name.strip():
        ctx.violation('served_model_name', name, 'served_model_name must be a non-empty string',
                      'set %s, e.g. qwen3.5 (guide 5.1)' % name_of('served_model_name'))
        name = None
    elif served_name_problem(name):
        ctx.violation('served_model_name', name, served_name_problem(name),
                      'set %s to the name clients send, e.g. %s' % (
                          name_of('served_model_name'), name.strip().lstrip('-').strip() or 'qwen3.5'))
        name = None
    ctx.name = name
    host = req['host']
    fix = ('set %s to an address: 0.0.0.0 (every interface, for a published port) or 127.0.0.1 (guide 5.1)'
           % name_of('host'))
    problem = listen_host_problem(host) if isinstance(host, str) and host.strip() else 'host must be a non-empty address'
    if problem:
        ctx.violation('host', host, problem, fix)
        host = None
    ctx.host = host
    model_path = req['model_path'] if req['model_path'] is not None else req['model']
    if not isinstance(model_path, str) or not model_path.strip():
        ctx.violation('model_path', model_path, 'model_path must be a model id or a directory',
                      'set %s to a directory or leave it unset to use the model id' % name_of('model_path'))
        model_path = None
    ctx.model_path = model_path


def rule_switches(ctx: Context) -> None:
    """Rule 9 (part): the boolean switches."""
    for option in ('trust_remote_code', 'use_modelscope', 'offline'):
        ctx.bools[option] = bounded(ctx, option)
    if ctx.bools['offline'] and isinstance(ctx.model_path, str) and not ctx.model_path.startswith('/'):
        # HF_HUB_OFFLINE=1 (and no network) leaves vLLM nothing to fetch a model id with.
        ctx.violation('model_path', ctx.model_path,
                      '%s is true: the node reaches no model hub, so vLLM cannot download %s'
                      % (ctx.name_of('offline'), ctx.model_path),
                      'copy the weights to a directory on the node (config.json, tokenizer and *.safetensors) and '
                      'set %s to it' % ctx.name_of('model_path'))


def rule_memory_figures(ctx: Context) -> None:
    """Chip memory, free memory and the reserve are non-negative MiB counts."""
    nominal = ctx.profile['chip_memory_mb'] if ctx.profile else None
    for option, fallback in (('chip_memory_mb', nominal), ('chip_free_memory_mb', None), ('memory_reserve_mb', 2048)):
        ctx.ints[option] = bounded(ctx, option, fallback, required=False)


def image_vllm(tag: Any) -> Optional[str]:
    """The vLLM version inside the image of ``tag``, as its release record names it (contracts/releases.py); None
    when the tag has no record or the record's vLLM was not read. The one answer for the flag table and the chat
    parsers' registry."""
    record = releases.get(releases.release_of_tag(tag.strip())) if isinstance(tag, str) and tag.strip() else None
    return record['vllm'] if record else None


def flag_table_version(tag: Any) -> Tuple[str, Optional[str]]:
    """(the vLLM version whose flag table judges the arguments, the vLLM inside the image, ``image_vllm``).

    That vLLM's generated table when there is one; otherwise (no tag, no record, an unread vLLM, no table yet)
    ``_vllm_flags.DEFAULT_VERSION``, and rule_release_issues says which table judged them."""
    wanted = image_vllm(tag)
    if wanted and str(wanted).lstrip('vV') in flag_versions():
        return str(wanted).lstrip('vV'), wanted
    return DEFAULT_FLAGS_VERSION, wanted


def rule_extra_args(ctx: Context) -> None:
    """Rule 5: extra arguments never repeat a managed flag nor turn enable_npugraph_ex on."""
    name_of = ctx.name_of
    given = ctx.req['extra_args'] if ctx.req['extra_args'] is not None else []
    if not isinstance(given, list) or not all(isinstance(item, str) for item in given):
        ctx.violation('extra_args', given, 'extra_args must be a list of strings',
                      'set %s to a list such as ["--enable-prefix-caching"]' % name_of('extra_args'))
        return
    extra, unsplit = split_extra_args(given)
    # A secret on the command line shows in ps, docker inspect and every printed command:
    # refused with its value hidden, before any other rule could print the list.
    secret = sorted(set(word.split('=', 1)[0] for word in extra if word.startswith('--')
                        and secret_name(word.split('=', 1)[0])))
    if secret:
        ctx.violation('extra_args', HIDDEN,
                      'extra_args passes a secret on the command line (%s), where ps, docker inspect and the printed '
                      'vllm serve command show it' % ', '.join(secret),
                      'remove %s from %s; give the API key as %sapi_key, other secrets as environment variables in '
                      '%senv (e.g. HF_TOKEN), which the collection never prints'
                      % (', '.join(secret), name_of('extra_args'), ctx.prefix, ctx.prefix))
        return
    for index, item, why in unsplit:
        ctx.violation('extra_args', item, 'item %d of extra_args: %s' % (index, why),
                      'write each argument of %s as its own item, e.g. ["--seed", "1"]' % name_of('extra_args'))
    if len(extra) != len(given) and not unsplit:
        ctx.warn('extra_args: items with several arguments were split like a shell line: %s' % extra)
    table = flags_for(flag_table_version(ctx.req['image_tag'])[0])
    for word, problem, fix in extra_arg_problems(extra, table):
        ctx.violation('extra_args', word, problem, 'in %s, %s' % (name_of('extra_args'), fix))
    ctx.extra = extra
    if _enables_npugraph_ex(extra):
        ctx.violation('extra_args', given,
                      'enable_npugraph_ex must stay false on 310P (guide 5.1); the module always passes '
                      '--additional-config %s' % compact_json(ADDITIONAL_CONFIG),
                      'remove --additional-config from %s' % name_of('extra_args'))
    # Each managed flag once, in the order extra_args names them.
    duplicates = list(dict.fromkeys(flag for flag in (_flag_name(token, table) for token in extra) if flag))
    if duplicates:
        ctx.violation('extra_args', given, 'extra_args repeats flags the module manages: %s' % ', '.join(duplicates),
                      'remove them from %s and set the matching %s* variables instead'
                      % (name_of('extra_args'), ctx.prefix))


def rule_image_tag(ctx: Context) -> None:
    """Rule 8: the image tag parses and is built for the platform (guide 4.1)."""
    req, profile = ctx.req, ctx.profile
    if req['image_tag'] is None:
        return
    suffix = profile['image_tag_suffix'] if profile else None
    try:
        image = parse_image_tag(str(req['image_tag']))
    except ValueError as exc:
        image = None
        ctx.violation('image_tag', req['image_tag'], str(exc),
                      'set %s so that the image tag is a release such as v0.23.0%s'
                      % (ctx.name_of('image_tag'), suffix if profile else '-310p'))
    ctx.result['image'] = image
    if image and profile and image['suffix'] != suffix:
        ctx.violation('image_tag', req['image_tag'],
                      '%s needs the %s image (guide 4.1); a build for another SoC fails with '
                      '"socversion ... does not match"' % (req['platform'], suffix),
                      'set %s so that the image tag ends in %s, e.g. v0.23.0%s'
                      % (ctx.name_of('image_tag'), suffix, suffix))
    if image and ctx.model:
        _image_new_enough(ctx, image)


def _image_new_enough(ctx: Context, image: Dict[str, Any]) -> None:
    """Rule 8 (part): at least the model's minimum image; older than the guide's is a warning."""
    model, profile = ctx.model, ctx.profile
    minimum = parse_image_tag(model['min_image_tag'])
    if image_sort_key(image) < image_sort_key(minimum):
        ctx.violation('image_tag', ctx.req['image_tag'],
                      '%s needs vllm-ascend %s or newer (guide section 1)'
                      % (model['name'], model['min_image_tag'].split('-')[0]),
                      'set %s so that the image tag is %s%s or newer'
                      % (ctx.name_of('image_tag'), minimum['tag'].split('-')[0],
                         profile['image_tag_suffix'] if profile else minimum['suffix']))
    elif model.get('guide_min_image_tag'):
        floor = parse_image_tag(model['guide_min_image_tag'])
        if image_sort_key(image) < image_sort_key(floor):
            ctx.warn('image %s is older than the guide\'s minimum %s (guide 4.1)'
                     % (image['tag'], floor['tag'].split('-')[0]))
            if ctx.k and ctx.mode != 'NONE' and image['suffix'].endswith('openeuler'):
                ctx.warn('MTP with graph mode fails on %s ("Not allow to synchronize '
                         'captured-stream", vllm-ascend #12983); upgrade the image' % image['tag'])


def rule_release_issues(ctx: Context) -> None:
    """The known 310P issues of the image's release record (contracts/releases.py) that this request meets.

    Warnings, each with its source: they are upstream bugs the request walks into, not wrong input. The
    issues the other rules refuse (float16, npugraph_ex, capture sizes with TP) are not repeated here.
    """
    tag = ctx.result['image']['tag'] if ctx.result.get('image') else None
    record = releases.get(releases.release_of_tag(tag)) if tag else None
    if not record:
        return
    used, wanted = flag_table_version(tag)
    if ctx.extra and used != str(wanted or '').lstrip('vV'):
        # No generated table for the record's vLLM (or its vLLM was not read): say which table judged them.
        ctx.warn('%s were checked against the flags of vLLM %s (contracts/vllm_flags/); %s runs vLLM %s, which has no '
                 'generated flag table: a flag added or removed since is not judged (scripts/gen-vllm-flags.sh makes one)'
                 % (ctx.name_of('extra_args'), used, tag, wanted or '(not read)'))
    for issue in record.get('issues') or []:
        if issue['check'] == 'w8a8_accuracy' and ctx.quant and _model_id(ctx).startswith('qwen3.5-2b'):
            ctx.warn('%s on %s: %s (%s)' % (ctx.req['model'], tag, issue['what'], issue['source']))
        elif issue['check'] == 'mtp_prefix_caching' and ctx.k and \
                '--no-enable-prefix-caching' not in (ctx.extra or []):
            ctx.warn('MTP with prefix caching (vLLM\'s default) on %s: %s (%s); --no-enable-prefix-caching in '
                     '%s avoids it' % (tag, issue['what'], issue['source'], ctx.name_of('extra_args')))


def _model_id(ctx: Context) -> str:
    """The served checkpoint's name without its owner, lower case ("qwen3.5-2b-w8a8-310p")."""
    return str((ctx.model or {}).get('name') or ctx.req.get('model') or '').lower().rsplit('/', 1)[-1]


def rule_memory_fit(ctx: Context) -> None:
    """Rule 7: weights, mask, GDN state and one KV cache fit the chip; the free memory suffices."""
    ints = ctx.ints
    if not ctx.model or None in (ctx.tp, ctx.k, ctx.seqs, ctx.length, ctx.util, ints['chip_memory_mb'],
                                 ints['memory_reserve_mb']):
        return
    # A TP size that does not divide the heads (rule_tp_divides_heads reports it) has no memory
    # plan: a chip's share of the heads can be zero.
    if any(ctx.model[key] % ctx.tp for key in _HEAD_KEYS):
        return
    # A model refused on this platform (rule_model) has no memory plan to judge there.
    if ctx.model.get('allowed_tp') and ctx.model_platform() is None:
        return
    mem = memory_plan(ctx.model, ints['chip_memory_mb'], ctx.util, ctx.tp, ctx.length, ctx.seqs, ctx.k,
                      ints['memory_reserve_mb'])
    ctx.result['memory'] = mem
    if not mem['fits']:
        # Name the variable to change: max_model_len when even one sequence does not fit (the fix
        # also names TP and gpu_memory_utilization, which a too small share of the chip needs).
        too_long = mem['max_num_seqs_fit'] < 1
        ctx.violation(
            'max_model_len' if too_long else 'max_num_seqs', ctx.length if too_long else ctx.seqs,
            '%s at TP %d does not fit %s MiB x %s: needs %s MiB for %d sequences\' GDN state and one '
            '%d-token KV cache, the halved KV budget is %s MiB (weights %s MiB, attention mask %s MiB, '
            'reserve %d MiB)'
            % (ctx.model['name'], ctx.tp, ints['chip_memory_mb'], format_utilization(ctx.util), mem['required_mb'],
               ctx.seqs, ctx.length, mem['kv_budget_mb'], mem['weights_mb_per_chip'], mem['attention_mask_mb'],
               ints['memory_reserve_mb']),
            _fix_for_fit(ctx, mem))
    _free_memory(ctx, mem)


def _free_memory(ctx: Context, mem: Dict[str, Any]) -> None:
    """Rule 7 (part): vllm-ascend refuses to start when the chip has less free memory than it takes."""
    free, chip = ctx.ints['chip_free_memory_mb'], ctx.ints['chip_memory_mb']
    if free is not None and free < mem['usable_mb']:
        ctx.violation(
            'chip_free_memory_mb', free,
            'free memory on the chip (%d MiB) is less than gpu_memory_utilization x chip memory (%s MiB); '
            'vllm-ascend stops with "Free memory on device ... is less than desired GPU memory '
            'utilization"' % (free, mem['usable_mb']),
            'free the chip (stop the processes npu-smi lists) or lower %s to at most '
            '%s' % (ctx.name_of('gpu_memory_utilization'), format_utilization(int(free * 100.0 / chip) / 100.0)))
    if ctx.profile and ctx.profile['rc_mode'] and free is None:
        ctx.warn('%s runs in RC mode: vllm-ascend compares host MemAvailable with chip memory x '
                 'utilisation at start; pass chip_free_memory_mb to check it here' % ctx.req['platform'])


_PARSER_KINDS = (('reasoning', 'reasoning_parser', REASONING_FLAG, 'reasoning parser'),
                 ('tool_call', 'tool_call_parser', TOOL_CALL_FLAG, 'tool-call parser'))


def _parser_registry(ctx: Context) -> Optional[Dict[str, Any]]:
    """The parser names of the vLLM in the image (chat_parsers.REGISTRY), with 'vllm' set; None when unknown."""
    tag = ctx.req['image_tag']
    vllm = image_vllm(tag)
    registry = registry_for(vllm) if vllm else None
    return dict(registry, vllm=vllm, image_tag=tag) if registry is not None else None


def rule_chat_parsers(ctx: Context) -> None:
    """The reasoning and tool-call parsers: the model's own by default, names the model and the image's vLLM have.

    ``auto`` takes the model's (models.py; none for a model without one) unless extra_args names the parser
    itself, which is then judged the same way; ``none`` passes nothing; a name must be the model's and
    registered in the vLLM of the image (chat_parsers.py). vLLM itself stops at start on an unknown name
    (``invalid tool call parser``) and on --enable-auto-tool-choice without --tool-call-parser. A tool-call
    parser serves tool calls only with --enable-auto-tool-choice, which goes with it unless the option is none
    or extra_args turns it off."""
    req, model = ctx.req, ctx.model
    registry = _parser_registry(ctx)
    extra = parser_flags(ctx.extra or [])
    chat: Dict[str, Any] = {'reasoning_field': (registry or {}).get('reasoning_field', 'reasoning'),
                            'reasoning': None, 'tool_call': None}
    refused = False
    for kind, option, flag, what in _PARSER_KINDS:
        wanted, own, in_extra = req[option], (model or {}).get(option), extra[kind]
        chat['emit_' + kind] = False
        if not isinstance(wanted, str) or not wanted.strip():
            ctx.violation(option, wanted, '%s must be auto, none or a vLLM %s name' % (option, what),
                          'set %s to auto (the model\'s: %s) or none' % (ctx.name_of(option), own or 'none'))
            refused = True
            continue
        if in_extra is not None and wanted not in (AUTO, NONE):
            ctx.violation('extra_args', '%s %s' % (flag, in_extra),
                          'extra_args passes %s while %s sets it (%s)' % (flag, ctx.name_of(option), wanted),
                          'remove %s from %s, or set %s to auto to take the one in extra_args'
                          % (flag, ctx.name_of('extra_args'), ctx.name_of(option)))
            refused = True
            continue
        name, where = ((in_extra, 'extra_args') if in_extra is not None
                       else (own if wanted == AUTO else None if wanted == NONE else wanted, option))
        if name is not None and _parser_problem(ctx, kind, option, flag, what, name, own, where, registry):
            refused = True
            continue
        chat[kind] = name
        chat['emit_' + kind] = name is not None and where == option
    # --enable-auto-tool-choice: with the tool-call parser, unless the option is none (a --tool-call-parser in
    # extra_args alone then stays without it, as vLLM has it) or extra_args says --no-enable-auto-tool-choice.
    auto_choice = (chat['tool_call'] is not None and extra['auto_tool_choice'] is not False
                   and (req['tool_call_parser'] != NONE or extra['auto_tool_choice'] is True))
    chat['emit_auto_tool_choice'] = auto_choice and extra['auto_tool_choice'] is None
    if not auto_choice:
        chat['tool_call'] = None
        chat['emit_tool_call'] = False
    if extra['auto_tool_choice'] and chat['tool_call'] is None and not refused:
        ctx.violation('extra_args', AUTO_TOOL_CHOICE_FLAG,
                      'extra_args passes %s without a tool-call parser; vLLM stops at start with "Error: '
                      '--enable-auto-tool-choice requires --tool-call-parser"' % AUTO_TOOL_CHOICE_FLAG,
                      'remove it from %s and set %s to auto (the model\'s: %s)'
                      % (ctx.name_of('extra_args'), ctx.name_of('tool_call_parser'),
                         (model or {}).get('tool_call_parser') or 'none'))
    if registry is None and req['image_tag'] and (chat['reasoning'] or chat['tool_call']):
        ctx.warn('the parser names of the vLLM in image %s were not read (contracts/chat_parsers.py has %s); '
                 '%s not checked against it' % (req['image_tag'], ', '.join(sorted(REGISTRY)),
                                                ', '.join(filter(None, (chat['reasoning'], chat['tool_call'])))))
    ctx.chat = chat


def _parser_problem(ctx: Context, kind: str, option: str, flag: str, what: str, name: str, own: Optional[str],
                    where: str, registry: Optional[Dict[str, Any]]) -> bool:
    """Report a parser name the image's vLLM or the model does not have; True when one was reported."""
    shown = name if where == option else '%s %s' % (flag, name)
    model_name = (ctx.model or {}).get('name') or ctx.req['model']
    if registry is not None and name not in registry[kind]:
        ctx.violation(where, shown,
                      'vLLM %s (in image %s) has no %s named %s%s; %s (registered names: %s)'
                      % (registry['vllm'].lstrip('v'), registry['image_tag'], what, name,
                         _did_you_mean(name, list(registry[kind])), registry['unknown_' + kind] % name, registry['source']),
                      'set %s to auto (%s\'s: %s) or none' % (ctx.name_of(option), model_name, own or 'none')
                      if where == option else
                      'remove %s from %s and set %s to auto (%s\'s: %s)'
                      % (flag, ctx.name_of('extra_args'), ctx.name_of(option), model_name, own or 'none'))
        return True
    if ctx.model is not None and name != own:
        ctx.violation(where, shown,
                      '%s %s; %s is not the one its documentation gives (%s)'
                      % (model_name, 'uses the %s %s' % (what, own) if own else 'names no %s' % what, name,
                         'the model cards, vLLM\'s recipe: contracts/models.py' if own else 'its catalog entry or model_spec'),
                      'set %s to auto (%s) or none%s; if the checkpoint really needs %s, say so in %s.%s'
                      % (ctx.name_of(option), own or 'none', ' and remove %s from %s' % (flag, ctx.name_of('extra_args'))
                         if where != option else '', name, ctx.name_of('model_spec'), option))
        return True
    return False


# The order problems and warnings are reported in.
RULES = (
    rule_platform, rule_model, rule_dtype, rule_quantization, rule_tensor_parallel_size, rule_tp_divides_heads, rule_speculative,
    rule_max_num_seqs, rule_cudagraph_mode, rule_batch_sizes, rule_batch_sizes_with_tp, rule_capture_sizes,
    rule_max_model_len, rule_utilization_and_port, rule_names, rule_switches, rule_memory_figures,
    rule_extra_args, rule_image_tag, rule_release_issues, rule_chat_parsers, rule_memory_fit,
)
