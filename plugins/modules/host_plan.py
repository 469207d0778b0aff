#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import annotations

DOCUMENTATION = r'''
---
module: host_plan
short_description: Read a host's variables once and return its whole vLLM plan, judged, on the controller
version_added: 0.3.0
description:
  - Reads the task host's variables once into a request -- every variable of this collection's roles as the roles
    would read it, the user's values over the roles' defaults -- and remembers which of them the user set and where
    (the inventory file and line, or extra vars).
  - From that request builds the whole plan of the host in one step and judges it, in the order preflight always
    has -- variable names and types and the platform first (a misspelt or mistyped variable is reported with the
    closest known name or the type expected), then the image inputs, the instances, every
    M(ascend.vllm.vllm_config) rule of every instance with the platform's nominal chip figures, the load balancer
    and the local model paths.
  - Fails with every problem at once (the preflight report, each line naming the variable the user wrote, its value,
    the fix and where it was set), unless O(fail_on_problems=false).
  - Runs on the controller (an action plugin); no host is contacted unless O(read_node=true), so a rejected
    configuration costs no round trip. C(playbooks/preflight.yml) runs it first and registers its result as C(ascend_vllm_plan).
extends_documentation_fragment:
  - ascend.vllm.module.action
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.flow
options:
  fail_on_problems:
    description: Fail the task when the plan has problems; with V(false) the problems are only returned.
    type: bool
    default: true
  given:
    description:
      - A result of this action earlier in the run (C(ascend_vllm_plan), registered by C(playbooks/preflight.yml)).
        When it holds a plan (not failed, skipped or unreachable), it is returned as it is and nothing is planned
        again, so a play can register C(ascend_vllm_plan) whether or not preflight ran before it.
      - With O(read_node=true), a plan without problems that was not judged against the node yet (preflight's first
        play) is the one read and judged here, not planned again.
    type: dict
  node:
    description:
      - What M(ascend.vllm.node_facts) read of the host (its registered result). With it the plan is judged again
        against the node -- its devices, chips, free memory, processes, Docker Engine, ports, disk, paths, driver
        and firmware versions and addresses --, every M(ascend.vllm.vllm_config) rule with the chips' real memory,
        and the image the host runs is resolved against the node's images.
    type: dict
  read_node:
    description:
      - Read the host in this task, as the preflight playbook does -- M(ascend.vllm.node_facts) with what this plan
        needs to know (paths, devices, npu-smi, the driver file, our containers, ports), the opt-in page-cache drop
        of RC mode and the memory read after it (O(drop), O(memory_again)), and the registry's answers for digest
        pins (O(registry)) -- and judge the plan against it, as with O(node).
      - Nothing is read when the plan already has problems (they are reported without contacting the host).
    type: bool
    default: false
  drop:
    description: The result of the opt-in page-cache drop (RC mode), if one ran.
    type: dict
  memory_again:
    description: M(ascend.vllm.node_facts)' memory read after the page-cache drop, if one ran.
    type: dict
  registry:
    description: M(ascend.vllm.node_facts)' C(manifests) read for the digest pins, if any.
    type: dict
  chip_figures:
    description:
      - The chips' memory figures M(ascend.vllm.vllm_config) judges each instance with, instead of the platform's
        nominal ones, as the C(npu_check) role records them in C(npu_check_result) -- C(chip_total_mb) and
        C(chip_free_mb) (per instance name) and C(rc_mode). Leave out C(chip_free_mb) to judge a host whose
        instances already hold their chips (a deploy or verify after preflight).
    type: dict
attributes:
  action:
    details: Only the action plugin exists; the plan is built on the controller, and with O(read_node) the node is
      read by M(ascend.vllm.node_facts).
  check_mode:
    details: Only computes and reads, so check mode gives the same result, except that the opt-in page-cache drop
      does not run.
  platform:
    platforms: all
seealso:
  - module: ascend.vllm.vllm_config
'''

EXAMPLES = r'''
- name: Plan the host and judge the plan (every problem at once)
  ascend.vllm.host_plan:
  register: ascend_vllm_plan

- name: Show the vllm serve command of each instance
  ansible.builtin.debug:
    msg: "{{ item.key }}: {{ item.value.argv | join(' ') }}"
  loop: "{{ ascend_vllm_plan.plan.configs | dict2items }}"
  loop_control:
    label: "{{ item.key }}"
'''

RETURN = r'''
given:
  description: Whether the plan is O(given)'s, kept as it was.
  returned: with O(given)
  type: bool
plan:
  description: The host plan (only when there is no problem, or with O(fail_on_problems=false)).
  returned: success
  type: dict
  contains:
    host:
      description: The inventory host name.
      type: str
    platform:
      description: The platform the host runs as.
      type: str
    profile:
      description: Its platform profile (devices, mounts, privileged, shm size, tag suffix, allowed TP sizes).
      type: dict
    image:
      description: C(candidates) (image references in pull order), C(image_tag), C(pins) and C(problems).
      type: dict
    instances:
      description: One entry per instance (name, container name, chips, port, URL, env, the vllm_config options, and
        the variable each value came from), with the two names every phase reads, worked out once,
        C(served_model_name) (the name its API serves the model under, its vllm_config result's) and C(runs_as)
        (what runs it on the node, its container, or C(<container name>.service) with the source install method).
      type: list
      elements: dict
    image_tag:
      description: The tag checked against the model's minimum, or null for a digest reference.
      type: str
    configs:
      description: Per instance name, the vllm_config result (C(ok), C(argv), C(env), C(api_key_env), C(settings),
        C(profile), C(memory), C(violations)).
      type: dict
    balancer:
      description: Whether the host runs a load balancer, why, and its frontends.
      type: dict
    var_names:
      description: The inventory variable the platform, its overrides and spec and the image tag come from.
      type: dict
    node:
      description: With O(node), the node's verdict (C(result), C(problems), C(summary), C(drop_page_cache)).
      type: dict
    lines:
      description:
        - >-
          The plan as lines to print. Without the node read, what C(playbooks/plan.yml) shows -- the platform, the
          image (or the source install), each instance with its exact C(vllm serve) line and its memory fit on the
          platform's nominal chip, the load balancer, then every problem with its fix (or C(problems: none)); when
          the variables or the platform are wrong, the problems alone.
        - After the node read, the node's summary, the image the host runs and the command of each instance.
      type: list
      elements: str
      version_added: 0.4.0
node:
  description: With O(read_node), what M(ascend.vllm.node_facts) read of the host (its result).
  returned: with O(read_node), when the plan had no problem before the read
  type: dict
problems:
  description: Each problem as C(check), C(msg), C(fix) and, when the request knows, C(origin) (where the variable
    was set); empty when all is well.
  returned: always
  type: list
  elements: dict
'''

from ansible_collections.ascend.vllm.plugins.module_utils._controller_only import controller_only

# The action plugin's accepted arguments too.
ARGUMENT_SPEC = {
    'fail_on_problems': {'type': 'bool', 'default': True},
    'node': {'type': 'dict'},
    'drop': {'type': 'dict'},
    'memory_again': {'type': 'dict'},
    'registry': {'type': 'dict'},
    'chip_figures': {'type': 'dict'},
    'read_node': {'type': 'bool', 'default': False},
    'given': {'type': 'dict'},
}


def main():
    # The plan needs the controller's view of the inventory: only the action plugin can build it.
    controller_only('host_plan', ARGUMENT_SPEC)


if __name__ == '__main__':
    main()
