#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import annotations

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
  - Without O(candidates), O(inputs) are the image_pull role's variables and the action does that role's whole phase
    in one task (version 0.3.0) -- judges the inputs on the controller (registries, repository, tag or digest,
    retries and timeouts, the tarball, the offline rule), works out the candidates and the tag with the platform's
    suffix, looks at the node's images (one M(community.docker.docker_host_info), or O(node_images)), then pulls or
    loads only what is missing (O(state=present)), removes every local name of the image (O(state=absent)), or
    changes nothing (O(state=resolved)). Wrong inputs fail with every problem and its fix before the node changes.
extends_documentation_fragment:
  - ascend.vllm.module.action
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.flow
options:
  candidates:
    description:
      - The image references to try, in order (registry, repository and tag or digest).
      - Omitted, they are worked out from O(inputs) (the image_pull role's variables).
    type: list
    elements: str
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
      - Without O(candidates), every image_pull variable by name (C(image_pull_registries), C(image_pull_repository),
        C(image_pull_tag), C(image_pull_tag_suffix), C(image_pull_digest), C(image_pull_image), C(image_pull_policy),
        C(image_pull_retries), C(image_pull_delay), C(image_pull_timeout), C(image_pull_poll_interval),
        C(image_pull_archive), C(image_pull_archive_on_node), C(image_pull_archive_dir), C(image_pull_offline)), judged
        and turned into the candidates.
    type: dict
  state:
    description:
      - Without O(candidates) only. V(present) pulls or loads what is missing; V(absent) removes the image under every
        name the node has for it; V(resolved) only works out the reference and whether the node has it.
    type: str
    choices: [present, absent, resolved]
    default: present
  node_images:
    description:
      - Without O(candidates) only. The images on the node as C(repo:tag) strings, when a preflight already listed
        them; null asks the node (M(community.docker.docker_host_info)).
    type: list
    elements: str
  platform:
    description:
      - Without O(candidates) only. The platform whose profile gives the tag suffix when
        C(image_pull_tag_suffix) in O(inputs) is null.
    type: str
  platform_overrides:
    description: Profile fields to replace (C(ascend_vllm_platform_overrides)).
    type: dict
  platform_spec:
    description: The description of a platform that is not built in (C(ascend_vllm_platform_spec)).
    type: dict
  image_tag:
    description: The tag the candidates carry (with the platform's suffix), for the failure message.
    type: str
  archive:
    description:
      - A C(docker save) tarball to load instead of pulling (air-gapped sites), on the controller unless
        O(archive_on_node=true). It is copied to O(archive_dir) on the node, loaded with
        M(community.docker.docker_image_load) and, with O(archive_cleanup=true), removed from the node again.
      - While the connection copies it, every O(report_after) seconds a progress line says how much of the archive
        has been sent and the time spent (the offset of the open archive in the controller's C(/proc), or over the
        local connection the copy's own size; a controller without C(/proc) only shows the time).
      - The load runs as an async job on the node; every O(report_after) seconds a progress line says how much of the
        archive the Docker Engine has been sent, the time spent and the time left (O(timeout)).
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
    details: The action plugin runs the pulls and the waits on the node through their modules.
  async:
    details: Each attempt already runs in the background on the node.
  check_mode:
    details: M(community.docker.docker_image_pull) only asks the Engine whether it would pull, in the foreground; a
      tarball is neither copied nor loaded.
  diff_mode:
    support: partial
    details:
      - The tarball copied from the controller shows as created (or replaced) at its path in O(archive_dir), by its
        size, not its bytes; with O(archive_cleanup=true) nothing stays, and only a file it replaces shows, as
        removed. In check mode too.
      - An image is no file and has no diff; RV(changed) says whether one was pulled or loaded.
seealso:
  - module: community.docker.docker_image_pull
  - module: ascend.vllm.image_pull_wait
'''

EXAMPLES = r'''
- name: The image_pull role's phase -- judge its variables, then pull or load only what the node lacks
  ascend.vllm.image_ensure:
    inputs:
      image_pull_registries: [quay.io]
      image_pull_repository: ascend/vllm-ascend
      image_pull_tag: v0.23.0
      image_pull_tag_suffix: null
      image_pull_policy: not_present
    platform: atlas_300i_duo
  register: image

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
  description:
    - The reference that was pulled (null when none was).
    - Without O(candidates), the reference the container runs (the one pulled or loaded, the one present, or the
      first candidate).
  returned: always
  type: str
present:
  description: Whether the node had the image before this task.
  returned: without O(candidates)
  type: bool
refs:
  description: Every name the node had for the image before this task.
  returned: without O(candidates)
  type: list
  elements: str
removed:
  description: The names removed (O(state=absent)).
  returned: with O(state=absent)
  type: list
  elements: str
candidates:
  description: The references tried, in order.
  returned: without O(candidates)
  type: list
  elements: str
image_tag:
  description: The tag with the platform's suffix.
  returned: without O(candidates), unless the platform has no profile
  type: str
problems:
  description: What is wrong with the inputs, each C(check), C(msg) and C(fix).
  returned: without O(candidates), unless the platform has no profile
  type: list
  elements: dict
needed:
  description: Whether O(state=present) had work -- a pull or load, a tarball, or inputs to refuse.
  returned: without O(candidates), unless the platform has no profile
  type: bool
stage:
  description:
    - Without O(candidates), where the task ended -- V(inputs) (refused), V(resolved), V(ensured), V(removed),
      or a failure in V(pull), V(load) or V(remove).
  returned: without O(candidates)
  type: str
config:
  description:
    - The pulled image's own configuration (C(id), C(env) its C(Config.Env), C(architecture)) with its reference
      (C(image)), from the pull's own answer; the image_pull role hands it to container_run as
      C(image_pull_image_config), which then need not read the image again.
  returned: always (null unless this run pulled the image)
  type: dict
  version_added: 0.4.0
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
diff:
  description: With C(--diff) and a tarball copied from the controller, the file it leaves at its path on the node
    (C(before_header), C(after_header); C((absent)) when there is none) as C(<docker save archive, N bytes>).
  returned: in diff mode, when the tarball on the node changes
  type: list
  elements: dict
  version_added: 0.4.0
'''

from ansible_collections.ascend.vllm.plugins.module_utils._controller_only import controller_only

# The action plugin's accepted arguments too.
ARGUMENT_SPEC = {
    'candidates': {'type': 'list', 'elements': 'str'},
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
    'state': {'type': 'str', 'choices': ['present', 'absent', 'resolved'], 'default': 'present'},
    'node_images': {'type': 'list', 'elements': 'str'},
    'platform': {'type': 'str'},
    'platform_overrides': {'type': 'dict'},
    'platform_spec': {'type': 'dict'},
}


def main():
    # The attempts, their waits and retries are driven from the controller: only the action plugin can.
    controller_only('image_ensure', ARGUMENT_SPEC)


if __name__ == '__main__':
    main()
