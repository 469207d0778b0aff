# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
name: role_argument_specs
short_description: The argument specs of every role in a roles directory
version_added: 0.1.0
description:
  - Reads C(meta/argument_specs.yml) of each role under a directory (on the controller), for the filter
    C(ascend.vllm.check_role_vars).
author:
  - ascend.vllm maintainers (!UNKNOWN)
options:
  _input:
    description: The roles directory, e.g. C(role_path | dirname).
    type: path
    required: true
'''

EXAMPLES = r'''
- name: Check the names and types of this host's variables
  ansible.builtin.set_fact:
    var_problems: "{{ hostvars[inventory_hostname] | ascend.vllm.check_role_vars(role_path | dirname | ascend.vllm.role_argument_specs) }}"
'''

RETURN = r'''
_value:
  description: Role name to the parsed C(meta/argument_specs.yml) document, for every role that has one.
  type: dict
'''

import os

import yaml

from ansible.errors import AnsibleFilterError


def role_argument_specs(roles_dir):
    """{role: argument_specs document} for each role directory with meta/argument_specs.yml."""
    specs = {}
    roles_dir = str(roles_dir)
    if not os.path.isdir(roles_dir):
        raise AnsibleFilterError('role_argument_specs: %s is not a directory' % roles_dir)
    for role in sorted(os.listdir(roles_dir)):
        path = os.path.join(roles_dir, role, 'meta', 'argument_specs.yml')
        if os.path.isfile(path):
            with open(path) as handle:
                specs[role] = yaml.safe_load(handle)
    if not specs:
        raise AnsibleFilterError('role_argument_specs: no role under %s has meta/argument_specs.yml' % roles_dir)
    return specs


class FilterModule(object):
    """Argument specs of the collection's roles."""

    def filters(self):
        return {'role_argument_specs': role_argument_specs}
