#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import annotations

DOCUMENTATION = r'''
---
module: vllm_service
short_description: Run one vLLM instance as a systemd service on the node (the source install method)
version_added: 0.3.0
description:
  - The source install method's counterpart of the container (C(vllm_serve_install_method=source)). Writes the
    instance's unit file, its environment file (mode 0600) and the launcher every unit starts through, then
    reloads systemd, enables the unit and (re)starts it when anything it runs changed or it was not running.
  - With O(keep_previous=true) a unit that changes keeps its old unit and environment files as
    C(<file>.previous); O(state=restored) puts them back and restarts the unit, O(state=dropped) removes them.
    This is the container path's keep-last-good.
  - O(state=absent) stops, disables and removes the units of O(names) (with O(all_managed=true) every unit the
    collection wrote, recognised by its C(X-Ascend-Vllm-Managed-By=ascend.vllm) line), their environment files
    and kept files. A unit of that name the collection did not write is left alone and reported.
  - The vllm_serve role plans every argument (C(ascend.vllm.host_plan)); the unit runs C(vllm serve) from the
    virtualenv the role installed.
extends_documentation_fragment:
  - ascend.vllm.module
  - ansible.builtin.action_common_attributes
options:
  name:
    description: The unit, C(<container name>.service).
    type: str
  state:
    description:
      - V(started) - write the files and (re)start the unit when they changed or it does not run.
      - V(stopped) - stop the unit (a vLLM that crashed while starting; its journal stays).
      - V(restored) - put the kept files back and restart the unit.
      - V(dropped) - remove the kept files.
      - V(absent) - stop, disable and remove the units of O(names) (or of O(name)).
    type: str
    choices: [started, stopped, restored, dropped, absent]
    default: started
  unit:
    description: The unit file's text (V(started)).
    type: str
  env_file:
    description: The environment file the unit names (V(started)).
    type: path
  env:
    description:
      - The instance's environment, written to O(env_file) (V(started)), without its secrets (O(secret_env)).
    type: dict
    default: {}
  secret_env:
    description:
      - The secrets of the instance's environment (C(VLLM_API_KEY), variables named like a secret), written to
        O(env_file) with O(env) and over it; never logged, and hidden in the diff.
      - Apart from O(env) so that only these values are hidden in the output; a short value of O(env) such as C(0)
        would otherwise be hidden wherever it appears (in the unit's C(RestartSec=10) too).
    type: dict
    default: {}
    version_added: 0.4.0
  launcher:
    description: The launcher's path (V(started)).
    type: path
  launcher_text:
    description: The launcher's text (V(started)).
    type: str
  keep_previous:
    description: Keep the files of a unit that changes as C(<file>.previous) (V(started)).
    type: bool
    default: true
  names:
    description: The units to remove (V(absent)).
    type: list
    elements: str
    default: []
  all_managed:
    description: With V(absent), every unit in O(unit_dir) the collection wrote.
    type: bool
    default: false
  unit_dir:
    description: Where the unit files are.
    type: path
    default: /etc/systemd/system
attributes:
  diff_mode:
    support: full
    details: Each file written or removed (the unit, its environment file, the launcher, the kept C(.previous) files)
      is shown before and after; in the environment file the value of a variable named like a secret (C(*_KEY),
      C(*_TOKEN), ...) shows as C(********).
notes:
  - Needs root and systemd as the node's init (C(/run/systemd/system)).
seealso:
  - module: ansible.builtin.systemd_service
'''

EXAMPLES = r'''
- name: Run the instance's service (the host plan's arguments)
  ascend.vllm.vllm_service:
    name: vllm-ascend.service
    unit: "{{ ascend_vllm_plan.plan.services.default.unit }}"
    env_file: "{{ ascend_vllm_plan.plan.services.default.env_file }}"
    env: "{{ ascend_vllm_plan.plan.services.default.env }}"
    launcher: "{{ ascend_vllm_plan.plan.services.default.launcher }}"
    launcher_text: "{{ ascend_vllm_plan.plan.services.default.launcher_text }}"

- name: Remove every service the collection wrote
  ascend.vllm.vllm_service:
    state: absent
    all_managed: true
'''

RETURN = r'''
previous:
  description: The unit whose old files were kept (V(started)), empty when none was kept.
  returned: always
  type: str
active:
  description: Whether the unit runs after the task.
  returned: always
  type: bool
restarted:
  description: Whether the task (re)started the unit.
  returned: always
  type: bool
diff:
  description: With C(--diff), per file written or removed, its path (C(before_header), C(after_header)) and its text
    C(before) and C(after) (empty when it did not or will not exist).
  returned: in diff mode, when a file changes
  type: list
  elements: dict
  version_added: 0.4.0
removed:
  description: The units removed (V(absent)).
  returned: always
  type: list
  elements: str
foreign:
  description: Units of O(names) the collection did not write, left alone (V(absent)).
  returned: always
  type: list
  elements: str
'''

