# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
import pytest

from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._serve import instance_configs

ITEM = {'name': 'a'}


@pytest.mark.parametrize('result, expected', [
    ({'item': ITEM, 'argv': ['vllm', 'serve'], 'env': {'X': '1'}, 'api_key_env': 'VLLM_API_KEY', 'settings': {'model': 'm'},
      'profile': {'shm_size': '1g'}, 'memory': {'usable_mb': 1}, 'violations': []},
     {'ok': True, 'msg': '', 'argv': ['vllm', 'serve'], 'env': {'X': '1'}, 'api_key_env': 'VLLM_API_KEY',
      'settings': {'model': 'm'}, 'profile': {'shm_size': '1g'}, 'memory': {'usable_mb': 1}, 'violations': []}),
    # A refused configuration: no argv, the module's message and violations kept, null profile as {}.
    ({'item': ITEM, 'failed': True, 'msg': '1 configuration problem(s)', 'profile': None, 'memory': None,
      'violations': [{'variable': 'vllm_serve_dtype'}]},
     {'ok': False, 'msg': '1 configuration problem(s)', 'argv': [], 'env': {}, 'api_key_env': None, 'settings': {},
      'profile': {}, 'memory': {}, 'violations': [{'variable': 'vllm_serve_dtype'}]}),
])
def test_one_entry_per_instance(result, expected):
    assert instance_configs([result]) == {'a': expected}


def test_no_results():
    assert instance_configs([]) == {}
