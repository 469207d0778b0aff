# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The node preflight's judgement: problems with the messages the role has always given."""

import copy

import pytest

from ansible_collections.ascend.vllm.plugins.plugin_utils.judge import _node_problems as np
from ansible_collections.ascend.vllm.plugins.module_utils.node.npu_smi import parse_npu_smi_info
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.platforms import get_profile

DUO = get_profile('atlas_300i_duo')
PRO = get_profile('atlas_200i_pro')
IDLE = '02_npu-smi-info_300IDuo-96G_1card_2chips_idle_25.2.0.txt'
BUSY = '01_npu-smi-info_300IDuo-96G_1card_2chips_with-process_25.0.rc1.1.txt'
ONLY_CHIP0 = '06_npu-smi-info_310P3_only-chip0-shown_NPU224_25.2.3.txt'


def _npu(text):
    parsed = parse_npu_smi_info(text)
    return dict(parsed, driver_version='24.1.rc2.2', chip_count=len(parsed['chips']))


def settings(profile=DUO, instances=None, **extra):
    out = {
        'host': 'node1', 'platform': 'atlas_300i_duo', 'profile': profile, 'profile_given': True,
        'platform_problems': [],
        'instances': [{'name': 'default', 'container_name': 'vllm-ascend', 'chips': [0],
                       'chips_var': 'vllm_serve_chips', 'port': 8080, 'host_memory_mb': 0}]
        if instances is None else instances,
        'driver_dir': '/usr/local/Ascend/driver', 'driver_version_file': '/usr/local/Ascend/driver/version.info',
        'driver_min_version': '', 'npu_smi_path': '', 'mount_sources': True, 'docker_min_version': '18.09',
        'ports': True, 'disk_min_free_gb': 20, 'images': [], 'rc_memory_margin_mb': 0, 'paths': [],
    }
    out.update(extra)
    return out


def healthy(capture, profile=DUO, text=IDLE):
    """What node_facts returns on a ready node for settings(profile)."""
    query = np.node_query(settings(profile))
    dirs = set(path for path, kind, _source in np.mount_specs(profile) if kind == 'dir') | {'/usr/local/Ascend/driver'}
    paths = dict((p, {'exists': True, 'isdir': p in dirs, 'isreg': p not in dirs and not p.startswith('/dev/'),
                      'ischr': p.startswith('/dev/'), 'islnk': False})
                 for p in query['paths'])
    return {
        'paths': paths, 'npu': _npu(capture(text)), 'npu_error': None, 'npu_found': None,
        'docker': {'reachable': True, 'error': None, 'version': '20.10.24+dfsg1', 'root_dir': '/var/lib/docker',
                   'images': ['busybox:latest'], 'containers': []},
        'containers': {'vllm-ascend': {'exists': False}},
        'listeners': {'8080': {'listening': False, 'processes': [], 'accepts': False}},
        'disk': {'root': '/var/lib/docker', 'mount': '/var/lib/docker', 'free_gb': 100.0},
        'memory': {'available_mb': 30000, 'total_mb': 32000},
    }


def msgs(out):
    return [(p['check'], p['msg']) for p in out['problems']]


def test_node_query_asks_for_driver_devices_mounts_and_ports():
    query = np.node_query(settings(DUO, paths=['/data/models']))
    assert query['paths'][:2] == ['/usr/local/Ascend/driver', '/usr/local/Ascend/driver/version.info']
    assert '/dev/davinci0' in query['paths'] and '/dev/davinci_manager' in query['paths']
    # The guide's "lib64/" is normalised so it compares with what the node returns.
    assert '/usr/local/Ascend/driver/lib64' in query['paths']
    assert query['paths'][-1] == '/data/models'
    assert query['npu_smi_path'] == '/usr/local/bin/npu-smi'
    assert query['containers'] == ['vllm-ascend', 'vllm-ascend-previous'] and query['ports'] == [8080]


def test_node_query_without_ports_or_mounts():
    query = np.node_query(settings(DUO, ports=False, mount_sources=False, npu_smi_path='/opt/npu-smi'))
    assert query['ports'] == [] and query['npu_smi_path'] == '/opt/npu-smi'
    assert '/usr/local/dcmi' not in query['paths']


def test_healthy_node_has_no_problem(capture):
    out = np.node_problems(healthy(capture), settings())
    assert out['problems'] == []
    result = out['result']
    assert result['chip_free_mb'] == {'default': 44280 - 1529}
    assert result['chip_total_mb'] == {'default': 44280}
    assert result['chip_count'] == 2 and result['docker_version'] == '20.10.24+dfsg1'
    assert result['images'] == ['busybox:latest'] and result['image_present'] is False
    assert result['containers'] == {'vllm-ascend': {'exists': False}}
    assert result['own_running'] == {} and result['rc_mode'] is False


def _set(facts, path, value):
    keys = path.split('.')
    target = facts
    for key in keys[:-1]:
        target = target[key]
    target[keys[-1]] = value


