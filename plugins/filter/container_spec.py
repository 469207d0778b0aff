# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
name: container_spec
short_description: The devices, mounts, environment, labels and ports of one vLLM container
version_added: 0.1.0
description:
  - Builds the platform- and instance-specific arguments of M(community.docker.docker_container) from a
    platform profile (see P(ascend.vllm.platform_profile#filter)) and the container_run variables, that is the
    instance's chips from C(chip_device_template) then C(manager_devices); the profile's C(mounts), the model
    cache at C(model_cache_mount) and the extra mounts, all as read-only-aware binds; the environment (the
    profile's C(environment) with C(${NAME}) expanded against the image's own ENV and C($(uname -m)) to the
    image's machine, then C(container_run_command_env), then C(container_run_env)) with every value a
    string; the C(ascend.vllm.*) labels; the guide's C(-p PORT:PORT); C(shm_size) and C(privileged).
  - For the full chip list of a platform the result is the guide's C(docker run) line (vllm-ascend docs,
    "Qwen3.5-Dense" tutorial, Docker image installation).
author:
  - ascend.vllm maintainers (!UNKNOWN)
positional: inputs
options:
  _input:
    description: The platform profile (C(chip_device_template), C(manager_devices), C(mounts),
      C(model_cache_mount), C(environment), C(shm_size), C(privileged)).
    type: dict
    required: true
  inputs:
    description:
      - The container_run variables by name; read are C(container_run_chips), C(container_run_port),
        C(container_run_publish_address), C(container_run_model_cache_dir), C(container_run_extra_mounts),
        C(container_run_command_env), C(container_run_env), C(container_run_instance), C(container_run_model),
        C(container_run_platform), C(container_run_labels) and C(container_run_image_env) (the image's
        C(Config.Env) list as C(docker image inspect) shows it, for C(${NAME}) in the profile's C(environment))
        and C(container_run_image_arch) (its C(Architecture), for C($(uname -m)); aarch64 when not given).
    type: dict
    required: true
'''

EXAMPLES = r'''
- name: Build the container spec of one instance
  ansible.builtin.set_fact:
    spec: >-
      {{ ('atlas_300i_duo' | ascend.vllm.platform_profile).profile
         | ascend.vllm.container_spec({'container_run_chips': [0], 'container_run_port': 8080,
                                       'container_run_model_cache_dir': '/root/.cache'}) }}
    # devices: [/dev/davinci0, /dev/davinci_manager, /dev/devmm_svm, /dev/hisi_hdc], published_ports: ['8080:8080'], ...
'''

RETURN = r'''
_value:
  description: The docker_container arguments.
  type: dict
  contains:
    devices:
      description: Host device paths, the instance's chips first.
      type: list
      elements: str
    mounts:
      description: "Binds, each C({type: bind, source, target, read_only})."
      type: list
      elements: dict
    env:
      description: The environment, C(container_run_env) over C(container_run_command_env) over the profile's
        C(environment), values as strings.
      type: dict
    labels:
      description: C(ascend.vllm.managed-by), C(.instance), C(.model), C(.platform), C(.port), then C(container_run_labels).
      type: dict
    published_ports:
      description: One C([address:]PORT:PORT).
      type: list
      elements: str
    shm_size:
      description: The profile's shared memory size.
      type: str
    privileged:
      description: The profile's privileged mode.
      type: bool
    label_problems:
      description: What is wrong with C(container_run_labels), each naming the key and the fix (Docker's key
        grammar, the reserved C(ascend.vllm.*), C(com.docker.*), C(io.docker.*) and C(org.dockerproject.*)
        namespaces, a secret-named key). Not a M(community.docker.docker_container) argument.
      type: list
      elements: str
      version_added: 0.3.0
    secret_values:
      description: The values of the environment's secret-named variables (an API key, a token), for masking
        them in messages. Not a M(community.docker.docker_container) argument.
      type: list
      elements: str
      version_added: 0.3.0
'''

from ansible.errors import AnsibleFilterError
from ansible_collections.ascend.vllm.plugins.module_utils.serve._container_spec import container_spec as build


def container_spec(profile, inputs):
    """The docker_container arguments of one instance's container."""
    try:
        return build(profile, inputs or {})
    except ValueError as exc:
        raise AnsibleFilterError(str(exc))


class FilterModule(object):
    def filters(self):
        return {'container_spec': container_spec}
