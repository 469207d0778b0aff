# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The options of vllm_config (and of a vLLM instance), declared once.

Every other view of them comes from ``OPTIONS`` or is checked against it by a
unit test: the planner's defaults (``planner.DEFAULTS``), the argument spec of
the vllm_config module and action plugin (``argument_spec()``), the module's
DOCUMENTATION, the vllm_serve role's per-instance keys and its scalar variables
``vllm_serve_<option>`` (defaults/main.yml, meta/argument_specs.yml).

A default of None means "not set": the planner then applies the model's
``guide_defaults`` (max_num_seqs, gpu_memory_utilization, served_model_name,
num_speculative_tokens), the platform profile (chip_memory_mb) or a value that
depends on other options (cudagraph_batch_sizes).  Those must stay None in the
argument spec, or the model's values would never apply.
"""

from __future__ import annotations

import collections
import copy

# type/elements/default/no_log/required: the vllm_config argument spec (``raw``
# where the planner coerces and reports a bad value next to every other problem
# instead of Ansible rejecting it alone).  instance: an entry of
# ascend_vllm_instances may set it, and the vllm_serve role has a scalar
# variable vllm_serve_<name> of type var_type (elements var_elements): the type
# the role's argument spec declares, which check_role_vars validates.
Option = collections.namedtuple('Option', [
    'name', 'type', 'elements', 'default', 'no_log', 'required', 'instance', 'var_type', 'var_elements',
    'description'])


def _option(name, kind, description, default=None, elements=None, no_log=None, required=False,
            instance=False, var_type=None, var_elements=None):
    return Option(name, kind, elements, default, no_log, required, instance,
                  (var_type or kind) if instance else None,
                  (var_elements or elements) if instance else None, description)


OPTIONS = (
    _option('platform', 'str', 'Platform profile name (built in, or described by platform_spec).', required=True),
    _option('platform_overrides', 'dict', 'Fields of the platform profile to replace.', default={}),
    _option('platform_spec', 'dict', 'Describes a platform that is not built in.'),
    _option('model', 'str', 'Model catalog name, or any name described by model_spec.', required=True,
            instance=True),
    _option('model_path', 'str', 'What vllm serve loads; unset takes model.', instance=True),
    _option('model_spec', 'dict', 'Architecture facts overriding or replacing the catalog entry.', instance=True),
    _option('tensor_parallel_size', 'raw', 'Chips one server uses.', default=1, instance=True, var_type='int'),
    _option('dtype', 'str', 'Model dtype; only float16.', default='float16', instance=True),
    _option('quantization', 'str', "Quantization method (--quantization); unset takes the model's, ascend for the "
            'W8A8 catalog models.', instance=True),
    _option('mamba_ssm_cache_dtype', 'str', 'GDN state cache dtype; only float16.', default='float16',
            instance=True),
    # Not a secret, though the name says token.
    _option('num_speculative_tokens', 'raw', "MTP tokens per step; unset takes the model's guide default, 1.",
            no_log=False, instance=True, var_type='int'),
    _option('speculative_method', 'str', 'Speculative method (qwen3_5_mtp or mtp).', default='qwen3_5_mtp',
            instance=True),
    _option('cudagraph_batch_sizes', 'list', 'Graph sizes in requests per graph; unset: [1,2,4,8], [1,8] at TP>1.',
            elements='raw', instance=True, var_elements='int'),
    _option('cudagraph_trim', 'bool', 'At TP>1 keep the smallest and largest size instead of failing.',
            default=False, instance=True),
    _option('cudagraph_mode', 'str', 'vLLM cudagraph mode.', default='FULL_DECODE_ONLY', instance=True),
    _option('max_model_len', 'raw', 'Context length in tokens; must be set.', instance=True),
    _option('max_num_seqs', 'raw', "Sequences served at once; unset takes the model's guide default, 32.",
            instance=True, var_type='int'),
    _option('gpu_memory_utilization', 'raw', "Share of chip memory vLLM takes; unset: the model's guide default, 0.9.",
            instance=True, var_type='float'),
    _option('served_model_name', 'str', "Name the API serves; unset takes the model's guide default, qwen3.5.",
            instance=True),
    _option('reasoning_parser', 'str', "vLLM --reasoning-parser: auto takes the model's (qwen3 for the catalog models, "
            'from the Qwen3.5 model cards), none leaves it off, or a parser name the model and the vLLM of the image '
            'have.', default='auto', instance=True),
    _option('tool_call_parser', 'str', "vLLM --tool-call-parser with --enable-auto-tool-choice: auto takes the model's "
            '(qwen3_coder for the catalog models, from the Qwen3.5 model cards), none leaves tool calling off, or a '
            'parser name the model and the vLLM of the image have.', default='auto', instance=True),
    _option('host', 'str', 'Address vllm serve listens on.', default='127.0.0.1'),
    _option('port', 'raw', 'Port vllm serve listens on.', default=1025),
    _option('trust_remote_code', 'bool', 'Pass --trust-remote-code.', default=True, instance=True),
    _option('use_modelscope', 'bool', 'VLLM_USE_MODELSCOPE=True for a model id.', default=True, instance=True),
    _option('offline', 'bool', 'The node reaches no model hub: HF_HUB_OFFLINE=1, and the model must be a local '
            'directory.', default=False),
    _option('memory_reserve_mb', 'raw', 'MiB kept back before the KV budget.', default=2048, instance=True,
            var_type='int'),
    _option('chip_memory_mb', 'raw', "Memory of one chip, MiB; unset takes the profile's figure.",
            instance=True, var_type='int'),
    _option('chip_free_memory_mb', 'raw', 'Smallest free memory among the chips, MiB.'),
    _option('visible_chips', 'raw', 'Chips the server can see.'),
    _option('image_tag', 'str', 'vllm-ascend image tag to check.'),
    _option('extra_args', 'list', 'More vllm serve arguments after the managed ones.', default=[],
            elements='str', instance=True),
    _option('api_key', 'str', 'API key the server requires; never returned.', no_log=True, instance=True),
    _option('var_prefix', 'str', 'Prefix of option names in problem reports.', default=''),
    _option('var_names', 'dict', 'Variable names for options not read from var_prefix + option.', default={}),
)

# The range of each numeric or boolean option, judged by one check (``_rules.bounded``) wherever
# a rule settles the option: kind (int, float, bool), inclusive minimum and maximum (None:
# unbounded), whether the minimum itself is excluded, a unit for the message, and the end of
# the fix ("set <variable><fix>"). The rules add only what depends on other options (the
# model's MTP head, the memory plan). tensor_parallel_size is judged by its own rule: its fix
# names the TP sizes of the model and platform.
Bounds = collections.namedtuple('Bounds', ['kind', 'minimum', 'maximum', 'open_minimum', 'unit', 'fix'])
_MIB = ' (MiB, as npu-smi reports)'
BOUNDS = {
    'max_num_seqs': Bounds('int', 1, None, False, '', ', e.g. 32 (guide 5.1)'),
    'num_speculative_tokens': Bounds('int', 0, None, False, '', ': 1 (guide 5.1) or 0 to turn MTP off'),
    'gpu_memory_utilization': Bounds('float', 0, 1, True, '', ', e.g. 0.90 (guide 5.1)'),
    'port': Bounds('int', 1, 65535, False, '', ' to an integer in 1..65535 (the guide serves on 1025)'),
    'visible_chips': Bounds('int', 1, None, False, '', ' to the number of chips npu_facts found'),
    'chip_memory_mb': Bounds('int', 1, None, False, _MIB, ' in MiB'),
    'chip_free_memory_mb': Bounds('int', 0, None, False, _MIB, ' in MiB'),
    'memory_reserve_mb': Bounds('int', 0, None, False, _MIB, ' in MiB'),
    'cudagraph_trim': Bounds('bool', None, None, False, '', ': true or false'),
    'trust_remote_code': Bounds('bool', None, None, False, '', ': true (guide 5.1)'),
    'use_modelscope': Bounds('bool', None, None, False, '', ': true (guide 5.1)'),
    'offline': Bounds('bool', None, None, False, '', ': false'),
}

OPTION_NAMES = tuple(option.name for option in OPTIONS)

# vllm_config options an instance entry of ascend_vllm_instances may set; each
# also has a scalar role variable vllm_serve_<option>.  Host-level ones
# (platform, host, image_tag, derived visible_chips / chip_free_memory_mb) are
# not per instance.
INSTANCE_OPTIONS = tuple(option.name for option in OPTIONS if option.instance)

# Keys of an instance entry that are not vllm_config options.
INSTANCE_KEYS = ('name', 'container_name', 'chips', 'port', 'env')


def defaults():
    """{option: default}, the values plan() assumes for options not given (None: not set)."""
    return dict((option.name, copy.deepcopy(option.default)) for option in OPTIONS)


def argument_spec():
    """The vllm_config argument spec (AnsibleModule / ArgumentSpecValidator)."""
    spec = {}
    for option in OPTIONS:
        entry = {'type': option.type}
        for key in ('elements', 'no_log', 'default'):
            value = getattr(option, key)
            if value is not None:
                entry[key] = copy.deepcopy(value)
        if option.required:
            entry['required'] = True
        spec[option.name] = entry
    return spec
