# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The figures the docs quote about the suites and the code are the ones their sources give today.

Each figure is read from the page with a pattern and compared with what it counts: the bad-input corpus
(tests/reliability/bad_inputs.yml), the fault-injection cases (tests/reliability/test_faults.py), the roles' entry
points (roles/*/meta/argument_specs.yml) and what a module carries to a node (the AnsiballZ payload
tests/unit/test_layers.py builds). A figure that cannot be kept true this way has no place in the docs; the
measurements of docs/performance.md are dated records of one bench run, each with its commit.
"""

from __future__ import annotations

import ast
import glob
import os
import re

import pytest
import yaml

from test_layers import _payload  # pylint: disable=import-error

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
NUMBER_WORDS = {'twelve': 12, 'thirteen': 13, 'eleven': 11, 'ten': 10}


def _read(path):
    with open(os.path.join(ROOT, path), encoding='utf-8') as handle:
        return handle.read()


def _quoted(path, pattern):
    """The figure ``pattern``'s group 1 captures in ``path`` (one match), as an int."""
    found = re.findall(pattern, ' '.join(_read(path).split()))
    assert len(found) == 1, '%s: %d matches of %s' % (path, len(found), pattern)
    text = found[0].replace(',', '').lower()
    return NUMBER_WORDS[text] if text in NUMBER_WORDS else int(text)


def bad_inputs():
    with open(os.path.join(ROOT, 'tests', 'reliability', 'bad_inputs.yml'), encoding='utf-8') as handle:
        return len(yaml.safe_load(handle)['cases'])


def fault_cases():
    tree = ast.parse(_read('tests/reliability/test_faults.py'))
    return sum(1 for node in tree.body if isinstance(node, ast.FunctionDef) and node.name.startswith('test_'))


def entry_points():
    count = 0
    for path in glob.glob(os.path.join(ROOT, 'roles', '*', 'meta', 'argument_specs.yml')):
        with open(path, encoding='utf-8') as handle:
            count += len(yaml.safe_load(handle)['argument_specs'])
    return count


def payload_lines(module, code_only=False):
    return sum(lines for path, lines in _payload(module).items() if not (code_only and path.endswith('__init__.py')))


FIGURES = [
    ('README.md', r'(\d+) invalid configurations, each stopped in preflight', bad_inputs, 'exact'),
    ('README.md', r'`make reliability-faults`: (\d+) cases', fault_cases, 'exact'),
    ('docs/architecture.md', r'(\w+) entry points in all', entry_points, 'exact'),
    ('docs/zh_CN/architecture.md', r'共 (\d+) 个入口', entry_points, 'exact'),
    ('docs/architecture.md', r'`balancer_server` carries `serve/_haproxy.py` alone \((\d+) lines',
     lambda: payload_lines('balancer_server', code_only=True), 'exact'),
    ('docs/zh_CN/architecture.md', r'`serve/_haproxy.py`（(\d+) 行', lambda: payload_lines('balancer_server', True),
     'exact'),
    ('docs/architecture.md', r'`node_facts` about ([\d,]+) lines', lambda: payload_lines('node_facts'), 'hundreds'),
    ('docs/zh_CN/architecture.md', r'`node_facts` 约 ([\d,]+) 行', lambda: payload_lines('node_facts'), 'hundreds'),
]


@pytest.mark.parametrize('path, pattern, source, rounding', FIGURES,
                         ids=['%s %s' % (f[0], f[2].__name__) for f in FIGURES])
def test_each_figure_the_docs_quote_is_its_source_s(path, pattern, source, rounding):
    quoted, actual = _quoted(path, pattern), source()
    if rounding == 'hundreds':
        assert abs(quoted - actual) <= 50, '%s says about %d, the source has %d now' % (path, quoted, actual)
    else:
        assert quoted == actual, '%s says %d, the source has %d now' % (path, quoted, actual)


def test_the_pattern_reader_reads_words_and_thousands_across_lines(tmp_path):
    page = tmp_path / 'page.md'  # an absolute path: os.path.join keeps it
    page.write_text('Twelve entry points in all; `node_facts` about 2,700\nlines')
    assert _quoted(str(page), r'(\w+) entry points in all') == 12
    assert _quoted(str(page), r'`node_facts` about ([\d,]+) lines') == 2700
