# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The AISBench runner of the eval role: its installation, its configs, and reading its outputs.

Pure functions, no I/O except reading AISBench's output files (os.path, open). AISBench
(ais-bench-benchmark, pinned) lives in a cached virtual environment on the controller
(scripts/aisbench-venv.sh, ``make aisbench``); the runner writes one config file per instance and
mode, the guide's VLLMCustomAPIChat model block (vllm-ascend docs, "Qwen3.5-Dense" tutorial,
section 7) with its datasets pointed at the operator's local directories, runs
``ais_bench <config>`` (accuracy) and ``ais_bench <config> -m perf`` (performance), and reads
results/, predictions/ and performances/ into the shape the builtin runner returns.
"""

from __future__ import annotations

import csv
import glob
import json
import os
import re

from ansible_collections.ascend.vllm.plugins.module_utils._problem import problem
from ansible_collections.ascend.vllm.plugins.module_utils.evaluation._eval import AISBENCH_MODEL, jsonl_rows

AISBENCH_VERSION = '3.1.20260630'
INSTALL = 'make aisbench (scripts/aisbench-venv.sh; about 2 to 4 minutes and 2.2 GB, once per machine)'
READY_MARKER = '.ascend-vllm-ready'
# Files each dataset directory needs for AISBench's loader (GSM8KDataset reads both splits).
LAYOUT = {
    'gsm8k': ('train.jsonl', 'test.jsonl'),
    'textvqa': ('textvqa_json/textvqa_val.jsonl', 'textvqa_json/textvqa_val_annotations.json'),
}


def default_venv(home, cache_home=None):
    """~/.cache/ascend-vllm/aisbench-<version> (XDG_CACHE_HOME when set), where make aisbench installs."""
    return os.path.join(cache_home or os.path.join(home, '.cache'), 'ascend-vllm', 'aisbench-' + AISBENCH_VERSION)


def venv_problems(venv):
    """A problem when the cached AISBench environment is missing or not finished, with the command to install it."""
    if not venv:
        return [problem('eval_aisbench_venv', 'eval_aisbench_venv is empty: no AISBench environment',
                        'leave eval_aisbench_venv at its default and run: %s' % INSTALL)]
    marker = os.path.join(venv, READY_MARKER)
    if not os.path.isfile(os.path.join(venv, 'bin', 'ais_bench')) or not os.path.isfile(marker):
        wrong = 'eval_aisbench_venv=%s: AISBench %s is not installed there' % (venv, AISBENCH_VERSION)
    else:
        with open(marker) as handle:
            found = handle.read().strip()
        wrong = None if found == AISBENCH_VERSION else (
            'eval_aisbench_venv=%s holds AISBench %s, the collection pins %s' % (venv, found, AISBENCH_VERSION))
    return [problem('eval_aisbench_venv', wrong, 'run on the controller: %s' % INSTALL)] if wrong else []


def layout_problems(name, path):
    """Problems of one dataset directory for AISBench: every file its loader opens, and textvqa's images."""
    missing = [f for f in LAYOUT.get(name, ()) if not os.path.isfile(os.path.join(path, f))]
    if missing:
        return [problem('eval_dataset_dirs', 'eval_dataset_dirs.%s=%s: AISBench needs %s there, missing: %s'
                        % (name, path, ' and '.join(LAYOUT[name]), ', '.join(missing)),
                        'put the %s files AISBench reads there (%s)' % (name, ' and '.join(LAYOUT[name])))]
    if name == 'textvqa':
        for row in textvqa_rows(path):
            image = row.get('image') or ''
            if not os.path.isfile(os.path.join(path, image)):
                return [problem('eval_dataset_dirs', 'eval_dataset_dirs.textvqa=%s: image %s of question %s is '
                                'missing' % (path, image, row.get('question_id')),
                                'unpack the textvqa images where textvqa_val.jsonl names them')]
    return []


