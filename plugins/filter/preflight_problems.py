# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
name: preflight_problems
short_description: Every preflight problem of a vLLM host, in report order
version_added: 0.1.0
description:
  - Appends to the problems found so far (image, plan, node) one problem per M(ascend.vllm.vllm_config) violation of
    every instance (or the module's error when it reported none), then one per local model directory the node does
    not have, and one per local model path outside the model cache and O(model_roots) or (with O(node_paths))
    that is a file, a link out of them or a directory without C(config.json).
author:
  - ascend.vllm maintainers (!UNKNOWN)
positional: configs, model_stats
options:
  _input:
    description: The problems found so far, each C({check, msg, fix}).
    type: list
    elements: dict
    required: true
  configs:
    description: The vllm_config result of each instance (C(__vllm_serve_configs)).
    type: dict
  model_stats:
    description: The results of the M(ansible.builtin.stat) loop over the filter C(ascend.vllm.model_dirs) (each
      result carries its C(item)).
    type: list
    elements: dict
  model_dirs:
    description: The local model directories (the filter C(ascend.vllm.model_dirs)), judged with O(node_paths)
      instead of O(model_stats).
    type: list
    elements: dict
  node_paths:
    description: What the node read found of node paths (node_facts' C(paths)), path to C({exists, isdir, isreg})
      and, when read, C(realpath).
    type: dict
  local_models:
    description: The local model directories (the filter C(ascend.vllm.model_dirs)) to confine to the model cache
      and O(model_roots); with O(node_paths) also judged as the node has them (file, link, C(config.json)).
    type: list
    elements: dict
  cache_dir:
    description: The model cache directory on the node (C(vllm_serve_model_cache_dir)), for O(local_models).
    type: str
    default: /root/.cache
  model_roots:
    description: Node directories besides the model cache a local model path may lie in (C(vllm_serve_model_roots)).
    type: list
    elements: str
  publish_address:
    description: The address the port is published on (C(vllm_serve_publish_address)), checked against
      O(node_addresses).
    type: str
  node_addresses:
    description: The node's own addresses (node_facts' C(addresses)); unset checks nothing.
    type: list
    elements: str
  pins:
    description: The digest pins (the C(pins) of the filter C(ascend.vllm.image_pull_plan)), checked against O(registry_answers).
    type: list
    elements: dict
  registry_answers:
    description: What the registries said the pinned tags point to (node_facts' C(manifests)).
    type: dict
'''

EXAMPLES = r'''
- name: Gather the problems of the plan, the node and the configuration
  ansible.builtin.set_fact:
    problems: >-
      {{ (npu_check_problems | default([]) + __vllm_serve_plan_problems)
         | ascend.vllm.preflight_problems(__vllm_serve_configs | default({}), __vllm_serve_model_stat.results | default([])) }}
'''

RETURN = r'''
_value:
  description: The problems, each C(check), C(msg) (C(variable=value) and what is wrong) and C(fix).
  type: list
  elements: dict
'''

from ansible_collections.ascend.vllm.plugins.module_utils.contracts._image_ref import pin_problems
from ansible_collections.ascend.vllm.plugins.module_utils.serve._instances import plain
from ansible_collections.ascend.vllm.plugins.module_utils.serve._serve import (
    config_problems, missing_model_dirs, model_path_problems, publish_address_problems)


def preflight_problems(problems, configs=None, model_stats=None, model_dirs=None, node_paths=None,
                       local_models=None, cache_dir='/root/.cache', model_roots=None, publish_address='',
                       node_addresses=None, pins=None, registry_answers=None):
    """The problems so far, the configuration violations, the missing and the misplaced model directories."""
    stats = plain(model_stats or [])
    paths = plain(node_paths or {})
    # The same shape as a stat loop's results, from what npu_check read of the node.
    stats += [{'item': wanted, 'stat': {'exists': bool((paths.get(wanted['host']) or {}).get('exists'))}}
              for wanted in plain(model_dirs or [])]
    placed = model_path_problems(plain(local_models or []), plain(configs or {}), cache_dir, plain(model_roots or []),
                                 paths)
    placed += publish_address_problems(publish_address, plain(node_addresses))
    placed += pin_problems(plain(pins or []), plain(registry_answers or {}))
    return plain(problems or []) + config_problems(plain(configs or {})) + missing_model_dirs(stats) + placed


class FilterModule(object):
    """Preflight problems of the vllm_serve role."""

    def filters(self):
        return {'preflight_problems': preflight_problems}
