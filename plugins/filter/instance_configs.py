# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
name: instance_configs
short_description: The vllm_config result of each vLLM instance, by instance name
version_added: 0.1.0
description:
  - Turns the registered results of a M(ascend.vllm.vllm_config) loop over the vllm_serve plan into one entry per
    instance name, with defaults for a result that failed (no C(argv)).
  - Deprecated, to be removed in 1.0.0 (a call prints a deprecation warning). The roles no longer call it; the
    C(ascend.vllm.host_plan) action returns every instance's M(ascend.vllm.vllm_config) result in C(plan.configs).
author:
  - ascend.vllm maintainers (!UNKNOWN)
options:
  _input:
    description: The C(results) of the registered loop; each carries its C(item) (a plan entry with C(name)).
    type: list
    elements: dict
    required: true
'''

EXAMPLES = r'''
- name: Keep the result of each instance
  ansible.builtin.set_fact:
    __vllm_serve_configs: "{{ __vllm_serve_config.results | ascend.vllm.instance_configs }}"
'''

RETURN = r'''
_value:
  description: Instance name to C(ok) (the module built a command), C(msg), C(argv), C(env), C(api_key_env),
    C(settings), C(profile), C(memory) and C(violations).
  type: dict
'''

from ansible.utils.display import Display

from ansible_collections.ascend.vllm.plugins.module_utils.serve._instances import plain
from ansible_collections.ascend.vllm.plugins.module_utils.serve._serve import instance_configs as _instance_configs


def instance_configs(results):
    """{instance name: {ok, msg, argv, env, api_key_env, settings, profile, memory, violations}}."""
    # Warned on use, not through meta/runtime.yml: Ansible loads every filter file of the
    # collection when it looks up a filter defined in a file of another name, which would
    # print the routing's warning on every run.
    Display().deprecated('ascend.vllm.instance_configs: the roles no longer call it; use the ascend.vllm.host_plan '
                         'action, whose plan.configs holds every instance\'s vllm_config result',
                         version='1.0.0', collection_name='ascend.vllm')
    return _instance_configs(plain(results or []))


class FilterModule(object):
    """vllm_config results of the vllm_serve role."""

    def filters(self):
        return {'instance_configs': instance_configs}
