# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Keep the last good service: what is kept, whether a spec replaces, what happens after readiness."""

import pytest

from ansible_collections.ascend.vllm.plugins.module_utils.serve._keep import previous_name, served_model_name
from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._keep import (
    after_ready, container_state, keep_plan, replaces, restore_note,
)

OURS = {'ascend.vllm.managed-by': 'ascend.vllm', 'ascend.vllm.instance': 'default'}
# npu_check's view (node_facts) and docker_container_info's of the same serving container.
SERVING = {'exists': True, 'running': True, 'restarting': False, 'labels': OURS}
SERVING_INFO = {'exists': True, 'container': {'State': {'Running': True, 'Restarting': False},
                                              'Config': {'Labels': OURS}}}
NO_PREVIOUS = {'exists': False, 'container': None}
KEPT = {'exists': True, 'container': {'State': {'Running': False, 'Status': 'exited'}, 'Config': {'Labels': OURS}}}
RECREATE = {'changed': True, 'actions': [{'removed': 'abc'}, {'created': 'Created container'}, {'started': 'x'}]}
UPDATE = {'changed': True, 'actions': [{'updated': 'abc', 'update_parameters': {'RestartPolicy': {}}}]}
SAME = {'changed': False, 'actions': []}


def test_the_kept_name_has_a_fixed_suffix():
    assert previous_name('vllm-ascend-a') == 'vllm-ascend-a-previous'


@pytest.mark.parametrize('found', [SERVING, SERVING_INFO])
def test_both_shapes_of_a_container_read_alike(found):
    assert container_state(found) == {'exists': True, 'running': True, 'restarting': False, 'ours': True,
                                      'instance': 'default'}


@pytest.mark.parametrize('found', [None, {}, {'exists': False}, 'text', {'exists': True, 'container': None}])
def test_anything_else_is_a_container_that_is_not_ours_or_none(found):
    assert not container_state(found)['ours']


@pytest.mark.parametrize('probe, expected', [
    (RECREATE, True),
    (UPDATE, False),
    (SAME, False),
    ({'changed': True, 'actions': [{'started': 'abc'}]}, False),
    ({'skipped': True, 'changed': False}, False),
    ({'failed': True, 'actions': [{'created': 'x'}]}, False),
    (None, False),
])
def test_only_a_re_creation_replaces(probe, expected):
    assert replaces(probe) is expected


def test_a_serving_container_is_probed_then_kept_when_the_spec_replaces_it():
    before = keep_plan(SERVING, NO_PREVIOUS)
    assert before['probe'] and not before['keep'] and not before['kept']
    after = keep_plan(SERVING, NO_PREVIOUS, True, RECREATE)
    assert after['keep'] and after['kept'] and not after['leftover']


@pytest.mark.parametrize('probe, unchanged', [
    (UPDATE, False), (SAME, True), ({'skipped': True}, False), ({'failed': True, 'msg': 'x'}, False),
])
def test_nothing_is_kept_when_the_container_stays(probe, unchanged):
    plan = keep_plan(SERVING_INFO, NO_PREVIOUS, True, probe)
    assert plan['probe'] and not plan['keep'] and not plan['kept']
    # Only a probe that found nothing to do spares the real call.
    assert plan['unchanged'] is unchanged


def test_a_replacing_probe_is_not_unchanged():
    assert not keep_plan(SERVING, NO_PREVIOUS, True, RECREATE)['unchanged']


@pytest.mark.parametrize('existing, why', [
    (None, 'first deploy'),
    ({'exists': False}, 'first deploy'),
    (dict(SERVING, running=False), 'not serving'),
    (dict(SERVING, restarting=True), 'not serving'),
    (dict(SERVING, labels={'maintainer': 'someone'}), 'not created by ascend.vllm'),
])
def test_nothing_to_keep_is_not_probed(existing, why):
    plan = keep_plan(existing, NO_PREVIOUS, True, RECREATE)
    assert not (plan['probe'] or plan['keep'] or plan['kept'])
    assert why in plan['why']