@pytest.mark.parametrize('changes, expected', [
    ({'paths./usr/local/Ascend/driver': {'exists': False}},
     [('driver', '/usr/local/Ascend/driver is missing: the Ascend NPU driver is not installed')]),
    ({'paths./dev/davinci0': {'exists': False}}, [('devices', 'vllm_serve_chips: /dev/davinci0 is missing')]),
    ({'paths./dev/davinci0': {'exists': True, 'ischr': False}},
     [('devices', 'vllm_serve_chips: /dev/davinci0 is not a character device')]),
    ({'paths./dev/hisi_hdc': {'exists': False}}, [('devices', '/dev/hisi_hdc is missing')]),
    ({'paths./usr/local/dcmi': {'exists': False}},
     [('mounts', '/usr/local/dcmi is missing (provided by the Ascend NPU driver package (Ascend-hdk-310p-npu-driver)); '
                 'the container bind-mounts it and Docker would refuse to start')]),
    ({'paths./usr/local/Ascend/driver/lib64': {'exists': True, 'isreg': True}},
     [('mounts', '/usr/local/Ascend/driver/lib64 is a non-directory, the container expects a directory (provided by '
                 'the Ascend NPU driver package (Ascend-hdk-310p-npu-driver))')]),
    ({'paths./etc/ascend_install.info': {'exists': True, 'isdir': True}},
     [('mounts', '/etc/ascend_install.info is a directory, the container expects a file (provided by '
                 'the Ascend NPU driver package (Ascend-hdk-310p-npu-driver))')]),
    ({'docker': {'reachable': False, 'error': 'cannot connect to the Docker Engine at unix:///x: [Errno 2]'}},
     [('docker', 'cannot talk to the Docker Engine: cannot connect to the Docker Engine at unix:///x: [Errno 2]')]),
    ({'docker.version': '18.06.1-ce'}, [('docker', 'Docker Engine 18.06.1-ce is older than 18.09')]),
    ({'npu': None, 'npu_error': {'msg': 'npu-smi not found on PATH (x)'}}, [('npu-smi', 'npu-smi not found on PATH (x)')]),
    ({'disk.free_gb': 12.3},
     [('disk', 'only 12.3 GiB free on /var/lib/docker (Docker data root /var/lib/docker); the image needs 20 GiB')]),
])
def test_one_fault_one_message(capture, changes, expected):
    facts = healthy(capture)
    for path, value in changes.items():
        if path.startswith('paths.'):
            facts['paths'][path[len('paths.'):]] = dict({'isdir': False, 'isreg': False, 'ischr': False}, **value)
        else:
            _set(facts, path, value)
    assert msgs(np.node_problems(facts, settings())) == expected


def test_fixes_say_what_to_do(capture):
    facts = healthy(capture)
    facts['paths']['/dev/davinci0'] = {'exists': False}
    facts['paths']['/dev/hisi_hdc'] = {'exists': False}
    facts['npu'] = None
    fixes = [p['fix'] for p in np.node_problems(facts, settings())['problems']]
    assert fixes[0].startswith('the driver is not loaded or the chip id is wrong')
    assert 'ascend_vllm_platform_overrides.manager_devices' in fixes[1]
    assert fixes[2].startswith('install the Ascend driver (it ships npu-smi)')


def test_chip_problems_in_order(capture):
    facts = healthy(capture)
    facts['npu']['chips'][0]['health'] = 'Critical'
    facts['npu']['processes'] = [{'npu_id': 2, 'chip_id': 0, 'device_id': 0, 'pid': 4242, 'name': 'python3',
                                  'memory_mb': 2048}]
    out = np.node_problems(facts, settings())
    assert out['problems'][0]['msg'] == 'chip 0 (NPU 2 chip 0) health is Critical'
    assert out['problems'][0]['fix'].startswith('see `npu-smi info -t health -i 2`')
    assert out['problems'][1]['msg'] == 'chip 0 is in use by pid 4242 (python3, 2048 MB)'
    assert out['problems'][1]['fix'].startswith('stop that process')


def test_chip_not_listed_names_the_variable(capture):
    inst = [{'name': 'a', 'chips': [5], 'chips_var': 'vllm_serve_chips', 'port': None}]
    out = np.node_problems(healthy(capture), settings(instances=inst))
    assert msgs(out)[-1] == ('chips', 'vllm_serve_chips: chip 5 is not listed by npu-smi (device ids: 0, 1)')
    assert out['problems'][-1]['fix'] == 'set vllm_serve_chips to chips that npu-smi lists (0, 1)'


def test_without_instances_every_listed_chip_is_checked(capture):
    facts = healthy(capture)
    facts['npu']['chips'][1]['health'] = 'Warning'
    assert msgs(np.node_problems(facts, settings(instances=[]))) == [
        ('chips', 'chip 1 (NPU 2 chip 1) health is Warning')]


def test_process_of_our_container_is_ours(capture):
    facts = healthy(capture, text=BUSY)
    pid = facts['npu']['processes'][0]['pid']
    chip = facts['npu']['processes'][0]['device_id']
    inst = [{'name': 'default', 'container_name': 'vllm-ascend', 'chips': [chip], 'port': 8080}]
    facts['paths']['/dev/davinci%d' % chip] = {'exists': True, 'ischr': True}
    assert any(p['check'] == 'chips' for p in np.node_problems(facts, settings(instances=inst))['problems'])
    facts['containers'] = {'vllm-ascend': {'exists': True, 'running': True, 'devices': ['/dev/davinci%d' % chip],
                                           'ports': ['8080'], 'pids': [pid]}}
    facts['listeners']['8080'] = {'listening': True, 'processes': [], 'accepts': True}
    out = np.node_problems(facts, settings(instances=inst))
    assert out['problems'] == []
    assert out['result']['own_running']['default']['pids'] == [pid]
    # Our container holds the chip: its free memory comes back when it is re-created.
    assert out['result']['chip_free_mb'] == {'default': None}


