# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
import pytest

from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._serve import model_dirs


def plan(path):
    return [{'name': 'a', 'options': {'model_path': path} if path is not None else {}, 'var_prefix': 'vllm_serve_'}]


@pytest.mark.parametrize('path, configs, expected_host', [
    ('/data/models/Qwen3.5-2B', {}, '/data/models/Qwen3.5-2B'),
    ('/root/.cache/modelscope/Qwen3.5-2B', {}, '/srv/cache/modelscope/Qwen3.5-2B'),
    ('/root/.cache', {}, '/srv/cache'),
    ('/root/.cachex/m', {}, '/root/.cachex/m'),
    ('/models/m', {'a': {'profile': {'model_cache_mount': {'target': '/models'}}}}, '/srv/cache/m'),
])
def test_node_path_of_an_absolute_model_path(path, configs, expected_host):
    assert model_dirs(plan(path), configs, '/srv/cache') == [
        {'name': 'a', 'path': path, 'host': expected_host, 'prefix': 'vllm_serve_'}]


@pytest.mark.parametrize('path', [None, '', 'models/m', 'Qwen/Qwen3.5-2B'])
def test_no_directory_to_look_for(path):
    assert model_dirs(plan(path), {}, '/root/.cache') == []
