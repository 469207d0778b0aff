# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""node_facts' action: the module as any module, and with ``checks`` the npu_check role's read and judgement.

What runs on the node is recorded instead of sent (a fake ``_execute_module``): node_facts with
the query of the checks, the page-cache drop only when opted in, needed (RC mode, host memory
short) and not in check mode, and the memory read only after a drop that worked; the verdict is
the real one (plugin_utils/judge/_node_problems.py). Hypothesis draws RC-mode memory figures:
the drop runs exactly when it is opted in, needed and not in check mode, and the verdict uses the
memory read last.
"""

from unittest import mock

import pytest
from hypothesis import given, strategies as st

from ansible_collections.ascend.vllm.plugins.action import node_facts as action_module
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.platforms import get_profile
from ansible_collections.ascend.vllm.plugins.plugin_utils.judge._node_problems import node_query
from ansible_collections.ascend.vllm.plugins.plugin_utils.judge._node_read import DROP_COMMAND

PRO = get_profile('atlas_200i_pro')
DUO = get_profile('atlas_300i_duo')
COMMAND = ('ansible.legacy.command', {'_raw_params': DROP_COMMAND, '_uses_shell': True})
MEMORY_READ = ('ascend.vllm.node_facts', {'gather': ['memory']})


def settings(profile=PRO, host_memory_mb=20000, **extra):
    out = {
        'host': 'node1', 'platform': 'atlas_200i_pro', 'profile': profile, 'profile_given': True,
        'platform_problems': [],
        'instances': [{'name': 'default', 'container_name': 'vllm-ascend', 'chips': [0],
                       'chips_var': 'vllm_serve_chips', 'port': 8080, 'host_memory_mb': host_memory_mb}],
        'driver_dir': '/usr/local/Ascend/driver', 'driver_version_file': '/usr/local/Ascend/driver/version.info',
        'driver_min_version': '', 'image_tag': '', 'npu_smi_path': '', 'mount_sources': True,
        'docker_min_version': '18.09', 'ports': True, 'disk_min_free_gb': 20, 'images': [],
        'rc_memory_margin_mb': 0, 'paths': ['/data/models'], 'drop_page_cache': False,
    }
    out.update(extra)
    return out


def node(available_mb):
    """What node_facts reads: only the parts these tests judge (the rest are problems, the same in every case)."""
    return {'changed': False, 'memory': {'available_mb': available_mb, 'total_mb': 32000},
            'paths': {'/data/models': {'exists': True, 'isdir': True, 'isreg': False}},
            'docker': {'reachable': True, 'version': '20.10.24', 'images': []}}


def _action(args, check_mode=False, async_val=0):
    task = mock.MagicMock()
    task.check_mode = check_mode
    task.args = dict(args)
    task.async_val = async_val
    connection = mock.MagicMock()
    connection.has_native_async = False
    action = action_module.ActionModule(task, connection, mock.MagicMock(), loader=None, templar=None,
                                        shared_loader_obj=None)
    action._remove_tmp_path = lambda path: None
    return action


def run(args, first=None, again=None, drop_rc=0, check_mode=False, async_val=0):
    """(result, calls): the action with a node whose first read is ``first`` and whose memory read is ``again``."""
    calls = []

    def execute(module_name=None, module_args=None, task_vars=None, wrap_async=False):
        calls.append((module_name, module_args) if module_name else ('task', {'wrap_async': wrap_async}))
        if module_name == 'ansible.legacy.command':
            return {'changed': True, 'rc': drop_rc, 'stderr': '' if drop_rc == 0 else 'Read-only file system',
                    'failed': drop_rc != 0}
        if module_args and module_args.get('gather') == ['memory']:
            return dict(again or {'memory': {'available_mb': 1, 'total_mb': 32000}}, changed=False)
        return dict(first if first is not None else node(30000))

    action = _action(args, check_mode, async_val)
    action._execute_module = execute
    return action.run(task_vars={'inventory_hostname': 'node1'}), calls


def test_without_checks_the_module_runs_with_the_tasks_arguments():
    """Other callers (gather: [memory], the integration target) see the module's own result."""
    result, calls = run({'gather': ['memory']}, first={'changed': False, 'memory': {'available_mb': 7}})
    assert calls == [('task', {'wrap_async': False})]
    assert result == {'changed': False, 'memory': {'available_mb': 7}}
    assert 'ansible_facts' not in result and 'problems' not in result


