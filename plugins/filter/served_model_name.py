# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
name: served_model_name
short_description: The model name a vllm serve command line serves
version_added: 0.2.0
description:
  - The first value of C(--served-model-name) (also C(--served_model_name) and the C(=value) form), else the model
    argument after C(serve) (what vLLM serves without the flag), else O(default).
  - vllm_serve reads it from a restored container's command, which may name another model than the spec that failed.
author:
  - ascend.vllm maintainers (!UNKNOWN)
positional: default
options:
  _input:
    description: The container's command (C(Config.Cmd) of C(docker inspect)).
    type: list
    elements: str
    required: true
  default:
    description: The name when the command line gives none.
    type: str
    default: ''
'''

EXAMPLES = r'''
- name: The name the restored container serves
  ansible.builtin.debug:
    msg: "{{ info.container.Config.Cmd | ascend.vllm.served_model_name('qwen3.5') }}"
'''

RETURN = r'''
_value:
  description: The served model name.
  type: str
'''

from ansible_collections.ascend.vllm.plugins.module_utils.serve._instances import plain
from ansible_collections.ascend.vllm.plugins.module_utils.serve._keep import served_model_name as _served_model_name


def served_model_name(argv, default=''):
    """The name /v1/models lists for this command line."""
    return _served_model_name(plain(argv), default)


class FilterModule(object):
    """Served name of a vllm serve command line."""

    def filters(self):
        return {'served_model_name': served_model_name}
