# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""instance_plan (plugin_utils/plan/_host.py) over a role's variables: the plan of a host's instances and the
problems the preflight reports.

The messages are those of the bad-input corpus (tests/reliability/bad_inputs.yml):
each problem names the variable the user wrote, its value and the fix.
"""

import pytest

from ansible_collections.ascend.vllm.plugins.plugin_utils.plan._host import instance_plan as plan_of
from ansible_collections.ascend.vllm.plugins.plugin_utils.request._request import Request
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.vllm_options import INSTANCE_OPTIONS


def variables_request(variables):
    """A Request over a role's variables, as the tests write them: the user set ascend_vllm_instances when given."""
    return Request(variables.get('inventory_hostname', ''), values=variables,
                   user_set=[name for name in ('ascend_vllm_instances',) if name in variables])


# The role's defaults, as Ansible hands them over (templates already resolved).
DEFAULTS = dict(
    inventory_hostname='node1', vllm_serve_platform='atlas_300i_duo', vllm_serve_instances=[],
    vllm_serve_instance_name='default', vllm_serve_container_name='vllm-ascend', vllm_serve_chips=None,
    vllm_serve_port=8080, vllm_serve_env={}, vllm_serve_model_cache_dir='/root/.cache', vllm_serve_publish_address='127.0.0.1',
    vllm_serve_allow_unauthenticated=False,
    vllm_serve_image='', vllm_serve_image_tag=None, vllm_serve_ready_timeout=1800, vllm_serve_ready_poll_interval=10,
    vllm_serve_smoke_timeout=600, vllm_serve_smoke_max_tokens=50, vllm_serve_smoke_chat_max_tokens=1024,
    vllm_serve_log_lines=50, vllm_serve_teardown_wait=60,
    **dict(('vllm_serve_' + option, None) for option in INSTANCE_OPTIONS))
DEFAULTS.update(vllm_serve_model='Qwen/Qwen3.5-2B', vllm_serve_tensor_parallel_size=1, vllm_serve_max_model_len=16384,
                vllm_serve_extra_args=[])


def run(**variables):
    merged = dict(DEFAULTS)
    if 'ascend_vllm_instances' in variables:
        merged['vllm_serve_instances'] = variables['ascend_vllm_instances']
    merged.update(variables)
    return plan_of(variables_request(merged))


def lines(out):
    return ['[%s] %s. Fix: %s' % (p['check'], p['msg'], p['fix']) for p in out['problems']]


def test_single_instance_from_the_scalar_variables():
    out = run()
    assert out['problems'] == []
    assert out['plan'][0].pop('option_vars')['max_model_len'] == 'vllm_serve_max_model_len'
    assert (out['plan'][0].pop('shape'), out['plan'][0].pop('own_env'), out['plan'][0].pop('hidden_env')) == ('', None, {})
    # The default publish address is loopback: the node calls the instance there.
    assert out['plan'][0].pop('url') == 'http://127.0.0.1:8080'
    assert out['plan'] == [{
        'index': 0, 'name': 'default', 'named': True, 'unknown_keys': [], 'container_name': 'vllm-ascend',
        'chips': [0], 'port': 8080, 'chips_var': 'vllm_serve_tensor_parallel_size (chips 0)', 'port_var': 'vllm_serve_port',
        'container_var': 'vllm_serve_container_name', 'container_from': None, 'env': {},
        'options': {'model': 'Qwen/Qwen3.5-2B', 'tensor_parallel_size': 1, 'max_model_len': 16384, 'extra_args': []},
        'var_prefix': 'vllm_serve_', 'api_key_var': ''}]


