#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import annotations

DOCUMENTATION = r'''
---
module: node_facts
short_description: Read everything the preflight of an Atlas node needs, in one run
version_added: 0.1.0
description:
  - Gathers in one module run what the C(ascend.vllm.npu_check) role judges, so a node
    preflight costs one round trip to the node.
  - Paths (driver files, device nodes, the host files the container mounts, any extra
    path) with their type; the chips, health, memory and processes that C(npu-smi info)
    lists (as M(ascend.vllm.npu_facts) reads them), the driver version and, per card, what
    C(npu-smi info -t board -i ID) says (driver, firmware and their compatibility).
  - The Docker Engine (reachable or not, version, data root, image tags, running
    containers with their published ports and labels) and, for the containers named in
    O(containers), their state, restart count, devices, port bindings, labels and the
    host pids of their processes (what C(docker top NAME -eo pid) lists).
  - Who listens on each port of O(ports) (process name and pid, from C(/proc)) and
    whether a connection to it is accepted within O(probe_timeout) seconds.
  - Free space of the filesystem holding Docker's data root, and the host's available
    memory (C(MemAvailable)).
  - The node's own IPv4 and IPv6 addresses (what C(ip addr) lists, read from C(/proc/net)), which
    a publish address must be one of.
  - The node's architecture (C(uname -m)), which an image present on the node must match, and the Python
    that runs the modules there, with whether it imports C(requests), which the C(community.docker) modules
    the roles run on the node need.
  - The module only reads. What the node lacks (no npu-smi, no engine, a missing file)
    is returned as data, never as a failure; the controller turns it into problems.
  - With O(checks) (what the C(ascend.vllm.npu_check) role does), the action plugin on the controller also
    judges the node - every problem with its fix, all at once - and returns the judgement (RV(problems),
    RV(result), RV(summary), RV(report)) and the facts C(npu_check_problems) and C(npu_check_result).
extends_documentation_fragment:
  - ascend.vllm.module.action
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.flow
  - ascend.vllm.docker_engine
options:
  checks:
    description:
      - The npu_check settings (what the C(ascend.vllm.npu_check) role builds from its variables) - C(host),
        C(platform), C(profile) (resolved, empty when it cannot be), C(profile_given), C(platform_problems) (of
        P(ascend.vllm.platform_profile#filter)), C(instances) (as C(npu_check_instances)), C(driver_dir),
        C(driver_version_file), C(driver_min_version), C(image_tag), C(npu_smi_path) (empty takes the profile's),
        C(mount_sources), C(docker_min_version), C(ports) (false leaves the ports out), C(disk_min_free_gb),
        C(images), C(rc_memory_margin_mb), C(paths) and C(drop_page_cache) (C(npu_check_drop_page_cache)).
      - With them the action plugin computes O(paths), O(npu_smi_path), O(driver_version_file), O(containers)
        and O(ports) (give none of those, nor O(gather), O(manifests) or O(registry_timeout)), reads the node
        once, and judges what it read on the controller. The module itself never receives them.
      - With C(drop_page_cache=true), on an RC-mode board short of host memory (outside check mode), the page
        cache is dropped once (C(sync && echo 3 > /proc/sys/vm/drop_caches), the only change this module can make)
        and the memory read again before the judgement; RV(changed) says whether the drop ran.
      - A node that cannot be read (the module failed, or the node was not reached) fails the task with the
        module's message; what the node lacks is a problem in RV(problems), never a failure.
    type: dict
    version_added: 0.3.0
  paths:
    description: Paths to report on (see RV(paths)); links are followed for the type.
    type: list
    elements: str
    default: []
  npu_smi_path:
    description:
      - The C(npu-smi) to run. Empty looks it up on E(PATH), then at C(/usr/local/bin/npu-smi)
        and C(/usr/local/sbin/npu-smi).
      - When it is not there but found elsewhere, RV(npu_error.found) says where and
        RV(npu_found) holds what that one lists.
    type: str
    default: ''
  driver_version_file:
    description: The Ascend driver C(version.info) to read the driver version from.
    type: path
    default: /usr/local/Ascend/driver/version.info
  containers:
    description: Container names to inspect (see RV(containers)); a missing one is reported, not an error.
    type: list
    elements: str
    default: []
  images:
    description:
      - Image references whose own configuration to read with V(docker) (see RV(docker.image_configs)), for
        M(ascend.vllm.container_ensure), which builds a container's environment on the image's; a reference the
        node does not have is left out.
    type: list
    elements: str
    default: []
    version_added: 0.3.0
  ports:
    description: TCP ports to look up listeners on and probe on 127.0.0.1.
    type: list
    elements: int
    default: []
  probe_timeout:
    description: Seconds a connection to a port may take before the port counts as closed.
    type: float
    default: 1.0
  manifests:
    description:
      - Image references C(registry/repository:tag) to ask their registry about (see RV(manifests)), from the node,
        where a pull happens; only read with V(manifests) in O(gather).
    type: list
    elements: str
    default: []
  registry_timeout:
    description: Seconds one request to a registry may take.
    type: float
    default: 10.0
  gather:
    description:
      - What to read; leave out parts that are not needed (for example only V(memory) to measure again).
      - V(manifests) (asks the registries of O(manifests); not gathered unless named) is the only part that
        leaves the node.
    type: list
    elements: str
    choices: [paths, npu, docker, ports, disk, memory, addresses, units, system, manifests, source, serving]
    default: [paths, npu, docker, ports, disk, memory, addresses, units, system]
  source:
    description:
      - What the source install method needs read (only with V(source) in O(gather)) -- C(python) (the interpreter
        the virtualenv is made with), C(venv), C(wheelhouse), C(files) (the CANN version files, read whole),
        C(unit_dir), C(units) (each C(name), C(env_file), C(launcher)) and C(git) (true - look for git, which
        building from the release tags clones with). See RV(source).
    type: dict
    version_added: 0.3.0
  serving:
    description:
      - The instances that may already serve as the plan asks (only with V(serving) in O(gather), and with
        V(docker) for containers or V(source) for the units of the source install method). Each one that runs,
        carries one of its O(serving[].digests) and has no kept C(-previous) is asked at once, as
        M(ascend.vllm.vllm_ready) with O(ascend.vllm.vllm_ready#module:just_started=false) asks it (C(GET /health),
        C(GET /v1/models)), without waiting; see RV(serving).
      - The read only reads and sends no inference request. The smoke tests belong to the phases that start a
        service (the deploy's readiness check) or verify one (C(ascend.vllm.verify)).
      - So a re-run that changes nothing checks its instances in the node read's round trip (the
        C(ascend.vllm.host_plan) action asks for this); an instance that does not answer at once is left to
        the deploy's readiness wait.
    type: list
    elements: dict
    default: []
    version_added: 0.3.0
    suboptions:
      name:
        description: The container, or the systemd unit with O(serving[].service).
        type: str
        required: true
      service:
        description: A systemd unit of the source install method, not a container.
        type: bool
        default: false
      digests:
        description: The spec digests (label C(ascend.vllm.spec), or the unit's) the plan may ask for.
        type: list
        elements: str
        default: []
      url:
        description: The server's base URL from the node.
        type: str
        required: true
      served_model_name:
        description: The name C(/v1/models) must list.
        type: str
        required: true
      api_key:
        description: The server's API key, if it has one.
        type: str
attributes:
  action:
    details: The action plugin runs the module on the node; with O(checks) it also computes the module's arguments
      and judges the node on the controller.
  async:
    support: partial
    details: Without O(checks) only (with them, up to three modules run in turn).
  check_mode:
    details: The module only reads, so it runs in check mode as in a normal run; the page-cache drop of O(checks)
      never runs in check mode.
  platform:
    details: Linux hosts (C(/proc)); the Docker Engine is asked over its API with the Python standard library.
notes:
  - Run it as root (C(become)) so that C(npu-smi), the Docker socket and every process's
    sockets in C(/proc) can be read; as another user those parts come back empty or unreachable.
seealso:
  - module: ascend.vllm.npu_facts
  - module: ascend.vllm.host_plan
'''

