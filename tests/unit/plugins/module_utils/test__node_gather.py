# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""node_facts' gathering with fakes: a /proc tree, a Docker Engine API and npu-smi."""

import os
import stat

import pytest

from ansible_collections.ascend.vllm.plugins.module_utils.node import _node_docker, _node_gather, _node_npu, _node_probe

TCP = ('  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n'
       '   0: 00000000:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4711 1\n'
       '   1: 0100007F:1F91 0100007F:D2F0 01 00000000:00000000 00:00000000 00000000     0        0 4712 1\n')


class FakeApi(object):
    """GET answers by path; a DockerError for paths it does not know."""

    def __init__(self, answers):
        self.answers = answers

    def get(self, path):
        if path not in self.answers:
            raise _node_docker.DockerError('GET %s: HTTP 404: No such container' % path, 404)
        answer = self.answers[path]
        if isinstance(answer, Exception):
            raise answer
        return answer


ENGINE = {
    '/info': {'ServerVersion': '20.10.24+dfsg1', 'DockerRootDir': '/var/lib/docker'},
    '/version': {'Version': '20.10.24+dfsg1', 'ApiVersion': '1.41'},
    '/images/json': [{'RepoTags': ['ascend/vllm-ascend:v0.23.0-310p', '<none>:<none>']}, {'RepoTags': None}],
    '/containers/json': [{'Names': ['/web'], 'Id': 'c1', 'State': 'running', 'Status': 'Up 2 minutes',
                          'Ports': [{'PrivatePort': 80, 'PublicPort': 8080, 'Type': 'tcp'}, {'PrivatePort': 81}],
                          'Labels': {'a': 'b'}}],
    '/containers/vllm-ascend/json': {
        'Id': 'c2', 'RestartCount': 2,
        'State': {'Running': True, 'Restarting': False, 'Status': 'running', 'ExitCode': 0, 'StartedAt': 't'},
        'HostConfig': {'Devices': [{'PathOnHost': '/dev/davinci0'}], 'PortBindings': {'8080/tcp': [{}]}},
        'Config': {'Labels': {'ascend.vllm.managed-by': 'ascend.vllm'}}},
    '/containers/vllm-ascend/top?ps_args=-eo%20pid': {'Titles': ['PID'], 'Processes': [['101'], ['102']]},
}


def test_engine_facts_reads_version_images_containers_and_top():
    out = _node_docker.engine_facts(FakeApi(ENGINE), ['vllm-ascend', 'gone'])
    assert out['reachable'] and out['version'] == '20.10.24+dfsg1' and out['root_dir'] == '/var/lib/docker'
    assert out['images'] == ['ascend/vllm-ascend:v0.23.0-310p']
    assert out['containers'][0]['name'] == 'web' and out['containers'][0]['ports'] == [8080]
    mine = out['inspected']['vllm-ascend']
    assert mine['pids'] == [101, 102] and mine['ports'] == ['8080'] and mine['devices'] == ['/dev/davinci0']
    assert mine['restart_count'] == 2 and mine['labels'] == {'ascend.vllm.managed-by': 'ascend.vllm'}
    assert out['inspected']['gone'] == {'exists': False}


def test_engine_facts_read_the_own_configuration_of_each_image_asked_for_that_the_node_has():
    ref = 'ascend/vllm-ascend:v0.23.0-310p'
    answers = dict(ENGINE, **{'/images/ascend%2Fvllm-ascend%3Av0.23.0-310p/json': {
        'Id': 'sha256:1', 'Architecture': 'arm64', 'Config': {'Env': ['PATH=/usr/bin', 'LD_LIBRARY_PATH=/x']}}})
    out = _node_docker.engine_facts(FakeApi(answers), [], [ref, 'ascend/vllm-ascend:gone'])
    assert out['image_configs'] == {ref: {'id': 'sha256:1', 'architecture': 'arm64',
                                          'env': ['PATH=/usr/bin', 'LD_LIBRARY_PATH=/x']}}
    assert _node_docker.engine_facts(FakeApi(answers), [])['image_configs'] == {}


def test_engine_that_does_not_answer_is_a_fact():
    answers = dict(ENGINE, **{'/info': _node_docker.DockerError('cannot connect to the Docker Engine at x: refused')})
    out = _node_docker.engine_facts(FakeApi(answers), [])
    assert out['reachable'] is False and 'refused' in out['error']


