# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
name: model_dirs
short_description: The local model directories of the planned vLLM instances, as paths on the node
version_added: 0.1.0
description:
  - >-
    For each instance whose C(model_path) is absolute, the directory to look for on the node. C(model_path) is a
    path in the container: under the profile's model cache mount target (C(/root/.cache)) it lives in
    O(cache_dir) on the node, anywhere else it is bind-mounted from the same path.
author:
  - ascend.vllm maintainers (!UNKNOWN)
positional: configs, cache_dir
options:
  _input:
    description: The plan (C(__vllm_serve_plan)).
    type: list
    elements: dict
    required: true
  configs:
    description: The vllm_config result of each instance (C(__vllm_serve_configs)), for the profile's cache target.
    type: dict
  cache_dir:
    description: The model cache directory on the node (C(vllm_serve_model_cache_dir)).
    type: str
    required: true
'''

EXAMPLES = r'''
- name: Look for local model directories on the node
  ansible.builtin.stat:
    path: "{{ item.host }}"
  loop: "{{ __vllm_serve_plan | ascend.vllm.model_dirs(__vllm_serve_configs | default({}), vllm_serve_model_cache_dir) }}"
'''

RETURN = r'''
_value:
  description: One C({name, path, host, prefix}) per instance with an absolute C(model_path); C(prefix) is the
    variable prefix problems name (C(vllm_serve_), C(ascend_vllm_instances[0].)).
  type: list
  elements: dict
'''

from ansible_collections.ascend.vllm.plugins.module_utils.serve._instances import plain
from ansible_collections.ascend.vllm.plugins.module_utils.serve._serve import model_dirs as _model_dirs


def model_dirs(plan, configs, cache_dir):
    """[{name, path, host, prefix}] for each absolute model_path."""
    return _model_dirs(plain(plan or []), plain(configs or {}), cache_dir)


class FilterModule(object):
    """Model directories of the vllm_serve role."""

    def filters(self):
        return {'model_dirs': model_dirs}