def test_chips_without_top_pids_count_as_ours_whole(capture):
    facts = healthy(capture, text=BUSY)
    chip = facts['npu']['processes'][0]['device_id']
    facts['paths']['/dev/davinci%d' % chip] = {'exists': True, 'ischr': True}
    facts['containers'] = {'vllm-ascend': {'exists': True, 'running': True, 'devices': ['/dev/davinci%d' % chip],
                                           'ports': [], 'pids': []}}
    inst = [{'name': 'default', 'chips': [chip], 'port': None}]
    assert np.node_problems(facts, settings(instances=inst))['problems'] == []


@pytest.mark.parametrize('listener, containers, msg, fix', [
    ({'listening': True, 'processes': [{'name': 'python3', 'pid': 6684}], 'accepts': True}, [],
     'vllm_serve_port: port 8080 (instance default) is already in use on the node by python3 (pid 6684)',
     'stop python3 (pid 6684) (`kill 6684`), or give the instance another port'),
    ({'listening': False, 'processes': [], 'accepts': True}, [],
     'vllm_serve_port: port 8080 (instance default) is already in use on the node',
     'stop what listens there (`ss -ltnp sport = :8080` or `lsof -i :8080` as root shows it) or give the instance '
     'another port'),
    ({'listening': False, 'processes': [], 'accepts': False},
     [{'name': 'old', 'ports': [8080], 'labels': {'ascend.vllm.managed-by': 'ascend.vllm'}}],
     'vllm_serve_port: port 8080 (instance default) is already in use on the node by container old',
     'remove it: it is left from an earlier deploy (playbooks/teardown.yml removes every container of this '
     'collection) (`docker rm -f old`), or give the instance another port'),
    ({'listening': True, 'processes': [], 'accepts': True}, [{'name': 'web', 'ports': [8080], 'labels': {}}],
     'vllm_serve_port: port 8080 (instance default) is already in use on the node by container web',
     'stop it (`docker rm -f web`), or give the instance another port'),
])
def test_port_messages(capture, listener, containers, msg, fix):
    facts = healthy(capture)
    facts['listeners']['8080'] = listener
    facts['docker']['containers'] = containers
    out = np.node_problems(facts, settings())
    assert out['problems'] == [{'check': 'ports', 'msg': msg, 'fix': fix}]


def test_port_of_our_own_container_is_no_problem(capture):
    facts = healthy(capture)
    facts['listeners']['8080'] = {'listening': True, 'processes': [{'name': 'docker-proxy', 'pid': 9}],
                                  'accepts': True}
    facts['docker']['containers'] = [{'name': 'vllm-ascend', 'ports': [8080], 'labels': {}}]
    facts['containers'] = {'vllm-ascend': {'exists': True, 'running': True, 'devices': ['/dev/davinci1'],
                                           'ports': ['8080'], 'pids': [1]}}
    assert np.node_problems(facts, settings())['problems'] == []
    assert msgs(np.node_problems(facts, settings(ports=False))) == []


BALANCER = [{'port': 9000, 'var': 'balancer_port', 'component': 'the balancer', 'container': 'vllm-balancer'}]


def test_node_query_asks_for_the_ports_and_containers_of_every_declared_bind():
    query = np.node_query(settings(binds=BALANCER))
    assert query['ports'] == [8080, 9000] and 'vllm-balancer' in query['containers']
    assert np.node_query(settings(binds=BALANCER, ports=False))['ports'] == []


@pytest.mark.parametrize('owner, listener, containers, msg', [
    ({'exists': False}, {'listening': True, 'processes': [{'name': 'nginx', 'pid': 77}], 'accepts': True}, [],
     'balancer_port: port 9000 (the balancer) is already in use on the node by nginx (pid 77)'),
    ({'exists': False}, {'listening': False, 'processes': [], 'accepts': True}, [],
     'balancer_port: port 9000 (the balancer) is already in use on the node'),
    ({'exists': False}, {'listening': False, 'processes': [], 'accepts': False},
     [{'name': 'web', 'ports': [9000], 'labels': {}}],
     'balancer_port: port 9000 (the balancer) is already in use on the node by container web'),
    # Our balancer runs, but someone else holds the port beside it.
    ({'exists': True, 'running': True, 'labels': {'ascend.vllm.managed-by': 'ascend.vllm'}, 'pids': [5]},
     {'listening': True, 'processes': [{'name': 'haproxy', 'pid': 5}, {'name': 'nc', 'pid': 8}], 'accepts': True}, [],
     'balancer_port: port 9000 (the balancer) is already in use on the node by nc (pid 8)'),
])
def test_a_declared_bind_held_by_anything_else_is_refused(capture, owner, listener, containers, msg):
    facts = healthy(capture)
    facts['listeners']['9000'] = listener
    facts['docker']['containers'] = containers
    facts['containers']['vllm-balancer'] = owner
    problems = np.node_problems(facts, settings(binds=BALANCER))['problems']
    assert [(p['check'], p['msg']) for p in problems] == [('ports', msg)]
    assert 'set balancer_port to a free port' in problems[0]['fix']


