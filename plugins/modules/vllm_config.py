#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import annotations

DOCUMENTATION = r'''
---
module: vllm_config
short_description: Check a vLLM deployment on Atlas 310P and build its exact C(vllm serve) command
version_added: 0.1.0
description:
  - Checks a vLLM deployment of a Qwen3.5 dense model (2B, 4B, 9B, FP16) on an Atlas 300I DUO
    or Atlas 200I Pro against the vllm-ascend deployment guide and against what vLLM and
    vllm-ascend do at start, and returns the C(vllm serve) argument list, its environment and
    a memory plan.
  - Reports every broken rule at once, each as O(var_prefix) + option name, the value, the rule
    and the fix, so a play can stop a whole fleet before anything is pulled or started.
  - With the guide's inputs the argument list is exactly the guide's command, in the guide's
    flag order, with compact JSON values.
  - Rules checked. O(dtype) and O(mamba_ssm_cache_dtype) are C(float16) (these devices run FP16
    only). O(tensor_parallel_size) is one the platform allows (C(1) or C(2) on Atlas 300I DUO,
    C(1) on Atlas 200I Pro), at most O(visible_chips), and divides the model's attention, KV and
    GDN heads. Capture sizes are O(cudagraph_batch_sizes) (requests per graph) times
    O(num_speculative_tokens)+1, with at most two sizes when tensor parallelism is on.
    O(cudagraph_mode) is a vLLM mode (C(FULL_DECODE_ONLY) recommended).
    O(extra_args) never repeats a flag the module sets and never turns C(enable_npugraph_ex) on.
    O(max_model_len) is set and within the model's positions. Weights, the 310P attention mask,
    GDN state for O(max_num_seqs) sequences and one O(max_model_len) KV cache fit the chip.
    O(image_tag) is new enough for the model and built for the platform.
  - It only computes; it never changes the host. It runs on the controller only (its action
    plugin), so a task never contacts the node, and C(ansible -m ascend.vllm.vllm_config) plans
    there too. No code of it is shipped to a node.
  - The options are declared once, in C(plugin_utils/contracts/vllm_options.py); the action's
    argument spec comes from there, and a unit test keeps this documentation in step with it.
extends_documentation_fragment:
  - ascend.vllm.module.action
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.flow
options:
  platform:
    description:
      - Platform profile to check against; it also selects the image suffix and the allowed
        tensor parallel sizes. One of C(atlas_300i_duo), C(atlas_200i_pro) and
        C(atlas_200i_pro_openeuler).
      - Any other name is reported as a problem with the valid names and the closest one, next to
        the other problems, rather than rejected as an argument.
    type: str
    required: true
  platform_overrides:
    description:
      - Fields of the platform profile to replace, for example C(chip_memory_mb) or
        C(allowed_tp). Dict fields such as C(model_cache_mount) are merged one level deep.
      - Unknown keys, and values of another kind than the profile's, are reported as problems.
    type: dict
    default: {}
  platform_spec:
    description:
      - Describes a platform that is not built in (O(platform) is then any name), for example an
        Atlas 300I Pro card. Either C(based_on) names a built-in profile and the other keys are the
        fields that differ, or every profile field is given.
      - Ignored for a built-in O(platform). Problems are reported like those of O(platform_overrides).
    type: dict
  model:
    description:
      - Model name, a key of the model catalog (C(Qwen/Qwen3.5-2B), C(Qwen/Qwen3.5-4B),
        C(Qwen/Qwen3.5-9B), and on the Atlas 300I DUO only C(Eco-Tech/Qwen3.5-27B-w8a8-mtp),
        C(Eco-Tech/Qwen3.6-27B-w8a8) and C(Eco-Tech/Qwen3.6-27B-w8a8-310p) at TP 2 or 4) or any name described completely by O(model_spec).
    type: str
    required: true
  model_path:
    description:
      - What C(vllm serve) loads, a ModelScope/Hugging Face id or a directory inside the container.
      - Defaults to O(model).
    type: str
  model_spec:
    description:
      - Architecture facts that override the catalog entry of O(model), or describe a model the
        catalog does not know (then every catalog field is required).
      - Keys are C(num_hidden_layers), C(full_attention_interval), C(num_attention_heads),
        C(num_key_value_heads), C(head_dim), C(linear_num_key_heads), C(linear_num_value_heads),
        C(linear_key_head_dim), C(linear_value_head_dim), C(linear_conv_kernel_dim),
        C(hidden_size), C(vocab_size), C(tie_word_embeddings), C(num_parameters),
        C(mtp_num_layers), C(max_position_embeddings), C(min_image_tag),
        C(guide_min_image_tag) and C(guide_defaults).
      - Optional keys (version 0.3.0) C(weight_bytes) (one copy of the weights when they are not
        16-bit), C(quantization) (the C(--quantization) method the checkpoint needs),
        C(allowed_tp) (platform name to the TP sizes the model runs with there; other platforms
        are refused), C(tp_cudagraph_batch_sizes) (requests per graph at TP above 1 when
        O(cudagraph_batch_sizes) is unset) and C(source) (the document its rules come from).
    type: dict
  tensor_parallel_size:
    description:
      - Tensor parallel size, the number of chips one server uses.
      - Anything but a whole number is reported as a problem rather than rejected outright.
    type: raw
    default: 1
  dtype:
    description:
      - Model dtype. Only C(float16) is accepted; anything else is reported as a problem.
    type: str
    default: float16
  quantization:
    description:
      - The C(--quantization) method. Unset takes the model's own, C(ascend) for the W8A8
        catalog models (vllm-ascend docs, "Qwen3.5-27B & Qwen3.6-27B" tutorial, section 5.1), none
        for the others.
      - One of the methods vllm-ascend knows (C(ascend), C(compressed-tensors), C(fp8),
        C(deepseek_v4_fp8)); C(ascend) on an unquantized catalog checkpoint is reported as a problem.
    type: str
    version_added: 0.3.0
  mamba_ssm_cache_dtype:
    description:
      - Dtype of the GDN (mamba) state cache. Only C(float16) is accepted; left unset vLLM
        would take C(float32) from the checkpoint.
    type: str
    default: float16
  num_speculative_tokens:
    description:
      - Tokens proposed per step by the model's MTP head; C(0) turns speculative decoding off
        and drops C(--speculative-config).
      - Unset takes the model's guide default (C(guide_defaults) of O(model_spec)), C(1) for the
        catalog models.
    type: raw
  speculative_method:
    description:
      - Speculative method; the guide uses C(qwen3_5_mtp), newer vLLM also accepts C(mtp).
    type: str
    default: qwen3_5_mtp
  cudagraph_batch_sizes:
    description:
      - Graph sizes in requests per graph. The module multiplies each by
        O(num_speculative_tokens)+1 into the capture sizes vLLM takes (tokens per graph).
      - Defaults to C([1, 2, 4, 8]) with O(tensor_parallel_size=1) and C([1, 8]) otherwise.
      - With tensor parallelism at most two sizes are allowed.
    type: list
    elements: raw
  cudagraph_trim:
    description:
      - With tensor parallelism and more than two O(cudagraph_batch_sizes), keep the smallest and
        the largest (with a warning) instead of reporting a problem.
    type: bool
    default: false
  cudagraph_mode:
    description:
      - vLLM cudagraph mode, one of C(NONE), C(PIECEWISE), C(FULL), C(FULL_DECODE_ONLY),
        C(FULL_AND_PIECEWISE). Any but C(FULL_DECODE_ONLY) gives a warning.
    type: str
    default: FULL_DECODE_ONLY
  max_model_len:
    description:
      - Context length (prompt plus output) in tokens. An integer or a vLLM size string
        (C(16k) is 16000, C(16K) is 16384); the integer goes on the command line.
      - Must be set; leaving it out is reported with the other problems, not as a missing
        argument, because the 310P attention mask grows with its square.
    type: raw
  max_num_seqs:
    description:
      - Largest number of sequences served at once.
      - Unset takes the model's guide default (C(guide_defaults) of O(model_spec)), C(32) for the
        catalog models.
    type: raw
  gpu_memory_utilization:
    description:
      - Share of the chip's memory vLLM may use, in (0, 1].
      - Unset takes the model's guide default (C(guide_defaults) of O(model_spec)), C(0.9) for the
        catalog models.
    type: raw
  served_model_name:
    description:
      - Model name the API serves; without spaces around it, a leading C(-) or control characters.
      - Unset takes the model's guide default (C(guide_defaults) of O(model_spec)), C(qwen3.5) for
        the catalog models.
    type: str
  reasoning_parser:
    description:
      - vLLM C(--reasoning-parser), which returns a thinking model's reasoning in the message field
        C(reasoning) (vLLM 0.23) and the answer in C(content).
      - C(auto) takes the model's (C(reasoning_parser) of the catalog or O(model_spec); C(qwen3) for
        the catalog models, from the Qwen3.5 model cards and vLLM's Qwen3.5 recipe); C(none) passes nothing.
      - A name must be the model's and registered in the vLLM of O(image_tag) (vLLM 0.23.0 read from its
        source); the same holds for a C(--reasoning-parser) in O(extra_args), which C(auto) then leaves to it.
    type: str
    default: auto
    version_added: 0.4.0
  tool_call_parser:
    description:
      - vLLM C(--tool-call-parser), passed with C(--enable-auto-tool-choice), so that a request with
        C(tools) gets C(tool_calls) back.
      - C(auto) takes the model's (C(qwen3_coder) for the catalog models); C(none) leaves tool calling
        off (vLLM then answers C(tool_choice=auto) with an error 400).
      - Judged like O(reasoning_parser).
    type: str
    default: auto
    version_added: 0.4.0
  host:
    description:
      - Address C(vllm serve) listens on; an IP address or a host name (no port, scheme or spaces).
    type: str
    default: 127.0.0.1
  port:
    description:
      - Port C(vllm serve) listens on.
    type: raw
    default: 1025
  trust_remote_code:
    description:
      - Pass C(--trust-remote-code), as the guide does.
    type: bool
    default: true
  chip_memory_mb:
    description:
      - Memory of one chip in MiB (the total npu-smi shows). Defaults to the profile's nominal
        figure; on Atlas 200I Pro (RC mode, memory shared with the host) pass the real one.
    type: raw
  chip_free_memory_mb:
    description:
      - Smallest free memory, in MiB, among the chips the server will use (from
        M(ascend.vllm.npu_facts)). Less than O(gpu_memory_utilization) times O(chip_memory_mb)
        is a problem, as vllm-ascend refuses to start then.
    type: raw
  visible_chips:
    description:
      - Number of chips the server can see; O(tensor_parallel_size) may not exceed it.
    type: raw
  memory_reserve_mb:
    description:
      - MiB kept back for activations and graph workspace before the KV budget is computed,
        an estimate of what vLLM's profiling run takes.
    type: raw
    default: 2048
  image_tag:
    description:
      - vllm-ascend image tag to check, for example C(v0.23.0-310p) or
        C(v0.23.0rc1-310p-openeuler); a full image reference is cut at its last colon.
      - Must be at least the model's minimum and carry the platform's suffix.
    type: str
  extra_args:
    description:
      - More C(vllm serve) arguments, appended after the managed ones. They may not repeat a
        managed flag (C(--dtype), C(--tensor-parallel-size), C(--max-model-len) and the others
        the module sets) nor turn C(enable_npugraph_ex) on.
      - Each flag must be one of the C(vllm serve) flags of the vLLM inside the image (the vLLM
        version of I(image_tag)'s entry in docs/versions.md; vLLM 0.23.0 without one), read from a
        table generated from that vLLM's own argument parser. An unknown flag is reported with the
        closest flag; a flag needs a value when it takes one and none when it does not; values are
        converted and compared with the flag's choices as vLLM does. Flags that undo a managed setting
        (C(--cudagraph-capture-sizes), C(--spec-tokens), C(--uds), C(--headless), ...) are refused.
      - An item that starts with C(-) and holds several arguments (C(--enforce-eager --seed 1)) is
        split like a shell line.
    type: list
    elements: str
    default: []
  api_key:
    description:
      - API key the server will require. It never appears in the result or on the command line.
        The module returns RV(api_key_env) instead, the environment variable through which the
        container must receive it (vLLM reads C(VLLM_API_KEY) when C(--api-key) is absent).
    type: str
  offline:
    description:
      - The node reaches no model hub (an air-gapped site). RV(env) gets C(HF_HUB_OFFLINE=1), and a model
        that is not a local directory (O(model_path) starting with C(/)) is reported as a problem, since
        nothing could download it.
    type: bool
    default: false
    version_added: 0.3.0
  use_modelscope:
    description:
      - Set C(VLLM_USE_MODELSCOPE=True) in RV(env) when O(model_path) is a model id rather than a
        directory, as the guide does.
    type: bool
    default: true
  var_prefix:
    description:
      - Prefix put before option names in problem reports, for example C(vllm_serve_), so they
        name the caller's variables.
    type: str
    default: ''
  var_names:
    description:
      - Variable names for options that the caller does not read from O(var_prefix) + option name,
        for example C(platform=ascend_vllm_platform) or C(image_tag=image_pull_tag). Problem reports
        and fixes use these names.
    type: dict
    default: {}
attributes:
  action:
    details: The action plugin validates the options and plans on the controller.
  check_mode:
    details: The module only computes, so check mode gives the same result.
  platform:
    platforms: all
notes:
  - Memory figures are MiB, as npu-smi reports them. The plan follows vLLM's hybrid cache
    layout on 310P (attention blocks of a multiple of 128 tokens, GDN state padded to one
    attention page, one state block per GDN layer group for each sequence and speculative
    token) and vllm-ascend's halving of the KV budget; see RV(memory).
seealso:
  - module: ascend.vllm.npu_facts
'''

