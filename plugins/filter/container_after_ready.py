# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
name: container_after_ready
short_description: What happens to a kept container once its replacement was checked
version_added: 0.2.0
description:
  - V(drop) - the new container serves and passed the smoke tests; the kept C(<name>-previous) is removed.
  - V(restore) - the new container failed (crash, timeout, smoke test); it is removed and the kept one is renamed
    back, started and checked again.
  - V(none) - nothing was kept for this instance, or check mode.
author:
  - ascend.vllm maintainers (!UNKNOWN)
positional: failed, check_mode
options:
  _input:
    description: The kept container's name (C(container_run_previous)); empty when nothing was kept.
    type: str
    required: true
  failed:
    description: Whether the new container failed readiness or the smoke tests.
    type: bool
    required: true
  check_mode:
    description: C(ansible_check_mode).
    type: bool
    default: false
'''

EXAMPLES = r'''
- name: Put the previous container back
  ansible.builtin.include_tasks: previous.yml
  when: (kept | ascend.vllm.container_after_ready(failed, ansible_check_mode)) == 'restore'
'''

RETURN = r'''
_value:
  description: V(drop), V(restore) or V(none).
  type: str
'''

from ansible_collections.ascend.vllm.plugins.module_utils.serve._keep import after_ready


def container_after_ready(previous, failed, check_mode=False):
    """drop, restore or none."""
    return after_ready(previous, failed, check_mode)


class FilterModule(object):
    """After-readiness decision of the vllm_serve role."""

    def filters(self):
        return {'container_after_ready': container_after_ready}
