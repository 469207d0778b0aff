# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import annotations


class ModuleDocFragment:
    """The load options of the eval role's two runners (builtin and AISBench): the guide's accuracy settings and
    the performance sweep."""

    DOCUMENTATION = r'''
options:
  max_out_len:
    description: C(max_tokens) of each accuracy request (the guide's C(max_out_len)).
    type: int
    default: 4096
  batch_size:
    description: Accuracy requests in flight at once (the guide's C(batch_size)).
    type: int
    default: 16
  concurrency:
    description: Concurrency levels of the performance sweep; empty for none.
    type: list
    elements: int
    default: []
  requests:
    description: Requests per concurrency level.
    type: int
    default: 32
  input_len:
    description: Words in each performance prompt.
    type: int
    default: 128
  output_len:
    description: C(max_tokens) of each performance request (sent with C(ignore_eos)).
    type: int
    default: 128
'''
