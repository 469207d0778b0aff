# SPDX-License-Identifier: Apache-2.0
"""The diagnose_collect and diagnose_bundle modules' main(): options, the archive written, errors."""

import os
import tarfile

import pytest

from ansible_collections.ascend.vllm.plugins.module_utils.serve._diagnose import read_archive, write_archive
from ansible_collections.ascend.vllm.plugins.modules import diagnose_bundle, diagnose_collect
from moduleargs import ExitJson, FailJson, patch_exit_fail, set_module_args as module_args  # noqa: E402,F401 pylint: disable=wrong-import-position,unused-import


def run(module, args):
    with module_args(args):
        with pytest.raises((ExitJson, FailJson)) as raised:
            module.main()
    return raised.value.args[0]


def test_collect_writes_an_archive_even_when_nothing_answers(tmp_path):
    dest = str(tmp_path / 'node.tar.gz')
    result = run(diagnose_collect, {'name': 'duo1', 'dest': dest, 'npu_smi_path': str(tmp_path / 'none'),
                                    'docker_host': 'unix://%s/none.sock' % tmp_path,
                                    'log_paths': [str(tmp_path / 'absent')], 'plan': {'api_key': 'sk-0123456789'},
                                    'secrets': ['sk-0123456789']})
    assert not result.get('failed') and result['path'] == dest and result['changed'] is False
    members = read_archive(dest)
    assert sorted(members) == sorted('duo1/' + name for name in result['files'])
    assert {'plan.json', 'summary.json', 'manifest.json', 'host.json'} <= set(result['files'])
    assert [p['source'] for p in result['summary']['problems']][:1] == ['npu-smi']
    assert not [n for n, data in members.items() if b'sk-0123456789' in data]


def test_collect_without_dest_uses_a_new_temporary_directory(tmp_path):
    result = run(diagnose_collect, {'name': 'duo1', 'docker_host': 'unix://%s/none.sock' % tmp_path,
                                    'log_paths': [str(tmp_path)]})
    assert os.path.basename(os.path.dirname(result['path'])).startswith('ascend-vllm-diagnose-')
    os.remove(result['path'])
    os.rmdir(os.path.dirname(result['path']))


@pytest.mark.parametrize('option', ['log_lines', 'max_file_bytes', 'max_total_bytes'])
def test_collect_refuses_sizes_below_one(option):
    result = run(diagnose_collect, {'name': 'duo1', option: 0})
    assert result['failed'] and result['msg'] == '%s=0: must be more than 0' % option


def test_bundle_writes_one_archive_and_removes_the_hosts(tmp_path):
    one = str(tmp_path / 'duo1.tar.gz')
    write_archive(one, 'duo1', {'npu-smi/info.txt': b'x'})
    os.makedirs(str(tmp_path / 'out'))
    result = run(diagnose_bundle, {'archives': {'duo1': one}, 'missing': {'pro1': 'unreachable'},
                                   'dest': str(tmp_path / 'out'), 'name': 'report'})
    assert result['path'] == str(tmp_path / 'out' / 'report.tar.gz') and result['files'] == 2
    with tarfile.open(result['path']) as tar:
        assert sorted(tar.getnames()) == ['report/duo1/npu-smi/info.txt', 'report/hosts.json']
    assert not os.path.exists(one)


def test_bundle_defaults_to_the_current_directory(tmp_path, monkeypatch):
    one = str(tmp_path / 'duo1.tar.gz')
    write_archive(one, 'duo1', {'a': b'x'})
    monkeypatch.chdir(str(tmp_path))
    result = run(diagnose_bundle, {'archives': {'duo1': one}, 'remove_sources': False})
    assert os.path.dirname(result['path']) == str(tmp_path) and os.path.isfile(one)
    assert os.path.basename(result['path']).startswith('ascend-vllm-diagnose-')


@pytest.mark.parametrize('args, message', [
    ({'name': '../x'}, 'name=../x: must be a file name without a directory'),
    ({'archives': {'duo1': '/nonexistent.tar.gz'}}, 'Bundling the diagnostics into '),
])
def test_bundle_errors(tmp_path, args, message):
    result = run(diagnose_bundle, dict({'archives': {}, 'dest': str(tmp_path)}, **args))
    assert result['failed'] and result['msg'].startswith(message)


def test_bundle_diff_shows_the_archive_created_and_each_host_s_removed(tmp_path):
    one, two = str(tmp_path / 'duo1.tar.gz'), str(tmp_path / 'pro1.tar.gz')
    write_archive(one, 'duo1', {'npu-smi/info.txt': b'x'})
    write_archive(two, 'pro1', {'npu-smi/info.txt': b'yy', 'plan.json': b'{}'})
    result = run(diagnose_bundle, {'archives': {'duo1': one, 'pro1': two}, 'dest': str(tmp_path), 'name': 'report',
                                   '_ansible_diff': True})
    made, gone_one, gone_two = result['diff']
    assert made['before_header'] == '%s (absent)' % result['path'] and made['after_header'] == result['path']
    assert made['before'] == ''
    hosts = len(read_archive(result['path'])['report/hosts.json'])
    assert made['after'] == ('report/duo1/npu-smi/info.txt (1 bytes)\nreport/hosts.json (%d bytes)\n'
                             'report/pro1/npu-smi/info.txt (2 bytes)\nreport/pro1/plan.json (2 bytes)\n' % hosts)
    assert gone_one == {'before_header': one, 'after_header': one + ' (absent)',
                        'before': 'duo1/npu-smi/info.txt (1 bytes)\n', 'after': ''}
    assert gone_two['before'] == 'pro1/npu-smi/info.txt (2 bytes)\npro1/plan.json (2 bytes)\n'
    # Bundled again under the same name, without removing: the archive it replaces is its before.
    write_archive(one, 'duo1', {'npu-smi/info.txt': b'xyz'})
    again = run(diagnose_bundle, {'archives': {'duo1': one}, 'dest': str(tmp_path), 'name': 'report',
                                  'remove_sources': False, '_ansible_diff': True})
    assert [entry['after_header'] for entry in again['diff']] == [result['path']]
    assert again['diff'][0]['before'] == made['after'] and 'info.txt (3 bytes)' in again['diff'][0]['after']


def test_bundle_without_diff_returns_none(tmp_path):
    one = str(tmp_path / 'duo1.tar.gz')
    write_archive(one, 'duo1', {'a': b'x'})
    result = run(diagnose_bundle, {'archives': {'duo1': one}, 'dest': str(tmp_path), 'name': 'r'})
    assert 'diff' not in result