@pytest.mark.parametrize('processes', [[{'name': 'haproxy', 'pid': 5}], []])
def test_a_declared_bind_held_by_its_own_running_container_is_no_problem(capture, processes):
    facts = healthy(capture)
    facts['listeners']['9000'] = {'listening': True, 'processes': processes, 'accepts': True}
    facts['containers']['vllm-balancer'] = {'exists': True, 'running': True, 'pids': [5],
                                            'labels': {'ascend.vllm.managed-by': 'ascend.vllm'}}
    assert np.node_problems(facts, settings(binds=BALANCER))['problems'] == []
    # Not ours (no label): whoever it is, it holds the port.
    facts['containers']['vllm-balancer']['labels'] = {}
    assert len(np.node_problems(facts, settings(binds=BALANCER))['problems']) == 1


def test_platform_with_fewer_chips_per_card(capture):
    """A DUO declared as a 200I Pro: npu-smi is elsewhere, its chips tell the platform."""
    facts = healthy(capture)
    facts['npu_found'], facts['npu'] = facts['npu'], None
    facts['npu_error'] = {'msg': 'npu-smi not found or not executable at npu_smi_path=/usr/local/sbin/npu-smi, '
                                 'but it is at /usr/local/bin/npu-smi.', 'found': '/usr/local/bin/npu-smi'}
    out = np.node_problems(facts, settings(PRO, platform='atlas_200i_pro', instances=[]))
    assert ('platform', 'ascend_vllm_platform="atlas_200i_pro" has 1 chip per card, but npu-smi shows 2 chips on one '
            'card of this node') in msgs(out)
    assert out['problems'][-1]['fix'].startswith('set ascend_vllm_platform to the platform of this node')


def test_only_chip0_shown(capture):
    facts = healthy(capture, text=ONLY_CHIP0)
    inst = [{'name': 'default', 'chips': [1], 'chips_var': 'vllm_serve_chips', 'port': None}]
    facts['paths']['/dev/davinci1'] = {'exists': True, 'ischr': True}
    assert msgs(np.node_problems(facts, settings(instances=inst))) == [
        ('chips', 'vllm_serve_chips: chip 1 is not listed by npu-smi (device ids: 0)')]


@pytest.mark.parametrize('given, platform, problems, expected', [
    (False, '', [], 'no platform is set for node1'),
    (False, 'atlas_300i_trio', [{'msg': 'ascend_vllm_platform="atlas_300i_trio": unknown platform'}],
     'cannot read the profile of platform atlas_300i_trio: ascend_vllm_platform="atlas_300i_trio": unknown platform'),
])
def test_platform_problems(capture, given, platform, problems, expected):
    out = np.node_problems(healthy(capture), settings(profile_given=given, platform=platform,
                                                      platform_problems=problems))
    assert out['problems'][0]['msg'] == expected and out['problems'][0]['check'] == 'platform'


@pytest.mark.parametrize('version, minimum, older', [
    ('24.1.rc2.2', '23.0.0', False), ('22.0.4', '23.0.0', True), (None, '23.0.0', True), ('24.1.rc2.2', '', False),
    ('23.0.rc2', '23.0.0', False),
])
def test_driver_min_version(capture, version, minimum, older):
    facts = healthy(capture)
    facts['npu']['driver_version'] = version
    out = np.node_problems(facts, settings(driver_min_version=minimum))
    expected = [('driver', 'driver %s is older than %s' % (version or 'unknown', minimum))] if older else []
    assert msgs(out) == expected


def test_image_present_skips_the_disk_check(capture):
    facts = healthy(capture)
    facts['disk']['free_gb'] = 1.0
    facts['docker']['images'] = ['localhost:5000/ascend/vllm-ascend:v0.23.0-310p']
    out = np.node_problems(facts, settings(images=['localhost:5000/ascend/vllm-ascend:v0.23.0-310p']))
    assert out['problems'] == [] and out['result']['image_present'] is True


def _rc(capture, available):
    facts = healthy(capture)
    facts['memory']['available_mb'] = available
    inst = [{'name': 'default', 'chips': [0], 'port': None, 'host_memory_mb': 20000}]
    return facts, inst


@pytest.mark.parametrize('available, margin, drop, expected', [
    (30000, 0, None, None),
    (15000, 0, None, 'RC mode: 15000 MB host memory available, the instances will take 20000 MB '
                     '(gpu_memory_utilization x chip memory) and vllm-ascend refuses to start with less'),
    (21000, 2000, None, 'RC mode: 21000 MB host memory available, the instances will take 20000 MB '
                        '(gpu_memory_utilization x chip memory) plus 2000 MB margin and vllm-ascend refuses to start '
                        'with less'),
])
def test_rc_memory(capture, available, margin, drop, expected):
    facts, inst = _rc(capture, available)
    profile = dict(DUO, rc_mode=True)
    out = np.node_problems(facts, settings(profile, instances=inst, rc_memory_margin_mb=margin))
    assert [p['msg'] for p in out['problems']] == ([expected] if expected else [])
    assert out['drop_page_cache'] is bool(expected)
    assert out['result']['rc_mode'] is True and out['result']['host_memory_available_mb'] == available


def test_rc_memory_after_a_failed_drop_and_a_new_read(capture):
    facts, inst = _rc(capture, 15000)
    profile = dict(DUO, rc_mode=True)
    out = np.node_problems(facts, settings(profile, instances=inst, drop={'rc': 1, 'stderr': 'Permission denied\n'},
                                           memory_again={'memory': {'available_mb': 16000}}))
    assert out['problems'][0]['msg'].startswith('RC mode: 16000 MB host memory available')
    assert out['problems'][0]['fix'].startswith('dropping the page cache failed (Permission denied); stop other')
    out = np.node_problems(facts, settings(profile, instances=inst, memory_again={'memory': {'available_mb': 25000}}))
    assert out['problems'] == [] and out['result']['host_memory_available_mb'] == 25000


