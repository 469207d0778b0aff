# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The request and the host plan, as the ``ascend.vllm.host_plan`` action builds them.

The request is read the action's way (``read_request``: the roles' defaults loaded and
templated by Ansible against the host's variables), so these tests see what a playbook run
sees. Host variable sets are generated (hypothesis): a valid deployment of any model on any
platform, or one with a value of another kind put into a variable the user can set. The
invariants hold for every one of them:
- the plan is built or refused without an exception;
- a refusal names a variable the user set, with its value (or the value hidden for a secret);
- an accepted plan has unique instance names, container names and ports, gives each instance
  chips the platform has, and a command the vLLM flag table accepts.
"""

import json
import os
import sys

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar
from ansible.utils.collection_loader._collection_finder import _AnsibleCollectionFinder

COLLECTIONS = os.path.abspath(os.path.join(os.path.dirname(__file__), *(['..'] * 5), '.ansible', 'collections'))


def _install_collection_finder():
    """The roles' defaults call the collection's filters (ascend.vllm.platform_group): Ansible finds them
    only through its collection finder, which must own the ansible_collections package (as under
    ansible-test); conftest imported it from sys.path instead."""
    for name in [name for name in sys.modules if name == 'ansible_collections' or
                 name.startswith('ansible_collections.')]:
        del sys.modules[name]
    _AnsibleCollectionFinder(paths=[COLLECTIONS])._install()  # pylint: disable=protected-access


_install_collection_finder()

# pylint: disable=wrong-import-position
from ansible_collections.ascend.vllm.plugins.action.host_plan import _roles, read_request, variable_names  # noqa: E402
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._cli_args import extra_arg_problems  # noqa: E402
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.models import model_names  # noqa: E402
from ansible_collections.ascend.vllm.plugins.plugin_utils.plan._host import (  # noqa: E402
    config_params, host_plan, instance_plan, named)
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.platforms import PLATFORMS  # noqa: E402
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts import releases  # noqa: E402
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.vllm_options import (  # noqa: E402
    INSTANCE_OPTIONS, OPTIONS)


class _HostVars(object):
    def __init__(self, raw):
        self._raw = raw

    def raw_get(self, _host):
        return self._raw


def read_request_for(user, groups=('atlas_300i_duo',)):
    """The request the host_plan action reads for a host with the variables ``user``."""
    loader = DataLoader()
    task_vars = dict(user, inventory_hostname='node-1', group_names=list(groups))
    task_vars['hostvars'] = _HostVars(dict(user))
    return read_request(task_vars, Templar(loader=loader), loader, variable_names(*_roles(loader)))


def plan_for(user, groups=('atlas_300i_duo',)):
    return host_plan(read_request_for(user, groups), _roles(DataLoader())[0], os.path.isfile)


def test_the_guides_deployment_plans_with_the_guides_command():
    planned = plan_for({})
    assert planned['problems'] == [] and planned['platform'] == 'atlas_300i_duo'
    argv = planned['configs']['default']['argv']
    assert argv[:2] == ['vllm', 'serve'] and '--cudagraph-capture-sizes' not in argv
    assert planned['instances'][0]['url'] == 'http://127.0.0.1:8080'
    assert planned['image']['candidates'][0].endswith('ascend/vllm-ascend:v0.23.0-310p')


def test_a_refusal_names_the_variable_its_value_and_where_it_was_set():
    planned = plan_for({'vllm_serve_dtype': 'bfloat16', 'vlm_serve_port': 9000})
    by_variable = dict((problem.get('variable') or problem['msg'].split('=')[0], problem)
                       for problem in planned['problems'])
    # Names and types first: the misspelt variable stops the plan before its rules are judged.
    assert planned['stage'] == 'variables'
    assert by_variable['vlm_serve_port']['fix'] == 'rename it to vllm_serve_port'


# ------------------------------------------------------------------ generated host variables
VALID = st.fixed_dictionaries({}, optional={
    'vllm_serve_model': st.sampled_from(model_names()),
    'vllm_serve_port': st.integers(min_value=1025, max_value=65535),
    'vllm_serve_max_model_len': st.sampled_from([2048, 4096, 8192, 16384]),
    'vllm_serve_max_num_seqs': st.integers(min_value=1, max_value=16),
    'vllm_serve_publish_address': st.sampled_from(['127.0.0.1', '::1']),
    'vllm_serve_num_speculative_tokens': st.integers(min_value=0, max_value=2),
    'vllm_serve_served_model_name': st.from_regex(r'\A[a-z][a-z0-9.-]{0,20}\Z'),
})
# Values of another kind than the contract's, for a variable the user can set.
WRONG = st.one_of(st.text(min_size=1, max_size=8), st.lists(st.integers(), max_size=3),
                  st.dictionaries(st.text(max_size=4), st.integers(), max_size=2), st.floats(allow_nan=False),
                  st.booleans(), st.integers(min_value=-10 ** 6, max_value=-1))
SETTABLE = ('vllm_serve_port', 'vllm_serve_tensor_parallel_size', 'vllm_serve_max_model_len', 'vllm_serve_model',
            'vllm_serve_dtype', 'vllm_serve_chips', 'vllm_serve_publish_address', 'vllm_serve_max_num_seqs',
            'vllm_serve_gpu_memory_utilization', 'vllm_serve_cudagraph_batch_sizes', 'image_pull_tag',
            'image_pull_registries', 'balancer_port', 'vllm_serve_extra_args', 'vllm_serve_env')
PLATFORM = st.sampled_from(sorted(PLATFORMS))
# Generated host variable sets per property; ASCEND_HYPOTHESIS_EXAMPLES=2000 explores further.
EXAMPLES = int(os.environ.get('ASCEND_HYPOTHESIS_EXAMPLES', '200'))


def _shown(value):
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _check_accepted(planned):
    instances = planned['instances']
    for key in ('name', 'container_name', 'port'):
        values = [entry[key] for entry in instances]
        assert len(values) == len(set(values)), (key, values)
    # Chips are judged against the node's own count after the node read; here: whole, non-negative,
    # never shared between instances.
    assigned = [chip for entry in instances for chip in entry['chips']]
    assert len(assigned) == len(set(assigned)), assigned
    for entry in instances:
        config = planned['configs'][entry['name']]
        assert config['ok'], config
        assert all(isinstance(chip, int) and chip >= 0 for chip in entry['chips'])
        # After `vllm serve MODEL`: the managed flags and the extra arguments are all flags vLLM's parser knows.
        assert extra_arg_problems(config['argv'][3:]) == [], config['argv']
        # Each instance's names are worked out once (plan/_host.named): the name vllm serve is given, and the
        # container that runs it (the image method) -- every phase reads these.
        argv = config['argv']
        assert entry['served_model_name'] == argv[argv.index('--served-model-name') + 1], argv
        assert entry['runs_as'] == entry['container_name']
    for frontend in planned['balancer'].get('frontends') or []:
        served = set(entry['served_model_name'] for entry in instances
                     if entry['name'] in [server['instance'] for server in frontend['servers']])
        assert served == {frontend['served']}, (frontend, served)


@settings(max_examples=EXAMPLES // 2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PLATFORM, VALID)
def test_generated_valid_deployments_plan_cleanly(platform, user):
    planned = plan_for(user, groups=(platform,))
    if planned['problems']:
        # A valid-looking value can still be refused by a rule (a model that does not fit the
        # chip's memory, MTP sizes): then it names one of the variables the user set.
        for problem in planned['problems']:
            assert any(name in problem['msg'] + problem['fix'] for name in user) or problem['check'] in (
                'memory', 'config', 'exposure'), problem
        return
    _check_accepted(planned)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PLATFORM, st.sampled_from(SETTABLE), WRONG)
def test_a_wrong_value_is_refused_naming_the_variable_and_value_or_planned_soundly(platform, name, value):
    planned = plan_for({name: value}, groups=(platform,))
    if not planned['problems']:
        # The value was acceptable after all (a string where any string goes): the plan is sound.
        _check_accepted(planned)
        return
    # The variable is named in the problem or, for a memory problem another variable carries, in its fix.
    lines = [problem['msg'] + ' Fix: ' + problem['fix'] for problem in planned['problems']]
    assert any(name in line for line in lines), (name, value, lines)
    named = [line for line in lines if name in line]
    # The value, or the wrong item of a list (NAME[i]=ITEM).
    items = [value] + (list(value) if isinstance(value, (list, tuple)) else [])
    assert any(_shown(item) in line or str(item) in line or '(value hidden)' in line
               for item in items for line in named) or planned['stage'] != 'variables', (name, value, named)


# One sample per instance option of the option table, of the type its variable takes.
_SAMPLES = {'str': 'x-sample', 'dict': {'sample': 1}, 'raw': 7, 'int': 7, 'float': 0.5, 'bool': False,
            'list': ['--sample']}


@pytest.mark.parametrize('option', INSTANCE_OPTIONS)
def test_every_instance_option_of_the_table_reaches_the_plan_and_vllm_config(option):
    """Each option is declared once (vllm_options.OPTIONS): set as vllm_serve_<option>, it reaches the
    instance's plan and the vllm_config call -- no hand-written list of options in between."""
    spec = dict((item.name, item) for item in OPTIONS)[option]
    value = _SAMPLES[spec.var_type or spec.type]
    request = read_request_for({'vllm_serve_' + option: value})
    planned = instance_plan(request)
    # A secret travels as a marker naming its variable; the key itself only by environment.
    expected = '<hidden: vllm_serve_%s>' % option if spec.no_log else value
    assert planned['plan'][0]['options'].get(option) == expected, option
    params = config_params(planned['plan'][0], request, request.var_names(), None)
    assert params.get(option) == expected, option


