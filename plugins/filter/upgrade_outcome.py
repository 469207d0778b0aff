# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
name: upgrade_outcome
short_description: What a rolling upgrade does after one instance was replaced and checked
version_added: 0.2.0
description:
  - C(put_back) - set the server ready again in the balancer (it was drained, and the new or the restored container
    serves).
  - C(failed) - the new container failed; the run stops naming the instance, the cause, the rollback and what was
    not upgraded (C(msg)).
  - C(gap) - seconds without service on a host that could not drain the instance (measured on the controller from
    the replacement's start to readiness), with C(msg) saying it cannot upgrade without downtime.
author:
  - ascend.vllm maintainers (!UNKNOWN)
positional: drained, seconds, restored, host, left
options:
  _input:
    description: The instance's entry of C(vllm_serve_status).
    type: dict
    required: true
  drained:
    description: The M(ascend.vllm.balancer_server) result of the drain.
    type: dict
  seconds:
    description: Seconds from the replacement's start to readiness.
    type: float
  restored:
    description: The readiness result of the restored previous container, when one was restored.
    type: dict
  host:
    description: C(inventory_hostname).
    type: str
  left:
    description: The instances of the host not rolled yet.
    type: list
    elements: str
  check_mode:
    description: The run is in check mode (nothing was replaced), so never a failure or a rollback.
    type: bool
    default: false
  name:
    description: The container name, for the check-mode message.
    type: str
    default: ''
  error:
    description: Why the replacement failed before it could be checked (the failed task's message).
    type: str
    default: ''
'''

EXAMPLES = r'''
- name: Fail naming the instance and the cause
  ansible.builtin.fail:
    msg: "{{ outcome.msg }}"
  vars:
    outcome: "{{ status | ascend.vllm.upgrade_outcome(drained, seconds, restored, inventory_hostname, left) }}"
  when: outcome.failed
'''

RETURN = r'''
_value:
  description: C({put_back, failed, gap, msg}).
  type: dict
'''

from ansible_collections.ascend.vllm.plugins.module_utils.serve._rolling import upgrade_outcome as _outcome


def upgrade_outcome(status, drained=None, seconds=None, restored=None, host='', left=(), check_mode=False, name='',
                    error=''):
    """{put_back, failed, gap, msg}."""
    return _outcome(status, drained, seconds, restored, host, left, check_mode, name, error)


class FilterModule(object):
    """Rolling upgrade decision of the vllm_serve role."""

    def filters(self):
        return {'upgrade_outcome': upgrade_outcome}