def test_running_instances_hold_their_memory(capture):
    facts, inst = _rc(capture, 1000)
    facts['containers'] = {'vllm-ascend': {'exists': True, 'running': True, 'devices': [], 'ports': [], 'pids': [1]}}
    assert np.node_problems(facts, settings(dict(DUO, rc_mode=True), instances=inst))['problems'] == []


def test_result_reports_paths_and_containers(capture):
    facts = healthy(capture)
    facts['paths']['/data'] = {'exists': True, 'isdir': True, 'isreg': False, 'ischr': False, 'islnk': False}
    facts['containers']['vllm-ascend'] = {'exists': True, 'running': False, 'restarting': True, 'restart_count': 3,
                                          'status': 'restarting', 'started_at': 'x', 'labels': {}, 'devices': [],
                                          'ports': [], 'pids': []}
    result = np.node_problems(facts, settings(paths=['/data', '/nope']))['result']
    assert result['paths'] == {'/data': {'exists': True, 'isdir': True, 'isreg': False},
                               '/nope': {'exists': False, 'isdir': False, 'isreg': False}}
    assert result['containers']['vllm-ascend'] == {'exists': True, 'running': False, 'restarting': True,
                                                   'restart_count': 3, 'status': 'restarting', 'started_at': 'x',
                                                   'labels': {}}


def test_report_and_summary(capture):
    facts = healthy(capture)
    facts['paths']['/usr/local/Ascend/driver'] = {'exists': False}
    out = np.node_problems(facts, settings())
    text = np.node_verdict(facts, settings())['report']
    assert text.splitlines()[0] == '1 preflight problem(s) on node1:'
    assert text.splitlines()[1].startswith('- [driver] /usr/local/Ascend/driver is missing: the Ascend NPU driver is '
                                           'not installed. Fix: install the Ascend 310P driver')
    assert np.summary(out['result'], out['problems']).startswith(
        'atlas_300i_duo: driver 24.1.rc2.2, firmware ?, npu-smi 25.2.0, 2 chip(s), Docker 20.10.24+dfsg1, free '
        'chip memory')


def test_instances_are_filled_in():
    assert np.normalize_instances([{}]) == [{'name': 'default', 'container_name': 'vllm-ascend', 'chips': [0],
                                             'chips_var': 'chips of instance default',
                                             'container_var': 'container_name of instance default', 'port': None,
                                             'host_memory_mb': 0}]


def test_facts_are_not_changed(capture):
    facts = healthy(capture)
    before = copy.deepcopy(facts)
    np.node_problems(facts, settings())
    assert facts == before


@pytest.mark.parametrize('labels, foreign', [
    ({}, True),
    ({'maintainer': 'someone'}, True),
    ({'ascend.vllm.managed-by': 'someone-else'}, True),
    ({'ascend.vllm.managed-by': 'ascend.vllm'}, False),
])
def test_a_container_we_did_not_create_stops_preflight(capture, labels, foreign):
    facts = healthy(capture)
    facts['containers'] = {'vllm-ascend': {'exists': True, 'running': False, 'status': 'exited', 'labels': labels,
                                           'devices': [], 'ports': [], 'pids': []}}
    inst = [{'name': 'default', 'container_name': 'vllm-ascend', 'chips': [0], 'port': 8080,
             'container_var': 'vllm_serve_container_name'}]
    problems = [p for p in np.node_problems(facts, settings(instances=inst))['problems'] if p['check'] == 'containers']
    if not foreign:
        assert problems == []
        return
    assert problems == [{
        'check': 'containers',
        'msg': 'vllm_serve_container_name=vllm-ascend (instance default): a container of that name (exited) is on '
               'the node and was not created by ascend.vllm (no ascend.vllm.managed-by label); the deploy would '
               'replace it',
        'fix': 'leave it alone by setting vllm_serve_container_name to another name; or, if it is yours and may go, '
               'remove it first (`docker rm -f vllm-ascend`) and the next run creates the instance in its place'}]


@pytest.mark.parametrize('platform, path, package', [
    ('atlas_200i_pro', '/var/slogd', "the Atlas 200I Pro board's driver and firmware package"),
    ('atlas_200i_pro', '/usr/lib/aarch64-linux-gnu/libyaml-0.so.2', 'the Ubuntu package libyaml-0-2'),
    ('atlas_200i_pro_openeuler', '/usr/lib64/libsemanage.so.2', 'the openEuler package libsemanage'),
])
def test_missing_mount_names_its_package_and_the_fix(platform, path, package):
    profile = get_profile(platform)
    facts = {'paths': {path: {'exists': False}}}
    only = [m for m in profile['mounts'] if m['source'] == path]
    problems = np.mount_problems(facts, dict(profile, mounts=only))
    assert problems == [{'check': 'mounts', 'msg': '%s is missing (provided by %s); the container bind-mounts it '
                         'and Docker would refuse to start' % (path, package),
                         'fix': "install %s, or change the platform profile's mounts in "
                                'ascend_vllm_platform_overrides' % package}]


def test_an_added_mount_without_kind_is_checked_for_existence_only():
    profile = {'mounts': [{'source': '/opt/x/', 'target': '/x'}]}
    assert np.mount_problems({'paths': {'/opt/x': {'exists': True, 'isreg': True}}}, profile) == []
    assert [p['msg'] for p in np.mount_problems({'paths': {}}, profile)] == [
        '/opt/x is missing; the container bind-mounts it and Docker would refuse to start']


