# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The plan as the node's desired state, beyond instance containers: systemd units of ours that the plan no longer
runs (read whatever the install method, removed first, their chips and port judged as ours), and the paths a
service needs at every start, which must live where a reboot keeps them."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, strategies as st

from ansible_collections.ascend.vllm.plugins.module_utils import _unit
from ansible_collections.ascend.vllm.plugins.module_utils.node import _node_source
from ansible_collections.ascend.vllm.plugins.plugin_utils.judge import _node_problems
from ansible_collections.ascend.vllm.plugins.plugin_utils.plan import _host
from ansible_collections.ascend.vllm.plugins.plugin_utils.plan._node import unplanned_units

UNIT = '''[Unit]
Description=vLLM Qwen/Qwen3.5-2B (ascend.vllm instance a)
X-Ascend-Vllm-Managed-By=ascend.vllm

[Service]
EnvironmentFile=%s
ExecStart="/opt/ascend-vllm/launch" "/opt/v/bin/vllm" "serve" "Qwen/Qwen3.5-2B" "--host" "127.0.0.1" "--port" "8081"
'''


def test_a_unit_of_ours_is_read_with_its_chips_and_port(tmp_path):
    env = tmp_path / 'a.env'
    env.write_text('VLLM_X="1"\nASCEND_RT_VISIBLE_DEVICES="1,0"\n')
    (tmp_path / 'vllm-ascend-a.service').write_text(UNIT % env)
    (tmp_path / 'theirs.service').write_text('[Unit]\nDescription=not ours\n')
    (tmp_path / 'vllm-ascend-a.service.previous').write_text(UNIT % env)
    found = _node_source.managed_units(lambda argv: (1, '', ''), str(tmp_path))
    assert found == {'vllm-ascend-a.service': {'chips': [1, 0], 'port': '8081', 'active': False,
                                               'restarting': False}}
    assert _node_source.managed_units(lambda argv: (1, '', ''), str(tmp_path / 'none')) == {}


def test_a_unit_without_a_port_or_environment_gets_vllms_default_port():
    assert _unit.unit_resources('ExecStart="/l" "/v/vllm" "serve" "m"\n', lambda path: None) == \
        {'chips': [], 'port': '8000'}


@given(planned=st.lists(st.sampled_from(['a', 'b', 'c']), unique=True),
       on_node=st.lists(st.sampled_from(['a', 'b', 'c', 'd']), unique=True),
       source=st.booleans())
def test_every_unit_of_ours_the_plan_does_not_run_goes(planned, on_node, source):
    """With the image method every unit of ours goes; with the source method those of no planned instance."""
    def unit(name):
        return 'vllm-ascend-%s.service' % name

    plan = {'instances': [{'name': n, 'runs_as': unit(n) if source else 'vllm-ascend-' + n} for n in planned],
            'services': dict((n, {'name': unit(n)}) for n in planned) if source else {}}
    units = dict((unit(n), {'active': True}) for n in on_node)
    gone = unplanned_units(plan, units)
    assert gone == sorted(unit(n) for n in on_node if not (source and n in planned))


def test_the_chips_and_port_of_a_unit_removed_first_count_as_ours():
    profile = {'chip_device_template': '/dev/davinci{index}', 'manager_devices': []}
    units = {'vllm-ascend-a.service': {'active': True, 'chips': [0], 'port': '8080'},
             'vllm-ascend-b.service': {'active': False, 'chips': [1], 'port': '8081'}}
    own = _node_problems.units_removed_first(units, ['vllm-ascend-a.service', 'vllm-ascend-b.service'], profile)
    assert own == {'removing vllm-ascend-a.service': {'container': 'vllm-ascend-a.service',
                                                      'devices': ['/dev/davinci0'], 'ports': ['8080'], 'pids': []}}
    # The process that holds chip 0 and port 8080 is the unit's: no problem for an instance planned there.
    instances = [{'name': 'default', 'container_name': 'vllm-ascend', 'chips': [0], 'port': 8080}]
    npu = {'chips': [{'device_id': 0, 'health': 'OK'}], 'processes': [{'device_id': 0, 'pid': 74, 'name': 'vllm'}]}
    assert _node_problems.chip_problems(npu, profile, _node_problems.normalize_instances(instances), own) == []
    facts = {'listeners': {'8080': {'listening': True, 'processes': [{'name': 'vllm', 'pid': 74}]}}, 'docker': {}}
    assert _node_problems.port_problems(facts, _node_problems.normalize_instances(instances), own) == []
    assert _node_problems.port_problems(facts, _node_problems.normalize_instances(instances), {}) != []


CLEARED = st.sampled_from(['/run', '/var/run', '/tmp', '/dev/shm'])
TAIL = st.lists(st.text('abcxyz-_.', min_size=1, max_size=6).filter(lambda w: w not in ('.', '..')), max_size=3)


@given(var=st.sampled_from(_host.START_PATHS), top=CLEARED, tail=TAIL)
def test_a_start_path_a_reboot_empties_is_refused_naming_the_variable(var, top, tail):
    path = '/'.join([top] + tail)
    (problem,) = _host.boot_path_problems({var: path})
    assert problem['variable'] == var and path in problem['msg'] and 'reboot' in problem['msg']
    assert problem['fix'].startswith('set %s to a directory on disk' % var)


ON_DISK = st.sampled_from(['/var/lib', '/etc', '/opt', '/srv', '/root', '/running', '/tmpfs', '/var/runner'])


@given(var=st.sampled_from(_host.START_PATHS), top=ON_DISK, tail=TAIL)
def test_a_start_path_on_disk_is_accepted(var, top, tail):
    assert _host.boot_path_problems({var: '/'.join([top] + tail)}) == []


@pytest.mark.parametrize('var', _host.START_PATHS)
def test_the_defaults_live_where_a_reboot_keeps_them(var):
    """Every role's default for a start path is accepted (the declared default, read as Ansible reads it)."""
    import yaml  # pylint: disable=import-outside-toplevel
    root = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', '..', 'roles')
    defaults = {}
    for role in os.listdir(root):
        path = os.path.join(root, role, 'defaults', 'main.yml')
        if os.path.isfile(path):
            with open(path) as handle:
                defaults.update(yaml.safe_load(handle) or {})
    assert var in defaults
    assert _host.boot_path_problems({var: defaults[var]}) == []
