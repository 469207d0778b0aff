# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""What the source install method needs of a node, read in node_facts' one run (gather ``source``).

systemd as init, the Python the virtualenv is made with, the virtualenv's installed packages, the
wheelhouse, the CANN version files, the launcher and each instance's unit (its state and the digest of
what it runs, serve/_source.py ``digest``). Never raises for what the node lacks: the controller judges
(plan/_node.py, serve/_source_problems).
"""

from __future__ import annotations

import functools
import glob
import os
import re
import shutil

from ansible_collections.ascend.vllm.plugins.module_utils._text import read_text
from ansible_collections.ascend.vllm.plugins.module_utils._unit import PREVIOUS_SUFFIX, UNIT_DIR, digest, managed, unit_resources

_read = functools.partial(read_text, limit=65536)


def _file(pattern):
    """{path, text} of the first file a pattern matches (text None when none does)."""
    matches = sorted(glob.glob(pattern)) if any(c in pattern for c in '*?[') else [pattern]
    for path in matches:
        text = _read(path)
        if text is not None:
            return {'path': path, 'text': text}
    return {'path': None, 'text': None}


def _preload(pattern):
    """{path, exists} of a library the launcher preloads, ``$(uname -m)`` as the node's machine."""
    path = pattern.replace('$(uname -m)', os.uname()[4])
    return {'path': path, 'exists': os.path.exists(path)}


def installed(venv):
    """{normalised distribution name: version} of a virtualenv's site-packages (its ``*.dist-info`` folders)."""
    found = (re.match(r'^(.+?)-([^-]+)\.dist-info$', os.path.basename(path))
             for path in glob.glob(os.path.join(venv, 'lib', 'python*', 'site-packages', '*.dist-info')))
    return {re.sub(r'[-_.]+', '-', match.group(1)).lower(): match.group(2) for match in found if match}


def _python(run_command, python):
    for imports, venv in (('sys, venv', True), ('sys', False)):
        rc, out, err = run_command([python, '-c', 'import %s; print("%%d.%%d.%%d" %% sys.version_info[:3])' % imports])
        if rc == 0 and out.strip():
            return {'version': out.strip().splitlines()[-1], 'venv': venv}
    return {'version': None, 'venv': False, 'error': (err or out or 'not found').strip()[-300:]}


def _state(run_command, name):
    """``systemctl show``'s ActiveState and SubState of unit ``name`` ({} when systemctl fails)."""
    rc, out, _err = run_command(['systemctl', 'show', name, '-pActiveState', '-pSubState'])
    return dict(line.split('=', 1) for line in out.splitlines() if '=' in line) if rc == 0 else {}


def _unit(run_command, unit_dir, unit):
    path = os.path.join(unit_dir, unit['name'])
    text = _read(path)
    found = {'exists': text is not None,
             'managed': managed(text),
             'previous': os.path.exists(path + PREVIOUS_SUFFIX), 'active': False, 'restarting': False, 'digest': ''}
    if text is not None:
        show = _state(run_command, unit['name'])
        found.update(active=show.get('ActiveState') == 'active', restarting=show.get('SubState') == 'auto-restart',
                     digest=digest(text, _read(unit.get('env_file') or '') or '', _read(unit.get('launcher') or '') or ''))
    return found


def managed_units(run_command, unit_dir=UNIT_DIR):
    """Every systemd unit of ours on the node (its file carries the collection's marker), whatever the plan:
    ``{name: {active, restarting, chips, port}}`` -- what a run that no longer plans it stops and removes, and
    whose chips and port preflight counts as ours. Empty without the directory."""
    try:
        names = sorted(name for name in os.listdir(unit_dir) if name.endswith('.service'))
    except OSError:
        return {}
    out = {}
    for name in names:
        text = _read(os.path.join(unit_dir, name))
        if not managed(text):
            continue
        state = _state(run_command, name) if os.path.isdir('/run/systemd/system') else {}
        out[name] = dict(unit_resources(text, _read), active=state.get('ActiveState') in ('active', 'activating', 'reloading'),
                         restarting=state.get('SubState') == 'auto-restart')
    return out


def _git(run_command):
    """{path, version} of the node's git (ansible.builtin.git runs it), path None when there is none (looked up
    first: run_command fails the module for a program that does not exist)."""
    path = shutil.which('git', path=os.environ.get('PATH') or '/usr/local/bin:/usr/bin:/bin')
    if not path:
        return {'path': None, 'version': None, 'error': 'no git on PATH'}
    rc, out, err = run_command([path, '--version'])
    if rc != 0:
        return {'path': None, 'version': None, 'error': (err or out or 'git --version failed').strip()[-300:]}
    match = re.search(r'(\d+(?:\.\d+)+)', out or '')
    return {'path': path, 'version': match.group(1) if match else None}


def gather_source(params, run_command):
    """The ``source`` facts for node_facts' ``source`` parameter (see plugins/modules/node_facts.py)."""
    params = params or {}
    venv = params.get('venv') or ''
    wheelhouse = params.get('wheelhouse') or ''
    unit_dir = params.get('unit_dir') or '/etc/systemd/system'
    files = sorted(name for name in os.listdir(wheelhouse) if name.endswith(('.whl', '.tar.gz', '.zip'))) if (
        wheelhouse and os.path.isdir(wheelhouse)) else []
    out = {
        'systemd': os.path.isdir('/run/systemd/system'),
        'python': _python(run_command, params.get('python') or 'python3'),
        'venv': {'exists': bool(venv) and os.path.isfile(os.path.join(venv, 'bin', 'python')),
                 'packages': installed(venv) if venv else {}},
        'wheelhouse': {'exists': bool(wheelhouse) and os.path.isdir(wheelhouse), 'files': files},
        'files': dict((pattern, _file(pattern)) for pattern in params.get('files') or []),
        'preload': dict((path, _preload(path)) for path in params.get('preload') or []),
        'units': dict((unit['name'], _unit(run_command, unit_dir, unit)) for unit in params.get('units') or []
                      if isinstance(unit, dict) and unit.get('name')),
    }
    if params.get('git'):
        out['git'] = _git(run_command)
    return out