def test_a_kept_container_of_an_interrupted_run_is_the_one_to_come_back_to():
    for existing in (None, SERVING):
        plan = keep_plan(existing, KEPT, True, RECREATE)
        assert plan['leftover'] and plan['kept'] and not plan['probe'] and not plan['keep']


def test_a_foreign_container_under_the_kept_name_keeps_nothing():
    foreign = {'exists': True, 'container': {'State': {'Running': False}, 'Config': {'Labels': {}}}}
    plan = keep_plan(SERVING, foreign, True, RECREATE)
    assert not (plan['probe'] or plan['keep'] or plan['kept'] or plan['leftover'])


def test_turned_off_keeps_nothing():
    plan = keep_plan(SERVING, KEPT, False, RECREATE)
    assert not (plan['probe'] or plan['keep'] or plan['kept'] or plan['leftover'])
    assert 'turned off' in plan['why']


@pytest.mark.parametrize('previous, failed, check_mode, expected', [
    ('vllm-ascend-previous', False, False, 'drop'),
    ('vllm-ascend-previous', True, False, 'restore'),
    ('vllm-ascend-previous', 'True', 'False', 'restore'),
    ('vllm-ascend-previous', True, True, 'none'),
    ('', True, False, 'none'),
    (None, False, False, 'none'),
])
def test_after_ready(previous, failed, check_mode, expected):
    assert after_ready(previous, failed, check_mode) == expected


@pytest.mark.parametrize('argv, expected', [
    (['vllm', 'serve', 'Qwen/Qwen3.5-2B', '--served-model-name', 'qwen3.5', '--port', '8080'], 'qwen3.5'),
    (['vllm', 'serve', 'Qwen/Qwen3.5-2B', '--served_model_name=qwen-a', 'qwen-b'], 'qwen-a'),
    (['vllm', 'serve', 'Qwen/Qwen3.5-2B', '--served-model-name', 'one', 'two'], 'one'),
    (['vllm', 'serve', '/models/qwen', '--port', '8080'], '/models/qwen'),
    (['vllm', 'serve', '--port', '8080'], 'fallback'),
    (None, 'fallback'),
    ('vllm serve x', 'fallback'),
])
def test_served_model_name(argv, expected):
    assert served_model_name(argv, 'fallback') == expected


@pytest.mark.parametrize('after, restored, expected', [
    ('none', None, ''),
    ('drop', {'state': 'ready'}, ''),
    ('restore', {'state': 'ready'}, ' It was removed and the previous container was restored: it serves again (same '
                                    'container, image and settings as before this run); fix the change and run again.'),
    ('restore', {'state': 'timeout', 'error': 'no 200 from /health within 60s'},
     ' It was removed and the previous container was restored, but does not serve either: '
     'no 200 from /health within 60s.'),
    ('restore', {'state': 'crashed', 'error': 'vLLM crashed while starting'},
     ' It was removed and the previous container was restored, but does not serve either: '
     'vLLM crashed while starting. It is stopped and kept with its logs.'),
    ('restore', None, ' It was removed and the previous container was restored, but does not serve either: '
                      'it was not checked.'),
])
def test_restore_note(after, restored, expected):
    assert restore_note(after, restored) == expected


def test_another_instances_container_under_the_kept_name_is_not_ours_to_keep_or_drop():
    # Instances "a" (vllm-ascend-a) and "a-previous" (vllm-ascend-a-previous, running) on one host.
    other = {'exists': True, 'running': True, 'restarting': False,
             'labels': dict(OURS, **{'ascend.vllm.instance': 'a-previous'})}
    plan = keep_plan(SERVING, other, True, RECREATE, 'a')
    assert not (plan['probe'] or plan['keep'] or plan['kept'] or plan['leftover'])
    assert 'belongs to instance a-previous' in plan['why']
    # Its own kept container is recognised by the same label.
    mine = dict(other, running=False, labels=dict(OURS, **{'ascend.vllm.instance': 'a'}))
    assert keep_plan(SERVING, mine, True, None, 'a')['leftover']