@pytest.mark.parametrize('variables, chips, chips_var', [
    ({'vllm_serve_tensor_parallel_size': 2}, [0, 1], 'vllm_serve_tensor_parallel_size (chips 0, 1)'),
    ({'vllm_serve_chips': [1]}, [1], 'vllm_serve_chips'),
    ({'vllm_serve_chips': 3}, [3], 'vllm_serve_chips'),
    # A TP that is not a number falls back to one chip; the config check reports it.
    ({'vllm_serve_tensor_parallel_size': 'two'}, [0], 'vllm_serve_tensor_parallel_size (chips 0)'),
])
def test_chips_of_the_single_instance(variables, chips, chips_var):
    entry = run(**variables)['plan'][0]
    assert (entry['chips'], entry['chips_var']) == (chips, chips_var)


def test_listed_instances_get_consecutive_chips_ports_and_prefixed_names():
    out = run(ascend_vllm_instances=[{'name': 'a', 'tensor_parallel_size': 2}, {'name': 'b', 'max_num_seqs': 4},
                                     {'name': 'c', 'chips': [7], 'port': 9000, 'container_name': 'own'}],
              vllm_serve_env={'A': '1'})
    plan = out['plan']
    assert out['problems'] == []
    assert [(p['name'], p['chips'], p['port'], p['container_name']) for p in plan] == [
        ('a', [0, 1], 8080, 'vllm-ascend-a'), ('b', [2], 8081, 'vllm-ascend-b'), ('c', [7], 9000, 'own')]
    assert [p['chips_var'] for p in plan] == ['ascend_vllm_instances[0].tensor_parallel_size (chips 0, 1)',
                                              'ascend_vllm_instances[1].chips (not set: chips 2 handed out, '
                                              'vllm_serve_tensor_parallel_size at a time)',
                                              'ascend_vllm_instances[2].chips']
    assert [p['port_var'] for p in plan] == ['vllm_serve_port', 'vllm_serve_port + 1', 'ascend_vllm_instances[2].port']
    assert plan[1]['options']['max_num_seqs'] == 4 and 'max_num_seqs' not in plan[0]['options']
    assert plan[2]['var_prefix'] == 'ascend_vllm_instances[2].'
    assert plan[0]['env'] == {'A': '1'}


def test_instance_values_win_and_nulls_are_left_to_the_module():
    entry = run(ascend_vllm_instances=[{'name': 'a', 'model': 'Qwen/Qwen3.5-4B', 'max_model_len': None,
                                        'env': {'B': '2'}}], vllm_serve_env={'A': '1'})['plan'][0]
    assert entry['options']['model'] == 'Qwen/Qwen3.5-4B'
    assert entry['options']['max_model_len'] == 16384
    assert entry['env'] == {'A': '1', 'B': '2'}
    assert entry['container_name'] == 'vllm-ascend'


