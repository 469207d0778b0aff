# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The plan never carries an API key; instance_api_key reads it back where it is needed.

(The plan's side, the marker, is tested in test_instance_plan.py.)
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.filter.instance_api_key import instance_api_key


def entry(index, key_var):
    return {'index': index, 'name': 'i%d' % index, 'api_key_var': key_var,
            'options': {'api_key': '<hidden: %s>' % key_var} if key_var else {}}


HOSTVARS = {'vllm_serve_api_key': 'sk-all', 'vllm_serve_instances': [
    {'name': 'a', 'api_key': 'sk-a'}, {'name': 'b'}, {'name': 'c', 'api_key': None}]}


@pytest.mark.parametrize('index, key_var, key', [
    (0, 'ascend_vllm_instances[0].api_key', 'sk-a'),
    (1, 'vllm_serve_api_key', 'sk-all'),
    (2, 'vllm_serve_api_key', 'sk-all'),
    # No marker, no key, whatever the variables hold.
    (0, '', ''),
])
def test_an_instance_key_wins_over_the_role_key(index, key_var, key):
    assert instance_api_key(HOSTVARS, entry(index, key_var)) == key


def test_the_single_instance_takes_the_role_key():
    hostvars = {'vllm_serve_api_key': 'sk-1', 'vllm_serve_instances': []}
    assert instance_api_key(hostvars, entry(0, 'vllm_serve_api_key')) == 'sk-1'


def test_needs_the_host_variables():
    with pytest.raises(AnsibleFilterError, match='vars'):
        instance_api_key('sk', entry(0, 'vllm_serve_api_key'))
