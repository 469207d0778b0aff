#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import annotations

DOCUMENTATION = r'''
---
module: container_ensure
short_description: The container of one vLLM instance in one task - created or updated, the serving one kept
version_added: 0.3.0
description:
  - The container_run role's whole phase, from the role's variables (O(inputs)); the role is this one task.
  - Checks the inputs on the controller first and fails before the node changes, naming the variable, its value
    and the fix - the extra labels (Docker's key grammar, no reserved C(ascend.vllm.*), C(com.docker.*),
    C(io.docker.*) or C(org.dockerproject.*) namespace, no secret-named key), the platform profile, the image, the
    command and the chips a started container needs, and the mounts of the spec.
  - For O(inputs.container_run_state=started), in order, each a module run on the node -
    the model cache directory (M(ansible.builtin.stat), then M(ansible.builtin.file) only when it is missing,
    unless O(inputs.container_run_cache_dir_exists) says); the image's own environment
    (M(community.docker.docker_image_info), unless O(inputs.container_run_image_config) gives it for the same image),
    on which the profile's environment builds; the existing container
    (M(community.docker.docker_container_info), unless O(inputs.container_run_existing) gives it).
  - With O(inputs.container_run_keep_previous) (not in check mode) - the container kept as C(<name>-previous) by an
    interrupted run (unless O(inputs.container_run_existing_previous) gives it); when the serving container is
    ours (label C(ascend.vllm.managed-by)) and running, the same M(community.docker.docker_container) call in check
    mode (the probe); when that would re-create it, the drain from the load balancer
    (M(ascend.vllm.balancer_server), with O(inputs.container_run_drain)), the stop and the rename to
    C(<name>-previous) (M(ascend.vllm.container_rename)). When the probe finds nothing to do, the real call is not
    made (a re-run makes one M(community.docker.docker_container) call).
  - Then the real M(community.docker.docker_container) call - devices, mounts, shm size and privileged mode from the
    platform profile, only this instance's chips, the guide's C(-p PORT:PORT), the environment and labels; sets
    and dicts compared strictly, so that removing a device, mount, label or variable re-creates the container too;
    a container in Docker's restart back-off is restarted.
  - When Docker or community.docker refuses the container, the kept container is put back (the refused one removed,
    C(<name>-previous) renamed back and started) and the task fails with the refusal's own words.
  - V(stopped) stops the container (its spec, logs and exit code stay); V(absent) removes it; V(restored) removes
    it and puts C(<name>-previous) back under its name, started.
  - Nothing it returns or shows carries a value of the environment's secrets (an API key, C(HF_TOKEN)) - results are
    redacted and messages masked - so the task needs no C(no_log); the node does not log the container's
    arguments either.
extends_documentation_fragment:
  - ascend.vllm.module.action
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.flow
options:
  inputs:
    description:
      - The container_run role's variables by name, as the role documents them (its C(meta/argument_specs.yml)).
    type: dict
    required: true
    suboptions:
      container_run_name:
        description: Container name (the guide's C(--name vllm-ascend)).
        type: str
        default: vllm-ascend
      container_run_state:
        description: V(started) creates or updates the container; V(stopped) stops it; V(absent) removes it;
          V(restored) puts the container kept as C(<name>-previous) back under its name.
        type: str
        default: started
        choices: [started, stopped, absent, restored]
      container_run_image:
        description: Image reference to run, normally the fact C(image_pull_image_ref).
        type: str
        default: ""
      container_run_pull:
        description: When docker_container may pull the image itself.
        type: str
        default: missing
        choices: [missing, never, always]
      container_run_command:
        description: The C(vllm serve) argv returned by M(ascend.vllm.vllm_config).
        type: list
        elements: str
        default: []
      container_run_command_env:
        description: Environment returned by M(ascend.vllm.vllm_config).
        type: dict
        default: {}
      container_run_env:
        description: Extra environment; wins over O(inputs.container_run_command_env).
        type: dict
        default: {}
      container_run_profile:
        description: Platform profile returned by M(ascend.vllm.vllm_config) (C(chip_device_template),
          C(manager_devices), C(mounts), C(model_cache_mount), C(environment), C(shm_size), C(privileged)).
        type: dict
        default: {}
      container_run_chips:
        description: Device ids (N of C(/dev/davinciN)) of the chips this instance uses.
        type: list
        elements: int
        default: [0]
      container_run_port:
        description: Port vllm listens on in the container, published as C(-p PORT:PORT).
        type: int
        default: 8080
      container_run_publish_address:
        description: Host address to publish the port on; empty means every address.
        type: str
        default: ""
      container_run_model_cache_dir:
        description: Host directory mounted at the profile's model cache target (a path on the node).
        type: str
        default: /root/.cache
      container_run_extra_mounts:
        description: Further bind mounts, each C({source, target, read_only}).
        type: list
        elements: dict
        default: []
      container_run_restart_policy:
        description: Docker restart policy.
        type: str
        default: unless-stopped
        choices: ["no", on-failure, always, unless-stopped]
      container_run_stop_timeout:
        description: Seconds Docker waits for vLLM to stop before killing it.
        type: int
        default: 30
      container_run_log_max_size:
        description: json-file log driver C(max-size).
        type: str
        default: 100m
      container_run_log_max_file:
        description: json-file log driver C(max-file).
        type: int
        default: 3
      container_run_instance:
        description: Instance name, written to the C(ascend.vllm.instance) label.
        type: str
        default: default
      container_run_model:
        description: Model, written to the C(ascend.vllm.model) label.
        type: str
        default: ""
      container_run_platform:
        description: Platform, written to the C(ascend.vllm.platform) label.
        type: str
        default: ""
      container_run_labels:
        description: Extra labels, merged over the role's own.
        type: dict
        default: {}
      container_run_drain:
        description: The load balancer server to drain just before the serving container is stopped to be kept
          (C(socket), C(backend), C(server), C(timeout) of M(ascend.vllm.balancer_server)); empty drains nothing.
        type: dict
        default: {}
      container_run_keep_previous:
        description: Keep the serving container as C(<name>-previous) when the new spec re-creates it.
        type: bool
        default: false
      container_run_recreate:
        description: Re-create the container even when its spec is unchanged.
        type: bool
        default: false
      container_run_no_log:
        description:
          - Kept for the role's interface. The action never returns or shows a secret value of the environment,
            whatever this says.
        type: bool
        default: false
      container_run_cache_dir_exists:
        description: Whether O(inputs.container_run_model_cache_dir) exists on the node, when a preflight already
          looked; null looks on the node.
        type: bool
      container_run_existing:
        description: The existing container as a preflight saw it (C(npu_check_result.containers[name])); null asks
          the node.
        type: dict
      container_run_existing_previous:
        description: The kept container C(<name>-previous) as a preflight saw it; null asks the node.
        type: dict
      container_run_image_config:
        description: The image's own configuration as a preflight read it (C(image), C(env), C(architecture));
          used when its C(image) is O(inputs.container_run_image), else the node is asked.
        type: dict
attributes:
  action:
    details: The action plugin runs each step on the node through its module.
  check_mode:
    details: Nothing is kept, drained, stopped or renamed; M(community.docker.docker_container) runs in check mode
      and says what it would do; a missing cache directory is reported, not created.
  diff_mode:
    support: full
    details: The diff of M(community.docker.docker_container), the environment's secrets redacted.
notes:
  - The four outputs of the container_run role are returned as RV(outputs); the role registers the result and
    sets them as facts in one C(set_fact), so that later tasks and roles (vllm_serve) read them as variables as
    before. They are not returned as C(ansible_facts) - a module's facts read as top-level variables are
    deprecated from ansible-core 2.20 on.
  - A failed task returns no RV(outputs); RV(stage) and RV(steps) say where it stopped.
seealso:
  - module: community.docker.docker_container
  - module: ascend.vllm.container_rename
  - module: ascend.vllm.balancer_server
'''

