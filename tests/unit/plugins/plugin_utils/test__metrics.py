# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""_metrics: the Prometheus file_sd target groups of a fleet."""

import json

import pytest

from ansible_collections.ascend.vllm.plugins.plugin_utils.fleet._metrics import file_sd_merge, metrics_targets, target_address

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


def test_the_npu_exporter_group_has_the_instance_labels_and_the_host_models():
    plan = PLAN + [{'name': 'c', 'port': 8082 + 100, 'options': {'model': 'Qwen/Qwen3.5-9B'}}]
    out = metrics_targets(plan, 'n1', 'atlas_300i_duo', '10.0.0.5', BALANCER, npu_exporter_port=8082)
    npu = [group for group in out if group['labels']['component'] == 'npu']
    assert npu == [{'targets': ['10.0.0.5:8082'],
                    'labels': {'host': 'n1', 'platform': 'atlas_300i_duo', 'model': 'Qwen/Qwen3.5-2B,Qwen/Qwen3.5-9B',
                               'instance': 'npu-exporter', 'component': 'npu'}}]
    # The same label names as every instance's group, so one relabelling serves both.
    assert all(set(group['labels']) == set(npu[0]['labels']) for group in out)
    # Off (None or 0): no group for it; the others are unchanged.
    assert metrics_targets(plan, 'n1', 'atlas_300i_duo', '10.0.0.5', BALANCER) == [g for g in out if g not in npu]
    assert metrics_targets(plan, 'n1', 'atlas_300i_duo', '10.0.0.5', BALANCER, npu_exporter_port=0) == \
        [g for g in out if g not in npu]


def test_the_npu_exporter_target_of_an_ipv6_address_and_a_host_without_instances():
    assert metrics_targets([], 'n1', 'atlas_200i_pro', 'fd00::5', None, 9100) == [
        {'targets': ['[fd00::5]:9100'], 'labels': {'host': 'n1', 'platform': 'atlas_200i_pro', 'model': '',
                                                   'instance': 'npu-exporter', 'component': 'npu'}}]


def test_merge_replaces_a_host_npu_exporter_group_and_teardown_removes_it():
    with_npu = metrics_targets(PLAN, 'n1', 'p', '10.0.0.1', None, 8082)
    other = metrics_targets(PLAN[:1], 'n2', 'p', '10.0.0.2', None, 8082)
    text = json.dumps(with_npu + other)
    # The option turned off on n1: its exporter group goes with the next deploy, n2's stays.
    without = metrics_targets(PLAN, 'n1', 'p', '10.0.0.1')
    merged = file_sd_merge(text, ['n1'], without)
    assert [g['labels']['component'] for g in merged if g['labels']['host'] == 'n1'] == ['vllm', 'vllm']
    n2 = [g for g in merged if g['labels']['host'] == 'n2']
    assert sorted(g['labels']['component'] for g in n2) == ['npu', 'vllm'] and all(g in other for g in n2)
