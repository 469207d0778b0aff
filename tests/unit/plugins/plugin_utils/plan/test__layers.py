# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The request read from a real inventory on disk, with the variable set at generated layers.

Ansible's own InventoryManager and VariableManager load the files (group_vars of ``all``, of a
parent group and of the platform group, host_vars, extra vars), so the layering and the
``Origin`` tags are Ansible's. Invariants, for every generated layering:
- the request holds the value of the layer with the highest precedence;
- a refusal names the variable, its winning value and the file (or extra vars) it came from.
"""

import json
import os
import shutil
import sys
import tempfile

from hypothesis import HealthCheck, given, settings, strategies as st

from ansible.inventory.manager import InventoryManager
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar
from ansible.vars.hostvars import HostVars
from ansible.vars.manager import VariableManager

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# pylint: disable=wrong-import-position
from test__host import EXAMPLES  # noqa: E402  (installs Ansible's collection finder first)
from ansible_collections.ascend.vllm.plugins.action.host_plan import _roles, read_request, variable_names  # noqa: E402
from ansible_collections.ascend.vllm.plugins.plugin_utils.plan._host import host_plan  # noqa: E402

HOST_ENTRY = 'hosts.yml (the host entry)'
# Lowest precedence first (Ansible's variable precedence for inventory files and extra vars).
LAYERS = ('group_vars/all.yml', 'group_vars/site.yml', 'group_vars/atlas_300i_duo.yml', HOST_ENTRY,
          'host_vars/node-1.yml', 'extra vars')
INVENTORY = {'all': {'children': {'site': {'children': {'atlas_300i_duo': {'hosts': {'node-1': {}}}}}}}}

# (variable, a valid value, values preflight refuses)
VARIABLES = {
    'vllm_serve_port': (st.integers(min_value=1025, max_value=60000), st.sampled_from([0, 70000, -1, 'eighty'])),
    'vllm_serve_dtype': (st.just('float16'), st.sampled_from(['bfloat16', 'fp32', 'half16'])),
    'vllm_serve_max_num_seqs': (st.integers(min_value=1, max_value=16), st.sampled_from([0, -4, 'many'])),
    'vllm_serve_tensor_parallel_size': (st.sampled_from([1, 2]), st.sampled_from([3, 4, 0])),
}


def _write(root, layers):
    os.makedirs(os.path.join(root, 'group_vars'))
    os.makedirs(os.path.join(root, 'host_vars'))
    inventory = json.loads(json.dumps(INVENTORY))
    inventory['all']['children']['site']['children']['atlas_300i_duo']['hosts']['node-1'] = layers.get(HOST_ENTRY) or {}
    with open(os.path.join(root, 'hosts.yml'), 'w') as handle:
        json.dump(inventory, handle)
    for layer, values in layers.items():
        if layer not in ('extra vars', HOST_ENTRY):
            with open(os.path.join(root, layer), 'w') as handle:
                handle.write('---\n' + ''.join('%s: %s\n' % (name, json.dumps(value)) for name, value in values.items()))


def plan_from_inventory(layers):
    root = tempfile.mkdtemp(prefix='ascend-layers-')
    try:
        _write(root, layers)
        loader = DataLoader()
        inventory = InventoryManager(loader=loader, sources=[os.path.join(root, 'hosts.yml')])
        manager = VariableManager(loader=loader, inventory=inventory)
        manager._extra_vars = dict(layers.get('extra vars') or {})  # pylint: disable=protected-access
        task_vars = manager.get_vars(host=inventory.get_host('node-1'))
        task_vars.setdefault('hostvars', HostVars(inventory=inventory, variable_manager=manager, loader=loader))
        request = read_request(task_vars, Templar(loader=loader), loader, variable_names(*_roles(loader)))
        return request, host_plan(request, _roles(loader)[0], os.path.isfile), root
    finally:
        shutil.rmtree(root, ignore_errors=True)


@st.composite
def layerings(draw):
    """A variable set at one or more layers; the winning layer may hold a refused value."""
    name = draw(st.sampled_from(sorted(VARIABLES)))
    valid, invalid = VARIABLES[name]
    chosen = draw(st.lists(st.sampled_from(LAYERS), min_size=1, max_size=len(LAYERS), unique=True))
    layers = {}
    for layer in chosen:
        layers[layer] = {name: draw(st.one_of(valid, invalid))}
    return name, layers


@settings(max_examples=max(EXAMPLES // 4, 25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layerings())
def test_the_winning_layer_is_the_one_judged_and_named(layering):
    name, layers = layering
    winner = max(layers, key=LAYERS.index)
    value = layers[winner][name]
    request, planned, root = plan_from_inventory(layers)
    assert request.get(name) == value, (name, layers)
    named = [problem for problem in planned['problems'] if name in problem['msg'] + problem['fix']]
    if not named:
        return
    shown = json.dumps(value)
    assert any(shown in problem['msg'] or str(value) in problem['msg'] for problem in named), (value, named)
    origins = set(problem.get('origin', '') for problem in named)
    if winner == 'extra vars':
        assert 'extra vars' in origins, (layers, named)
    else:
        path = 'hosts.yml' if winner == HOST_ENTRY else winner
        path = os.path.join(root, path)
        assert any(origin == path or origin.startswith(path + ':') for origin in origins), (winner, origins)


# Instance keys that stand in for a scalar: set in every instance, the scalar has no effect.
OVERRIDABLE = {'vllm_serve_port': ('port', 9100), 'vllm_serve_max_model_len': ('max_model_len', 8192),
               'vllm_serve_container_name': ('container_name', 'serve-a'), 'vllm_serve_chips': ('chips', [0])}


@settings(max_examples=max(EXAMPLES // 8, 25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(OVERRIDABLE)), st.sampled_from(LAYERS), st.sampled_from(LAYERS[2:5]))
def test_a_scalar_the_instance_list_overrides_is_reported_when_set_for_this_host(name, scalar_layer, list_layer):
    """Set on the command line or in the host's own host_vars, a scalar that every instance overrides (or that an
    instance list never reads) is reported naming both variables; set for a whole group it is a default for the
    group's other hosts and stays silent."""
    key, value = OVERRIDABLE[name]
    instances = [{'name': 'a', 'chips': [0], key: value}, {'name': 'b', 'chips': [1], key: value}]
    instances[1][key] = [1] if key == 'chips' else ('serve-b' if key == 'container_name' else value)
    layers = {list_layer: {'ascend_vllm_instances': instances}}
    scalar = {'vllm_serve_port': 9000, 'vllm_serve_max_model_len': 4096, 'vllm_serve_container_name': 'mine',
              'vllm_serve_chips': [1]}[name]
    layers.setdefault(scalar_layer, {})[name] = scalar
    _request, planned, _root = plan_from_inventory(layers)
    reported = [problem for problem in planned['problems'] if problem['msg'].startswith(name + '=')
                and 'has no effect' in problem['msg']]
    if scalar_layer in ('extra vars', 'host_vars/node-1.yml', HOST_ENTRY):
        assert reported and 'ascend_vllm_instances' in reported[0]['msg'] and name in reported[0]['fix'], \
            planned['problems']
    else:
        assert not reported, reported


