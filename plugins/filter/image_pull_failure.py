# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
name: image_pull_failure
short_description: The message for an image no registry gave
version_added: 0.1.0
description:
  - One line per candidate with its last answer (C(failed) or C(not found, the registry has no such tag or
    digest)), the number of attempts and the daemon's words, then the fix.
  - When every registry answered "not found" the reference is wrong, not the network, and the fix points at
    C(image_pull_tag), C(image_pull_digest) and C(image_pull_image).
author:
  - ascend.vllm maintainers (!UNKNOWN)
positional: host, candidates, inputs, image_tag
options:
  _input:
    description: The failed attempts, each C({ref, attempt, reason, missing}) (see P(ascend.vllm.image_pull_attempt#filter)).
    type: list
    elements: dict
    required: true
  host:
    description: The host, for the message.
    type: str
    required: true
  candidates:
    description: The references tried, in order (C(image_pull_candidates)).
    type: list
    elements: str
    required: true
  inputs:
    description: The image_pull variables by name; C(image_pull_tag) and C(image_pull_repository) are read.
    type: dict
    required: true
  image_tag:
    description: The tag with the platform's suffix (C(image_pull_image_tag)).
    type: str
    required: true
'''

EXAMPLES = r'''
- name: Fail when no registry gave the image
  ansible.builtin.fail:
    msg: >-
      {{ pull_errors | ascend.vllm.image_pull_failure(inventory_hostname, image_pull_candidates,
         {'image_pull_tag': image_pull_tag, 'image_pull_repository': image_pull_repository}, image_pull_image_tag) }}
'''

RETURN = r'''
_value:
  description: The message, one line.
  type: str
'''

from ansible_collections.ascend.vllm.plugins.module_utils.contracts._image_ref import failure_message


def image_pull_failure(errors, host, candidates, inputs, image_tag):
    """The "could not pull" message for these failed attempts."""
    return failure_message(host, list(candidates or []), list(errors or []), inputs or {}, image_tag)


class FilterModule(object):
    def filters(self):
        return {'image_pull_failure': image_pull_failure}
