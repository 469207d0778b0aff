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
  - C(same) - serving instances whose container already is what the plan asks for (with O(run) and O(variables)).
    The digest label C(ascend.vllm.spec) the container was created with equals the plan's, it runs the image the
    reference names on the node, and no replacement was left half-done. Nothing is replaced; readiness and the smoke
    tests still follow.
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
    description: The balancer frontends of the host plan (M(ascend.vllm.host_plan)) (empty without a balancer).
    type: list
    elements: dict
  containers:
    description: npu_check's view of the node's containers by name (C(npu_check_result.containers)); null when unread.
    type: dict
  run:
    description:
      - What the plan's containers would be, to find the C(same) ones - C(configs) (the vllm_config results by
        instance), C(host) (as for R(ascend.vllm.instance_container,ansible_collections.ascend.vllm.instance_container_filter)),
        C(settings) (C(container_run_restart_policy), C(_stop_timeout), C(_log_max_size), C(_log_max_file),
        C(_labels); null takes container_run's default), C(image_ids) (C(npu_check_result.image_ids)) and
        C(image_current) (false when the image was pulled or loaded in this run - the node's ids are then stale).
    type: dict
    version_added: 0.3.0
  variables:
    description: The host's variables (C(vars)), for the API key and environment secrets; needed with O(run).
    type: dict
    version_added: 0.3.0
'''

EXAMPLES = r'''
- name: Roll the serving instances one by one
  ansible.builtin.include_tasks: rolling_instance.yml
  loop: "{{ (plan | ascend.vllm.upgrade_steps(balancer.frontends, npu_check_result.containers)).roll }}"
'''

RETURN = r'''
_value:
  description: C({roll, fresh, same}), three lists of plan entries.
  type: dict
'''

import os

import yaml

from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.module_utils.serve._instances import plain
from ansible_collections.ascend.vllm.plugins.module_utils.serve._rolling import expected_containers
from ansible_collections.ascend.vllm.plugins.module_utils.serve._rolling import upgrade_steps as _steps

# container_run's own defaults: what a setting vllm_serve does not pass is when the user
# did not set it either (one source: the role's defaults file, next to plugins/).
_DEFAULTS = os.path.join(os.path.dirname(__file__), '..', '..', 'roles', 'container_run', 'defaults', 'main.yml')


def _run_defaults():
    try:
        with open(_DEFAULTS) as handle:
            return yaml.safe_load(handle) or {}
    except (IOError, OSError, yaml.YAMLError):
        return None


def upgrade_steps(plan, frontends=None, containers=None, run=None, variables=None):
    """{roll, fresh, same}."""
    if run is not None and variables is not None and not hasattr(variables, 'keys'):
        raise AnsibleFilterError('upgrade_steps: variables must be the host variables (vars), not %r'
                                 % type(variables).__name__)
    plan = plain(plan or [])
    expected = {}
    if run is not None and variables is not None and isinstance(containers, dict):
        expected = expected_containers(plan, plain(run), variables, _run_defaults())
    return _steps(plan, frontends, containers, expected)


class FilterModule(object):
    """Rolling upgrade order of the vllm_serve role."""

    def filters(self):
        return {'upgrade_steps': upgrade_steps}
