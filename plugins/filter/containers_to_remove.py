# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
name: containers_to_remove
short_description: The vLLM containers teardown removes
version_added: 0.1.0
description:
  - The planned container names that are the collection's (label C(ascend.vllm.managed-by) on the node) and, with
    O(all_managed), every container of the collection found on the node, each once. A container with an
    instance's name that the collection did not create is left alone.
author:
  - ascend.vllm maintainers (!UNKNOWN)
positional: managed, all_managed
options:
  _input:
    description: The plan (C(__vllm_serve_plan)).
    type: list
    elements: dict
    required: true
  managed:
    description: The C(containers) of M(community.docker.docker_host_info) (each with C(Names)).
    type: list
    elements: dict
  all_managed:
    description: Also remove the managed containers that are not planned (C(vllm_serve_teardown_all_managed)).
    type: bool
    default: false
'''

EXAMPLES = r'''
- name: List the containers to remove
  ansible.builtin.set_fact:
    remove: >-
      {{ __vllm_serve_plan | ascend.vllm.containers_to_remove(managed.containers | default([]),
                                                               vllm_serve_teardown_all_managed) }}
'''

RETURN = r'''
_value:
  description: Container names, planned ones first.
  type: list
  elements: str
'''

from ansible.module_utils.parsing.convert_bool import boolean

from ansible_collections.ascend.vllm.plugins.module_utils.serve._instances import plain
from ansible_collections.ascend.vllm.plugins.module_utils.serve._serve import containers_to_remove as _containers_to_remove


def containers_to_remove(plan, managed=None, all_managed=False):
    """Names of the containers to remove."""
    return _containers_to_remove(plain(plan or []), plain(managed or []), boolean(all_managed, strict=False))


class FilterModule(object):
    """Teardown list of the vllm_serve role."""

    def filters(self):
        return {'containers_to_remove': containers_to_remove}
