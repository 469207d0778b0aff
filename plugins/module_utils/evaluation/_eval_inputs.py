# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The eval role's inputs judged and its datasets read, on the controller, before any request.

The ``ascend.vllm.eval_plan`` action calls ``eval_inputs`` with the templated ``eval_*``
variables of a host. It runs in the controller's process: the dataset directories, the
AISBench virtual environment, matplotlib and the working directory (for a relative
``eval_report_dir``) are the controller's.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import importlib.util
import os

from ansible_collections.ascend.vllm.plugins.module_utils.evaluation._eval import (
    DATASETS, input_problems, load_gsm8k, problem, problems_report, report_dir)
from ansible_collections.ascend.vllm.plugins.module_utils.evaluation._eval_textvqa import load_textvqa
from ansible_collections.ascend.vllm.plugins.module_utils.evaluation._eval_aisbench import (
    default_venv, layout_problems, venv_problems)
from ansible_collections.ascend.vllm.plugins.module_utils.serve._instances import plain


def eval_inputs(settings, host='localhost'):
    """The problems of the ``eval_*`` variables in ``settings`` and the datasets the runner needs.

    Returns ``problems`` (each ``{check, msg, fix}``), ``datasets`` (the builtin runner's items),
    ``aisbench_venv``, ``aisbench_dirs`` (absolute), ``report_dir`` (absolute, empty when there is a
    problem) and ``message`` (the failure message naming ``host``, empty when there is no problem).
    Names that do not start with ``eval_`` are ignored.
    """
    if not isinstance(settings, dict):
        raise ValueError('eval_inputs expects the variables as a dict, got %s' % type(settings).__name__)
    settings = plain({k: v for k, v in settings.items() if str(k).startswith('eval_')})
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
    # This runs in the controller's process, whose working directory is where ansible-playbook was run.
    where = report_dir(settings['eval_report_dir'], os.getcwd()) if not problems else ''
    return {'problems': problems, 'datasets': datasets, 'aisbench_venv': venv, 'aisbench_dirs': aisbench_dirs,
            'report_dir': where, 'message': problems_report(problems, host) if problems else ''}


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