def test_the_chips_figures_npu_check_read_replace_the_nominal_ones():
    """chip_figures (npu_check_result of the run): the memory rules are judged with the node's chips."""
    nominal = plan_for({})
    assert nominal['problems'] == []
    roles_specs = _roles(DataLoader())[0]
    small = host_plan(read_request_for({}), roles_specs, os.path.isfile, {'chip_total_mb': {'default': 4096}})
    assert small['configs']['default']['ok'] is False
    assert [problem for problem in small['problems'] if 'KV budget' in problem['msg']], small['problems']
    # The free memory is judged only when given (preflight); a serving host's chips are busy with its own model.
    busy = host_plan(read_request_for({}), roles_specs, os.path.isfile,
                     {'chip_total_mb': {'default': 44280}, 'chip_free_mb': {'default': 512}})
    assert busy['configs']['default']['ok'] is False
    again = host_plan(read_request_for({}), roles_specs, os.path.isfile,
                      {'chip_total_mb': {'default': 44280}, 'chip_free_mb': {}})
    assert again['problems'] == [] and again['configs']['default']['ok'] is True


# ------------------------------------------------------------------ the environment's contract
ENV_NAME = st.from_regex(r'\A[A-Za-z_][A-Za-z0-9_]{0,20}\Z')
BAD_ENV_NAME = st.one_of(
    st.from_regex(r'\A[0-9][A-Za-z0-9_]{0,8}\Z'),
    st.builds(lambda a, sep, b: a + sep + b, ENV_NAME, st.sampled_from(['-', '.', ' ', '=', '/', ':']), ENV_NAME),
    st.just(''))


