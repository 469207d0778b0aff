# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The AWX survey of an ascend.vllm job template, from the platform profiles and model catalog."""

from __future__ import annotations

DOCUMENTATION = r'''
---
name: awx_survey
short_description: The AWX survey spec of an ascend.vllm job template or workflow
version_added: 0.1.0
description:
  - Returns the survey (AWX's C(survey_spec) document) of the job template O(_input) names, or of a
    workflow (V(workflow) or V(upgrade_workflow), every question one of its nodes asks).
  - A survey asks only what its playbook reads (the roles and entry points it reaches), among platform,
    model, tensor-parallel size, max model length, max sequences, image tag, port, the evaluation's
    question limit, tolerance and requests per concurrency level, and teardown's image removal.
  - The platform choices are the collection's platform profiles, the model choices its model catalog,
    the tensor-parallel choices every size a built-in platform allows, and the longest context the
    catalog's models take bounds the max model length; a platform or model added to the collection
    appears in every survey.
  - Every question is optional, so an unanswered one passes no extra variable and the inventory's
    value stands.
author:
  - ascend.vllm maintainers (!UNKNOWN)
options:
  _input:
    description: The job template, or V(workflow), or V(upgrade_workflow) (version 0.4.0).
    type: str
    required: true
    choices: [preflight, deploy, verify, upgrade, eval, diagnose, teardown, workflow, upgrade_workflow]
'''

EXAMPLES = r'''
- name: Create the deploy job template with its survey
  awx.awx.job_template:
    name: ascend.vllm deploy
    project: ascend.vllm
    inventory: ascend.vllm
    playbook: site.yml
    survey_enabled: true
    survey_spec: "{{ 'deploy' | ascend.vllm.awx_survey }}"
'''

RETURN = r'''
_value:
  description: C(name), C(description) and C(spec), the list of survey questions (C(variable),
    C(question_name), C(type), C(choices) or C(min)/C(max), C(required), C(default)), only those
    the playbook reads.
  type: dict
'''

from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.plugin_utils.fleet._awx_survey import survey_spec


def awx_survey(template):
    """Survey spec of one job template."""
    try:
        return survey_spec(template)
    except ValueError as exc:
        raise AnsibleFilterError('awx_survey: %s' % exc)


class FilterModule:
    """AWX survey filter of ascend.vllm."""

    def filters(self):
        return {'awx_survey': awx_survey}
