# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The AWX credential types of ascend.vllm (their injector templates stay unrendered)."""

from __future__ import annotations

DOCUMENTATION = r'''
---
name: awx_credential_types
short_description: The AWX credential types ascend.vllm job templates use
version_added: 0.1.0
description:
  - Returns the credential types of the service API key (injected as C(vllm_serve_api_key)) and of
    registry credentials (injected as C(image_pull_login_registry), C(image_pull_login_username) and
    C(image_pull_login_password), which the image_pull role logs in with before it pulls, and as
    C(awx_registry_host), C(awx_registry_username), C(awx_registry_password) for plays of your own),
    each with C(name), C(kind), C(description), C(inputs) and C(injectors) as M(awx.awx.credential_type)
    takes them.
  - The injector templates are returned as strings for AWX to render at launch; Ansible does not render
    them while creating the types.
author:
  - ascend.vllm maintainers (!UNKNOWN)
options:
  _input:
    description: Ignored (any value, e.g. V(all)).
    type: raw
    required: true
'''

EXAMPLES = r'''
- name: Create the credential types
  awx.awx.credential_type:
    name: "{{ item.name }}"
    kind: "{{ item.kind }}"
    description: "{{ item.description }}"
    inputs: "{{ item.inputs }}"
    injectors: "{{ item.injectors }}"
  loop: "{{ 'all' | ascend.vllm.awx_credential_types }}"
'''

RETURN = r'''
_value:
  description: The credential types, a list of dicts.
  type: list
  elements: dict
'''

from ansible_collections.ascend.vllm.plugins.plugin_utils.fleet._awx_survey import credential_types


def awx_credential_types(_ignored):
    """The credential types."""
    return credential_types()


class FilterModule:
    """AWX credential types of ascend.vllm."""

    def filters(self):
        return {'awx_credential_types': awx_credential_types}
