# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
name: upgrade_steps
short_description: Which instances of a host roll one at a time, and which start together
version_added: 0.2.0
description:
  - C(roll) - the instances whose container serves now, in the order of the instance list, each with C(rolling)
    (C(backend), C(server), C(peers)) - where the balancer carries it. vllm_serve drains, replaces, checks and puts back
    each before the next.
  - C(fresh) - instances with no serving container (first deploy, stopped, crash-looping); created together and then
    waited for.
  - Without npu_check's view of the node every instance rolls.
author:
  - ascend.vllm maintainers (!UNKNOWN)
positional: frontends, containers
options:
  _input:
    description: The instance plan (C(ascend.vllm.instance_plan)).
    type: list
    elements: dict
    required: true
  frontends:
    description: The frontends of C(ascend.vllm.balancer_plan) (empty without a balancer).
    type: list
    elements: dict
  containers:
    description: npu_check's view of the node's containers by name (C(npu_check_result.containers)); null when unread.
    type: dict
'''

EXAMPLES = r'''
- name: Roll the serving instances one by one
  ansible.builtin.include_tasks: rolling_instance.yml
  loop: "{{ (plan | ascend.vllm.upgrade_steps(balancer.frontends, npu_check_result.containers)).roll }}"
'''

RETURN = r'''
_value:
  description: C({roll, fresh}), two lists of plan entries.
  type: dict
'''

from ansible_collections.ascend.vllm.plugins.module_utils.serve._rolling import upgrade_steps as _steps


def upgrade_steps(plan, frontends=None, containers=None):
    """{roll, fresh}."""
    return _steps(plan, frontends, containers)


class FilterModule(object):
    """Rolling upgrade order of the vllm_serve role."""

    def filters(self):
        return {'upgrade_steps': upgrade_steps}
