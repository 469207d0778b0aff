# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
name: image_pull_attempt
short_description: What a failed image pull says, and whether the registry answered "not found"
version_added: 0.1.0
description:
  - >-
    M(community.docker.docker_image_pull) wraps the Docker daemon's answer in the API error
    (C(... 500 Server Error ...: Internal Server Error ("Get ...: connection refused"))); this keeps only
    the daemon's words, on one line, at most 300 characters.
  - >-
    Tells a registry's "no such tag or digest" (C(404 Client Error), C(manifest unknown), C(name unknown),
    C(not found: manifest)) from a network failure: that answer is final, asking again changes nothing.
author:
  - ascend.vllm maintainers (!UNKNOWN)
options:
  _input:
    description: The C(msg) of the failed pull; null counts as C(failed).
    type: raw
    required: true
'''

EXAMPLES = r'''
- name: Record a failed pull
  ansible.builtin.set_fact:
    attempt: "{{ ansible_failed_result.msg | default('failed') | ascend.vllm.image_pull_attempt }}"
'''

RETURN = r'''
_value:
  description: The reason and the classification.
  type: dict
  contains:
    reason:
      description: The daemon's words (or the whole message when it has none in parentheses).
      type: str
    missing:
      description: True when the registry said it has no such tag or digest.
      type: bool
'''

from ansible_collections.ascend.vllm.plugins.module_utils.contracts._image_ref import classify_failure


def image_pull_attempt(msg):
    """{reason, missing} for the message of a failed pull."""
    return classify_failure(msg)


class FilterModule(object):
    def filters(self):
        return {'image_pull_attempt': image_pull_attempt}
