# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
name: node_problems
short_description: The preflight problems of a node, judged on the controller
version_added: 0.1.0
description:
  - Judges what M(ascend.vllm.node_facts) read on a node against the platform profile, the planned
    instances and the C(npu_check) settings - the platform, driver files, device nodes, mounted host
    files, Docker Engine, npu-smi, chip health, processes on the chips, the platform's chips per
    card, serving ports, disk space for the image and RC-mode host memory, and the driver and each card's
    firmware against the image's version data (docs/versions.md).
  - Returns every problem in the shape of the preflight report (C(check), C(msg), C(fix)), in the
    order the checks run, and the C(npu_check_result) the other roles plan with.
author:
  - ascend.vllm maintainers (!UNKNOWN)
positional: settings
options:
  _input:
    description: The registered result of M(ascend.vllm.node_facts).
    type: dict
    required: true
  settings:
    description:
      - C(host), C(platform), C(profile) (resolved, empty when it cannot be), C(profile_given),
        C(platform_problems) (of P(ascend.vllm.platform_profile#filter)), C(instances), C(driver_dir),
        C(driver_version_file), C(driver_min_version), C(image_tag), C(mount_sources), C(docker_min_version),
        C(ports), C(disk_min_free_gb), C(images), C(rc_memory_margin_mb), C(paths), and after a
        page-cache drop C(drop) (its registered result) and C(memory_again) (node_facts with
        C(gather=[memory])).
    type: dict
    required: true
'''

EXAMPLES = r'''
- name: Judge the node
  ansible.builtin.set_fact:
    verdict: "{{ node | ascend.vllm.node_problems(settings) }}"
'''

RETURN = r'''
_value:
  description: The judgement.
  type: dict
  contains:
    problems:
      description: One C({check, msg, fix}) per problem; empty when the node is ready.
      type: list
      elements: dict
    result:
      description: C(npu_check_result) (versions, chip count, free and total chip memory per instance, own running
        containers, image presence, disk, RC mode, host memory, images, paths, containers).
      type: dict
    drop_page_cache:
      description: RC mode and the host memory is short, so a page-cache drop may help.
      type: bool
    summary:
      description: One line on what the node has.
      type: str
    report:
      description: The failure message listing every problem with its fix.
      type: str
'''

from ansible_collections.ascend.vllm.plugins.module_utils.node._node_problems import (
    node_problems as _node_problems, report, summary)


def node_problems(facts, settings):
    """{problems, result, drop_page_cache, summary, report} of a node."""
    out = _node_problems(facts, settings)
    out['summary'] = summary(out['result'], out['problems'])
    out['report'] = report(settings.get('host', ''), out['problems'])
    return out


class FilterModule(object):
    def filters(self):
        return {'node_problems': node_problems}
