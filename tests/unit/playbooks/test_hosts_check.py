# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""playbooks/hosts.yml on tiny inventories: a run that matches none of the collection's hosts fails, naming
the inventory's groups and the platform groups; a look-alike group is named with its platform. No host is
contacted: the play runs on the controller (its tasks are actions without a connection)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))
BIN = os.path.dirname(sys.executable)


def _run(tmp_path, inventory, *extra, playbook='playbooks/hosts.yml'):
    path = tmp_path / 'hosts.yml'
    path.write_text(yaml.safe_dump(inventory))
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, 'ansible.cfg'), ANSIBLE_NOCOLOR='1',
               ANSIBLE_DISPLAY_FAILED_STDERR='1')
    proc = subprocess.run([os.path.join(BIN, 'ansible-playbook'), playbook, '-i', str(path)] + list(extra),
                          cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=300, check=False)
    return proc.returncode, proc.stdout + proc.stderr


def _group(**groups):
    return {'all': {'children': dict((name, {'hosts': dict((host, None) for host in hosts)})
                                     for name, hosts in groups.items())}}


@pytest.mark.parametrize('group', ['atlas_300i_duo_prod', 'Atlas_300I_DUO', 'atlas300iduo'])
def test_a_lookalike_group_alone_fails_with_the_closest_platform(tmp_path, group):
    code, out = _run(tmp_path, _group(**{group: ['n1', 'n2'], 'prometheus': ['p1']}))
    assert code != 0, out
    assert "this run matches none of the collection's hosts" in out
    assert 'the inventory\'s groups are %s, prometheus, ungrouped' % group in out
    assert 'atlas_200i_pro, atlas_200i_pro_openeuler, atlas_300i_duo' in out
    assert 'the group %s looks like the platform group atlas_300i_duo' % group in out


def test_an_inventory_without_the_collections_hosts_fails(tmp_path):
    code, out = _run(tmp_path, _group(web=['w1']))
    assert code != 0 and "matches none of the collection's hosts" in out, out


def test_an_empty_inventory_fails(tmp_path):
    code, out = _run(tmp_path, {'all': {'hosts': {}}})
    assert code != 0 and 'the inventory has no host' in out, out


def test_a_given_pattern_that_matches_nothing_fails(tmp_path):
    code, out = _run(tmp_path, _group(atlas_300i_duo=['n1']), '-e', 'ascend_vllm_hosts=atals_300i_duo')
    assert code != 0 and 'set ascend_vllm_hosts to a pattern' in out, out


def test_a_lookalike_beside_served_hosts_is_a_warning(tmp_path):
    code, out = _run(tmp_path, _group(atlas_300i_duo=['n1'], atlas300iduo=['n2']))
    assert code == 0, out
    assert '[WARNING]' in out and 'the group atlas300iduo looks like the platform group atlas_300i_duo' in out


def test_a_host_that_sets_its_platform_is_targeted(tmp_path):
    inventory = {'all': {'children': {'boards': {'hosts': {'n1': {'ascend_vllm_platform': 'atlas_300i_duo'}}}}}}
    code, out = _run(tmp_path, inventory)
    assert code == 0 and 'WARNING' not in out.replace('[WARNING]: Could not match', ''), out


def test_an_inventory_of_platform_groups_costs_no_task(tmp_path):
    code, out = _run(tmp_path, _group(atlas_300i_duo=['n1'], atlas_200i_pro=['n2']))
    assert code == 0 and 'skipping: no hosts matched' in out and 'TASK [' not in out, out


def test_a_limit_to_other_hosts_fails(tmp_path):
    code, out = _run(tmp_path, _group(atlas_300i_duo=['n1'], web=['w1']), '--limit', 'w1')
    assert code != 0 and "matches none of the collection's hosts" in out, out


def test_a_second_copy_in_the_same_run_checks_nothing_again(tmp_path):
    """site.yml imports three playbooks that each start with hosts.yml: only the first copy runs."""
    twice = tmp_path / 'twice.yml'
    twice.write_text(yaml.safe_dump([{'ansible.builtin.import_playbook': os.path.join(ROOT, 'playbooks', 'hosts.yml')}] * 2))
    for inventory, extra in ((_group(atlas_300i_duo=['n1'], atlas300iduo=['n2']), ()),
                             (_group(atlas_300i_duo=['n1']), ('-e', 'ascend_vllm_hosts=atlas_300i_duo'))):
        code, out = _run(tmp_path, inventory, *extra, playbook=str(twice))
        assert code == 0, out
        assert out.count('TASK [Hosts | Check that the run targets hosts of the collection]') == 1, out
        assert out.count('skipping: no hosts matched') == 1, out
