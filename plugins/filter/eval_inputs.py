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
    positive concurrency levels and counts, a report directory, and that the controller can draw the plots
    (matplotlib). Every problem
    is reported at once in the preflight report shape, naming the variable, its value and the fix.
  - >-
    With C(eval_runner=aisbench) it also checks that AISBench is installed in C(eval_aisbench_venv) (null: where
    C(make aisbench) installs it) and that each dataset directory has every file AISBench's loader opens (gsm8k
    C(train.jsonl) and C(test.jsonl); textvqa its questions, annotations and images), naming the command to
    install it or the missing file.
  - >-
    When there is no problem and the builtin runner scores gsm8k, it also reads C(test.jsonl) of the gsm8k
    directory (the first C(eval_limit) questions) so the runner on the node gets the questions and gold numbers;
    for textvqa it reads the questions, their annotators' answers and the images (base64, at most 64 MB in all:
    set C(eval_limit) or use the AISBench runner for the whole set).
  - Runs on the controller, where the dataset directories are; no host is contacted.
author:
  - ascend.vllm maintainers (!UNKNOWN)
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
      description: Dataset name to its items for the builtin runner (gsm8k C({question, answer}); textvqa
        C({question_id, question, answers, image})); empty otherwise.
      type: dict
    message:
      description: The failure message (a count line, then each problem with its fix), or empty.
      type: str
    aisbench_venv:
      description: The AISBench virtual environment the AISBench runner uses (C(eval_aisbench_venv) or its default).
      type: str
    report_dir:
      description: C(eval_report_dir) as an absolute path, a relative one taken from the directory ansible-playbook
        was run from (the controller's working directory); empty when there is a problem.
      type: str
    aisbench_dirs:
      description: For the AISBench runner with no problem, each dataset of C(eval_datasets) to its directory as an
        absolute path; empty otherwise.
      type: dict
'''

from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.module_utils.evaluation._eval_inputs import eval_inputs as _eval_inputs


def eval_inputs(variables):
    """{'problems': [...], 'datasets': {...}} from the eval role's variables."""
    if not isinstance(variables, dict):
        raise AnsibleFilterError('eval_inputs expects the variables as a dict, got %s' % type(variables).__name__)
    return _eval_inputs(variables, variables.get('inventory_hostname', 'localhost'))


class FilterModule(object):
    """The eval role's input check."""

    def filters(self):
        return {'eval_inputs': eval_inputs}
