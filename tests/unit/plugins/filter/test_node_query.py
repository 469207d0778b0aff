# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The node_query filter: what npu_check asks node_facts for."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.ascend.vllm.plugins.filter.node_query import FilterModule, node_query
from ansible_collections.ascend.vllm.plugins.module_utils.contracts.platforms import get_profile


def test_registered():
    assert FilterModule().filters() == {'node_query': node_query}


def test_200i_pro_query():
    query = node_query({'profile': get_profile('atlas_200i_pro'), 'driver_dir': '/d', 'driver_version_file': '/d/v',
                        'instances': [{'name': 'a', 'chips': [0], 'port': 8080, 'container_name': 'c-a'},
                                      {'name': 'b', 'chips': [0], 'port': 8081, 'container_name': 'c-b'}]})
    assert query['paths'][:3] == ['/d', '/d/v', '/dev/davinci0']
    assert '/usr/lib/aarch64-linux-gnu/libyaml-0.so.2' in query['paths']
    assert query['npu_smi_path'] == '/usr/local/sbin/npu-smi'
    # Each instance's container and the one a deploy keeps while replacing it.
    assert query['containers'] == ['c-a', 'c-a-previous', 'c-b', 'c-b-previous'] and query['ports'] == [8080, 8081]
