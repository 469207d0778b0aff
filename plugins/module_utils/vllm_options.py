# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The options of a vLLM instance, declared once.

Every other view of them (the vllm_config module's argument spec, the vllm_serve
role's per-instance keys and scalar variables) comes from here.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

# vllm_config options an instance entry of ascend_vllm_instances may set; each
# also has a scalar role variable vllm_serve_<option>.  Host-level ones
# (platform, host, image_tag, derived visible_chips / chip_free_memory_mb) are
# not per instance.
INSTANCE_OPTIONS = (
    'model', 'model_path', 'model_spec', 'tensor_parallel_size', 'dtype', 'mamba_ssm_cache_dtype',
    'num_speculative_tokens', 'speculative_method', 'cudagraph_batch_sizes', 'cudagraph_trim',
    'cudagraph_mode', 'max_model_len', 'max_num_seqs', 'gpu_memory_utilization', 'served_model_name',
    'trust_remote_code', 'use_modelscope', 'memory_reserve_mb', 'chip_memory_mb', 'extra_args', 'api_key',
)

# Keys of an instance entry that are not vllm_config options.
INSTANCE_KEYS = ('name', 'container_name', 'chips', 'port', 'env')