@pytest.mark.parametrize('variables, expected', [
    # Corpus: instances-unknown-key
    ({'ascend_vllm_instances': [{'name': 'small', 'chips': [0], 'port': 8080, 'max_len': 8192}]},
     '[instances] ascend_vllm_instances[0] has unknown key(s) max_len. Fix: use name, chips, port, container_name, env '
     'and vllm_config options (%s)' % ', '.join(INSTANCE_OPTIONS)),
    # Corpus: instances-no-name
    ({'ascend_vllm_instances': [{'model': 'Qwen/Qwen3.5-2B', 'chips': [0], 'port': 8080}]},
     '[instances] ascend_vllm_instances[0] has no name. Fix: give every instance a unique name'),
    # Corpus: instances-duplicate-port
    ({'ascend_vllm_instances': [{'name': 'a', 'chips': [0], 'port': 8080}, {'name': 'b', 'chips': [1], 'port': 8080}]},
     '[instances] ascend_vllm_instances: two instances share the port 8080 (ascend_vllm_instances[0].port, '
     'ascend_vllm_instances[1].port). Fix: give each instance its own port'),
    # Corpus: instances-shared-chip
    ({'ascend_vllm_instances': [{'name': 'a', 'chips': [0], 'port': 8080}, {'name': 'b', 'chips': [0], 'port': 8081}]},
     '[instances] ascend_vllm_instances: chip 0 is given to more than one instance (ascend_vllm_instances[0].chips, '
     'ascend_vllm_instances[1].chips). Fix: a 310P chip serves one vLLM server; give each instance its own chips'),
    ({'ascend_vllm_instances': [{'name': 'a', 'chips': [0]}, {'name': 'a', 'chips': [1]}]},
     '[instances] ascend_vllm_instances: two instances share the name a (ascend_vllm_instances[0].name, '
     'ascend_vllm_instances[1].name). Fix: give each instance its own name'),
    ({'vllm_serve_instances': [{'name': 'a', 'container_name': 'c'}, {'name': 'b', 'container_name': 'c'}]},
     '[instances] vllm_serve_instances: two instances share the container name c (vllm_serve_instances[0].container_name, '
     'vllm_serve_instances[1].container_name). Fix: give each instance its own container name'),
    # Corpus: instances-port-word
    ({'ascend_vllm_instances': [{'name': 'small', 'chips': [0], 'port': 'eighty'}]},
     '[instances] ascend_vllm_instances[0].port="eighty" is not a port number. Fix: set ascend_vllm_instances[0].port '
     'to an integer in 1..65535'),
    # Corpus: chips-negative, chips-empty
    ({'vllm_serve_chips': [-1]},
     '[instances] vllm_serve_chips=[-1] is not a list of device ids. Fix: set vllm_serve_chips to device ids '
     '(N of /dev/davinciN), e.g. [0] or [0, 1]'),
    ({'vllm_serve_chips': []},
     '[instances] vllm_serve_chips=[] is not a list of device ids. Fix: set vllm_serve_chips to device ids '
     '(N of /dev/davinciN), e.g. [0] or [0, 1]'),
    ({'ascend_vllm_instances': [{'name': 'a', 'chips': ['/dev/davinci0']}]},
     '[instances] ascend_vllm_instances[0].chips=["/dev/davinci0"] is not a list of device ids. Fix: set '
     'ascend_vllm_instances[0].chips to device ids (N of /dev/davinciN), e.g. [0] or [0, 1]'),
    # Corpus: port-zero, port-too-big, port-negative
    ({'vllm_serve_port': 0},
     '[instances] vllm_serve_port=0 is not a port number. Fix: set vllm_serve_port to an integer in 1..65535'),
    ({'vllm_serve_port': 70000},
     '[instances] vllm_serve_port=70000 is not a port number. Fix: set vllm_serve_port to an integer in 1..65535'),
    ({'vllm_serve_port': -8080},
     '[instances] vllm_serve_port=-8080 is not a port number. Fix: set vllm_serve_port to an integer in 1..65535'),
    ({'ascend_vllm_instances': [{'name': 'a', 'chips': [0]}, {'name': 'b', 'chips': [1]}], 'vllm_serve_port': 65535},
     '[instances] vllm_serve_port + 1=65536 is not a port number. Fix: set vllm_serve_port to an integer in 1..65535'),
    # Corpus: container-name-with-space
    ({'vllm_serve_container_name': 'vllm ascend'},
     '[instances] vllm_serve_container_name="vllm ascend" is not a Docker container name. Fix: set '
     'vllm_serve_container_name to letters, digits, _, . and - (starting with a letter or digit)'),
    # Corpus: model-cache-dir-relative, model-cache-dir-empty
    ({'vllm_serve_model_cache_dir': 'cache/models'},
     '[paths] vllm_serve_model_cache_dir="cache/models" is not an absolute path on the node. Fix: set '
     'vllm_serve_model_cache_dir to an absolute directory on the node, e.g. /root/.cache (the guide mounts it)'),
    ({'vllm_serve_model_cache_dir': ''},
     '[paths] vllm_serve_model_cache_dir="" is not an absolute path on the node. Fix: set '
     'vllm_serve_model_cache_dir to an absolute directory on the node, e.g. /root/.cache (the guide mounts it)'),
    # Corpus: publish-address-with-port
    ({'vllm_serve_publish_address': '127.0.0.1:8080'},
     '[ports] vllm_serve_publish_address="127.0.0.1:8080" is not an IP address. Fix: set vllm_serve_publish_address '
     'to an IP address of the node such as 127.0.0.1 (no port: the port is vllm_serve_port), or "" to publish on '
     'every address'),
    # The address grammar is one (contracts/_grammar.is_ip_address): no byte above 255, no malformed IPv6.
    ({'vllm_serve_publish_address': '300.1.1.1'},
     '[ports] vllm_serve_publish_address="300.1.1.1" is not an IP address. Fix: set vllm_serve_publish_address '
     'to an IP address of the node such as 127.0.0.1 (no port: the port is vllm_serve_port), or "" to publish on '
     'every address'),
    ({'vllm_serve_publish_address': ':::'},
     '[ports] vllm_serve_publish_address=":::" is not an IP address. Fix: set vllm_serve_publish_address '
     'to an IP address of the node such as 127.0.0.1 (no port: the port is vllm_serve_port), or "" to publish on '
     'every address'),
    # Corpus: ready-timeout-negative
    ({'vllm_serve_ready_timeout': -60},
     '[settings] vllm_serve_ready_timeout=-60 is below 1. Fix: set vllm_serve_ready_timeout to 1 or more, e.g. 1800'),
    ({'vllm_serve_log_lines': '-1'},
     '[settings] vllm_serve_log_lines="-1" is below 0. Fix: set vllm_serve_log_lines to 0 or more, e.g. 50'),
    ({'vllm_serve_platform': ''},
     '[platform] no platform is set for node1. Fix: set ascend_vllm_platform (atlas_300i_duo, atlas_200i_pro or '
     'atlas_200i_pro_openeuler) in group_vars, or put the host in the inventory group of that name'),
])
def test_problems_name_the_variable_the_value_and_the_fix(variables, expected):
    assert expected in lines(run(**variables))


