# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._serve import npu_check_instances

PLAN = [{'name': 'a', 'container_name': 'vllm-ascend-a', 'chips': [0, 'x'], 'chips_var': 'vllm_serve_chips', 'port': 8080,
         'container_var': 'vllm_serve_container_name'},
        {'name': 'b', 'container_name': 'vllm-ascend-b', 'chips': [1], 'chips_var': 'x[1].chips', 'port': 8081,
         'container_var': 'x[1].container_name'}]


@pytest.mark.parametrize('configs, memory', [
    ({'a': {'memory': {'usable_mb': 9000}}, 'b': {'memory': {}}}, [9000, 0]),
    ({'a': {'memory': {'usable_mb': None}}}, [0, 0]),
    ({}, [0, 0]),
])
def test_chips_port_and_host_memory(configs, memory):
    out = npu_check_instances(PLAN, configs)
    assert [entry['host_memory_mb'] for entry in out] == memory
    assert out[0] == {'name': 'a', 'container_name': 'vllm-ascend-a', 'chips': [0], 'chips_var': 'vllm_serve_chips',
                      'container_var': 'vllm_serve_container_name', 'port': 8080, 'port_var': 'vllm_serve_port',
                      'host_memory_mb': memory[0]}
