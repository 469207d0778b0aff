# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Rules and memory planner for ``vllm serve`` on Atlas 310P devices.

``plan(request)`` checks a deployment request against the deployment guide
(``shared/seed/000_de1b8cca3feb25fe.txt``) and vLLM / vllm-ascend behaviour,
and returns the exact ``vllm serve`` argv, its environment and a memory plan.
It never raises on bad user input: every broken rule becomes one entry in
``violations`` ({variable, value, rule, fix}), all reported at once, so the
caller can stop a whole fleet before anything is pulled or started.

All functions are pure and Python 3.8 compatible (they run on targets).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import json
import posixpath
import re
import shlex
from typing import Any, Dict, List, Optional, Tuple

from ansible_collections.ascend.vllm.plugins.module_utils.models import (
    ALL_FIELDS, GUIDE_DEFAULTS, ModelSpecError, get_model, model_names)
from ansible_collections.ascend.vllm.plugins.module_utils.platforms import (
    did_you_mean as _did_you_mean, platform_violation, resolve_profile)

MIB = 1024 * 1024

# Guide 5.1 ("在 Atlas 300I DUO 和 Atlas 200I Pro 上必须设置 --dtype float16。这些设备仅支持
# FP16 数据类型" and "--mamba-ssm-cache-dtype ... 仅支持 float16").
SUPPORTED_DTYPE = 'float16'
# vLLM CUDAGraphMode names (vllm/config/compilation.py); guide 5.1 recommends FULL_DECODE_ONLY.
CUDAGRAPH_MODES = ('NONE', 'PIECEWISE', 'FULL', 'FULL_DECODE_ONLY', 'FULL_AND_PIECEWISE')
RECOMMENDED_CUDAGRAPH_MODE = 'FULL_DECODE_ONLY'
# Guide 5.1 uses qwen3_5_mtp; newer vLLM also accepts the generic "mtp" and
# logs qwen3_5_mtp as deprecated (reference.md).
SPECULATIVE_METHODS = ('qwen3_5_mtp', 'mtp')
# Guide 5.1: "需要使用包含 "ascend_compilation_config": {"enable_npugraph_ex": false} 的
# --additional-config，因为这些平台不支持enable_npugraph_ex".
ADDITIONAL_CONFIG = {'ascend_compilation_config': {'enable_npugraph_ex': False}}
# vllm_ascend/patch/platform/patch_mamba_config_310.py (v0.23.0rc1): the 310P
# attention block size is a multiple of 128 tokens, big enough that one
# attention page holds one mamba (GDN) state page.
KERNEL_BLOCK_ALIGNMENT = 128
# Guide 5.1: "当启用张量并行（TP）时，硬件事件 ID 限制最多允许两个捕获大小（例如[1, 8]）".
MAX_CAPTURE_SIZES_WITH_TP = 2
# Guide 5.1: the non-MTP sizes [1,2,4,8] (TP 1) and the TP example [1, 8].
DEFAULT_BATCH_SIZES_TP1 = [1, 2, 4, 8]
DEFAULT_BATCH_SIZES_TP = [1, 8]
# vLLM API key env var: "args.api_key or envs.VLLM_API_KEY"
# (vllm/entrypoints/openai/api_server.py).
API_KEY_ENV = 'VLLM_API_KEY'

# Flags the planner owns; extra_args must not repeat them.  Short aliases:
# -tp is --tensor-parallel-size and -O is --compilation-config in vLLM's CLI.
MANAGED_FLAGS = (
    '--model', '--host', '--port', '--tensor-parallel-size', '--served-model-name',
    '--max-num-seqs', '--max-model-len', '--trust-remote-code', '--gpu-memory-utilization',
    '--mamba-ssm-cache-dtype', '--dtype', '--speculative-config', '--compilation-config',
    '--additional-config', '--api-key',
)
_SHORT_ALIASES = (('-tp', '--tensor-parallel-size'), ('-O', '--compilation-config'))

DEFAULTS = {
    'platform': None,
    'platform_overrides': None,
    'platform_spec': None,
    'model': None,
    'model_path': None,
    'model_spec': None,
    'tensor_parallel_size': 1,
    'dtype': SUPPORTED_DTYPE,
    'mamba_ssm_cache_dtype': SUPPORTED_DTYPE,
    'num_speculative_tokens': None,  # model guide default (1)
    'speculative_method': 'qwen3_5_mtp',
    'cudagraph_batch_sizes': None,  # depends on TP
    'cudagraph_trim': False,
    'cudagraph_mode': RECOMMENDED_CUDAGRAPH_MODE,
    'max_model_len': None,  # required
    'max_num_seqs': None,  # model guide default (32)
    'gpu_memory_utilization': None,  # model guide default (0.9)
    'served_model_name': None,  # model guide default (qwen3.5)
    'host': '127.0.0.1',
    'port': 1025,
    'trust_remote_code': True,
    'chip_memory_mb': None,  # profile nominal
    'chip_free_memory_mb': None,
    'visible_chips': None,
    'memory_reserve_mb': 2048,
    'image_tag': None,
    'extra_args': None,
    'api_key': None,
    'use_modelscope': True,
    'var_prefix': '',
    'var_names': None,
}  # type: Dict[str, Any]

_INT_RE = re.compile(r'^[+-]?\d+$')
_HUMAN_INT_RE = re.compile(r'^(\d+(?:\.\d+)?)([kKmMgGtT])$')
_DECIMAL_SUFFIX = {'k': 10 ** 3, 'm': 10 ** 6, 'g': 10 ** 9, 't': 10 ** 12}
_BINARY_SUFFIX = {'K': 2 ** 10, 'M': 2 ** 20, 'G': 2 ** 30, 'T': 2 ** 40}
_TAG_RE = re.compile(r'^v(\d+)\.(\d+)\.(\d+)(?:rc(\d+))?(.*)$')
_BOOL_STRINGS = {
    'yes': True, 'on': True, 'true': True, '1': True, 'y': True,
    'no': False, 'off': False, 'false': False, '0': False, 'n': False,
}


