# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.ascend.vllm.plugins.filter.serve_summary import serve_summary

PLAN = [{'name': 'a', 'container_name': 'vllm-ascend-a', 'chips': [0, 1], 'port': 8080,
         'options': {'model': 'Qwen/Qwen3.5-2B'}},
        {'name': 'b', 'container_name': 'vllm-ascend-b', 'chips': [2], 'port': 8081,
         'options': {'model': 'Qwen/Qwen3.5-4B', 'served_model_name': 'small'}}]


@pytest.mark.parametrize('status, check_mode, expected', [
    ({'a': {'state': 'ready', 'served_model_name': 'qwen3.5', 'completion': ' bright'}}, False,
     ['a: Qwen/Qwen3.5-2B as qwen3.5 in vllm-ascend-a on chips 0,1, port 8080: ready -- " bright"',
      'b: Qwen/Qwen3.5-4B as small in vllm-ascend-b on chips 2, port 8081: not verified']),
    ({'b': {'state': 'failed', 'served_model_name': 'small', 'completion': ''}}, True,
     ['a: Qwen/Qwen3.5-2B as qwen3.5 in vllm-ascend-a on chips 0,1, port 8080: check mode: not verified',
      'b: Qwen/Qwen3.5-4B as small in vllm-ascend-b on chips 2, port 8081: failed']),
])
def test_one_line_per_instance(status, check_mode, expected):
    assert serve_summary(PLAN, status, check_mode) == expected


def test_model_unknown():
    assert serve_summary([dict(PLAN[0], options={})])[0].startswith('a: ? as qwen3.5 ')


@pytest.mark.parametrize('exposure, expected', [
    ({'publish_address': '', 'allow_unauthenticated': True},
     'UNAUTHENTICATED: instance a, b published on every address of the node without an API key '
     '(vllm_serve_allow_unauthenticated: true); anyone who reaches it can use the model'),
    ({'publish_address': '10.0.0.1', 'allow_unauthenticated': 'yes'},
     'UNAUTHENTICATED: instance a, b published on 10.0.0.1 without an API key '
     '(vllm_serve_allow_unauthenticated: true); anyone who reaches it can use the model'),
])
def test_unauthenticated_exposure_is_repeated(exposure, expected):
    assert serve_summary(PLAN, {}, False, exposure)[-1] == expected


@pytest.mark.parametrize('exposure, plan', [
    ({'publish_address': '127.0.0.1', 'allow_unauthenticated': True}, PLAN),
    ({'publish_address': '', 'allow_unauthenticated': False}, PLAN),
    ({'publish_address': '', 'allow_unauthenticated': True},
     [dict(entry, api_key_var='vllm_serve_api_key') for entry in PLAN]),
])
def test_no_warning_when_local_or_keyed(exposure, plan):
    assert len(serve_summary(plan, {}, False, exposure)) == 2
