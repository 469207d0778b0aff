# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
name: eval_inputs
short_description: Check the eval role's variables and read its datasets, on the controller
version_added: 0.1.0
description:
  - >-
    Judges the C(eval_*) variables before any request is sent: known datasets, a local directory per dataset
    that holds the file AISBench reads (nothing is downloaded at run time), a tolerance from 0 to 100, the runner,
    positive concurrency levels and counts, and that the controller can draw the plots (matplotlib). Every problem
    is reported at once in the preflight report shape, naming the variable, its value and the fix.
  - >-
    When there is no problem and the builtin runner scores gsm8k, it also reads C(test.jsonl) of the gsm8k
    directory (the first C(eval_limit) questions) so the runner on the node gets the questions and gold numbers.
  - Runs on the controller, where the dataset directories are; no host is contacted.
author:
  - ascend.vllm maintainers (@ascend-vllm)
options:
  _input:
    description: The role's variables, normally C(vars); only C(eval_*) names are read.
    type: dict
    required: true
'''

EXAMPLES = r'''
- name: Check the inputs and read the datasets
  ansible.builtin.set_fact:
    __eval_inputs: "{{ vars | ascend.vllm.eval_inputs }}"
'''

RETURN = r'''
_value:
  description: The problems and the datasets read.
  type: dict
  contains:
    problems:
      description: Each problem as C({check, msg, fix}); empty when all is well.
      type: list
      elements: dict
    datasets:
      description: Dataset name to its items C({question, answer}) for the builtin runner; empty otherwise.
      type: dict
    message:
      description: The failure message (a count line, then each problem with its fix), or empty.
      type: str
'''

import importlib.util

from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.module_utils._eval import (
    input_problems, load_gsm8k, problem, problems_report)
from ansible_collections.ascend.vllm.plugins.module_utils._instances import plain


def eval_inputs(variables):
    """{'problems': [...], 'datasets': {...}} from the eval role's variables."""
    if not isinstance(variables, dict):
        raise AnsibleFilterError('eval_inputs expects the variables as a dict, got %s' % type(variables).__name__)
    settings = plain({k: v for k, v in variables.items() if str(k).startswith('eval_')})
    problems = input_problems(settings, plots_available=importlib.util.find_spec('matplotlib') is not None)
    datasets = {}
    wants_gsm8k = settings.get('eval_accuracy') and 'gsm8k' in (settings.get('eval_datasets') or [])
    if not problems and wants_gsm8k and settings.get('eval_runner') == 'builtin':
        path = settings['eval_dataset_dirs']['gsm8k']
        try:
            datasets['gsm8k'] = load_gsm8k(path, settings.get('eval_limit'))
        except (OSError, ValueError) as exc:
            problems.append(problem('eval_dataset_dirs', 'eval_dataset_dirs.gsm8k=%s: %s' % (path, exc),
                                    'replace test.jsonl with the gsm8k test split'))
        if not problems and not datasets['gsm8k']:
            problems.append(problem('eval_dataset_dirs', 'eval_dataset_dirs.gsm8k=%s: test.jsonl has no questions'
                                    % path, 'replace test.jsonl with the gsm8k test split'))
    return {'problems': problems, 'datasets': datasets,
            'message': problems_report(problems, variables.get('inventory_hostname', 'localhost')) if problems else ''}


class FilterModule(object):
    """The eval role's input check."""

    def filters(self):
        return {'eval_inputs': eval_inputs}
