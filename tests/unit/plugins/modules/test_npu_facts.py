# SPDX-License-Identifier: Apache-2.0
"""Unit tests for the npu_facts module: main() with AnsibleModule exit/fail patched."""

import os
import stat

import pytest

from ansible.module_utils import basic

from ansible_collections.ascend.vllm.plugins.module_utils.node import _node_npu
from ansible_collections.ascend.vllm.plugins.modules import npu_facts
from moduleargs import ExitJson, FailJson, patch_exit_fail, set_module_args as module_args  # noqa: E402,F401 pylint: disable=wrong-import-position,unused-import

VERSION_INFO = 'Version=24.1.rc2.2\nascendhal_version=7.35.23\npackage_version=24.1.rc2.2\n'


def run_main(args, expect=ExitJson):
    with module_args(args):
        with pytest.raises(expect) as caught:
            npu_facts.main()
    return caught.value.args[0]


def fake_npu_smi(directory, stdout='', stderr='', rc=0):
    """An executable npu-smi that prints the given text and exits with rc."""
    (directory / 'out.txt').write_text(stdout)
    (directory / 'err.txt').write_text(stderr)
    path = directory / 'npu-smi'
    path.write_text('#!/bin/sh\n[ "$1" = info ] || exit 64\ncat "%s"\ncat "%s" >&2\nexit %d\n'
                    % (directory / 'out.txt', directory / 'err.txt', rc))
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return str(path)


@pytest.fixture
def capture_02(capture):
    """Capture 02 (Atlas 300I DUO, npu-smi 25.2.0), from tests/integration/targets/npu_facts/files/."""
    return capture('02_npu-smi-info_300IDuo-96G_1card_2chips_idle_25.2.0.txt')


@pytest.fixture
def missing_file(tmp_path):
    return str(tmp_path / 'no-such-version.info')


def test_output_given(capture_02, missing_file):
    result = run_main({'output': capture_02, 'driver_version_file': missing_file})
    facts = result['ansible_facts']['ascend_npu']
    assert result['changed'] is False
    assert result['npu'] == facts
    assert facts['npu_smi_version'] == '25.2.0'
    assert facts['chip_count'] == 2
    assert [(c['npu_id'], c['chip_id'], c['device_id'], c['memory_free_mb']) for c in facts['chips']] == [
        (2, 0, 0, 42751), (2, 1, 1, 42282)]
    assert facts['processes'] == []
    assert facts['process_table_present'] is True
    assert facts['npu_smi_path'] is None
    assert facts['driver_version'] is None
    assert facts['driver_info'] == {}


def test_check_mode_still_reads(capture_02, missing_file):
    result = run_main({'output': capture_02, 'driver_version_file': missing_file, '_ansible_check_mode': True})
    assert result['changed'] is False
    assert result['ansible_facts']['ascend_npu']['chip_count'] == 2


def test_driver_version_file(capture_02, tmp_path):
    version_file = tmp_path / 'version.info'
    version_file.write_text(VERSION_INFO)
    facts = run_main({'output': capture_02, 'driver_version_file': str(version_file)})['npu']
    assert facts['driver_version'] == '24.1.rc2.2'
    assert facts['driver_info'] == {'Version': '24.1.rc2.2', 'ascendhal_version': '7.35.23',
                                    'package_version': '24.1.rc2.2'}


def test_unreadable_driver_version_file_warns(capture_02, tmp_path, monkeypatch):
    version_file = tmp_path / 'version.info'
    version_file.write_text('Version=1\nnot a key value line\n')
    warnings = []
    monkeypatch.setattr(basic.AnsibleModule, 'warn', lambda self, msg: warnings.append(msg))
    facts = run_main({'output': capture_02, 'driver_version_file': str(version_file)})['npu']
    assert facts['driver_version'] is None
    assert len(warnings) == 1 and 'line 2' in warnings[0] and str(version_file) in warnings[0]


def test_parse_error_quotes_the_line(capture_02, missing_file):
    bad = capture_02.replace('| 0       0                     | 0000:01:00.0    |',
                             '| 0                             | 0000:01:00.0    |')
    result = run_main({'output': bad, 'driver_version_file': missing_file}, expect=FailJson)
    assert 'Cannot parse npu-smi info output' in result['msg']
    assert 'line 8' in result['msg']
    assert '0000:01:00.0' in result['msg']


def test_runs_given_binary(capture_02, tmp_path, missing_file):
    path = fake_npu_smi(tmp_path, stdout=capture_02)
    facts = run_main({'npu_smi_path': path, 'driver_version_file': missing_file})['npu']
    assert facts['npu_smi_path'] == path
    assert facts['chip_count'] == 2


def test_finds_binary_on_path(capture_02, tmp_path, monkeypatch, missing_file):
    bindir = tmp_path / 'bin'
    bindir.mkdir()
    path = fake_npu_smi(bindir, stdout=capture_02)
    monkeypatch.setenv('PATH', os.pathsep.join([str(tmp_path / 'empty'), str(bindir), os.environ.get('PATH', '')]))
    facts = run_main({'driver_version_file': missing_file})['npu']
    assert facts['npu_smi_path'] == path


def test_runs_without_shell(capture_02, monkeypatch, missing_file):
    calls = []

    def run_command(self, args, **kwargs):
        calls.append((args, kwargs))
        return 0, capture_02, ''

    monkeypatch.setattr(basic.AnsibleModule, 'run_command', run_command)
    monkeypatch.setattr(_node_npu, '_is_executable', lambda path: path == '/opt/x/npu-smi')
    run_main({'npu_smi_path': '/opt/x/npu-smi', 'driver_version_file': missing_file})
    assert calls[0][0] == ['/opt/x/npu-smi', 'info']
    assert not calls[0][1].get('use_unsafe_shell')


