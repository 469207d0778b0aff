# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The eval role's inputs judged and its datasets read, on the controller, before any request.

The ``ascend.vllm.eval_plan`` action calls ``eval_inputs`` with the templated ``eval_*``
variables of a host. It runs in the controller's process: the dataset directories, the
AISBench virtual environment, matplotlib and the working directory (for a relative
``eval_report_dir``) are the controller's.
"""

import importlib.util
import math
import os

from ansible_collections.ascend.vllm.plugins.module_utils.evaluation._eval import (
    DATASETS, RUNNERS, load_gsm8k, problems_report, report_dir)
from ansible_collections.ascend.vllm.plugins.module_utils._problem import problem
from ansible_collections.ascend.vllm.plugins.module_utils.evaluation._eval_textvqa import load_textvqa
from ansible_collections.ascend.vllm.plugins.module_utils.evaluation._eval_aisbench import (
    default_venv, layout_problems, venv_problems)
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._formats import unknown_dataset
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._ranges import RANGES, range_problem
from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._instances import is_integer, plain


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
    if settings.get('eval_accuracy') and settings.get('eval_runner') == 'builtin':
        for name in [name for name in BUILTIN_READS if name in (settings.get('eval_datasets') or [])]:
            if not problems:
                datasets[name] = read_dataset(settings, name, problems)
    dirs = settings.get('eval_dataset_dirs') if isinstance(settings.get('eval_dataset_dirs'), dict) else {}
    aisbench_dirs = {name: os.path.abspath(dirs[name]) for name in settings.get('eval_datasets') or []
                     if settings.get('eval_accuracy') and not problems and settings.get('eval_runner') == 'aisbench'}
    # This runs in the controller's process, whose working directory is where ansible-playbook was run.
    where = report_dir(settings['eval_report_dir'], os.getcwd()) if not problems else ''
    return {'problems': problems, 'datasets': datasets, 'aisbench_venv': venv, 'aisbench_dirs': aisbench_dirs,
            'report_dir': where, 'message': problems_report(problems, host) if problems else ''}


# What the builtin runner reads of a dataset: its loader, its file, and the fix when it cannot be read or is empty.
BUILTIN_READS = {
    'gsm8k': (load_gsm8k, 'test.jsonl', 'replace test.jsonl with the gsm8k test split',
              'replace test.jsonl with the gsm8k test split'),
    'textvqa': (load_textvqa, 'textvqa_val.jsonl', 'fix the textvqa files there, or set eval_limit (the builtin '
                'runner), or use eval_runner: aisbench for the whole set', 'unpack AISBench\'s textvqa archive there'),
}


def read_dataset(settings, name, problems):
    """The items of dataset ``name`` for the builtin runner (textvqa's images as base64), or [] with a problem
    appended."""
    path = settings['eval_dataset_dirs'][name]
    load, file, broken, empty = BUILTIN_READS[name]
    try:
        items = load(path, settings.get('eval_limit'))
    except (OSError, ValueError) as exc:
        problems.append(problem('eval_dataset_dirs', 'eval_dataset_dirs.%s=%s: %s' % (name, path, exc), broken))
        return []
    if not items:
        problems.append(problem('eval_dataset_dirs', 'eval_dataset_dirs.%s=%s: %s has no questions' % (name, path, file),
                                empty))
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


def dataset_problems(datasets, dirs):
    """Problems of eval_datasets and eval_dataset_dirs (unknown names, missing directories or files)."""
    found = []
    if not isinstance(datasets, list) or not datasets:
        return [problem('eval_datasets', 'eval_datasets=%r: a non-empty list of dataset names is needed' % (datasets,),
                        'set eval_datasets to a list from: %s (or [] with eval_accuracy: false)' % ', '.join(DATASETS))]
    dirs = dirs if isinstance(dirs, dict) else {}
    for name in datasets:
        spec = DATASETS.get(name)
        if spec is None:
            # The words preflight uses too (contracts/_formats.py).
            unknown = unknown_dataset('eval_datasets', name)
            found.append(problem('eval_datasets', unknown['msg'], unknown['fix']))
            continue
        path = dirs.get(name)
        if not path:
            found.append(problem('eval_dataset_dirs', 'eval_dataset_dirs.%s is not set: no local directory for %s'
                                 % (name, name), 'set eval_dataset_dirs.%s to a directory on the controller and %s'
                                 % (name, spec['get'])))
        elif not os.path.isdir(path):
            found.append(problem('eval_dataset_dirs', 'eval_dataset_dirs.%s=%s: no such directory on the controller '
                                 '(nothing is downloaded at run time)' % (name, path),
                                 'create it and %s' % spec['get']))
        elif not os.path.isfile(os.path.join(path, spec['file'])):
            found.append(problem('eval_dataset_dirs', 'eval_dataset_dirs.%s=%s: %s is missing there'
                                 % (name, path, spec['file']), spec['get']))
    return found


def setting_problems(settings):
    """Problems of the scalar settings: tolerance, runner, concurrency, counts, output length."""
    found = []
    # The ranges are contracts/_ranges.py's (preflight judges them too); the messages are the evaluation's.
    tolerance = settings.get('eval_tolerance')
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not math.isfinite(tolerance) \
            or range_problem('eval_tolerance', tolerance) is not None:
        found.append(problem('eval_tolerance', 'eval_tolerance=%r: the points a score may fall below its reference '
                             'must be a number from %s to %s' % (tolerance, RANGES['eval_tolerance'].minimum,
                                                                 RANGES['eval_tolerance'].maximum),
                             'e.g. eval_tolerance: %s' % RANGES['eval_tolerance'].example))
    runner = settings.get('eval_runner')
    if runner not in RUNNERS:
        found.append(problem('eval_runner', 'eval_runner=%r: unknown runner' % (runner,),
                             'use one of: %s' % ', '.join(RUNNERS)))
    concurrency = settings.get('eval_concurrency')
    if settings.get('eval_performance') and (not isinstance(concurrency, list) or not concurrency
                                             or any(not is_integer(v) or v < 1 for v in concurrency)):
        found.append(problem('eval_concurrency', 'eval_concurrency=%r: a non-empty list of whole numbers of at least 1 '
                             'is needed' % (concurrency,), 'e.g. eval_concurrency: [1, 4, 16]'))
    for name in ('eval_batch_size', 'eval_max_out_len', 'eval_perf_requests', 'eval_perf_input_len',
                 'eval_perf_output_len', 'eval_request_timeout'):
        value = settings.get(name)
        if not is_integer(value) or range_problem(name, value) is not None:
            found.append(problem(name, '%s=%r: a whole number of at least %s is needed' % (name, value, RANGES[name].minimum),
                                 'set %s to a positive whole number (see the role defaults)' % name))
    limit = settings.get('eval_limit')
    if limit is not None and (not is_integer(limit) or range_problem('eval_limit', limit) is not None):
        found.append(problem('eval_limit', 'eval_limit=%r: a whole number of at least 1, or null for every '
                             'question' % (limit,), 'set eval_limit: null, or e.g. 200'))
    return found


def report_dir_problems(settings):
    """eval_report_dir must name a directory."""
    value = settings.get('eval_report_dir')
    if not isinstance(value, str) or not value.strip():
        return [problem('eval_report_dir', 'eval_report_dir=%r: a directory path is needed' % (value,),
                        'e.g. eval_report_dir: eval-results (taken from where ansible-playbook runs)')]
    return []


def input_problems(settings, plots_available=True):
    """Every problem of the eval role's variables, judged on the controller before any request is sent."""
    found = setting_problems(settings) + report_dir_problems(settings)
    if settings.get('eval_accuracy'):
        found.extend(dataset_problems(settings.get('eval_datasets'), settings.get('eval_dataset_dirs')))
    if not settings.get('eval_accuracy') and not settings.get('eval_performance'):
        found.append(problem('eval_accuracy', 'eval_accuracy=false and eval_performance=false: nothing to evaluate',
                             'set eval_accuracy: true or eval_performance: true'))
    if settings.get('eval_performance') and not plots_available:
        found.append(problem('eval_performance', 'the performance plots need matplotlib, which the controller\'s '
                             'Python cannot import', 'pip install matplotlib into the Python that runs '
                             'ansible-playbook (make setup does), then run again'))
    return found
