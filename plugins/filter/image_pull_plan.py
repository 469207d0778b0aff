# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
name: image_pull_plan
short_description: The image candidates, the tag, the digest pins and the problems of the image_pull inputs
version_added: 0.1.0
description:
  - Judges the image_pull role's variables on the controller, without contacting a node.
  - Returns the references a pull tries in registry order (C(<registry>/<repository>:<tag><suffix>),
    C(<registry>/<repository>@<digest>) with a digest pin, or the exact C(image_pull_image)),
    the tag with the platform's suffix, and every problem of the inputs in the shape of the preflight
    report (C(check), C(msg), C(fix)); C(msg) names the variable and its value.
author:
  - ascend.vllm maintainers (!UNKNOWN)
positional: suffix
options:
  _input:
    description:
      - The image_pull variables by name (C(image_pull_registries), C(image_pull_repository), C(image_pull_tag),
        C(image_pull_tag_suffix), C(image_pull_digest), C(image_pull_image), C(image_pull_retries),
        C(image_pull_delay), C(image_pull_timeout), C(image_pull_poll_interval), C(image_pull_archive),
        C(image_pull_archive_on_node), C(image_pull_archive_dir)).
      - C(image_pull_archive_node_isreg) is the node's answer for a tarball already on the node; leave it out
        (or null) while it is unknown.
    type: dict
    required: true
  suffix:
    description: The platform profile's C(image_tag_suffix), used when C(image_pull_tag_suffix) is null.
    type: str
'''

EXAMPLES = r'''
- name: Judge the image inputs
  ansible.builtin.set_fact:
    image_plan: >-
      {{ {'image_pull_registries': ['quay.io'], 'image_pull_repository': 'ascend/vllm-ascend',
          'image_pull_tag': 'v0.23.0', 'image_pull_tag_suffix': none, 'image_pull_retries': 3,
          'image_pull_delay': 10, 'image_pull_timeout': 3600, 'image_pull_poll_interval': 15}
         | ascend.vllm.image_pull_plan('-310p') }}
    # candidates: ['quay.io/ascend/vllm-ascend:v0.23.0-310p'], image_tag: v0.23.0-310p, pins: [], problems: []
'''

RETURN = r'''
_value:
  description: The candidates, the tag and the problems.
  type: dict
  contains:
    candidates:
      description: Image references in the order a pull tries them.
      type: list
      elements: str
    image_tag:
      description: The release tag written in C(image_pull_image), else C(image_pull_tag) with the suffix appended.
      type: str
    pins:
      description:
        - The candidates pinned to a digest whose tag is known, each C(ref) (the C(registry/repository:tag) to ask
          the registry about), C(digest), C(candidate) and C(variable) (C(image_pull_image) or C(image_pull_digest)).
        - The tag is the one written in a pinned C(image_pull_image) or, for C(image_pull_digest), O(_input)'s
          C(image_pull_tag) with its suffix; a digest-only C(image_pull_image) names no tag and is not listed.
      type: list
      elements: dict
    problems:
      description: What is wrong with the inputs, each with C(check) (always C(image)), C(msg) and C(fix).
      type: list
      elements: dict
'''

import os.path

from ansible.errors import AnsibleFilterError
from ansible_collections.ascend.vllm.plugins.module_utils.contracts._image_ref import judge


def image_pull_plan(inputs, suffix=None):
    """{candidates, image_tag, pins, problems} for the image_pull variables; the tarball is looked for here."""
    if not isinstance(inputs, dict):
        raise AnsibleFilterError('image_pull_plan expects a dict of image_pull variables, got %r' % (inputs,))
    try:
        return judge(inputs, suffix, os.path.isfile)
    except ValueError as exc:
        raise AnsibleFilterError(str(exc))


class FilterModule(object):
    def filters(self):
        return {'image_pull_plan': image_pull_plan}
