# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""node_query (plugin_utils/judge/_node_problems.py): what npu_check asks node_facts for.

It was the filter ascend.vllm.node_query; the action of node_facts (``checks``) calls it now.
"""

from ansible_collections.ascend.vllm.plugins.action import node_facts as node_facts_action
from ansible_collections.ascend.vllm.plugins.plugin_utils.judge._node_problems import node_query
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.platforms import get_profile


def test_the_node_facts_action_asks_with_it():
    assert node_facts_action.node_query is node_query


def test_200i_pro_query():
    query = node_query({'profile': get_profile('atlas_200i_pro'), 'driver_dir': '/d', 'driver_version_file': '/d/v',
                        'instances': [{'name': 'a', 'chips': [0], 'port': 8080, 'container_name': 'c-a'},
                                      {'name': 'b', 'chips': [0], 'port': 8081, 'container_name': 'c-b'}]})
    assert query['paths'][:3] == ['/d', '/d/v', '/dev/davinci0']
    assert '/usr/lib/aarch64-linux-gnu/libyaml-0.so.2' in query['paths']
    assert query['npu_smi_path'] == '/usr/local/sbin/npu-smi'
    # Each instance's container and the one a deploy keeps while replacing it.
    assert query['containers'] == ['c-a', 'c-a-previous', 'c-b', 'c-b-previous'] and query['ports'] == [8080, 8081]