def test_a_mount_of_the_wrong_kind_is_removed_first():
    facts = {'paths': {'/etc/hdcBasic.cfg': {'exists': True, 'isdir': True}}}
    profile = {'mounts': [m for m in get_profile('atlas_200i_pro')['mounts'] if m['source'] == '/etc/hdcBasic.cfg']}
    assert [p['fix'] for p in np.mount_problems(facts, profile)] == [
        "remove /etc/hdcBasic.cfg, then install the Atlas 200I Pro board's driver and firmware package, "
        "or change the platform profile's mounts in ascend_vllm_platform_overrides"]


def _versions_facts(capture, driver, firmware='7.7.0.6.236', compatibility='OK', fw_list='[7.0.0,8.2.99]'):
    facts = healthy(capture)
    facts['npu']['driver_version'] = driver
    facts['npu']['driver_info'] = {'Version': driver, 'compatible_version_fw': fw_list} if fw_list else {}
    facts['npu']['boards'] = [{'npu_id': 2, 'software_version': driver, 'firmware_version': firmware,
                               'compatibility': compatibility, 'chip_count': 2, 'error': None}]
    return facts


def versions_settings(tag='quay.io/ascend/vllm-ascend:v0.23.0-310p', minimum='auto'):
    return settings(image_tag=tag, driver_min_version=minimum)


def test_a_driver_that_suits_the_image_passes(capture):
    out = np.node_problems(_versions_facts(capture, '25.2.0'), versions_settings())
    assert out['problems'] == []
    assert out['result']['firmware_versions'] == {'2': '7.7.0.6.236'}
    assert out['result']['versions'] == {'image_tag': 'v0.23.0-310p', 'cann': '9.1.0', 'driver': '25.2.0',
                                         'driver_verdict': 'ok', 'firmware': {'2': '7.7.0.6.236'}, 'notes': []}
    assert 'driver 25.2.0, firmware 7.7.0.6.236, npu-smi' in np.summary(out['result'], out['problems'])


@pytest.mark.parametrize('driver, detail', [
    ('25.0.rc1.1', 'the CANN 9.1.0 release notes mark Ascend HDK 25.0.X incompatible'),
    ('24.1.rc2.2', 'older than every Ascend HDK the CANN 9.1.0 release notes list as compatible (oldest 25.2.X)'),
])
def test_a_driver_the_release_notes_rule_out_is_refused(capture, driver, detail):
    out = np.node_problems(_versions_facts(capture, driver), versions_settings())
    assert msgs(out) == [('versions', 'driver %s does not suit image v0.23.0-310p (CANN 9.1.0): %s; vllm serve would '
                                      'fail at start (E30006 Failed to verify the OPP)' % (driver, detail))]
    fix = out['problems'][0]['fix']
    # The fix names the HDK to install: the one paired with the release's CANN, then the others listed.
    assert fix.startswith('install Ascend HDK 26.0.RC1 (driver and firmware of one release; the release paired with '
                          'CANN 9.1.0) or another release the CANN 9.1.0 release notes list as compatible (25.2.X, '
                          '25.3.X, 25.5.X, 25.7.RC1, 26.0.RC1, 26.1.0, 26.1.1, 26.2.RC1)')
    assert 'docs/versions.md' in fix and 'npu_check_driver_min_version' in fix


def test_the_openeuler_image_has_the_same_rule(capture):
    out = np.node_problems(_versions_facts(capture, '25.0.rc1.1'), versions_settings('v0.23.0-310p-openeuler'))
    assert [p['msg'].split(':')[0] for p in out['problems']] == [
        'driver 25.0.rc1.1 does not suit image v0.23.0-310p-openeuler (CANN 9.1.0)']


def test_a_newer_unlisted_driver_is_a_note_not_a_problem(capture):
    out = np.node_problems(_versions_facts(capture, '26.3.0'), versions_settings())
    assert out['problems'] == []
    assert out['result']['versions']['driver_verdict'] == 'unlisted'
    assert '; note: driver 26.3.0 is newer than the Ascend HDK releases' in np.summary(out['result'], [])


@pytest.mark.parametrize('driver, file_exists, expected', [
    ('V100R001C18', True, "the driver version in /usr/local/Ascend/driver/version.info (V100R001C18) cannot be checked "
                          "against image v0.23.0-310p (CANN 9.1.0): driver version 'V100R001C18' is not "
                          "MAJOR.MINOR.PATCH or MAJOR.MINOR.rcN (e.g. 25.2.0, 25.0.rc1.1)"),
    (None, True, 'the driver version in /usr/local/Ascend/driver/version.info (no Version= line) cannot be checked '
                 'against image v0.23.0-310p (CANN 9.1.0): no driver version was read'),
    # version.info missing: the driver check already says so, once.
    (None, False, None),
])
def test_unknown_or_missing_driver_version(capture, driver, file_exists, expected):
    facts = _versions_facts(capture, driver)
    facts['npu']['boards'] = []
    facts['paths']['/usr/local/Ascend/driver/version.info'] = {'exists': file_exists}
    found = [m for c, m in msgs(np.node_problems(facts, versions_settings())) if c == 'versions']
    assert found == ([expected] if expected else [])


