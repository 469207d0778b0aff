# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Platform filters: the platform of a host and its profile, on the controller."""

from __future__ import annotations

DOCUMENTATION = r'''
# This file holds three filters; ansible-doc reads one DOCUMENTATION per file, so each is
# documented beside it: platform_profile.yml, platform_group.yml, platform_names.yml.
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


def platform_profile(name, overrides=None, spec=None, names=None):
    """{'profile': dict or None, 'problems': [...]} for a platform name, its overrides and spec."""
    return profile_verdict(name, overrides, spec, names)


def platform_group(group_names, spec_names=None):
    """The built-in (or inventory-defined) platform named by one of the host's groups, or ''."""
    if isinstance(spec_names, str):
        spec_names = [spec_names]
    return platform_from_groups(group_names, spec_names or ())


def platform_names(_unused=None):
    """The built-in platform names, sorted."""
    return profile_names()


class FilterModule:
    def filters(self):
        return {
            'platform_profile': platform_profile,
            'platform_group': platform_group,
            'platform_names': platform_names,
        }
