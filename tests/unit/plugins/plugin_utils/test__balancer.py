# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""_balancer: which instances a host's balancer fronts, on which ports, with which key digests."""

import hashlib

import pytest

from ansible_collections.ascend.vllm.plugins.plugin_utils.fleet._balancer import (
    addresses, balancer_plan, enabled, groups, key_digest, summary_lines)


def entry(name, port, served=None, model='Qwen/Qwen3.5-2B'):
    options = {'model': model}
    if served:
        options['served_model_name'] = served
    # The plan names every instance (plan/_host.named): its served name is the entry's own.
    return {'name': name, 'port': port, 'options': options, 'served_model_name': served or 'qwen3.5'}


SETTINGS = {'enabled': None, 'port': 8000, 'metrics_port': 8404, 'publish_address': '127.0.0.1',
            'allow_unauthenticated': False}


def test_key_digest_is_what_haproxy_computes_from_the_header():
    # req.hdr(authorization),sha2(256),hex,lower of "Bearer sk-1"
    assert key_digest('sk-1') == hashlib.sha256(b'Bearer sk-1').hexdigest()
    assert 'sk-1' not in key_digest('sk-1')


def test_groups_follow_the_served_name_in_plan_order():
    plan = [entry('a', 8080), entry('b', 8081, 'small'), entry('c', 8082), entry('d', 8083, 'small')]
    got = groups(plan)
    assert [(name, [e['name'] for e in members]) for name, members in got] == [
        ('qwen3.5', ['a', 'c']), ('small', ['b', 'd'])]


@pytest.mark.parametrize('setting, sizes, expected', [
    (None, [2], (True, 'on: more than one instance serves m0')),
    (None, [1, 1], (False, 'off: no model is served by more than one instance')),
    (True, [1], (True, 'on (balancer_enabled: true)')),
    ('no', [4], (False, 'off (balancer_enabled: false)')),
])
def test_on_by_default_when_a_model_has_several_instances(setting, sizes, expected):
    grouped = [('m%d' % index, [{}] * size) for index, size in enumerate(sizes)]
    assert enabled(setting, grouped) == expected


@pytest.mark.parametrize('address, expected', [
    ('127.0.0.1', ('127.0.0.1', '127.0.0.1')), ('', ('', '127.0.0.1')), ('0.0.0.0', ('', '127.0.0.1')),
    ('10.1.2.3', ('10.1.2.3', '10.1.2.3')), ('::1', ('ipv6@::1', '[::1]')), ('::', ('ipv6@::', '127.0.0.1')),
])
def test_bind_and_reach_addresses(address, expected):
    assert addresses(address) == expected


def test_four_instances_of_one_model_behind_one_frontend():
    plan = [entry(name, 8080 + index) for index, name in enumerate('abcd')]
    out = balancer_plan(plan, {}, SETTINGS)
    assert out['enabled'] and out['problems'] == []
    assert out['frontends'] == [{
        'name': 'qwen3.5', 'served': 'qwen3.5', 'model': 'Qwen/Qwen3.5-2B', 'port': 8000, 'index': 0,
        'servers': [{'name': name, 'instance': name, 'port': 8080 + index} for index, name in enumerate('abcd')],
        'key_required': False}]
    assert out['key_digests'] == {'qwen3.5': []}


def test_one_frontend_per_model_counting_up_from_the_port():
    plan = [entry('a', 8080, 'big/model'), entry('b', 8081, 'big/model'), entry('c', 8082, 'small')]
    out = balancer_plan(plan, {}, SETTINGS)
    got = [(f['name'], f['port'], len(f['servers'])) for f in out['frontends']]
    assert got == [('big_model', 8000, 2), ('small', 8001, 1)]


def test_key_digests_not_keys():
    plan = [entry('a', 8080), entry('b', 8081)]
    out = balancer_plan(plan, {'a': 'sk-secret', 'b': 'sk-secret'}, SETTINGS)
    assert out['frontends'][0]['key_required'] is True
    assert out['key_digests'] == {'qwen3.5': [key_digest('sk-secret')]}
    assert 'sk-secret' not in repr(out)


