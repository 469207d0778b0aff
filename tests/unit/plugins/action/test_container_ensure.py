# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""container_ensure: the container_run role's steps, in order, with what runs on the node recorded.

``_execute_module`` is faked by a small node (its containers, its cache directory, what
docker_container answers); each call is recorded with the check mode and no_log it ran
with. Hypothesis draws secret-named environment variables: their values never reach the
returned result, its message or its diff.
"""

import json
import os
import string
from unittest import mock

import pytest
import yaml
from hypothesis import assume, given, settings as hsettings, strategies as st

from ansible_collections.ascend.vllm.plugins.action import container_ensure as action_module
from ansible_collections.ascend.vllm.plugins.module_utils._redact import secret_name
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.platforms import get_profile
from ansible_collections.ascend.vllm.plugins.module_utils.serve._container_run import INPUT_OPTIONS
from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._container_run import MISSING_FIX

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..', '..'))
DOCKER = 'community.docker.docker_container'
OURS = {'ascend.vllm.managed-by': 'ascend.vllm', 'ascend.vllm.instance': 'default'}
KEY = 'sk-0123456789abcdef-secret'
RECREATE = {'changed': True, 'actions': [{'removed': 'abc'}, {'created': 'Created container'}, {'started': 'x'}]}
SAME = {'changed': False, 'actions': []}
DRAIN = {'socket': '/var/lib/ascend-vllm/balancer/run/admin.sock', 'backend': 'qwen', 'server': 'a', 'timeout': 60}


def _inspect(env, running=True, labels=None):
    return {'Id': 'c' * 64, 'State': {'Running': running, 'Restarting': False},
            'Config': {'Labels': dict(OURS if labels is None else labels),
                       'Env': ['%s=%s' % item for item in sorted(env.items())]}}


class Node(object):
    """What the node answers, and every module run on it: (module, args, check_mode, no_log)."""

    def __init__(self, containers=None, cache=True, probe=None, refuse=None, fail=None):
        self.containers = dict(containers or {})
        self.cache, self.probe, self.refuse, self.fail = cache, probe or SAME, refuse, dict(fail or {})
        self.calls = []

    def execute(self, action):
        def run(module_name=None, module_args=None, task_vars=None, **_kwargs):
            check = bool(action._task.check_mode)
            self.calls.append((module_name, dict(module_args), check, bool(action._task.no_log)))
            if module_name in self.fail:
                return {'failed': True, 'msg': self.fail[module_name]}
            return self.answer(module_name, module_args, check)
        return run

    def answer(self, module, args, check):
        if module == 'ansible.legacy.stat':
            return {'stat': {'exists': self.cache}}
        if module == 'ansible.legacy.file':
            return {'changed': True, 'path': args['path']}
        if module == 'community.docker.docker_image_info':
            return {'images': [{'Config': {'Env': ['LD_LIBRARY_PATH=/usr/local/lib']}, 'Architecture': 'arm64'}]}
        if module == 'community.docker.docker_container_info':
            found = self.containers.get(args['name'])
            return {'exists': found is not None, 'container': found}
        if module in ('ascend.vllm.container_rename', 'ascend.vllm.balancer_server'):
            return {'changed': True, 'drain': module.endswith('server'), 'found': True}
        return self.docker(args, check)

    def docker(self, args, check):
        """docker_container: it echoes the environment (inspect, diff, invocation) as the real one does."""
        env = args.get('env') or {}
        shown = {'container': _inspect(env), 'invocation': {'module_args': dict(args)},
                 'diff': {'before': {'env': env}, 'after': {'env': env}}}
        if args['state'] != 'started':
            return dict(shown, changed=True)
        if check:
            return dict(shown, **self.probe)
        if self.refuse and 'image' in args:
            # The real call, not the restore's start (which gives only the name).
            return {'failed': True, 'msg': self.refuse % env, 'invocation': shown['invocation']}
        return dict(shown, changed=True, actions=[{'created': 'Created container'}, {'started': 'x'}])


def _inputs(**changes):
    inputs = dict((name, option.get('default')) for name, option in INPUT_OPTIONS.items())
    inputs.update({
        'container_run_image': 'quay.io/ascend/vllm-ascend:v0.23.0rc1-310p',
        'container_run_command': ['vllm', 'serve', 'Qwen/Qwen3.5-2B', '--port', '8080'],
        'container_run_profile': get_profile('atlas_300i_duo'),
        'container_run_env': {'VLLM_API_KEY': KEY},
        'container_run_keep_previous': True,
    })
    inputs.update(changes)
    return inputs


def _run(node, check_mode=False, diff=False, **changes):
    task = mock.MagicMock()
    task.check_mode, task.no_log, task.diff, task.async_val = check_mode, False, diff, 0
    task.args = {'inputs': _inputs(**changes)}
    action = action_module.ActionModule(task, mock.MagicMock(), mock.MagicMock(), loader=None, templar=None,
                                        shared_loader_obj=None)
    action._execute_module = node.execute(action)
    action._remove_tmp_path = lambda path: None
    with mock.patch.object(action_module.display, 'display'):
        return action.run(task_vars={'inventory_hostname': 'n1'})


def _docker(node):
    return [(args.get('state'), check) for module, args, check, _no_log in node.calls if module == DOCKER]


def test_a_first_deploy_creates_the_directory_reads_the_node_and_creates_the_container():
    node = Node(cache=False)
    result = _run(node)
    assert result['steps'] == ['cache_dir:stat', 'cache_dir:create', 'image_info', 'container_info', 'previous_info',
                               'container']
    assert _docker(node) == [('started', False)]
    assert node.calls[1][1] == {'path': '/root/.cache', 'state': 'directory', 'mode': '0750'}
    facts = result['outputs']
    assert (facts['container_run_previous'], facts['container_run_drained'], facts['container_run_stopped_at']) == \
        ('', {}, None)
    assert facts['container_run_result']['changed'] and result['changed'] and not result.get('failed')
    # Returned for the role's set_fact, not as module facts (deprecated as top-level variables from ansible-core 2.20).
    assert 'ansible_facts' not in result
    assert 'invocation' not in facts['container_run_result']
    # The container's arguments carry the environment: the node does not log them.
    assert [no_log for module, _args, _check, no_log in node.calls if module == DOCKER] == [True]
    args = node.calls[-1][1]
    assert args['devices'][0] == '/dev/davinci0' and args['published_ports'] == ['8080:8080']
    assert args['env']['VLLM_API_KEY'] == KEY and args['labels']['ascend.vllm.instance'] == 'default'
    assert args['comparisons']['env'] == 'strict' and args['restart'] is False


def test_what_preflight_saw_spares_the_looks():
    node = Node()
    result = _run(node, container_run_cache_dir_exists=True, container_run_existing={'exists': False},
                  container_run_existing_previous={'exists': False})
    assert result['steps'] == ['image_info', 'container']
    # Told the directory is missing: created without a look.
    node = Node()
    assert _run(node, container_run_cache_dir_exists=False, container_run_existing={'exists': False},
                container_run_existing_previous={'exists': False})['steps'][0] == 'cache_dir:create'


SEEN = {'container_run_cache_dir_exists': True, 'container_run_existing': {'exists': False},
        'container_run_existing_previous': {'exists': False}}


def test_the_image_preflight_read_spares_its_look_and_builds_the_same_container():
    looked = Node()
    looked_result = _run(looked, **SEEN)
    given = Node()
    # What node_facts' docker.image_configs gives, for the image the container runs.
    config = {'image': _inputs()['container_run_image'], 'id': 'sha256:1', 'architecture': 'arm64',
              'env': ['LD_LIBRARY_PATH=/usr/local/lib']}
    result = _run(given, container_run_image_config=config, **SEEN)
    assert result['steps'] == ['container'] and looked_result['steps'] == ['image_info', 'container']
    # The same environment (the profile's builds on the image's) and the same spec either way.
    assert given.calls[-1][1] == looked.calls[-1][1]


@pytest.mark.parametrize('config', [
    {'image': 'quay.io/ascend/vllm-ascend:v0.22.0-310p', 'env': [], 'architecture': 'arm64'},
    {'env': ['LD_LIBRARY_PATH=/usr/local/lib'], 'architecture': 'arm64'},
    None])
def test_an_image_config_of_another_image_or_none_is_not_used(config):
    node = Node()
    assert _run(node, container_run_image_config=config, **SEEN)['steps'] == ['image_info', 'container']


@pytest.mark.parametrize('keep', [True, False])
def test_an_unchanged_re_run_makes_one_docker_container_call_and_keeps_nothing(keep):
    node = Node(containers={'vllm-ascend': _inspect({'VLLM_API_KEY': KEY})}, probe=SAME)
    result = _run(node, container_run_keep_previous=keep)
    # With keep, the check-mode call answers for the real one; without, the real call is the only one.
    assert _docker(node) == [('started', keep)]
    names = [module for module, _args, _check, _no_log in node.calls]
    assert 'ascend.vllm.balancer_server' not in names and 'ascend.vllm.container_rename' not in names
    assert not result['changed'] if keep else result['changed']
    assert result['outputs']['container_run_previous'] == ''
    assert result['outputs']['container_run_result']['changed'] is not keep


def test_a_changed_spec_probes_drains_stops_renames_then_creates():
    node = Node(containers={'vllm-ascend': _inspect({'VLLM_API_KEY': KEY})}, probe=RECREATE)
    result = _run(node, container_run_drain=DRAIN)
    assert result['steps'] == ['cache_dir:stat', 'image_info', 'container_info', 'previous_info', 'probe', 'drain',
                               'stop', 'rename', 'container']
    assert _docker(node) == [('started', True), ('stopped', False), ('started', False)]
    drain = [args for module, args, _c, _n in node.calls if module == 'ascend.vllm.balancer_server'][0]
    assert drain == dict(DRAIN, state='drained')
    rename = [args for module, args, _c, _n in node.calls if module == 'ascend.vllm.container_rename'][0]
    assert rename == {'name': 'vllm-ascend', 'new_name': 'vllm-ascend-previous'}
    facts = result['outputs']
    assert facts['container_run_previous'] == 'vllm-ascend-previous'
    assert facts['container_run_drained']['drain'] and isinstance(facts['container_run_stopped_at'], float)
    assert result['keep']['keep'] and result['changed']


def test_a_refusal_puts_the_kept_container_back_and_fails_with_the_cause_masked():
    node = Node(containers={'vllm-ascend': _inspect({'VLLM_API_KEY': KEY})}, probe=RECREATE,
                refuse='Error response from daemon: bad port mapping (env %r)')
    result = _run(node)
    assert result['failed'] and result['stage'] == 'container' and 'outputs' not in result
    assert result['steps'][-4:] == ['container', 'restore:remove', 'restore:rename', 'restore:start']
    assert _docker(node)[-3:] == [('started', False), ('absent', False), ('started', False)]
    assert result['msg'].startswith('docker_container refused the container vllm-ascend: Error response from daemon: '
                                    'bad port mapping')
    assert result['msg'].endswith('. The previous container vllm-ascend serves again, unchanged.')
    # The value shown by its name is redacted as such; nothing returned carries it.
    assert KEY not in json.dumps(result) and "'VLLM_API_KEY': '<redacted>'" in result['msg']


def test_a_refusal_with_nothing_kept_restores_nothing():
    node = Node(refuse='no such image')
    result = _run(node)
    assert result['msg'] == 'docker_container refused the container vllm-ascend: no such image'
    assert not [step for step in result['steps'] if step.startswith('restore')]


def test_a_probe_refused_fails_before_anything_is_kept():
    node = Node(containers={'vllm-ascend': _inspect({})}, probe={'failed': True, 'msg': 'invalid port'})
    result = _run(node)
    assert result['failed'] and result['stage'] == 'probe' and result['steps'][-1] == 'probe'
    assert result['msg'] == 'docker_container refused the container vllm-ascend: invalid port'


def test_a_container_left_by_an_interrupted_run_is_the_one_to_come_back_to():
    kept = _inspect({}, running=False)
    node = Node(containers={'vllm-ascend-previous': kept}, refuse='refused')
    result = _run(node)
    # Not probed, not kept again; the refusal brings it back.
    assert result['steps'] == ['cache_dir:stat', 'image_info', 'container_info', 'previous_info', 'container',
                               'restore:remove', 'restore:rename', 'restore:start']
    assert result['keep']['leftover']
    node = Node(containers={'vllm-ascend-previous': kept})
    assert _run(node)['outputs']['container_run_previous'] == 'vllm-ascend-previous'


def test_check_mode_keeps_nothing_and_asks_docker_container_in_check_mode():
    node = Node(containers={'vllm-ascend': _inspect({})}, probe=RECREATE, cache=False)
    result = _run(node, check_mode=True, container_run_drain=DRAIN)
    assert result['steps'] == ['cache_dir:stat', 'cache_dir:create', 'image_info', 'container_info', 'container']
    assert all(check for _module, _args, check, _no_log in node.calls)
    assert result['outputs']['container_run_previous'] == '' and 'check mode' in result['keep']['why']


def test_a_restarting_container_is_restarted():
    node = Node()
    _run(node, container_run_existing={'exists': True, 'running': True, 'restarting': True, 'labels': {}})
    assert node.calls[-1][1]['restart'] is True


@pytest.mark.parametrize('changes, words', [
    ({'container_run_image': ''}, ['container_run_image=""', MISSING_FIX]),
    ({'container_run_chips': [], 'container_run_command': []},
     ['container_run_command=[], container_run_chips=[]: container_run needs']),
    ({'container_run_profile': {}}, ['container_run_profile has no chip_device_template and no shm_size']),
    ({'container_run_labels': {'ascend.vllm.instance': 'x'}},
     ['container_run_labels["ascend.vllm.instance"]', 'namespace is reserved', 'fix:']),
    ({'container_run_labels': {'com.example.token': KEY}},
     ['container_run_labels["com.example.token"]', 'value hidden']),
    ({'container_run_extra_mounts': [{'source': '/m'}]}, ['a mount needs source and target']),
    ({'container_run_port': 'http'}, ['container_run_port']),
])
def test_wrong_inputs_fail_before_the_node_changes(changes, words):
    node = Node()
    result = _run(node, **changes)
    assert result['failed'] and result['stage'] == 'inputs' and node.calls == [] and result['steps'] == []
    for word in words:
        assert word in result['msg'], result['msg']
    assert KEY not in result['msg']


@pytest.mark.parametrize('state, expected', [
    ('stopped', [('vllm-ascend', 'stopped')]),
    ('absent', [('vllm-ascend', 'absent')]),
    ('restored', [('vllm-ascend', 'absent'), ('vllm-ascend-previous', 'renamed'), ('vllm-ascend', 'started')]),
])
def test_the_other_states(state, expected):
    node = Node()
    # They need no image, command or chips: nothing is checked but the arguments.
    result = _run(node, container_run_state=state, container_run_image='', container_run_command=[])
    seen = [(args['name'], args.get('state', 'renamed')) for _module, args, _check, _no_log in node.calls]
    assert seen == expected and result['stage'] == state and 'outputs' not in result
    if state == 'stopped':
        assert node.calls[0][1]['comparisons'] == {'*': 'ignore'}


def test_a_restore_that_fails_says_so():
    node = Node(fail={'ascend.vllm.container_rename': 'no container vllm-ascend-previous'})
    result = _run(node, container_run_state='restored')
    assert result['failed'] and result['stage'] == 'restore'
    assert result['msg'] == 'could not rename vllm-ascend-previous back to vllm-ascend: no container vllm-ascend-previous'


def test_a_failed_look_names_the_step_and_the_cause():
    node = Node(fail={'community.docker.docker_image_info': 'Cannot connect to the Docker daemon'})
    result = _run(node)
    assert result['stage'] == 'look' and 'Cannot connect to the Docker daemon' in result['msg']
    assert _docker(node) == []


def test_diff_mode_shows_the_diff_without_the_secret():
    node = Node()
    result = _run(node, diff=True)
    assert result['diff']['after']['env']['VLLM_API_KEY'] == '<redacted>'


SECRET_WORDS = st.sampled_from(['KEY', 'TOKEN', 'SECRET', 'PASSWORD', 'PASSWD', 'CREDENTIAL', 'PRIVATE', 'APIKEY'])
NAME_PART = st.text(alphabet=string.ascii_uppercase + string.digits + '_', max_size=8)
SECRET_NAME = st.builds(lambda head, word, tail: head + word + tail, NAME_PART, SECRET_WORDS, NAME_PART)
SECRET_VALUE = st.text(alphabet=string.ascii_letters + string.digits + '-_.:/+=@!', min_size=8, max_size=40)


def _baseline():
    """Everything the runs below return without a secret: a value found in it (a label key, a path) is there by
    chance, not leaked."""
    texts = [json.dumps(_inputs()), '<redacted>********']
    for refuse in (None, 'Error response from daemon: env %r refused'):
        node = Node(containers={'vllm-ascend': _inspect({})}, probe=RECREATE, refuse=refuse)
        texts.append(json.dumps(_run(node, diff=True, container_run_drain=DRAIN, container_run_env={})))
    return '\n'.join(texts)


FIXED_TEXT = _baseline()


@hsettings(max_examples=150, deadline=None)
@given(st.dictionaries(SECRET_NAME, SECRET_VALUE, min_size=1, max_size=3), st.booleans(), st.booleans(),
       st.sampled_from(['container_run_env', 'container_run_command_env']))
def test_no_secret_value_is_ever_returned(secrets, refused, keep, where):
    assume(all(secret_name(name, loose=True) for name in secrets))
    assume(not any(value in FIXED_TEXT or value in name for value in secrets.values() for name in secrets))
    env = dict(secrets, VLLM_USE_MODELSCOPE='True')
    node = Node(containers={'vllm-ascend': _inspect(env)}, probe=RECREATE,
                refuse='Error response from daemon: env %r refused' if refused else None)
    result = _run(node, diff=True, container_run_keep_previous=keep, container_run_drain=DRAIN,
                  **{where: env, 'container_run_env' if where != 'container_run_env' else 'container_run_command_env': {}})
    # The node got the values (the server needs them); nothing returned carries one.
    assert any(module == DOCKER and args.get('env') for module, args, _c, _n in node.calls)
    text = json.dumps(result)
    for value in secrets.values():
        assert value not in text
    assert bool(result.get('failed')) is refused
    if not refused:
        assert result['diff']['after']['env'] and result['outputs']['container_run_result']['container']


def _role_options():
    with open(os.path.join(ROOT, 'roles', 'container_run', 'meta', 'argument_specs.yml')) as handle:
        return yaml.safe_load(handle)['argument_specs']['main']['options']


def test_the_inputs_are_the_roles_variables():
    """One declaration each: the action's ``inputs`` and the role's argument spec name the same variables alike."""
    role = _role_options()
    assert sorted(INPUT_OPTIONS) == sorted(role)
    for name, option in INPUT_OPTIONS.items():
        theirs = role[name]
        # A node path: str here, path in the role (the role never expands it either).
        kind = 'str' if theirs['type'] == 'path' else theirs['type']
        assert (option['type'], option.get('elements'), option.get('default'), option.get('choices')) == \
            (kind, theirs.get('elements'), theirs.get('default'), theirs.get('choices')), name


def test_the_module_documents_its_argument_spec():
    from ansible_collections.ascend.vllm.plugins.modules import container_ensure as module
    documented = yaml.safe_load(module.DOCUMENTATION)['options']['inputs']['suboptions']
    assert sorted(documented) == sorted(INPUT_OPTIONS)
    for name, option in INPUT_OPTIONS.items():
        assert (documented[name]['type'], documented[name].get('default'), documented[name].get('choices')) == \
            (option['type'], option.get('default'), option.get('choices')), name
