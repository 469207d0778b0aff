# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""balancer_plan: the filter reads the host's variables, the plan and the vllm_config results."""

from ansible_collections.ascend.vllm.plugins.plugin_utils.plan._host import balancer, named
from ansible_collections.ascend.vllm.plugins.plugin_utils.request._request import Request
from ansible_collections.ascend.vllm.plugins.plugin_utils.plan._host import instance_plan
from ansible_collections.ascend.vllm.plugins.plugin_utils.fleet._balancer import key_digest
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.vllm_options import INSTANCE_OPTIONS


def variables_request(variables):
    """A Request over a role's variables, as the tests write them: the user set ascend_vllm_instances when given."""
    return Request(variables.get('inventory_hostname', ''), values=variables,
                   user_set=[name for name in ('ascend_vllm_instances',) if name in variables])


DEFAULTS = dict(
    inventory_hostname='node1', vllm_serve_platform='atlas_300i_duo', vllm_serve_instances=[],
    vllm_serve_instance_name='default', vllm_serve_container_name='vllm-ascend', vllm_serve_chips=None,
    vllm_serve_port=8080, vllm_serve_env={}, vllm_serve_model_cache_dir='/root/.cache',
    vllm_serve_publish_address='127.0.0.1', vllm_serve_allow_unauthenticated=False,
    **dict(('vllm_serve_' + option, None) for option in INSTANCE_OPTIONS))
DEFAULTS.update(vllm_serve_model='Qwen/Qwen3.5-2B', vllm_serve_tensor_parallel_size=1)

VARS = dict(DEFAULTS, balancer_enabled=None, balancer_port=8000, balancer_metrics_port=8404,
            balancer_publish_address='127.0.0.1')


def run(**variables):
    host = dict(VARS, **variables)
    plan = instance_plan(variables_request(host))['plan']
    configs = dict((e['name'], {'settings': {'served_model_name': 'qwen3.5'}}) for e in plan)
    return balancer(variables_request(host), named(plan, configs, False))


def test_one_instance_runs_no_balancer():
    out = run()
    assert (out['enabled'], out['why'], out['frontends']) == (
        False, 'off: no model is served by more than one instance', [])


def test_the_frontends_send_smoke_requests_only_when_the_instances_do():
    two = [{'name': 'a', 'chips': [0]}, {'name': 'b', 'chips': [1]}]
    assert run(vllm_serve_instances=two)['smoke_test'] is True
    assert run(vllm_serve_instances=two, vllm_serve_smoke_test=False)['smoke_test'] is False


def test_instances_with_the_instance_key_and_the_role_key():
    out = run(vllm_serve_instances=[{'name': 'a', 'chips': [0]}, {'name': 'b', 'chips': [1], 'api_key': 'sk-b'}],
              vllm_serve_api_key='sk-b')
    assert out['problems'] == []
    assert out['key_digests'] == {'qwen3.5': [key_digest('sk-b')]}
    assert [s['port'] for s in out['frontends'][0]['servers']] == [8080, 8081]