def test_unix_socket_that_is_missing(tmp_path):
    api = _node_docker.DockerApi('unix://%s' % (tmp_path / 'docker.sock'), timeout=1)
    with pytest.raises(_node_docker.DockerError, match='cannot connect to the Docker Engine'):
        api.get('/info')


def test_docker_host_must_be_unix_or_tcp():
    with pytest.raises(_node_docker.DockerError, match='docker_host=ssh://x'):
        _node_docker.DockerApi('ssh://x').get('/info')


def _proc(tmp_path, pid_sockets):
    proc = tmp_path / 'proc'
    (proc / 'net').mkdir(parents=True)
    (proc / 'net' / 'tcp').write_text(TCP)
    (proc / 'meminfo').write_text('MemTotal:       32768000 kB\nMemFree: 1000 kB\nMemAvailable:   20480000 kB\n')
    (proc / 'mounts').write_text('overlay / overlay rw 0 0\n/dev/sda1 %s ext4 rw 0 0\n' % tmp_path)
    for pid, (comm, inode) in pid_sockets.items():
        (proc / str(pid) / 'fd').mkdir(parents=True)
        (proc / str(pid) / 'comm').write_text(comm + '\n')
        os.symlink('socket:[%d]' % inode, str(proc / str(pid) / 'fd' / '3'))
    return str(proc)


def test_listeners_name_the_process(tmp_path):
    proc = _proc(tmp_path, {6684: ('python3', 4711), 7000: ('sshd', 999)})
    out = _node_probe.listeners([8080, 8081, 9000], proc=proc, probe=lambda port: port == 8080)
    assert out[8080] == {'listening': True, 'processes': [{'name': 'python3', 'pid': 6684}], 'accepts': True}
    # 8081 (0x1F91) is an established connection, not a listener.
    assert out[8081] == {'listening': False, 'processes': [], 'accepts': False}


def test_connect_probe_sees_a_real_listener():
    import socket
    server = socket.socket()
    server.bind(('127.0.0.1', 0))
    server.listen(1)
    port = server.getsockname()[1]
    try:
        assert _node_probe.connect_probe(port, 1.0)
    finally:
        server.close()
    assert not _node_probe.connect_probe(port, 1.0)


def test_memory_and_disk(tmp_path):
    proc = _proc(tmp_path, {})
    assert _node_probe.memory(proc=proc) == {'available_mb': 20000, 'total_mb': 32000}
    out = _node_probe.disk(str(tmp_path / 'docker'), proc=proc)
    assert out['mount'] == str(tmp_path) and out['root'] == str(tmp_path / 'docker') and out['free_gb'] >= 0
    assert _node_probe.filesystem_of('/var/lib/docker', ['/', '/var/lib']) == '/var/lib'
    assert _node_probe.parse_mounts('none /mnt/a\\040b tmpfs rw 0 0') == ['/mnt/a b']


def test_stat_path(tmp_path):
    (tmp_path / 'f').write_text('x')
    os.symlink(str(tmp_path / 'nope'), str(tmp_path / 'dangling'))
    assert _node_probe.stat_path(str(tmp_path / 'f'))['isreg']
    assert _node_probe.stat_path(str(tmp_path))['isdir']
    assert _node_probe.stat_path(str(tmp_path / 'dangling')) == {
        'exists': True, 'isdir': False, 'isreg': False, 'ischr': False, 'islnk': True, 'writable': False}
    assert _node_probe.stat_path(str(tmp_path / 'missing'))['exists'] is False
    assert _node_probe.stat_path('/dev/null')['ischr']


def _params(**extra):
    params = {'paths': [], 'npu_smi_path': '', 'driver_version_file': '/nonexistent', 'containers': ['vllm-ascend'],
              'ports': [8080], 'probe_timeout': 1.0, 'docker_host': None, 'gather': list(_node_gather.SUBSETS)}
    params.update(extra)
    return params


def _npu_smi(tmp_path, name):
    path = tmp_path / name
    path.write_text('#!/bin/sh\n')
    path.chmod(stat.S_IRWXU)
    return str(path)


