# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The repository's ansible.cfg, which the real-hardware instructions use, checks SSH host keys.

Neither the file nor the inventories for real hardware (examples, fleet) switch the check off, and
Ansible itself, reading that file, reports it on (docs/security.md, "SSH host keys").
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import configparser
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
CFG = os.path.join(ROOT, 'ansible.cfg')
# ssh options that accept any host key or forget it (ssh_config(5)).
UNCHECKED_SSH = re.compile(r'StrictHostKeyChecking\s*=?\s*(no|off|accept-new)|UserKnownHostsFile\s*=?\s*/dev/null', re.I)
REAL_INVENTORIES = [os.path.join('inventories', name) for name in ('examples', 'fleet')]


def _parser():
    parser = configparser.ConfigParser(interpolation=None)
    with open(CFG) as handle:
        parser.read_file(handle)
    return parser


def test_ansible_cfg_sets_host_key_checking_on():
    parser = _parser()
    assert parser.has_option('defaults', 'host_key_checking'), 'say it: host_key_checking = true in [defaults]'
    assert parser.getboolean('defaults', 'host_key_checking') is True


def test_ansible_cfg_passes_ssh_no_option_that_skips_the_check():
    parser = _parser()
    for section in parser.sections():
        for key, value in parser.items(section):
            assert not UNCHECKED_SSH.search(value), (section, key, value)
    if parser.has_section('paramiko_connection'):
        for key in ('host_key_auto_add', 'host_key_checking'):
            if parser.has_option('paramiko_connection', key):
                assert parser.getboolean('paramiko_connection', key) is (key == 'host_key_checking'), key


def test_ansible_reads_host_key_checking_on_from_it():
    """What an operator would run: `ansible-config dump` with this file and no override in the environment."""
    config = os.path.join(os.path.dirname(sys.executable), 'ansible-config')
    env = {k: v for k, v in os.environ.items() if k != 'ANSIBLE_HOST_KEY_CHECKING'}
    env['ANSIBLE_CONFIG'] = CFG
    proc = subprocess.run([config, 'dump', '--only-changed', '-t', 'all'], cwd=ROOT, env=env, check=True,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    line = [entry for entry in proc.stdout.splitlines() if entry.startswith('HOST_KEY_CHECKING(')]
    assert len(line) == 1 and line[0].endswith('= True'), (line, proc.stdout[-2000:])


@pytest.mark.parametrize('inventory', REAL_INVENTORIES)
def test_real_hardware_inventories_keep_the_check(inventory):
    found = []
    for directory, _dirs, files in os.walk(os.path.join(ROOT, inventory)):
        for name in files:
            path = os.path.join(directory, name)
            with open(path) as handle:
                for number, text in enumerate(handle, 1):
                    if UNCHECKED_SSH.search(text) or re.search(r'host_key_checking\s*[:=]\s*(false|no|0)\b', text, re.I):
                        found.append('%s:%d: %s' % (os.path.relpath(path, ROOT), number, text.strip()))
    assert found == []
