# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.ascend.vllm.plugins.filter.hosts_left_out import hosts_left_out

LONG = 'word ' * 80


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
def test_reason_per_host(variables, expected):
    assert hosts_left_out(['n2'], {'n2': variables}) == [expected]


def test_hosts_sorted():
    assert [line.split(':')[0] for line in hosts_left_out(['n3', 'n1'], {'n1': {}, 'n3': {}})] == ['n1', 'n3']
