# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import annotations

DOCUMENTATION = r'''
---
name: instance_secrets
short_description: The API key and secret environment values of one instance of the host plan
version_added: 0.3.0
description:
  - >-
    The host plan (M(ascend.vllm.host_plan)) never carries a secret: an instance's API key and the environment
    variables with a secret's name (C(HF_TOKEN), ...) are markers naming the variable they are in, so that no task
    result, fact or message of the plan can print them. This filter reads the values from the host's variables (the
    instance's own C(api_key) and C(env) in C(vllm_serve_instances), else C(vllm_serve_api_key) and
    C(vllm_serve_env)) where they are needed.
  - Returns C(api_key) (empty when the instance has none) and C(env), the secret environment entries with the key
    under the server's variable (C(api_key_env) of the instance's M(ascend.vllm.vllm_config) result) -- what the
    container's environment gets on top of the plan's.
  - For your own smoke tests or clients after a deploy, as the vllm_serve role's readiness check, container and
    balancer do. Use it in tasks that do not log it (the key is a secret).
author:
  - ascend.vllm maintainers (!UNKNOWN)
positional: instance, config
options:
  _input:
    description: The host's variables with the role's defaults, normally C(vars).
    type: dict
    required: true
  instance:
    description: One instance of the host plan (an element of C(plan.instances)), or anything with its C(index),
      C(api_key_var) and C(hidden_env) (a balancer frontend's C(key_source)).
    type: dict
    required: true
  config:
    description: The instance's M(ascend.vllm.vllm_config) result (C(plan.configs[NAME])), for the name of the key's
      environment variable; without it C(env) holds only the other secrets.
    type: dict
'''

EXAMPLES = r'''
- name: Ask the first instance for its models, with its key
  ansible.builtin.uri:
    url: "{{ ascend_vllm_plan.plan.instances[0].url }}/v1/models"
    headers:
      Authorization: "Bearer {{ (vars | ascend.vllm.instance_secrets(ascend_vllm_plan.plan.instances[0])).api_key }}"
  no_log: true
'''

RETURN = r'''
_value:
  description: C(api_key) (a string, empty when none) and C(env) (a dict of the secret environment entries).
  type: dict
'''

from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._serve import instance_secrets as _secrets


def instance_secrets(variables, instance, config=None):
    """{api_key, env} of ``instance`` (a plan entry) from the host's variables."""
    if not hasattr(variables, 'keys'):
        raise AnsibleFilterError('instance_secrets: give it the host variables (vars), not %r'
                                 % type(variables).__name__)
    if not isinstance(instance, dict) or 'index' not in instance:
        raise AnsibleFilterError('instance_secrets: give it an instance of the host plan (plan.instances[N]), not %r'
                                 % (instance,))
    return _secrets(instance, config or {}, variables)


class FilterModule:
    def filters(self):
        return {'instance_secrets': instance_secrets}
