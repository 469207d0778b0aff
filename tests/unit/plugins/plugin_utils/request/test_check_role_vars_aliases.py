# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""ascend_vllm_* variables whose role options have no spec default (dict/list options whose role
default is a template) are still type-checked through the option they feed."""

import os

import pytest

from ansible_collections.ascend.vllm.plugins.plugin_utils.request._vars import check_role_vars
from ansible_collections.ascend.vllm.plugins.plugin_utils.request._vars import role_argument_specs

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', '..'))
SPECS = role_argument_specs(os.path.join(ROOT, 'roles'))


@pytest.mark.parametrize('name,value,phrase', [
    ('ascend_vllm_instances', 'x', 'not a list of dict'),
    ('ascend_vllm_platform_overrides', [1], 'not a dict'),
    ('ascend_vllm_platform_spec', 3, 'not a dict'),
])
def test_wrong_type_of_a_described_alias_is_reported(name, value, phrase):
    problems = check_role_vars({name: value}, SPECS)
    assert [(p['variable'], p['kind']) for p in problems] == [(name, 'type')]
    assert phrase in problems[0]['msg']


@pytest.mark.parametrize('name,value', [
    ('ascend_vllm_instances', [{'name': 'a', 'chips': [0]}]),
    ('ascend_vllm_platform_overrides', {'shm_size': '16g'}),
    ('ascend_vllm_platform_spec', {'based_on': 'atlas_300i_duo'}),
])
def test_right_type_of_a_described_alias_passes(name, value):
    assert check_role_vars({name: value}, SPECS) == []
