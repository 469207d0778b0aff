# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""serve_summary: the lines of a host's instances and balancer, then why each host left out is not serving.

Run as Ansible runs the action: arguments checked against the documented spec, the hosts left
out read from ``hostvars``, no connection used, the lines shown at every verbosity.
"""

from unittest import mock

import pytest
from hypothesis import given, settings, strategies as st

from ansible_collections.ascend.vllm.plugins.action import serve_summary as action_module

# As host_plan plans them (plan/_host.named gives each its served name and what runs it).
PLAN = [{'name': 'a', 'container_name': 'vllm-ascend-a', 'chips': [0, 1], 'port': 8080,
         'options': {'model': 'Qwen/Qwen3.5-2B'}, 'served_model_name': 'qwen3.5', 'runs_as': 'vllm-ascend-a'},
        {'name': 'b', 'container_name': 'vllm-ascend-b', 'chips': [2], 'port': 8081,
         'options': {'model': 'Qwen/Qwen3.5-4B', 'served_model_name': 'small'}, 'served_model_name': 'small',
         'runs_as': 'vllm-ascend-b'}]
LONG = 'word ' * 80


def run(args, check_mode=False, hostvars=None):
    task = mock.MagicMock()
    task.check_mode = check_mode
    task.args = dict(args)
    task.async_val = 0
    # A connection that fails the test when used: the summary is the controller's.
    connection = mock.MagicMock(side_effect=AssertionError('no connection'))
    action = action_module.ActionModule(task, connection, mock.MagicMock(), loader=None, templar=None,
                                        shared_loader_obj=None)
    return action.run(task_vars={'inventory_hostname': 'n1', 'hostvars': hostvars or {}})


def lines(plan, status=None, check_mode=False, exposure=None, left_out=(), hostvars=None):
    args = {'instances': plan, 'status': status or {}, 'exposure': exposure or {}, 'left_out': list(left_out)}
    result = run(args, check_mode, hostvars)
    assert not result.get('failed'), result
    assert result['_ansible_verbose_always'] and result['changed'] is False
    return result['msg']


@pytest.mark.parametrize('status, check_mode, expected', [
    ({'a': {'state': 'ready', 'served_model_name': 'qwen3.5', 'completion': ' bright'}}, False,
     ['a: Qwen/Qwen3.5-2B as qwen3.5 in vllm-ascend-a on chips 0,1, port 8080: ready -- " bright"',
      'b: Qwen/Qwen3.5-4B as small in vllm-ascend-b on chips 2, port 8081: not verified']),
    ({'b': {'state': 'failed', 'served_model_name': 'small', 'completion': ''}}, True,
     ['a: Qwen/Qwen3.5-2B as qwen3.5 in vllm-ascend-a on chips 0,1, port 8080: check mode: not verified',
      'b: Qwen/Qwen3.5-4B as small in vllm-ascend-b on chips 2, port 8081: failed']),
])
def test_one_line_per_instance(status, check_mode, expected):
    assert lines(PLAN, status, check_mode) == expected


def test_a_service_is_named_by_its_unit():
    # The source install method: ready_instance.yml records the unit as the instance's container.
    status = {'a': {'state': 'ready', 'container': 'vllm-ascend-a.service', 'served_model_name': 'qwen3.5'}}
    assert lines(PLAN, status)[0] == 'a: Qwen/Qwen3.5-2B as qwen3.5 in vllm-ascend-a.service on chips 0,1, port 8080: ready'


def test_model_unknown():
    assert lines([dict(PLAN[0], options={})])[0].startswith('a: ? as qwen3.5 ')


@pytest.mark.parametrize('exposure, expected', [
    ({'publish_address': '', 'allow_unauthenticated': True},
     'UNAUTHENTICATED: instance a, b published on every address of the node without an API key '
     '(vllm_serve_allow_unauthenticated: true); anyone who reaches it can use the model'),
    ({'publish_address': '10.0.0.1', 'allow_unauthenticated': 'yes'},
     'UNAUTHENTICATED: instance a, b published on 10.0.0.1 without an API key '
     '(vllm_serve_allow_unauthenticated: true); anyone who reaches it can use the model'),
])
def test_unauthenticated_exposure_is_repeated(exposure, expected):
    assert lines(PLAN, {}, False, exposure)[-1] == expected


@pytest.mark.parametrize('exposure, plan', [
    ({'publish_address': '127.0.0.1', 'allow_unauthenticated': True}, PLAN),
    ({'publish_address': '', 'allow_unauthenticated': False}, PLAN),
    ({'publish_address': '', 'allow_unauthenticated': True},
     [dict(entry, api_key_var='vllm_serve_api_key') for entry in PLAN]),
])
def test_no_warning_when_local_or_keyed(exposure, plan):
    assert len(lines(plan, {}, False, exposure)) == 2


@pytest.mark.parametrize('variables, expected', [
    ({'__npu_check_node': {'unreachable': True, 'msg': 'Failed to connect\n  to the host'}},
     'n2: NOT deployed, unreachable: Failed to connect to the host'),
    ({'__npu_check_node': {'failed': True}}, 'n2: NOT deployed, did not answer: no answer'),
    ({'__npu_check_node': {'unreachable': True, 'msg': LONG}},
     'n2: NOT deployed, unreachable: ' + ('word ' * 39).strip() + '...'),
    ({'__npu_check_node': {},
      'vllm_serve_status': {'a': {'state': 'ready'}, 'b': {'state': 'failed', 'error': 'crashed'}, 'c': {'state': 'failed'}}},
     'n2: NOT deployed, failed: instance b, instance c -- crashed'),
    ({}, 'n2: NOT deployed, failed before serving (see its error above)'),
    ({'ascend_vllm_plan': {'unreachable': True, 'msg': 'Failed to connect'}, '__npu_check_node': {}},
     'n2: NOT deployed, unreachable: Failed to connect'),
    ({'ascend_vllm_plan': {'changed': False, 'plan': {}}}, 'n2: NOT deployed, failed before serving (see its error above)'),
])
def test_reason_per_host_left_out(variables, expected):
    assert lines(PLAN, left_out=['n2'], hostvars={'n2': variables})[-1] == expected


def test_hosts_left_out_sorted_after_the_host_lines():
    out = lines(PLAN, left_out=['n3', 'n1'], hostvars={'n1': {}, 'n3': {}})
    assert [line.split(':')[0] for line in out] == ['a', 'b', 'n1', 'n3']


def test_arguments_are_checked_against_the_spec():
    result = run({'instances': 'not a list', 'colour': 'red'})
    assert result['failed'] and 'colour' in result['msg']
    assert run({})['failed']


@settings(max_examples=100, deadline=None)
@given(hosts=st.lists(st.text(alphabet='abcdefgh0123', min_size=1, max_size=6), unique=True, max_size=5),
       reach=st.sampled_from([{}, {'unreachable': True, 'msg': 'gone'}, {'failed': True, 'msg': 'no'}]))
def test_every_host_left_out_gets_exactly_one_not_deployed_line(hosts, reach):
    """Whatever hosts drop out and however: one line each, sorted, after the host's own lines."""
    out = lines(PLAN, left_out=hosts, hostvars=dict((host, {'ascend_vllm_plan': reach}) for host in hosts))
    assert out[:2] == lines(PLAN)
    assert out[2:] == ['%s: NOT deployed, %s' % (host, out[2 + index].split(', ', 1)[1])
                       for index, host in enumerate(sorted(hosts))]
    assert all(line.startswith('%s: NOT deployed, ' % host) for line, host in zip(out[2:], sorted(hosts)))