@pytest.mark.parametrize('tag, minimum, driver, expected', [
    # an explicit minimum replaces the image's rule; "" checks nothing
    ('v0.23.0-310p', '25.0', '25.0.rc1.1', []),
    ('v0.23.0-310p', '26.0', '25.5.1', [('driver', 'driver 25.5.1 is older than 26.0')]),
    ('v0.23.0-310p', '', '22.0.4', []),
    # a tag without version data: no driver rule, a note
    ('v0.22.0-310p', 'auto', '22.0.4', []),
    ('', 'auto', '22.0.4', []),
])
def test_min_version_and_tags_without_data(capture, tag, minimum, driver, expected):
    out = np.node_problems(_versions_facts(capture, driver), versions_settings(tag, minimum))
    assert msgs(out) == expected
    notes = out['result']['versions']['notes']
    assert notes == (['no version data for image tag v0.22.0-310p, so the driver is not checked against it '
                      '(docs/versions.md)'] if tag == 'v0.22.0-310p' else [])


def test_a_release_record_without_an_hdk_list_leaves_the_driver_unchecked_with_a_note(capture):
    # v0.30.0 has a record, but its CANN and HDK were not read: no verdict, a note that says why.
    out = np.node_problems(_versions_facts(capture, '25.0.rc1.1'), versions_settings('v0.30.0-310p'))
    assert msgs(out) == []
    [note] = out['result']['versions']['notes']
    assert note.startswith('release record v0.30.0 has no Ascend HDK list that was read (') and '25.0.rc1.1' in note


def test_an_assumed_release_record_judges_the_driver_of_a_tag_without_its_own(capture):
    settings_ = dict(versions_settings('v0.31.0-310p'), release='v0.23.0')
    out = np.node_problems(_versions_facts(capture, '25.0.rc1.1'), settings_)
    [problem] = out['problems']
    assert problem['msg'].startswith('driver 25.0.rc1.1 does not suit image v0.31.0-310p (assumed release record '
                                     'v0.23.0, CANN 9.1.0)')
    assert problem['fix'].startswith('install Ascend HDK 26.0.RC1 ')
    assert np.node_problems(_versions_facts(capture, '25.2.0'), settings_)['problems'] == []


@pytest.mark.parametrize('firmware, compatibility, fw_list, expected', [
    ('7.7.0.6.236', 'OK', '[7.0.0,8.2.99]', None),
    ('7.8.0.6.201', 'NOK', '[7.0.0,7.7.99]',
     'NPU 2: npu-smi reports firmware 7.8.0.6.201 incompatible with driver 25.2.0 (Compatibility NOK)'),
    # no Compatibility line (RC boards): the driver's own list, applied here
    ('6.3.0.1.241', None, '[7.0.0,8.2.99]', 'NPU 2: firmware 6.3.0.1.241 is older than driver 25.2.0 accepts '
                                            '(6.4 or newer)'),
    ('7.1.0.7.220', None, '[7.5.0,8.2.99]', 'NPU 2: firmware 7.1.0.7.220 is older than driver 25.2.0 accepts '
                                            '(compatible_version_fw=[7.5.0,8.2.99])'),
    ('8.5.0.1.100', None, '[7.0.0,8.2.99]', None),
    ('NA', None, '[7.0.0,8.2.99]', None),
])
def test_firmware_older_than_the_driver_is_refused(capture, firmware, compatibility, fw_list, expected):
    out = np.node_problems(_versions_facts(capture, '25.2.0', firmware, compatibility, fw_list), versions_settings())
    assert msgs(out) == ([('versions', expected)] if expected else [])
    if expected:
        assert out['problems'][0]['fix'].startswith('install the firmware of the same Ascend HDK release as driver '
                                                    '25.2.0 (Ascend-hdk-310p-npu-firmware) and reboot')


def test_a_board_view_that_failed_is_a_note(capture):
    facts = _versions_facts(capture, '25.2.0')
    facts['npu']['boards'] = [{'npu_id': 2, 'error': 'npu-smi info -t board -i 2 failed with rc=255: busy'}]
    out = np.node_problems(facts, versions_settings())
    assert out['problems'] == [] and out['result']['versions']['notes'] == [
        'NPU 2: firmware not read (npu-smi info -t board -i 2 failed with rc=255: busy)']


# The node's prerequisites that community.docker and the image bring: the node's Python must import requests,
# and an image the node has must be built for the node's architecture.
def _system(machine='x86_64', **modules):
    found = dict((name, {'found': ok, 'version': '2.28.1' if ok else None,
                         'error': None if ok else "ModuleNotFoundError: No module named '%s'" % name})
                 for name, ok in (modules or {'requests': True}).items())
    return {'machine': machine, 'python': {'executable': '/usr/bin/python3', 'version': '3.11.2', 'modules': found}}


@pytest.mark.parametrize('install, needs_docker, runs', [
    ({}, False, True),                      # containers: community.docker runs on the node
    ({'method': 'image'}, False, True),
    ({'method': 'source'}, False, False),   # the source install without a balancer runs no community.docker module
    ({'method': 'source'}, True, True),     # ... with a balancer it does (HAProxy's container)
])
def test_community_docker_runs_on_the_node_unless_a_source_install_has_no_balancer(install, needs_docker, runs):
    assert np.docker_modules_run({'install': install, 'needs_docker': needs_docker}) is runs


