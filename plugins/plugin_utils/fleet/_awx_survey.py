# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""AWX survey specs and credentials of the ascend.vllm job templates and workflow: each survey asks
only what its playbook reads, with choices from the platform profiles and the model catalog (so a
platform or model added to the collection shows up in every survey)."""

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.models import GUIDE_DEFAULTS, get_model, model_names
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.platforms import PLATFORMS, profile_names
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._ranges import RANGES

from typing import Any, Dict, List

# The job templates, in the order AWX lists them, each with the playbook it runs and what that
# playbook reaches: the playbook files it imports and each role entry ("role/tasks_from", or
# "role/absent" for main with the role's state absent) it runs.
# tests/unit/playbooks/test_awx_objects.py walks the playbooks and checks every list below.
TEMPLATES = (
    ('preflight', 'playbooks/preflight.yml'),
    ('deploy', 'site.yml'),
    ('verify', 'playbooks/verify.yml'),
    ('upgrade', 'playbooks/upgrade.yml'),
    ('eval', 'playbooks/eval.yml'),
    ('diagnose', 'playbooks/diagnose.yml'),
    ('teardown', 'playbooks/teardown.yml'),
)
JOB_TEMPLATES = tuple(kind for kind, _playbook in TEMPLATES)
# The workflows and the job templates their nodes run (playbooks/awx_objects.yml wires them): each
# node on the success of the one before it, diagnose on the failure of the deploy or upgrade or of
# verify, the upgrade only after an approval node.
WORKFLOWS = {
    'workflow': ('preflight', 'deploy', 'verify', 'eval', 'diagnose'),
    'upgrade_workflow': ('preflight', 'upgrade', 'verify', 'eval', 'diagnose'),
}

# playbooks/hosts.yml (which hosts are the collection's) starts every playbook.
_HOSTS = ('playbooks/hosts.yml',)
# preflight.yml's first play is the host_plan action: it reads every variable of every role.
_PREFLIGHT = ('playbooks/preflight.yml',) + _HOSTS + ('host_plan',)
_DEPLOY = ('playbooks/deploy.yml',) + _HOSTS + (
    'image_pull/resolve', 'image_pull/main', 'vllm_serve/main', 'balancer/main', 'vllm_serve/metrics')
_VERIFY = ('playbooks/verify.yml',) + _HOSTS + ('vllm_serve/verify',)
_SUMMARY = ('vllm_serve/summary',)
REACHES = {
    'preflight': _PREFLIGHT,
    'deploy': ('site.yml', 'playbooks/site.yml') + _PREFLIGHT + _DEPLOY + _VERIFY + _SUMMARY,
    'verify': _VERIFY,
    'upgrade': ('playbooks/upgrade.yml',) + _PREFLIGHT + _DEPLOY + _VERIFY + _SUMMARY,
    'eval': ('playbooks/eval.yml',) + _HOSTS + ('eval/main',),
    'diagnose': ('playbooks/diagnose.yml',) + _HOSTS + ('vllm_serve/diagnose',),
    'teardown': ('playbooks/teardown.yml',) + _HOSTS + (
        'vllm_serve/teardown', 'balancer/absent', 'vllm_serve/metrics', 'image_pull/absent'),
}

# Which role entries (or playbooks) read a variable: a template asks a question, or takes a
# credential, only when its playbook reaches one of them.
_SERVE_PLAN = ('host_plan', 'vllm_serve/preflight', 'vllm_serve/main')
# eval/main plans the host itself (ascend.vllm.host_plan) to find the instances it evaluates.
_INSTANCES = _SERVE_PLAN + ('vllm_serve/verify', 'eval/main', 'vllm_serve/diagnose')
READ_BY = {
    'ascend_vllm_platform': _INSTANCES + ('vllm_serve/teardown', 'image_pull/resolve', 'image_pull/main',
                                          'image_pull/absent'),
    'vllm_serve_model': _INSTANCES,
    'vllm_serve_tensor_parallel_size': _SERVE_PLAN,
    'vllm_serve_max_model_len': _SERVE_PLAN,
    'vllm_serve_max_num_seqs': _SERVE_PLAN,
    'image_pull_tag': ('host_plan', 'image_pull/resolve', 'image_pull/main', 'image_pull/absent'),
    'vllm_serve_port': _INSTANCES,
    'eval_limit': ('eval/main',),
    'eval_tolerance': ('eval/main',),
    'eval_perf_requests': ('eval/main',),
    'ascend_vllm_teardown_remove_image': ('playbooks/teardown.yml',),
    # The service API key: the deploy passes it to vLLM, verify and eval send it, preflight checks it.
    'vllm_serve_api_key': _SERVE_PLAN + ('vllm_serve/verify', 'balancer/main', 'eval/main'),
    # The registry login: image_pull's main entry logs in before it pulls (resolve and absent never pull).
    'image_pull_login_username': ('image_pull/main',),
}

# Upper bounds for the survey fields only; preflight's memory plan and the eval role are the real limits.
MAX_NUM_SEQS = 1024
MAX_COUNT = 1000000


def tp_choices() -> List[str]:
    """Every tensor-parallel size some built-in platform or catalog model allows, as survey choices."""
    sizes = set(int(size) for profile in PLATFORMS.values() for size in profile['allowed_tp'])
    sizes.update(int(size) for name in model_names()
                 for allowed in (get_model(name).get('allowed_tp') or {}).values() for size in allowed)
    return [str(size) for size in sorted(sizes)]


def max_model_len_limit() -> int:
    """The longest context any catalog model takes (max_position_embeddings)."""
    return max(int(get_model(name)['max_position_embeddings']) for name in model_names())


def _question(variable: str, name: str, kind: str, description: str, **extra: Any) -> Dict[str, Any]:
    # Every question is optional: an unanswered question passes no extra variable, so the
    # inventory's value (group_vars, host vars) stands.
    question = {'variable': variable, 'question_name': name, 'question_description': description,
                'type': kind, 'required': False, 'default': ''}
    bounds = RANGES.get(variable)
    if bounds is not None:
        # The variable's range is contracts/_ranges.py's (preflight judges it); the survey's upper bound
        # for an unbounded count is the survey's own.
        extra = dict(extra, min=bounds.minimum, max=bounds.maximum if bounds.maximum is not None else extra['max'])
    question.update(extra)
    return question


def questions() -> List[Dict[str, Any]]:
    """Every survey question, in the order a survey shows them."""
    return [
        _question('ascend_vllm_platform', 'Platform', 'multiplechoice',
                  'Platform profile for every host of the job; blank: each host\'s platform group.',
                  choices=profile_names()),
        _question('vllm_serve_model', 'Model', 'multiplechoice',
                  'Model to serve; blank: the inventory\'s vllm_serve_model.', choices=model_names()),
        _question('vllm_serve_tensor_parallel_size', 'Tensor-parallel size', 'multiplechoice',
                  'Chips per server: 1 on Atlas 200I Pro, 1 or 2 on Atlas 300I DUO (guide 5.1).',
                  choices=tp_choices()),
        _question('vllm_serve_max_model_len', 'Max model length', 'integer',
                  'Context length in tokens (guide 5.1: %d); preflight checks that it fits.'
                  % GUIDE_DEFAULTS['max_model_len'], min=1, max=max_model_len_limit()),
        _question('vllm_serve_max_num_seqs', 'Max sequences', 'integer',
                  'Concurrent requests (guide 5.1: %d); preflight checks that they fit.'
                  % GUIDE_DEFAULTS['max_num_seqs'], min=1, max=MAX_NUM_SEQS),
        # min=1: at launch AWX applies every survey default that passes the question's own rules, so with
        # min=0 the blank default would pass image_pull_tag='' and override the inventory's tag.
        _question('image_pull_tag', 'Image tag', 'text',
                  'vllm-ascend release such as v0.23.0; the platform suffix (-310p, -310p-openeuler) is added.',
                  min=1, max=64),
        _question('vllm_serve_port', 'Port', 'integer', 'Port the server is published on.'),
        _question('eval_limit', 'Questions to score', 'integer',
                  'Score only the first N questions of each dataset; blank: the inventory\'s eval_limit.',
                  min=1, max=MAX_COUNT),
        _question('eval_tolerance', 'Accuracy tolerance', 'float',
                  'Points a score may fall below the guide\'s reference before the job fails.'),
        _question('eval_perf_requests', 'Requests per concurrency level', 'integer',
                  'Requests of the performance sweep at each concurrency level.', min=1, max=MAX_COUNT),
        _question('ascend_vllm_teardown_remove_image', 'Remove the image', 'multiplechoice',
                  'Also remove the vllm-ascend image from the nodes; blank: keep it.', choices=['false', 'true']),
    ]


def reads(template: str, variable: str) -> bool:
    """Whether the playbook of a job template reaches something that reads the variable."""
    return bool(set(REACHES[template]) & set(READ_BY[variable]))


def survey_spec(template: str) -> Dict[str, Any]:
    """The survey spec (AWX's survey_spec document) of one job template, or of a workflow (every
    question one of its nodes asks): only the questions its playbook reads."""
    if template not in JOB_TEMPLATES and template not in WORKFLOWS:
        raise ValueError('unknown job template %r; known: %s' % (template, ', '.join(sorted(JOB_TEMPLATES + tuple(WORKFLOWS)))))
    kinds = WORKFLOWS.get(template, (template,))
    spec = [question for question in questions() if any(reads(kind, question['variable']) for kind in kinds)]
    return {'name': 'ascend.vllm %s' % template.replace('_', ' '),
            'description': 'Overrides for this run; blank answers keep the inventory\'s values.',
            'spec': spec}


def _injected(field: str) -> str:
    # AWX renders its injector templates at launch; the string must reach AWX unrendered.
    return '{{ ' + field + ' }}'


def credential_types() -> List[Dict[str, Any]]:
    """The credential types of the job templates: the service API key and registry credentials."""
    return [
        {'name': 'ascend.vllm API key', 'kind': 'cloud',
         'description': 'The API key vLLM requires (VLLM_API_KEY in the container); sent by the smoke tests.',
         'inputs': {'fields': [{'id': 'api_key', 'type': 'string', 'label': 'API key', 'secret': True}],
                    'required': ['api_key']},
         'injectors': {'extra_vars': {'vllm_serve_api_key': _injected('api_key')}}},
        {'name': 'ascend.vllm registry', 'kind': 'cloud',
         'description': 'Login to the registry the vllm-ascend image comes from; image_pull logs in before it pulls.',
         'inputs': {'fields': [{'id': 'host', 'type': 'string', 'label': 'Registry'},
                               {'id': 'username', 'type': 'string', 'label': 'Username'},
                               {'id': 'password', 'type': 'string', 'label': 'Password', 'secret': True}],
                    'required': ['host', 'username', 'password']},
         # image_pull_login_*: what the image_pull role logs in with. awx_registry_*: the names of 0.1 to 0.3,
         # for docker_login plays written against them.
         'injectors': {'extra_vars': {'image_pull_login_registry': _injected('host'),
                                      'image_pull_login_username': _injected('username'),
                                      'image_pull_login_password': _injected('password'),
                                      'awx_registry_host': _injected('host'),
                                      'awx_registry_username': _injected('username'),
                                      'awx_registry_password': _injected('password')}}},
    ]