def test_gather_node_in_one_call(tmp_path, capture):
    text = capture('02_npu-smi-info_300IDuo-96G_1card_2chips_idle_25.2.0.txt')
    smi = _npu_smi(tmp_path, 'npu-smi')
    out = _node_gather.gather_node(_params(npu_smi_path=smi, paths=[smi]), lambda argv, **kw: (0, text, ''),
                                   '', lambda msg: None, docker_api=FakeApi(ENGINE),
                                   proc=_proc(tmp_path, {}), probe=lambda port: False)
    assert out['npu']['chip_count'] == 2 and out['npu_error'] is None and out['npu_found'] is None
    assert out['paths'][smi]['isreg'] and out['containers']['vllm-ascend']['pids'] == [101, 102]
    assert out['listeners'] == {'8080': {'listening': True, 'processes': [], 'accepts': False}}
    assert out['docker']['reachable'] and out['memory']['available_mb'] == 20000 and out['disk']['root'] == \
        '/var/lib/docker'


def test_npu_smi_elsewhere_is_read_too(tmp_path, capture, monkeypatch):
    text = capture('02_npu-smi-info_300IDuo-96G_1card_2chips_idle_25.2.0.txt')
    other = _npu_smi(tmp_path, 'npu-smi')
    monkeypatch.setattr(_node_npu, 'FALLBACK_PATHS', ())
    out = _node_gather.gather_node(_params(npu_smi_path='/usr/local/sbin/npu-smi', gather=['npu']),
                                   lambda argv, **kw: (0, text, ''), str(tmp_path), lambda msg: None)
    assert out['npu'] is None and out['npu_error']['found'] == other
    assert 'but it is at %s' % other in out['npu_error']['msg']
    assert out['npu_found']['chip_count'] == 2


def test_npu_smi_failing_is_a_fact(tmp_path):
    smi = _npu_smi(tmp_path, 'npu-smi')
    out = _node_gather.gather_node(_params(npu_smi_path=smi, gather=['npu']),
                                   lambda argv, **kw: (255, '', 'dcmi module initialize failed. ret is -8005'),
                                   '', lambda msg: None)
    assert out['npu'] is None and out['npu_error']['rc'] == 255
    assert out['npu_error']['msg'] == ('%s info failed with rc=255: dcmi module initialize failed. ret is -8005. Check '
                                       'that the Ascend driver is loaded and that this user can open '
                                       '/dev/davinci_manager (become: true).' % smi)


def test_gather_only_memory(tmp_path):
    out = _node_gather.gather_node(_params(gather=['memory']), None, '', None, proc=_proc(tmp_path, {}))
    assert out == {'memory': {'available_mb': 20000, 'total_mb': 32000}}


FIB_TRIE = """Main:
  +-- 0.0.0.0/0 3 0 5
     |-- 0.0.0.0
        /0 universe UNICAST
     +-- 127.0.0.0/8 2 0 2
        +-- 127.0.0.0/31 1 0 0
           |-- 127.0.0.0
              /8 host LOCAL
           |-- 127.0.0.1
              /32 host LOCAL
        |-- 127.255.255.255
           /32 link BROADCAST
     |-- 172.18.0.5
        /32 host LOCAL
Local:
  +-- 0.0.0.0/0 3 0 5
     |-- 172.18.0.5
        /32 host LOCAL
"""
IF_INET6 = """00000000000000000000000000000001 01 80 10 80       lo
fe800000000000000042acfffe120005 2c 40 20 80     eth0
"""


def test_addresses_are_read_from_proc(tmp_path):
    assert _node_probe.parse_fib_trie(FIB_TRIE) == ['127.0.0.1', '172.18.0.5']
    assert _node_probe.parse_if_inet6(IF_INET6) == ['::1', 'fe80::42:acff:fe12:5']
    (tmp_path / 'net').mkdir()
    (tmp_path / 'net' / 'fib_trie').write_text(FIB_TRIE)
    assert _node_probe.addresses(str(tmp_path)) == ['127.0.0.1', '172.18.0.5']