EXAMPLES = r'''
- name: The container of one instance, the serving one kept while it is replaced
  ascend.vllm.container_ensure:
    inputs:
      container_run_name: vllm-ascend
      container_run_image: quay.io/ascend/vllm-ascend:v0.23.0rc1-310p
      container_run_command: [vllm, serve, Qwen/Qwen3.5-2B, --port, "8080"]
      container_run_profile: "{{ config.profile }}"
      container_run_chips: [0]
      container_run_keep_previous: true
  register: container

- name: Name the container kept to come back to
  ansible.builtin.debug:
    msg: >-
      {{ container.outputs.container_run_previous or 'nothing kept' }}
      (changed: {{ container.outputs.container_run_result.changed }})

- name: Put the kept container back
  ascend.vllm.container_ensure:
    inputs:
      container_run_name: vllm-ascend
      container_run_state: restored
'''

RETURN = r'''
outputs:
  description: With O(inputs.container_run_state=started), the container_run role's outputs.
  returned: success, with O(inputs.container_run_state=started)
  type: dict
  contains:
    container_run_result:
      description:
        - The result of M(community.docker.docker_container) for the container (the probe's, when it found nothing
          to do), without its invocation, every secret value of the environment redacted.
      type: dict
    container_run_previous:
      description: The kept container's name (C(<name>-previous)), empty when nothing was kept.
      type: str
    container_run_drained:
      description: The result of the drain (M(ascend.vllm.balancer_server)), empty when nothing was drained.
      type: dict
    container_run_stopped_at:
      description: The controller's epoch seconds when the serving container stopped serving, null when nothing
        was kept.
      type: float
keep:
  description: The keep decision - C(probe), C(keep), C(leftover), C(kept), C(unchanged) and C(why) (one line).
  returned: with O(inputs.container_run_state=started), once the inputs passed
  type: dict
stage:
  description:
    - Where the task ended - V(started), V(stopped), V(absent), V(restored), or where it failed - V(inputs) (before the
      node changed), V(cache_dir), V(look), V(probe), V(drain), V(stop), V(rename), V(container) (the refusal), V(restore).
  returned: always
  type: str
steps:
  description: The modules run on the node, in order (for example V(image_info), V(probe), V(drain), V(stop),
    V(rename), V(container)).
  returned: always
  type: list
  elements: str
diff:
  description: The diff of M(community.docker.docker_container) in diff mode, secrets redacted.
  returned: in diff mode, when the container call ran
  type: dict
'''

from ansible_collections.ascend.vllm.plugins.module_utils._controller_only import controller_only

from ansible_collections.ascend.vllm.plugins.module_utils.serve._container_run import ARGUMENT_SPEC


def main():
    # Every step is a module run from the controller: only the action plugin can.
    controller_only('container_ensure', ARGUMENT_SPEC)


if __name__ == '__main__':
    main()
