"""Rolling upgrade decisions: order and outcome (plugins/plugin_utils/serve/_rolling.py), and the drain the
balancer's runtime API allows (plugins/module_utils/serve/_haproxy.py)."""
import pytest

from ansible_collections.ascend.vllm.plugins.module_utils.serve._haproxy import drain_plan, in_flight, is_up, parse_stat
from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._rolling import upgrade_outcome, upgrade_steps

PLAN = [{'name': 'a', 'container_name': 'vllm-ascend-a'}, {'name': 'b', 'container_name': 'vllm-ascend-b'},
        {'name': 'c', 'container_name': 'vllm-ascend-c'}]
FRONTENDS = [{'name': 'qwen3_5', 'servers': [{'name': 'a', 'instance': 'a', 'port': 8080},
                                             {'name': 'b', 'instance': 'b', 'port': 8081}]}]
RUNNING = {'exists': True, 'running': True, 'restarting': False}
STAT = """# pxname,svname,qcur,qmax,scur,smax,slim,stot,bin,bout,dreq,dresp,ereq,econ,eresp,wretr,wredis,status,weight
qwen3_5,FRONTEND,,,1,2,,,,,,,,,,,,OPEN,
qwen3_5,a,0,0,2,3,,,,,,,,,,,,UP,1
qwen3_5,b,1,1,0,1,,,,,,,,,,,,UP 1/2,1
qwen3_5,c,0,0,0,0,,,,,,,,,,,,DOWN,1
qwen3_5,BACKEND,0,0,2,3,,,,,,,,,,,,UP,2
"""


def test_serving_instances_roll_in_list_order_and_new_ones_start_together():
    steps = upgrade_steps(PLAN, FRONTENDS, {'vllm-ascend-a': RUNNING, 'vllm-ascend-c': RUNNING,
                                            'vllm-ascend-b': {'exists': True, 'running': False}})
    assert [entry['name'] for entry in steps['roll']] == ['a', 'c']
    assert steps['roll'][0]['rolling'] == {'backend': 'qwen3_5', 'server': 'a', 'peers': ['b']}
    assert steps['roll'][1]['rolling'] == {'backend': None, 'server': None, 'peers': []}
    assert [entry['name'] for entry in steps['fresh']] == ['b']


def test_a_crash_looping_container_starts_with_the_new_ones_and_unread_nodes_roll_everything():
    looping = dict(RUNNING, restarting=True)
    assert [e['name'] for e in upgrade_steps(PLAN, [], {'vllm-ascend-a': looping})['fresh']] == ['a', 'b', 'c']
    assert [e['name'] for e in upgrade_steps(PLAN, FRONTENDS, None)['roll']] == ['a', 'b', 'c']


def test_show_stat_is_read_by_column_name():
    rows = parse_stat(STAT)
    assert rows[1] == {'pxname': 'qwen3_5', 'svname': 'a', 'qcur': 0, 'scur': 2, 'status': 'UP'}
    assert in_flight(rows, 'qwen3_5', 'a') == 2 and in_flight(rows, 'qwen3_5', 'b') == 1
    assert is_up(rows, 'qwen3_5', 'b') and not is_up(rows, 'qwen3_5', 'c')
    assert parse_stat('') == [] and parse_stat('Unknown command') == []


def test_drain_only_when_another_server_is_up():
    rows = parse_stat(STAT)
    assert drain_plan(rows, 'qwen3_5', 'a')['drain'] and drain_plan(rows, 'qwen3_5', 'a')['others_up'] == ['b']
    alone = [row for row in rows if row['svname'] != 'b']
    plan = drain_plan(alone, 'qwen3_5', 'a')
    assert not plan['drain'] and plan['found'] and 'no other server of qwen3_5 is up' in plan['why']
    assert not drain_plan(rows, 'qwen3_5', 'x')['found']
    assert 'not behind the balancer' in drain_plan(rows, None, None)['why']


def test_a_served_replacement_is_put_back():
    out = upgrade_outcome({'state': 'ready', 'container': 'vllm-ascend-a'}, {'drain': True}, 12.0, None, 'n1', ['b'])
    assert out == {'put_back': True, 'failed': False, 'gap': None, 'msg': 'vllm-ascend-a on n1 upgraded; back in the balancer'}


def test_an_unchanged_instance_says_nothing():
    assert upgrade_outcome({'state': 'ready'}, {}, None) == {'put_back': False, 'failed': False, 'gap': None, 'msg': ''}


def test_a_replacement_without_a_drain_reports_the_gap():
    out = upgrade_outcome({'state': 'ready', 'container': 'vllm-ascend'},
                          {'drain': False, 'why': 'no balancer admin socket at /run/x'}, 7.25, None, 'n3')
    assert out['gap'] == 7.2 or out['gap'] == 7.3
    assert not out['put_back'] and not out['failed']
    assert 'vllm-ascend on n3 cannot be upgraded without downtime (no balancer admin socket at /run/x)' in out['msg']
    assert 'did not serve for up to 7.' in out['msg']


def test_a_failure_names_the_cause_the_rollback_and_what_was_left():
    status = {'state': 'failed', 'container': 'vllm-ascend-a', 'error': 'vLLM exited: RuntimeError: boom'}
    out = upgrade_outcome(status, {'drain': True}, 30, {'state': 'ready'}, 'n1', ['b', 'c'])
    assert out['put_back'] and out['failed'] and out['gap'] is None
    assert out['msg'] == ('Rolling upgrade stopped at vllm-ascend-a on n1: vLLM exited: RuntimeError: boom. Rolled back: '
                          'the previous container serves again and is back in the balancer. Not upgraded (untouched): '
                          'b, c and the hosts after n1.')


def test_a_failed_restore_stays_out_of_the_balancer():
    out = upgrade_outcome({'state': 'failed'}, {'drain': True}, 3, {'state': 'crashed'}, 'n1')
    assert not out['put_back'] and 'the previous container could not be brought back' in out['msg']
    assert 'no other instance of this host' in out['msg']
    first = upgrade_outcome({'state': 'failed'}, {}, None, None, 'n1')
    assert not first['put_back'] and 'there was no previous container to go back to' in first['msg']


@pytest.mark.parametrize('status', [{}, {'state': 'failed', 'error': 'x', 'container': 'c'}, None])
def test_check_mode_reports_what_would_change_and_no_rollback(status):
    out = upgrade_outcome(status, {'drain': True}, None, None, 'h1', ['b'], check_mode=True, name='vllm-a')
    assert out['failed'] is False and out['put_back'] is False
    assert 'would be replaced and checked' in out['msg']
    assert 'Rolled back' not in out['msg'] and 'stopped' not in out['msg'] and '?' not in out['msg']


def test_a_replacement_refused_before_its_checks_names_the_real_cause():
    out = upgrade_outcome({}, {}, None, None, 'h1', [], name='vllm-a',
                          error='docker_container refused the container vllm-a: listen tcp6 [::1]:8080: bind')
    assert out['failed'] is True
    assert 'vllm-a on h1' in out['msg'] and 'listen tcp6 [::1]:8080' in out['msg'] and '?' not in out['msg']