EXAMPLES = r'''
- name: Check the guide's deployment and get its command
  ascend.vllm.vllm_config:
    platform: atlas_300i_duo
    model: Qwen/Qwen3.5-2B
    tensor_parallel_size: 1
    max_model_len: 16384
    max_num_seqs: 32
  register: vllm_plan

- name: Use the facts of the chips, name the role's variables in problems
  ascend.vllm.vllm_config:
    platform: atlas_300i_duo
    model: Qwen/Qwen3.5-9B
    model_path: /root/.cache/modelscope/Qwen3.5-9B
    tensor_parallel_size: 2
    cudagraph_batch_sizes: [1, 8]
    max_model_len: 32K
    max_num_seqs: 16
    chip_memory_mb: "{{ npu_facts_min_total_mb }}"
    chip_free_memory_mb: "{{ npu_facts_min_free_mb }}"
    visible_chips: "{{ npu_facts_chip_count }}"
    image_tag: v0.23.0-310p
    var_prefix: vllm_serve_
  register: vllm_plan

- name: Atlas 200I Pro on openEuler, without MTP, behind an API key
  ascend.vllm.vllm_config:
    platform: atlas_200i_pro_openeuler
    model: Qwen/Qwen3.5-4B
    num_speculative_tokens: 0
    max_model_len: 8192
    max_num_seqs: 8
    chip_memory_mb: 24576
    image_tag: v0.23.0-310p-openeuler
    api_key: "{{ vault_vllm_api_key }}"
  register: vllm_plan

- name: Show the command
  ansible.builtin.debug:
    msg: "{{ vllm_plan.env.items() | map('join', '=') | join(' ') }} {{ vllm_plan.command }}"
'''

