# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""vllm_service's files and its --diff: each file written or removed shown before and after, secrets hidden."""

from __future__ import annotations

import os

import pytest

from ansible.module_utils import basic

from ansible_collections.ascend.vllm.plugins.modules import vllm_service
from ansible_collections.ascend.vllm.plugins.module_utils._unit import MANAGED_KEY, MANAGED_VALUE, env_text

from moduleargs import ExitJson, patch_exit_fail, set_module_args  # noqa: F401  pylint: disable=unused-import

UNIT = '[Unit]\nDescription=vLLM %s\n[Service]\nEnvironmentFile=%s\nExecStart=%s\n' + '%s=%s\n' % (
    MANAGED_KEY, MANAGED_VALUE)


@pytest.fixture
def node(tmp_path, monkeypatch):
    """A node with systemd (its systemctl recorded; units active once started) under tmp_path."""
    state = {'calls': [], 'active': set()}
    real_isdir = os.path.isdir
    monkeypatch.setattr(vllm_service.os.path, 'isdir',
                        lambda path: True if path == '/run/systemd/system' else real_isdir(path))

    def run_command(self, argv, **kwargs):  # pylint: disable=unused-argument
        state['calls'].append(argv[1:])
        if argv[1] == 'is-active':
            return 0, 'active\n' if argv[2] in state['active'] else 'inactive\n', ''
        if argv[1] == 'restart':
            state['active'].add(argv[2])
        return 0, '', ''

    monkeypatch.setattr(basic.AnsibleModule, 'run_command', run_command)
    state['root'] = tmp_path
    return state


def _args(root, model='Qwen/Qwen3.5-2B', key='secret-one', **extra):
    env_file = str(root / 'instances' / 'vllm-ascend.env')
    launcher = str(root / 'bin' / 'launch')
    args = {'name': 'vllm-ascend.service', 'unit_dir': str(root / 'units'), 'env_file': env_file,
            'env': {'ASCEND_RT_VISIBLE_DEVICES': '0'}, 'secret_env': {'VLLM_API_KEY': key}, 'launcher': launcher,
            'launcher_text': '#!/bin/sh\nexec vllm serve %s "$@"\n' % model,
            'unit': UNIT % (model, env_file, launcher)}
    args.update(extra)
    return args


def run(args, diff=True, check=False):
    with set_module_args(dict(args, _ansible_diff=diff, _ansible_check_mode=check)):
        with pytest.raises(ExitJson) as caught:
            vllm_service.main()
    return caught.value.args[0]


def _by_path(result):
    return dict((entry['before_header'], entry) for entry in result.get('diff') or [])


@pytest.mark.parametrize('check', [False, True])
def test_a_first_start_shows_each_new_file_and_hides_the_key(node, check):
    args = _args(node['root'])
    result = run(args, check=check)
    diff = _by_path(result)
    unit = os.path.join(args['unit_dir'], args['name'])
    assert set(diff) == {unit, args['env_file'], args['launcher']}
    assert all(entry['before'] == '' for entry in diff.values())
    assert diff[unit]['after'] == args['unit'] and diff[args['launcher']]['after'] == args['launcher_text']
    assert diff[args['env_file']]['after'] == 'ASCEND_RT_VISIBLE_DEVICES="0"\nVLLM_API_KEY=********\n'
    assert 'secret-one' not in repr(result)
    # --check shows the same and writes nothing.
    assert os.path.exists(unit) is not check and result['changed']


def test_a_change_shows_before_and_after_and_the_kept_files(node):
    first = _args(node['root'])
    run(first, diff=False)
    again = run(first)
    assert 'diff' not in again and not again['changed']
    changed = _args(node['root'], model='Qwen/Qwen3.5-4B', key='secret-two')
    result = run(changed)
    diff = _by_path(result)
    unit = os.path.join(first['unit_dir'], first['name'])
    assert set(diff) == {unit, first['env_file'], first['launcher'], unit + '.previous', first['env_file'] + '.previous'}
    assert 'Qwen3.5-2B' in diff[unit]['before'] and 'Qwen3.5-4B' in diff[unit]['after']
    assert diff[unit + '.previous']['after'] == first['unit']
    # Only the key changed in the environment file: both sides hide it.
    assert diff[first['env_file']]['before'] == diff[first['env_file']]['after']
    assert 'secret-' not in repr(result)
    with open(first['env_file']) as handle:
        assert handle.read() == env_text(dict(changed['env'], **changed['secret_env']))


def test_absent_shows_every_file_it_removes(node):
    args = _args(node['root'])
    run(args, diff=False)
    result = run({'state': 'absent', 'names': [args['name']], 'unit_dir': args['unit_dir']})
    diff = _by_path(result)
    unit = os.path.join(args['unit_dir'], args['name'])
    assert set(diff) == {unit, args['env_file']}
    assert all(entry['after'] == '' for entry in diff.values()) and diff[unit]['before'] == args['unit']
    assert 'VLLM_API_KEY=********' in diff[args['env_file']]['before']
    assert not os.path.exists(unit) and result['removed'] == [args['name']]


def test_without_diff_mode_there_is_no_diff(node):
    assert 'diff' not in run(_args(node['root']), diff=False)


def test_only_the_secrets_are_hidden_from_the_output(node, monkeypatch):
    """A secret_env value is no_log; env's are not, so a short one ("0") does not blank out the unit's figures
    (RestartSec=10) in the diff Ansible prints."""
    seen = {}

    def exit_json(self, **kwargs):
        seen['no_log'] = set(self.no_log_values)
        raise ExitJson(kwargs)

    monkeypatch.setattr(basic.AnsibleModule, 'exit_json', exit_json)
    run(_args(node['root']))
    assert 'secret-one' in seen['no_log'] and '0' not in seen['no_log']


def test_the_environment_file_is_never_readable_by_others(node, monkeypatch):
    """The file with the API key has mode 0600 from the moment it holds the key: on the first start, and on a
    change that replaces a file an older run left 0644."""
    real_move = basic.AnsibleModule.atomic_move
    modes = {}

    def atomic_move(self, src, dest, *args, **kwargs):
        real_move(self, src, dest, *args, **kwargs)
        modes.setdefault(dest, []).append(os.stat(dest).st_mode & 0o777)

    monkeypatch.setattr(basic.AnsibleModule, 'atomic_move', atomic_move)
    args = _args(node['root'])
    run(args)
    os.chmod(args['env_file'], 0o644)
    run(_args(node['root'], key='secret-two'))
    assert modes[args['env_file']] == [0o600, 0o600]
