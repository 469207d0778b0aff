# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
import pytest

from ansible_collections.ascend.vllm.plugins.filter.platform import platform_group, platform_profile
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.platforms import PLATFORMS


@pytest.mark.parametrize('groups, expected', [
    (['all', 'atlas_300i_duo'], 'atlas_300i_duo'),
    (['atlas_200i_pro', 'edge'], 'atlas_200i_pro'),
    (['edge'], ''),
    ([], ''),
])
def test_platform_group_reads_the_profiles(groups, expected):
    assert platform_group(groups) == expected


def test_platform_group_knows_inventory_defined_platforms():
    assert platform_group(['atlas_300i_pro'], ['atlas_300i_pro']) == 'atlas_300i_pro'
    assert platform_group(['atlas_300i_pro']) == ''


def test_builtin_profile_with_overrides():
    out = platform_profile('atlas_300i_duo', {'shm_size': '2g'})
    assert out['problems'] == []
    assert out['profile']['shm_size'] == '2g'
    assert PLATFORMS['atlas_300i_duo']['shm_size'] == '1g'


@pytest.mark.parametrize('name, overrides, spec, variable, value, fix', [
    ('atlas_300i_trio', None, None, 'ascend_vllm_platform', '"atlas_300i_trio"', 'atlas_300i_duo'),
    ('', None, None, 'ascend_vllm_platform', '""', 'inventory group'),
    ('atlas_300i_duo', {'shm': '2g'}, None, 'ascend_vllm_platform_overrides', 'shm', 'shm_size'),
    ('atlas_300i_duo', {'privileged': 'yes'}, None, 'ascend_vllm_platform_overrides', 'yes', 'bool'),
    ('atlas_300i_duo', ['shm_size'], None, 'ascend_vllm_platform_overrides', 'shm_size', 'dict'),
    ('atlas_300i_pro', None, {'based_on': 'atlas_300i_trio'}, 'ascend_vllm_platform_spec', 'atlas_300i_trio',
     'based_on'),
    ('atlas_300i_pro', None, {'chips_per_card': 1}, 'ascend_vllm_platform_spec', 'chips_per_card', 'every field'),
    ('atlas_300i_pro', None, {'based_on': 'atlas_300i_duo', 'chips_per_card': '1'}, 'ascend_vllm_platform_spec',
     'chips_per_card', 'based_on'),
])
def test_problems_name_the_variable_value_and_fix(name, overrides, spec, variable, value, fix):
    out = platform_profile(name, overrides, spec)
    assert out['profile'] is None
    [problem] = out['problems']
    assert problem['check'] == 'platform'
    assert problem['msg'].startswith(variable + '=')
    assert value in problem['msg']
    assert fix in problem['fix']


def test_inventory_defined_platform_based_on_a_builtin():
    spec = {'based_on': 'atlas_300i_duo', 'description': 'Atlas 300I Pro (one 310P3 chip per card)',
            'chips_per_card': 1, 'chip_memory_mb': 21527}
    out = platform_profile('atlas_300i_pro', {'shm_size': '2g'}, spec)
    assert out['problems'] == []
    profile = out['profile']
    assert profile['chips_per_card'] == 1 and profile['chip_memory_mb'] == 21527
    assert profile['based_on'] == 'atlas_300i_duo'
    assert profile['mounts'] == PLATFORMS['atlas_300i_duo']['mounts']
    assert profile['shm_size'] == '2g'


def test_inventory_defined_platform_in_full():
    spec = dict((key, value) for key, value in PLATFORMS['atlas_300i_duo'].items() if not key.startswith('guide_'))
    spec['chip_memory_mb'] = 21527
    out = platform_profile('atlas_300v_pro', None, spec)
    assert out['problems'] == [] and out['profile']['chip_memory_mb'] == 21527


def test_a_builtin_name_ignores_a_spec():
    out = platform_profile('atlas_300i_duo', None, {'chips_per_card': 1})
    assert out['problems'] == [] and out['profile']['chips_per_card'] == 2


def test_variable_names_can_be_the_roles_own():
    out = platform_profile('nope', None, None, {'platform': 'vllm_serve_platform'})
    assert out['problems'][0]['msg'].startswith('vllm_serve_platform="nope"')


def test_a_based_on_spec_gets_a_field_level_fix():
    out = platform_profile('atlas_300i_pro', None, {'based_on': 'atlas_300i_duo', 'chips_per_card': '1', 'shm': '2g'})
    fix = out['problems'][0]['fix']
    assert 'give chips_per_card a int like the profile value 2' in fix
    assert 'shm is not a profile field (did you mean shm_size?)' in fix
    assert fix.startswith('in ascend_vllm_platform_spec:')
