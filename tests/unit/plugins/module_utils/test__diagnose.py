# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""_diagnose: one node's diagnostics from fake probes (npu-smi, the Docker Engine, a file tree),
and the controller's one archive of several hosts'."""

import json
import os
import stat
import struct
import tarfile

import pytest

from ansible_collections.ascend.vllm.plugins.module_utils.serve import _diagnose
from ansible_collections.ascend.vllm.plugins.module_utils.serve._diagnose import (
    Collector, bundle, bundle_name, npu_ids, read_archive, tail_bytes, write_archive)
from ansible_collections.ascend.vllm.plugins.module_utils.node._node_docker import DockerError, demux

KEY = 'sk-diag-0123456789abcdef'
DUO = '01_npu-smi-info_300IDuo-96G_1card_2chips_with-process_25.0.rc1.1.txt'
ONE_CHIP = '06_npu-smi-info_310P3_only-chip0-shown_NPU224_25.2.3.txt'
VERSION_INFO = 'Version=24.1.rc2.2\nascendhal_version=7.35.23\npackage_version=24.1.rc2.2\n'
OURS = {'ascend.vllm.managed-by': 'ascend.vllm'}


def frames(*lines):
    """Docker's multiplexed log stream (stdout frames)."""
    return b''.join(struct.pack('>BxxxI', 1, len(line) + 1) + line.encode() + b'\n' for line in lines)


class Engine(object):
    """The Docker Engine API calls the collector makes, answered from dicts."""

    def __init__(self, containers, log_lines, down=False):
        self.containers, self.log_lines, self.down, self.asked = containers, log_lines, down, []

    def get(self, path):
        self.asked.append(path)
        if self.down:
            raise DockerError('cannot connect to the Docker Engine at unix:///var/run/docker.sock: refused')
        if path == '/version':
            return {'Version': '20.10.24', 'ApiVersion': '1.41'}
        if path == '/containers/json?all=1':
            return [{'Names': ['/' + name], 'Id': name * 2, 'Image': 'img', 'State': info['State']['Status'],
                     'Status': '', 'Ports': [], 'Labels': info['Config']['Labels']}
                    for name, info in self.containers.items()]
        name = path.split('/')[2]
        if name not in self.containers:
            raise DockerError('no such container', 404)
        return self.containers[name]

    def logs(self, name, tail=None, timestamps=False, tty=False):
        self.asked.append('/containers/%s/logs?tail=%s&timestamps=%d' % (name, tail, timestamps))
        return demux(frames(*self.log_lines.get(name, [])), tty)


def container(name, labels, env=(), cmd=()):
    return {'Name': '/' + name, 'State': {'Status': 'running'},
            'Config': {'Labels': labels, 'Env': list(env), 'Cmd': list(cmd), 'Tty': False}}


@pytest.fixture
def node(tmp_path, capture):
    """(root of a fake node's files, run_command answering npu-smi, the commands run)."""
    root = tmp_path / 'node'
    for path, text in (('usr/local/Ascend/driver/version.info', VERSION_INFO),
                       ('etc/ascend_install.info', 'Driver_Install_Path_Param=/usr/local/Ascend\n'),
                       ('usr/local/bin/npu-smi', '#!/bin/sh\n'),
                       ('var/log/npu/slog/run/device-os/device-os_1.log', 'slog line\n'),
                       ('var/log/ascend-vllm/vllm-ascend-20261201T000000Z.log',
                        'crash; Authorization: Bearer %s\nVLLM_API_KEY=%s\n' % (KEY, KEY)),
                       ('etc/os-release', 'NAME="Ubuntu"\n')):
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    (root / 'usr/local/bin/npu-smi').chmod(0o755)
    ran = []

    def run_command(argv, environ_update=None):
        ran.append(list(argv))
        if argv[1:] == ['info']:
            return 0, capture(DUO), ''
        return 3, 'Error: board info of NPU %s unavailable\n' % argv[-1], 'permission denied'
    return root, run_command, ran


def params(root, **extra):
    base = {'name': 'duo1', 'secrets': [KEY], 'npu_smi_path': str(root / 'usr/local/bin/npu-smi'),
            'driver_version_file': '/usr/local/Ascend/driver/version.info', 'log_lines': 50,
            'log_paths': ['/var/log/ascend-vllm', '/var/log/npu', '/root/ascend/log', '/etc/slog.conf'],
            'max_file_bytes': 1024, 'max_total_bytes': 1 << 20}
    base.update(extra)
    return base


def engine():
    return Engine({'vllm-ascend': container('vllm-ascend', OURS, ['VLLM_API_KEY=' + KEY, 'PATH=/usr/bin'],
                                            ['vllm', 'serve', 'm', '--api-key', KEY]),
                   'vllm-ascend-previous': container('vllm-ascend-previous', OURS),
                   'vllm-balancer': container('vllm-balancer', OURS),
                   'someone-else': container('someone-else', {})},
                  {'vllm-ascend': ['Application startup complete.', 'key %s' % KEY]})


