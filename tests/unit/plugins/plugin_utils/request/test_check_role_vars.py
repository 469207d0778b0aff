# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""check_role_vars: misspelt names and mistyped values of the roles' variables."""

import os

import pytest
import yaml


from ansible_collections.ascend.vllm.plugins.plugin_utils.request._vars import (
    check_role_vars, known_variables)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', '..'))
ROLES = ('container_run', 'image_pull', 'npu_check', 'vllm_serve')


def _specs():
    specs = {}
    for role in ROLES:
        with open(os.path.join(ROOT, 'roles', role, 'meta', 'argument_specs.yml')) as handle:
            specs[role] = yaml.safe_load(handle)
    return specs


SPECS = _specs()

TOY = {
    'toy': {'argument_specs': {'main': {'short_description': 'Uses C(toy_output) and C(ascend_vllm_extra).', 'options': {
        'toy_port': {'type': 'int', 'default': 8080, 'description': 'port'},
        'toy_sizes': {'type': 'list', 'elements': 'int', 'default': [1, 2]},
        'toy_mode': {'type': 'str', 'choices': ['a', 'b'], 'default': 'a'},
        'toy_platform': {'type': 'str', 'default': "{{ ascend_vllm_platform | default('') }}"},
        'toy_items': {'type': 'list', 'elements': 'dict', 'default': '{{ ascend_vllm_items | default([]) }}'},
    }}}},
}


def _by_name(problems):
    return dict((problem['variable'], problem) for problem in problems)


def test_known_names_come_from_the_specs():
    known, options, aliases = known_variables(TOY, ['toy_', 'ascend_vllm_'])
    assert set(options) == {'toy_port', 'toy_sizes', 'toy_mode', 'toy_platform', 'toy_items'}
    assert aliases == {'ascend_vllm_platform': ['toy_platform'], 'ascend_vllm_items': ['toy_items']}
    # Names the specs mention (documented outputs and globals) are known too.
    assert {'toy_output', 'ascend_vllm_extra'} <= known


@pytest.mark.parametrize('name, value, suggestion', [
    ('vllm_serve_max_model_length', 8192, 'vllm_serve_max_model_len'),
    ('vlm_serve_port', 9000, 'vllm_serve_port'),
    ('vllm_server_max_num_seqs', 16, 'vllm_serve_max_num_seqs'),
    ('image_pull_registry', ['quay.io'], 'image_pull_registries'),
    ('image_pull_tags', 'v0.23.0', 'image_pull_tag'),
    ('npu_check_disk_min_free', 10, 'npu_check_disk_min_free_gb'),
    ('ascend_vllm_platfrom', 'atlas_300i_duo', 'ascend_vllm_platform'),
    ('ascend_vllm_instance', [], 'ascend_vllm_instances'),
    ('VLLM_SERVE_MAX_NUM_SEQS', 16, 'vllm_serve_max_num_seqs'),
    ('imag_pull_tag', 'v0.23.0', 'image_pull_tag'),
])
def test_misspelt_names_get_the_closest_known_name(name, value, suggestion):
    (problem,) = check_role_vars({name: value}, SPECS)
    assert problem['kind'] == 'unknown'
    assert problem['variable'] == name
    assert problem['suggestion'] == suggestion
    assert problem['msg'].startswith('%s=' % name)
    assert problem['fix'] == 'rename it to %s' % suggestion


def test_profile_field_under_a_role_prefix_points_at_the_overrides():
    (problem,) = check_role_vars({'container_run_shm_size': '2g'}, SPECS)
    assert problem['kind'] == 'unknown'
    assert 'ascend_vllm_platform_overrides: {shm_size: "2g"}' in problem['fix']
    assert problem['fix'].startswith('remove it')


def test_unknown_name_without_a_close_match_lists_the_role_variables():
    (problem,) = check_role_vars({'toy_zzzzzzzzzzzzzz': 1}, TOY)
    assert problem['suggestion'] is None
    assert problem['fix'].startswith('remove it, or use one of the toy_ variables: toy_items, toy_mode')


@pytest.mark.parametrize('variables', [
    {'ansible_host': 'x', 'ansible_connection': 'local', 'inventory_hostname': 'n1', 'group_names': []},
    {'ascend_sim': True, 'my_own_setting': 1, 'serve_port': 1, 'npu_count': 2},
    {'__vllm_serve_internal': 1},
    {'vllm_serve_port': 8080, 'image_pull_registries': ['quay.io'], 'ascend_vllm_platform': 'atlas_300i_duo',
     'ascend_vllm_instances': [{'name': 'a'}], 'npu_check_disk_min_free_gb': 10, 'container_run_log_max_file': 3,
     'ascend_vllm_serial': 1, 'ascend_vllm_teardown_remove_image': True},
    # Documented outputs of the roles (set as facts by a previous play).
    {'image_pull_image_ref': 'x', 'image_pull_image_tag': 'v0.23.0-310p', 'image_pull_candidates': [],
     'image_pull_image_present': False, 'image_pull_changed': False, 'npu_check_result': {},
     'npu_check_problems': [], 'container_run_result': {}, 'vllm_serve_status': {}},
    # Values the argument specs convert: digits for ints, a single int for a list.
    {'vllm_serve_port': '8080', 'vllm_serve_cudagraph_batch_sizes': 8, 'vllm_serve_max_model_len': None},
])
def test_good_variables_give_no_problem(variables):
    assert check_role_vars(variables, SPECS) == []


