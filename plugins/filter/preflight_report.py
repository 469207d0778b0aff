# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
name: preflight_report
short_description: The preflight failure message of a host
version_added: 0.1.0
description:
  - >-
    One line with the count and the host (C(N preflight problem(s) on HOST; nothing was pulled or started:)), then
    one line per problem, C(- [check] msg. Fix: fix).
author:
  - ascend.vllm maintainers (!UNKNOWN)
positional: host
options:
  _input:
    description: The problems, each C({check, msg, fix}).
    type: list
    elements: dict
    required: true
  host:
    description: The host they belong to (C(inventory_hostname)).
    type: str
    required: true
'''

EXAMPLES = r'''
- name: Fail with every problem found on this host
  ansible.builtin.fail:
    msg: "{{ problems | ascend.vllm.preflight_report(inventory_hostname) }}"
  when: problems | length > 0
'''

RETURN = r'''
_value:
  description: The message, one line per problem.
  type: str
'''

from ansible_collections.ascend.vllm.plugins.module_utils.serve._instances import plain
from ansible_collections.ascend.vllm.plugins.module_utils.serve._serve import report


def preflight_report(problems, host):
    """The report text of the problems of one host."""
    return report(plain(problems or []), host)


class FilterModule(object):
    """The preflight report of the vllm_serve role."""

    def filters(self):
        return {'preflight_report': preflight_report}