RETURN = r'''
argv:
  description: The C(vllm serve) command as an argument list, for a container's command.
  returned: success
  type: list
  elements: str
  sample: [vllm, serve, Qwen/Qwen3.5-2B, --host, 127.0.0.1, --port, '1025', --tensor-parallel-size, '1',
           --served-model-name, qwen3.5, --max-num-seqs, '32', --max-model-len, '16384', --trust-remote-code,
           --gpu-memory-utilization, '0.90', --mamba-ssm-cache-dtype, float16, --dtype, float16,
           --speculative-config, '{"method":"qwen3_5_mtp","num_speculative_tokens":1}',
           --compilation-config, '{"cudagraph_mode":"FULL_DECODE_ONLY","cudagraph_capture_sizes":[2,4,8,16]}',
           --additional-config, '{"ascend_compilation_config":{"enable_npugraph_ex":false}}']
command:
  description: RV(argv) quoted for a shell.
  returned: success
  type: str
  sample: vllm serve Qwen/Qwen3.5-2B --host 127.0.0.1 --port 1025 ...
env:
  description: Environment variables C(vllm serve) needs.
  returned: success
  type: dict
  sample: {VLLM_USE_MODELSCOPE: 'True'}
api_key_env:
  description:
    - Name of the environment variable that must carry O(api_key) into the container, or null
      when no key is set.
  returned: success
  type: str
  sample: VLLM_API_KEY
settings:
  description: The checked values, normalised (integers for sizes, upper-case mode).
  returned: success
  type: dict
  sample: {model: Qwen/Qwen3.5-2B, model_path: Qwen/Qwen3.5-2B, host: 127.0.0.1, port: 1025,
           served_model_name: qwen3.5, tensor_parallel_size: 1, max_model_len: 16384, max_num_seqs: 32,
           num_speculative_tokens: 1, gpu_memory_utilization: 0.9, cudagraph_mode: FULL_DECODE_ONLY}
cudagraph_capture_sizes:
  description: Capture sizes in tokens per graph, as passed to vLLM; vLLM leaves them unchanged.
  returned: success and, when they could be computed, failure
  type: list
  elements: int
  sample: [2, 4, 8, 16]
memory:
  description:
    - Memory plan for one chip, in MiB unless named bytes or blocks; null when the inputs it
      needs are themselves wrong.
  returned: always
  type: dict
  contains:
    chip_memory_mb:
      description: Memory of one chip.
      type: int
    gpu_memory_utilization:
      description: Share of it vLLM may use.
      type: float
    usable_mb:
      description: RV(memory.chip_memory_mb) times RV(memory.gpu_memory_utilization).
      type: float
    weights_mb_per_chip:
      description: FP16 weights (vision encoder and MTP head included) divided by the TP size.
      type: float
    attention_mask_mb:
      description: The 310P FP16 attention mask, O(max_model_len) squared times two bytes.
      type: float
    reserve_mb:
      description: O(memory_reserve_mb).
      type: int
    kv_budget_mb:
      description: >-
        (usable - weights - mask - reserve) / 2; vllm-ascend halves the KV budget on 310P.
      type: float
    kv_bytes_per_token:
      description: KV cache bytes per token over the full-attention layers (and the MTP layer with MTP).
      type: int
    gdn_state_bytes_per_seq:
      description: GDN conv and SSM state bytes of one sequence over all GDN layers, speculative slots included.
      type: int
    block_size_tokens:
      description: Attention block size vllm-ascend picks on 310P.
      type: int
    block_bytes:
      description: Bytes of one cache block over all the layers that share it.
      type: int
    state_blocks_per_seq:
      description: Cache blocks the GDN state of one sequence takes.
      type: int
    num_blocks:
      description: Cache blocks in the KV budget.
      type: int
    required_blocks:
      description: Blocks for O(max_num_seqs) sequences' GDN state plus one O(max_model_len) KV cache.
      type: int
    required_mb:
      description: RV(memory.required_blocks) in MiB.
      type: float
    fits:
      description: Whether RV(memory.required_blocks) fits in RV(memory.num_blocks).
      type: bool
    max_num_seqs_fit:
      description: Largest O(max_num_seqs) that fits at the requested O(max_model_len).
      type: int
    max_model_len_fit:
      description: Largest O(max_model_len) that fits at the requested O(max_num_seqs).
      type: int
    max_model_len_fit_one_seq:
      description: Largest O(max_model_len) that fits with a single sequence.
      type: int
  sample: {chip_memory_mb: 44280, usable_mb: 39852.0, weights_mb_per_chip: 4329.68, attention_mask_mb: 512.0,
           reserve_mb: 2048, kv_budget_mb: 16481.16, kv_bytes_per_token: 14336,
           gdn_state_bytes_per_seq: 20643840, required_mb: 1233.75, fits: true, max_num_seqs_fit: 516,
           max_model_len_fit: 121441}
config_warnings:
  description: Advice that does not stop the deployment; each is also shown as a task warning.
  returned: always
  type: list
  elements: str
  sample: ["largest capture size 16 (8 requests) is below max_num_seqs 32 x 2 tokens: ..."]
violations:
  description: Every broken rule; empty on success.
  returned: always
  type: list
  elements: dict
  contains:
    variable:
      description: O(var_prefix) plus the option name.
      type: str
    value:
      description: The value given.
      type: raw
    rule:
      description: What is wrong and why.
      type: str
    fix:
      description: What to set instead.
      type: str
  sample: [{variable: vllm_serve_dtype, value: bfloat16,
            rule: Atlas 300I DUO and Atlas 200I Pro support FP16 only (guide 5.1); ...,
            fix: 'set vllm_serve_dtype: float16'}]
profile:
  description: The platform profile with O(platform_overrides) applied (devices, mounts, shm size, ...).
  returned: when the platform is valid
  type: dict
  sample: {privileged: false, shm_size: 1g, npu_smi_path: /usr/local/bin/npu-smi, image_tag_suffix: -310p,
           allowed_tp: [1, 2]}
model:
  description: The model's catalog entry with O(model_spec) applied.
  returned: when the model is valid
  type: dict
  sample: {name: Qwen/Qwen3.5-2B, num_hidden_layers: 24, full_attention_interval: 4, num_parameters: 2270000000}
image:
  description: O(image_tag) parsed, or null when no tag was given.
  returned: always
  type: dict
  sample: {tag: v0.23.0-310p, version: [0, 23, 0], rc: null, suffix: -310p}
'''
