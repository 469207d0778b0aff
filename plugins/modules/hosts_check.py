#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import annotations

DOCUMENTATION = r'''
---
module: hosts_check
short_description: Fail a run that matches none of the collection's hosts, and name look-alike platform groups
version_added: 0.4.0
description:
  - >-
    Asks the inventory (Ansible's own pattern matching, with the run's C(--limit)) which hosts O(pattern) matches:
    the hosts every later play of the collection runs on. When it matches none, the task fails with the pattern,
    the inventory's groups and the platform groups expected, instead of a run whose plays all print
    C(skipping: no hosts matched) and exit 0.
  - >-
    Names every inventory group that looks like a platform group but is not one (C(atlas_300i_duo_prod),
    C(Atlas_300I_DUO), C(atlas300iduo)) and holds hosts the run leaves out, with the platform group it looks like
    and the fix; a warning when other hosts are served, part of the failure when none is.
  - >-
    Runs on the controller (an action plugin); no host is contacted. The first play of every playbook
    (C(playbooks/hosts.yml)) runs it once per run.
extends_documentation_fragment:
  - ascend.vllm.module.action
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.flow
options:
  pattern:
    description: The host pattern the plays target, normally C(__ascend_vllm_targets) (C(playbooks/vars/targets.yml)).
    type: str
    required: true
  platform_groups:
    description: The platform groups, normally C(__ascend_vllm_platform_groups).
    type: list
    elements: str
    required: true
  given:
    description: The user gave O(pattern) (C(ascend_vllm_hosts)); the fix then names that variable.
    type: bool
    default: false
attributes:
  action:
    details: Only the action plugin exists; the inventory is the controller's.
  check_mode:
    details: Only judges, so check mode gives the same result.
  platform:
    platforms: all
seealso:
  - module: ascend.vllm.host_plan
'''

EXAMPLES = r'''
- name: Hosts | Check that the run targets hosts of the collection
  ascend.vllm.hosts_check:
    pattern: "{{ __ascend_vllm_targets }}"
    platform_groups: "{{ __ascend_vllm_platform_groups }}"
    given: "{{ ascend_vllm_hosts is defined }}"
  run_once: true
'''

RETURN = r'''
hosts:
  description: The hosts O(pattern) matches, with the run's C(--limit), sorted.
  returned: always
  type: list
  elements: str
problems:
  description: Each problem as C({check, msg, fix}); empty when the run targets hosts.
  returned: always
  type: list
  elements: dict
lookalikes:
  description: Each look-alike group whose hosts the run leaves out, as C({check, msg, fix}).
  returned: always
  type: list
  elements: dict
'''

from ansible_collections.ascend.vllm.plugins.module_utils._controller_only import controller_only

# The action plugin's accepted arguments too.
ARGUMENT_SPEC = {
    'pattern': {'type': 'str', 'required': True},
    'platform_groups': {'type': 'list', 'elements': 'str', 'required': True},
    'given': {'type': 'bool', 'default': False},
}


def main():
    # The inventory is the controller's: only the action plugin can read it.
    controller_only('hosts_check', ARGUMENT_SPEC)


if __name__ == '__main__':
    main()