def test_missing_binary_names_paths_and_fix(tmp_path, monkeypatch, missing_file):
    monkeypatch.setenv('PATH', str(tmp_path))
    monkeypatch.setattr(_node_npu, '_is_executable', lambda path: False)
    result = run_main({'driver_version_file': missing_file}, expect=FailJson)
    assert '/usr/local/bin/npu-smi' in result['msg']
    assert '/usr/local/sbin/npu-smi' in result['msg']
    assert 'PATH' in result['msg']
    assert 'Install the Ascend driver' in result['msg']
    assert 'npu_smi_path' in result['msg']
    assert result['searched'] == [str(tmp_path / 'npu-smi'), '/usr/local/bin/npu-smi', '/usr/local/sbin/npu-smi']


def test_given_path_missing(tmp_path, monkeypatch, missing_file):
    path = str(tmp_path / 'npu-smi')
    monkeypatch.setenv('PATH', str(tmp_path / 'bin'))
    monkeypatch.setattr(_node_npu, '_is_executable', lambda p: False)
    result = run_main({'npu_smi_path': path, 'driver_version_file': missing_file}, expect=FailJson)
    assert path in result['msg']
    assert 'Install the Ascend driver' in result['msg']
    # Every place looked at is named: the given path, PATH, the guide's two paths.
    assert 'PATH (%s)' % (tmp_path / 'bin') in result['msg']
    assert '/usr/local/bin/npu-smi or /usr/local/sbin/npu-smi' in result['msg']
    assert result['searched'] == [path, str(tmp_path / 'bin' / 'npu-smi'),
                                  '/usr/local/bin/npu-smi', '/usr/local/sbin/npu-smi']


def test_given_path_missing_but_elsewhere(tmp_path, monkeypatch, missing_file):
    monkeypatch.setenv('PATH', str(tmp_path / 'bin'))
    monkeypatch.setattr(_node_npu, '_is_executable', lambda p: p == '/usr/local/sbin/npu-smi')
    result = run_main({'npu_smi_path': '/usr/local/bin/npu-smi', 'driver_version_file': missing_file},
                      expect=FailJson)
    assert 'npu_smi_path=/usr/local/bin/npu-smi, but it is at /usr/local/sbin/npu-smi' in result['msg']
    assert result['found'] == '/usr/local/sbin/npu-smi'
    assert result['searched'][0] == '/usr/local/bin/npu-smi'


def test_nonzero_rc_shows_rc_and_stderr(tmp_path, missing_file):
    path = fake_npu_smi(tmp_path, stderr='dcmi module initialize failed. ret is -8005\n', rc=1)
    result = run_main({'npu_smi_path': path, 'driver_version_file': missing_file}, expect=FailJson)
    assert result['rc'] == 1
    assert 'rc=1' in result['msg']
    assert 'dcmi module initialize failed. ret is -8005' in result['msg']


def test_nonzero_rc_falls_back_to_stdout(tmp_path, missing_file):
    path = fake_npu_smi(tmp_path, stdout='Error: device busy\n', rc=255)
    result = run_main({'npu_smi_path': path, 'driver_version_file': missing_file}, expect=FailJson)
    assert 'rc=255' in result['msg'] and 'Error: device busy' in result['msg']


@pytest.mark.parametrize('search_path, found', [
    ('{d}/a:{d}/b', '{d}/b/npu-smi'),
    ('', None),
    ('::{d}/b', '{d}/b/npu-smi'),
])
def test_find_npu_smi_order(tmp_path, search_path, found):
    if any(os.path.exists(p) for p in _node_npu.FALLBACK_PATHS):
        pytest.skip('this machine has a real npu-smi')
    for name in ('a', 'b'):
        (tmp_path / name).mkdir()
    fake_npu_smi(tmp_path / 'b')
    path, searched = _node_npu.find_npu_smi(search_path.format(d=tmp_path))
    assert path == (found.format(d=tmp_path) if found else None)
    assert searched[-2:] == list(_node_npu.FALLBACK_PATHS)
    assert _node_npu.FALLBACK_PATHS == ('/usr/local/bin/npu-smi', '/usr/local/sbin/npu-smi')


class _FakeTime(object):
    def __init__(self):
        self.now = 0.0

    def clock(self):
        return self.now

    def sleep(self, seconds):
        assert 0 < seconds <= 0.5
        self.now += seconds


def _facts(*pids):
    return {'processes': [{'pid': pid, 'device_id': 0} for pid in pids]}


def test_read_until_gone_returns_as_soon_as_the_pids_left():
    fake = _FakeTime()
    reads = iter([_facts(11, 12, 99), _facts(12, 99), _facts(99)])
    facts, held = _node_npu.read_until_gone(lambda: next(reads), [11, 12], 60, fake.clock, fake.sleep)
    assert held == [] and facts == _facts(99) and fake.now == 1.0


def test_read_until_gone_gives_up_after_the_wait_naming_the_pids():
    fake = _FakeTime()
    facts, held = _node_npu.read_until_gone(lambda: _facts(12, 11), [11, 12], 2, fake.clock, fake.sleep)
    assert held == [11, 12] and fake.now == 2.0


def test_read_until_gone_reads_once_without_pids_or_wait():
    fake = _FakeTime()
    assert _node_npu.read_until_gone(lambda: _facts(5), [], 60, fake.clock, fake.sleep) == (_facts(5), [])
    assert _node_npu.read_until_gone(lambda: _facts(5), [5], 0, fake.clock, fake.sleep) == (_facts(5), [5])
    assert fake.now == 0.0
