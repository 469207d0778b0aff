# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""image_ensure: the attempts, retries, "not found" and tarball rules, with what runs on the node recorded.

The Docker Engine's answers are given per reference; the action decides which module runs
next. Hypothesis draws the registries' answers: the action must stop at the first pull that
works, never ask a reference again once it answered "not found", try every other reference
``retries`` times, and name every reference in its failure.
"""

import itertools
import threading
from unittest import mock

import pytest
from hypothesis import given, settings as hsettings, strategies as st

from ansible_collections.ascend.vllm.plugins.action import image_ensure as action_module

NOT_FOUND = '404 Client Error: Not Found ("manifest unknown")'
TIMEOUT = 'Get "https://r/v2/": dial tcp: i/o timeout'


def _action(args, check_mode=False, diff=False):
    task = mock.MagicMock()
    task.check_mode = check_mode
    task.diff = diff
    task.args = dict(args)
    task.async_val = 0
    connection = mock.MagicMock()
    return action_module.ActionModule(task, connection, mock.MagicMock(), loader=None, templar=None,
                                      shared_loader_obj=None)


def _run(args, answers, check_mode=False, present=(), node=None):
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
        if name == 'ascend.vllm.image_pull_wait' and module_args.get('archive'):
            waits = (node or {}).get('load_waits') or []
            if waits:
                return {'finished': False, 'progress': waits.pop(0)}
            return {'finished': True, 'answer': {'changed': True, 'image_names': ['haproxy:2.6', 'mirror/haproxy:2.6']},
                    'cleaned': module_args.get('cleanup')}
        if name == 'ascend.vllm.image_pull_wait' and (node or {}).get('pull_never_ends'):
            return {'finished': False, 'progress': None}
        if name == 'ascend.vllm.image_pull_wait':
            # Like the module: the run that sees the job end removes its results file when asked to.
            return {'finished': True, 'answer': outcome(module_args['name']), 'cleaned': module_args.get('cleanup')}
        if name == 'community.docker.docker_image_info':
            return {'images': [{'RepoTags': [ref]} for ref in present]}
        if name == 'community.docker.docker_image_load':
            return {'changed': True, 'image_names': ['haproxy:2.6', 'mirror/haproxy:2.6']}
        if name == 'community.docker.docker_host_info':
            return (node or {}).get('host_info', {'images': [{'RepoTags': [ref]} for ref in present]})
        if name == 'ansible.legacy.stat':
            sizes = (node or {}).get('sizes', {})
            if module_args['path'] in sizes:
                return {'stat': {'exists': True, 'isreg': True, 'size': sizes[module_args['path']]}}
            return {'stat': {'isreg': module_args['path'] in (node or {}).get('files', ())}}
        if name == 'community.docker.docker_image_remove':
            return {'changed': not check_mode}
        return {}

    action = _action(args, check_mode, (node or {}).get('diff', False))
    action._connection.transport = (node or {}).get('transport', 'ssh')
    action._module = module

    def background(name, module_args, timeout, task_vars):
        # The async jobs the action starts: a pull ('start'), or a load under its module's name.
        calls.append(('start', {'name': module_args['name']}) if name == 'community.docker.docker_image_pull'
                     else (name, dict(module_args)))
        return {'ansible_job_id': 'j1', 'results_file': '/r/j1'}

    action._background = background
    action._cleanup = lambda job, task_vars: calls.append(('cleanup', {'jid': job['ansible_job_id']}))
    action._transfer_file = (node or {}).get('transfer') or (
        lambda local, remote: calls.append(('transfer', {'src': local, 'dest': remote})))
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
    # Every background job's files are cleaned up, the failed ones too: by the wait that saw the job end.
    assert [args['cleanup'] for name, args in calls if name == 'ascend.vllm.image_pull_wait'] == [True] * 3
    assert 'cleanup' not in _names(calls)


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
    # Types and choices are ARGUMENT_SPEC's, in AnsibleModule's words (as the module's own would read).
    ({'candidates': ['a'], 'policy': 'missing'}, 'value of policy must be one of: not_present, always, got: missing'),
    ({'candidates': ['a'], 'timeout': 'soon'}, "argument 'timeout' is of type"),
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
                     'community.docker.docker_image_load', 'ascend.vllm.image_pull_wait', 'ansible.legacy.file']
    assert calls[5][1]['archive'] == '/var/tmp/x/haproxy.tar' and calls[5][1]['results_file'] == '/r/j1'
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


# --- without candidates: the image_pull role's whole phase from its variables ---

INPUTS = {
    'image_pull_registries': ['m', 'q'], 'image_pull_repository': 'a/v', 'image_pull_tag': 'v0.23.0',
    'image_pull_tag_suffix': None, 'image_pull_digest': '', 'image_pull_image': '', 'image_pull_retries': 2,
    'image_pull_delay': 1, 'image_pull_timeout': 60, 'image_pull_poll_interval': 15, 'image_pull_archive': '',
    'image_pull_archive_on_node': False, 'image_pull_archive_dir': '/var/tmp/x', 'image_pull_offline': False,
    'image_pull_policy': 'not_present'}
ROLE = {'inputs': INPUTS, 'platform': 'atlas_300i_duo', 'retries': 2, 'delay': 1, 'timeout': 60}
M, Q = 'm/a/v:v0.23.0-310p', 'q/a/v:v0.23.0-310p'


def _names(calls):
    return [name for name, _args in calls]


def test_inputs_present_image_is_not_pulled_and_the_node_is_asked_once():
    result, calls = _run(ROLE, {}, present=[Q])
    assert (result.get('failed'), result['ref'], result['present'], result['needed'], result['changed']) == (
        None, Q, True, False, False)
    assert result['candidates'] == [M, Q] and result['image_tag'] == 'v0.23.0-310p'
    assert _names(calls) == ['community.docker.docker_host_info']


def test_inputs_missing_image_is_pulled_from_the_first_registry_that_gives_it():
    result, calls = _run(ROLE, {M: [TIMEOUT, TIMEOUT], Q: [None]})
    assert (result.get('failed'), result['ref'], result['changed'], result['stage']) == (None, Q, True, 'ensured')
    assert _starts(calls) == [M, M, Q]


def test_a_pull_hands_on_the_image_s_configuration_and_needs_no_module_run_to_clean_up():
    result, calls = _run(ROLE, {M: [None]})
    assert result['config'] == {'image': M, 'id': 'sha256:' + 'a' * 64, 'env': [], 'architecture': ''}
    assert 'cleanup' not in _names(calls)
    present, _calls = _run(ROLE, {}, present=[Q])
    assert present['config'] is None


def test_a_wait_that_did_not_see_the_job_end_leaves_the_cleanup_to_async_status():
    clock = itertools.count(0.0, 0.4)
    with mock.patch.object(action_module.time, 'monotonic', lambda: next(clock)):
        result, calls = _run(dict(ROLE, timeout=1, retries=1), {}, node={'pull_never_ends': True})
    assert result['failed'] and 'did not end within image_pull_timeout' in result['msg']
    assert _names(calls).count('cleanup') == _starts(calls).__len__() == 2


def test_inputs_node_images_given_save_the_look_at_the_node():
    result, calls = _run(dict(ROLE, node_images=[M]), {})
    assert result['ref'] == M and 'community.docker.docker_host_info' not in _names(calls)


def test_wrong_inputs_fail_with_every_problem_before_the_node_changes():
    result, calls = _run(dict(ROLE, inputs=dict(INPUTS, image_pull_retries=0, image_pull_offline=True)), {})
    assert result['failed'] and result['stage'] == 'inputs'
    assert result['msg'].startswith('2 image problem(s) on n1; nothing was pulled:')
    assert 'image_pull_retries' in result['msg'] and 'nothing can pull it' in result['msg']
    assert _starts(calls) == [] and 'community.docker.docker_image_load' not in _names(calls)


def test_no_platform_profile_names_the_variable_and_asks_nothing():
    result, calls = _run(dict(ROLE, platform='atlas_9000'), {})
    assert result['failed'] and result['msg'].startswith(
        'No platform profile for n1, so no image tag suffix: [platform] ascend_vllm_platform="atlas_9000"')
    assert calls == []
    # A suffix of one's own needs no profile.
    result, _calls = _run(dict(ROLE, platform='atlas_9000', inputs=dict(INPUTS, image_pull_tag_suffix='-x')), {},
                          present=['q/a/v:v0.23.0-x'])
    assert (result.get('failed'), result['ref']) == (None, 'q/a/v:v0.23.0-x')


def test_resolved_changes_nothing_even_when_the_image_is_missing():
    result, calls = _run(dict(ROLE, state='resolved'), {M: [None]})
    assert (result.get('failed'), result['ref'], result['present'], result['needed']) == (None, M, False, True)
    assert _starts(calls) == []


def test_absent_removes_every_local_name_of_the_image():
    result, calls = _run(dict(ROLE, state='absent'), {}, present=[Q, 'mirror.local/a/v:v0.23.0-310p'])
    assert result['changed'] and result['removed'] == [Q, 'mirror.local/a/v:v0.23.0-310p']
    assert [args['name'] for name, args in calls if name == 'community.docker.docker_image_remove'] == result['removed']


def test_tarball_said_on_node_is_looked_for_there():
    role = dict(ROLE, inputs=dict(INPUTS, image_pull_archive='/srv/v.tar', image_pull_archive_on_node=True),
                archive='/srv/v.tar', archive_on_node=True)
    missing, calls = _run(role, {})
    assert missing['failed'] and missing['stage'] == 'inputs' and '/srv/v.tar' in missing['msg']
    assert 'community.docker.docker_image_load' not in _names(calls)
    there, calls = _run(role, {}, node={'files': ['/srv/v.tar']})
    assert (there.get('failed'), there['stage']) == (None, 'ensured')
    assert ('community.docker.docker_image_load', {'path': '/srv/v.tar'}) in calls


@hsettings(max_examples=60, deadline=None)
@given(on_node=st.sampled_from([(), (M,), (Q,)]), policy=st.sampled_from(['not_present', 'always']),
       answers=st.lists(st.sampled_from([None, TIMEOUT, NOT_FOUND]), min_size=1, max_size=3))
def test_inputs_pull_only_what_is_missing_for_any_node(on_node, policy, answers):
    """Whatever the node holds and the registries answer: nothing is started when the image is there and the policy
    keeps it; otherwise the first registry is asked first, and the ref returned is one of the candidates."""
    role = dict(ROLE, policy=policy, inputs=dict(INPUTS, image_pull_policy=policy))
    result, calls = _run(role, {M: answers, Q: answers}, present=on_node)
    assert result['ref'] in (M, Q)
    if on_node and policy == 'not_present':
        assert _starts(calls) == [] and not result['changed'] and not result['needed']
    else:
        assert _starts(calls)[0] == M and result['needed']


def test_a_load_prints_how_much_of_the_archive_the_engine_has_been_sent():
    """docker load runs as an async job; each unfinished wait prints one line with the bytes sent so far."""
    args = {'candidates': ['mirror/haproxy:2.6'], 'archive': '/srv/haproxy.tar', 'archive_dir': '/var/tmp/x',
            'report_after': 5}
    waits = [{'archive': '/var/tmp/x/haproxy.tar', 'size': 8000000000, 'read': 2000000000},
             {'archive': '/var/tmp/x/haproxy.tar', 'size': 8000000000, 'read': 8000000000},
             {'archive': '/var/tmp/x/haproxy.tar', 'size': 8000000000, 'read': None}]
    shown = []
    with mock.patch.object(action_module.display, 'display', lambda msg, **kwargs: shown.append(msg)):
        result, _calls = _run(args, {}, node={'load_waits': waits})
    assert result['ref'] == 'mirror/haproxy:2.6' and result['changed']
    assert len(shown) == 3
    assert shown[0].startswith('[n1] loading /var/tmp/x/haproxy.tar: 2 GB of 8 GB sent to the Docker Engine (25%); ')
    assert shown[1].startswith('[n1] loading /var/tmp/x/haproxy.tar: all 8 GB sent; the Docker Engine registers its '
                               'layers; ')
    assert 'sent whole while the Docker Engine registers its layers' in shown[2]
    assert all('elapsed, timeout in' in line for line in shown)


def test_the_copy_to_the_node_prints_how_much_of_the_archive_the_connection_has_read(tmp_path):
    """The connection's transfer says nothing while it runs; the offset of the open archive (this process's own
    /proc here, as the docker connection's dd or ssh's sftp on a controller) is printed every report_after seconds."""
    archive = tmp_path / 'vllm.tar'
    archive.write_bytes(b'x' * 4000000)
    shown, seen = [], threading.Event()

    def display(msg, **kwargs):
        shown.append(msg)
        seen.set()

    def transfer(local, remote):
        assert (local, remote) == (str(archive), '/var/tmp/x/vllm.tar')
        with open(local, 'rb') as handle:
            handle.read(1000000)
            assert seen.wait(10)
            seen.clear()
            handle.read()
            assert seen.wait(10)

    args = {'candidates': ['mirror/haproxy:2.6'], 'archive': str(archive), 'archive_dir': '/var/tmp/x', 'report_after': 1}
    with mock.patch.object(action_module.display, 'display', display):
        result, calls = _run(args, {}, node={'transfer': transfer})
    assert result['ref'] == 'mirror/haproxy:2.6' and result['changed']
    copies = [line for line in shown if line.startswith('[n1] copying ')]
    assert copies[0].startswith('[n1] copying %s to the node as /var/tmp/x/vllm.tar: 1 MB of 4 MB sent (25%%); '
                                % archive), copies
    assert copies[1].startswith('[n1] copying %s to the node as /var/tmp/x/vllm.tar: all 4 MB read; the node writes '
                                'the last of it; ' % archive), copies
    assert all(line.endswith(' elapsed') for line in copies)
    # Once the transfer has returned no copy line follows: the load comes next.
    assert len(copies) == 2 and 'community.docker.docker_image_load' in [name for name, _args in calls]


@pytest.mark.parametrize('check_mode', [False, True])
@pytest.mark.parametrize('cleanup, there, shown', [
    (False, None, [('/var/tmp/x/vllm.tar (absent)', '', '/var/tmp/x/vllm.tar', '<docker save archive, 5 bytes>\n')]),
    (False, 9, [('/var/tmp/x/vllm.tar', '<docker save archive, 9 bytes>\n', '/var/tmp/x/vllm.tar',
                 '<docker save archive, 5 bytes>\n')]),
    (False, 5, []),
    (True, None, []),
    (True, 9, [('/var/tmp/x/vllm.tar', '<docker save archive, 9 bytes>\n', '/var/tmp/x/vllm.tar (absent)', '')]),
])
def test_diff_shows_the_tarball_the_copy_leaves_on_the_node(tmp_path, check_mode, cleanup, there, shown):
    archive = tmp_path / 'vllm.tar'
    archive.write_bytes(b'12345')
    args = {'candidates': ['mirror/haproxy:2.6'], 'archive': str(archive), 'archive_dir': '/var/tmp/x',
            'archive_cleanup': cleanup}
    node = {'diff': True, 'sizes': {'/var/tmp/x/vllm.tar': there} if there is not None else {}}
    result, _calls = _run(args, {}, check_mode=check_mode, node=node)
    assert result['changed']
    assert [(e['before_header'], e['before'], e['after_header'], e['after']) for e in result.get('diff', [])] == shown


def test_without_diff_the_node_is_not_asked_about_the_tarball(tmp_path):
    archive = tmp_path / 'vllm.tar'
    archive.write_bytes(b'12345')
    result, calls = _run({'candidates': ['mirror/haproxy:2.6'], 'archive': str(archive), 'archive_dir': '/var/tmp/x'},
                         {})
    assert 'diff' not in result and 'ansible.legacy.stat' not in [name for name, _args in calls]


def test_over_the_local_connection_the_copy_s_own_size_is_what_has_been_sent(tmp_path):
    """ansible.builtin.local copies with sendfile at explicit offsets: the archive's descriptor stays at 0, so the
    line reads the copy (the node is this machine)."""
    archive, copy = tmp_path / 'vllm.tar', tmp_path / 'node' / 'vllm.tar'
    archive.write_bytes(b'x' * 4000000)
    copy.parent.mkdir()
    shown, seen = [], threading.Event()

    def display(msg, **kwargs):
        shown.append(msg)
        seen.set()

    def transfer(local, remote):
        with open(local, 'rb') as source, open(remote, 'wb') as dest:
            dest.write(b'x' * 3000000)
            dest.flush()
            assert seen.wait(10)
            dest.write(source.read()[3000000:])

    args = {'candidates': ['mirror/haproxy:2.6'], 'archive': str(archive), 'archive_dir': str(copy.parent),
            'report_after': 1}
    with mock.patch.object(action_module.display, 'display', display):
        _run(args, {}, node={'transfer': transfer, 'transport': 'local'})
    copies = [line for line in shown if line.startswith('[n1] copying ')]
    assert copies[0].startswith('[n1] copying %s to the node as %s: 3 MB of 4 MB sent (75%%); ' % (archive, copy))
