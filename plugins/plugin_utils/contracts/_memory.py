# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Memory model of vLLM's hybrid (attention + GDN) cache on one 310P chip.

Private to the planner (import from ``planner``).  All MB are MiB, as npu-smi reports."""

from __future__ import annotations

import sys
from typing import Any, Dict

MIB = 1024 * 1024
# vllm_ascend/patch/platform/patch_mamba_config_310.py (v0.23.0rc1): the 310P
# attention block size is a multiple of 128 tokens, big enough that one
# attention page holds one mamba (GDN) state page.
KERNEL_BLOCK_ALIGNMENT = 128


def full_attention_layers(model: Dict[str, Any]) -> int:
    # Qwen3.5 layer_types: (3x linear_attention, 1x full_attention) repeated.
    return model['num_hidden_layers'] // model['full_attention_interval']


def gdn_layers(model: Dict[str, Any]) -> int:
    return model['num_hidden_layers'] - full_attention_layers(model)


def attention_layers(model: Dict[str, Any], num_speculative_tokens: int) -> int:
    """Layers holding a KV cache: the full-attention layers plus the MTP layer when MTP runs."""
    return full_attention_layers(model) + (model['mtp_num_layers'] if num_speculative_tokens > 0 else 0)


def attention_bytes_per_token_per_layer(model: Dict[str, Any], tensor_parallel_size: int) -> int:
    # K and V, fp16 (vLLM AttentionSpec.real_page_size_bytes with block_size 1), of the KV heads one rank
    # holds: vLLM replicates them when TP > kv heads (ModelConfig.get_num_kv_heads).
    return 2 * max(1, model['num_key_value_heads'] // tensor_parallel_size) * model['head_dim'] * 2


def gdn_state_bytes_per_layer(model: Dict[str, Any], tensor_parallel_size: int, num_speculative_tokens: int) -> int:
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


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def cache_layout(model: Dict[str, Any], tensor_parallel_size: int, num_speculative_tokens: int) -> Dict[str, int]:
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


def weight_bytes(model: Dict[str, Any]) -> int:
    """One copy of the weights: the catalog's weight_bytes (int8 checkpoints), else fp16 parameters."""
    return model.get('weight_bytes') or model['num_parameters'] * 2


def _kv_blocks(layout: Dict[str, int], max_model_len: int) -> int:
    return layout['attention_groups'] * _ceil_div(max_model_len, layout['block_size_tokens'])


def _budget_mb(usable_mb: float, weights_mb: float, max_model_len: int, reserve_mb: int) -> float:
    # The 310P worker halves what is left for KV + state: "Available KV cache
    # memory: %.2f GiB (halved for workspace)" (vllm_ascend/_310p/worker_310p.py).
    return (usable_mb - weights_mb - attention_mask_mb(max_model_len) - reserve_mb) / 2


def attention_mask_mb(max_model_len: int) -> float:
    # AttentionMaskBuilder310 (vllm_ascend/_310p/attention/attention_mask.py)
    # builds an fp16 [max_model_len, max_model_len] causal mask unless torch_npu
    # offers the compressed 2048x2048 kernels; plan for the full one.
    return 2.0 * max_model_len * max_model_len / MIB


def _num_blocks(budget_mb: float, layout: Dict[str, int]) -> int:
    return int(budget_mb * MIB) // layout['block_bytes'] if budget_mb > 0 else 0


def _mib(nbytes: int) -> float:
    """Bytes as MiB, rounded; a count no float can hold (max_num_seqs 10**300) as the largest float."""
    try:
        return round(nbytes / float(MIB), 2)
    except OverflowError:
        return sys.float_info.max


def memory_plan(model: Dict[str, Any], chip_memory_mb: int, gpu_memory_utilization: float, tensor_parallel_size: int,
                max_model_len: int, max_num_seqs: int, num_speculative_tokens: int, reserve_mb: int) -> Dict[str, Any]:
    """Does the model fit one chip's share of memory?  All MB are MiB, as npu-smi reports.

    Fits when ``max_num_seqs`` sequences' GDN state plus one ``max_model_len``
    sequence's KV cache fit in the (halved) KV budget: vLLM refuses to start
    otherwise ("max_num_seqs (N) exceeds available Mamba cache blocks (M)",
    or the KV cache too small for one max_model_len request).
    """
    usable_mb = chip_memory_mb * gpu_memory_utilization
    weights_mb = weight_bytes(model) / float(tensor_parallel_size) / MIB
    layout = cache_layout(model, tensor_parallel_size, num_speculative_tokens)
    state_blocks = layout['state_blocks_per_seq']

    def blocks_needed(length: int, seqs: int) -> int:
        return seqs * state_blocks + _kv_blocks(layout, length)

    def fits(length: int, seqs: int) -> bool:
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

    def longest(seqs: int) -> int:
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
        'required_mb': _mib(required_blocks * layout['block_bytes']),
        'fits': budget_mb > 0 and required_blocks <= num_blocks,
        'max_num_seqs_fit': max_num_seqs_fit,
        'max_model_len_fit': longest(max_num_seqs),
        'max_model_len_fit_one_seq': longest(1),
    }