@settings(max_examples=EXAMPLES // 4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(BAD_ENV_NAME, st.booleans())
def test_an_environment_name_nothing_can_read_is_refused_naming_the_variable(name, listed):
    """Docker would pass HF-ENDPOINT through and nothing would ever read it: refused, wherever it is set."""
    if listed:
        user = {'vllm_serve_instances': [{'name': 'a', 'chips': [0], 'env': {name: 'x'}}]}
        variable = 'vllm_serve_instances[0].env'
    else:
        user = {'vllm_serve_env': {name: 'x'}}
        variable = 'vllm_serve_env'
    planned = plan_for(user)
    named = [problem for problem in planned['problems'] if variable in problem['msg'] and _shown(name) in problem['msg']]
    assert named, planned['problems']


@settings(max_examples=EXAMPLES // 4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(['HF_TOKEN', 'MODELSCOPE_API_TOKEN', 'MY_SECRET', 'DB_PASSWORD', 'S3_ACCESS_KEY']),
       st.from_regex(r'\Ahf_[A-Za-z0-9]{12,24}\Z'), st.booleans())
def test_a_secret_in_the_environment_never_reaches_the_plan_but_reaches_the_container(name, value, listed):
    from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._serve import instance_secrets
    if listed:
        user = {'vllm_serve_instances': [{'name': 'a', 'chips': [0], 'env': {name: value}}]}
    else:
        user = {'vllm_serve_env': {name: value, 'HF_ENDPOINT': 'https://hf-mirror.example'}}
    planned = plan_for(user)
    assert planned['problems'] == [], planned['problems']
    assert value not in json.dumps(planned, default=str)
    entry = planned['instances'][0]
    # The plan's container variables keep the marker (checked above: the whole plan is free of the value) and are
    # no_log; the value comes back, on top of the plan's environment, where the container is made.
    run = planned['containers'][entry['name']]
    env = dict(run['container_run_env'], **instance_secrets(entry, planned['configs'][entry['name']], user)['env'])
    assert env[name] == value and run['container_run_no_log'] is True


def test_the_api_key_set_as_an_environment_variable_is_sent_to_its_door():
    planned = plan_for({'vllm_serve_env': {'VLLM_API_KEY': 'sk-abcdef123'}})
    assert [problem['check'] for problem in planned['problems']] == ['secrets']
    assert 'vllm_serve_api_key' in planned['problems'][0]['fix'] and 'sk-abcdef123' not in planned['report']


@pytest.mark.parametrize('extra', [['--hf-token', 'hf_abcdef12'], ['--hf-token=hf_abcdef12'], ['--api-key', 'hf_abcdef12']])
def test_a_secret_on_the_command_line_is_refused_with_its_value_hidden(extra):
    planned = plan_for({'vllm_serve_extra_args': extra})
    assert planned['problems'] and 'hf_abcdef12' not in planned['report']
    assert 'secret on the command line' in planned['report']


# ------------------------------------------------------------------ vllm-ascend's own refusals at start
@pytest.mark.parametrize('extra, words', [
    (['-pp', '2'], ['-pp', 'tensor parallelism only']),
    (['--data-parallel-size=2'], ['--data-parallel-size', 'tensor parallelism only']),
    (['--enable-expert-parallel'], ['--enable-expert-parallel']),
    (['--kv-transfer-config', '{"kv_connector": "X", "kv_role": "kv_both"}'],
     ['--kv-transfer-config', 'KV cache transfer is not supported for 310P']),
])
def test_flags_vllm_ascend_refuses_on_310p_are_refused_before_start(extra, words):
    planned = plan_for({'vllm_serve_extra_args': extra})
    assert planned['problems'], extra
    assert all(word in planned['report'] for word in words), planned['report']
    assert 'vllm_serve_extra_args' in planned['report']


def test_launch_blocking_with_graph_mode_is_refused_naming_the_environment_variable():
    planned = plan_for({'vllm_serve_env': {'ASCEND_LAUNCH_BLOCKING': '1'}})
    assert [problem['variable'] for problem in planned['problems']] == ['vllm_serve_env.ASCEND_LAUNCH_BLOCKING']
    listed = plan_for({'vllm_serve_instances': [{'name': 'a', 'env': {'ASCEND_LAUNCH_BLOCKING': '1'}}]})
    assert 'vllm_serve_instances[0].env.ASCEND_LAUNCH_BLOCKING' in listed['report']
    # Eager mode (graph capture off) is what the variable is for.
    eager = plan_for({'vllm_serve_env': {'ASCEND_LAUNCH_BLOCKING': '1'}, 'vllm_serve_cudagraph_mode': 'NONE'})
    assert not [problem for problem in eager['problems'] if 'ASCEND_LAUNCH_BLOCKING' in problem['msg']]
    assert plan_for({'vllm_serve_env': {'ASCEND_LAUNCH_BLOCKING': '0'}})['problems'] == []


# ------------------------------------------------------------------ the balancer's TLS inputs
CERT = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n'
KEY = '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49\n-----END PRIVATE KEY-----\n'
TWO = {'vllm_serve_instances': [{'name': 'a', 'chips': [0]}, {'name': 'b', 'chips': [1]}]}


@pytest.mark.parametrize('user, variable, words', [
    (dict(TWO, balancer_tls_certificate='/etc/ssl/vllm.pem', balancer_tls_key=KEY), 'balancer_tls_certificate',
     ['not a PEM certificate', '/etc/ssl/vllm.pem', 'lookup']),
    (dict(TWO, balancer_tls_certificate=CERT), 'balancer_tls_certificate', ['balancer_tls_key is empty']),
    (dict(TWO, balancer_tls_certificate=CERT, balancer_tls_key=CERT), 'balancer_tls_key', ['not a PEM private key']),
])
def test_tls_inputs_the_balancer_cannot_use_are_refused(user, variable, words):
    planned = plan_for(user)
    named = [problem for problem in planned['problems'] if problem.get('variable') == variable]
    assert named and all(word in named[0]['msg'] + named[0]['fix'] for word in words), planned['problems']


def test_a_pem_pair_on_a_host_with_a_balancer_plans_cleanly():
    assert plan_for(dict(TWO, balancer_tls_certificate=CERT, balancer_tls_key=KEY))['problems'] == []


@settings(max_examples=EXAMPLES // 4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.from_regex(r'\A[A-Za-z0-9+/=]{16,64}\Z'), st.sampled_from(['', '-----BEGIN KEY-----\n', 'path: ']))
def test_a_wrong_tls_key_is_never_shown(secret, wrapper):
    # A value long enough that no message could hold it by chance (a short one may be a word of the fix).
    key = wrapper + secret
    planned = plan_for(dict(TWO, balancer_tls_certificate=CERT, balancer_tls_key=key))
    assert planned['problems'] and secret not in planned['report']


# ------------------------------------------------------------------ the Prometheus target file on the controller
@pytest.mark.parametrize('content, refused', [
    (None, False), ('', False), ('[]', False),
    ('[{"targets": ["10.0.0.5:8080"], "labels": {"host": "other"}}]', False),
    ('global:\n  scrape_interval: 15s\n', True),
    ('- targets: ["10.0.0.5:8080"]\n', True),
    ('{"targets": []}', True),
])
def test_the_metrics_file_is_refused_when_deploy_would_lose_what_it_holds(tmp_path, content, refused):
    target = tmp_path / 'targets.json'
    if content is not None:
        target.write_text(content)
    planned = plan_for({'vllm_serve_metrics_file': str(target)})
    named = [problem for problem in planned['problems'] if problem.get('variable') == 'vllm_serve_metrics_file']
    assert bool(named) == refused, planned['problems']


@pytest.mark.parametrize('where, words', [
    ('relative/targets.json', 'not an absolute path'),
    ('/nonexistent-ascend-dir/targets.json', 'does not exist'),
    ('DIR', 'is a directory'),
])
def test_a_metrics_file_path_the_controller_cannot_write_is_refused(tmp_path, where, words):
    path = str(tmp_path) if where == 'DIR' else where
    planned = plan_for({'vllm_serve_metrics_file': path})
    assert any(words in problem['msg'] for problem in planned['problems']), planned['problems']
    # Written on another host (a Prometheus server): judged there, not on the controller.
    assert plan_for({'vllm_serve_metrics_file': path, 'vllm_serve_metrics_file_host': 'prom'})['problems'] == []


@pytest.mark.parametrize('name, value', [
    # Found by the random-seed run of CI (seed 4272063071): the memory plan overflowed a float.
    ('vllm_serve_max_num_seqs', 5.44258340158104e+300), ('vllm_serve_max_num_seqs', 10 ** 400),
    ('vllm_serve_num_speculative_tokens', 10 ** 300), ('vllm_serve_max_model_len', 10 ** 400),
])
def test_numbers_beyond_any_float_are_refused_not_crashed_on(name, value):
    planned = plan_for({name: value}, groups=('atlas_200i_pro',))
    assert planned['problems'] and planned['stage'] in ('variables', 'plan')


# ------------------------------------------------------------------ checked at the node read (node_facts' serving)
from ansible_collections.ascend.vllm.plugins.plugin_utils.plan._node import (  # noqa: E402
    node_steps, serving_query, verified)
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._container_spec import SPEC_LABEL  # noqa: E402


def _node_with(planned, request, digest, image_id='sha256:1', ref=None):
    """node_steps' view of a node that runs the first instance's container with ``digest`` and the image ``ref``
    (the first candidate unless given)."""
    ref = ref or planned['image']['candidates'][0]
    name = planned['instances'][0]['container_name']
    result = {'containers': {name: {'exists': True, 'running': True, 'restarting': False, 'image_id': image_id,
                                    'labels': {SPEC_LABEL: digest}},
                             name + '-previous': {'exists': False}},
              'image_ids': {ref: 'sha256:1'}}
    return node_steps(request, planned, result, ref, True)


@settings(max_examples=max(5, EXAMPLES // 20), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(VALID)
def test_a_container_carrying_a_digest_the_read_asks_about_is_one_the_plan_leaves_as_it_is(user):
    # The contract between the two halves: node_facts checks a container in the read only when it carries one
    # of the digests worked out before the read; the node plan then counts the answer only for an instance it
    # leaves as it is. For every plan, the digests asked about are exactly those the node plan leaves alone.
    request = read_request_for(user)
    planned = host_plan(request, _roles(DataLoader())[0], os.path.isfile)
    assume(not planned['problems'])  # a plan preflight refuses never reaches the node read
    query = serving_query(request, planned)
    assert [entry['name'] for entry in query] == [entry['container_name'] for entry in planned['instances']]
    # One digest per image the node may run (each candidate reference); a container carrying the one of the
    # image it runs is left as it is.
    left = set()
    for ref in planned['image']['candidates']:
        for digest in query[0]['digests']:
            if _node_with(planned, request, digest, ref=ref)['same']:
                left.add(digest)
    assert left == set(query[0]['digests'])
    assert _node_with(planned, request, 'another')['same'] == []
    assert _node_with(planned, request, query[0]['digests'][0], image_id='sha256:2')['same'] == []
    entry, instance = query[0], planned['instances'][0]
    assert entry['url'] == instance['url'] and entry['served_model_name'] == user.get(
        'vllm_serve_served_model_name', 'qwen3.5')


@pytest.mark.parametrize('user', [{'image_pull_policy': 'always'}, {'image_pull_archive': '/srv/vllm-ascend.tar'}])
def test_nothing_is_checked_in_the_read_when_the_deploy_pulls_or_loads_anyway(user):
    request = read_request_for(user)
    planned = host_plan(request, _roles(DataLoader())[0], lambda path: True)
    assert serving_query(request, planned) == []


@pytest.mark.parametrize('smoke', [True, False])
def test_the_read_asks_with_the_api_key_and_never_for_an_inference(smoke):
    request = read_request_for({'vllm_serve_api_key': 'k-123', 'vllm_serve_smoke_test': smoke})
    planned = host_plan(request, _roles(DataLoader())[0], os.path.isfile)
    (entry,) = serving_query(request, planned)
    assert entry['api_key'] == 'k-123' and entry['service'] is False
    assert not set(entry) & {'smoke_test', 'prompt', 'max_tokens', 'chat_max_tokens', 'smoke_timeout'}


def test_only_instances_left_as_they_are_and_ready_count_as_checked():
    request = read_request_for({})
    planned = host_plan(request, _roles(DataLoader())[0], os.path.isfile)
    same = {'same': planned['instances'], 'roll': [], 'fresh': []}
    ready = {'vllm-ascend': {'state': 'ready', 'models': ['qwen3.5'], 'digest': 'd'}}
    status = verified(ready, same)
    assert status == {'default': {'container': 'vllm-ascend', 'model': planned['instances'][0]['options']['model'],
                                  'served_model_name': 'qwen3.5', 'url': 'http://127.0.0.1:8080', 'port': 8080,
                                  'chips': [0], 'state': 'ready'}}
    assert verified(ready, {'same': [], 'roll': planned['instances'], 'fresh': []}) == {}
    assert verified({'vllm-ascend': {'state': 'timeout'}}, same) == {}


@pytest.mark.parametrize('source', [False, True])
def test_every_instance_is_named_once_what_runs_it_and_what_its_api_serves(source):
    instances = [{'name': 'a', 'container_name': 'vllm-ascend-a', 'options': {}},
                 {'name': 'b', 'container_name': 'vllm-ascend-b', 'options': {'served_model_name': 'small'}},
                 {'name': 'c', 'container_name': 'vllm-ascend-c', 'options': {'served_model_name': 'asked'}}]
    # b's vllm_config failed (the plan stops): its own option names it; c's result wins over its option.
    configs = {'a': {'ok': True, 'settings': {'served_model_name': 'qwen3.5'}}, 'b': {'failed': True},
               'c': {'ok': True, 'settings': {'served_model_name': 'planned'}}}
    out = named(instances, configs, source)
    assert [entry['served_model_name'] for entry in out] == ['qwen3.5', 'small', 'planned']
    assert [entry['runs_as'] for entry in out] == [
        name + ('.service' if source else '') for name in ('vllm-ascend-a', 'vllm-ascend-b', 'vllm-ascend-c')]
    assert 'runs_as' not in instances[0]


# ------------------------------------------------------------------ the image's own configuration, read once
from ansible_collections.ascend.vllm.plugins.plugin_utils.plan._node import node_plan, node_query  # noqa: E402


@pytest.mark.parametrize('user, present, used', [
    ({}, True, True),
    ({}, False, False),  # pulled in this run: container_ensure reads the image it finds then
    ({'image_pull_policy': 'always'}, True, False),
    ({'image_pull_archive': '/srv/vllm-ascend.tar'}, True, False),
])
def test_the_image_config_the_read_found_reaches_each_container_only_when_nothing_is_pulled_first(user, present, used):
    request = read_request_for(user)
    planned = host_plan(request, _roles(DataLoader())[0], lambda path: True)
    assert not planned['problems'], planned['problems']
    refs = planned['image']['candidates']
    assert node_query(request, planned)['images'] == refs
    ref = refs[0]
    config = {'id': 'sha256:1', 'env': ['LD_LIBRARY_PATH=/usr/local/lib'], 'architecture': 'arm64'}
    docker = {'reachable': True, 'images': [ref] if present else [], 'image_ids': {ref: 'sha256:1'} if present else {},
              'image_configs': {ref: config} if present else {}, 'containers': []}
    out = node_plan(request, planned, {'docker': docker})
    for run in out['containers'].values():
        assert run['container_run_image_config'] == (dict(config, image=ref) if used else None)


# ------------------------------------------------------------------ release records
def test_the_default_plan_runs_the_newest_complete_release_record():
    planned = plan_for({})
    assert planned['release'] == {'release': releases.default_release(), 'assumed': False, 'complete': True,
                                  'not_checked': releases.not_checked(releases.RELEASES[releases.default_release()])}


@pytest.mark.parametrize('groups', [('atlas_300i_duo',), ('atlas_200i_pro',), ('atlas_200i_pro_openeuler',)])
def test_a_tag_without_a_release_record_is_refused_naming_the_recorded_tags(groups):
    planned = plan_for({'image_pull_tag': 'v0.31.0'}, groups=groups)
    [problem] = [p for p in planned['problems'] if p['check'] == 'release']
    assert 'v0.31.0' in problem['msg'] and 'has no release record' in problem['msg']
    assert 'v0.23.0-310p' in problem['fix'] and 'image_pull_assume_release' in problem['fix']


def test_an_assumed_record_plans_the_tag_and_lists_what_is_not_checked():
    planned = plan_for({'image_pull_tag': 'v0.31.0', 'image_pull_assume_release': 'v0.23.0'})
    assert planned['problems'] == []
    assert planned['image']['image_tag'] == 'v0.31.0-310p'
    assert planned['release']['release'] == 'v0.23.0' and planned['release']['assumed']
    assert 'v0.31.0-310p has no release record' in planned['release']['not_checked'][0]


@pytest.mark.parametrize('tag, shm', [('v0.23.0', '1g'), ('v0.30.0', '10g'), ('v0.25.1rc1', '10g')])
def test_the_300i_duo_container_takes_the_shm_size_of_the_chosen_release(tag, shm):
    planned = plan_for({'image_pull_tag': tag})
    assert [p for p in planned['problems'] if p['check'] == 'release'] == []
    assert planned['configs']['default']['profile']['shm_size'] == shm
    assert planned['release']['complete'] == (tag == 'v0.23.0')


def test_the_users_own_shm_size_wins_over_the_release_record():
    planned = plan_for({'image_pull_tag': 'v0.30.0', 'ascend_vllm_platform_overrides': {'shm_size': '4g'}})
    assert planned['configs']['default']['profile']['shm_size'] == '4g'


@pytest.mark.parametrize('machine', ['x86_64', 'aarch64'])
@pytest.mark.parametrize('image_arch', ['amd64', 'arm64'])
@pytest.mark.parametrize('user', [{}, {'image_pull_policy': 'always'}, {'image_pull_archive': '/srv/vllm-ascend.tar'}])
def test_the_image_the_node_runs_as_it_is_must_be_built_for_the_node(machine, image_arch, user):
    """An image the node has is run without a pull (policy not_present): an aarch64 node with an amd64 image is
    refused. A pull or a tarball load replaces it first, so a present image of another architecture is no problem."""
    request = read_request_for(user)
    planned = host_plan(request, _roles(DataLoader())[0], lambda path: True)
    ref = planned['image']['candidates'][0]
    docker = {'reachable': True, 'images': [ref], 'image_ids': {ref: 'sha256:1'},
              'image_configs': {ref: {'id': 'sha256:1', 'env': [], 'architecture': image_arch}}, 'containers': []}
    out = node_plan(request, planned, {'docker': docker, 'system': {'machine': machine}})
    wrong = {'x86_64': 'amd64', 'aarch64': 'arm64'}[machine] != image_arch and not user
    found = [p for p in out['problems'] if p['check'] == 'image' and 'linux/' in p['msg']]
    assert len(found) == (1 if wrong else 0), out['problems']
    if wrong:
        assert found[0]['msg'].startswith('image %s on the node is linux/%s, the node is %s' % (ref, image_arch, machine))


@pytest.mark.parametrize('machine, arch, refused', [('aarch64', 'amd64', True), ('aarch64', 'arm64', False),
                                                    ('x86_64', 'amd64', False)])
def test_the_controllers_tarball_must_be_built_for_the_node(machine, arch, refused):
    """An x86 workstation's `docker save` without --platform, for an aarch64 Atlas 200I Pro: refused before the copy."""
    request = read_request_for({'image_pull_archive': '/srv/vllm-ascend.tar'})
    planned = host_plan(request, _roles(DataLoader())[0], lambda path: True)
    docker = {'reachable': True, 'images': [], 'image_ids': {}, 'image_configs': {}, 'containers': []}
    read = []
    out = node_plan(request, planned, {'docker': docker, 'system': {'machine': machine}},
                    read_archive=lambda path: read.append(path) or {'quay.io/ascend/vllm-ascend:v0.23.0-310p': arch})
    assert read == ['/srv/vllm-ascend.tar']
    found = [p for p in out['problems'] if p['msg'].startswith('image_pull_archive="/srv/vllm-ascend.tar" holds')]
    assert len(found) == (1 if refused else 0), out['problems']


# ------------------------------------------------------------------ one reading of every value
_TWO_INSTANCES = [{'name': 'a', 'chips': [0], 'port': 8080}, {'name': 'b', 'chips': [1], 'port': 8081}]


def _as_extra_var(value):
    """How ``-e key=value`` (and an AWX text answer) spells a scalar."""
    return ('true' if value else 'false') if isinstance(value, bool) else str(value)


def test_a_plan_is_the_same_however_its_values_arrive():
    """Native values and their text (``-e key=value``, AWX surveys) make the same plan: the request reads each
    value by its argument spec once, and every role uses the plan's values."""
    native = {'vllm_serve_port': 9000, 'balancer_port': 8001, 'balancer_metrics_port': 8405,
              'vllm_serve_keep_previous': False, 'image_pull_retries': 2, 'balancer_enabled': True,
              'vllm_serve_smoke_max_tokens': 20}
    as_text = dict((name, _as_extra_var(value)) for name, value in native.items())
    planned, texted = plan_for(native), plan_for(as_text)
    assert planned['problems'] == [] and texted['problems'] == [], texted['problems']
    for key in ('instances', 'balancer', 'containers', 'steps', 'configs'):
        assert texted[key] == planned[key], key
    assert texted['balancer']['frontends'][0]['port'] == 8001


def test_a_port_given_as_text_is_judged_like_the_number():
    """-e balancer_port=8080 (text) takes an instance's port like 8080 does. Before the one reading, the variables
    check accepted the text and the balancer's plan refused it as "not a port number": two parts of preflight
    disagreed."""
    for port in (8080, '8080'):
        planned = plan_for({'ascend_vllm_instances': _TWO_INSTANCES,
                            'balancer_port': port})
        assert [problem['msg'] for problem in planned['problems']] == [
            "balancer_port=8080: port 8080 is already instance a's"], (port, planned['problems'])


def test_a_bool_given_as_text_false_is_false():
    planned = plan_for({'balancer_enabled': 'false', 'ascend_vllm_instances': _TWO_INSTANCES})
    assert planned['problems'] == [] and planned['balancer']['enabled'] is False


def test_the_balancers_image_inputs_are_judged_in_preflight():
    """Before, a registry with a scheme for HAProxy's image was accepted here and failed at the pull, after the
    instances had been deployed; image_pull's was refused. One format table (contracts/_formats.py) judges both."""
    planned = plan_for({'balancer_registries': ['https://docker.io'], 'image_pull_registries': ['https://quay.io']})
    assert planned['stage'] == 'variables'
    msgs = sorted(problem['msg'] for problem in planned['problems'])
    assert msgs == ['balancer_registries[0]="https://docker.io" is not a registry address',
                    'image_pull_registries[0]="https://quay.io" is not a registry address']
