#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: image_ensure
short_description: Pull an image from the first of several references that gives it, with retries and progress
version_added: 0.3.0
description:
  - Tries each reference of O(candidates) in order (for example the same image on a mirror, then on the public
    registry), each up to O(retries) times, O(delay) seconds apart, until one is pulled; returns the reference it
    pulled as RV(ref).
  - Each attempt is M(community.docker.docker_image_pull) run as a background job on the node, waited for with
    M(ascend.vllm.image_pull_wait), which prints a progress line every O(report_after) seconds (layers, bytes, time
    spent and time left) at every verbosity. The job's files are cleaned up after each attempt.
  - A reference a registry answered "not found" for is not asked again (that answer is final; asking again only
    costs the delays).
  - When no reference gives the image, fails with one message that names each reference, its last answer and the
    fix (a wrong tag when every registry said "not found", else the network or a mirror).
  - Only returns its result, never sets a fact, so one play can pull several images (the vLLM image and the load
    balancer's) without one overwriting the other's outcome. The image_pull role and the balancer role call it.
author:
  - ascend.vllm maintainers (!UNKNOWN)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.flow
options:
  candidates:
    description: The image references to try, in order (registry, repository and tag or digest).
    type: list
    elements: str
    required: true
  policy:
    description: V(not_present) pulls only when the image is not on the node; V(always) asks the registry every time.
    type: str
    choices: [not_present, always]
    default: not_present
  retries:
    description: Attempts per reference.
    type: int
    default: 3
  delay:
    description: Seconds between two attempts of one reference.
    type: float
    default: 10
  timeout:
    description: Seconds one attempt may take (the background job's limit and the wait's).
    type: float
    default: 3600
  report_after:
    description: Seconds between two progress lines.
    type: float
    default: 15
  inputs:
    description:
      - The role variables the failure message's fix names (C(image_pull_tag), C(image_pull_repository)).
    type: dict
  image_tag:
    description: The tag the candidates carry (with the platform's suffix), for the failure message.
    type: str
  archive:
    description:
      - A C(docker save) tarball to load instead of pulling (air-gapped sites), on the controller unless
        O(archive_on_node=true). It is copied to O(archive_dir) on the node, loaded with
        M(community.docker.docker_image_load) and, with O(archive_cleanup=true), removed from the node again.
      - With O(policy=not_present) nothing is loaded when the node already has one of O(candidates). RV(ref) is the
        first candidate among the loaded names, else the tarball's first name.
    type: str
  archive_on_node:
    description: O(archive) is a path on the node; nothing is copied.
    type: bool
    default: false
  archive_dir:
    description: The directory on the node the tarball is copied to (created when missing).
    type: str
    default: /var/tmp
  archive_cleanup:
    description: Remove the copied tarball from the node after the load.
    type: bool
    default: true
attributes:
  action:
    support: full
    details: The action plugin runs the pulls and the waits on the node through their modules.
  async:
    support: none
    details: Each attempt already runs in the background on the node.
  bypass_host_loop:
    support: none
  check_mode:
    support: full
    details: M(community.docker.docker_image_pull) only asks the Engine whether it would pull, in the foreground; a
      tarball is neither copied nor loaded.
  diff_mode:
    support: none
  platform:
    support: full
    platforms: posix
seealso:
  - module: community.docker.docker_image_pull
  - module: ascend.vllm.image_pull_wait
'''

EXAMPLES = r'''
- name: Pull the image from the mirror, else from the public registry
  ascend.vllm.image_ensure:
    candidates:
      - mirror.example.com/ascend/vllm-ascend:v0.23.0-310p
      - quay.io/ascend/vllm-ascend:v0.23.0-310p
    retries: 3
    delay: 10
  register: pulled

- name: Run what was pulled
  ansible.builtin.debug:
    msg: "{{ pulled.ref }} ({{ pulled.id }})"
'''

RETURN = r'''
ref:
  description: The reference that was pulled (null when none was).
  returned: always
  type: str
id:
  description: The image id the Engine gave for it, when it said.
  returned: always
  type: str
changed:
  description: Whether the Engine pulled anything (false when the image was already there under that reference).
  returned: always
  type: bool
errors:
  description: The failed attempts, in order, each C(ref), C(attempt), C(reason) (the Engine's own words) and
    C(missing) (the registry said "not found").
  returned: always
  type: list
  elements: dict
loaded:
  description: With O(archive), the names the tarball held (empty when nothing was loaded).
  returned: with O(archive)
  type: list
  elements: str
seconds:
  description: Seconds all the attempts took.
  returned: always
  type: float
'''

from ansible.module_utils.basic import AnsibleModule


def main():
    # The attempts, their waits and retries are driven from the controller: only the action plugin can.
    module = AnsibleModule(argument_spec={
        'candidates': {'type': 'list', 'elements': 'str', 'required': True},
        'policy': {'type': 'str', 'choices': ['not_present', 'always'], 'default': 'not_present'},
        'retries': {'type': 'int', 'default': 3},
        'delay': {'type': 'float', 'default': 10},
        'timeout': {'type': 'float', 'default': 3600},
        'report_after': {'type': 'float', 'default': 15},
        'inputs': {'type': 'dict'},
        'image_tag': {'type': 'str'},
        'archive': {'type': 'str'},
        'archive_on_node': {'type': 'bool', 'default': False},
        'archive_dir': {'type': 'str', 'default': '/var/tmp'},
        'archive_cleanup': {'type': 'bool', 'default': True},
    }, supports_check_mode=True)
    module.fail_json(msg='ascend.vllm.image_ensure runs from the controller only (its action plugin); '
                         'call it as a task, not as a module on a node')


if __name__ == '__main__':
    main()