def textvqa_rows(path):
    """The rows of DIR/textvqa_json/textvqa_val.jsonl ({question_id, question, image, ...}); an image path is
    absolute, or relative to the dataset directory (``os.path.join(path, image)`` is the file either way)."""
    return [row for _number, row in jsonl_rows(path, LAYOUT['textvqa'][0], 'JSON object', dict)]


def textvqa_files(path):
    """{relative path: text} of the textvqa copy AISBench reads: the questions with absolute image paths (AISBench
    opens them from its own working directory), and the annotations as they are (found next to the questions)."""
    with open(os.path.join(path, LAYOUT['textvqa'][1])) as handle:
        annotations = handle.read()
    rows = ''.join(json.dumps(dict(row, image=os.path.join(path, row.get('image') or ''))) + '\n'
                   for row in textvqa_rows(path))
    return {LAYOUT['textvqa'][0]: rows, LAYOUT['textvqa'][1]: annotations}


HEADER = '''\
# Written by the ascend.vllm eval role (AISBench runner) for {where}.
# The model block is the guide's VLLMCustomAPIChat config (vllm-ascend docs, "Qwen3.5-Dense" tutorial, section 7).
from mmengine.config import read_base
from ais_bench.benchmark.models import VLLMCustomAPIChat
from ais_bench.benchmark.utils.model_postprocessors import extract_non_reasoning_content
'''

ACCURACY_DATASETS = {
    'gsm8k': ('ais_bench.benchmark.configs.datasets.gsm8k.gsm8k_gen_0_shot_cot_chat_prompt', 'gsm8k_datasets'),
    'textvqa': ('ais_bench.benchmark.configs.datasets.textvqa.textvqa_gen_base64', 'textvqa_datasets'),
}

PERF_DATASET = '''\
from ais_bench.benchmark.datasets.custom import CustomDataset
from ais_bench.benchmark.openicl.icl_evaluator import AccEvaluator
from ais_bench.benchmark.openicl.icl_inferencer import GenInferencer
from ais_bench.benchmark.openicl.icl_prompt_template import PromptTemplate
from ais_bench.benchmark.openicl.icl_retriever import ZeroRetriever
from ais_bench.benchmark.summarizers import DefaultPerfSummarizer
from ais_bench.benchmark.calculators import DefaultPerfMetricCalculator

datasets = [dict(
    abbr="perf", type=CustomDataset, path={path!r}, meta_path="",
    reader_cfg=dict(input_columns=["question", "max_out_len"], output_column="answer"),
    infer_cfg=dict(prompt_template=dict(type=PromptTemplate, template="{{question}}"),
                   retriever=dict(type=ZeroRetriever), inferencer=dict(type=GenInferencer)),
    eval_cfg=dict(evaluator=dict(type=AccEvaluator), pred_role="BOT"),
)]
summarizer = dict(attr="performance", type=DefaultPerfSummarizer,
                  calculator=dict(type=DefaultPerfMetricCalculator,
                                  stats_list=["Average", "Min", "Max", "Median", "P75", "P90", "P99"]))
'''


def _model(abbr, target, settings, stream=False, batch_size=None, max_out_len=None, ignore_eos=False):
    return AISBENCH_MODEL.format(
        abbr=abbr, path=str(settings.get('tokenizer') or ''), served=str(target['served']),
        stream=stream, api_key=str(settings.get('api_key') or ''), host=str(target['host']), port=int(target['port']),
        max_out_len=int(max_out_len or settings['max_out_len']), batch_size=int(batch_size or settings['batch_size']),
        ignore_eos=ignore_eos)


