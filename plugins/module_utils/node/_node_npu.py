# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Finding and running ``npu-smi`` on the node, and reading the driver's version.info.

Shared by the npu_facts and node_facts modules.  Failures are ``NpuSmiError``
(a ``ValueError``) carrying the message and where npu-smi was looked for, so each
module decides whether that fails it (npu_facts) or becomes a fact (node_facts).
"""

from __future__ import annotations

import os
import time

from ansible_collections.ascend.vllm.plugins.module_utils.node.npu_smi import parse_board_info, parse_npu_smi_info, parse_version_info

# Where the deployment guide mounts npu-smi: Atlas 300I DUO, then Atlas 200I Pro.
FALLBACK_PATHS = ('/usr/local/bin/npu-smi', '/usr/local/sbin/npu-smi')


class NpuSmiError(ValueError):
    """npu-smi cannot be found, run or read; ``details`` are extra result keys (searched, found, rc, ...)."""

    def __init__(self, msg, **details):
        super().__init__(msg)
        self.msg, self.details = msg, details


def _is_executable(path):
    return os.path.isfile(path) and os.access(path, os.X_OK)


def find_npu_smi(search_path):
    """Return (found path or None, every path looked at) for npu-smi on search_path then FALLBACK_PATHS."""
    found = [os.path.join(directory, 'npu-smi') for directory in (search_path or '').split(os.pathsep) if directory]
    candidates = list(dict.fromkeys(found + list(FALLBACK_PATHS)))
    return next((candidate for candidate in candidates if _is_executable(candidate)), None), candidates


def read_driver_version(path, warn):
    """Return (version, info) from version.info; (None, {}) when the file is missing."""
    if not os.path.exists(path):
        return None, {}
    try:
        with open(path, 'rb') as handle:
            parsed = parse_version_info(handle.read().decode('utf-8'))
    except (OSError, ValueError) as exc:
        warn('Could not read the driver version from %s: %s' % (path, exc))
        return None, {}
    return parsed['version'], parsed['info']


def locate_npu_smi(path, search_path):
    """The npu-smi to run: ``path`` when given and executable, else one found on search_path.

    Raises NpuSmiError naming every place looked at, and (``found``) where npu-smi is
    when ``path`` was given but it lives elsewhere.
    """
    if path and _is_executable(path):
        return path
    path_dirs = [d for d in (search_path or '').split(os.pathsep) if d]
    # With a path given, look where it usually is too, so the message says where it went (a driver that
    # installs it elsewhere) or that it is nowhere.
    found, others = find_npu_smi(search_path)
    if not path:
        if found is None:
            raise NpuSmiError(
                'npu-smi not found on PATH (%s) nor at %s, where the deployment guide mounts it. '
                'Install the Ascend driver (it ships npu-smi), or set npu_smi_path to where '
                'npu-smi is.' % (os.pathsep.join(path_dirs) or 'empty', ' or '.join(FALLBACK_PATHS)),
                searched=others)
        return found
    searched = [path] + [p for p in others if p != path]
    if found:
        raise NpuSmiError(
            'npu-smi not found or not executable at npu_smi_path=%s, but it is at %s. Set npu_smi_path '
            'to %s (and mount that path wherever npu-smi is bind-mounted).' % (path, found, found),
            searched=searched, found=found)
    raise NpuSmiError(
        'npu-smi not found or not executable at npu_smi_path=%s, nor on PATH (%s) nor at %s. Install '
        'the Ascend driver on this host (it ships npu-smi), or set npu_smi_path to where npu-smi is.'
        % (path, os.pathsep.join(path_dirs) or 'empty', ' or '.join(p for p in FALLBACK_PATHS if p != path) or path),
        searched=searched)


def _output(stdout, stderr):
    return (stderr or '').strip() or (stdout or '').strip() or '(no output)'


def run_npu_smi(run_command, path):
    """stdout of ``path info``; NpuSmiError with rc, stdout and stderr when it fails."""
    rc, stdout, stderr = run_command([path, 'info'], environ_update={'LC_ALL': 'C'})
    if rc != 0:
        raise NpuSmiError(
            '%s info failed with rc=%d: %s. Check that the Ascend driver is loaded and that '
            'this user can open /dev/davinci_manager (become: true).' % (path, rc, _output(stdout, stderr)),
            rc=rc, stdout=stdout, stderr=stderr, cmd=[path, 'info'])
    return stdout


def npu_facts_from(text, path, driver_version_file, warn):
    """The ascend_npu facts for npu-smi output ``text``; NpuSmiError when it cannot be parsed."""
    try:
        parsed = parse_npu_smi_info(text)
    except ValueError as exc:
        raise NpuSmiError('Cannot parse npu-smi info output: %s' % exc, stdout=text)
    driver_version, driver_info = read_driver_version(driver_version_file, warn)
    return dict(parsed, driver_version=driver_version, driver_info=driver_info, chip_count=len(parsed['chips']),
                npu_smi_path=path)


def read_boards(run_command, path, npu_ids):
    """Per card (NPU id) what ``npu-smi info -t board -i ID`` says: driver, firmware, compatibility.

    The driver and firmware installation guides name this view as where the NPU driver
    ("Software Version") and firmware ("Firmware Version") versions are read. A card whose view
    cannot be run or read gets ``error`` instead; nothing here raises.
    """
    out = []
    for npu_id in npu_ids:
        argv = [path, 'info', '-t', 'board', '-i', str(npu_id)]
        rc, stdout, stderr = run_command(argv, environ_update={'LC_ALL': 'C'})
        if rc != 0:
            out.append({'npu_id': npu_id, 'error': '%s failed with rc=%d: %s' % (' '.join(argv), rc, _output(stdout, stderr))})
            continue
        try:
            board = parse_board_info(stdout or '')
        except ValueError as exc:
            out.append({'npu_id': npu_id, 'error': 'cannot parse %s: %s' % (' '.join(argv), exc)})
            continue
        out.append(dict({key: value for key, value in board.items() if key != 'fields'}, npu_id=npu_id, error=None))
    return out


def read_npu(run_command, path, search_path, driver_version_file, warn, boards=False):
    """Facts of the npu-smi at ``path`` (or found); NpuSmiError when there are none."""
    located = locate_npu_smi(path, search_path)
    facts = npu_facts_from(run_npu_smi(run_command, located), located, driver_version_file, warn)
    if boards:
        # In the same module run as `npu-smi info`: one board view per card it lists.
        facts['boards'] = read_boards(run_command, located, sorted(set(chip['npu_id'] for chip in facts['chips'])))
    return facts


def still_listed(facts, pids):
    """The pids of ``pids`` that npu-smi still lists as holding a chip, sorted."""
    return sorted(set(pids or []) & set(p['pid'] for p in facts.get('processes') or []))


def read_until_gone(read, pids, wait, clock=time.monotonic, sleep=time.sleep, interval=0.5):
    """Read the facts until none of ``pids`` is listed or ``wait`` seconds passed: (facts, still listed)."""
    deadline = clock() + max(0.0, wait)
    while True:
        facts = read()
        held = still_listed(facts, pids)
        left = deadline - clock()
        if not held or left <= 0:
            return facts, held
        sleep(min(interval, left))
