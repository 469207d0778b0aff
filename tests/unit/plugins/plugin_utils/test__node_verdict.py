# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""node_verdict (plugin_utils/judge/_node_problems.py): problems, result, summary and report of a node.

It was the filter ascend.vllm.node_problems; the action of node_facts (``checks``) calls it now.
"""

from ansible_collections.ascend.vllm.plugins.action import node_facts as node_facts_action
from ansible_collections.ascend.vllm.plugins.plugin_utils.judge._node_problems import node_verdict


def test_the_node_facts_action_judges_with_it():
    assert node_facts_action.node_verdict is node_verdict


def test_unreadable_node_lists_every_problem():
    """Nothing read (an empty answer): driver, devices, docker and npu-smi are all reported, at once."""
    out = node_verdict({}, {'host': 'n1', 'platform': '', 'profile': {}, 'instances': [],
                            'driver_dir': '/d', 'driver_version_file': '/d/v'})
    checks = [p['check'] for p in out['problems']]
    assert checks == ['platform', 'driver', 'driver', 'docker', 'npu-smi']
    assert out['report'].splitlines()[0] == '5 preflight problem(s) on n1:'
    assert out['summary'].endswith('5 problem(s)')
    assert out['result']['chip_count'] == 0 and out['drop_page_cache'] is False
