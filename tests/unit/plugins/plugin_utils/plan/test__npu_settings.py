# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""npu_check's instances from the host plan: the planned instances with their host memory, judged by node_problems."""
import pytest

from ansible_collections.ascend.vllm.plugins.plugin_utils.judge._node_problems import normalize_instances
from ansible_collections.ascend.vllm.plugins.plugin_utils.plan._node import npu_settings

PLAN = [{'name': 'a', 'container_name': 'vllm-ascend-a', 'chips': [0], 'chips_var': 'vllm_serve_chips', 'port': 8080,
         'container_var': 'vllm_serve_container_name', 'options': {}},
        {'name': 'b', 'container_name': 'vllm-ascend-b', 'chips': [1], 'chips_var': 'x[1].chips', 'port': 8081,
         'container_var': 'x[1].container_name', 'options': {}}]


class _Request(dict):
    host = 'node1'

    def get(self, name, default=None):
        return dict.get(self, name, default)


@pytest.mark.parametrize('configs, memory', [
    ({'a': {'memory': {'usable_mb': 9000}}, 'b': {'memory': {}}}, [9000, 0]),
    ({'a': {'memory': {'usable_mb': None}}}, [0, 0]),
    ({}, [0, 0]),
])
def test_chips_port_and_host_memory(configs, memory):
    settings = npu_settings(_Request(vllm_serve_model_cache_dir='/root/.cache'), {'instances': PLAN, 'configs': configs})
    out = normalize_instances(settings['instances'])
    assert [entry['host_memory_mb'] for entry in out] == memory
    assert out[0] == {'name': 'a', 'container_name': 'vllm-ascend-a', 'chips': [0], 'chips_var': 'vllm_serve_chips',
                      'container_var': 'vllm_serve_container_name', 'port': 8080, 'host_memory_mb': memory[0]}
