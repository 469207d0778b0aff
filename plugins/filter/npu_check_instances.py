# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
name: npu_check_instances
short_description: The npu_check view of the planned vLLM instances
version_added: 0.1.0
description:
  - From the vllm_serve plan and the vllm_config results, the C(npu_check_instances) input of the npu_check role
    (name, container name, integer chips, the variable they came from, port, host memory the plan needs).
author:
  - ascend.vllm maintainers (!UNKNOWN)
positional: configs
options:
  _input:
    description: The plan (C(__vllm_serve_plan)).
    type: list
    elements: dict
    required: true
  configs:
    description: The vllm_config result of each instance (C(__vllm_serve_configs)); C(memory.usable_mb) is the host
      memory an instance needs in RC mode. Missing instances count 0.
    type: dict
'''

EXAMPLES = r'''
- name: Check the node
  ansible.builtin.include_role:
    name: ascend.vllm.npu_check
  vars:
    npu_check_instances: "{{ __vllm_serve_plan | ascend.vllm.npu_check_instances(__vllm_serve_configs | default({})) }}"
'''

RETURN = r'''
_value:
  description: One C({name, container_name, chips, chips_var, container_var, port, host_memory_mb}) per instance.
  type: list
  elements: dict
'''

from ansible_collections.ascend.vllm.plugins.module_utils.serve._instances import plain
from ansible_collections.ascend.vllm.plugins.module_utils.serve._serve import npu_check_instances as _npu_check_instances


def npu_check_instances(plan, configs=None):
    """[{name, container_name, chips, chips_var, container_var, port, host_memory_mb}] for npu_check."""
    return _npu_check_instances(plain(plan or []), plain(configs or {}))


class FilterModule(object):
    """npu_check inputs of the vllm_serve role."""

    def filters(self):
        return {'npu_check_instances': npu_check_instances}