EXPOSED_FIX = ('Fix: set vllm_serve_api_key (from Ansible Vault or an AWX credential), or set '
               'vllm_serve_allow_unauthenticated: true to serve anyone who reaches %s, or set '
               'vllm_serve_publish_address: 127.0.0.1 to keep the service on the node')


@pytest.mark.parametrize('variables, expected', [
    ({'vllm_serve_publish_address': ''},
     '[exposure] vllm_serve_publish_address="" publishes instance default on every address of the node without an '
     'API key. ' + EXPOSED_FIX % 'every address of the node'),
    ({'vllm_serve_publish_address': '0.0.0.0'},
     '[exposure] vllm_serve_publish_address="0.0.0.0" publishes instance default on every address of the node '
     'without an API key. ' + EXPOSED_FIX % 'every address of the node'),
    ({'vllm_serve_publish_address': '10.0.0.1', 'vllm_serve_allow_unauthenticated': 'no'},
     '[exposure] vllm_serve_publish_address="10.0.0.1" publishes instance default on 10.0.0.1 without an API key. '
     + EXPOSED_FIX % '10.0.0.1'),
    # One instance with its own key, the other without: only the open one is named.
    ({'vllm_serve_publish_address': '10.0.0.1',
      'vllm_serve_instances': [{'name': 'a', 'api_key': 'k'}, {'name': 'b'}]},
     '[exposure] vllm_serve_publish_address="10.0.0.1" publishes instance b on 10.0.0.1 without an API key. '
     + EXPOSED_FIX % '10.0.0.1'),
])
def test_exposure_needs_a_key_or_the_switch(variables, expected):
    assert lines(run(**variables)) == [expected]


@pytest.mark.parametrize('variables', [
    {'vllm_serve_publish_address': '10.0.0.1', 'vllm_serve_api_key': 'sk-1'},
    {'vllm_serve_publish_address': '', 'vllm_serve_allow_unauthenticated': True},
    {'vllm_serve_publish_address': '10.0.0.1', 'vllm_serve_allow_unauthenticated': 'true'},
    {'vllm_serve_publish_address': '127.0.0.2'}, {'vllm_serve_publish_address': '::1'},
])
def test_exposure_that_is_decided_is_no_problem(variables):
    assert run(**variables)['problems'] == []


