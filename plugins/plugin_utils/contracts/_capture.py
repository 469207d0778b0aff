# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""CUDA graph capture sizes: requests per graph -> tokens per graph with MTP.

vllm-ascend docs, "Qwen3.5-Dense" tutorial, section 5.1 (graph mode on 310P).
Private to the planner (import from ``planner``)."""

from __future__ import annotations

from typing import List, Optional

# Guide 5.1: "当启用张量并行（TP）时，硬件事件 ID 限制最多允许两个捕获大小（例如[1, 8]）".
MAX_CAPTURE_SIZES_WITH_TP = 2
# Guide 5.1: the non-MTP sizes [1,2,4,8] (TP 1) and the TP example [1, 8].
DEFAULT_BATCH_SIZES_TP1 = [1, 2, 4, 8]
DEFAULT_BATCH_SIZES_TP = [1, 8]


def _round_up(value: int, multiple: int) -> int:
    return ((value + multiple - 1) // multiple) * multiple


def vllm_adjust_for_spec_decode(sizes: List[int],
                                num_speculative_tokens: int,
                                max_capture_size: Optional[int] = None) -> List[int]:
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


def default_batch_sizes(tensor_parallel_size: int, tp_sizes: Optional[List[int]] = None) -> List[int]:
    """Requests per graph when none are given: the guide's, or ``tp_sizes`` (the model's) at TP > 1."""
    if tensor_parallel_size == 1:
        return list(DEFAULT_BATCH_SIZES_TP1)
    return list(tp_sizes or DEFAULT_BATCH_SIZES_TP)


def capture_sizes(batch_sizes: List[int], num_speculative_tokens: int) -> List[int]:
    """Requests per graph -> tokens per graph: n * (k + 1) (guide 5.1), sorted, distinct."""
    return [n * (num_speculative_tokens + 1) for n in sorted(set(batch_sizes))]
