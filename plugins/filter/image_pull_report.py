# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
name: image_pull_report
short_description: The message that stops a run on image input problems
version_added: 0.1.0
description:
  - >-
    A count and the host on the first line, then one line C(- [check] msg. Fix: fix) per problem, as
    preflight reports them.
author:
  - ascend.vllm maintainers (!UNKNOWN)
positional: host
options:
  _input:
    description: The problems, each C({check, msg, fix}) (C(image_pull_problems)).
    type: list
    elements: dict
    required: true
  host:
    description: The host, for the message.
    type: str
    required: true
'''

EXAMPLES = r'''
- name: Stop when the image inputs are wrong
  ansible.builtin.fail:
    msg: "{{ image_pull_problems | ascend.vllm.image_pull_report(inventory_hostname) }}"
  when: image_pull_problems | length > 0
'''

RETURN = r'''
_value:
  description: The message, one line per problem after the first.
  type: str
'''

from ansible_collections.ascend.vllm.plugins.module_utils.contracts._image_ref import problem_report


def image_pull_report(problems, host):
    """The "N image problem(s) on host" message."""
    return problem_report(host, list(problems or []))


class FilterModule(object):
    def filters(self):
        return {'image_pull_report': image_pull_report}
