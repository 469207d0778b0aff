# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""_metrics: the Prometheus file_sd target groups of a fleet."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible_collections.ascend.vllm.plugins.module_utils._metrics import file_sd_merge, metrics_targets, target_address

PLAN = [{'name': 'a', 'port': 8080, 'options': {'model': 'Qwen/Qwen3.5-2B'}},
        {'name': 'b', 'port': 8081, 'options': {'model': 'Qwen/Qwen3.5-2B'}}]
BALANCER = {'enabled': True, 'container': 'vllm-balancer', 'metrics_port': 8404,
            'frontends': [{'model': 'Qwen/Qwen3.5-2B'}]}


@pytest.mark.parametrize('metrics, publish, expected', [
    ('10.9.9.9', '127.0.0.1', '10.9.9.9'), (None, '127.0.0.1', '127.0.0.1'), (None, '10.0.0.5', '10.0.0.5'),
    (None, '', 'node1.example'), (None, '0.0.0.0', 'node1.example'), ('', '::', 'node1.example'),
])
def test_target_address(metrics, publish, expected):
    assert target_address(metrics, publish, 'node1.example') == expected


def test_one_group_per_instance_and_one_for_the_balancer():
    assert metrics_targets(PLAN, 'n1', 'atlas_300i_duo', '10.0.0.5', BALANCER) == [
        {'targets': ['10.0.0.5:8080'], 'labels': {'host': 'n1', 'platform': 'atlas_300i_duo',
                                                  'model': 'Qwen/Qwen3.5-2B', 'instance': 'a', 'component': 'vllm'}},
        {'targets': ['10.0.0.5:8081'], 'labels': {'host': 'n1', 'platform': 'atlas_300i_duo',
                                                  'model': 'Qwen/Qwen3.5-2B', 'instance': 'b', 'component': 'vllm'}},
        {'targets': ['10.0.0.5:8404'], 'labels': {'host': 'n1', 'platform': 'atlas_300i_duo',
                                                  'model': 'Qwen/Qwen3.5-2B', 'instance': 'vllm-balancer',
                                                  'component': 'balancer'}}]


def test_no_balancer_group_without_a_balancer_and_ipv6_in_brackets():
    out = metrics_targets(PLAN[:1], 'n1', 'atlas_200i_pro', 'fd00::5', {'enabled': False})
    assert [group['targets'] for group in out] == [['[fd00::5]:8080']]


def test_merge_replaces_the_play_hosts_and_keeps_the_others():
    n1 = metrics_targets(PLAN, 'n1', 'p', '10.0.0.1')
    n2 = metrics_targets(PLAN[:1], 'n2', 'p', '10.0.0.2')
    text = json.dumps(n1 + n2)
    again = metrics_targets(PLAN[:1], 'n1', 'p', '10.0.0.1')
    assert file_sd_merge(text, ['n1'], again) == again + n2
    # Teardown of n2: its groups go, n1's stay.
    assert file_sd_merge(text, ['n2'], []) == n1


@pytest.mark.parametrize('existing', ['', '   ', 'not json', '{"a": 1}', None, [1, 'x']])
def test_merge_of_a_missing_or_broken_file(existing):
    groups = metrics_targets(PLAN[:1], 'n1', 'p', '10.0.0.1')
    assert file_sd_merge(existing, ['n1'], groups) == groups
