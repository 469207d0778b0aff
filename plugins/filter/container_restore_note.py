# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
name: container_restore_note
short_description: What a failure message says about the kept container that was put back
version_added: 0.2.0
description:
  - Empty unless the container kept before a change was restored (O(_input) is V(restore)); then whether the restored
    container serves again (its readiness and smoke tests passed) or why it does not, and that a crashed one is
    stopped.
author:
  - ascend.vllm maintainers (!UNKNOWN)
positional: restored
options:
  _input:
    description: The answer of R(ascend.vllm.container_after_ready,ansible_collections.ascend.vllm.container_after_ready_filter).
    type: str
    required: true
  restored:
    description: The M(ascend.vllm.vllm_ready) result of the restored container; null when it was not checked.
    type: raw
'''

EXAMPLES = r'''
- name: Fail naming the outcome
  ansible.builtin.fail:
    msg: "The change failed.{{ after | ascend.vllm.container_restore_note(restored) }}"
'''

RETURN = r'''
_value:
  description: One or two sentences, each with a leading space; empty when nothing was restored.
  type: str
'''

from ansible_collections.ascend.vllm.plugins.module_utils.serve._instances import plain
from ansible_collections.ascend.vllm.plugins.module_utils.serve._keep import restore_note


def container_restore_note(after, restored=None):
    """The restore sentence of the failure message."""
    return restore_note(after, plain(restored))


class FilterModule(object):
    """Restore note of the vllm_serve role."""

    def filters(self):
        return {'container_restore_note': container_restore_note}
