# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Every ansible-playbook command a user reads works from the installed collection.

README.md, the docs (English and Chinese) and the comments of the shipped inventories run playbooks as
``ansible-playbook ascend.vllm.<name>``, which ansible-core resolves to ``playbooks/<name>.yml`` of the installed
collection. The checkout's forms (``site.yml``, ``playbooks/<name>.yml``) exist only in a checkout of the
repository, so a line that uses one must say so (it names the checkout: "checkout", or "检出" in Chinese).
"""

from __future__ import annotations

import os
import re

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
PLAYBOOKS = sorted(name[:-4] for name in os.listdir(os.path.join(ROOT, 'playbooks')) if name.endswith('.yml'))
# Options whose value is the next word (never the playbook).
VALUED = {'-i', '--inventory', '-e', '--extra-vars', '-l', '--limit', '-t', '--tags', '--skip-tags', '-u', '--user',
          '-f', '--forks', '--vault-id', '--vault-password-file', '-c', '--connection', '-M', '--module-path'}
COMMAND = re.compile(r'ansible-playbook((?:(?:[ \t]|\\\n)+[^\s`|;&)\\]+)*)')
INSTALLED = re.compile(r'^ascend\.vllm\.([A-Za-z0-9_]+)$')
CHECKOUT_MARKS = ('checkout', '检出')


def _texts():
    """The paths of README.md, every doc page and every shipped inventory file."""
    yield 'README.md'
    for top in ('docs', 'inventories'):
        for directory, dirs, files in os.walk(os.path.join(ROOT, top)):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(('.md', '.yml', '.yaml', '.ini')):
                    yield os.path.relpath(os.path.join(directory, name), ROOT)


def commands(text):
    """(line number, line, playbook word) of every ansible-playbook command in ``text`` that names a playbook."""
    out = []
    for match in COMMAND.finditer(text):
        words = match.group(1).replace('\\\n', ' ').split()
        skip = False
        for word in words:
            if skip:
                skip = False
                continue
            if word in VALUED:
                skip = True
                continue
            if word.startswith('-'):
                continue
            if INSTALLED.match(word) or word.endswith(('.yml', '.yaml')):
                start = text.rfind('\n', 0, match.start()) + 1
                end = text.find('\n', match.start())
                line = text[start:end if end >= 0 else len(text)]
                out.append((text.count('\n', 0, match.start()) + 1, line, word))
            break
    return out


def _read(path):
    with open(os.path.join(ROOT, path), encoding='utf-8') as handle:
        return handle.read()


FOUND = [(path, number, line, word) for path in _texts() for number, line, word in commands(_read(path))]


def test_the_scan_finds_the_commands_users_run():
    paths = set(path for path, _number, _line, _word in FOUND)
    assert {'README.md', 'docs/getting-started.md', 'docs/zh_CN/getting-started.md',
            'inventories/examples/atlas_300i_duo/hosts.yml', 'inventories/fleet/hosts.yml'} <= paths
    assert len(FOUND) >= 30


@pytest.mark.parametrize('text, words', [
    ('run `ansible-playbook ascend.vllm.site -i inv` now', ['ascend.vllm.site']),
    ('ansible-playbook -i inventories/prod playbooks/upgrade.yml -e x=1', ['playbooks/upgrade.yml']),
    ('ansible-playbook -e ascend_vllm_hosts=a.yml \\\n  site.yml', ['site.yml']),
    ('an empty `ansible-playbook` run', []),
    ('`ansible-playbook`\'s start', []),
])
def test_the_scan_reads_a_command_as_ansible_playbook_does(text, words):
    assert [word for _n, _line, word in commands(text)] == words


@pytest.mark.parametrize('path, number, line, word', FOUND, ids=['%s:%d' % (f[0], f[1]) for f in FOUND])
def test_every_command_runs_from_the_installed_collection(path, number, line, word):
    installed = INSTALLED.match(word)
    if installed:
        assert installed.group(1) in PLAYBOOKS, (
            '%s:%d runs %s, which is no playbook of the collection (playbooks/: %s)'
            % (path, number, word, ', '.join(PLAYBOOKS)))
        return
    assert any(mark in line for mark in CHECKOUT_MARKS), (
        '%s:%d runs `%s`, which only a checkout has: write `ansible-playbook ascend.vllm.%s` (the installed '
        'collection), or say on that line that it is the checkout\'s form'
        % (path, number, word, os.path.basename(word)[:-4]))


@pytest.mark.parametrize('path', ['docs/air-gapped.md', 'docs/zh_CN/air-gapped.md'])
def test_the_air_gapped_procedure_pulls_for_the_nodes_architecture(path):
    """Without --platform, docker pulls the architecture of the machine it runs on, not the nodes'."""
    pulls = re.findall(r'docker pull [^`\n]*', _read(path))
    assert len(pulls) >= 2, path
    assert all(re.match(r'docker pull --platform( linux/(arm64|amd64) |`?$)', pull) for pull in pulls), pulls
