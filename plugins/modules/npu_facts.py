#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import annotations

DOCUMENTATION = r'''
---
module: npu_facts
short_description: Gather Ascend NPU chips, health, memory and processes from C(npu-smi info)
version_added: 0.1.0
description:
  - Runs C(npu-smi info) on the target and parses its table by structure into facts
    about every chip (NPU id, chip id, C(/dev/davinciN) device index, health, power,
    temperature, hugepages, AICore use, memory used/total/free) and the processes
    that hold chips.
  - Reads the driver version from the Ascend driver C(version.info) file.
  - Knows the layouts of npu-smi 22.0.4 to 25.x on Atlas 300I DUO and Atlas 200I Pro
    (310P), multi-card hosts, and the optional C(HBM-Usage) (MB) column of 910 hosts.
  - The module only reads; it never changes the host.
extends_documentation_fragment:
  - ascend.vllm.module
  - ansible.builtin.action_common_attributes
options:
  npu_smi_path:
    description:
      - Path of the C(npu-smi) binary.
      - When not set, C(npu-smi) is looked up on E(PATH), then at C(/usr/local/bin/npu-smi)
        and C(/usr/local/sbin/npu-smi), the two places the deployment guide mounts it from
        on Atlas 300I DUO and Atlas 200I Pro.
      - When set and missing, those places are looked at too, so that the failure says where
        C(npu-smi) is (returned as C(found)) or every place it is not (C(searched)).
    type: path
  output:
    description:
      - Text of an C(npu-smi info) run to parse instead of running C(npu-smi).
      - For tests and for debugging a capture taken elsewhere; C(npu-smi) is not looked up.
    type: str
  driver_version_file:
    description:
      - The Ascend driver C(version.info) file to read the driver version from.
      - A missing file gives a null C(driver_version), not an error; a file that is not
        C(key=value) lines gives a warning and a null C(driver_version).
    type: path
    default: /usr/local/Ascend/driver/version.info
  gone_pids:
    description:
      - Host pids that should no longer hold a chip (the processes of removed containers). With O(wait),
        C(npu-smi info) is read again every half second until it lists none of them.
    type: list
    elements: int
    default: []
  wait:
    description:
      - Seconds to wait for O(gone_pids) to leave the process table; V(0) reads once.
      - The pids still listed at the end are returned in RV(still_listed); the module does not fail on them.
    type: float
    default: 0
attributes:
  check_mode:
    details: The module only reads, so it runs in check mode as in a normal run.
  facts:
    description: Action returns an C(ansible_facts) dictionary that will update existing host facts.
    support: full
  platform:
    details: Linux hosts with the Ascend driver (npu-smi) installed.
notes:
  - C(npu-smi) usually needs root and access to C(/dev/davinci_manager); run the task with
    C(become) set to V(true) when connecting as another user.
  - The table is read by its structure (rows split on C(|), header names mapped to values),
    so column widths do not matter. A line that does not fit the layout makes the module fail,
    quoting that line and its number, rather than return wrong facts.
  - With O(output) set nothing is run, so the module also works on hosts without an NPU.
'''

EXAMPLES = r'''
- name: Gather NPU facts
  ascend.vllm.npu_facts:
  become: true

- name: Require healthy chips with enough free memory
  ansible.builtin.assert:
    that:
      - ansible_facts.ascend_npu.chip_count >= 1
      - ansible_facts.ascend_npu.chips | rejectattr('health', 'equalto', 'OK') | list | length == 0
      - ansible_facts.ascend_npu.chips | map(attribute='memory_free_mb') | min >= 30000
    fail_msg: "NPU chips are unhealthy or busy: {{ ansible_facts.ascend_npu.chips }}"

- name: Use npu-smi from a non-standard place
  ascend.vllm.npu_facts:
    npu_smi_path: /opt/ascend/bin/npu-smi

- name: Parse a capture taken on another host (no npu-smi needed)
  ascend.vllm.npu_facts:
    output: "{{ lookup('ansible.builtin.file', 'captures/node1-npu-smi-info.txt') }}"
    driver_version_file: /nonexistent
  register: __npu
'''

