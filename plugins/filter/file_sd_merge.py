# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import annotations

DOCUMENTATION = r'''
---
name: file_sd_merge
short_description: A Prometheus file_sd file with some hosts' target groups replaced
version_added: 0.2.0
description:
  - >-
    Drops the target groups whose C(host) label is one of O(hosts), adds O(groups) and sorts by host, component and
    instance, so that a run rewrites only its own hosts' entries and teardown (O(groups) empty) removes them. Text
    that is not a list of target groups counts as an empty file.
author:
  - ascend.vllm maintainers (!UNKNOWN)
positional: hosts, groups
options:
  _input:
    description: The file's current text (empty when it does not exist yet).
    type: raw
    required: true
  hosts:
    description: The hosts whose groups are replaced.
    type: list
    elements: str
    required: true
  groups:
    description: Their new target groups (R(ascend.vllm.metrics_targets,ansible_collections.ascend.vllm.metrics_targets_filter)).
    type: list
    elements: dict
    required: true
'''

EXAMPLES = r'''
- name: Write the targets of the play's hosts
  ansible.builtin.copy:
    content: "{{ old_text | ascend.vllm.file_sd_merge(ansible_play_hosts, new_groups) | to_nice_json }}\n"
    dest: /etc/prometheus/file_sd/vllm.json
    mode: "0644"
'''

RETURN = r'''
_value:
  description: The file's target groups.
  type: list
  elements: dict
'''

from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._instances import plain
from ansible_collections.ascend.vllm.plugins.plugin_utils.fleet._metrics import file_sd_merge as merge


def file_sd_merge(existing, hosts, groups):
    """The file's target groups with those of ``hosts`` replaced by ``groups``."""
    return merge(plain(existing) if not isinstance(existing, (str, bytes)) else existing,
                 [str(host) for host in plain(hosts or [])], plain(groups or []))


class FilterModule:
    """Prometheus file_sd merging of the vllm_serve role."""

    def filters(self):
        return {'file_sd_merge': file_sd_merge}
