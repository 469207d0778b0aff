# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
name: node_query
short_description: What the node preflight asks ascend.vllm.node_facts for
version_added: 0.1.0
description:
  - Turns the platform profile, the planned instances and the C(npu_check) settings into the
    arguments of M(ascend.vllm.node_facts) on the controller - the driver files, the chips' device
    nodes and the manager devices, the host files the container mounts, the extra paths, the
    npu-smi to run, the planned container names and the serving ports - so the node is asked
    everything in one round trip.
author:
  - ascend.vllm maintainers (!UNKNOWN)
options:
  _input:
    description:
      - The settings, as the C(npu_check) role passes them - C(profile), C(instances) (as
        C(npu_check_instances)), C(driver_dir), C(driver_version_file), C(npu_smi_path) (empty takes
        the profile's), C(mount_sources), C(ports) (false leaves the ports out), C(paths).
    type: dict
    required: true
'''

EXAMPLES = r'''
- name: Read the node
  ascend.vllm.node_facts:
    paths: "{{ query.paths }}"
    npu_smi_path: "{{ query.npu_smi_path }}"
    driver_version_file: "{{ query.driver_version_file }}"
    containers: "{{ query.containers }}"
    ports: "{{ query.ports }}"
  vars:
    query: >-
      {{ {'profile': profile, 'instances': [{'name': 'default', 'chips': [0], 'port': 8080}],
          'driver_dir': '/usr/local/Ascend/driver',
          'driver_version_file': '/usr/local/Ascend/driver/version.info'} | ascend.vllm.node_query }}
'''

RETURN = r'''
_value:
  description: C(paths), C(npu_smi_path), C(driver_version_file), C(containers) and C(ports) for M(ascend.vllm.node_facts).
  type: dict
'''

from ansible_collections.ascend.vllm.plugins.module_utils.node._node_problems import node_query as _node_query


def node_query(settings):
    """The ascend.vllm.node_facts arguments for the npu_check settings."""
    return _node_query(settings)


class FilterModule(object):
    def filters(self):
        return {'node_query': node_query}