def accuracy_config(where, target, settings, dataset_dirs):
    """The ais_bench config (Python source) scoring every dataset of dataset_dirs ({name: local path}) on target.

    target: {host, port, served, model}; settings: {max_out_len, batch_size, limit, api_key}. Each dataset is
    AISBench's own config (gsm8k 0-shot CoT chat prompt, textvqa base64) with its path set to the local copy.
    """
    lines = [HEADER.format(where=where), 'with read_base():']
    lines += ['    from %s import %s' % ACCURACY_DATASETS[name] for name in sorted(dataset_dirs)] + ['', 'datasets = []']
    reader = ('dict(d["reader_cfg"], test_range=%r)' % ('[0:%d]' % settings['limit'])
              if settings.get('limit') else 'd["reader_cfg"]')
    for name in sorted(dataset_dirs):
        path = os.path.join(dataset_dirs[name], LAYOUT['textvqa'][0]) if name == 'textvqa' else dataset_dirs[name]
        lines.append('datasets += [dict(d, path=%r, reader_cfg=%s) for d in %s]'
                     % (path, reader, ACCURACY_DATASETS[name][1]))
    lines += ['', 'models = [', _model('vllm-api-general-chat', target, settings).rstrip('\n'), ']',
              'summarizer = dict(attr="accuracy", summary_groups=[])', '']
    return '\n'.join(lines)


def perf_config(where, target, settings, dataset_path, tokenizer):
    """The ais_bench perf-mode config: one streaming model per concurrency level (batch_size = the level).

    settings: {concurrency, output_len, api_key, max_out_len, batch_size}; tokenizer: a directory AISBench's
    perf summarizer can load (it counts tokens only when the server's usage is missing; vLLM sends usage).
    """
    levels = dict(settings, tokenizer=tokenizer)
    models = [_model('concurrency-%d' % level, target, levels, stream=True, batch_size=level,
                     max_out_len=settings['output_len'], ignore_eos=True).rstrip('\n') for level in settings['concurrency']]
    return '\n'.join([HEADER.format(where=where), PERF_DATASET.format(path=dataset_path), 'models = ['] + models + [']', ''])


def perf_dataset(requests, input_len, output_len):
    """The perf requests as AISBench custom-dataset JSONL: input_len words each, max_tokens output_len."""
    return ''.join(json.dumps({'question': ' '.join('w%d' % ((number * 7 + k) % 97) for k in range(input_len)),
                               'answer': '', 'max_tokens': output_len}) + '\n' for number in range(requests))


def stand_in_tokenizer():
    """{file name: text} of a whitespace word tokenizer for AISBench's perf summarizer check.

    AISBench loads the model's tokenizer before it summarises, although it counts tokens with it only when a
    response lacks usage (vLLM streams usage). With no eval_aisbench_tokenizer this one passes that check.
    """
    tokenizer = {
        'version': '1.0', 'truncation': None, 'padding': None, 'normalizer': None, 'post_processor': None,
        'decoder': None, 'pre_tokenizer': {'type': 'Whitespace'},
        'added_tokens': [{'id': 0, 'content': '[UNK]', 'single_word': False, 'lstrip': False, 'rstrip': False,
                          'normalized': False, 'special': True}],
        'model': {'type': 'WordLevel', 'vocab': {'[UNK]': 0}, 'unk_token': '[UNK]'},
    }
    return {'tokenizer.json': json.dumps(tokenizer),
            'tokenizer_config.json': json.dumps({'tokenizer_class': 'PreTrainedTokenizerFast', 'unk_token': '[UNK]'})}


def latest_run(workdir):
    """The newest timestamped folder ais_bench made under workdir, or None."""
    runs = sorted(p for p in glob.glob(os.path.join(workdir, '*')) if os.path.isdir(p))
    return runs[-1] if runs else None


def _first(value):
    return value[0] if isinstance(value, list) and value else value


def _detail(name, verdict):
    """One scored question as the builtin runner reports it, from AISBench's --dump-eval-details entry."""
    correct = verdict.get('correct')
    prompt = verdict.get('prompt') or [{}]
    text = prompt[-1].get('prompt', '') if isinstance(prompt, list) and isinstance(prompt[-1], dict) else prompt
    detail = {'pred': _first(verdict.get('predictions', verdict.get('pred'))),
              'answer': _first(verdict.get('references', verdict.get('answer'))),
              'correct': all(correct) if isinstance(correct, list) else bool(correct)}
    if name == 'gsm8k' and isinstance(text, str):
        detail['question'] = text.split('Question: ', 1)[-1]
    return detail