import os
import tempfile

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.ascend.vllm.plugins.module_utils._redact import MASKED, secret_name
from ansible_collections.ascend.vllm.plugins.module_utils._unit import (
    MANAGED_KEY, MANAGED_VALUE, PREVIOUS_SUFFIX, env_text, managed)


def _read(path):
    try:
        with open(path, 'rb') as handle:
            return handle.read().decode('utf-8')
    except OSError:
        return None


def _write(module, path, text, mode):
    """``path`` holds ``text`` with ``mode`` at every moment: atomic_move gives the new file the mode of the one
    it replaces, or the umask's (0644) when there is none, so the file it replaces has ``mode`` first -- an
    environment file with the API key was readable by every user between the move and a later chmod."""
    directory = os.path.dirname(path)
    os.makedirs(directory, 0o755, exist_ok=True)
    if os.path.exists(path):
        os.chmod(path, mode)
    else:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode))
    descriptor, temp = tempfile.mkstemp(dir=directory, prefix='.ascend-vllm-')
    with os.fdopen(descriptor, 'wb') as handle:
        handle.write(text.encode('utf-8'))
    module.atomic_move(temp, path)
    os.chmod(path, mode)


def _shown(text, env):
    """A file's text as a diff shows it: in an environment file (``env``), secret-named values hidden."""
    if text is None or not env:
        return text or ''
    lines = []
    for line in text.splitlines(True):
        name = line.split('=', 1)[0]
        lines.append('%s=%s\n' % (name, MASKED) if '=' in line and secret_name(name) else line)
    return ''.join(lines)


def _diff(module, result, path, before, after, env=False):
    """Add one file's change to the result's diff (in diff mode, and when it changes); ``env``: an environment file."""
    if module._diff and before != after:  # pylint: disable=protected-access
        result.setdefault('diff', []).append({'before_header': path, 'after_header': path,
                                              'before': _shown(before, env), 'after': _shown(after, env)})


def _systemctl(module, *args, **kwargs):
    rc, out, err = module.run_command(['systemctl'] + list(args))
    if rc != 0 and kwargs.get('check', True):
        module.fail_json(msg='systemctl %s failed (rc %d): %s' % (' '.join(args), rc, (err or out).strip()))
    return rc, out.strip()


def _active(module, name):
    return _systemctl(module, 'is-active', name, check=False)[1] in ('active', 'activating', 'reloading')


def _env_file_of(text):
    return next((line.split('=', 1)[1].lstrip('-').strip() for line in (text or '').splitlines()
                 if line.startswith('EnvironmentFile=')), '')


def started(module, params, result):
    unit_path = os.path.join(params['unit_dir'], params['name'])
    env_path = params['env_file']
    unit_new, env_new = params['unit'], env_text(dict(params['env'], **params['secret_env']))
    unit_old, env_old = _read(unit_path), _read(env_path)
    if unit_old is not None and not managed(unit_old):
        module.fail_json(msg='%s exists and was not written by ascend.vllm (no %s=%s line): it is left alone'
                             % (unit_path, MANAGED_KEY, MANAGED_VALUE),
                         fix='choose another container name for the instance, or remove the unit if it may go')
    launcher_old = _read(params['launcher'])
    differs = unit_old != unit_new or env_old != env_new or launcher_old != params['launcher_text']
    running = _active(module, params['name']) if unit_old is not None else False
    result['changed'] = differs or not running
    keep = differs and unit_old is not None and params['keep_previous'] and running
    _diff(module, result, params['launcher'], launcher_old, params['launcher_text'])
    _diff(module, result, env_path, env_old, env_new, env=True)
    _diff(module, result, unit_path, unit_old, unit_new)
    if keep:
        _diff(module, result, unit_path + PREVIOUS_SUFFIX, _read(unit_path + PREVIOUS_SUFFIX), unit_old)
        _diff(module, result, env_path + PREVIOUS_SUFFIX, _read(env_path + PREVIOUS_SUFFIX), env_old or '', env=True)
    if module.check_mode:
        result.update(active=running, restarted=result['changed'])
        return
    if launcher_old != params['launcher_text']:
        _write(module, params['launcher'], params['launcher_text'], 0o755)
    if keep:
        _write(module, unit_path + PREVIOUS_SUFFIX, unit_old, 0o644)
        _write(module, env_path + PREVIOUS_SUFFIX, env_old or '', 0o600)
        result['previous'] = params['name']
    if env_old != env_new:
        _write(module, env_path, env_new, 0o600)
    if unit_old != unit_new:
        _write(module, unit_path, unit_new, 0o644)
        _systemctl(module, 'daemon-reload')
    _systemctl(module, 'enable', '--quiet', params['name'])
    if result['changed']:
        _systemctl(module, 'restart', params['name'])
        result['restarted'] = True
    result['active'] = _active(module, params['name'])