@pytest.mark.parametrize('name, value, phrase', [
    ('vllm_serve_tensor_parallel_size', 'two', 'an int, e.g. 1'),
    ('vllm_serve_tensor_parallel_size', 1.5, 'an int, e.g. 1'),
    ('vllm_serve_port', 'http', 'an int, e.g. 8080'),
    ('vllm_serve_cudagraph_batch_sizes', ['one'], 'a list of int'),
    ('vllm_serve_cudagraph_batch_sizes', {'tp1': [1]}, 'a list of int'),
    ('vllm_serve_gpu_memory_utilization', 'high', 'a float'),
    ('vllm_serve_trust_remote_code', 'always', 'a bool'),
    ('vllm_serve_env', ['A=1'], 'a dict'),
    ('image_pull_policy', 'sometimes', 'one of: not_present, always'),
    ('image_pull_registries', {'primary': 'quay.io'}, 'a list of str'),
    ('container_run_restart_policy', 'sometimes', 'one of: no, on-failure, always, unless-stopped'),
    ('container_run_log_max_file', 'three', 'an int, e.g. 3'),
    ('npu_check_disk_min_free_gb', '20GB', 'an int, e.g. 20'),
    # ascend_vllm_* globals are checked against the option they feed.
    ('ascend_vllm_instances', {'name': 'small'}, 'a list of dict'),
    ('ascend_vllm_instances', ['small'], 'a list of dict'),
    ('ascend_vllm_platform_overrides', ['shm_size', '2g'], 'a dict'),
])
def test_wrong_types_name_the_value_and_the_type(name, value, phrase):
    (problem,) = check_role_vars({name: value}, SPECS)
    assert problem['kind'] == 'type'
    assert problem['variable'] == name
    assert problem['value'] == value
    assert problem['msg'].startswith('%s=' % name)
    assert problem['fix'] == 'set %s to %s' % (name, phrase) or problem['fix'].startswith('set %s to %s' % (name, phrase))


def test_every_problem_is_reported_at_once():
    problems = _by_name(check_role_vars({
        'vllm_serve_max_model_length': 1, 'vllm_serve_port': 'x', 'image_pull_retries': 'y', 'vllm_serve_model': 'ok',
    }, SPECS))
    assert sorted(problems) == ['image_pull_retries', 'vllm_serve_max_model_length', 'vllm_serve_port']


class _LazyVars(dict):
    """Like HostVarsVars: a value is only templated when read."""

    def __getitem__(self, key):
        if key == 'vllm_serve_port':
            raise RuntimeError("'undefined_thing' is undefined")
        if key == 'unrelated':
            raise AssertionError('unrelated variables must not be read')
        return dict.__getitem__(self, key)


def test_only_role_variables_are_read_and_template_errors_are_reported():
    (problem,) = check_role_vars(_LazyVars({'vllm_serve_port': None, 'unrelated': None}), SPECS)
    assert problem['variable'] == 'vllm_serve_port'
    assert 'undefined_thing' in problem['msg']


def test_prefixes_can_be_narrowed():
    assert check_role_vars({'vllm_serve_nonsense': 1}, SPECS, prefixes=['npu_check_']) == []


@pytest.mark.parametrize('specs', ['not a dict', {}, {'role': {'no': 'argument_specs'}}])
def test_bad_specs_raise(specs):
    with pytest.raises(ValueError):
        check_role_vars({}, specs)


def _names_set_by_the_collection():
    """Variables the playbooks and roles register or set as facts under a role prefix."""
    names = set()
    prefix = ('vllm_serve_', 'npu_check_', 'image_pull_', 'container_run_', 'ascend_vllm_')

    def walk(node):
        if isinstance(node, dict):
            if isinstance(node.get('register'), str):
                names.add(node['register'])
            for key in ('ansible.builtin.set_fact', 'set_fact'):
                if isinstance(node.get(key), dict):
                    names.update(node[key])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    for top in ('roles', 'playbooks'):
        for folder, _dirs, files in os.walk(os.path.join(ROOT, top)):
            for name in files:
                if name.endswith('.yml') and ('tasks' in folder or top == 'playbooks'):
                    with open(os.path.join(folder, name)) as handle:
                        walk(yaml.safe_load(handle))
    return sorted(name for name in names if name.startswith(prefix))


def test_variables_the_collection_sets_are_documented_in_the_specs():
    """A fact or registered result a later play sees must not be taken for a misspelt input."""
    names = _names_set_by_the_collection()
    assert 'image_pull_image_ref' in names
    assert check_role_vars(dict((name, None) for name in names), SPECS) == []


def test_a_group_named_like_a_role_is_no_variable():
    assert check_role_vars({'vllm_serve': 1, 'npu_check': 1}, SPECS) == []


@pytest.mark.parametrize('name, value', [
    ('vllm_serve_extra_args', '--enforce-eager'),
    ('vllm_serve_chips', '[0,1]'),
    ('vllm_serve_cudagraph_batch_sizes', '1,2,4,8'),
    ('ascend_vllm_instances', '[{name: a}]'),
])
def test_a_string_where_a_list_is_expected_is_not_split(name, value):
    (problem,) = check_role_vars({name: value}, SPECS)
    assert problem['kind'] == 'type' and problem['value'] == value
    assert 'a string, not a list' in problem['msg']


@pytest.mark.parametrize('variables', [
    {'vllm_serve_api_key': ['sk-secret-1', 'sk-secret-2']},
    {'vllm_serve_apikey': 'sk-secret-1'},
    {'vllm_serve_token': 'sk-secret-1'},
])
def test_a_secret_is_named_but_never_shown(variables):
    (problem,) = check_role_vars(variables, SPECS)
    assert problem['variable'] == list(variables)[0]
    assert 'sk-secret' not in repr(problem)
    assert '(value hidden)' in problem['msg']
