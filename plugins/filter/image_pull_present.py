# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
name: image_pull_present
short_description: Which image reference a node runs, and whether the node already has it
version_added: 0.1.0
description:
  - Given the images on a node, picks the first candidate (in registry order) the node has, then any
    local C(<anything>/<repository>:<tag>) (a loaded tarball, an earlier mirror's name); otherwise the
    first candidate, which is what a pull tries first.
  - A pin (O(pinned), an exact image or a digest) only matches itself.
author:
  - ascend.vllm maintainers (!UNKNOWN)
positional: candidates, repository, image_tag, pinned
options:
  _input:
    description:
      - The images on the node, either C(repo:tag) strings (C(npu_check_result.images)) or the C(images) of
        M(community.docker.docker_host_info) (dicts with C(RepoTags) and C(Id)).
    type: list
    elements: raw
    required: true
  candidates:
    description: The references a pull would try, in order (C(image_pull_candidates)).
    type: list
    elements: str
    required: true
  repository:
    description: C(image_pull_repository).
    type: str
    required: true
  image_tag:
    description: The tag with the platform's suffix (C(image_pull_image_tag)).
    type: str
    required: true
  pinned:
    description: True when the image is pinned by C(image_pull_image) or C(image_pull_digest).
    type: bool
    default: false
'''

EXAMPLES = r'''
- name: Pick the image reference from what the node has
  ansible.builtin.set_fact:
    image_choice: >-
      {{ ['10.0.0.5:5000/ascend/vllm-ascend:v0.23.0-310p']
         | ascend.vllm.image_pull_present(['quay.io/ascend/vllm-ascend:v0.23.0-310p'],
                                          'ascend/vllm-ascend', 'v0.23.0-310p') }}
    # ref: 10.0.0.5:5000/ascend/vllm-ascend:v0.23.0-310p, present: true
'''

RETURN = r'''
_value:
  description: The reference to run and what the node has of it.
  type: dict
  contains:
    ref:
      description: The reference to run (the first present one, else the first candidate; empty without candidates).
      type: str
    present:
      description: Whether the node has the image under one of the matching names.
      type: bool
    refs:
      description: Every matching name the node has, candidates first.
      type: list
      elements: str
    id:
      description: The local image id of C(ref) when the listing gave ids, else null.
      type: str
'''

from ansible_collections.ascend.vllm.plugins.module_utils.contracts._image_ref import present


def image_pull_present(node_images, candidates, repository, image_tag, pinned=False):
    """{ref, present, refs, id} for the images on a node."""
    return present(node_images, candidates or [], repository, image_tag, bool(pinned))


class FilterModule(object):
    def filters(self):
        return {'image_pull_present': image_pull_present}
