# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The node_problems filter: problems, result, summary and report of a node."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.ascend.vllm.plugins.filter.node_problems import FilterModule, node_problems


def test_registered():
    assert FilterModule().filters() == {'node_problems': node_problems}


def test_unreadable_node_lists_every_problem():
    """Nothing read (an empty answer): driver, devices, docker and npu-smi are all reported, at once."""
    out = node_problems({}, {'host': 'n1', 'platform': '', 'profile': {}, 'instances': [],
                             'driver_dir': '/d', 'driver_version_file': '/d/v'})
    checks = [p['check'] for p in out['problems']]
    assert checks == ['platform', 'driver', 'driver', 'docker', 'npu-smi']
    assert out['report'].splitlines()[0] == '5 preflight problem(s) on n1:'
    assert out['summary'].endswith('5 problem(s)')
    assert out['result']['chip_count'] == 0 and out['drop_page_cache'] is False
