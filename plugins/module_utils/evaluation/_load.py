# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The load options of the eval role's two runners (vllm_eval, aisbench_eval), documented once in the
ascend.vllm.eval_load doc fragment."""

from __future__ import annotations

LOAD_SPEC = dict(
    max_out_len=dict(type='int', default=4096),
    batch_size=dict(type='int', default=16),
    concurrency=dict(type='list', elements='int', default=[]),
    requests=dict(type='int', default=32),
    input_len=dict(type='int', default=128),
    output_len=dict(type='int', default=128),
)
