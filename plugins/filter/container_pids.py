# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
name: container_pids
short_description: Host process ids from docker top results
version_added: 0.1.0
description:
  - The pids printed by C(docker top NAME -eo pid) in a registered loop; headers and failed calls are skipped.
author:
  - ascend.vllm maintainers (!UNKNOWN)
options:
  _input:
    description: The C(results) of the registered M(ansible.builtin.command) loop.
    type: list
    elements: dict
    required: true
'''

EXAMPLES = r'''
- name: Wait until npu-smi lists no process of the removed containers
  ascend.vllm.npu_facts:
  register: npu
  until: npu.npu.processes | map(attribute='pid') | intersect(top.results | ascend.vllm.container_pids) | length == 0
'''

RETURN = r'''
_value:
  description: The process ids, as integers.
  type: list
  elements: int
'''

from ansible_collections.ascend.vllm.plugins.module_utils.serve._instances import plain
from ansible_collections.ascend.vllm.plugins.module_utils.serve._serve import container_pids as _container_pids


def container_pids(results):
    """Integer pids from docker top output."""
    return _container_pids(plain(results or []))


class FilterModule(object):
    """Process ids for the vllm_serve teardown."""

    def filters(self):
        return {'container_pids': container_pids}
