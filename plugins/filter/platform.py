# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Platform filters: the platform of a host and its profile, on the controller."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
name: platform_profile
short_description: The platform profile of a host, or the problems that stop it
version_added: 0.1.0
description:
  - Resolves a platform name (built in, or described in inventory with O(spec)) and its field
    overrides into the profile every role reads (devices, mounts, shm size, image suffix, allowed
    TP sizes, RC mode). Runs on the controller; no host is contacted.
  - Returns C(profile) (null when it cannot be resolved) and C(problems) in the shape of the
    preflight report (C(check), C(msg), C(fix)), naming the inventory variables in O(names).
author:
  - ascend.vllm maintainers (!UNKNOWN)
positional: overrides, spec, names
options:
  _input:
    description: The platform name, normally C(ascend_vllm_platform).
    type: str
    required: true
  overrides:
    description: Profile fields to replace (C(ascend_vllm_platform_overrides)).
    type: dict
  spec:
    description: The description of a platform that is not built in (C(ascend_vllm_platform_spec)).
    type: dict
  names:
    description: The variables to name in problems, keyed C(platform), C(platform_overrides), C(platform_spec).
    type: dict
'''

EXAMPLES = r'''
- name: Resolve the platform of this host
  ansible.builtin.set_fact:
    platform: >-
      {{ ascend_vllm_platform | ascend.vllm.platform_profile(ascend_vllm_platform_overrides | default({}),
                                                              ascend_vllm_platform_spec | default(none)) }}
'''

RETURN = r'''
_value:
  description: C(profile) (dict or null) and C(problems) (list of dicts with C(check), C(msg), C(fix)).
  type: dict
'''


from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.platforms import (
    platform_from_groups, profile_names, profile_verdict)

DEFAULT_NAMES = {
    'platform': 'ascend_vllm_platform',
    'platform_overrides': 'ascend_vllm_platform_overrides',
    'platform_spec': 'ascend_vllm_platform_spec',
}


def platform_profile(name, overrides=None, spec=None, names=None):
    """{'profile': dict or None, 'problems': [...]} for a platform name, its overrides and spec."""
    variables = dict(DEFAULT_NAMES)
    variables.update(names or {})
    return profile_verdict(name, overrides, spec, variables)


def platform_group(group_names, spec_names=None):
    """The built-in (or inventory-defined) platform named by one of the host's groups, or ''."""
    if isinstance(spec_names, str):
        spec_names = [spec_names]
    return platform_from_groups(group_names, spec_names or ())


def platform_names(_unused=None):
    """The built-in platform names, sorted."""
    return profile_names()


class FilterModule(object):
    def filters(self):
        return {
            'platform_profile': platform_profile,
            'platform_group': platform_group,
            'platform_names': platform_names,
        }
