# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The plan never carries a secret: container_plan keeps the markers, instance_secrets reads the values back.

(The plan's side, the markers, is tested in plugins/plugin_utils/plan/test__host_instances.py.)
"""

import pytest
from hypothesis import given, settings, strategies as st

from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.filter.instance_secrets import instance_secrets
from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._serve import container_plan, container_settings

CONFIG = {'api_key_env': 'VLLM_API_KEY', 'settings': {'model': 'Qwen/Qwen3.5-2B'},
          'profile': {'model_cache_mount': {'target': '/root/.cache'}}}
HOST = {'publish_address': '127.0.0.1', 'model_cache_dir': '/root/.cache', 'platform': 'atlas_300i_duo',
        'keep_previous': True}


def entry(index, key_var, hidden=None, **options):
    return {'index': index, 'name': 'i%d' % index, 'container_name': 'c%d' % index, 'chips': [index],
            'port': 8080 + index, 'api_key_var': key_var, 'hidden_env': hidden or {},
            'env': dict({'HF_ENDPOINT': 'h'}, **dict((name, '<hidden: %s>' % var) for name, var in (hidden or {}).items())),
            'options': dict(options, **({'api_key': '<hidden: %s>' % key_var} if key_var else {}))}


HOSTVARS = {'vllm_serve_api_key': 'sk-all', 'vllm_serve_env': {'HF_TOKEN': 'hf-all'}, 'vllm_serve_instances': [
    {'name': 'a', 'api_key': 'sk-a', 'env': {'HF_TOKEN': 'hf-a'}}, {'name': 'b'}, {'name': 'c', 'api_key': None}]}


@pytest.mark.parametrize('index, key_var, key', [
    (0, 'ascend_vllm_instances[0].api_key', 'sk-a'),
    (1, 'vllm_serve_api_key', 'sk-all'),
    (2, 'vllm_serve_api_key', 'sk-all'),
    # No marker, no key, whatever the variables hold.
    (0, '', ''),
])
def test_an_instance_key_wins_over_the_role_key(index, key_var, key):
    assert instance_secrets(HOSTVARS, entry(index, key_var))['api_key'] == key


def test_the_single_instance_takes_the_role_key():
    hostvars = {'vllm_serve_api_key': 'sk-1', 'vllm_serve_instances': []}
    assert instance_secrets(hostvars, entry(0, 'vllm_serve_api_key'))['api_key'] == 'sk-1'


def test_the_key_goes_to_the_servers_variable_and_the_secrets_by_name():
    own = entry(0, 'ascend_vllm_instances[0].api_key', {'HF_TOKEN': 'ascend_vllm_instances[0].env.HF_TOKEN'})
    assert instance_secrets(HOSTVARS, own, CONFIG) == {'api_key': 'sk-a', 'env': {'HF_TOKEN': 'hf-a', 'VLLM_API_KEY': 'sk-a'}}
    shared = entry(1, 'vllm_serve_api_key', {'HF_TOKEN': 'vllm_serve_env.HF_TOKEN'})
    assert instance_secrets(HOSTVARS, shared, CONFIG)['env'] == {'HF_TOKEN': 'hf-all', 'VLLM_API_KEY': 'sk-all'}
    # Without the config (a balancer frontend's key_source) only the key; no server variable to put it in.
    assert instance_secrets(HOSTVARS, shared)['env'] == {'HF_TOKEN': 'hf-all'}
    assert instance_secrets(HOSTVARS, entry(1, 'vllm_serve_api_key'), {'api_key_env': None})['env'] == {}


def test_needs_the_host_variables_and_a_plan_instance():
    with pytest.raises(AnsibleFilterError, match='vars'):
        instance_secrets('sk', entry(0, 'vllm_serve_api_key'))
    with pytest.raises(AnsibleFilterError, match='plan.instances'):
        instance_secrets(HOSTVARS, {'name': 'a'})


@pytest.mark.parametrize('options, mounts', [
    ({}, []),
    ({'model_path': '/data/m'}, [{'source': '/data/m', 'target': '/data/m', 'read_only': True}]),
    ({'model_path': '/root/.cache/m'}, []),
    ({'model_path': '/root/.cache'}, []),
    ({'model_path': 'relative/m'}, []),
])
def test_the_plans_container_mounts_a_local_model_outside_the_cache(options, mounts):
    run = container_plan(entry(0, '', **options), CONFIG, HOST)
    assert (run['container_run_extra_mounts'], run['container_run_no_log']) == (mounts, False)
    assert 'container_run_image' not in run and run['container_run_name'] == 'c0'


def test_model_from_the_settings_else_the_option():
    assert container_settings(entry(0, '', model='x'), CONFIG)['model'] == 'Qwen/Qwen3.5-2B'
    assert container_settings(entry(0, '', model='x'), {'settings': {}})['model'] == 'x'


@settings(max_examples=150, deadline=None)
@given(key=st.text(alphabet='abcdefXYZ0123456789-', min_size=1, max_size=20).map(lambda text: 'sk-SECRET-' + text),
       token=st.text(alphabet='abcdefXYZ0123456789-', min_size=1, max_size=20).map(lambda text: 'hf-SECRET-' + text),
       own=st.booleans())
def test_the_plan_never_holds_a_secret_and_the_container_gets_each(key, token, own):
    """For any key and token, own or shared: the plan's container variables hold neither (and are no_log), and
    the plan's environment with instance_secrets on top is exactly what the container would get."""
    hostvars = {'vllm_serve_api_key': key if not own else 'other', 'vllm_serve_env': {'HF_TOKEN': token},
                'vllm_serve_instances': [{'name': 'a', 'api_key': key} if own else {'name': 'a'}]}
    one = entry(0, 'ascend_vllm_instances[0].api_key' if own else 'vllm_serve_api_key',
                {'HF_TOKEN': 'vllm_serve_env.HF_TOKEN'})
    run = container_plan(one, CONFIG, HOST)
    assert key not in repr(run) and token not in repr(run) and run['container_run_no_log']
    env = dict(run['container_run_env'], **instance_secrets(hostvars, one, CONFIG)['env'])
    assert env == {'HF_ENDPOINT': 'h', 'HF_TOKEN': token, 'VLLM_API_KEY': key}
