# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""container_run's container as data: what stops it, docker_container's arguments, masking."""

import pytest

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.platforms import get_profile
from ansible_collections.ascend.vllm.plugins.module_utils._redact import MASKED as MASK
from ansible_collections.ascend.vllm.plugins.module_utils.serve._container_run import INPUT_OPTIONS
from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._container_run import (
    clean, docker_args, image_facts, input_problem, mask, missing_inputs, refusal, restarting)
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._container_spec import container_spec

KEY = 'sk-abcdef0123456789'


def _inputs(**changes):
    out = dict((name, option.get('default')) for name, option in INPUT_OPTIONS.items())
    out.update(container_run_image='img:1', container_run_command=['vllm', 'serve', 'm'],
               container_run_profile=get_profile('atlas_200i_pro'))
    out.update(changes)
    return out


def test_complete_inputs_have_no_problem():
    assert input_problem(_inputs()) == '' and missing_inputs(_inputs()) == []


def test_label_problems_come_with_the_missing_inputs():
    problem = input_problem(_inputs(container_run_labels={'bad key': 'x'}, container_run_image=''))
    assert problem.startswith('container_run_labels["bad key"]: not a label key')
    assert '; container_run_image="": container_run needs container_run_profile' in problem


@pytest.mark.parametrize('existing, info, expected', [
    ({'restarting': True}, None, True),
    ({'restarting': 'no'}, {'container': {'State': {'Restarting': True}}}, False),
    ('x', None, False),
    (None, {'exists': True, 'container': {'State': {'Restarting': True}}}, True),
    (None, {'exists': False, 'container': None}, False),
    (None, None, False),
])
def test_restarting_reads_preflight_first_then_the_node(existing, info, expected):
    assert restarting(existing, info) is expected


def test_image_facts():
    assert image_facts({'images': [{'Config': {'Env': ['A=1']}, 'Architecture': 'amd64'}]}) == (['A=1'], 'amd64')
    assert image_facts({'images': []}) == ([], '') == image_facts(None)


def test_docker_args_carry_the_spec_and_the_settings():
    inputs = _inputs(container_run_log_max_file=5, container_run_recreate='yes')
    spec = container_spec(inputs['container_run_profile'], inputs)
    args = docker_args(inputs, spec, True)
    assert args['log_options'] == {'max-size': '100m', 'max-file': '5'}
    assert args['recreate'] is True and args['restart'] is True and args['image_name_mismatch'] == 'ignore'
    assert args['labels'] == spec['labels'] and 'secret_values' not in args and 'label_problems' not in args


def test_mask_and_clean_hide_every_secret():
    assert mask('token %s here, again %s' % (KEY, KEY), [KEY]) == 'token %s here, again %s' % (MASK, MASK)
    # A value too short to search for is still hidden next to its name.
    assert mask('HF_TOKEN=abc', ['abc']) == 'HF_TOKEN=<redacted>'
    cleaned = clean({'changed': True, 'invocation': {'module_args': {'env': {'X': KEY}}}, '_ansible_no_log': False,
                     'container': {'Config': {'Env': ['VLLM_API_KEY=' + KEY, 'OTHER=' + KEY + 'x']}}}, [KEY])
    env = ['VLLM_API_KEY=<redacted>', 'OTHER=<redacted>x']
    assert cleaned == {'changed': True, 'container': {'Config': {'Env': env}}}
    assert clean(None, []) == {}


@pytest.mark.parametrize('restored, tail', [
    (None, ''),
    ('', '. The previous container c serves again, unchanged.'),
    ('could not start c: x', '. Putting the previous container back as c failed too: could not start c: x'),
])
def test_refusal(restored, tail):
    assert refusal('c', {'msg': 'bad %s' % KEY}, [KEY], restored) == \
        'docker_container refused the container c: bad %s%s' % (MASK, tail)
    assert refusal('c', {}, [], None) == 'docker_container refused the container c: no message'
