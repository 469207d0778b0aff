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


def test_a_kept_previous_container_goes_with_its_instance():
    managed = [{'Names': ['/vllm-ascend-b']}, {'Names': ['/vllm-ascend-b-previous']}, {'Names': ['/vllm-ascend-a-previous']}]
    # vllm-ascend-a itself is not ours (or gone); its kept container is ours and goes.
    assert containers_to_remove(PLAN, managed, False) == ['vllm-ascend-a-previous', 'vllm-ascend-b', 'vllm-ascend-b-previous']


def test_a_previous_container_that_is_not_ours_stays():
    assert containers_to_remove(PLAN, [{'Names': ['/vllm-ascend-b']}], False) == ['vllm-ascend-b']