@pytest.mark.parametrize('variables', [
    {'vllm_serve_publish_address': '10.0.0.1', 'vllm_serve_api_key': 'k'}, {'vllm_serve_publish_address': '::1'},
    {'vllm_serve_smoke_timeout': '30'}, {'vllm_serve_teardown_wait': 0}, {'vllm_serve_chips': [0, 1]},
])
def test_good_settings_are_no_problem(variables):
    assert run(**variables)['problems'] == []


def test_problems_come_in_report_order():
    out = run(vllm_serve_platform='', vllm_serve_model_cache_dir='x', vllm_serve_chips=[],
              vllm_serve_instances=[{'chips': []}])
    assert [p['check'] for p in out['problems']] == ['platform', 'instances', 'instances', 'paths']


@pytest.mark.parametrize('image, tag, expected', [
    # A release tag written in the reference wins (it is what runs); vllm_config reads the
    # tag out of the reference and problems show the reference as written.
    ('quay.io/ascend/vllm-ascend:v0.23.0-310p', None, 'quay.io/ascend/vllm-ascend:v0.23.0-310p'),
    ('quay.io/ascend/vllm-ascend:v0.11.0-310p', 'v0.23.0-310p', 'quay.io/ascend/vllm-ascend:v0.11.0-310p'),
    ('r:5000/a/b:v0.11.0-310p@sha256:' + 'a' * 64, 'v0.23.0-310p', 'r:5000/a/b:v0.11.0-310p@sha256:' + 'a' * 64),
    ('localhost:5000/vllm-ascend', None, None),
    ('localhost:5000/vllm-ascend@sha256:abcd', None, None),
    ('', None, None),
    ('x:y', 'v0.22.0', 'v0.22.0'),
    ('x:latest', None, 'x:latest'),
])
def test_image_tag_to_check(image, tag, expected):
    assert run(vllm_serve_image=image, vllm_serve_image_tag=tag)['image_tag'] == expected


def test_image_pull_image_tag_is_checked_as_written():
    out = run(vllm_serve_image='', vllm_serve_image_tag='v0.23.0-310p', image_pull_image='q.io/a/b:v0.11.0-310p')
    assert out['image_tag'] == 'q.io/a/b:v0.11.0-310p'


# ------------------------------------------------------------------ the API key
def test_the_plan_holds_a_marker_naming_the_variable_not_the_key():
    out = run(vllm_serve_api_key='sk-top-secret')
    assert 'sk-top-secret' not in repr(out)
    (entry,) = out['plan']
    assert entry['options']['api_key'] == '<hidden: vllm_serve_api_key>'
    assert entry['api_key_var'] == 'vllm_serve_api_key'


def test_an_instance_key_is_named_by_its_field():
    out = run(vllm_serve_api_key='sk-all', ascend_vllm_instances=[
        {'name': 'a', 'api_key': 'sk-a'}, {'name': 'b', 'chips': [1]}, {'name': 'c', 'chips': [2], 'api_key': None}])
    assert 'sk-a' not in repr(out) and 'sk-all' not in repr(out)
    assert [entry['api_key_var'] for entry in out['plan']] == [
        'ascend_vllm_instances[0].api_key', 'vllm_serve_api_key', 'vllm_serve_api_key']


@pytest.mark.parametrize('key', [None, ''])
def test_no_key_no_marker(key):
    (entry,) = run(vllm_serve_api_key=key)['plan']
    assert entry['api_key_var'] == '' and not entry['options'].get('api_key')


