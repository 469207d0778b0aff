# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
import pytest

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._image_ref import pin_problems
from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._serve import (
    config_problems, missing_model_dirs, model_path_problems, publish_address_problems)


def preflight_problems(problems, configs=None, model_dirs=None, node_paths=None,
                       local_models=None, cache_dir='/root/.cache', model_roots=None, publish_address='',
                       node_addresses=None, pins=None, registry_answers=None):
    """The node-stage checks of module_utils/serve in the order plan/_node.node_plan reports them."""
    paths = node_paths or {}
    placed = model_path_problems(local_models or [], configs or {}, cache_dir, model_roots or [], paths)
    placed += publish_address_problems(publish_address, node_addresses)
    placed += pin_problems(pins or [], registry_answers or {})
    return list(problems or []) + config_problems(configs or {}) + missing_model_dirs(model_dirs or [], paths) + placed


EARLIER = [{'check': 'instances', 'msg': 'earlier', 'fix': 'f'}]
DTYPE = {'variable': 'vllm_serve_dtype', 'value': 'bfloat16', 'rule': 'dtype must be float16 on 310P',
         'fix': 'set vllm_serve_dtype: float16'}


@pytest.mark.parametrize('configs, dirs, added', [
    # Corpus: dtype-bfloat16 (a vllm_config violation)
    ({'a': {'ok': False, 'msg': '1 problem', 'violations': [DTYPE]}}, ([], {}),
     [{'check': 'config', 'msg': 'vllm_serve_dtype="bfloat16": dtype must be float16 on 310P',
       'fix': 'set vllm_serve_dtype: float16'}]),
    # A module error without violations names the instance.
    ({'a': {'ok': False, 'msg': 'vllm_config could not plan: boom', 'violations': []}}, ([], {}),
     [{'check': 'config', 'msg': 'instance a: vllm_config could not plan: boom', 'fix': 'correct the instance settings'}]),
    ({'a': {'ok': True, 'msg': '', 'violations': []}}, ([], {}), []),
    # Corpus: model-path-missing
    ({}, ([{'name': 'a', 'path': '/data/models/Qwen3.5-2B', 'host': '/data/models/Qwen3.5-2B', 'prefix': 'vllm_serve_'},
           {'name': 'b', 'path': '/p', 'host': '/p', 'prefix': 'x'}], {'/p': {'exists': True}}),
     [{'check': 'model', 'msg': 'vllm_serve_model_path /data/models/Qwen3.5-2B is not on the node (looked at '
                                '/data/models/Qwen3.5-2B)',
       'fix': 'download the weights there first, or leave model_path unset to load the model id from ModelScope'}]),
])
def test_config_and_model_problems_follow_the_earlier_ones(configs, dirs, added):
    assert preflight_problems(EARLIER, configs, *dirs) == EARLIER + added


def test_model_dirs_judged_with_what_the_node_read():
    dirs = [{'name': 'a', 'path': '/models/q', 'host': '/models/q', 'prefix': 'vllm_serve_'},
            {'name': 'b', 'path': '/root/.cache/m', 'host': '/data/cache/m', 'prefix': 'ascend_vllm_instances[1].'}]
    paths = {'/models/q': {'exists': True, 'isdir': True, 'isreg': False},
             '/data/cache/m': {'exists': False, 'isdir': False, 'isreg': False}}
    problems = preflight_problems([], {}, model_dirs=dirs, node_paths=paths)
    assert problems == [{
        'check': 'model',
        'msg': 'ascend_vllm_instances[1].model_path /root/.cache/m is not on the node (looked at /data/cache/m)',
        'fix': 'download the weights there first, or leave model_path unset to load the model id from ModelScope'}]


def test_a_path_the_node_was_not_asked_about_counts_as_missing():
    dirs = [{'name': 'a', 'path': '/models/q', 'host': '/models/q', 'prefix': 'vllm_serve_'}]
    assert [p['check'] for p in preflight_problems([], {}, model_dirs=dirs, node_paths={})] == ['model']


def test_model_paths_publish_address_and_pins_are_judged_with_what_the_node_read():
    local = [{'name': 'default', 'path': '/opt/q', 'host': '/opt/q', 'prefix': 'vllm_serve_'}]
    pin = 'sha256:' + 'd' * 64
    pins = [{'ref': 'q.io/a/b:v1', 'digest': pin, 'candidate': 'q.io/a/b@' + pin, 'variable': 'image_pull_digest'}]
    out = preflight_problems([], {}, local_models=local, cache_dir='/root/.cache', model_roots=[],
                             publish_address='10.1.1.1', node_addresses=['127.0.0.1'], pins=pins,
                             registry_answers={'q.io/a/b:v1': {'digest': 'sha256:' + 'e' * 64, 'status': 200}})
    assert [p['check'] for p in out] == ['paths', 'ports', 'image']
    assert preflight_problems([], {}, local_models=local, model_roots=['/opt'], publish_address='127.0.0.1',
                              node_addresses=['127.0.0.1'], pins=pins, registry_answers={}) == []
