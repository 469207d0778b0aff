# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
name: balancer_summary
short_description: The summary lines of a host's load balancer
version_added: 0.2.0
description:
  - >-
    C(balancer: SERVED at http://ADDRESS:PORT across a, b (why)), one line per frontend, with C(, API key required)
    when the frontend asks for one; C(balancer: off: ...) when the host runs none.
author:
  - ascend.vllm maintainers (!UNKNOWN)
options:
  _input:
    description: C(balancer_status) of the host, as the balancer role records it.
    type: dict
    required: true
'''

EXAMPLES = r'''
- name: Show the load balancer of this host
  ansible.builtin.debug:
    msg: "{{ balancer_status | ascend.vllm.balancer_summary }}"
'''

RETURN = r'''
_value:
  description: One line per frontend (one line saying why when there is no balancer).
  type: list
  elements: str
'''

from ansible_collections.ascend.vllm.plugins.module_utils.fleet._balancer import summary_lines
from ansible_collections.ascend.vllm.plugins.module_utils.serve._instances import plain


def balancer_summary(status):
    """The summary lines of a host's balancer."""
    return summary_lines(plain(status or {}))


class FilterModule(object):
    """Summary lines of the balancer role."""

    def filters(self):
        return {'balancer_summary': balancer_summary}
