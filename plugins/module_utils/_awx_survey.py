# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""AWX survey specs for the ascend.vllm job templates, built from the platform profiles and the
model catalog (so a platform or model added to the collection shows up in every survey)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.ascend.vllm.plugins.module_utils.models import GUIDE_DEFAULTS, get_model, model_names
from ansible_collections.ascend.vllm.plugins.module_utils.platforms import PLATFORMS, profile_names

try:
    from typing import Any, Dict, List  # noqa: F401 pylint: disable=unused-import
except ImportError:  # pragma: no cover
    pass

# The job templates that carry a survey (playbooks/awx_objects.yml names their playbooks).
JOB_TEMPLATES = ('preflight', 'deploy', 'verify', 'teardown')

PORT_MAX = 65535
# An upper bound for the survey field only; preflight's memory plan is the real limit.
MAX_NUM_SEQS = 1024


def tp_choices():
    # type: () -> List[str]
    """Every tensor-parallel size some built-in platform allows, as survey choices."""
    sizes = set()
    for profile in PLATFORMS.values():
        sizes.update(int(size) for size in profile['allowed_tp'])
    return [str(size) for size in sorted(sizes)]


def max_model_len_limit():
    # type: () -> int
    """The longest context any catalog model takes (max_position_embeddings)."""
    return max(int(get_model(name)['max_position_embeddings']) for name in model_names())


def _question(variable, name, kind, description, **extra):
    # type: (str, str, str, str, **Any) -> Dict[str, Any]
    # Every question is optional: an unanswered question passes no extra variable, so the
    # inventory's value (group_vars, host vars) stands.
    question = {'variable': variable, 'question_name': name, 'question_description': description,
                'type': kind, 'required': False, 'default': ''}
    question.update(extra)
    return question


def survey_spec(template):
    # type: (str) -> Dict[str, Any]
    """The survey spec (AWX's survey_spec document) of one job template."""
    if template not in JOB_TEMPLATES:
        raise ValueError('unknown job template %r; known: %s' % (template, ', '.join(sorted(JOB_TEMPLATES))))
    spec = [
        _question('ascend_vllm_platform', 'Platform', 'multiplechoice',
                  'Platform profile for every host of the job; blank: each host\'s platform group.',
                  choices=profile_names()),
        _question('vllm_serve_model', 'Model', 'multiplechoice',
                  'Model to serve (FP16); blank: the inventory\'s vllm_serve_model.', choices=model_names()),
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
        _question('vllm_serve_port', 'Port', 'integer', 'Port the server is published on.', min=1, max=PORT_MAX),
    ]
    return {'name': 'ascend.vllm %s' % template,
            'description': 'Overrides for this run; blank answers keep the inventory\'s values.',
            'spec': spec}


def _injected(field):
    # type: (str) -> str
    # AWX renders its injector templates at launch; the string must reach AWX unrendered.
    return '{{ ' + field + ' }}'


def credential_types():
    # type: () -> List[Dict[str, Any]]
    """The credential types of the job templates: the service API key and registry credentials."""
    return [
        {'name': 'ascend.vllm API key', 'kind': 'cloud',
         'description': 'The API key vLLM requires (VLLM_API_KEY in the container); sent by the smoke tests.',
         'inputs': {'fields': [{'id': 'api_key', 'type': 'string', 'label': 'API key', 'secret': True}],
                    'required': ['api_key']},
         'injectors': {'extra_vars': {'vllm_serve_api_key': _injected('api_key')}}},
        {'name': 'ascend.vllm registry', 'kind': 'cloud',
         'description': 'Credentials of the registry the vllm-ascend image comes from (for a docker_login play).',
         'inputs': {'fields': [{'id': 'host', 'type': 'string', 'label': 'Registry'},
                               {'id': 'username', 'type': 'string', 'label': 'Username'},
                               {'id': 'password', 'type': 'string', 'label': 'Password', 'secret': True}],
                    'required': ['host', 'username', 'password']},
         'injectors': {'extra_vars': {'awx_registry_host': _injected('host'),
                                      'awx_registry_username': _injected('username'),
                                      'awx_registry_password': _injected('password')}}},
    ]