EXAMPLES = r'''
- name: Read the node for the preflight
  ascend.vllm.node_facts:
    paths:
      - /usr/local/Ascend/driver
      - /dev/davinci0
      - /dev/davinci_manager
    npu_smi_path: /usr/local/bin/npu-smi
    containers:
      - vllm-ascend
    ports:
      - 8080
  become: true
  register: node

- name: Measure the available memory again
  ascend.vllm.node_facts:
    gather:
      - memory
  register: node_memory

- name: Read the node and judge it for a deploy of one instance on chip 0 (as the npu_check role does)
  ascend.vllm.node_facts:
    checks:
      host: "{{ inventory_hostname }}"
      platform: atlas_300i_duo
      profile: "{{ ('atlas_300i_duo' | ascend.vllm.platform_profile).profile }}"
      instances:
        - name: default
          container_name: vllm-ascend
          chips: [0]
          port: 8080
      driver_dir: /usr/local/Ascend/driver
      driver_version_file: /usr/local/Ascend/driver/version.info
      driver_min_version: auto
      image_tag: v0.23.0-310p
      paths:
        - /data/models/Qwen3.5-2B
  become: true
  register: node

- name: Stop with every problem and its fix
  ansible.builtin.fail:
    msg: "{{ node.report }}"
  when: node.problems | length > 0
'''

