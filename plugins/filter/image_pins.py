# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
name: image_pins
short_description: The image candidates pinned to a digest, with the tag to check the digest against
version_added: 0.2.0
description:
  - For each candidate reference (C(image_pull_candidates)) pinned to a digest whose tag is known, the
    C(registry/repository:tag) to ask the registry about and the digest the tag must point to.
  - The tag is the one written in a pinned O(image) (C(registry/repository:tag@sha256:...)) or, for
    C(image_pull_digest), O(tag) (C(image_pull_tag) with its suffix). A digest-only O(image) names no tag and is
    not listed.
author:
  - ascend.vllm maintainers (@ascend-vllm)
positional: tag, image
options:
  _input:
    description: The candidate references (C(image_pull_candidates)).
    type: list
    elements: str
    required: true
  tag:
    description: The tag pulled without a pin (C(image_pull_image_tag)).
    type: str
    required: true
  image:
    description: The exact image reference (C(image_pull_image)); empty when the candidates come from the registries.
    type: str
    default: ''
'''

EXAMPLES = r'''
- name: Ask the registry what the pinned tags point to
  ascend.vllm.node_facts:
    gather: [manifests]
    manifests: "{{ image_pull_candidates | ascend.vllm.image_pins(image_pull_image_tag, image_pull_image) | map(attribute='ref') }}"
'''

RETURN = r'''
_value:
  description: One C({ref, digest, candidate, variable}) per pinned candidate; C(variable) is the variable the pin
    came from (C(image_pull_image) or C(image_pull_digest)).
  type: list
  elements: dict
'''

from ansible_collections.ascend.vllm.plugins.module_utils._image_ref import pins
from ansible_collections.ascend.vllm.plugins.module_utils._instances import plain


def image_pins(candidates, tag, image=''):
    """[{ref, digest, candidate, variable}] for each candidate pinned to a digest with a known tag."""
    return pins(plain(candidates or []), tag, image or '')


class FilterModule(object):
    """Digest pins of the image_pull role."""

    def filters(self):
        return {'image_pins': image_pins}