def restored(module, params, result):
    unit_path = os.path.join(params['unit_dir'], params['name'])
    kept = _read(unit_path + PREVIOUS_SUFFIX)
    if kept is None:
        module.fail_json(msg='no kept unit %s%s to put back' % (unit_path, PREVIOUS_SUFFIX))
    result['changed'] = True
    env_path = _env_file_of(kept)
    files = [(unit_path, False)] + ([(env_path, True)] if env_path and os.path.exists(env_path + PREVIOUS_SUFFIX) else [])
    for path, env in files:
        _diff(module, result, path, _read(path), _read(path + PREVIOUS_SUFFIX), env=env)
        _diff(module, result, path + PREVIOUS_SUFFIX, _read(path + PREVIOUS_SUFFIX), None, env=env)
    if module.check_mode:
        return
    for path, _env in files:
        os.rename(path + PREVIOUS_SUFFIX, path)
    _systemctl(module, 'daemon-reload')
    _systemctl(module, 'restart', params['name'])
    result.update(restarted=True, active=_active(module, params['name']))


def dropped(module, params, result):
    unit_path = os.path.join(params['unit_dir'], params['name'])
    kept = _read(unit_path + PREVIOUS_SUFFIX)
    for path, env in ((unit_path + PREVIOUS_SUFFIX, False), (_env_file_of(kept) + PREVIOUS_SUFFIX if kept else '', True)):
        if path and os.path.exists(path):
            result['changed'] = True
            _diff(module, result, path, _read(path), None, env=env)
            if not module.check_mode:
                os.remove(path)
    result['active'] = _active(module, params['name'])


def stopped(module, params, result):
    result['changed'] = _active(module, params['name'])
    if result['changed'] and not module.check_mode:
        _systemctl(module, 'stop', params['name'])


def absent(module, params, result):
    directory = params['unit_dir']
    names = list(params['names']) + ([params['name']] if params['name'] else [])
    if params['all_managed'] and os.path.isdir(directory):
        names += [entry for entry in sorted(os.listdir(directory))
                  if entry.endswith('.service') and managed(_read(os.path.join(directory, entry)))]
    for name in sorted(set(names)):
        path = os.path.join(directory, name)
        text = _read(path)
        if text is None:
            text = _read(path + PREVIOUS_SUFFIX)
            if text is None or not managed(text):
                continue
        elif not managed(text):
            result['foreign'].append(name)
            continue
        result['removed'].append(name)
        result['changed'] = True
        env_path = _env_file_of(text)
        leftovers = [(leftover, env) for leftover, env in ((path, False), (path + PREVIOUS_SUFFIX, False),
                                                           (env_path, True),
                                                           (env_path + PREVIOUS_SUFFIX if env_path else '', True))
                     if leftover and os.path.exists(leftover)]
        for leftover, env in leftovers:
            _diff(module, result, leftover, _read(leftover), None, env=env)
        if module.check_mode:
            continue
        _systemctl(module, 'disable', '--now', '--quiet', name, check=False)
        for leftover, _env in leftovers:
            os.remove(leftover)
    if result['removed'] and not module.check_mode:
        _systemctl(module, 'daemon-reload')
        _systemctl(module, 'reset-failed', check=False)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            name=dict(type='str'),
            state=dict(type='str', default='started', choices=['started', 'stopped', 'restored', 'dropped', 'absent']),
            unit=dict(type='str'),
            env_file=dict(type='path'),
            env=dict(type='dict', default={}),
            secret_env=dict(type='dict', default={}, no_log=True),
            launcher=dict(type='path'),
            launcher_text=dict(type='str'),
            keep_previous=dict(type='bool', default=True),
            names=dict(type='list', elements='str', default=[]),
            all_managed=dict(type='bool', default=False),
            unit_dir=dict(type='path', default='/etc/systemd/system'),
        ),
        required_if=[('state', 'started', ('name', 'unit', 'env_file', 'launcher', 'launcher_text')),
                     ('state', 'stopped', ('name',)), ('state', 'restored', ('name',)), ('state', 'dropped', ('name',))],
        supports_check_mode=True,
    )
    params = module.params
    if not os.path.isdir('/run/systemd/system'):
        module.fail_json(msg='systemd is not the init system of this node (no /run/systemd/system): the source '
                             'install method runs vLLM as a systemd service')
    result = {'changed': False, 'previous': '', 'active': False, 'restarted': False, 'removed': [], 'foreign': []}
    handler = {'started': started, 'stopped': stopped, 'restored': restored, 'dropped': dropped,
               'absent': absent}[params['state']]
    handler(module, params, result)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
