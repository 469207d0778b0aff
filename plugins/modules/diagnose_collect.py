#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import annotations

DOCUMENTATION = r'''
---
module: diagnose_collect
short_description: Gather what a bug report needs from an Atlas node into one archive, secrets removed
version_added: 0.3.0
description:
  - In one call on the node, writes a gzip'd tar archive (mode 0600) at O(dest) holding, under O(name)C(/),
    C(npu-smi info) and C(npu-smi info -t board -i ID) for every NPU id it lists, the driver's C(version.info) and
    C(/etc/ascend_install.info), O(plan) (the host plan the controller computed), C(docker inspect) and the last
    O(log_lines) log lines of every container labelled C(ascend.vllm.managed-by=ascend.vllm) (instances, balancer,
    a kept C(<name>-previous)), the engine's version and a summary of every container, the unit file, C(systemctl
    status) and the last O(log_lines) journal lines of every systemd unit the collection wrote (the source install
    method, M(ascend.vllm.vllm_service)), and the files under O(log_paths) (newest first, each cut to its last
    O(max_file_bytes), O(max_total_bytes) in all).
  - >-
    Every byte is redacted first - the values in O(secrets) wherever they occur; the values of environment
    variables, keys, options and C(name=value) text whose name says secret (C(VLLM_API_KEY), C(*_KEY), C(*TOKEN*),
    C(*SECRET*), C(*PASSWORD*), C(--api-key)); C(Authorization: Bearer) headers; credentials in URLs.
  - A source that fails or is absent is a line of C(manifest.json) in the archive, not a failure; C(summary.json)
    has the NPU ids, driver version, containers and problems.
  - Playbook C(playbooks/diagnose.yml) fetches the archive and bundles every host's with M(ascend.vllm.diagnose_bundle).
extends_documentation_fragment:
  - ascend.vllm.module
  - ansible.builtin.action_common_attributes
  - ascend.vllm.docker_engine
options:
  dest:
    description: Path of the archive on the node; empty writes it into a new temporary directory (see RV(path)).
    type: path
    default: ''
  name:
    description: Top directory inside the archive (the inventory host name).
    type: str
    required: true
  plan:
    description: The host plan to include (instances, argv, env), as the controller computed it; redacted again here.
    type: raw
  secrets:
    description: Values to remove wherever they occur (the configured API keys). Never returned or logged.
    type: list
    elements: str
    default: []
  npu_smi_path:
    description: The npu-smi to run; empty looks on E(PATH) and where the deployment guide mounts it.
    type: str
    default: ''
  driver_version_file:
    description: The driver's version.info.
    type: path
    default: /usr/local/Ascend/driver/version.info
  log_lines:
    description: Log lines of each container.
    type: int
    default: 500
  log_paths:
    description:
      - Files and directories to copy. The default is the logs vllm_serve saved of failed containers
        (C(/var/log/ascend-vllm)), the Ascend host logs (C(/var/log/npu)), the CANN application logs of root
        (C(/root/ascend/log)), C(/etc/slog.conf) and the NPU Exporter's log directory (C(/var/log/mindx-dl/npu-exporter)).
    type: list
    elements: path
  max_file_bytes:
    description: Bytes kept of one copied file (its end).
    type: int
    default: 2097152
  max_total_bytes:
    description: Bytes of copied files in all; the rest are listed as skipped.
    type: int
    default: 33554432
attributes:
  check_mode:
    details: The module only reads; the archive it writes is its output, in check mode too.
  diff_mode:
    details:
      - The archive is the module's output, not a change to the node (by default in a new temporary directory, which
        C(playbooks/diagnose.yml) removes once fetched; C(changed) is false); RV(files) lists what it holds.
notes:
  - Run it as root (C(become)) to read the Docker socket and the log directories.
seealso:
  - module: ascend.vllm.diagnose_bundle
'''

EXAMPLES = r'''
- name: Collect the node's diagnostics
  ascend.vllm.diagnose_collect:
    name: "{{ inventory_hostname }}"
    secrets: ["{{ vault_vllm_api_key }}"]
  register: diag
  no_log: true

- name: Bring the archive to the controller
  ansible.builtin.fetch:
    src: "{{ diag.path }}"
    dest: "/tmp/diag/{{ inventory_hostname }}.tar.gz"
    flat: true
'''

RETURN = r'''
path:
  description: The archive on the node.
  returned: success
  type: str
  sample: /tmp/ascend-vllm-diagnose-k2j3/duo1.tar.gz
files:
  description: The archive's members, without the top directory.
  returned: success
  type: list
  elements: str
  sample: [npu-smi/info.txt, npu-smi/board-2.txt, driver/version.info, docker/vllm-ascend.inspect.json]
summary:
  description: NPU ids, driver version, our containers and the sources that could not be read (C(problems)).
  returned: success
  type: dict
'''

import os
import tempfile

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.ascend.vllm.plugins.module_utils.node import DRIVER_VERSION_FILE
from ansible_collections.ascend.vllm.plugins.module_utils.serve._diagnose import (
    LOG_LINES, MAX_FILE_BYTES, MAX_TOTAL_BYTES, Collector, write_archive)
from ansible_collections.ascend.vllm.plugins.module_utils.node._node_docker import DockerApi, engine_host

ARGUMENT_SPEC = dict(
    dest=dict(type='path', default=''),
    name=dict(type='str', required=True),
    plan=dict(type='raw'),
    secrets=dict(type='list', elements='str', default=[], no_log=True),
    npu_smi_path=dict(type='str', default=''),
    driver_version_file=dict(type='path', default=DRIVER_VERSION_FILE),
    log_lines=dict(type='int', default=LOG_LINES),
    log_paths=dict(type='list', elements='path'),
    max_file_bytes=dict(type='int', default=MAX_FILE_BYTES),
    max_total_bytes=dict(type='int', default=MAX_TOTAL_BYTES),
    docker_host=dict(type='str'),
)


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    params = module.params
    for option in ('log_lines', 'max_file_bytes', 'max_total_bytes'):
        if params[option] <= 0:
            module.fail_json(msg='%s=%s: must be more than 0' % (option, params[option]))
    collector = Collector(params, module.run_command, DockerApi(engine_host(params['docker_host'])))
    summary = collector.run(params['plan'])
    dest = params['dest'] or os.path.join(tempfile.mkdtemp(prefix='ascend-vllm-diagnose-'), 'diagnose.tar.gz')
    try:
        write_archive(dest, params['name'], collector.files)
    except OSError as exc:
        module.fail_json(msg='Writing the diagnostics archive %s failed: %s' % (dest, exc))
    module.exit_json(changed=False, path=dest, files=sorted(collector.files), summary=summary)


if __name__ == '__main__':
    main()
