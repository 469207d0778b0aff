# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
name: serve_summary
short_description: One summary line per planned vLLM instance
version_added: 0.1.0
description:
  - >-
    C(NAME: MODEL as SERVED_NAME in CONTAINER on chips 0,1, port 8080: STATE), followed by the smoke test's answer
    when there is one. An instance without a status is C(not verified) (C(check mode: not verified) in check mode).
  - >-
    With O(balancer), one line per balancer frontend follows (C(balancer: SERVED at http://ADDRESS:PORT across a, b)),
    or one saying why the host runs none (C(balancer: off: ...)).
  - >-
    With O(exposure), a last line starting C(UNAUTHENTICATED:) names the instances published beyond the node without
    an API key because C(vllm_serve_allow_unauthenticated) is true, on every run.
author:
  - ascend.vllm maintainers (!UNKNOWN)
positional: status, check_mode, exposure, balancer
options:
  _input:
    description: The plan (C(__vllm_serve_plan)).
    type: list
    elements: dict
    required: true
  status:
    description: C(vllm_serve_status) of the host.
    type: dict
  check_mode:
    description: Whether the run is in check mode (C(ansible_check_mode)).
    type: bool
    default: false
  exposure:
    description: C(publish_address) and C(allow_unauthenticated) of the host (C(vllm_serve_publish_address),
      C(vllm_serve_allow_unauthenticated)).
    type: dict
  balancer:
    description: C(balancer_status) of the host, as the balancer role records it (C(enabled), C(why), C(frontends)).
    type: dict
    version_added: 0.3.0
'''

EXAMPLES = r'''
- name: Show what this host serves
  ansible.builtin.debug:
    msg: "{{ __vllm_serve_plan | ascend.vllm.serve_summary(vllm_serve_status | default({}), ansible_check_mode) }}"
'''

RETURN = r'''
_value:
  description: One line per instance, then the balancer's lines.
  type: list
  elements: str
'''

from ansible_collections.ascend.vllm.plugins.module_utils.serve._instances import plain
from ansible_collections.ascend.vllm.plugins.module_utils.serve._serve import host_summary


def serve_summary(plan, status=None, check_mode=False, exposure=None, balancer=None):
    """The summary lines of a host's instances, then of its balancer."""
    return host_summary(plain(plan or []), plain(status or {}), bool(check_mode), plain(exposure or {}),
                        plain(balancer or {}))


class FilterModule(object):
    """Summary lines of the vllm_serve role."""

    def filters(self):
        return {'serve_summary': serve_summary}