CERT = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n'
KEY = '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49\n-----END PRIVATE KEY-----\n'


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(LAYERS))
def test_tls_for_a_host_without_a_balancer_is_reported_only_when_set_for_that_host(layer):
    _request, planned, _root = plan_from_inventory({layer: {'balancer_tls_certificate': CERT, 'balancer_tls_key': KEY}})
    reported = [problem for problem in planned['problems'] if 'has no effect' in problem['msg']]
    if layer in ('extra vars', 'host_vars/node-1.yml', HOST_ENTRY):
        assert sorted(problem['variable'] for problem in reported) == ['balancer_tls_certificate', 'balancer_tls_key']
        assert KEY.strip() not in planned['report']
    else:
        assert reported == []


# Settings a platform never reads (plan._host.PLATFORM_BOUND) on the 300I DUO (EP mode, built in).
BOUND = {'npu_check_rc_memory_margin_mb': 512, 'npu_check_drop_page_cache': True,
         'ascend_vllm_platform_spec': {'based_on': 'atlas_300i_duo', 'chips_per_card': 1}}


@settings(max_examples=max(EXAMPLES // 8, 25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(BOUND)), st.sampled_from(LAYERS))
def test_a_setting_the_platform_never_reads_is_reported_when_set_for_this_host(name, layer):
    _request, planned, _root = plan_from_inventory({layer: {name: BOUND[name]}})
    reported = [problem for problem in planned['problems'] if problem['msg'].startswith(name + '=')
                and 'has no effect on node-1' in problem['msg']]
    if layer in ('extra vars', 'host_vars/node-1.yml', HOST_ENTRY):
        assert reported and name in reported[0]['fix'], planned['problems']
        assert ('RC mode only' in reported[0]['msg']) is name.startswith('npu_check_')
    else:
        assert not reported, reported
