# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""``ansible-playbook site.yml --list-hosts`` shows the hosts a run will touch, for every shipped inventory.

``--list-hosts`` runs nothing: a host that sets ``ascend_vllm_platform`` outside the platform groups joins
the group ``ascend_vllm`` only when playbooks/hosts.yml runs, so it is listed only when the inventory itself
puts it in a platform group or in ``ascend_vllm`` (its group nested there, or a ``constructed`` source,
docs/getting-started.md). The hosts expected are read from ``ansible-inventory`` (Ansible's own merge of
the inventory and its group_vars): every host in a platform group or with ``ascend_vllm_platform`` set.
"""

import glob
import json
import os
import re
import subprocess
import sys

import pytest

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.platforms import PLATFORMS

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))
BIN = os.path.dirname(sys.executable)
INVENTORIES = sorted(glob.glob(os.path.join(ROOT, 'inventories', 'examples', '*'))
                     + [os.path.join(ROOT, 'inventories', name) for name in ('fleet', 'demo')])
_PLAY = re.compile(r'^\s*play #\d+ \((?P<pattern>.*?)\): (?P<name>.*?)\tTAGS:')
_COUNT = re.compile(r'^\s*hosts \((\d+)\):')


def _run(*args):
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, 'ansible.cfg'), ANSIBLE_NOCOLOR='1')
    proc = subprocess.run(list(args), cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.stdout


def listed(inventory):
    """{play name: [host, ...]} as ``ansible-playbook playbooks/site.yml --list-hosts`` prints them."""
    plays, current, count = {}, None, 0
    for line in _run(os.path.join(BIN, 'ansible-playbook'), 'playbooks/site.yml', '--list-hosts',
                     '-i', inventory).splitlines():
        match = _PLAY.match(line)
        if match:
            current = '%s (%s)' % (match.group('name'), match.group('pattern'))
            plays[current], count = [], 0
        elif _COUNT.match(line):
            count = int(_COUNT.match(line).group(1))
        elif current is not None and count and line.strip():
            plays[current].append(line.strip())
            count -= 1
    assert plays, 'no play listed for %s' % inventory
    return plays


def platform_hosts(inventory):
    """The hosts the inventory defines that carry a platform: by a platform group or by ascend_vllm_platform."""
    data = json.loads(_run(os.path.join(BIN, 'ansible-inventory'), '-i', inventory, '--list'))
    hostvars = data['_meta']['hostvars']
    by_group = set()
    for group in PLATFORMS:
        by_group |= _members(data, group)
    return by_group | set(host for host, values in hostvars.items() if 'ascend_vllm_platform' in values)


def _members(data, group):
    entry = data.get(group) or {}
    found = set(entry.get('hosts') or [])
    for child in entry.get('children') or []:
        found |= _members(data, child)
    return found


def _check(inventory):
    expected = platform_hosts(inventory)
    assert expected, 'no host with a platform in %s' % inventory
    plays = listed(inventory)
    # The host-finding play (playbooks/hosts.yml) runs on the controller; every other play is the collection's.
    for play, hosts in plays.items():
        if not play.startswith('Hosts | '):
            assert sorted(hosts) == sorted(expected), (play, hosts)


@pytest.mark.parametrize('inventory', INVENTORIES, ids=lambda path: os.path.relpath(path, ROOT))
def test_list_hosts_shows_every_host_with_a_platform(inventory):
    _check(inventory)


GROUP_VARS_ONLY = 'all:\n  children:\n    edge:\n      hosts:\n        box-1:\n        box-2:\n    monitoring:\n' \
                  '      hosts:\n        prometheus:\n'
CONSTRUCTED = 'plugin: ansible.builtin.constructed\nstrict: false\nuse_vars_plugins: true\n' \
              'groups:\n  ascend_vllm: ascend_vllm_platform is defined\n'


def test_a_constructed_source_lists_hosts_whose_platform_only_group_vars_set(tmp_path):
    """The documented alternative for an inventory that cannot nest its groups: a constructed source after the
    hosts puts every host that sets ascend_vllm_platform (here in group_vars of a group of its own) into
    ascend_vllm when the inventory is read, and the prometheus host stays out."""
    # The names docs/getting-started.md gives: the constructed source sorts after the hosts file.
    (tmp_path / 'hosts.yml').write_text(GROUP_VARS_ONLY)
    (tmp_path / 'group_vars').mkdir()
    (tmp_path / 'group_vars' / 'edge.yml').write_text('ascend_vllm_platform: atlas_200i_pro\n')
    (tmp_path / 'zz-ascend_vllm.yml').write_text(CONSTRUCTED)
    assert platform_hosts(str(tmp_path)) == {'box-1', 'box-2'}
    _check(str(tmp_path))