def read_accuracy(run, abbr='vllm-api-general-chat'):
    """{dataset: {accuracy, correct, total, errors, details}} from one ais_bench accuracy run folder.

    accuracy is AISBench's own score (results/<abbr>/<dataset>.json, run with --dump-eval-details); the details
    are its per-question verdicts. A dataset AISBench did not score is missing from the answer.
    """
    out = {}
    for result in sorted(glob.glob(os.path.join(run, 'results', abbr, '*.json'))):
        name = os.path.splitext(os.path.basename(result))[0]
        with open(result) as handle:
            score = json.load(handle)
        if 'accuracy' not in score:
            raise ValueError('AISBench scored %s with no accuracy: %s' % (name, score.get('error') or score))
        judged = score.get('details') or {}
        if isinstance(judged, dict):
            judged = [judged[k] for k in sorted(judged, key=lambda k: int(k) if str(k).isdigit() else 0)]
        details = [_detail(name, v) for v in judged]
        out[name] = {'accuracy': round(float(score['accuracy']), 4), 'total': len(details),
                     'correct': sum(1 for d in details if d['correct']), 'errors': [], 'details': details}
    return out


def failure_log(run, mode='infer', lines=15):
    """The last lines of AISBench's task logs under run/logs/<mode>/ (its CLI exits 0 when a task fails)."""
    tails = []
    for path in sorted(glob.glob(os.path.join(run or '', 'logs', mode, '*', '*.out'))):
        with open(path, encoding='utf-8', errors='replace') as handle:
            text = [line.rstrip() for line in handle if line.strip()]
        errors = [line for line in text if 'Error' in line or 'error' in line]
        tails.append('%s: %s' % (path, ' | '.join((errors or text)[-3:])))
    return '\n'.join(tails[-lines:])


UNITS = {'s': 1000.0, 'ms': 1.0, 'us': 0.001, 'μs': 0.001}


def _ms(text):
    """'2.5 ms', '1.2 s' -> milliseconds; None when empty."""
    match = re.match(r'\s*(-?[\d.]+)\s*(\S*)', str(text))
    return round(float(match.group(1)) * UNITS.get(match.group(2), 1.0), 3) if match else None


def _number(value):
    match = re.match(r'\s*(-?[\d.]+)', str(value))
    return float(match.group(1)) if match else None


def read_perf_level(level_dir, concurrency):
    """One level summary in the builtin runner's shape from performances/<abbr>/perf.csv and perf.json."""
    with open(os.path.join(level_dir, 'perf.json')) as handle:
        common = {k: (v or {}).get('total') for k, v in json.load(handle).items()}
    with open(os.path.join(level_dir, 'perf.csv'), encoding='utf-8') as handle:
        stats = {row['Performance Parameters']: row for row in csv.DictReader(handle) if row.get('Stage') == 'total'}

    def latency(name):
        row = stats.get(name) or {}
        return {'mean': _ms(row.get('Average', '')), 'p50': _ms(row.get('Median', '')),
                'p90': _ms(row.get('P90', '')), 'p99': _ms(row.get('P99', ''))}
    total = int(_number(common.get('Total Requests')) or 0)
    return {
        'concurrency': concurrency, 'requests': total, 'failed': int(_number(common.get('Failed Requests')) or 0),
        'duration_s': round((_ms(common.get('Benchmark Duration')) or 0) / 1000.0, 3),
        'request_throughput': _number(common.get('Request Throughput')),
        'output_throughput': _number(common.get('Output Token Throughput')),
        'total_throughput': _number(common.get('Total Token Throughput')),
        'ttft_ms': latency('TTFT'), 'tpot_ms': latency('TPOT'), 'e2el_ms': latency('E2EL'),
        'aisbench_dir': level_dir,
    }


def read_performance(run, concurrency):
    """The level summaries of one ais_bench perf run folder, in the order of the concurrency levels."""
    return [read_perf_level(os.path.join(run, 'performances', 'concurrency-%d' % level), level)
            for level in concurrency]
