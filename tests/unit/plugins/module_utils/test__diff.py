# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""_diff: the --diff entry of a file a module writes or removes."""

import pytest

from ansible_collections.ascend.vllm.plugins.module_utils import _diff as d


@pytest.mark.parametrize('data, what, shown', [
    (None, '', None),
    ('a\n', '', 'a\n'),
    (b'a\n', '', 'a\n'),
    (b'\x89PNG\r\n\x1a\n\0', 'PNG image', '<PNG image, 9 bytes>\n'),
    (b'\xff\xfe', '', '<binary data, 2 bytes>\n'),
    (b'x' * (d.LIMIT + 1), '', '<a file, %d bytes>\n' % (d.LIMIT + 1)),
])
def test_described(data, what, shown):
    assert d.described(data, what) == shown


def test_current_reads_a_file_and_says_none_for_none(tmp_path):
    (tmp_path / 'a').write_text('one\n')
    (tmp_path / 'big').write_bytes(b'x' * (d.LIMIT + 5))
    assert d.current(str(tmp_path / 'a')) == 'one\n'
    assert d.current(str(tmp_path / 'big'), 'log') == '<log, %d bytes>\n' % (d.LIMIT + 5)
    assert d.current(str(tmp_path / 'missing')) is None
    assert d.current(str(tmp_path)) is None  # a directory is not a file a diff shows


def test_change_marks_a_created_and_a_removed_file_and_nothing_for_no_change():
    assert d.change('/r/a', None, 'x\n') == {'before_header': '/r/a (absent)', 'after_header': '/r/a',
                                             'before': '', 'after': 'x\n'}
    assert d.change('/r/a', 'x\n', None) == {'before_header': '/r/a', 'after_header': '/r/a (absent)',
                                             'before': 'x\n', 'after': ''}
    assert d.change('/r/a', 'x\n', 'x\n') is None
    result = {}
    d.add(result, False, '/r/a', None, 'x')
    assert result == {}
    d.add(result, True, '/r/a', 'x', 'x')
    d.add(result, True, '/r/a', None, 'x')
    assert [entry['after_header'] for entry in result['diff']] == ['/r/a']


def test_hide_and_listing():
    assert d.hide("api_key='s3cret', other='s3'", ['s3', 's3cret', '']) == "api_key='********', other='********'"
    assert d.hide(None, ['x']) is None
    assert d.listing({'b/2': b'12', 'a/1': b''}) == 'a/1 (0 bytes)\nb/2 (2 bytes)\n'