RETURN = r'''
paths:
  description: Per path of O(paths) whether it exists (a dangling link does), what it is and, when it leads
    somewhere, C(realpath) (links resolved).
  returned: when V(paths) is gathered
  type: dict
  sample:
    /dev/davinci0: {exists: true, isdir: false, isreg: false, ischr: true, islnk: false, realpath: /dev/davinci0}
npu:
  description: What C(npu-smi info) lists, in the shape of M(ascend.vllm.npu_facts)'s C(npu); null when it failed.
  returned: when V(npu) is gathered
  type: dict
  sample:
    chip_count: 2
    driver_version: 25.2.0
    boards:
      - {npu_id: 2, software_version: 25.2.0, firmware_version: 7.7.0.6.236, compatibility: OK, chip_count: 2, error: null}
  contains:
    boards:
      description:
        - Per card (NPU id) of C(npu-smi info), its board view C(npu-smi info -t board -i ID) - C(software_version)
          (the driver), C(firmware_version), C(compatibility) (npu-smi's verdict on the pair; null where it prints
          none, as on RC boards) and C(chip_count); or C(error) when that view could not be run or read.
      type: list
      elements: dict
npu_error:
  description: Why there is no RV(npu) (C(msg), C(searched), C(found), C(rc), C(stderr)); null when there is.
  returned: when V(npu) is gathered
  type: dict
  sample:
    msg: npu-smi not found or not executable at npu_smi_path=/usr/local/sbin/npu-smi, but it is at /usr/local/bin/npu-smi.
    found: /usr/local/bin/npu-smi
  contains:
    msg:
      description: What went wrong.
      type: str
    found:
      description: Where npu-smi is when it is not at the path asked for; empty when nowhere.
      type: str
npu_found:
  description: What the npu-smi named in RV(npu_error.found) lists; null otherwise.
  returned: when V(npu) is gathered
  type: dict
docker:
  description: The Docker Engine.
  returned: when V(docker) is gathered
  type: dict
  contains:
    reachable:
      description: Whether the engine answered.
      type: bool
    error:
      description: Why it did not; null when it did.
      type: str
    version:
      description: Server version.
      type: str
      sample: 20.10.24+dfsg1
    api_version:
      description: API version.
      type: str
    root_dir:
      description: C(DockerRootDir).
      type: str
      sample: /var/lib/docker
    images:
      description: Every C(repo:tag) on the node, sorted.
      type: list
      elements: str
    image_ids:
      description: The image id (C(sha256:...)) of each C(repo:tag) of RV(docker.images).
      type: dict
    image_configs:
      description: Per reference of O(images) the node has, C(id), C(env) (the image's own C(Config.Env), as
        C(NAME=value) strings) and C(architecture) (C(arm64), C(amd64), ...).
      type: dict
      version_added: 0.3.0
    containers:
      description: Running (and restarting) containers with C(name), C(id), C(image), C(state), C(status),
        C(ports) (published host ports) and C(labels).
      type: list
      elements: dict
containers:
  description:
    - Per name of O(containers), and per running instance container of this collection (its
      C(ascend.vllm.managed-by) and C(ascend.vllm.instance) labels) whether asked for or not, C(exists) and, when
      it exists, C(running), C(restarting), C(restart_count),
      C(status), C(exit_code), C(started_at), C(image_id) (the image it runs), C(labels), C(devices) (host paths), C(ports) (bound container
      ports without protocol) and C(pids) (host pids while running).
  returned: when V(docker) is gathered and the engine answered
  type: dict
  sample:
    vllm-ascend: {exists: true, running: true, restart_count: 0, devices: [/dev/davinci0], ports: ['8080'], pids: [4242]}
listeners:
  description: Per port (as a string) C(listening), C(processes) (C(name), C(pid)) and C(accepts).
  returned: when V(ports) is gathered
  type: dict
  sample:
    '8080': {listening: true, processes: [{name: python3, pid: 6684}], accepts: true}
disk:
  description: C(root) (Docker's data root), C(mount) (the filesystem holding it) and C(free_gb) (GiB, one decimal).
  returned: when V(disk) is gathered
  type: dict
  sample: {root: /var/lib/docker, mount: /, free_gb: 112.4}
memory:
  description: C(available_mb) (C(MemAvailable)) and C(total_mb) of the host.
  returned: when V(memory) is gathered
  type: dict
  sample: {available_mb: 20112, total_mb: 23800}
addresses:
  description: The node's own IPv4 and IPv6 addresses (loopback included).
  returned: when V(addresses) is gathered
  type: list
  elements: str
  sample: [127.0.0.1, 192.168.1.20, "::1"]
system:
  description:
    - C(machine) (C(uname -m) - C(aarch64), C(x86_64), ...) and C(python) - the interpreter that runs the modules
      (C(executable), C(version)) and C(modules), per Python module the roles' modules import on the node
      (C(requests), which the C(community.docker) modules need), C(found), C(version) and C(error) (why it did not
      import).
  returned: when V(system) is gathered
  type: dict
  version_added: 0.4.0
  sample:
    machine: aarch64
    python:
      executable: /usr/bin/python3
      version: 3.11.2
      modules:
        requests: {found: true, version: 2.28.1, error: null}
source:
  description:
    - What the source install method needs of the node -- C(systemd) (it is the init system), C(python) (C(version)
      of the interpreter, C(venv) whether it has the venv module), C(venv) (C(exists), C(packages) installed, by
      name), C(wheelhouse) (C(exists), C(files)), C(files) (each version file's text, null when missing) and
      C(units) (per unit C(exists), C(managed), C(active), C(restarting), C(previous), C(digest)); with C(git)
      asked for, C(git) (C(path) null when there is none, C(version)).
  returned: when V(source) is gathered
  type: dict
  version_added: 0.3.0
units:
  description:
    - Every systemd unit of this collection on the node (its file in C(/etc/systemd/system) carries the
      C(X-Ascend-Vllm-Managed-By=ascend.vllm) line), whatever the install method, by name - C(active), C(restarting),
      C(chips) (its C(ASCEND_RT_VISIBLE_DEVICES)) and C(port) (its command's C(--port)). A run whose plan no
      longer has one stops and removes it.
  returned: when V(units) is gathered
  type: dict
  version_added: 0.4.0
serving:
  description:
    - Per instance of O(serving) that was asked (it ran with one of its digests) - C(digest) (the one it carries),
      C(state) (V(ready) when it answered both reads), C(task) and C(error) (the check that failed), C(models).
  returned: when V(serving) is gathered
  type: dict
  version_added: 0.3.0
manifests:
  description:
    - Per reference of O(manifests) what its registry says the tag points to; C(digest) is the manifest digest
      (C(Docker-Content-Digest)), C(children) the platform manifests when that is an index, C(status) the HTTP
      status and C(error) why there is no digest (no answer, no such tag).
  returned: when V(manifests) is gathered
  type: dict
  sample:
    quay.io/ascend/vllm-ascend:v0.23.0-310p:
      digest: sha256:4f1c...
      children: []
      status: 200
      error: null
problems:
  description: With O(checks), one C({check, msg, fix}) per problem of the node, in the order the checks run; empty
    when the node is ready. Also set as the fact C(npu_check_problems).
  returned: with O(checks)
  type: list
  elements: dict
  version_added: 0.3.0
  sample:
    - check: devices
      msg: 'vllm_serve_chips: /dev/davinci1 is missing'
      fix: 'the driver is not loaded or the chip id is wrong: check `npu-smi info` and `ls /dev/davinci*`, ...'
result:
  description:
    - With O(checks), what the node has, for the roles that plan with it (C(npu_check_result)) - C(platform),
      C(profile), C(driver_version), C(firmware_versions), C(versions), C(npu_smi_version), C(chip_count),
      C(docker_version), C(machine) (the node's C(uname -m)), C(chip_free_mb) and C(chip_total_mb) (per instance), C(own_running), C(image_present),
      C(disk), C(rc_mode), C(host_memory_available_mb) (after a page-cache drop, measured again), C(images),
      C(image_ids), C(paths) (C(exists), C(isdir), C(isreg) of the C(paths) of O(checks)) and C(containers).
    - Also set as the fact C(npu_check_result).
  returned: with O(checks)
  type: dict
  version_added: 0.3.0
drop_page_cache:
  description: With O(checks), RC mode and host memory is short, so a page-cache drop may help (it ran when
    RV(changed) is true).
  returned: with O(checks)
  type: bool
  version_added: 0.3.0
summary:
  description: With O(checks), one line on what the node has (driver, firmware, npu-smi, chips, Docker, free chip
    memory per instance, the number of problems).
  returned: with O(checks)
  type: str
  version_added: 0.3.0
  sample: 'atlas_300i_duo: driver 25.2.0, firmware 7.7.0.6.236, npu-smi 25.2.0, 2 chip(s), Docker 20.10.24+dfsg1, ...'
report:
  description: With O(checks), the failure message listing every problem with its fix (its first line counts them
    and names the host).
  returned: with O(checks)
  type: str
  version_added: 0.3.0
changed:
  description: Whether the page-cache drop of O(checks) ran and worked; false otherwise (the module only reads).
  returned: always
  type: bool
'''

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.ascend.vllm.plugins.module_utils.node import DRIVER_VERSION_FILE
from ansible_collections.ascend.vllm.plugins.module_utils.node._node_gather import SUBSETS, gather_node
from ansible_collections.ascend.vllm.plugins.module_utils.node._node_docker import engine_host
from ansible_collections.ascend.vllm.plugins.module_utils.node._node_source import gather_source
from ansible_collections.ascend.vllm.plugins.module_utils.serve._ready import (
    check_serving, found_serving, serving_probe)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            checks=dict(type='dict'),
            paths=dict(type='list', elements='str', default=[]),
            npu_smi_path=dict(type='str', default=''),
            driver_version_file=dict(type='path', default=DRIVER_VERSION_FILE),
            containers=dict(type='list', elements='str', default=[]),
            images=dict(type='list', elements='str', default=[]),
            ports=dict(type='list', elements='int', default=[]),
            probe_timeout=dict(type='float', default=1.0),
            docker_host=dict(type='str'),
            manifests=dict(type='list', elements='str', default=[]),
            registry_timeout=dict(type='float', default=10.0),
            source=dict(type='dict'),
            serving=dict(type='list', elements='dict', default=[], options=dict(
                name=dict(type='str', required=True),
                service=dict(type='bool', default=False),
                digests=dict(type='list', elements='str', default=[], no_log=False),
                url=dict(type='str', required=True),
                served_model_name=dict(type='str', required=True),
                api_key=dict(type='str', no_log=True),
            )),
            gather=dict(type='list', elements='str', choices=list(SUBSETS) + ['manifests', 'source', 'serving'],
                        default=list(SUBSETS)),
        ),
        supports_check_mode=True,
    )
    if module.params['checks'] is not None:
        # The action plugin judges the checks on the controller and never passes them on.
        module.fail_json(msg='ascend.vllm.node_facts judges checks on the controller (its action plugin): '
                             'call it as a task, not as a module on a node')
    facts = gather_node(module.params, module.run_command, os.environ.get('PATH', ''), module.warn)
    if 'source' in (module.params['gather'] or []):
        facts['source'] = gather_source(module.params['source'], module.run_command)
    if 'serving' in (module.params['gather'] or []):
        found = found_serving(facts.get('containers'), (facts.get('source') or {}).get('units'))
        facts['serving'] = check_serving(module.params['serving'], found,
                                         serving_probe(engine_host(module.params['docker_host']), module.run_command))
    module.exit_json(changed=False, **facts)


if __name__ == '__main__':
    main()
