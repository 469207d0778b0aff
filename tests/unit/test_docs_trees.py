# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""docs/ (English) and docs/zh_CN (Chinese) hold the same pages with the same heading structure,
and their links to other pages of the repository resolve."""

import os
import re

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
DOCS = os.path.join(ROOT, 'docs')
ZH = os.path.join(DOCS, 'zh_CN')
# Pages of docs/ that have no translation, linked from both trees: written by the performance work, and the
# research notes on upstream releases (issue 32's sources, not yet release records).
UNTRANSLATED = {'performance.md', 'release-research.md'}


def _pages(base, skip=()):
    found = set()
    for directory, dirs, files in os.walk(base):
        dirs[:] = [d for d in dirs if os.path.join(directory, d) not in skip]
        found.update(os.path.relpath(os.path.join(directory, name), base) for name in files if name.endswith('.md'))
    return found


def _headings(path):
    """(level, anchor-free position) of each Markdown heading outside code blocks."""
    levels, fenced = [], False
    with open(path, encoding='utf-8') as handle:
        for line in handle:
            if line.startswith('```'):
                fenced = not fenced
            elif not fenced and re.match(r'^#{1,6} ', line):
                levels.append(len(line.split(' ', 1)[0]))
    return levels


def _links(path):
    with open(path, encoding='utf-8') as handle:
        text = re.sub(r'(?ms)^```.*?^```', '', handle.read())
    return [target for target in re.findall(r'\]\(([^)#\s]+)(?:#[^)]*)?\)', text) if '://' not in target]


def test_both_trees_have_the_same_pages():
    english = _pages(DOCS, skip={ZH}) - UNTRANSLATED
    chinese = _pages(ZH)
    assert english, 'no pages in docs/'
    assert english == chinese, 'only in docs/: %s; only in docs/zh_CN: %s' % (
        sorted(english - chinese), sorted(chinese - english))
    for page in ('README.md', 'getting-started.md', 'troubleshooting.md', 'security.md', 'awx.md',
                 'platforms/atlas_300i_duo.md', 'platforms/atlas_200i_pro.md',
                 'platforms/atlas_200i_pro_openeuler.md'):
        assert page in english, page


@pytest.mark.parametrize('page', sorted(_pages(ZH)))
def test_same_heading_structure(page):
    assert _headings(os.path.join(DOCS, page)) == _headings(os.path.join(ZH, page)), page


@pytest.mark.parametrize('path', sorted(
    [os.path.join(DOCS, p) for p in _pages(DOCS, skip={ZH})] + [os.path.join(ZH, p) for p in _pages(ZH)]))
def test_links_resolve(path):
    missing = []
    for target in _links(path):
        resolved = os.path.normpath(os.path.join(os.path.dirname(path), target))
        if os.path.basename(resolved) in UNTRANSLATED and os.path.dirname(resolved) == DOCS:
            continue  # the performance page comes with the benchmark work (make bench)
        if not os.path.exists(resolved):
            missing.append(target)
    assert not missing, '%s: broken links %s' % (os.path.relpath(path, ROOT), missing)


def test_troubleshooting_covers_every_preflight_check():
    """Each check name preflight reports has a row in both troubleshooting pages."""
    checks = set()
    walked = [step for layer in ('module_utils', 'plugin_utils') for step in os.walk(os.path.join(ROOT, 'plugins', layer))]
    for directory, _dirs, files in walked:
        for name in sorted(name for name in files if name.endswith('.py')):
            with open(os.path.join(directory, name), encoding='utf-8') as handle:
                text = handle.read()
            checks.update(re.findall(r"\b_?problem\('([a-z-]+)'", text))
            checks.update(re.findall(r"partial\(problem, '([a-z-]+)'", text))
            checks.update(re.findall(r"'check': '([a-z-]+)'", text))
    checks.discard('image')  # image inputs have their own section, one row per message
    assert {'driver', 'devices', 'docker', 'chips', 'ports', 'disk', 'memory', 'instances'} <= checks
    for page in (os.path.join(DOCS, 'troubleshooting.md'), os.path.join(ZH, 'troubleshooting.md')):
        with open(page, encoding='utf-8') as handle:
            text = handle.read()
        absent = sorted(check for check in checks if '| `%s` |' % check not in text)
        assert not absent, '%s: no row for %s' % (page, absent)
