# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The AWX surveys come from the platform profiles and the model catalog."""

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.filter.awx_survey import awx_survey
from ansible_collections.ascend.vllm.plugins.plugin_utils.fleet import _awx_survey
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.models import get_model, model_names
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.platforms import PLATFORMS, profile_names

QUESTIONS = ['ascend_vllm_platform', 'vllm_serve_model', 'vllm_serve_tensor_parallel_size',
             'vllm_serve_max_model_len', 'vllm_serve_max_num_seqs', 'image_pull_tag', 'vllm_serve_port']
ALL = list(_awx_survey.JOB_TEMPLATES) + ['workflow', 'upgrade_workflow']


def _by_variable(spec):
    return dict((question['variable'], question) for question in spec['spec'])


@pytest.mark.parametrize('template', ['preflight', 'deploy', 'upgrade', 'workflow', 'upgrade_workflow'])
def test_survey_choices_are_the_catalog(template):
    questions = _by_variable(awx_survey(template))
    assert [q['variable'] for q in awx_survey(template)['spec']][:len(QUESTIONS)] == QUESTIONS
    assert questions['ascend_vllm_platform']['choices'] == profile_names() == sorted(PLATFORMS)
    assert questions['vllm_serve_model']['choices'] == model_names()
    assert set(questions['vllm_serve_model']['choices']) >= {'Qwen/Qwen3.5-2B', 'Qwen/Qwen3.5-4B', 'Qwen/Qwen3.5-9B'}
    allowed = set(size for profile in PLATFORMS.values() for size in profile['allowed_tp'])
    # A model's own sizes count too: TP 4 is the 27B tutorial's on the 300I DUO.
    allowed |= set(size for name in model_names() for sizes in (get_model(name).get('allowed_tp') or {}).values()
                   for size in sizes)
    assert questions['vllm_serve_tensor_parallel_size']['choices'] == [str(size) for size in sorted(allowed)] \
        == ['1', '2', '4']
    longest = max(get_model(name)['max_position_embeddings'] for name in model_names())
    assert questions['vllm_serve_max_model_len']['max'] == longest
    assert (questions['vllm_serve_port']['min'], questions['vllm_serve_port']['max']) == (1, 65535)
    # Unanswered questions pass nothing: the inventory's value stands.
    assert all(not q['required'] and q['default'] == '' for q in questions.values())


def _awx_applies_default(question):
    """AWX's launch rule (JobTemplate._update_unified_job_kwargs): a survey default is passed as an
    extra variable whenever it passes the question's own validation."""
    default = question['default']
    if question['type'] == 'multiplechoice':
        return default in question['choices']
    if question['type'] == 'integer':
        return isinstance(default, int) and question['min'] <= default <= question['max']
    if question['type'] == 'float':
        return isinstance(default, (int, float)) and question['min'] <= default <= question['max']
    assert question['type'] == 'text', question
    return isinstance(default, str) and question['min'] <= len(default) <= question['max']


@pytest.mark.parametrize('template', ALL)
def test_awx_passes_no_default_for_an_unanswered_question(template):
    """Otherwise an unanswered question would override the inventory (image_pull_tag='' did)."""
    questions = _by_variable(awx_survey(template))
    assert [name for name, question in questions.items() if _awx_applies_default(question)] == []
    if 'image_pull_tag' in questions:
        assert questions['image_pull_tag']['min'] == 1


def test_a_platform_added_to_the_catalog_shows_up(monkeypatch):
    extra = dict(PLATFORMS['atlas_300i_duo'], allowed_tp=[1, 2, 4])
    monkeypatch.setitem(PLATFORMS, 'atlas_test_board', extra)
    questions = _by_variable(awx_survey('deploy'))
    assert 'atlas_test_board' in questions['ascend_vllm_platform']['choices']
    assert questions['vllm_serve_tensor_parallel_size']['choices'] == ['1', '2', '4']


def test_unknown_template_is_refused():
    with pytest.raises(AnsibleFilterError, match='unknown job template .upgrades.; known: deploy, diagnose'):
        awx_survey('upgrades')


def test_job_templates_list_matches_the_module():
    assert _awx_survey.JOB_TEMPLATES == ('preflight', 'deploy', 'verify', 'upgrade', 'eval', 'diagnose', 'teardown')
    assert set(_awx_survey.REACHES) == set(_awx_survey.JOB_TEMPLATES)


@pytest.mark.parametrize('template, reaches, asked', [
    # A playbook that reaches nothing reading a variable asks nothing about it.
    ('verify', ('vllm_serve/verify',), ['ascend_vllm_platform', 'vllm_serve_model', 'vllm_serve_port']),
    # eval/main plans the host (the instances it evaluates) and reads its own settings.
    ('verify', ('eval/main',), ['ascend_vllm_platform', 'vllm_serve_model', 'vllm_serve_port', 'eval_limit',
                                'eval_tolerance', 'eval_perf_requests']),
    ('verify', ('playbooks/teardown.yml',), ['ascend_vllm_teardown_remove_image']),
    ('verify', (), []),
])
def test_a_survey_asks_what_the_playbook_reaches(monkeypatch, template, reaches, asked):
    monkeypatch.setitem(_awx_survey.REACHES, template, reaches)
    assert [q['variable'] for q in awx_survey(template)['spec']] == asked


@pytest.mark.parametrize('workflow, name', [('workflow', 'ascend.vllm workflow'),
                                            ('upgrade_workflow', 'ascend.vllm upgrade workflow')])
def test_the_workflow_survey_is_every_question_of_its_nodes_once(workflow, name):
    variables = [q['variable'] for q in awx_survey(workflow)['spec']]
    assert len(variables) == len(set(variables))
    nodes = set(q['variable'] for kind in _awx_survey.WORKFLOWS[workflow] for q in awx_survey(kind)['spec'])
    assert set(variables) == nodes
    assert awx_survey(workflow)['name'] == name


def test_a_survey_question_asks_within_the_variables_range():
    """The survey's min and max are the variable's range (contracts/_ranges.py), the one preflight judges:
    an answer the survey takes is never refused by preflight for its size."""
    from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._ranges import RANGES
    from ansible_collections.ascend.vllm.plugins.plugin_utils.fleet._awx_survey import questions
    ranged = [question for question in questions() if question['variable'] in RANGES]
    assert ranged, 'no survey question of a ranged variable'
    for question in ranged:
        bounds = RANGES[question['variable']]
        assert question['min'] == bounds.minimum, question
        assert bounds.maximum is None or question['max'] == bounds.maximum, question
