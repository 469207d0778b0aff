# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Task names the docs quote are names a run prints.

An operator searches a run's output for what a page quotes: a ``TASK [ascend.vllm.ROLE : NAME]``
header in an example transcript, or a task name in backticks in the ``phase | Do the thing`` form.
Each must be the name of a task of that role (or of a playbook), a name holding a template matching
whatever the template gives.
"""

import glob
import os
import re

import pytest
import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
PAGES = sorted(glob.glob(os.path.join(ROOT, 'docs', '**', '*.md'), recursive=True) +
               [os.path.join(ROOT, 'README.md')] + glob.glob(os.path.join(ROOT, 'roles', '*', 'README.md')))
HEADER = re.compile(r'TASK \[(?:ascend\.vllm\.)?(\w+) : (.+?)\] \*+')
# `phase | Do the thing`: a lower-case phase, then a capitalised sentence (a table row's cells are not).
BACKTICKED = re.compile(r'`([a-z][a-z_]* \| [A-Z][^`|]*)`')


def _names(tasks):
    for task in tasks or []:
        if isinstance(task, dict):
            if isinstance(task.get('name'), str):
                yield ' '.join(task['name'].split())
            for key in ('block', 'rescue', 'always', 'tasks', 'pre_tasks', 'post_tasks', 'handlers'):
                yield from _names(task.get(key))


def _task_names():
    """{role or '' for playbooks: [task name, ...]}."""
    found = {}
    for path in glob.glob(os.path.join(ROOT, 'roles', '*', 'tasks', '*.yml')) + \
            glob.glob(os.path.join(ROOT, 'roles', '*', 'handlers', '*.yml')):
        role = os.path.relpath(path, ROOT).split(os.sep)[1]
        with open(path) as handle:
            found.setdefault(role, []).extend(_names(yaml.safe_load(handle)))
    for path in glob.glob(os.path.join(ROOT, 'playbooks', '*.yml')) + [os.path.join(ROOT, 'site.yml')]:
        with open(path) as handle:
            found.setdefault('', []).extend(_names(yaml.safe_load(handle)))
    return found


TASKS = _task_names()


def _matches(name, quoted):
    """Whether a task name (maybe templated) prints as the quoted text."""
    pattern = ''.join('.+' if part.startswith('{{') else re.escape(part)
                      for part in re.split(r'(\{\{.*?\}\})', name))
    return re.fullmatch(pattern, quoted) is not None


def _quotes():
    """(page:line, role or None, quoted task name) of every task name the pages quote."""
    found = []
    for page in PAGES:
        with open(page, encoding='utf-8') as handle:
            for number, line in enumerate(handle, 1):
                where = '%s:%d' % (os.path.relpath(page, ROOT), number)
                found += [(where, role, name) for role, name in HEADER.findall(line)]
                found += [(where, None, name) for name in BACKTICKED.findall(line)]
    return found


def test_the_task_names_and_quotes_are_found():
    assert any(_matches(name, 'ready | Check each instance\'s readiness and run the smoke tests')
               for name in TASKS['vllm_serve'])
    assert any(role == 'vllm_serve' for _where, role, _name in _quotes())


@pytest.mark.parametrize('where, role, quoted', _quotes(), ids=str)
def test_a_quoted_task_name_is_a_task_of_the_collection(where, role, quoted):
    candidates = TASKS.get(role, []) if role else [name for names in TASKS.values() for name in names]
    assert any(_matches(name, quoted) for name in candidates), (
        '%s quotes task %r%s, which no task has' % (where, quoted, ' of role %s' % role if role else ''))
