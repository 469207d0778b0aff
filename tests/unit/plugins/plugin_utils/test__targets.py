# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""plugin_utils/fleet/_targets.py: a run that targets none of the collection's hosts, and look-alike groups."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.platforms import PLATFORMS
from ansible_collections.ascend.vllm.plugins.plugin_utils.fleet._targets import closest_platform, targets_problems

PLATFORM_GROUPS = sorted(PLATFORMS)


@pytest.mark.parametrize('group,platform', [
    ('atlas_300i_duo_prod', 'atlas_300i_duo'),
    ('Atlas_300I_DUO', 'atlas_300i_duo'),
    ('atlas300iduo', 'atlas_300i_duo'),
    ('atlas-300i-duo', 'atlas_300i_duo'),
    ('prod_atlas_300i_duo', 'atlas_300i_duo'),
    ('atlas_300_duo', 'atlas_300i_duo'),
    ('atlas_200i_pro_rack2', 'atlas_200i_pro'),
    ('atlas_200i_pro_openeuler_rack2', 'atlas_200i_pro_openeuler'),
    ('ATLAS_200I_PRO_OPENEULER', 'atlas_200i_pro_openeuler'),
    ('atlas_200ipro', 'atlas_200i_pro'),
])
def test_a_lookalike_names_the_closest_platform(group, platform):
    assert closest_platform(group, PLATFORM_GROUPS) == platform


OTHER_GROUPS = ['all', 'ungrouped', 'ascend_vllm', 'prometheus', 'web', 'rack1', 'gpu_nodes', 'atlas', 'duo']


@pytest.mark.parametrize('group', PLATFORM_GROUPS + OTHER_GROUPS)
def test_other_groups_look_like_no_platform(group):
    assert closest_platform(group, PLATFORM_GROUPS) is None


def test_no_host_targeted_fails_naming_groups_and_platforms():
    groups = {'all': ['n1', 'p1'], 'ungrouped': [], 'web': ['p1'], 'nodes': ['n1']}
    verdict = targets_problems(groups, PLATFORM_GROUPS, 'atlas_300i_duo', [])
    assert len(verdict['problems']) == 1
    msg, fix = verdict['problems'][0]['msg'], verdict['problems'][0]['fix']
    assert 'matches none of the collection\'s hosts' in msg and 'nodes, ungrouped, web' in msg
    assert all(platform in fix for platform in PLATFORM_GROUPS) and 'ascend_vllm_platform' in fix


def test_an_empty_inventory_fails():
    verdict = targets_problems({'all': [], 'ungrouped': []}, PLATFORM_GROUPS, 'atlas_300i_duo', [])
    assert 'the inventory has no host' in verdict['problems'][0]['msg']


def test_a_given_pattern_that_matches_nothing_names_the_variable():
    verdict = targets_problems({'all': ['n1'], 'atlas_300i_duo': ['n1']}, PLATFORM_GROUPS, 'atals_300i_duo', [],
                               given=True)
    assert 'ascend_vllm_hosts' in verdict['problems'][0]['msg']
    assert verdict['problems'][0]['fix'].startswith('set ascend_vllm_hosts')


def test_a_lookalike_with_hosts_left_out_is_a_warning_when_others_are_served():
    groups = {'all': ['n1', 'n2'], 'atlas_300i_duo': ['n1'], 'atlas300iduo': ['n2']}
    verdict = targets_problems(groups, PLATFORM_GROUPS, 'atlas_300i_duo', ['n1'])
    assert verdict['problems'] == []
    assert len(verdict['warnings']) == 1
    assert 'atlas300iduo looks like the platform group atlas_300i_duo' in verdict['warnings'][0]['msg']
    assert 'n2' in verdict['warnings'][0]['msg']
    assert 'rename the group atlas300iduo to atlas_300i_duo' in verdict['warnings'][0]['fix']


def test_a_lookalike_nested_in_its_platform_group_is_fine():
    groups = {'all': ['n1', 'n2'], 'atlas_300i_duo': ['n1', 'n2'], 'atlas_300i_duo_prod': ['n2']}
    assert targets_problems(groups, PLATFORM_GROUPS, 'atlas_300i_duo', ['n1', 'n2']) == \
        {'problems': [], 'warnings': [], 'lookalikes': []}


def test_hosts_outside_the_limit_are_not_left_out_by_the_group_name():
    groups = {'all': ['n1', 'n2'], 'atlas_300i_duo': ['n1', 'n2'], 'atlas_300i_duo_prod': ['n2']}
    assert targets_problems(groups, PLATFORM_GROUPS, 'atlas_300i_duo', ['n1'], unlimited=['n1', 'n2'])['warnings'] == []


@given(st.sampled_from(PLATFORM_GROUPS), st.sampled_from(['', '_prod', '_rack_2', '-test']),
       st.sampled_from(['', 'prod_', 'dc1-']), st.sampled_from([str, str.upper, lambda s: s.replace('_', '')]))
def test_every_lookalike_spelling_is_reported_when_nothing_is_targeted(platform, suffix, prefix, spell):
    group = spell(prefix + platform + suffix)
    if group == platform:
        return
    verdict = targets_problems({'all': ['n1'], group: ['n1']}, PLATFORM_GROUPS, platform, [])
    assert len(verdict['problems']) == 2, verdict
    assert 'looks like the platform group %s' % platform in verdict['problems'][1]['msg']
