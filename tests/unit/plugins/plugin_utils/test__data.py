# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The catalogs' data files: each one loads and meets its schema; a broken one fails naming file, entry and field."""

from __future__ import annotations

import os

import pytest

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts import _data

NAMES = sorted(name[:-4] for name in os.listdir(_data.DIR) if name.endswith('.yml'))


def test_the_catalogs_are_the_data_files():
    assert NAMES == ['chat_parsers', 'formats', 'models', 'options', 'platforms', 'ranges', 'releases', 'serve_flags']


@pytest.mark.parametrize('name', NAMES)
def test_every_data_file_meets_its_schema(name):
    assert _data.load(name)['entries']


def test_each_load_is_a_fresh_copy_that_shares_nothing():
    first = _data.load('releases')['entries']
    # v0.23.0 and v0.26.0rc1 take their HDK list from one anchor: changing one changes neither the other nor a reload.
    first['v0.23.0']['hdk']['compatible'].append('x')
    assert 'x' not in first['v0.26.0rc1']['hdk']['compatible']
    assert 'x' not in _data.load('releases')['entries']['v0.23.0']['hdk']['compatible']


@pytest.mark.parametrize('entry, error', [
    ('{count: 1, extra: 2}', 'entry a, field extra: not a field of the schema (count, label)'),
    ('{label: x}', 'entry a, field count: missing (type int)'),
    ('{count: "1"}', "entry a, field count: '1' is not of type int"),
    ('{count: true}', 'entry a, field count: True is not of type int'),
    ('{count: 1, label: [x]}', "entry a, field label: ['x'] is not of type str"),
    ('[1]', 'entry a: must be a mapping of fields, got [1]'),
])
def test_a_broken_file_names_the_file_the_entry_and_the_field(tmp_path, monkeypatch, entry, error):
    (tmp_path / 'broken.yml').write_text('schema:\n  count: int\n  label: str?\nentries:\n  a: %s\n' % entry)
    monkeypatch.setattr(_data, 'DIR', str(tmp_path))
    _data._read.cache_clear()
    with pytest.raises(ValueError) as raised:
        _data.load('broken')
    assert str(raised.value) == '%s: %s' % (tmp_path / 'broken.yml', error)


def test_a_file_without_schema_or_entries_is_refused(tmp_path, monkeypatch):
    (tmp_path / 'bare.yml').write_text('entries: {}\n')
    monkeypatch.setattr(_data, 'DIR', str(tmp_path))
    _data._read.cache_clear()
    with pytest.raises(ValueError, match='bare.yml: needs a "schema" and an "entries" mapping'):
        _data.load('bare')


def test_an_optional_field_may_be_null(tmp_path, monkeypatch):
    (tmp_path / 'ok.yml').write_text('schema:\n  count: number\n  label: str?\nentries:\n  a: {count: 1.5, label: null}\n')
    monkeypatch.setattr(_data, 'DIR', str(tmp_path))
    _data._read.cache_clear()
    assert _data.load('ok')['entries'] == {'a': {'count': 1.5, 'label': None}}