def test_after_ready_and_the_restore_note():
    assert after_ready('vllm-ascend-previous', True) == 'restore'
    assert after_ready('vllm-ascend-previous', False, False) == 'drop'
    assert after_ready('', True) == 'none' and after_ready('x', True, True) == 'none'
    assert served_model_name(['vllm', 'serve', 'm', '--served-model-name', 'qwen3.5']) == 'qwen3.5'
    assert served_model_name([], 'qwen3.5') == 'qwen3.5'
    assert restore_note('drop', {'state': 'ready'}) == '' and restore_note('none') == ''
    assert 'restored: it serves again' in restore_note('restore', {'state': 'ready'})


# Moved from tests/unit/plugins/filter/test_container_keep.py: the filter ascend.vllm.container_keep is gone
# (0.3.0); ascend.vllm.container_ensure calls keep_plan, which reads the switch as Ansible does.
def test_keep_plan_reads_the_switch_as_ansible_does():
    serving = {'exists': True, 'running': True, 'restarting': False, 'labels': {'ascend.vllm.managed-by': 'ascend.vllm'}}
    none = {'exists': False}
    probe = {'changed': True, 'actions': [{'created': 'x'}]}
    assert keep_plan(serving, none, 'yes', probe)['keep']
    assert not keep_plan(serving, none, 'no', probe)['keep']
    assert keep_plan(serving, none)['probe'] and not keep_plan(serving, none)['keep']


# ------------------------------------------------------------------ the readiness outcome (was Jinja in ready_instance.yml)
from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._keep import (  # noqa: E402 pylint: disable=wrong-import-position
    STATES_NOT_THERE, failure_message, ready_outcome)
# What vllm_ready answers: the wait's end states ("ready" the only success).
STATES = ('ready', 'crashed', 'exited', 'gone', 'absent', 'not_running', 'timeout',
          'not_listed', 'request_failed', 'smoke_failed')


@pytest.mark.parametrize('state', STATES + STATES_NOT_THERE + ('waiting', 'error'))
@pytest.mark.parametrize('check_mode', [False, True])
@pytest.mark.parametrize('after', ['none', 'drop', 'restore'])
def test_the_outcome_of_every_state(state, check_mode, after):
    out = ready_outcome(state, check_mode, after)
    assert out['skip'] == (check_mode and state in STATES_NOT_THERE)
    assert out['failed'] == (not out['skip'] and state != 'ready')
    # Only a crash outside check mode, with no kept container to put back, is stopped.
    assert out['crashed'] == (state == 'crashed' and not check_mode and after != 'restore')


@pytest.mark.parametrize('service, crashed, after, says', [
    (False, True, 'none', 'is not serving. Load the model: boom. The container is stopped and kept with its logs; the '
                          'next run starts it again. The container\'s last 50 log lines are shown above. Saved.'),
    (True, True, 'none', 'is not serving. Load the model: boom. The service is stopped; the journal keeps its log; the '
                         'next run starts it again. The service\'s last 50 log lines are shown above. Saved.'),
    (False, False, 'restore', 'did not take the change. Load the model: boom. The changed container\'s last 50 log '
                              'lines are shown above. Saved.'),
])
def test_the_failure_message(service, crashed, after, says):
    result = {'name': 'vllm-ascend', 'url': 'http://127.0.0.1:8080', 'task': 'Load the model', 'reason': 'boom',
              'after': after, 'log_note': ' Saved.', 'outcome': {'crashed': crashed}}
    assert failure_message(result, 'default', 'n1', service, 50) == (
        'Instance default (vllm-ascend, http://127.0.0.1:8080) on n1 ' + says)
