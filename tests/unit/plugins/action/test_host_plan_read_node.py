# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""host_plan with read_node: the one preflight task that reads a node, in the order the roles did.

What runs on the node is recorded instead of sent: node_facts with the plan's query, the
page-cache drop only when opted in, needed and not in check mode, the memory read only after
a drop that worked, and the registry only for digest pins on a node that reaches one.
"""

from unittest import mock

import pytest

from ansible_collections.ascend.vllm.plugins.action import host_plan as action_module
from ansible_collections.ascend.vllm.plugins.plugin_utils.judge import _node_read

QUERY = {'paths': ['/root/.cache'], 'containers': ['vllm-ascend', 'vllm-ascend-previous'], 'ports': [8080]}
NODE = {'npu': {'chip_count': 1}, 'docker': {'images': []}}
PIN = {'ref': 'reg.example/ascend/vllm-ascend:v0.23.0-310p', 'digest': 'sha256:' + 'a' * 64}


class _Request(dict):
    host = 'n1'

    def get(self, name, default=None):
        return dict.get(self, name, default)


def _action(check_mode=False):
    task = mock.MagicMock()
    task.check_mode = check_mode
    task.args = {}
    return action_module.ActionModule(task, mock.MagicMock(), mock.MagicMock(), loader=None, templar=None,
                                      shared_loader_obj=None)


def _read(monkeypatch, request, pins=(), check_mode=False, drop_needed=False, drop_rc=0):
    calls = []

    def execute(module_name, module_args, task_vars):
        calls.append((module_name, module_args))
        if module_name == 'ansible.legacy.command':
            return {'rc': drop_rc, 'stderr': '' if drop_rc == 0 else 'Read-only file system'}
        if module_args.get('gather') == ['memory']:
            return {'memory': {'available_mb': 9000}}
        if module_args.get('gather') == ['manifests']:
            return {'manifests': {PIN['ref']: {'digest': PIN['digest']}}}
        return dict(NODE)

    monkeypatch.setattr(action_module, 'node_query', lambda req, planned, settings: dict(QUERY))
    monkeypatch.setattr(_node_read, 'node_problems', lambda node, settings: {'drop_page_cache': drop_needed})
    action = _action(check_mode)
    action._execute_module = execute
    out = action._read_node(request, {'image': {'pins': list(pins)}}, {}, {'inventory_hostname': 'n1'})
    return calls, out


def test_one_node_facts_call_with_the_plans_query(monkeypatch):
    calls, (node, drop, memory, registry) = _read(monkeypatch, _Request())
    assert calls == [('ascend.vllm.node_facts', QUERY)]
    assert (node, drop, memory, registry) == (NODE, None, None, None)


def test_the_page_cache_is_dropped_only_when_opted_in_and_needed(monkeypatch):
    calls, _out = _read(monkeypatch, _Request(), drop_needed=True)
    assert [name for name, _args in calls] == ['ascend.vllm.node_facts']
    calls, _out = _read(monkeypatch, _Request(npu_check_drop_page_cache=True), drop_needed=False)
    assert [name for name, _args in calls] == ['ascend.vllm.node_facts']


def test_a_drop_that_worked_is_followed_by_a_memory_read(monkeypatch):
    calls, (_node, drop, memory, _registry) = _read(monkeypatch, _Request(npu_check_drop_page_cache='yes'),
                                                    drop_needed=True)
    assert calls[1] == ('ansible.legacy.command', {'_raw_params': 'sync && echo 3 > /proc/sys/vm/drop_caches',
                                                   '_uses_shell': True})
    assert calls[2] == ('ascend.vllm.node_facts', {'gather': ['memory']})
    assert drop['changed'] is True and memory == {'memory': {'available_mb': 9000}}


def test_a_drop_that_failed_is_reported_and_not_followed(monkeypatch):
    calls, (_node, drop, memory, _registry) = _read(monkeypatch, _Request(npu_check_drop_page_cache=True),
                                                    drop_needed=True, drop_rc=1)
    assert [name for name, _args in calls] == ['ascend.vllm.node_facts', 'ansible.legacy.command']
    assert drop['changed'] is False and drop['stderr'] == 'Read-only file system' and memory is None


def test_check_mode_drops_nothing(monkeypatch):
    calls, (_node, drop, _memory, _registry) = _read(monkeypatch, _Request(npu_check_drop_page_cache=True),
                                                     check_mode=True, drop_needed=True)
    assert [name for name, _args in calls] == ['ascend.vllm.node_facts'] and drop is None


@pytest.mark.parametrize('offline, asked', [(False, True), (True, False), ('yes', False)])
def test_digest_pins_are_asked_from_the_node_unless_it_is_offline(monkeypatch, offline, asked):
    calls, (_node, _drop, _memory, registry) = _read(monkeypatch, _Request(vllm_serve_offline=offline), pins=[PIN])
    manifests = [args for name, args in calls if args.get('gather') == ['manifests']]
    assert manifests == ([{'gather': ['manifests'], 'manifests': [PIN['ref']]}] if asked else [])
    assert (registry is not None) == asked


def test_a_failed_read_names_the_module_and_the_host(monkeypatch):
    monkeypatch.setattr(action_module, 'node_query', lambda req, planned, settings: dict(QUERY))
    action = _action()
    action._execute_module = lambda module_name, module_args, task_vars: {'failed': True, 'msg': 'no npu-smi'}
    with pytest.raises(_node_read.NodeReadError, match='ascend.vllm.node_facts on n1: no npu-smi'):
        action._read_node(_Request(), {'image': {}}, {}, {'inventory_hostname': 'n1'})


# ------------------------------------------------------------------ the first play's plan, judged against the node
def _run(monkeypatch, given, read_node=True):
    made, judged = [], []
    monkeypatch.setattr(action_module, '_roles', lambda loader: ({}, {}))
    monkeypatch.setattr(action_module, 'read_request', lambda *args: _Request())
    monkeypatch.setattr(action_module, 'host_plan', lambda *args: made.append(args) or {'stage': 'plan', 'problems': []})
    monkeypatch.setattr(action_module, 'npu_settings', lambda req, planned: {})
    monkeypatch.setattr(action_module, 'node_plan',
                        lambda request, planned, *read, **kw: judged.append(planned) or dict(planned, stage='node'))
    action = _action()
    action._task.args = {'read_node': read_node, 'given': given}
    action._read_node = lambda request, planned, settings, task_vars: (NODE, None, None, None)
    with mock.patch.object(action_module.ActionBase, 'run', return_value={}):
        out = action.run(task_vars={'inventory_hostname': 'n1'})
    return out, made, judged


def test_the_first_plays_plan_is_read_against_the_node_not_made_again(monkeypatch):
    first = {'stage': 'plan', 'problems': [], 'instances': ['default']}
    out, made, judged = _run(monkeypatch, {'changed': False, 'plan': first, 'problems': []})
    assert made == [] and judged == [first]
    assert out['plan']['stage'] == 'node' and out['node'] == NODE and 'given' not in out


@pytest.mark.parametrize('given', [
    {'failed': True, 'plan': {'stage': 'plan', 'problems': []}},   # a result that is not a plan
    {'skipped': True},
    None,
])
def test_without_a_plan_of_this_run_the_host_is_planned_then_read(monkeypatch, given):
    out, made, judged = _run(monkeypatch, given)
    assert len(made) == 1 and len(judged) == 1 and out['plan']['stage'] == 'node'


def test_a_plan_already_judged_against_the_node_is_kept_as_it_is(monkeypatch):
    judged_plan = {'stage': 'node', 'problems': [], 'instances': ['default']}
    out, made, judged = _run(monkeypatch, {'plan': judged_plan, 'problems': []})
    assert made == [] and judged == [] and out == {'changed': False, 'plan': judged_plan, 'problems': [],
                                                   'given': True}