@pytest.mark.parametrize('name, ids', [(DUO, [6]), (ONE_CHIP, [224]),
                                       ('02_npu-smi-info_300IDuo-96G_1card_2chips_idle_25.2.0.txt', [2])])
def test_npu_ids_lists_each_card_once(capture, name, ids):
    assert npu_ids(capture(name)) == ids


# The layout of the npu-smi reference's example ("Querying NPU details", Atlas 200I A2 docs); no capture
# of a 310P board's output was at hand.
BOARD = """        NPU ID                         : 0
        Product Name                   : IT22DMDB02
        Serial Number                  : 025VLB10K7000275
        Software Version               : 24.1.RC2
        Firmware Version               : 7.1.0.4.218
        Board ID                       : 0x45
        Chip Count                     : 1
"""


def test_the_board_versions_are_in_the_summary(node):
    root, run_command, ran = node

    def answer(argv, environ_update=None):
        return (0, BOARD, '') if '-t' in argv else run_command(argv, environ_update)
    summary = Collector(params(root), answer, None, root=str(root)).run()
    assert summary['boards'] == {'6': {'Software Version': '24.1.RC2', 'Firmware Version': '7.1.0.4.218'}}


def test_collects_every_source_redacted(node):
    root, run_command, ran = node
    docker = engine()
    collector = Collector(params(root), run_command, docker, root=str(root), clock=lambda: 1796076000)
    plan = {'instances': [{'name': 'default', 'options': {'api_key': '__secret__', 'env': {'HF_TOKEN': 'hf_abcdef'}}}],
            'configs': {'default': {'argv': ['vllm', 'serve', 'm', '--api-key', KEY]}}}
    summary = collector.run(plan)
    files = collector.files
    # npu-smi info, then the board query of the one NPU id it lists (its failure kept with rc and stderr).
    assert ran[0][1:] == ['info'] and ran[1][1:] == ['info', '-t', 'board', '-i', '6']
    assert 'rc=3' in files['npu-smi/board-6.txt'].decode() and 'permission denied' in files['npu-smi/board-6.txt'].decode()
    assert files['driver/version.info'].decode() == VERSION_INFO
    assert summary['driver_version'] == '24.1.rc2.2' and summary['npu_ids'] == [6]
    # Ours only (instance, kept previous, balancer), never someone else's container.
    assert summary['containers'] == ['vllm-ascend', 'vllm-ascend-previous', 'vllm-balancer']
    assert 'docker/someone-else.inspect.json' not in files
    inspect = json.loads(files['docker/vllm-ascend.inspect.json'])
    assert inspect['Config']['Env'] == ['VLLM_API_KEY=<redacted>', 'PATH=/usr/bin']
    assert inspect['Config']['Cmd'][-1] == '<redacted>'
    assert 'Application startup complete.' in files['logs/vllm-ascend.log'].decode()
    assert any('tail=50' in path for path in docker.asked)
    plan_out = json.loads(files['plan.json'])
    assert plan_out['instances'][0]['options']['env']['HF_TOKEN'] == '<redacted>'
    # Copied logs: the saved log of a failed container and the slog file, under their node paths.
    assert 'files/var/log/npu/slog/run/device-os/device-os_1.log' in files
    assert 'Bearer <redacted>' in files['files/var/log/ascend-vllm/vllm-ascend-20261201T000000Z.log'].decode()
    # The key is nowhere, in any file.
    assert not [name for name, data in files.items() if KEY.encode() in data or b'hf_abcdef' in data]
    manifest = json.loads(files['manifest.json'])
    assert {'file': None, 'source': '/root/ascend/log', 'absent': True} in manifest
    assert json.loads(files['host.json'])['collected_at'] == '2026-11-30T22:00:00Z'


def test_a_node_without_npu_smi_or_engine_still_gives_an_archive(node):
    root, run_command, ran = node
    os.remove(str(root / 'usr/local/bin/npu-smi'))
    collector = Collector(params(root, npu_smi_path='/nonexistent/npu-smi'), run_command,
                          Engine({}, {}, down=True), root=str(root))
    summary = collector.run()
    sources = [p['source'] for p in summary['problems']]
    assert 'npu-smi' in sources and 'docker' in sources and not ran
    assert 'driver/version.info' in collector.files and 'plan.json' not in collector.files


def test_npu_smi_found_elsewhere_than_the_platform_says_is_run_and_noted(node, monkeypatch):
    root, run_command, ran = node
    monkeypatch.setenv('PATH', str(root / 'usr/local/bin'))
    summary = Collector(params(root, npu_smi_path=str(root / 'usr/local/sbin/npu-smi')), run_command, None,
                        root=str(root)).run()
    assert ran[0] == [str(root / 'usr/local/bin/npu-smi'), 'info'] and summary['npu_ids'] == [6]
    assert 'but it is at %s' % (root / 'usr/local/bin/npu-smi') in summary['problems'][0]['error']