def test_without_checks_async_is_the_modules():
    _result, calls = run({'gather': ['memory']}, async_val=30)
    assert calls == [('task', {'wrap_async': True})]


def test_a_read_without_drop_is_one_module_run_and_the_verdict():
    checks = settings()
    result, calls = run({'checks': checks}, first=node(30000))
    query = node_query(checks)
    assert calls == [('ascend.vllm.node_facts', query)]
    assert 'checks' not in calls[0][1] and '/data/models' in calls[0][1]['paths']
    # The module's facts, and the judgement the role reports.
    assert result['memory'] == {'available_mb': 30000, 'total_mb': 32000}
    assert result['changed'] is False and result['drop_page_cache'] is False
    assert 'memory' not in [p['check'] for p in result['problems']]
    assert result['result']['host_memory_available_mb'] == 30000 and result['result']['rc_mode'] is True
    assert result['result']['paths'] == {'/data/models': {'exists': True, 'isdir': True, 'isreg': False}}
    assert result['summary'].startswith('atlas_200i_pro: driver ?, firmware ?, npu-smi ?, 0 chip(s), Docker 20.10.24')
    assert result['summary'].endswith('%d problem(s)' % len(result['problems']))
    assert result['report'].splitlines()[0] == '%d preflight problem(s) on node1:' % len(result['problems'])
    # No facts: the role publishes its outputs itself (facts from a module are deprecated as top-level variables).
    assert 'ansible_facts' not in result


def test_the_module_options_the_task_may_add_are_passed_on():
    _result, calls = run({'checks': settings(), 'probe_timeout': 0.5, 'docker_host': 'unix:///run/d.sock'})
    assert calls[0][1]['probe_timeout'] == 0.5 and calls[0][1]['docker_host'] == 'unix:///run/d.sock'


def test_short_memory_not_opted_in_is_a_problem_and_nothing_is_dropped():
    result, calls = run({'checks': settings()}, first=node(5000))
    assert [name for name, _args in calls] == ['ascend.vllm.node_facts']
    memory = [p for p in result['problems'] if p['check'] == 'memory']
    assert len(memory) == 1 and memory[0]['msg'].startswith('RC mode: 5000 MB host memory available, the instances '
                                                            'will take 20000 MB')
    assert 'set npu_check_drop_page_cache: true' in memory[0]['fix']
    assert result['drop_page_cache'] is True and result['changed'] is False


def test_a_needed_drop_runs_and_the_verdict_uses_the_memory_read_after_it():
    result, calls = run({'checks': settings(drop_page_cache=True)}, first=node(5000),
                        again={'memory': {'available_mb': 25000, 'total_mb': 32000}})
    assert calls[1:] == [COMMAND, MEMORY_READ]
    assert result['changed'] is True
    assert result['result']['host_memory_available_mb'] == 25000
    assert 'memory' not in [p['check'] for p in result['problems']]
    assert result['result']['host_memory_available_mb'] == 25000


def test_a_drop_that_did_not_free_enough_still_reports_the_new_figure():
    result, _calls = run({'checks': settings(drop_page_cache=True)}, first=node(5000),
                         again={'memory': {'available_mb': 9000, 'total_mb': 32000}})
    memory = [p for p in result['problems'] if p['check'] == 'memory']
    assert result['changed'] is True and memory[0]['msg'].startswith('RC mode: 9000 MB host memory available')


def test_a_drop_that_failed_is_named_in_the_memory_problem_and_not_followed():
    result, calls = run({'checks': settings(drop_page_cache=True)}, first=node(5000), drop_rc=1)
    assert calls[1:] == [COMMAND]
    memory = [p for p in result['problems'] if p['check'] == 'memory']
    assert memory[0]['fix'].startswith('dropping the page cache failed (Read-only file system); ')
    assert result['changed'] is False and not result.get('failed')


def test_check_mode_reads_and_never_drops():
    result, calls = run({'checks': settings(drop_page_cache=True)}, first=node(5000), check_mode=True)
    assert calls == [('ascend.vllm.node_facts', node_query(settings()))]
    assert result['changed'] is False and 'memory' in [p['check'] for p in result['problems']]