RETURN = r'''
still_listed:
  description: The pids of O(gone_pids) that npu-smi still lists when the module returns.
  returned: success
  type: list
  elements: int
  sample: []
npu:
  description: The same dictionary as RV(ansible_facts.ascend_npu), for use with C(register).
  returned: success
  type: dict
  sample:
    chip_count: 1
ansible_facts:
  description: Facts added to the host.
  returned: success
  type: complex
  contains:
    ascend_npu:
      description: What C(npu-smi info) and the driver report.
      type: complex
      contains:
        npu_smi_version:
          description: Version printed in the npu-smi title row.
          type: str
          sample: 25.2.0
        driver_version:
          description: C(Version) (else C(package_version)) from O(driver_version_file); null when the file is missing.
          type: str
          sample: 24.1.rc2.2
        driver_info:
          description: Every C(key=value) of O(driver_version_file); empty when it is missing.
          type: dict
          sample:
            Version: 24.1.rc2.2
            package_version: 24.1.rc2.2
        npu_smi_path:
          description: The npu-smi binary that was run; null when O(output) was given.
          type: str
          sample: /usr/local/bin/npu-smi
        chip_count:
          description: Number of chips listed (an Atlas 300I DUO card has 2).
          type: int
          sample: 2
        process_table_present:
          description: Whether the output had a process table (some outputs end after the chips).
          type: bool
          sample: true
        chips:
          description: One entry per chip, in npu-smi order.
          type: list
          elements: dict
          contains:
            npu_id:
              description: NPU (card) id; not contiguous on multi-card hosts (for example 2, 5, 224).
              type: int
              sample: 2
            chip_id:
              description: Chip index on the card.
              type: int
              sample: 0
            device_id:
              description: Device index, the N of C(/dev/davinciN); null when npu-smi has no Device column.
              type: int
              sample: 0
            name:
              description: Chip name.
              type: str
              sample: 310P3
            health:
              description: Health as printed (V(OK), V(Warning), V(Alarm), V(Critical), ...).
              type: str
              sample: OK
            power_w:
              description: Power in watts; null when npu-smi prints C(NA) (usual on 310P).
              type: float
              sample: 12.8
            temperature_c:
              description: Temperature in degrees Celsius.
              type: int
              sample: 51
            hugepages_used:
              description: Hugepages in use (pages); null when not reported.
              type: int
              sample: 0
            hugepages_total:
              description: Hugepages in total (pages); null when not reported.
              type: int
              sample: 0
            bus_id:
              description: PCI bus id.
              type: str
              sample: "0000:01:00.0"
            aicore_percent:
              description: AICore utilisation in percent.
              type: int
              sample: 0
            memory_used_mb:
              description: Chip memory in use, MB.
              type: int
              sample: 1529
            memory_total_mb:
              description: Chip memory in total, MB.
              type: int
              sample: 44280
            memory_free_mb:
              description: Chip memory free, MB (total minus used).
              type: int
              sample: 42751
            hbm_used_mb:
              description: HBM in use, MB; only present when npu-smi prints an C(HBM-Usage) (MB) column (910).
              type: int
              returned: when npu-smi reports HBM
              sample: 3387
            hbm_total_mb:
              description: HBM in total, MB; only present when npu-smi prints an C(HBM-Usage) (MB) column (910).
              type: int
              returned: when npu-smi reports HBM
              sample: 65536
        processes:
          description: Processes holding chips; empty when none (or no process table).
          type: list
          elements: dict
          contains:
            npu_id:
              description: NPU id the process runs on.
              type: int
              sample: 6
            chip_id:
              description: Chip index on that NPU.
              type: int
              sample: 1
            device_id:
              description: Device index of that chip (C(/dev/davinciN)); null when the chip is not listed.
              type: int
              sample: 1
            pid:
              description: Process id.
              type: int
              sample: 293029
            name:
              description: Process name.
              type: str
              sample: python3.11
            memory_mb:
              description: Chip memory the process holds, MB.
              type: int
              sample: 6612
'''

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.ascend.vllm.plugins.module_utils.node import DRIVER_VERSION_FILE
from ansible_collections.ascend.vllm.plugins.module_utils.node._node_npu import (
    NpuSmiError, locate_npu_smi, npu_facts_from, read_until_gone, run_npu_smi)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            npu_smi_path=dict(type='path'),
            output=dict(type='str'),
            driver_version_file=dict(type='path', default=DRIVER_VERSION_FILE),
            gone_pids=dict(type='list', elements='int', default=[]),
            wait=dict(type='float', default=0),
        ),
        supports_check_mode=True,
    )
    params = module.params

    def read():
        if params['output'] is not None:
            path, text = None, params['output']
        else:
            path = locate_npu_smi(params['npu_smi_path'], os.environ.get('PATH', ''))
            text = run_npu_smi(module.run_command, path)
        return npu_facts_from(text, path, params['driver_version_file'], module.warn)

    try:
        facts, held = read_until_gone(read, params['gone_pids'], params['wait'] if params['output'] is None else 0)
    except NpuSmiError as exc:
        module.fail_json(msg=exc.msg, **exc.details)
    module.exit_json(changed=False, ansible_facts=dict(ascend_npu=facts), npu=facts, still_listed=held)


if __name__ == '__main__':
    main()