# ------------------------------------------------------------- paths and shapes
@pytest.mark.parametrize('variables, expected', [
    ({'vllm_serve_model_path': '/root/.cache/../../etc'},
     '[paths] vllm_serve_model_path="/root/.cache/../../etc" has a .. segment (it would resolve to /etc). '
     'Fix: write the directory itself, without ..'),
    ({'vllm_serve_model_path': '~/models/q'},
     '[paths] vllm_serve_model_path="~/models/q" starts with ~, which nothing expands on the node. '
     'Fix: write the absolute path, e.g. /root/models/...'),
    ({'vllm_serve_model_path': '/data//m'},
     '[paths] vllm_serve_model_path="/data//m" is not normalised (it means /data/m). Fix: write it as /data/m'),
    ({'vllm_serve_extra_args': '--enforce-eager'},
     '[settings] vllm_serve_extra_args="--enforce-eager" is a string, not a list. '
     'Fix: write vllm_serve_extra_args as a YAML list, e.g. ["--enforce-eager"]'),
    ({'ascend_vllm_instances': [{'name': 'a', 'cudagraph_batch_sizes': '[1,2]'}]},
     '[settings] ascend_vllm_instances[0].cudagraph_batch_sizes="[1,2]" is a string, not a list. '
     'Fix: write ascend_vllm_instances[0].cudagraph_batch_sizes as a YAML list, e.g. [1, 2, 4, 8]'),
    ({'ascend_vllm_instances': [{'name': 'a', 'env': {'HF_ENDPOINT': None}}]},
     '[settings] ascend_vllm_instances[0].env.HF_ENDPOINT=null is not a string. '
     'Fix: give ascend_vllm_instances[0].env.HF_ENDPOINT a value in quotes (e.g. "1"), or remove the key'),
    ({'vllm_serve_env': {'A': None}},
     '[settings] vllm_serve_env.A=null is not a string. Fix: give vllm_serve_env.A a value in quotes (e.g. "1"), '
     'or remove the key'),
    ({'ascend_vllm_instances': ['chip0']},
     '[instances] ascend_vllm_instances[0] is a string, not a mapping. '
     'Fix: write each instance as a mapping, e.g. {name: chip0, chips: [0]}'),
    ({'ascend_vllm_instances': '[{name: a}]'},
     '[instances] ascend_vllm_instances[0] is a string, not a mapping. '
     'Fix: write each instance as a mapping, e.g. {name: chip0, chips: [0]}'),
    ({'group_names': ['atlas_200i_pro', 'atlas_300i_duo', 'web']},
     '[platform] host node1 is in 2 platform groups: atlas_200i_pro, atlas_300i_duo. '
     'Fix: put node1 in one platform group only (one host is one kind of board)'),
])
def test_paths_and_shapes(variables, expected):
    assert lines(run(**variables)) == [expected]


@pytest.mark.parametrize('path', ['/data/models/Qwen3.5-2B', '/data/models/Qwen3.5-2B/', 'Qwen/Qwen3.5-2B'])
def test_plain_model_paths_pass(path):
    assert lines(run(vllm_serve_model_path=path)) == []


# ------------------------------------------------------------------ listen address and model roots

@pytest.mark.parametrize('host, fix', [('127.0.0.1', '127.0.0.1'), ('localhost', '127.0.0.1'), ('10.0.0.5', '10.0.0.5')])
def test_a_listen_address_other_than_every_address_is_refused(host, fix):
    found = [p for p in run(vllm_serve_host=host)['problems'] if p['check'] == 'ports']
    assert found[0]['msg'].startswith('vllm_serve_host="%s": vLLM listens inside the container' % host)
    assert 'vllm_serve_host: 0.0.0.0' in found[0]['fix'] and '(e.g. %s)' % fix in found[0]['fix']


@pytest.mark.parametrize('host', ['0.0.0.0', '::', '0.0.0.0 ', 'http://x'])
def test_every_address_passes_and_a_malformed_one_is_left_to_vllm_config(host):
    assert run(vllm_serve_host=host)['problems'] == []


