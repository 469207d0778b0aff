# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
name: instance_api_key
short_description: The API key of one planned vLLM instance, read from the host's variables
version_added: 0.1.0
description:
  - >-
    The plan (R(ascend.vllm.instance_plan,ansible_collections.ascend.vllm.instance_plan_filter)) never carries an API
    key: its C(options.api_key) is a marker naming the variable the key is in (C(api_key_var)), so that no task
    result, fact or message of the plan can print it. This filter reads the key itself from the host's variables
    (the instance's own C(api_key) in C(vllm_serve_instances), else C(vllm_serve_api_key)) where it is needed: the
    container's environment and the readiness check, both in tasks that do not log it.
  - An empty string when the instance has no key.
author:
  - ascend.vllm maintainers (!UNKNOWN)
positional: instance
options:
  _input:
    description: The host's variables with the role's defaults, normally C(vars).
    type: dict
    required: true
  instance:
    description: One plan entry (an element of C(__vllm_serve_plan)).
    type: dict
    required: true
'''

EXAMPLES = r'''
- name: Wait for the instance, with its key (vllm_ready does not return it)
  ascend.vllm.vllm_ready:
    name: "{{ instance.container_name }}"
    url: "http://127.0.0.1:{{ instance.port }}"
    api_key: "{{ vars | ascend.vllm.instance_api_key(instance) | default(omit, true) }}"
'''

RETURN = r'''
_value:
  description: The API key, or an empty string.
  type: str
'''

from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.module_utils.serve._instances import api_key, plain


def instance_api_key(variables, instance):
    """The key of ``instance`` (a plan entry) from the host's variables."""
    if not hasattr(variables, 'keys'):
        raise AnsibleFilterError('instance_api_key: give it the host variables (vars), not %r'
                                 % type(variables).__name__)
    if not (instance or {}).get('api_key_var'):
        return ''
    instances = plain(variables['vllm_serve_instances']) if 'vllm_serve_instances' in variables else []
    scalar = plain(variables['vllm_serve_api_key']) if 'vllm_serve_api_key' in variables else None
    return api_key(instances, scalar, plain(instance))


class FilterModule(object):
    """The API key of a planned instance."""

    def filters(self):
        return {'instance_api_key': instance_api_key}
