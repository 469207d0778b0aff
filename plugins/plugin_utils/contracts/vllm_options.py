# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The options of vllm_config (and of a vLLM instance), declared once (data/options.yml).

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

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts import _data

Option = collections.namedtuple('Option', [
    'name', 'type', 'elements', 'default', 'no_log', 'required', 'instance', 'var_type', 'var_elements',
    'description'])
Bounds = collections.namedtuple('Bounds', ['kind', 'minimum', 'maximum', 'open_minimum', 'unit', 'fix'])

_ENTRIES = _data.load('options')['entries']
OPTIONS = tuple(
    Option(name, entry['type'], entry.get('elements'), entry.get('default'), entry.get('no_log'),
           bool(entry.get('required')), bool(entry.get('instance')),
           (entry.get('var_type') or entry['type']) if entry.get('instance') else None,
           (entry.get('var_elements') or entry.get('elements')) if entry.get('instance') else None,
           entry['description'])
    for name, entry in _ENTRIES.items())
BOUNDS = dict((name, Bounds(entry['bounds']['kind'], entry['bounds'].get('minimum'), entry['bounds'].get('maximum'),
                            bool(entry['bounds'].get('open_minimum')), entry['bounds'].get('unit', ''),
                            entry['bounds']['fix']))
              for name, entry in _ENTRIES.items() if entry.get('bounds'))

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
        keys = ('elements', 'no_log', 'default') + (('required',) if option.required else ())
        spec[option.name] = dict({key: copy.deepcopy(getattr(option, key)) for key in keys
                                  if getattr(option, key) is not None}, type=option.type)
    return spec