@pytest.mark.parametrize('keys, settings, expected', [
    ({'a': 'k1', 'b': 'k2'}, {},
     ['[balancer] instances a, b serve qwen3.5 behind one balancer with different API keys. Fix: give them the same '
      'api_key (a request goes to any of them), or set balancer_enabled: false']),
    ({'a': 'k1'}, {},
     ['[balancer] of the instances serving qwen3.5 behind one balancer, b have no API key. Fix: give every instance '
      'of qwen3.5 the same api_key, or set balancer_enabled: false']),
    ({}, {'port': 8081},
     ['[balancer] balancer_port=8081: port 8081 is already instance b\'s. Fix: give the balancer ports no instance '
      'uses (balancer_port)']),
    ({}, {'port': 'http'}, ['[balancer] balancer_port="http" is not a port number. Fix: set balancer_port to an '
                            'integer in 1..65535']),
    ({}, {'metrics_port': 8000},
     ['[balancer] balancer_metrics_port=8000: port 8000 is already the balancer\'s (balancer_port). Fix: give the '
      'balancer ports no instance uses (balancer_metrics_port)']),
    ({}, {'publish_address': ''},
     ['[exposure] balancer_publish_address="" publishes the balancer of qwen3.5 on every address of the node without '
      'an API key. Fix: set vllm_serve_api_key (from Ansible Vault or an AWX credential), or set '
      'vllm_serve_allow_unauthenticated: true to serve anyone who reaches every address of the node, or set '
      'balancer_publish_address: 127.0.0.1 to keep the balancer on the node']),
])
def test_problems_name_the_variable_and_the_fix(keys, settings, expected):
    plan = [entry('a', 8080), entry('b', 8081)]
    out = balancer_plan(plan, keys, dict(SETTINGS, enabled=True, **settings))
    assert ['[%s] %s. Fix: %s' % (p['check'], p['msg'], p['fix']) for p in out['problems']] == expected


@pytest.mark.parametrize('keys, settings', [
    ({'a': 'k', 'b': 'k'}, {'publish_address': '10.0.0.5'}),
    ({}, {'publish_address': '', 'allow_unauthenticated': True}),
    ({}, {'enabled': False, 'port': 'http', 'publish_address': ''}),
])
def test_decided_settings_are_no_problem(keys, settings):
    plan = [entry('a', 8080), entry('b', 8081)]
    assert balancer_plan(plan, keys, dict(SETTINGS, **settings))['problems'] == []


def test_summary_lines():
    plan = [entry('a', 8080), entry('b', 8081)]
    out = balancer_plan(plan, {'a': 'k', 'b': 'k'}, SETTINGS)
    status = dict(out, address='127.0.0.1', tls=True)
    assert summary_lines(status) == [
        'balancer: qwen3.5 at https://127.0.0.1:8000 across a, b (on: more than one instance serves qwen3.5), '
        'API key required']
    assert summary_lines({'enabled': False, 'why': 'off: x'}) == ['balancer: off: x']
    assert summary_lines(None) == []


def test_two_models_under_one_served_name_are_two_frontends():
    plan = [entry('small', 8080), entry('large', 8081, model='Qwen/Qwen3.5-9B')]
    assert balancer_plan(plan, {}, SETTINGS)['enabled'] is False
    out = balancer_plan(plan, {}, dict(SETTINGS, enabled=True))
    assert [(f['name'], f['model'], f['port']) for f in out['frontends']] == [
        ('qwen3.5', 'Qwen/Qwen3.5-2B', 8000), ('qwen3.5_1', 'Qwen/Qwen3.5-9B', 8001)]


def test_by_default_instances_with_different_keys_are_not_balanced():
    plan = [entry('a', 8080), entry('b', 8081)]
    out = balancer_plan(plan, {'a': 'k1', 'b': 'k2'}, SETTINGS)
    assert (out['enabled'], out['why'], out['problems']) == (
        False, 'off: no model is served by more than one instance; not qwen3.5: different API keys', [])
    plan.append(entry('c', 8082, 'small'))
    plan.append(entry('d', 8083, 'small'))
    out = balancer_plan(plan, {'a': 'k1', 'b': 'k2'}, SETTINGS)
    assert out['why'] == 'on: more than one instance serves small; not qwen3.5: different API keys'
    assert [f['served'] for f in out['frontends']] == ['small'] and out['problems'] == []


@pytest.mark.parametrize('address, refused', [
    ('127.0.0.1', False), ('', False), ('::', False), ('10.0.0.5', False),
    ('300.1.1.1', True), ('localhost:8000', True), ('node-1', True), ('[::1]', True),
])
def test_the_publish_address_is_an_ip_address_or_empty(address, refused):
    plan = [entry('a', 8080), entry('b', 8081)]
    out = balancer_plan(plan, {'a': 'sk-secret', 'b': 'sk-secret'}, dict(SETTINGS, publish_address=address))
    named = [problem for problem in out['problems'] if problem['msg'].startswith('balancer_publish_address=')]
    assert bool(named) is refused, out['problems']
    if refused:
        assert 'is not an IP address' in named[0]['msg'] and 'balancer_publish_address' in named[0]['fix']