def test_log_files_are_cut_to_their_end_and_to_the_total(node):
    root, run_command, ran = node
    big = root / 'root/ascend/log/debug/plog'
    big.mkdir(parents=True)
    for index in range(3):
        (big / ('plog-%d.log' % index)).write_bytes(b'a' * 2000 + b'END%d' % index)
        os.utime(str(big / ('plog-%d.log' % index)), (1000 + index, 1000 + index))
    collector = Collector(params(root, log_paths=['/root/ascend/log'], max_file_bytes=1000, max_total_bytes=1500),
                          run_command, None, root=str(root))
    collector.run()
    files = collector.files
    # Newest first: plog-2 whole to its last 1000 bytes, plog-1 to the 500 left, plog-0 skipped.
    newest = files['files/root/ascend/log/debug/plog/plog-2.log']
    assert len(newest) == 1000 and newest.endswith(b'END2')
    assert len(files['files/root/ascend/log/debug/plog/plog-1.log']) == 500
    manifest = json.loads(files['manifest.json'])
    assert {'file': None, 'source': '/root/ascend/log/debug/plog/plog-0.log', 'skipped': 'max_total_bytes reached'} \
        in manifest
    assert [e['truncated'] for e in manifest if e.get('file', '') and 'plog' in e['file']] == [True, True]


def test_symbolic_links_are_not_followed(node, tmp_path):
    root, run_command, ran = node
    (tmp_path / 'outside').write_text('private')
    os.symlink(str(tmp_path / 'outside'), str(root / 'var/log/npu/link'))
    collector = Collector(params(root, log_paths=['/var/log/npu']), run_command, None, root=str(root))
    collector.run()
    assert not [name for name in collector.files if name.endswith('/link')]


@pytest.mark.parametrize('data, limit, expected', [
    (b'abcdef', 4, (b'cdef', True)), (b'abc', 4, (b'abc', False)), (b'abc', 0, (b'abc', False))])
def test_tail_bytes(data, limit, expected):
    assert tail_bytes(data, limit) == expected


def test_archives_and_the_bundle(tmp_path):
    one, two = str(tmp_path / 'a.tar.gz'), str(tmp_path / 'b.tar.gz')
    write_archive(one, 'duo1', {'npu-smi/info.txt': b'x', 'summary.json': b'{}'})
    write_archive(two, 'pro1', {'npu-smi/info.txt': b'y'})
    assert stat.S_IMODE(os.stat(one).st_mode) == 0o600
    assert read_archive(one) == {'duo1/npu-smi/info.txt': b'x', 'duo1/summary.json': b'{}'}
    files = bundle({'duo1': one, 'pro1': two}, {'pro2': 'unreachable'})
    assert files['duo1/npu-smi/info.txt'] == b'x' and files['pro1/npu-smi/info.txt'] == b'y'
    assert json.loads(files['hosts.json']) == {'collected': ['duo1', 'pro1'], 'missing': {'pro2': 'unreachable'}}
    out = str(tmp_path / 'all.tar.gz')
    write_archive(out, bundle_name(1796076000), files)
    with tarfile.open(out) as tar:
        assert sorted(tar.getnames()) == ['ascend-vllm-diagnose-20261130T220000Z/' + n for n in sorted(files)]


def test_the_role_default_log_paths_are_the_modules(tmp_path):
    import yaml
    defaults = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', 'roles', 'vllm_serve', 'defaults',
                            'main.yml')
    with open(defaults) as handle:
        data = yaml.safe_load(handle)
    assert [data['vllm_serve_failed_log_dir']] + data['vllm_serve_diagnose_log_paths'] == list(_diagnose.LOG_PATHS)
    assert data['vllm_serve_diagnose_log_lines'] == _diagnose.LOG_LINES


def test_the_source_install_methods_units_and_their_journals_are_collected(node):
    """Ours only (the unit's marker line), the unit text redacted, its journal and status from the node."""
    root, run_command, ran = node
    (root / 'run/systemd/system').mkdir(parents=True)
    units = root / 'etc/systemd/system'
    units.mkdir(parents=True)
    (units / 'vllm-ascend.service').write_text(
        '[Unit]\nX-Ascend-Vllm-Managed-By=ascend.vllm\n[Service]\nExecStart="/v/bin/vllm" "serve" "--api-key" "%s"\n'
        % KEY)
    (units / 'someone-else.service').write_text('[Service]\nExecStart=/bin/true\n')

    def run(argv, environ_update=None):
        if argv[0] == 'journalctl':
            ran.append(list(argv))
            return 0, 'Application startup complete. key %s\n' % KEY, ''
        if argv[0] == 'systemctl':
            ran.append(list(argv))
            return 0, 'active (running)\n', ''
        return run_command(argv, environ_update)
    collector = Collector(params(root), run, Engine({}, {}, down=True), root=str(root))
    summary = collector.run()
    assert summary['services'] == ['vllm-ascend.service']
    files = collector.files
    assert b'"<redacted>"' in files['systemd/vllm-ascend.service']
    assert 'Application startup complete.' in files['logs/vllm-ascend.service.log'].decode()
    assert ['journalctl', '--no-pager', '-u', 'vllm-ascend.service', '-n', '50', '-o', 'short-iso-precise'] in ran
    assert 'systemd/someone-else.service' not in files
    assert not [name for name, data in files.items() if KEY.encode() in data]
