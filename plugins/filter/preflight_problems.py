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
    not have.
author:
  - ascend.vllm maintainers (@ascend-vllm)
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
    description: What npu_check read of node paths (C(npu_check_result.paths)), path to C({exists, isdir, isreg}).
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

from ansible_collections.ascend.vllm.plugins.module_utils._instances import plain
from ansible_collections.ascend.vllm.plugins.module_utils._serve import config_problems, missing_model_dirs


def preflight_problems(problems, configs=None, model_stats=None, model_dirs=None, node_paths=None):
    """The problems so far, then the configuration violations, then the missing model directories."""
    stats = plain(model_stats or [])
    paths = plain(node_paths or {})
    # The same shape as a stat loop's results, from what npu_check read of the node.
    stats += [{'item': wanted, 'stat': {'exists': bool((paths.get(wanted['host']) or {}).get('exists'))}}
              for wanted in plain(model_dirs or [])]
    return plain(problems or []) + config_problems(plain(configs or {})) + missing_model_dirs(stats)


class FilterModule(object):
    """Preflight problems of the vllm_serve role."""

    def filters(self):
        return {'preflight_problems': preflight_problems}
