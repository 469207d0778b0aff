# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
name: instance_container
short_description: The container settings of one planned vLLM instance
version_added: 0.1.0
description:
  - The container environment (the instance's C(env), plus the API key under the variable vllm_config names in
    C(api_key_env), so it never appears on the command line), the extra mounts (a local model directory outside
    the model cache is mounted read-only in place), whether the container spec must not be logged, and the model.
author:
  - ascend.vllm maintainers (!UNKNOWN)
positional: config, api_key
options:
  _input:
    description: One plan entry (an element of C(__vllm_serve_plan)).
    type: dict
    required: true
  config:
    description: Its vllm_config result (C(__vllm_serve_configs[name])).
    type: dict
    required: true
  api_key:
    description:
      - The instance's API key (R(ascend.vllm.instance_api_key,ansible_collections.ascend.vllm.instance_api_key_filter)); the
        plan carries only a marker. Use the result in a task with C(no_log) when it is set.
    type: str
    default: ''
  variables:
    description:
      - The host's variables (normally C(vars)). When given, the API key and the secrets of the instance's
        environment (variables named like C(HF_TOKEN), C(*_KEY), C(*SECRET*), C(*PASSWORD*), which the plan carries
        as markers) are read from them, and O(api_key) is not needed. C(no_log) is then true whenever either is set.
    type: dict
    version_added: 0.3.0
  host:
    description:
      - The role's host-wide values C(image), C(publish_address), C(model_cache_dir), C(platform) and
        C(keep_previous). When given, the answer also holds C(run), every container_run variable of the instance.
    type: dict
    version_added: 0.3.0
'''

EXAMPLES = r'''
- name: Run the container through container_run
  ansible.builtin.include_role:
    name: ascend.vllm.container_run
  vars:
    __container: "{{ instance | ascend.vllm.instance_container(__vllm_serve_configs[instance.name], variables=vars) }}"
    container_run_env: "{{ __container.env }}"
    container_run_extra_mounts: "{{ __container.extra_mounts }}"
'''

RETURN = r'''
_value:
  description:
    - C(env) (dict), C(extra_mounts) (list of C({source, target, read_only})), C(no_log) (bool) and C(model).
    - With O(host), C(run) - the container_run variables by name (C(container_run_name), C(container_run_image), ...).
  type: dict
'''

from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.module_utils.serve._instances import plain
from ansible_collections.ascend.vllm.plugins.module_utils.serve._serve import (
    container_run_vars, container_settings, instance_container as _settings)


def instance_container(instance, config, api_key='', variables=None, host=None):
    """{env, extra_mounts, no_log, model} of one instance's container (and ``run`` with ``host``)."""
    instance = plain(instance)
    config = plain(config or {})
    if variables is not None:
        if not hasattr(variables, 'keys'):
            raise AnsibleFilterError('instance_container: variables must be the host variables (vars), not %r'
                                     % type(variables).__name__)
        out = _settings(instance, config, variables)
    else:
        out = container_settings(instance, config, api_key, {})
    if host is not None:
        out['run'] = container_run_vars(instance, config, out, plain(host))
    return out


class FilterModule(object):
    """Container settings of the vllm_serve role."""

    def filters(self):
        return {'instance_container': instance_container}
