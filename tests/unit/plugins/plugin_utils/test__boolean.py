# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The one reading of a boolean agrees with Ansible's own for every value, typed or as text."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from ansible.module_utils.parsing.convert_bool import boolean

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._boolean import is_true, to_bool

WORDS = ['y', 'yes', 'on', '1', 'true', 't', 'n', 'no', 'off', '0', 'false', 'f', 'maybe', '2', '', 'enable']


def _cased(word, flags):
    return ''.join(char.upper() if flag else char for char, flag in zip(word, flags + [False] * len(word)))


def _ansible(value):
    try:
        return boolean(value, strict=True)
    except TypeError:
        return None


@given(st.sampled_from(WORDS), st.lists(st.booleans(), max_size=5), st.sampled_from(['', ' ', '\t', ' \n']),
       st.sampled_from(['', ' ', '\n']))
def test_text_reads_as_ansible_reads_it(word, flags, before, after):
    value = before + _cased(word, flags) + after
    assert to_bool(value) == _ansible(value), repr(value)
    assert is_true(value) is boolean(value, strict=False), repr(value)


@given(st.one_of(st.booleans(), st.integers(min_value=-3, max_value=3), st.sampled_from([0.0, 1.0, 0.5]), st.none(),
                 st.lists(st.booleans(), max_size=1)))
def test_typed_values_read_as_ansible_reads_them(value):
    expected = _ansible(value) if not isinstance(value, list) else None
    assert to_bool(value) == expected, repr(value)
    assert is_true(value) is (expected is True)


@pytest.mark.parametrize('value', ['y', 'Y', 't', 'T ', ' On'])
def test_the_short_forms_every_copy_did_not_agree_on_are_true(value):
    assert to_bool(value) is True


@pytest.mark.parametrize('value', ['n', 'f', 'OFF'])
def test_their_false_twins_are_false(value):
    assert to_bool(value) is False