@pytest.mark.parametrize('roots, bad', [
    ('/data/models', 'is not a list'), (['data/models'], 'absolute'), (['/data/../etc'], 'normalised'),
    (['~/models'], 'absolute'), (['/'], 'below /'), (['/data//models'], 'normalised'),
])
def test_model_roots_are_absolute_normalised_directories(roots, bad):
    found = [p for p in run(vllm_serve_model_roots=roots)['problems'] if 'vllm_serve_model_roots' in p['msg']]
    assert found and bad in found[0]['msg']


def test_good_model_roots_pass():
    assert run(vllm_serve_model_roots=['/data/models', '/mnt/nfs/models/'])['problems'] == []


def test_a_container_name_built_from_an_instance_name_names_what_the_user_typed():
    out = run(ascend_vllm_instances=[{'name': 'my model', 'chips': [0]}, {'name': 'b', 'chips': [1]}])
    found = [line for line in lines(out) if 'Docker container name' in line]
    assert found == ['[instances] ascend_vllm_instances[0].name="my model": the container name "vllm-ascend-my model" '
                     'made from it and vllm_serve_container_name="vllm-ascend" is not a Docker container name. Fix: '
                     'give ascend_vllm_instances[0].name only letters, digits, _, . and -, or set '
                     'ascend_vllm_instances[0].container_name']


def test_each_instance_turns_the_chat_parsers_on_or_off_and_the_smoke_tests_follow():
    from ansible_collections.ascend.vllm.plugins.plugin_utils.plan._host import configs, named
    merged = dict(DEFAULTS, vllm_serve_offline=False, vllm_serve_platform_overrides={}, vllm_serve_host='0.0.0.0', vllm_serve_instances=[
        {'name': 'chat', 'chips': [0]},
        {'name': 'batch', 'chips': [1], 'port': 8081, 'reasoning_parser': 'none', 'tool_call_parser': 'none'}])
    request = variables_request(merged)
    out = plan_of(request)
    assert out['problems'] == []
    configured = configs(out['plan'], request, {}, 'v0.23.0-310p')
    argv = dict((name, config['argv']) for name, config in configured.items())
    assert argv['chat'][-5:] == ['--reasoning-parser', 'qwen3', '--enable-auto-tool-choice', '--tool-call-parser',
                                 'qwen3_coder']
    assert '--reasoning-parser' not in argv['batch'] and '--tool-call-parser' not in argv['batch']
    smoke = dict((entry['name'], dict((key, entry['smoke'][key]) for key in ('reasoning', 'reasoning_field', 'tool_call')))
                 for entry in named(out['plan'], configured, False))
    assert smoke == {'chat': {'reasoning': True, 'reasoning_field': 'reasoning', 'tool_call': True},
                     'batch': {'reasoning': False, 'reasoning_field': 'reasoning', 'tool_call': False}}


@pytest.mark.parametrize('switch', ['vllm_serve_smoke_reasoning', 'vllm_serve_smoke_tool_call'])
def test_a_smoke_switch_skips_its_check_and_keeps_the_parser(switch):
    """vllm_serve_smoke_reasoning / _tool_call false: the parser stays on the command line, its check is off."""
    from ansible_collections.ascend.vllm.plugins.plugin_utils.plan._host import configs, named, smoke_settings
    merged = dict(DEFAULTS, vllm_serve_offline=False, vllm_serve_platform_overrides={}, vllm_serve_host='0.0.0.0')
    merged[switch] = False
    request = variables_request(merged)
    out = plan_of(request)
    assert out['problems'] == []
    configured = configs(out['plan'], request, {}, 'v0.23.0-310p')
    argv = list(configured.values())[0]['argv']
    assert '--reasoning-parser' in argv and '--tool-call-parser' in argv
    smoke = named(out['plan'], configured, False, smoke_settings(request))[0]['smoke']
    check = switch[len('vllm_serve_smoke_'):]
    assert smoke[check] is False
    assert smoke[{'reasoning': 'tool_call', 'tool_call': 'reasoning'}[check]] is True