def test_a_board_that_is_not_rc_never_drops():
    _result, calls = run({'checks': settings(profile=DUO, drop_page_cache=True)}, first=node(10))
    assert [name for name, _args in calls] == ['ascend.vllm.node_facts']


@pytest.mark.parametrize('answer, unreachable', [
    ({'failed': True, 'msg': 'MODULE FAILURE: /usr/bin/python3: not found'}, False),
    ({'unreachable': True, 'msg': 'Failed to connect to the host via ssh'}, True),
])
def test_a_read_that_failed_fails_the_task_naming_the_host_and_why(answer, unreachable):
    result, calls = run({'checks': settings(drop_page_cache=True)}, first=answer)
    assert len(calls) == 1
    assert result['failed'] is True and result['changed'] is False
    assert result['msg'] == 'node_facts could not read node1 for its checks: ' + answer['msg']
    assert bool(result.get('unreachable')) is unreachable
    assert 'ansible_facts' not in result and 'problems' not in result


def test_a_memory_read_that_failed_after_the_drop_fails_the_task():
    result, _calls = run({'checks': settings(drop_page_cache=True)}, first=node(5000),
                         again={'failed': True, 'msg': 'boom'})
    assert result['failed'] is True and result['msg'] == 'node_facts could not read node1 for its checks: boom'


@pytest.mark.parametrize('args, msg', [
    ({'checks': 'x'}, 'node_facts: checks must be a dict (the npu_check settings), got str'),
    ({'checks': {'driver_dir': '/d'}}, 'node_facts: checks lacks driver_version_file (the npu_check settings name '
                                       'the driver files)'),
    ({'checks': settings(), 'paths': ['/x']}, 'node_facts: with checks, paths come from the checks: leave it out'),
    ({'checks': settings(), 'gather': ['memory'], 'ports': [1]},
     'node_facts: with checks, gather, ports come from the checks: leave them out'),
])
def test_checks_that_cannot_be_used_are_refused_before_the_node_is_asked(args, msg):
    result, calls = run(args)
    assert calls == [] and result == {'failed': True, 'changed': False, 'msg': msg}


def test_checks_are_not_run_async():
    result, calls = run({'checks': settings()}, async_val=30)
    assert calls == [] and result['failed'] is True and 'cannot run async' in result['msg']


@st.composite
def memory_figures(draw):
    """(need, margin, available, again): host memory short as often as not, before and after a drop."""
    need = draw(st.sampled_from([0, 1]) | st.integers(0, 40000))
    margin = draw(st.integers(0, 4000))
    limit = need + margin

    def figure():
        return draw(st.integers(0, limit - 1)) if limit > 0 and draw(st.booleans()) else draw(st.integers(limit, 60000))

    return need, margin, figure(), figure()


@given(figures=memory_figures(), rc_mode=st.booleans(), opted_in=st.booleans(), check_mode=st.booleans(),
       drop_rc=st.sampled_from([0, 1]))
def test_the_drop_runs_exactly_when_opted_in_needed_and_not_in_check_mode(
        figures, rc_mode, opted_in, check_mode, drop_rc):
    need, margin, available, again = figures
    checks = settings(profile=PRO if rc_mode else DUO, host_memory_mb=need, rc_memory_margin_mb=margin,
                      drop_page_cache=opted_in)
    result, calls = run({'checks': checks}, first=node(available),
                        again={'memory': {'available_mb': again, 'total_mb': 32000}},
                        drop_rc=drop_rc, check_mode=check_mode)
    short = rc_mode and need > 0 and available < need + margin
    dropped = opted_in and not check_mode and short
    assert (COMMAND in calls) == dropped
    assert (MEMORY_READ in calls) == (dropped and drop_rc == 0)
    assert result['changed'] == (dropped and drop_rc == 0)
    final = again if MEMORY_READ in calls else available
    assert result['result']['host_memory_available_mb'] == final
    memory = [p for p in result['problems'] if p['check'] == 'memory']
    assert bool(memory) == (rc_mode and need > 0 and final < need + margin)
    if not opted_in or check_mode:
        assert calls == [('ascend.vllm.node_facts', node_query(checks))]
