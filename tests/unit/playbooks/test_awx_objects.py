# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""playbooks/awx_objects.yml: a job template per playbook, each survey rendered by Ansible from
the catalog, and every survey answer a variable the roles read with a type they accept."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import subprocess
import sys

import pytest
import yaml

from ansible_collections.ascend.vllm.plugins.filter.awx_credential_types import awx_credential_types
from ansible_collections.ascend.vllm.plugins.filter.check_role_vars import check_role_vars
from ansible_collections.ascend.vllm.plugins.filter.role_argument_specs import role_argument_specs
from ansible_collections.ascend.vllm.plugins.module_utils.models import model_names
from ansible_collections.ascend.vllm.plugins.module_utils.platforms import profile_names

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))
PLAYBOOK = os.path.join(ROOT, 'playbooks', 'awx_objects.yml')


def _play():
    with open(PLAYBOOK) as handle:
        return yaml.safe_load(handle)[0]


def _task(module):
    return [task for task in _play()['tasks'] if module in task][0][module]


@pytest.fixture(scope='module')
def rendered():
    """The surveys as Ansible renders them from the playbook's own vars and expression."""
    play = _play()
    expression = _task('awx.awx.job_template')['survey_spec'].replace('item.kind', 'kind')
    assert 'ascend.vllm.awx_survey' in expression
    template = '{{ awx_job_templates | map(attribute="kind") | list | to_json }}|||' \
               '{%% for kind in awx_job_templates | map(attribute="kind") %%}%s{{ "\\n" }}{%% endfor %%}' \
               % expression.replace('}}', '| to_json }}')
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, 'ansible.cfg'), ANSIBLE_LOAD_CALLBACK_PLUGINS='1',
               ANSIBLE_STDOUT_CALLBACK='ansible.builtin.json')
    bindir = os.path.dirname(sys.executable)
    out = subprocess.run(
        [os.path.join(bindir, 'ansible'), 'localhost', '-m', 'ansible.builtin.debug', '-a', 'msg=' + template,
         '-e', json.dumps({'awx_job_templates': play['vars']['awx_job_templates']})],
        cwd=ROOT, env=env, capture_output=True, text=True, check=True).stdout
    msg = json.loads(out)['plays'][0]['tasks'][0]['hosts']['localhost']['msg']
    kinds, surveys = msg.split('|||')
    return dict(zip(json.loads(kinds), [json.loads(line) for line in surveys.strip().splitlines()]))


def test_a_job_template_per_playbook():
    templates = _play()['vars']['awx_job_templates']
    assert [t['kind'] for t in templates] == ['preflight', 'deploy', 'verify', 'teardown']
    for template in templates:
        assert os.path.isfile(os.path.join(ROOT, template['playbook'])), template


def test_surveys_rendered_by_ansible_hold_the_catalog(rendered):
    assert sorted(rendered) == ['deploy', 'preflight', 'teardown', 'verify']
    for kind, survey in rendered.items():
        questions = dict((q['variable'], q) for q in survey['spec'])
        assert questions['ascend_vllm_platform']['choices'] == profile_names(), kind
        assert questions['vllm_serve_model']['choices'] == model_names(), kind
        assert set(questions) == {'ascend_vllm_platform', 'vllm_serve_model', 'vllm_serve_tensor_parallel_size',
                                  'vllm_serve_max_model_len', 'vllm_serve_max_num_seqs', 'image_pull_tag',
                                  'vllm_serve_port'}, kind


def test_survey_answers_pass_the_variable_check(rendered):
    """AWX passes multiple-choice answers as strings and integers as numbers."""
    specs = role_argument_specs(os.path.join(ROOT, 'roles'))
    for question in rendered['deploy']['spec']:
        if question['type'] == 'multiplechoice':
            answers = question['choices']
        elif question['type'] == 'integer':
            answers = [question['min'], question['max']]
        else:
            answers = ['v0.23.0']
        for answer in answers:
            assert check_role_vars({question['variable']: answer}, specs) == [], (question['variable'], answer)


def test_credential_types_inject_variables_the_roles_accept():
    specs = role_argument_specs(os.path.join(ROOT, 'roles'))
    task = [t for t in _play()['tasks'] if 'awx.awx.credential_type' in t][0]
    assert 'ascend.vllm.awx_credential_types' in task['loop']
    types = awx_credential_types('all')
    assert [t['name'] for t in types] == ['ascend.vllm API key', 'ascend.vllm registry']
    injected = {}
    for kind in types:
        fields = set(field['id'] for field in kind['inputs']['fields'])
        for name, value in kind['injectors']['extra_vars'].items():
            # AWX renders these at launch from the credential's own fields.
            assert value.strip('{} ') in fields, (name, value)
            injected[name] = value
    assert injected['vllm_serve_api_key'] == '{{ api_key }}'
    assert check_role_vars(dict((name, 'x') for name in injected), specs) == []


def _awx_collection_installed():
    import ansible_collections  # pylint: disable=import-outside-toplevel
    return any(os.path.isfile(os.path.join(base, 'awx', 'awx', 'MANIFEST.json')) for base in ansible_collections.__path__)


@pytest.mark.parametrize('extra', [{}, {'awx_scm_url': '  '}], ids=['unset', 'blank'])
def test_the_project_url_is_required(extra, tmp_path):
    """No invented default: without awx_scm_url the play stops at its first task, naming the variable and the fix."""
    if not _awx_collection_installed():
        pytest.skip('awx.awx is not installed (the ansible package of ansible-core 2.21 no longer bundles it)')
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, 'ansible.cfg'), ANSIBLE_NOCOLOR='1',
               CONTROLLER_HOST='https://127.0.0.1:9', ANSIBLE_LOCAL_TEMP=str(tmp_path))
    proc = subprocess.run([os.path.join(os.path.dirname(sys.executable), 'ansible-playbook'), PLAYBOOK,
                           '-e', json.dumps(extra)], cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 2, out
    assert "AWX | Check that the project's git URL is given" in out
    assert 'the project needs the git URL' in out and 'Fix: -e awx_scm_url=GIT_URL' in out, out
    assert 'AWX | Create the project' not in out
