# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.ascend.vllm.plugins.filter.containers_to_remove import containers_to_remove

# vllm-ascend-a has no container of ours on the node (none, or another user's of that name).
PLAN = [{'container_name': 'vllm-ascend-a'}, {'container_name': 'vllm-ascend-b'}]
MANAGED = [{'Names': ['/vllm-ascend-b']}, {'Names': ['/old']}]


@pytest.mark.parametrize('all_managed, expected', [
    (True, ['vllm-ascend-b', 'old']),
    ('yes', ['vllm-ascend-b', 'old']),
    (False, ['vllm-ascend-b']),
])
def test_planned_first_then_the_managed_ones_once(all_managed, expected):
    assert containers_to_remove(PLAN, MANAGED, all_managed) == expected
