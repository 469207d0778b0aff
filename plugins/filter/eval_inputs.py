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

import importlib.util
import os

from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.module_utils.evaluation._eval import (
    DATASETS, input_problems, load_gsm8k, problem, problems_report, report_dir)
from ansible_collections.ascend.vllm.plugins.module_utils.evaluation._eval_textvqa import load_textvqa
from ansible_collections.ascend.vllm.plugins.module_utils.evaluation._eval_aisbench import (
    default_venv, layout_problems, venv_problems)
from ansible_collections.ascend.vllm.plugins.module_utils.serve._instances import plain


def eval_inputs(variables):
    """{'problems': [...], 'datasets': {...}} from the eval role's variables."""
    if not isinstance(variables, dict):
        raise AnsibleFilterError('eval_inputs expects the variables as a dict, got %s' % type(variables).__name__)
    settings = plain({k: v for k, v in variables.items() if str(k).startswith('eval_')})
    problems = input_problems(settings, plots_available=importlib.util.find_spec('matplotlib') is not None)
    venv = settings.get('eval_aisbench_venv') or default_venv(os.path.expanduser('~'), os.environ.get('XDG_CACHE_HOME'))
    if settings.get('eval_runner') == 'aisbench':
        problems.extend(aisbench_problems(settings, venv))
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
    if not problems and settings.get('eval_accuracy') and settings.get('eval_runner') == 'builtin' \
            and 'textvqa' in (settings.get('eval_datasets') or []):
        datasets['textvqa'] = read_textvqa(settings, problems)
    dirs = settings.get('eval_dataset_dirs') if isinstance(settings.get('eval_dataset_dirs'), dict) else {}
    aisbench_dirs = {name: os.path.abspath(dirs[name]) for name in settings.get('eval_datasets') or []
                     if settings.get('eval_accuracy') and not problems and settings.get('eval_runner') == 'aisbench'}
    # The filter runs in the controller's process, whose working directory is where ansible-playbook was run.
    where = report_dir(settings['eval_report_dir'], os.getcwd()) if not problems else ''
    return {'problems': problems, 'datasets': datasets, 'aisbench_venv': venv, 'aisbench_dirs': aisbench_dirs,
            'report_dir': where,
            'message': problems_report(problems, variables.get('inventory_hostname', 'localhost')) if problems else ''}


def read_textvqa(settings, problems):
    """The textvqa items for the builtin runner (images as base64), or [] with a problem appended."""
    path = settings['eval_dataset_dirs']['textvqa']
    try:
        items = load_textvqa(path, settings.get('eval_limit'))
    except (OSError, ValueError) as exc:
        problems.append(problem('eval_dataset_dirs', 'eval_dataset_dirs.textvqa=%s: %s' % (path, exc),
                                'fix the textvqa files there, or set eval_limit (the builtin runner), or use '
                                'eval_runner: aisbench for the whole set'))
        return []
    if not items:
        problems.append(problem('eval_dataset_dirs', 'eval_dataset_dirs.textvqa=%s: textvqa_val.jsonl has no '
                                'questions' % path, 'unpack AISBench\'s textvqa archive there'))
    return items


def aisbench_problems(settings, venv):
    """The AISBench runner's own checks: its installation, and the layout of each dataset directory found so far."""
    out = venv_problems(venv)
    if not settings.get('eval_accuracy'):
        return out
    dirs = settings.get('eval_dataset_dirs') if isinstance(settings.get('eval_dataset_dirs'), dict) else {}
    for name in settings.get('eval_datasets') or []:
        # Only where the common check found the dataset's main file: otherwise that problem is already reported.
        if name in DATASETS and dirs.get(name) and os.path.isfile(os.path.join(dirs[name], DATASETS[name]['file'])):
            try:
                out.extend(layout_problems(name, dirs[name]))
            except (OSError, ValueError) as exc:
                out.append(problem('eval_dataset_dirs', 'eval_dataset_dirs.%s=%s: %s' % (name, dirs[name], exc),
                                   'put the %s files AISBench reads there' % name))
    return out


class FilterModule(object):
    """The eval role's input check."""

    def filters(self):
        return {'eval_inputs': eval_inputs}