class _Report(object):
    """Collects violations and warnings; ``variable`` is the user's variable name.

    An option is named ``prefix + option`` unless ``names`` maps it to the variable
    the caller really reads it from (``platform`` -> ``ascend_vllm_platform``).
    """

    def __init__(self, prefix, names=None):
        # type: (str, Optional[Dict[str, str]]) -> None
        self.prefix = prefix
        self.names = dict((key, value) for key, value in (names or {}).items()
                          if isinstance(key, str) and isinstance(value, str) and value)
        self.violations = []  # type: List[Dict[str, Any]]
        self.warnings = []  # type: List[str]

    def name(self, option):
        # type: (str) -> str
        return self.names.get(option, self.prefix + option)

    def violation(self, option, value, rule, fix):
        # type: (str, Any, str, str) -> None
        self.violations.append({'variable': self.name(option), 'value': value, 'rule': rule, 'fix': fix})

    def warn(self, text):
        # type: (str) -> None
        self.warnings.append(text)


# --------------------------------------------------------------------------- coercion

def _to_int(value):
    # type: (Any) -> Optional[int]
    """Integer from an int, an integral float or a decimal string; None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and _INT_RE.match(value.strip()):
        return int(value.strip())
    return None


def _to_float(value):
    # type: (Any) -> Optional[float]
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None


def _to_bool(value):
    # type: (Any) -> Optional[bool]
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return _BOOL_STRINGS.get(value.strip().lower())
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    return None


def parse_human_int(value):
    # type: (Any) -> int
    """Parse an int the way vLLM's CLI does (vllm/engine/arg_utils.py human_readable_int).

    Lower-case suffixes are decimal and may carry decimals ("16k" = 16000,
    "25.6k" = 25600); upper-case ones are binary and may not ("16K" = 16384,
    "1M" = 1048576).  Raises ``ValueError`` for anything else.
    """
    if isinstance(value, bool):
        raise ValueError('not an integer: %r' % (value,))
    as_int = _to_int(value)
    if as_int is not None:
        return as_int
    if isinstance(value, str):
        match = _HUMAN_INT_RE.match(value.strip())
        if match:
            number, suffix = match.groups()
            if suffix in _DECIMAL_SUFFIX:
                return int(float(number) * _DECIMAL_SUFFIX[suffix])
            if '.' in number:
                raise ValueError('decimals are not allowed with binary suffix %s in %r (did you mean %s%s?)'
                                 % (suffix, value, number, suffix.lower()))
            return int(number) * _BINARY_SUFFIX[suffix]
    raise ValueError('not an integer or a vLLM size such as 16384, 16k or 16K: %r' % (value,))


def format_utilization(value):
    # type: (float) -> str
    """At least two decimals, as the guide writes it: 0.9 -> "0.90", 0.925 -> "0.925"."""
    whole, decimals = ('%.10f' % value).rstrip('0').split('.')
    return '%s.%s' % (whole, decimals.ljust(2, '0'))


def compact_json(data):
    # type: (Any) -> str
    return json.dumps(data, separators=(',', ':'))


# --------------------------------------------------------------------------- capture sizes

def _round_up(value, multiple):
    # type: (int, int) -> int
    return ((value + multiple - 1) // multiple) * multiple


def vllm_adjust_for_spec_decode(sizes, num_speculative_tokens, max_capture_size=None):
    # type: (List[int], int, Optional[int]) -> List[int]
    """What vLLM does to a capture-size list when speculative decoding is on.

    Mirrors ``CompilationConfig.adjust_cudagraph_sizes_for_spec_decode``
    (vllm/config/compilation.py, without sequence parallelism): every size is
    rounded up to a multiple of k+1, sizes that end above the largest capture
    size are dropped, the rest de-duplicated and sorted.  ``max_capture_size``
    defaults to the largest size given, as vLLM's does for an explicit list.
    """
    multiple_of = num_speculative_tokens + 1
    if not sizes or multiple_of <= 1:
        return list(sizes)
    largest = max(sizes) if max_capture_size is None else max_capture_size
    rounded = sorted(set(_round_up(size, multiple_of) for size in sizes
                         if _round_up(size, multiple_of) <= largest))
    if not rounded and multiple_of <= largest:
        rounded = [multiple_of]
    if not rounded:
        raise ValueError('No valid cudagraph sizes after rounding to multiple of %d' % multiple_of)
    return rounded


def default_batch_sizes(tensor_parallel_size):
    # type: (int) -> List[int]
    return list(DEFAULT_BATCH_SIZES_TP1 if tensor_parallel_size == 1 else DEFAULT_BATCH_SIZES_TP)


def capture_sizes(batch_sizes, num_speculative_tokens):
    # type: (List[int], int) -> List[int]
    """Requests per graph -> tokens per graph: n * (k + 1) (guide 5.1), sorted, distinct."""
    return [n * (num_speculative_tokens + 1) for n in sorted(set(batch_sizes))]


# --------------------------------------------------------------------------- memory model

def full_attention_layers(model):
    # type: (Dict[str, Any]) -> int
    # Qwen3.5 layer_types: (3x linear_attention, 1x full_attention) repeated.
    return model['num_hidden_layers'] // model['full_attention_interval']


def gdn_layers(model):
    # type: (Dict[str, Any]) -> int
    return model['num_hidden_layers'] - full_attention_layers(model)


def attention_layers(model, num_speculative_tokens):
    # type: (Dict[str, Any], int) -> int
    """Layers holding a KV cache: the full-attention layers plus the MTP layer when MTP runs."""
    return full_attention_layers(model) + (model['mtp_num_layers'] if num_speculative_tokens > 0 else 0)


def kv_heads_per_rank(model, tensor_parallel_size):
    # type: (Dict[str, Any], int) -> int
    # vLLM replicates KV heads when TP > kv heads (ModelConfig.get_num_kv_heads).
    return max(1, model['num_key_value_heads'] // tensor_parallel_size)


def attention_bytes_per_token_per_layer(model, tensor_parallel_size):
    # type: (Dict[str, Any], int) -> int
    # K and V, fp16 (vLLM AttentionSpec.real_page_size_bytes with block_size 1).
    return 2 * kv_heads_per_rank(model, tensor_parallel_size) * model['head_dim'] * 2


def gdn_state_bytes_per_layer(model, tensor_parallel_size, num_speculative_tokens):
    # type: (Dict[str, Any], int, int) -> int
    """One GDN layer's state for one sequence slot, fp16.

    vLLM ``MambaStateShapeCalculator.gated_delta_net_state_shape``
    (vllm/model_executor/layers/mamba/mamba_utils.py):
    conv state (conv_dim / TP) x (conv_kernel - 1 + num_spec) with
    conv_dim = 2 * key_heads * key_dim + value_heads * value_dim, and
    temporal (SSM) state (value_heads / TP) x value_dim x key_dim.
    Both are 2 bytes: mamba_ssm_cache_dtype and the model dtype are float16.
    """
    conv_dim = (2 * model['linear_num_key_heads'] * model['linear_key_head_dim']
                + model['linear_num_value_heads'] * model['linear_value_head_dim'])
    conv = (conv_dim // tensor_parallel_size) * (model['linear_conv_kernel_dim'] - 1 + num_speculative_tokens)
    ssm = (model['linear_num_value_heads'] // tensor_parallel_size
           * model['linear_key_head_dim'] * model['linear_value_head_dim'])
    return 2 * (conv + ssm)


def _ceil_div(a, b):
    # type: (int, int) -> int
    return -(-a // b)


def cache_layout(model, tensor_parallel_size, num_speculative_tokens):
    # type: (Dict[str, Any], int, int) -> Dict[str, int]
    """How vLLM pages the hybrid cache on 310P (all figures per chip).

    - block size: vllm-ascend's 310P patch (patch_mamba_config_310.py, v0.23.0rc1)
      picks 128 * ceil(mamba page / (128 * attention bytes per token)), so one
      attention page is at least one GDN state page; the state page is padded
      up to the attention page (384 tokens for all three Qwen3.5 models).
    - groups: vLLM puts same-type layers in groups of ``group_size`` layers
      that share ``group_size`` tensors (vllm/v1/core/kv_cache_utils.py,
      _get_kv_cache_groups_uniform_page_size): group_size is the smaller layer
      count, or the larger one when it is under 1.5x the smaller.  One block
      therefore costs group_size pages, and a sequence needs one block per
      attention group per block_size tokens, and 1 + k blocks per GDN group
      (MambaSpec.max_memory_usage_bytes with num_speculative_blocks = k).
    """
    per_token = attention_bytes_per_token_per_layer(model, tensor_parallel_size)
    n_attention = attention_layers(model, num_speculative_tokens)
    n_gdn = gdn_layers(model)
    if n_gdn:
        state = gdn_state_bytes_per_layer(model, tensor_parallel_size, num_speculative_tokens)
        block_size = KERNEL_BLOCK_ALIGNMENT * _ceil_div(state, KERNEL_BLOCK_ALIGNMENT * per_token)
        smaller, larger = min(n_attention, n_gdn), max(n_attention, n_gdn)
        group_size = larger if larger < smaller * 1.5 else smaller
    else:
        block_size = KERNEL_BLOCK_ALIGNMENT
        group_size = n_attention
    page = block_size * per_token
    return {
        'block_size_tokens': block_size,
        'page_bytes': page,
        'group_size': group_size,
        'block_bytes': group_size * page,
        'attention_groups': _ceil_div(n_attention, group_size),
        'state_blocks_per_seq': _ceil_div(n_gdn, group_size) * (1 + num_speculative_tokens) if n_gdn else 0,
    }


def _kv_blocks(layout, max_model_len):
    # type: (Dict[str, int], int) -> int
    return layout['attention_groups'] * _ceil_div(max_model_len, layout['block_size_tokens'])


def _budget_mb(usable_mb, weights_mb, max_model_len, reserve_mb):
    # type: (float, float, int, int) -> float
    # The 310P worker halves what is left for KV + state: "Available KV cache
    # memory: %.2f GiB (halved for workspace)" (vllm_ascend/_310p/worker_310p.py).
    return (usable_mb - weights_mb - attention_mask_mb(max_model_len) - reserve_mb) / 2


def attention_mask_mb(max_model_len):
    # type: (int) -> float
    # AttentionMaskBuilder310 (vllm_ascend/_310p/attention/attention_mask.py)
    # builds an fp16 [max_model_len, max_model_len] causal mask unless torch_npu
    # offers the compressed 2048x2048 kernels; plan for the full one.
    return 2.0 * max_model_len * max_model_len / MIB


def _num_blocks(budget_mb, layout):
    # type: (float, Dict[str, int]) -> int
    if budget_mb <= 0:
        return 0
    return int(budget_mb * MIB) // layout['block_bytes']


def memory_plan(model, chip_memory_mb, gpu_memory_utilization, tensor_parallel_size,
                max_model_len, max_num_seqs, num_speculative_tokens, reserve_mb):
    # type: (Dict[str, Any], int, float, int, int, int, int, int) -> Dict[str, Any]
    """Does the model fit one chip's share of memory?  All MB are MiB, as npu-smi reports.

    Fits when ``max_num_seqs`` sequences' GDN state plus one ``max_model_len``
    sequence's KV cache fit in the (halved) KV budget: vLLM refuses to start
    otherwise ("max_num_seqs (N) exceeds available Mamba cache blocks (M)",
    or the KV cache too small for one max_model_len request).
    """
    usable_mb = chip_memory_mb * gpu_memory_utilization
    weights_mb = model['num_parameters'] * 2.0 / tensor_parallel_size / MIB
    layout = cache_layout(model, tensor_parallel_size, num_speculative_tokens)
    state_blocks = layout['state_blocks_per_seq']

    def blocks_needed(length, seqs):
        # type: (int, int) -> int
        return seqs * state_blocks + _kv_blocks(layout, length)

    def fits(length, seqs):
        # type: (int, int) -> bool
        budget = _budget_mb(usable_mb, weights_mb, length, reserve_mb)
        return budget > 0 and blocks_needed(length, seqs) <= _num_blocks(budget, layout)

    budget_mb = _budget_mb(usable_mb, weights_mb, max_model_len, reserve_mb)
    num_blocks = _num_blocks(budget_mb, layout)
    required_blocks = blocks_needed(max_model_len, max_num_seqs)

    spare = num_blocks - _kv_blocks(layout, max_model_len)
    if spare < 0:
        max_num_seqs_fit = 0
    elif state_blocks:
        max_num_seqs_fit = spare // state_blocks
    else:
        max_num_seqs_fit = max_num_seqs  # no per-sequence state: KV for one request is the limit

    def longest(seqs):
        # type: (int) -> int
        # The mask grows with len^2, so search instead of solving.
        low, high, best = 1, model['max_position_embeddings'], 0
        while low <= high:
            mid = (low + high) // 2
            if fits(mid, seqs):
                best, low = mid, mid + 1
            else:
                high = mid - 1
        return best

    return {
        'chip_memory_mb': chip_memory_mb,
        'gpu_memory_utilization': gpu_memory_utilization,
        'usable_mb': round(usable_mb, 2),
        'weights_mb_per_chip': round(weights_mb, 2),
        'attention_mask_mb': round(attention_mask_mb(max_model_len), 2),
        'reserve_mb': reserve_mb,
        'kv_budget_mb': round(budget_mb, 2),
        'kv_bytes_per_token': attention_layers(model, num_speculative_tokens)
        * attention_bytes_per_token_per_layer(model, tensor_parallel_size),
        'gdn_state_bytes_per_seq': gdn_layers(model) * (1 + num_speculative_tokens)
        * gdn_state_bytes_per_layer(model, tensor_parallel_size, num_speculative_tokens),
        'block_size_tokens': layout['block_size_tokens'],
        'block_bytes': layout['block_bytes'],
        'state_blocks_per_seq': state_blocks,
        'num_blocks': num_blocks,
        'required_blocks': required_blocks,
        'required_mb': round(required_blocks * layout['block_bytes'] / float(MIB), 2),
        'fits': budget_mb > 0 and required_blocks <= num_blocks,
        'max_num_seqs_fit': max_num_seqs_fit,
        'max_model_len_fit': longest(max_num_seqs),
        'max_model_len_fit_one_seq': longest(1),
    }


# --------------------------------------------------------------------------- image tags

def parse_image_tag(tag):
    # type: (str) -> Dict[str, Any]
    """"v0.23.0rc1-310p-openeuler" -> version (0, 23, 0), rc 1, suffix "-310p-openeuler".

    A full reference ("quay.io/ascend/vllm-ascend:v0.23.0-310p") is cut at its
    last colon.  Raises ``ValueError`` when the tag is not vX.Y.Z[rcN][suffix].
    """
    text = tag.rsplit(':', 1)[-1]
    match = _TAG_RE.match(text)
    if not match:
        raise ValueError('image tag %r is not vX.Y.Z[rcN][-suffix]' % (tag,))
    major, minor, patch, rc, suffix = match.groups()
    return {
        'tag': text,
        'version': [int(major), int(minor), int(patch)],
        'rc': int(rc) if rc is not None else None,
        'suffix': suffix,
    }


def image_sort_key(parsed):
    # type: (Dict[str, Any]) -> Tuple[int, int, int, float]
    # A release candidate sorts before its release: v0.23.0rc1 < v0.23.0.
    rc = parsed['rc'] if parsed['rc'] is not None else float('inf')
    return (parsed['version'][0], parsed['version'][1], parsed['version'][2], rc)


# --------------------------------------------------------------------------- extra args

def _flag_name(token):
    # type: (str) -> Optional[str]
    """The managed flag an extra argument sets, or None.

    Handles "--flag value", "--flag=value", vLLM's dotted JSON keys
    ("--compilation-config.cudagraph_mode=FULL"), underscores (vLLM's parser
    turns them into dashes), "--no-" boolean negations and short aliases.
    """
    if not token.startswith('-'):
        return None
    for alias, flag in _SHORT_ALIASES:
        if token == alias or token.startswith(alias + '=') or token.startswith(alias + '.') or (
                alias == '-O' and token.startswith('-O') and not token.startswith('--')):
            return flag
    if not token.startswith('--'):
        return None
    name = token.split('=', 1)[0].split('.', 1)[0].replace('_', '-')
    if name in MANAGED_FLAGS:
        return name
    if name.startswith('--no-') and '--' + name[5:] in MANAGED_FLAGS:
        return '--' + name[5:]
    return None


def _enables_npugraph_ex(args):
    # type: (List[str]) -> bool
    for index, token in enumerate(args):
        if _flag_name(token) != '--additional-config':
            continue
        name, has_value, inline = token.partition('=')
        if '.' in name:  # --additional-config.ascend_compilation_config.enable_npugraph_ex=true
            if name.endswith('enable_npugraph_ex') or name.endswith('enable-npugraph-ex'):
                value = inline if has_value else (args[index + 1] if index + 1 < len(args) else 'true')
                if value.strip().lower() in ('true', '1', 'yes', 'on'):
                    return True
            continue
        value = inline if has_value else (args[index + 1] if index + 1 < len(args) else '')
        try:
            data = json.loads(value)
        except ValueError:
            continue
        section = data.get('ascend_compilation_config') if isinstance(data, dict) else None
        if isinstance(section, dict) and section.get('enable_npugraph_ex') is True:
            return True
    return False


# --------------------------------------------------------------------------- plan

def _fix_for_fit(mem, tp, allowed_tp, util, name_of=lambda option: option):
    # type: (Dict[str, Any], int, List[int], float, Any) -> str
    parts = []
    if mem['max_num_seqs_fit'] >= 1:
        parts.append('lower %s to at most %d (at this max_model_len)' % (name_of('max_num_seqs'), mem['max_num_seqs_fit']))
    if mem['max_model_len_fit'] >= 1:
        parts.append('lower %s to at most %d (at this max_num_seqs)' % (name_of('max_model_len'), mem['max_model_len_fit']))
    if mem['max_num_seqs_fit'] < 1 and mem['max_model_len_fit'] < 1 and mem['max_model_len_fit_one_seq'] >= 1:
        parts.append('lower both: a single sequence fits up to %s %d'
                     % (name_of('max_model_len'), mem['max_model_len_fit_one_seq']))
    bigger_tp = [size for size in allowed_tp if size > tp]
    if bigger_tp:
        parts.append('raise %s to %d' % (name_of('tensor_parallel_size'), bigger_tp[0]))
    if util < 0.95:
        parts.append('raise %s (now %s) if the chip has the free memory'
                     % (name_of('gpu_memory_utilization'), format_utilization(util)))
    if not parts:
        parts.append('use a smaller model: the weights leave no room on this chip')
    return '; or '.join(parts)


def _model_fix(exc, model, model_var, spec_var):
    # type: (ModelSpecError, Any, str, str) -> str
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


def plan(request):
    # type: (Dict[str, Any]) -> Dict[str, Any]
    """Check a request (the ``vllm_config`` module options) and build the serve command.

    Returns a dict with argv, command, env, api_key_env, settings,
    cudagraph_capture_sizes, memory, warnings, violations, profile, model and
    image.  argv/command/env are None when there are violations.
    Unknown request keys raise ``ValueError`` (a caller bug, not user input).
    """
    unknown = sorted(set(request) - set(DEFAULTS))
    if unknown:
        raise ValueError('unknown plan() option(s): %s' % ', '.join(unknown))
    req = copy.deepcopy(DEFAULTS)
    req.update(dict((key, value) for key, value in request.items() if value is not None))
    prefix = req['var_prefix'] if isinstance(req['var_prefix'], str) else ''
    report = _Report(prefix, req['var_names'] if isinstance(req['var_names'], dict) else None)
    name_of = report.name
    result = {
        'argv': None, 'command': None, 'env': None, 'api_key_env': None, 'settings': None,
        'cudagraph_capture_sizes': None, 'memory': None, 'warnings': report.warnings,
        'violations': report.violations, 'profile': None, 'model': None, 'image': None,
    }  # type: Dict[str, Any]

    # ---- platform profile (rule source for TP, devices, image suffix)
    profile, bad = resolve_profile(req['platform'], req['platform_overrides'], req.get('platform_spec'))
    if bad:
        option, value, rule, fix = platform_violation(bad, name_of)
        report.violation(option, value, rule, fix)
    result['profile'] = profile

    # ---- model catalog
    model = None
    try:
        model = get_model(req['model'], req['model_spec'])
    except ModelSpecError as exc:
        option = 'model' if exc.unknown_model is not None else 'model_spec'
        report.violation(option, req['model'] if option == 'model' else req['model_spec'], str(exc),
                         _model_fix(exc, req['model'], name_of('model'), name_of('model_spec')))
    result['model'] = model
    # Without a valid model fall back to the guide's values, so one bad model
    # name does not also show up as missing names and sizes.
    guide = model['guide_defaults'] if model else GUIDE_DEFAULTS

    # ---- rule 1: FP16 only
    for option in ('dtype', 'mamba_ssm_cache_dtype'):
        if req[option] != SUPPORTED_DTYPE:
            report.violation(
                option, req[option],
                'Atlas 300I DUO and Atlas 200I Pro support FP16 only (guide 5.1); %s'
                % ('bfloat16 fails later inside the NPU ops' if option == 'dtype' else
                   'vLLM would otherwise keep the checkpoint\'s float32 mamba_ssm_dtype'),
                'set %s: float16' % name_of(option))

    # ---- rule 2: tensor parallel size
    tp = _to_int(req['tensor_parallel_size'])
    if tp is None or tp < 1:
        report.violation('tensor_parallel_size', req['tensor_parallel_size'],
                         'tensor_parallel_size must be a positive integer',
                         'set %s to one of %s'
                         % (name_of('tensor_parallel_size'), profile['allowed_tp'] if profile else [1, 2]))
        tp = None
    visible = None
    if req['visible_chips'] is not None:
        visible = _to_int(req['visible_chips'])
        if visible is None or visible < 1:
            report.violation('visible_chips', req['visible_chips'], 'visible_chips must be a positive integer',
                             'pass the number of chips npu_facts found')
            visible = None
    if tp is not None:
        if profile and tp not in profile['allowed_tp']:
            report.violation('tensor_parallel_size', tp,
                             'TP %d is not supported on %s; allowed: %s (guide 5.1)'
                             % (tp, req['platform'], profile['allowed_tp']),
                             'set %s to %s'
                             % (name_of('tensor_parallel_size'), ' or '.join(str(size) for size in profile['allowed_tp'])))
        if visible is not None and tp > visible:
            report.violation('tensor_parallel_size', tp,
                             'TP %d needs %d chips but only %d are visible' % (tp, tp, visible),
                             'set %s to at most %d or give the server more chips'
                             % (name_of('tensor_parallel_size'), visible))
        if model:
            bad = []
            for key in ('num_attention_heads', 'linear_num_key_heads', 'linear_num_value_heads'):
                if model[key] % tp:
                    bad.append('%s=%d' % (key, model[key]))
            kv = model['num_key_value_heads']
            # vLLM: kv heads split across ranks, or replicated when TP > kv heads.
            if (tp <= kv and kv % tp) or (tp > kv and tp % kv):
                bad.append('num_key_value_heads=%d' % kv)
            if bad:
                good = [size for size in (profile['allowed_tp'] if profile else [1, 2])
                        if not any(model[key] % size for key in ('num_attention_heads', 'linear_num_key_heads',
                                                                 'linear_num_value_heads'))]
                report.violation('tensor_parallel_size', tp,
                                 'TP %d does not divide %s of %s' % (tp, ', '.join(bad), model['name']),
                                 'set %s to one of %s' % (name_of('tensor_parallel_size'), good or [1]))

    # ---- rule 9 (part): speculative decoding
    k = _to_int(req['num_speculative_tokens'] if req['num_speculative_tokens'] is not None
                else guide.get('num_speculative_tokens', 1))
    if k is None or k < 0:
        report.violation('num_speculative_tokens', req['num_speculative_tokens'],
                         'num_speculative_tokens must be an integer >= 0',
                         'set %s: 1 (guide 5.1) or 0 to turn MTP off' % name_of('num_speculative_tokens'))
        k = None
    elif k > 0 and model and model['mtp_num_layers'] < 1:
        report.violation('num_speculative_tokens', k,
                         '%s has no MTP head, so MTP speculative decoding cannot run' % model['name'],
                         'set %s: 0' % name_of('num_speculative_tokens'))
        k = None
    elif k > 1:
        report.warn('num_speculative_tokens is %d; the guide recommends 1 (guide 5.1)' % k)
    if k and req['speculative_method'] not in SPECULATIVE_METHODS:
        report.violation('speculative_method', req['speculative_method'],
                         'Qwen3.5 dense models speculate with their MTP head (guide 5.1: qwen3_5_mtp)',
                         'set %s: qwen3_5_mtp' % name_of('speculative_method'))
    elif k and req['speculative_method'] != 'qwen3_5_mtp':
        report.warn('speculative_method %s: the guide uses qwen3_5_mtp' % req['speculative_method'])

    # ---- rule 9 (part): max_num_seqs
    seqs_raw = req['max_num_seqs'] if req['max_num_seqs'] is not None else guide.get('max_num_seqs', 32)
    seqs = _to_int(seqs_raw)
    if seqs is None or seqs < 1:
        report.violation('max_num_seqs', seqs_raw, 'max_num_seqs must be an integer >= 1',
                         'set %s, e.g. 32 (guide 5.1)' % name_of('max_num_seqs'))
        seqs = None

    # ---- rule 4: cudagraph mode
    mode = req['cudagraph_mode'].upper() if isinstance(req['cudagraph_mode'], str) else req['cudagraph_mode']
    if mode not in CUDAGRAPH_MODES:
        report.violation('cudagraph_mode', req['cudagraph_mode'],
                         'not a vLLM cudagraph mode (%s)' % ', '.join(CUDAGRAPH_MODES),
                         'set %s: %s (guide 5.1)' % (name_of('cudagraph_mode'), RECOMMENDED_CUDAGRAPH_MODE))
        mode = None
    elif mode != RECOMMENDED_CUDAGRAPH_MODE:
        report.warn('cudagraph_mode %s: the guide recommends %s on these devices'
                    % (mode, RECOMMENDED_CUDAGRAPH_MODE))

    # ---- rule 3: capture sizes
    trim = _to_bool(req['cudagraph_trim'])
    if trim is None:
        report.violation('cudagraph_trim', req['cudagraph_trim'], 'cudagraph_trim must be true or false',
                         'set %s: true or false' % name_of('cudagraph_trim'))
        trim = False
    sizes = None  # type: Optional[List[int]]
    batch_raw = req['cudagraph_batch_sizes']
    if batch_raw is None:
        batch = default_batch_sizes(tp) if tp is not None else None
    elif not isinstance(batch_raw, list) or not batch_raw:
        report.violation('cudagraph_batch_sizes', batch_raw,
                         'cudagraph_batch_sizes must be a non-empty list of requests per graph',
                         'set %s: %s' % (name_of('cudagraph_batch_sizes'), default_batch_sizes(tp or 1)))
        batch = None
    else:
        converted = [_to_int(item) for item in batch_raw]
        wrong = [item for item, value in zip(batch_raw, converted) if value is None or value < 1]
        if wrong:
            report.violation('cudagraph_batch_sizes', batch_raw,
                             'every size must be a positive integer (requests per graph); bad: %s'
                             % ', '.join(repr(item) for item in wrong),
                             'set %s: %s' % (name_of('cudagraph_batch_sizes'), default_batch_sizes(tp or 1)))
            batch = None
        else:
            batch = sorted(set(value for value in converted if value is not None))
    if batch is not None and tp is not None and tp > 1 and len(batch) > MAX_CAPTURE_SIZES_WITH_TP:
        keep = [batch[0], batch[-1]]
        dropped = batch[1:-1]
        if trim:
            report.warn('TP %d allows at most two capture sizes (guide 5.1, hardware event ids): kept %s '
                        'requests per graph, dropped %s' % (tp, keep, dropped))
            batch = keep
        else:
            report.violation('cudagraph_batch_sizes', batch_raw,
                             'with tensor parallelism the hardware event-id limit allows at most two '
                             'capture sizes (guide 5.1); %d given' % len(batch),
                             'set %s: %s (smallest and largest), or %s: '
                             'true to keep those two' % (name_of('cudagraph_batch_sizes'), keep, name_of('cudagraph_trim')))
            batch = None
    if batch is not None and k is not None:
        # Multiples of k+1 at or below the largest: a fixed point of
        # vllm_adjust_for_spec_decode, so vLLM never rewrites the list.
        sizes = capture_sizes(batch, k)
        if seqs is not None:
            if sizes[-1] < seqs * (k + 1):
                report.warn('largest capture size %d (%d requests) is below max_num_seqs %d x %d tokens: '
                            'decode batches above %d requests run without a graph (vllm-ascend logs '
                            'the same)' % (sizes[-1], batch[-1], seqs, k + 1, batch[-1]))
            over = [n for n in batch if n > seqs]
            if over:
                report.warn('capture sizes for %s requests exceed max_num_seqs %d and are never used'
                            % (over, seqs))
    result['cudagraph_capture_sizes'] = sizes

    # ---- rule 6: max_model_len
    length = None
    model_max = model['max_position_embeddings'] if model else 0
    if req['max_model_len'] is None:
        report.violation('max_model_len', None,
                         'max_model_len must be set: the 310P attention mask is an fp16 [len, len] '
                         'tensor, 128 GiB at the model default of 262144',
                         'set %s, e.g. 16384 (guide 5.1)' % name_of('max_model_len'))
    else:
        try:
            length = parse_human_int(req['max_model_len'])
        except ValueError as exc:
            raw = req['max_model_len']
            # "16.5K": vLLM allows decimals only with the decimal (lower-case) suffixes.
            decimal = (' or %s%s (decimal suffix)' % (raw.strip()[:-1], raw.strip()[-1].lower())
                       if isinstance(raw, str) and raw.strip()[-1:] in _BINARY_SUFFIX and '.' in raw else '')
            report.violation('max_model_len', raw, str(exc),
                             'set %s to an integer such as 16384%s' % (name_of('max_model_len'), decimal))
        if length is not None and length < 1:
            report.violation('max_model_len', req['max_model_len'],
                             'max_model_len must be a positive token count (no -1/auto on 310P)',
                             'set %s, e.g. 16384 (guide 5.1)' % name_of('max_model_len'))
            length = None
        elif length is not None and model is not None and length > model_max:
            report.violation('max_model_len', req['max_model_len'],
                             'max_model_len %d exceeds %s max_position_embeddings %d'
                             % (length, model['name'], model_max),
                             'set %s to at most %d' % (name_of('max_model_len'), model_max))
            length = None

    # ---- rule 9: utilisation, port, names
    util_raw = (req['gpu_memory_utilization'] if req['gpu_memory_utilization'] is not None
                else guide.get('gpu_memory_utilization', 0.9))
    util = _to_float(util_raw)
    if util is None or not 0 < util <= 1:
        report.violation('gpu_memory_utilization', util_raw, 'gpu_memory_utilization must be in (0, 1]',
                         'set %s, e.g. 0.90 (guide 5.1)' % name_of('gpu_memory_utilization'))
        util = None
    port = _to_int(req['port'])
    if port is None or not 1 <= port <= 65535:
        report.violation('port', req['port'], 'port must be an integer in 1..65535',
                         'set %s to an integer in 1..65535 (the guide serves on 1025)' % name_of('port'))
        port = None
    name = req['served_model_name'] if req['served_model_name'] is not None else guide.get('served_model_name')
    if not isinstance(name, str) or not name.strip():
        report.violation('served_model_name', name, 'served_model_name must be a non-empty string',
                         'set %s, e.g. qwen3.5 (guide 5.1)' % name_of('served_model_name'))
        name = None
    host = req['host']
    if not isinstance(host, str) or not host.strip():
        report.violation('host', host, 'host must be a non-empty address',
                         'set %s to an address: 0.0.0.0 (every interface, for a published port) or 127.0.0.1 '
                         '(guide 5.1)' % name_of('host'))
        host = None
    model_path = req['model_path'] if req['model_path'] is not None else req['model']
    if not isinstance(model_path, str) or not model_path.strip():
        report.violation('model_path', model_path, 'model_path must be a model id or a directory',
                         'set %s to a directory or leave it unset to use the model id' % name_of('model_path'))
        model_path = None
    bools = {}
    for option in ('trust_remote_code', 'use_modelscope'):
        bools[option] = _to_bool(req[option])
        if bools[option] is None:
            report.violation(option, req[option], '%s must be true or false' % option,
                             'set %s: true (guide 5.1)' % name_of(option))

    ints = {}
    for option, minimum, fallback in (('chip_memory_mb', 1, profile['chip_memory_mb'] if profile else None),
                                      ('chip_free_memory_mb', 0, None),
                                      ('memory_reserve_mb', 0, 2048)):
        raw = req[option] if req[option] is not None else fallback
        value = _to_int(raw) if raw is not None else None
        if raw is not None and (value is None or value < minimum):
            report.violation(option, raw, '%s must be an integer >= %d (MiB, as npu-smi reports)' % (option, minimum),
                             'set %s in MiB' % name_of(option))
            value = None
        ints[option] = value

    # ---- rule 5: extra arguments
    extra = req['extra_args'] if req['extra_args'] is not None else []
    if not isinstance(extra, list) or not all(isinstance(item, str) for item in extra):
        report.violation('extra_args', extra, 'extra_args must be a list of strings',
                         'set %s to a list such as ["--enable-prefix-caching"]' % name_of('extra_args'))
        extra = None
    else:
        if _enables_npugraph_ex(extra):
            report.violation('extra_args', extra,
                             'enable_npugraph_ex must stay false on 310P (guide 5.1); the module always passes '
                             '--additional-config %s' % compact_json(ADDITIONAL_CONFIG),
                             'remove --additional-config from %s' % name_of('extra_args'))
        duplicates = []
        for token in extra:
            flag = _flag_name(token)
            if flag and flag not in duplicates:
                duplicates.append(flag)
        if duplicates:
            report.violation('extra_args', extra,
                             'extra_args repeats flags the module manages: %s' % ', '.join(duplicates),
                             'remove them from %s and set the matching %s* variables instead'
                             % (name_of('extra_args'), prefix))

    # ---- rule 8: image tag
    if req['image_tag'] is not None:
        try:
            image = parse_image_tag(str(req['image_tag']))
        except ValueError as exc:
            image = None
            report.violation('image_tag', req['image_tag'], str(exc),
                             'set %s so that the image tag is a release such as v0.23.0%s'
                             % (name_of('image_tag'), profile['image_tag_suffix'] if profile else '-310p'))
        result['image'] = image
        if image and profile and image['suffix'] != profile['image_tag_suffix']:
            report.violation('image_tag', req['image_tag'],
                             '%s needs the %s image (guide 4.1); a build for another SoC fails with '
                             '"socversion ... does not match"' % (req['platform'], profile['image_tag_suffix']),
                             'set %s so that the image tag ends in %s, e.g. v0.23.0%s'
                             % (name_of('image_tag'), profile['image_tag_suffix'], profile['image_tag_suffix']))
        if image and model:
            minimum = parse_image_tag(model['min_image_tag'])
            if image_sort_key(image) < image_sort_key(minimum):
                report.violation('image_tag', req['image_tag'],
                                 '%s needs vllm-ascend %s or newer (guide section 1)'
                                 % (model['name'], model['min_image_tag'].split('-')[0]),
                                 'set %s so that the image tag is %s%s or newer'
                                 % (name_of('image_tag'), minimum['tag'].split('-')[0],
                                    profile['image_tag_suffix'] if profile else minimum['suffix']))
            elif model.get('guide_min_image_tag'):
                floor = parse_image_tag(model['guide_min_image_tag'])
                if image_sort_key(image) < image_sort_key(floor):
                    report.warn('image %s is older than the guide\'s minimum %s (guide 4.1)'
                                % (image['tag'], floor['tag'].split('-')[0]))
                    if k and mode != 'NONE' and image['suffix'].endswith('openeuler'):
                        report.warn('MTP with graph mode fails on %s ("Not allow to synchronize '
                                    'captured-stream", vllm-ascend #12983); upgrade the image' % image['tag'])

    # ---- rule 7: memory fit
    if model and tp is not None and k is not None and seqs is not None and length is not None \
            and util is not None and ints['chip_memory_mb'] is not None and ints['memory_reserve_mb'] is not None:
        mem = memory_plan(model, ints['chip_memory_mb'], util, tp, length, seqs, k, ints['memory_reserve_mb'])
        result['memory'] = mem
        if not mem['fits']:
            # Name the variable to change: max_model_len when even one sequence does not fit.
            too_long = mem['max_num_seqs_fit'] < 1
            report.violation(
                'max_model_len' if too_long else 'max_num_seqs', length if too_long else seqs,
                '%s at TP %d does not fit %s MiB x %s: needs %s MiB for %d sequences\' GDN state and one '
                '%d-token KV cache, the halved KV budget is %s MiB (weights %s MiB, attention mask %s MiB, '
                'reserve %d MiB)'
                % (model['name'], tp, ints['chip_memory_mb'], format_utilization(util), mem['required_mb'], seqs,
                   length, mem['kv_budget_mb'], mem['weights_mb_per_chip'], mem['attention_mask_mb'],
                   ints['memory_reserve_mb']),
                _fix_for_fit(mem, tp, profile['allowed_tp'] if profile else [tp], util, name_of))
        free = ints['chip_free_memory_mb']
        if free is not None and free < mem['usable_mb']:
            report.violation(
                'chip_free_memory_mb', free,
                'free memory on the chip (%d MiB) is less than gpu_memory_utilization x chip memory (%s MiB); '
                'vllm-ascend stops with "Free memory on device ... is less than desired GPU memory '
                'utilization"' % (free, mem['usable_mb']),
                'free the chip (stop the processes npu-smi lists) or lower %s to at most '
                '%s' % (name_of('gpu_memory_utilization'),
                        format_utilization(int(free * 100.0 / ints['chip_memory_mb']) / 100.0)))
        if profile and profile['rc_mode'] and free is None:
            report.warn('%s runs in RC mode: vllm-ascend compares host MemAvailable with chip memory x '
                        'utilisation at start; pass chip_free_memory_mb to check it here' % req['platform'])

    if report.violations:
        return result

    # ---- argv in the guide's flag order (guide 5.1)
    argv = ['vllm', 'serve', model_path,
            '--host', host,
            '--port', str(port),
            '--tensor-parallel-size', str(tp),
            '--served-model-name', name,
            '--max-num-seqs', str(seqs),
            '--max-model-len', str(length)]
    if bools['trust_remote_code']:
        argv.append('--trust-remote-code')
    argv += ['--gpu-memory-utilization', format_utilization(util),
             '--mamba-ssm-cache-dtype', req['mamba_ssm_cache_dtype'],
             '--dtype', req['dtype']]
    if k:
        argv += ['--speculative-config',
                 compact_json({'method': req['speculative_method'], 'num_speculative_tokens': k})]
    argv += ['--compilation-config', compact_json({'cudagraph_mode': mode, 'cudagraph_capture_sizes': sizes}),
             '--additional-config', compact_json(ADDITIONAL_CONFIG)]
    argv += extra
    env = {}
    # Guide 5.1: "export VLLM_USE_MODELSCOPE=True" for a ModelScope id, not a local path.
    if bools['use_modelscope'] and not posixpath.isabs(model_path):
        env['VLLM_USE_MODELSCOPE'] = 'True'
    result.update({
        'argv': argv,
        'command': ' '.join(shlex.quote(arg) for arg in argv),
        'env': env,
        # The key never goes on the command line (ps, docker inspect) or into the
        # result (Ansible masks no_log values there): the container gets it as
        # this env var, which vLLM reads when --api-key is absent.
        'api_key_env': API_KEY_ENV if req['api_key'] else None,
        'settings': {
            'model': req['model'], 'model_path': model_path, 'host': host, 'port': port,
            'served_model_name': name, 'tensor_parallel_size': tp, 'max_model_len': length,
            'max_num_seqs': seqs, 'num_speculative_tokens': k, 'gpu_memory_utilization': util,
            'cudagraph_mode': mode,
        },
    })
    return result
