# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Evaluation after deploy: the reference table, gsm8k scoring, the gate and the summaries.

Pure functions, no I/O except reading a dataset file (the judgement of the eval role's inputs is the
controller's: plugin_utils/evaluation/_eval_inputs.py). The reference scores are the accuracy table of the vllm-ascend docs,
"Qwen3.5-Dense" tutorial, section 7 (AISBench, Atlas 300I DUO); this is their one copy.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import re

from ansible_collections.ascend.vllm.plugins.module_utils._problem import report as render_problems


# Guide, section 7: accuracy (percent) per model and dataset, AISBench, vllm-api-general-chat.
# Qwen3.5-27B-w8a8: vllm-ascend docs, "Qwen3.5-27B & Qwen3.6-27B" tutorial, section 7 (AISBench):
# "the result of Qwen3.5-27B-w8a8 in vllm-ascend:v0.17.0rc1 for reference only", an image older
# than 300I DUO support, so not a 300I DUO figure. The tutorial publishes none for
# Qwen3.6-27B-w8a8 ("not listed here"): its evaluation says "no reference" unless the inventory
# gives one (eval_references).
REFERENCE = {
    'Qwen3.5-2B': {'gsm8k': 77.71, 'textvqa': 76.09},
    'Qwen3.5-4B': {'gsm8k': 93.18, 'textvqa': 79.08},
    'Qwen3.5-9B': {'gsm8k': 95.30, 'textvqa': 82.33},
    'Qwen3.5-27B-w8a8-mtp': {'gsm8k': 96.74},
}

# The file AISBench reads in each dataset directory (ais_bench/datasets/<name>/...), and how to get it.
DATASETS = {
    'gsm8k': {'file': 'test.jsonl', 'get': (
        'put the gsm8k test split there as test.jsonl (one {"question", "answer"} object a line, the answer ending in '
        '"#### <number>"), e.g. from https://github.com/openai/grade-school-math (grade_school_math/data/test.jsonl) '
        'or AISBench\'s gsm8k.zip')},
    'textvqa': {'file': 'textvqa_json/textvqa_val.jsonl', 'get': (
        'unpack AISBench\'s textvqa archive there (textvqa_json/textvqa_val.jsonl, '
        'textvqa_json/textvqa_val_annotations.json and the images the questions name)')},
}
RUNNERS = ('builtin', 'aisbench')


def problems_report(problems, host):
    """The failure message: a count line, then one line per problem with its fix."""
    return render_problems('evaluation', host, problems, 'no request was sent to any instance')


def model_key(model):
    """'Qwen/Qwen3.5-2B', '/models/qwen3.5-2b' -> 'qwen3.5-2b' (the name the table is keyed by, lowercase)."""
    return os.path.basename(str(model or '').rstrip('/')).lower()


def reference_for(model, dataset, extra=None):
    """The reference score of model on dataset (extra: {model: {dataset: score}} from inventory wins), or None."""
    found = [scores[dataset] for source in (REFERENCE, extra or {}) for name, scores in source.items()
             if model_key(name) == model_key(model) and dataset in (scores or {})]
    return None if not found or found[-1] is None else float(found[-1])


def report_dir(path, cwd):
    """eval_report_dir as an absolute path: a relative one is taken from ``cwd``, the directory ansible-playbook
    was run from (a module on the controller runs in the playbook's directory instead)."""
    return os.path.normpath(os.path.join(cwd, os.path.expanduser(path)))


def gsm8k_reference_answer(answer):
    """AISBench gsm8k_dataset_postprocess: the text after '#### ', commas removed."""
    return str(answer).split('#### ')[1].replace(',', '')


def jsonl_rows(directory, name, shape, row_of):
    """(line number, ``row_of(row)``) of each row of DIRECTORY/NAME, a JSON Lines file (blank lines skipped);
    ValueError naming the file and the line of a row that is not a ``shape``."""
    with open(os.path.join(directory, name)) as handle:
        for number, line in enumerate(handle, 1):
            if line.strip():
                try:
                    item = row_of(json.loads(line))
                except (ValueError, KeyError, TypeError, IndexError) as exc:
                    raise ValueError('%s line %d: not a %s: %s' % (name, number, shape, exc))
                yield number, item


def load_gsm8k(path, limit=None):
    """[{'question', 'answer'}] from DIR/test.jsonl, answer already the gold number."""
    rows = jsonl_rows(path, DATASETS['gsm8k']['file'], 'gsm8k row ({"question", "answer"})',
                      lambda row: {'question': str(row['question']), 'answer': gsm8k_reference_answer(row['answer'])})
    return [item for _number, item in itertools.islice(rows, limit or None)]


# AISBench's gsm8k_gen_0_shot_cot_chat_prompt (ais_bench/benchmark/configs/datasets/gsm8k/): one HUMAN turn.
GSM8K_PROMPT = ('Answer the following question.The last line of the response should follow this format: '
                '"answer:$ANSWER" (without quotes), where ANSWER is a number. Let\'s think step by step.\n\n'
                'Question: {question}')


def gsm8k_prompt(question):
    return GSM8K_PROMPT.format(question=question)


def strip_reasoning(text):
    """AISBench extract_non_reasoning_content (the guide's pred_postprocessor): drop <think>...</think>."""
    if not isinstance(text, str):
        return text
    return (text.split('</think>')[-1] if '<think>' not in text and '</think>' in text
            else re.sub(r'<think>(.*?)</think>', '', text, flags=re.DOTALL)).strip()


def gsm8k_extract(text):
    """AISBench gsm8k_postprocess: the last number before any 'Question:', or 'NULL'."""
    text = strip_reasoning(text).split('Question:')[0]
    numbers = re.findall(r'\-?\d+\.\d+|\-?\d+', text)
    return numbers[-1] if numbers else 'NULL'


def gsm8k_equal(pred, gold):
    """AISBench Gsm8kEvaluator.is_equal: the same text, or float(pred) within 1e-6 of int(gold)."""
    try:
        return pred == gold or abs(float(pred) - int(gold)) < 1e-6
    except (TypeError, ValueError):
        return False


def gsm8k_score(items, replies):
    """{'accuracy', 'correct', 'total', 'details'} from the dataset items and the model's replies, in order."""
    preds = [gsm8k_extract(reply) if reply is not None else 'NULL' for reply in replies]
    details = [{'question': item['question'], 'answer': item['answer'], 'pred': pred,
                'correct': gsm8k_equal(pred, item['answer'])} for item, pred in zip(items, preds)]
    correct = sum(1 for d in details if d['correct'])
    total = len(details)
    return {'accuracy': 100.0 * correct / total if total else 0.0, 'correct': correct, 'total': total,
            'details': details}


def gate(host, instance, dataset, score, reference, tolerance):
    """None when the score passes, else the failure message naming instance, score, reference and tolerance."""
    if reference is None or score >= reference - tolerance:
        return None
    return ('%s/%s: %s accuracy %.2f is below the reference %.2f by more than eval_tolerance=%s (floor %.2f)'
            % (host, instance, dataset, score, reference, tolerance, reference - tolerance))


def percentile(values, pct):
    """Linear-interpolated percentile (numpy's default), None for no values."""
    data = sorted(v for v in values if v is not None)
    if not data:
        return None
    rank = (len(data) - 1) * pct / 100.0
    low = int(math.floor(rank))
    high = min(low + 1, len(data) - 1)
    return data[low] + (data[high] - data[low]) * (rank - low)


def _stats(values, scale=1000.0):
    """Mean and p50/p90/p99 in milliseconds (scale) of seconds values."""
    data = [v for v in values if v is not None]
    return dict({'mean': round(scale * sum(data) / len(data), 3) if data else None},
                **{'p%d' % pct: round(scale * percentile(data, pct), 3) if data else None for pct in (50, 90, 99)})


def level_summary(concurrency, records, duration):
    """Throughput and latency of one concurrency level from its per-request records and wall time (s)."""
    ok = [r for r in records if r.get('ok')]
    out_tokens = sum(r.get('output_tokens', 0) for r in ok)
    in_tokens = sum(r.get('input_tokens', 0) for r in ok)
    duration = max(duration, 1e-9)
    return {
        'concurrency': concurrency, 'requests': len(records), 'failed': len(records) - len(ok),
        'duration_s': round(duration, 3), 'request_throughput': round(len(ok) / duration, 3),
        'output_throughput': round(out_tokens / duration, 3),
        'total_throughput': round((in_tokens + out_tokens) / duration, 3),
        'ttft_ms': _stats([r.get('ttft') for r in ok]), 'tpot_ms': _stats([r.get('tpot') for r in ok]),
        'e2el_ms': _stats([r.get('latency') for r in ok]),
    }


# The guide's VLLMCustomAPIChat model entry (vllm-ascend docs, "Qwen3.5-Dense" tutorial, section 7), the one
# copy: the report's config below and the AISBench runner's configs (_eval_aisbench) fill it in.
AISBENCH_MODEL = '''\
    dict(
        attr="service",
        type=VLLMCustomAPIChat,
        abbr={abbr!r},
        path={path!r},
        model={served!r},
        stream={stream!r},
        request_rate=0,
        retry=2,
        api_key={api_key!r},
        host_ip={host!r},
        host_port={port!r},
        max_out_len={max_out_len!r},
        batch_size={batch_size!r},
        trust_remote_code=False,
        generation_kwargs=dict(
            temperature=0.0,
            ignore_eos={ignore_eos!r},
            chat_template_kwargs={{"enable_thinking": False}},
        ),
        pred_postprocessor=dict(type=extract_non_reasoning_content),
    ),
'''

AISBENCH_MODEL_CONFIG = '''\
# AISBench model config for {where} (the vllm-ascend docs, "Qwen3.5-Dense" tutorial, section 7).
# Use it from the node: ais_bench --models <this file> --datasets gsm8k_gen_0_shot_cot_chat_prompt
from ais_bench.benchmark.models import VLLMCustomAPIChat
from ais_bench.benchmark.utils.model_postprocessors import extract_non_reasoning_content

models = [
{model}]
'''


def aisbench_model_config(where, instance, host, max_out_len, batch_size):
    """The guide's VLLMCustomAPIChat config (Python source) for one instance: its port, served name and model."""
    # No key in a file the report keeps: the operator adds theirs.
    model = AISBENCH_MODEL.format(
        abbr='vllm-api-general-chat', path=str(instance.get('model') or ''), served=str(instance.get('served') or ''),
        stream=False, api_key='', host=str(host), port=int(instance['port']), max_out_len=int(max_out_len),
        batch_size=int(batch_size), ignore_eos=False)
    return AISBENCH_MODEL_CONFIG.format(where=where, model=model)