def test_a_node_python_without_requests_is_refused_with_the_package(capture):
    facts = dict(healthy(capture), system=_system(requests=False))
    out = np.node_problems(facts, settings())
    [problem] = [p for p in out['problems'] if p['check'] == 'python']
    assert "(/usr/bin/python3 3.11.2) cannot import requests (ModuleNotFoundError: No module named 'requests')" \
        in problem['msg']
    assert 'community.docker' in problem['msg']
    assert 'apt-get install python3-requests' in problem['fix'] and 'dnf install python3-requests' in problem['fix']
    assert '/usr/bin/python3 -m pip install requests' in problem['fix']


@pytest.mark.parametrize('system', [None, _system(), _system('aarch64')])
def test_a_node_python_with_requests_or_not_read_is_no_problem(capture, system):
    facts = dict(healthy(capture), system=system)
    assert [p for p in np.node_problems(facts, settings())['problems'] if p['check'] == 'python'] == []


def test_every_module_that_does_not_import_is_named(capture):
    problems = np.python_problems(_system(requests=False, urllib3=False))
    assert [p['msg'].split(' cannot import ')[1].split(' ')[0] for p in problems] == ['requests', 'urllib3']
    assert 'install python3-urllib3' in problems[1]['fix']


MACHINES = {'x86_64': 'amd64', 'aarch64': 'arm64'}
REF = 'quay.io/ascend/vllm-ascend:v0.23.0-310p'


@pytest.mark.parametrize('machine', sorted(MACHINES) + ['riscv64', 'unknown', '', None])
@pytest.mark.parametrize('image_arch', ['amd64', 'arm64', 'riscv64', ''])
def test_an_image_of_another_architecture_is_refused(machine, image_arch):
    problems = np.image_architecture_problems({REF: {'id': 'sha256:1', 'env': [], 'architecture': image_arch}},
                                              [REF], machine)
    wanted = np.docker_architecture(machine)
    if not wanted or not image_arch or wanted == image_arch:
        assert problems == []
        return
    [problem] = problems
    assert problem['check'] == 'image'
    assert problem['msg'] == ('image %s on the node is linux/%s, the node is %s (linux/%s): its containers cannot '
                              'run there' % (REF, image_arch, machine, wanted))
    assert 'docker pull --platform linux/%s %s' % (wanted, REF) in problem['fix']
    assert 'docker rmi %s' % REF in problem['fix']


@pytest.mark.parametrize('machine, arch', sorted(MACHINES.items()) + [('AARCH64 ', 'arm64'), ('arm64', 'arm64')])
def test_docker_names_the_node_architectures_as_docker_does(machine, arch):
    assert np.docker_architecture(machine) == arch


def test_an_image_the_node_lacks_or_another_reference_is_not_judged():
    configs = {'other:1': {'architecture': 'arm64'}}
    assert np.image_architecture_problems(configs, [REF], 'x86_64') == []
    assert np.image_architecture_problems(None, [REF], 'x86_64') == []


def test_the_result_carries_the_machine(capture):
    assert np.node_problems(dict(healthy(capture), system=_system('aarch64')), settings())['result']['machine'] \
        == 'aarch64'


def _saved(path, images):
    """A `docker save` archive (manifest.json, one config per image, no layers): images = {name: architecture}."""
    import io
    import json
    import tarfile
    with tarfile.open(str(path), 'w') as tar:
        manifest = []
        for index, (name, arch) in enumerate(sorted(images.items())):
            config = json.dumps({'architecture': arch, 'os': 'linux'}).encode()
            member = tarfile.TarInfo('%d.json' % index)
            member.size = len(config)
            tar.addfile(member, io.BytesIO(config))
            manifest.append({'Config': '%d.json' % index, 'RepoTags': [name], 'Layers': []})
        data = json.dumps(manifest).encode()
        member = tarfile.TarInfo('manifest.json')
        member.size = len(data)
        tar.addfile(member, io.BytesIO(data))
    return str(path)


@pytest.mark.parametrize('machine', ['x86_64', 'aarch64'])
@pytest.mark.parametrize('archs', [('amd64',), ('arm64',), ('amd64', 'arm64')])
def test_an_archive_saved_for_another_architecture_is_refused_before_it_is_copied(tmp_path, machine, archs):
    images = dict(('ascend/vllm-ascend:%d' % index, arch) for index, arch in enumerate(archs))
    archive = _saved(tmp_path / 'v.tar', images)
    found = np.archive_architectures(archive)
    assert found == images
    problems = np.archive_architecture_problems(archive, found, machine)
    wanted = {'x86_64': 'amd64', 'aarch64': 'arm64'}[machine]
    wrong = [name for name, arch in sorted(images.items()) if arch != wanted]
    if not wrong:
        assert problems == []
        return
    [problem] = problems
    assert problem['msg'].startswith('image_pull_archive="%s" holds %s (linux/' % (archive, wrong[0]))
    assert 'the node is %s (linux/%s)' % (machine, wanted) in problem['msg']
    assert 'docker pull --platform linux/%s %s' % (wanted, wrong[0]) in problem['fix']


@pytest.mark.parametrize('content', [None, b'not a tar', 'gzip'])
def test_an_archive_that_cannot_be_read_as_saved_images_is_not_judged(tmp_path, content):
    import gzip
    path = tmp_path / 'v.tar'
    if content == 'gzip':
        raw = _saved(tmp_path / 'raw.tar', {'a:1': 'arm64'})
        path.write_bytes(gzip.compress(open(raw, 'rb').read()))
    elif content is not None:
        path.write_bytes(content)
    assert np.archive_architectures(str(path)) == {}
    assert np.archive_architecture_problems(str(path), {}, 'aarch64') == []
