# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""image_ensure: the attempts, retries, "not found" and tarball rules, with what runs on the node recorded.

The Docker Engine's answers are given per reference; the action decides which module runs
next. Hypothesis draws the registries' answers: the action must stop at the first pull that
works, never ask a reference again once it answered "not found", try every other reference
``retries`` times, and name every reference in its failure.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from unittest import mock

import pytest
from hypothesis import given, settings as hsettings, strategies as st

from ansible_collections.ascend.vllm.plugins.action import image_ensure as action_module

NOT_FOUND = '404 Client Error: Not Found ("manifest unknown")'
TIMEOUT = 'Get "https://r/v2/": dial tcp: i/o timeout'


def _action(args, check_mode=False):
    task = mock.MagicMock()
    task.check_mode = check_mode
    task.args = dict(args)
    task.async_val = 0
    connection = mock.MagicMock()
    return action_module.ActionModule(task, connection, mock.MagicMock(), loader=None, templar=None,
                                      shared_loader_obj=None)


def _run(args, answers, check_mode=False, present=()):
    """Run the action; ``answers`` maps a reference to the list of its attempts' outcomes (None: pulled)."""
    calls = []
    queue = dict((ref, list(outcomes)) for ref, outcomes in answers.items())

    def outcome(ref):
        left = queue.get(ref) or [None]
        value = left.pop(0) if len(left) > 1 else left[0]
        return {'changed': True, 'image': {'Id': 'sha256:' + 'a' * 64}} if value is None else {'failed': True, 'msg': value}

    def module(name, module_args, task_vars):
        calls.append((name, dict(module_args)))
        if name == 'community.docker.docker_image_pull':
            return outcome(module_args['name'])
        if name == 'ascend.vllm.image_pull_wait':
            return {'finished': True, 'answer': outcome(module_args['name'])}
        if name == 'community.docker.docker_image_info':
            return {'images': [{'RepoTags': [ref]} for ref in present]}
        if name == 'community.docker.docker_image_load':
            return {'changed': True, 'image_names': ['haproxy:2.6', 'mirror/haproxy:2.6']}
        return {}

    action = _action(args, check_mode)
    action._module = module
    action._background_pull = lambda ref, policy, timeout, task_vars: (
        calls.append(('start', {'name': ref})) or {'ansible_job_id': 'j1', 'results_file': '/r/j1'})
    action._cleanup = lambda job, task_vars: calls.append(('cleanup', {'jid': job['ansible_job_id']}))
    action._transfer_file = lambda local, remote: calls.append(('transfer', {'src': local, 'dest': remote}))
    action._find_needle = lambda kind, path: path
    action._remove_tmp_path = lambda path: None
    with mock.patch.object(action_module.time, 'sleep', lambda seconds: calls.append(('sleep', {'s': seconds}))):
        result = action.run(task_vars={'inventory_hostname': 'n1'})
    return result, calls


def _starts(calls):
    return [args['name'] for name, args in calls if name == 'start']


def test_the_first_reference_that_gives_the_image_wins():
    result, calls = _run({'candidates': ['m/a:t', 'q/a:t'], 'retries': 2, 'delay': 3},
                         {'m/a:t': [TIMEOUT, TIMEOUT], 'q/a:t': [None]})
    assert (result.get('failed'), result['ref'], result['changed']) == (None, 'q/a:t', True)
    assert _starts(calls) == ['m/a:t', 'm/a:t', 'q/a:t']
    assert [args['s'] for name, args in calls if name == 'sleep'] == [3.0]
    assert [e['reason'] for e in result['errors']] == ['Get "https://r/v2/": dial tcp: i/o timeout'] * 2
    # Every background job's files are cleaned up, the failed ones too.
    assert len([c for c in calls if c[0] == 'cleanup']) == 3


def test_not_found_is_final_and_named_in_the_fix():
    result, calls = _run({'candidates': ['m/a:t', 'q/a:t'], 'retries': 3, 'image_tag': 't',
                          'inputs': {'image_pull_tag': 'v9', 'image_pull_repository': 'a'}},
                         {'m/a:t': [NOT_FOUND], 'q/a:t': [NOT_FOUND]})
    assert result['failed'] and _starts(calls) == ['m/a:t', 'q/a:t']
    assert 'not found' in result['msg'] and 'check image_pull_tag (v9' in result['msg']
    assert not [c for c in calls if c[0] == 'sleep']


def test_check_mode_asks_in_the_foreground():
    result, calls = _run({'candidates': ['m/a:t']}, {'m/a:t': [None]}, check_mode=True)
    assert result['ref'] == 'm/a:t' and not _starts(calls)
    assert [name for name, _args in calls] == ['community.docker.docker_image_pull']


@pytest.mark.parametrize('args, problem', [
    ({'candidates': []}, 'candidates=[]'),
    ({'candidates': ['a'], 'retries': 0}, 'retries=0'),
    ({'candidates': ['a'], 'policy': 'missing'}, "policy='missing'"),
    ({'candidates': ['a'], 'timeout': 'soon'}, "timeout='soon'"),
])
def test_bad_arguments_name_the_argument(args, problem):
    result, calls = _run(args, {})
    assert result['failed'] and result['msg'].startswith(problem) and calls == []


def test_a_tarball_is_copied_loaded_and_removed_unless_the_image_is_there():
    args = {'candidates': ['mirror/haproxy:2.6'], 'archive': '/srv/haproxy.tar', 'archive_dir': '/var/tmp/x'}
    result, calls = _run(args, {})
    assert result['ref'] == 'mirror/haproxy:2.6' and result['changed']
    names = [name for name, _args in calls]
    assert names == ['community.docker.docker_image_info', 'ansible.legacy.file', 'transfer', 'ansible.legacy.file',
                     'community.docker.docker_image_load', 'ansible.legacy.file']
    assert calls[2][1] == {'src': '/srv/haproxy.tar', 'dest': '/var/tmp/x/haproxy.tar'}
    assert calls[-1][1] == {'path': '/var/tmp/x/haproxy.tar', 'state': 'absent'}
    again, calls = _run(args, {}, present=['mirror/haproxy:2.6'])
    assert (again['ref'], again['changed']) == ('mirror/haproxy:2.6', False)
    assert [name for name, _args in calls] == ['community.docker.docker_image_info']


ANSWER = st.sampled_from([None, NOT_FOUND, TIMEOUT])


@hsettings(max_examples=200, deadline=None)
@given(st.lists(st.lists(ANSWER, min_size=1, max_size=4), min_size=1, max_size=3), st.integers(1, 3))
def test_the_attempts_follow_the_rules_for_any_answers(answer_lists, retries):
    refs = ['r%d/a:t' % index for index in range(len(answer_lists))]
    answers = dict(zip(refs, answer_lists))
    result, calls = _run({'candidates': refs, 'retries': retries, 'delay': 1}, answers)
    started = _starts(calls)
    for ref in refs:
        tries = [r for r in started if r == ref]
        errors = [e for e in result['errors'] if e['ref'] == ref]
        # Once "not found", never again; otherwise at most `retries` attempts.
        if any(e['missing'] for e in errors):
            assert errors[-1]['missing'] and len([e for e in errors if e['missing']]) == 1
        assert len(tries) <= retries
    if result.get('failed'):
        assert result['ref'] is None and all(ref in result['msg'] for ref in refs)
    else:
        # The first success ends it: nothing is tried after it.
        assert started[-1] == result['ref']
        assert refs.index(result['ref']) == max(refs.index(r) for r in started)
