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


def default_batch_sizes(tensor_parallel_size: int, tp_sizes: Optional[List[int]] = None) -> List[int]:
    """Requests per graph when none are given: the guide's, or ``tp_sizes`` (the model's) at TP > 1."""
    return list(DEFAULT_BATCH_SIZES_TP1 if tensor_parallel_size == 1 else tp_sizes or DEFAULT_BATCH_SIZES_TP)


def capture_sizes(batch_sizes: List[int], num_speculative_tokens: int) -> List[int]:
    """Requests per graph -> tokens per graph: n * (k + 1) (guide 5.1), sorted, distinct."""
    return [n * (num_speculative_tokens + 1) for n in sorted(set(batch_sizes))]
