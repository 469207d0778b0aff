# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The repository's ansible.cfg, which the real-hardware instructions use, checks SSH host keys and
keeps every inventory plugin ansible-core enables.

Neither the file nor the inventories for real hardware (examples, fleet) switch the check off, and
Ansible itself, reading that file, reports it on (docs/security.md, "SSH host keys"). Run from the
checkout, an inventory plugin file (``constructed`` here, a CMDB's plugin elsewhere) parses, and so
does the executable script AWX hands a job (docs/awx.md).
"""

import configparser
import json
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


def _ansible(tool, *args, **kwargs):
    """Run an Ansible CLI from this checkout with this ansible.cfg and nothing of it overridden."""
    env = {k: v for k, v in os.environ.items() if not k.startswith('ANSIBLE_') or k == 'ANSIBLE_COLLECTIONS_PATH'}
    env.update(ANSIBLE_CONFIG=CFG, **kwargs.pop('env', {}))
    return subprocess.run([os.path.join(os.path.dirname(sys.executable), tool)] + list(args), cwd=ROOT, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, check=kwargs.pop("check", False), **kwargs)


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


def _short(name):
    return name[len('ansible.builtin.'):] if name.startswith('ansible.builtin.') else name


def test_every_inventory_plugin_ansible_core_enables_stays_enabled():
    """`ansible-config` with this file: INVENTORY_ENABLED holds each of ansible-core's defaults (script and auto
    among them), whatever the order."""
    default = json.loads(_ansible('ansible-config', 'list', '-t', 'base', '--format', 'json',
                                  check=True).stdout)['INVENTORY_ENABLED']['default']
    dump = json.loads(_ansible('ansible-config', 'dump', '-t', 'base', '--format', 'json', check=True).stdout)
    [enabled] = [entry['value'] for entry in dump if entry.get('name') == 'INVENTORY_ENABLED']
    assert {'script', 'auto', 'yaml', 'ini'} <= set(default), default
    assert set(default) - set(_short(name) for name in enabled) == set(), (enabled, default)


def test_a_constructed_inventory_parses_from_the_checkout(tmp_path):
    """What an operator with hosts from elsewhere does: put them in the platform groups with the constructed
    plugin keyed on ascend_vllm_platform, and list the inventory from this checkout."""
    (tmp_path / '01-hosts.yml').write_text(
        'all:\n  hosts:\n    node-a:\n      ascend_vllm_platform: atlas_300i_duo\n'
        '    node-b:\n      ascend_vllm_platform: atlas_200i_pro\n')
    (tmp_path / '02-platforms.yml').write_text(
        'plugin: ansible.builtin.constructed\nstrict: true\nkeyed_groups:\n'
        '  - key: ascend_vllm_platform\n    prefix: ""\n    separator: ""\n')
    proc = _ansible('ansible-inventory', '-i', str(tmp_path), '--list',
                    env={'ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED': 'true'})
    assert proc.returncode == 0, proc.stderr[-2000:]
    groups = json.loads(proc.stdout)
    assert groups.get('atlas_300i_duo', {}).get('hosts') == ['node-a'], (groups, proc.stderr[-2000:])
    assert groups.get('atlas_200i_pro', {}).get('hosts') == ['node-b'], groups


def test_an_executable_inventory_script_parses_from_the_checkout(tmp_path):
    """AWX hands a job its inventory as an executable script printing JSON (inventory/hosts)."""
    script = tmp_path / 'hosts'
    script.write_text('#!/bin/sh\n'
                      'echo \'{"atlas_300i_duo": {"hosts": ["node-a"]}, "_meta": {"hostvars": {}}}\'\n')
    script.chmod(0o700)
    proc = _ansible('ansible-inventory', '-i', str(script), '--list',
                    env={'ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED': 'true'})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout).get('atlas_300i_duo', {}).get('hosts') == ['node-a'], proc.stdout
