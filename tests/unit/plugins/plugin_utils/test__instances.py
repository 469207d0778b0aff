# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The helpers of _instances that reproduce Jinja's filters and tests exactly (the plan's
numbers and messages must stay those of the former Jinja); the plan itself is tested
through instance_plan (plugin_utils/plan/_host.py)."""
import pytest

from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._instances import (
    is_integer, plain, repeated, to_int, to_json)


@pytest.mark.parametrize('value, expected', [
    (2, 2), ('2', 2), (1.5, 1), ('1.5', 1), ('two', 0), (None, 0), ([], 0), (True, 1),
])
def test_to_int_is_jinjas_int(value, expected):
    assert to_int(value) == expected


@pytest.mark.parametrize('value, expected', [(0, True), (-1, True), (True, False), (1.0, False), ('1', False)])
def test_is_integer_is_jinjas_integer_test(value, expected):
    assert is_integer(value) is expected


@pytest.mark.parametrize('values, expected', [
    ([0, 1, 0, 2, 1, 0], [0, 1]), ([8080, 8081], []), (['a', 'a'], ['a']),
])
def test_repeated_in_order_of_first_occurrence(values, expected):
    assert repeated(values) == expected


@pytest.mark.parametrize('value, expected', [('a', '"a"'), ([0, 1], '[0, 1]'), ({'a': None}, '{"a": null}'), (-1, '-1')])
def test_to_json_like_ansibles(value, expected):
    assert to_json(value) == expected


class Lazy(dict):
    """Stands in for Ansible's lazy containers: an item is resolved when read through []."""

    def __getitem__(self, key):
        return 'resolved:' + dict.__getitem__(self, key)


def test_plain_reads_items_through_getitem():
    assert plain({'outer': [Lazy(a='x')]}) == {'outer': [{'a': 'resolved:x'}]}
