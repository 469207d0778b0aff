# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The source install method's systemd units as the node sees them: the marker that a unit is ours, its
environment file's text and the digest of what a service runs.

Node-side: ``ascend.vllm.vllm_service`` writes these texts, the node read (``node_facts``) and the
diagnostics recognise them; the plan (plugin_utils/serve/_source.py) computes the same digest.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex

from ansible_collections.ascend.vllm.plugins.module_utils._labels import MANAGED_VALUE

# [X-...] keys in [Unit] are ignored by systemd ("Unknown ... keys starting with X- are ignored", systemd.unit(5)):
# the unit says who wrote it, as the containers' ascend.vllm.managed-by label does.
MANAGED_KEY = 'X-Ascend-Vllm-Managed-By'
UNIT_DIR = '/etc/systemd/system'
PREVIOUS_SUFFIX = '.previous'


def managed(text):
    """Whether a unit file's text (str or bytes; None for no file) is one the collection wrote (its marker line)."""
    if isinstance(text, bytes):
        text = text.decode('utf-8', 'replace')
    return text is not None and any(line.strip() == '%s=%s' % (MANAGED_KEY, MANAGED_VALUE) for line in text.splitlines())


def _env_value(value):
    """An EnvironmentFile value (systemd.exec(5)): double-quoted, with the characters systemd's parser takes
    after a backslash inside double quotes (backslash, double quote, backtick, dollar) escaped. A newline cannot
    be written (a backslash before it continues the line): it stays a newline in no form, so it is refused in
    the plan (``env_problems``)."""
    return '"%s"' % re.sub(r'([\\"`$])', r'\\\1', str(value))


def env_text(env):
    """The instance's EnvironmentFile: one KEY="value" per line, sorted."""
    return ''.join('%s=%s\n' % (key, _env_value(env[key])) for key in sorted(env))


def digest(unit, env_file_text, launcher):
    """What the service runs, as one digest of the unit's, its environment file's and the launcher's texts
    (the plan's, and the node read's of the files themselves)."""
    text = json.dumps([unit or '', env_file_text or '', launcher or ''])
    return hashlib.sha256(text.encode('utf-8')).hexdigest()[:16]


def unit_command(text):
    """The command of a unit's ExecStart, after the launcher: ``[<venv>/bin/vllm, serve, ...]`` with systemd's
    ``$$`` and ``%%`` unescaped (plugin_utils/serve/_source.py writes each argument double-quoted)."""
    for line in (text or '').splitlines():
        if line.startswith('ExecStart='):
            try:
                words = shlex.split(line.split('=', 1)[1])
            except ValueError:
                return []
            return [word.replace('$$', '$').replace('%%', '%') for word in words[1:]]
    return []


def unit_resources(text, read):
    """{chips, port} a unit of ours holds when it runs: the chips of ``ASCEND_RT_VISIBLE_DEVICES`` in its
    EnvironmentFile (``read(path)``: the file's text or None) and the ``--port`` of its command (vLLM's default
    8000 when it names none)."""
    env_path = next((line.split('=', 1)[1].strip().lstrip('-') for line in (text or '').splitlines()
                     if line.startswith('EnvironmentFile=')), '')
    env_text_found = (read(env_path) if env_path else None) or ''
    found = re.findall(r'^\s*ASCEND_RT_VISIBLE_DEVICES\s*=(.*)$', env_text_found, re.M)
    chips = [int(word) for word in found[-1].strip().strip('"').split(',') if word.strip().isdigit()] if found else []
    command = unit_command(text)
    port = '8000'
    for index, word in enumerate(command):
        if word == '--port' and index + 1 < len(command):
            port = command[index + 1]
        elif word.startswith('--port='):
            port = word.split('=', 1)[1]
    return {'chips': chips, 'port': port}