def test_stat_path_says_whether_it_can_be_written_or_created(tmp_path, monkeypatch):
    (tmp_path / 'ro').mkdir()
    assert _node_probe.stat_path(str(tmp_path))['writable'] is True
    # Missing, under a writable parent: container_run can create it.
    assert _node_probe.stat_path(str(tmp_path / 'new' / 'deeper'))['writable'] is True
    # A read-only mount: access(2) says no (EROFS), to root too; the answer for a path under it follows.
    readonly = str(tmp_path / 'ro')
    real_access = os.access
    monkeypatch.setattr(_node_probe.os, 'access',
                        lambda path, mode: False if str(path).startswith(readonly) else real_access(path, mode))
    assert _node_probe.stat_path(readonly)['writable'] is False
    assert _node_probe.stat_path(readonly + '/cache')['writable'] is False
    assert _node_probe.stat_path(str(tmp_path))['writable'] is True


def test_stat_path_says_where_a_link_leads(tmp_path):
    (tmp_path / 'real').mkdir()
    os.symlink(str(tmp_path / 'real'), str(tmp_path / 'link'))
    assert _node_probe.stat_path(str(tmp_path / 'link'))['realpath'] == str(tmp_path / 'real')


def _board(npu_id, firmware, compatibility='OK'):
    # The board view's shape: printf("\t%-30s : %s\n") per line (npu-smi's own format).
    lines = [('NPU ID', npu_id), ('Software Version', '25.2.0'), ('Firmware Version', firmware)]
    if compatibility:
        lines.append(('Compatibility', compatibility))
    return ''.join('\t%-30s : %s\n' % line for line in lines + [('Chip Count', 2)])


def test_board_view_of_each_card_in_the_same_run(tmp_path, capture):
    # Two cards (NPU 2 and 3): one board view each, after `npu-smi info`, in one module run.
    text = capture('02_npu-smi-info_300IDuo-96G_1card_2chips_idle_25.2.0.txt')
    two_cards = text.replace('| 2       310P3                 | OK              | NA           49',
                             '| 3       310P3                 | OK              | NA           49')
    smi = _npu_smi(tmp_path, 'npu-smi')
    calls = []

    def run(argv, **kw):
        calls.append(argv)
        if argv[1:] == ['info']:
            return 0, two_cards, ''
        if argv[-1] == '3':
            return 255, '', 'Error: the device 3 is busy'
        return 0, _board(argv[-1], '7.7.0.6.236'), ''

    out = _node_gather.gather_node(_params(npu_smi_path=smi, gather=['npu']), run, '', lambda msg: None)
    assert calls == [[smi, 'info'], [smi, 'info', '-t', 'board', '-i', '2'], [smi, 'info', '-t', 'board', '-i', '3']]
    assert out['npu']['boards'] == [
        {'npu_id': 2, 'software_version': '25.2.0', 'firmware_version': '7.7.0.6.236', 'compatibility': 'OK',
         'chip_count': 2, 'error': None},
        {'npu_id': 3, 'error': '%s info -t board -i 3 failed with rc=255: Error: the device 3 is busy' % smi},
    ]


def test_npu_facts_module_reads_no_board_view(tmp_path, capture):
    text = capture('02_npu-smi-info_300IDuo-96G_1card_2chips_idle_25.2.0.txt')
    smi = _npu_smi(tmp_path, 'npu-smi')
    facts = _node_npu.read_npu(lambda argv, **kw: (0, text, ''), smi, '', '/nonexistent', lambda msg: None)
    assert 'boards' not in facts


def test_system_reads_the_machine_and_which_modules_this_python_imports():
    def importer(name):
        if name == 'broken':
            raise SyntaxError('bad package')
        if name == 'absent':
            raise ImportError("No module named 'absent'")
        return type('Module', (), {'__version__': '2.28.1'})

    class Uname(object):
        machine = 'aarch64'

    out = _node_probe.system(('present', 'absent', 'broken'), importer, Uname)
    assert out['machine'] == 'aarch64'
    assert out['python']['executable'] and out['python']['version']
    assert out['python']['modules'] == {
        'present': {'found': True, 'version': '2.28.1', 'error': None},
        'absent': {'found': False, 'version': None, 'error': "ImportError: No module named 'absent'"},
        'broken': {'found': False, 'version': None, 'error': 'SyntaxError: bad package'}}


def test_system_asks_this_python_for_requests():
    """The module's own Python: the test's has requests (the controller's dependencies), so it is found."""
    out = _node_probe.system()
    assert list(out['python']['modules']) == ['requests']
    assert out['python']['modules']['requests']['found'] is True
    assert out['machine'] == os.uname().machine
