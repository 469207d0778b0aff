# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
name: instance_plan
short_description: The vLLM instances of a host, and what is wrong with them
version_added: 0.1.0
description:
  - >-
    Turns the vllm_serve role's variables (the instance list C(vllm_serve_instances), which defaults to
    C(ascend_vllm_instances), or the scalar C(vllm_serve_*) variables) into one entry per instance: name, container
    name, chips, port, environment and the M(ascend.vllm.vllm_config) options. Chips not given are handed out
    consecutively, C(tensor_parallel_size) at a time; ports count up from C(vllm_serve_port) by the instance's index.
  - >-
    Checks the plan and the host-level settings (platform set, instance names, keys, chips, ports, container names,
    nothing shared between instances, model cache directory, publish address, minimum counts and durations, and
    an instance published beyond the node without an API key unless C(vllm_serve_allow_unauthenticated) is true) and
    reports every problem in the preflight report shape, naming the variable the user wrote.
  - >-
    Runs on the controller; no host is contacted. The instance option names come from the collection's one
    declaration of them (module_utils C(vllm_options.INSTANCE_OPTIONS)).
author:
  - ascend.vllm maintainers (!UNKNOWN)
options:
  _input:
    description: The host's variables with the role's defaults, normally C(vars); only the C(vllm_serve_*)
      variables, C(ascend_vllm_instances) (whether it is set) and C(inventory_hostname) are read.
    type: dict
    required: true
'''

EXAMPLES = r'''
- name: Work out the instances of this host
  ansible.builtin.set_fact:
    __vllm_serve_plan: "{{ __planned.plan }}"
    __vllm_serve_plan_problems: "{{ __planned.problems }}"
  vars:
    __planned: "{{ vars | ascend.vllm.instance_plan }}"
'''

RETURN = r'''
_value:
  description: The plan, its problems and the image tag to check.
  type: dict
  contains:
    plan:
      description: >-
        One entry per instance with the keys C(index), C(name), C(named), C(unknown_keys),
        C(container_name), C(chips), C(port), C(chips_var), C(port_var), C(container_var), C(container_from) (for a
        container name built from C(vllm_serve_container_name) and the instance name: that variable's value, the
        name's variable and value, else null), C(env), C(options)
        (the vllm_config options, instance values over the scalar ones, nulls left out), C(var_prefix) and
        C(api_key_var). The plan never holds an API key: C(options.api_key) is the marker C(<hidden: VARIABLE>) and
        C(api_key_var) names the variable the key is in (empty without a key); the key itself is read with
        R(ascend.vllm.instance_api_key,ansible_collections.ascend.vllm.instance_api_key_filter) where it is needed.
      type: list
      elements: dict
    problems:
      description: Each problem as C(check), C(msg) (C(variable=value) and what is wrong) and C(fix); empty when all is well.
      type: list
      elements: dict
    image_tag:
      description: The tag checked against the model's minimum (C(vllm_serve_image_tag), else the tag of
        C(vllm_serve_image)), or null for a digest reference.
      type: str
'''

from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.module_utils.plan._host import instance_plan as plan_of
from ansible_collections.ascend.vllm.plugins.module_utils.request._request import variables_request


def instance_plan(variables):
    """{'plan': [...], 'problems': [...], 'image_tag': str or None} from the role's variables."""
    if not hasattr(variables, 'keys'):
        raise AnsibleFilterError('instance_plan: give it the host variables (vars), not %r' % type(variables).__name__)
    return plan_of(variables_request(variables))


class FilterModule(object):
    """Instance planning of the vllm_serve role."""

    def filters(self):
        return {'instance_plan': instance_plan}
