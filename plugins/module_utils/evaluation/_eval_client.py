# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The builtin evaluation client: OpenAI chat requests to a vLLM server, streamed, timed per token.

Python standard library only, so it runs on any node Ansible reaches. It sends what AISBench's
VLLMCustomAPIChat sends (one user turn, temperature 0, max_tokens, chat_template_kwargs
enable_thinking False, ignore_eos) and times the stream the way its performance mode does:
TTFT is the first content chunk, TPOT the rest of the stream over the remaining tokens.
"""

from __future__ import annotations

import itertools
import json
import threading
import time

from concurrent.futures import ThreadPoolExecutor
from http.client import HTTPConnection

from ansible_collections.ascend.vllm.plugins.module_utils.evaluation._eval import level_summary

WORDS = ('alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa '
         'quebec romeo sierra tango uniform victor whiskey xray yankee zulu').split()


def probe(host, port, timeout=5.0, headers=None):
    """{'up', 'served', 'model', 'error'} from GET /v1/models."""
    try:
        conn = HTTPConnection(host, int(port), timeout=timeout)
        conn.request('GET', '/v1/models', headers=headers or {})
        resp = conn.getresponse()
        raw = resp.read()
        conn.close()
    except (OSError, ValueError) as exc:
        return {'up': False, 'served': None, 'model': None, 'error': str(exc)}
    try:
        data = json.loads(raw or b'null').get('data') if resp.status == 200 else None
    except (ValueError, AttributeError):
        data = None
    if not data:
        return {'up': False, 'served': None, 'model': None, 'error': 'GET /v1/models answered %s' % resp.status}
    first = data[0]
    return {'up': True, 'served': first.get('id'), 'model': first.get('root') or first.get('id'), 'error': None}


def chat_body(model, prompt, max_tokens, ignore_eos=False):
    """The request body VLLMCustomAPIChat sends, streamed with usage."""
    return {
        'model': model, 'messages': [{'role': 'user', 'content': prompt}], 'max_tokens': max_tokens,
        'temperature': 0.0, 'ignore_eos': ignore_eos, 'chat_template_kwargs': {'enable_thinking': False},
        'stream': True, 'stream_options': {'include_usage': True},
    }


def _read_stream(resp, started):
    """Text, token count, first-token time, and usage of an SSE chat stream."""
    text, first, usage = [], None, None
    for raw in resp:
        line = raw.strip()
        if not line.startswith(b'data:'):
            continue
        data = line[5:].strip()
        if data == b'[DONE]':
            break
        event = json.loads(data)
        if event.get('usage'):
            usage = event['usage']
        for choice in event.get('choices') or []:
            piece = (choice.get('delta') or {}).get('content') or choice.get('text') or ''
            if piece:
                first = time.monotonic() - started if first is None else first
                text.append(piece)
    return ''.join(text), len(text), first, usage


def chat(target, prompt, max_tokens, timeout, ignore_eos=False):
    """One streamed ``chat_body`` request to ``target`` ({host, port, served, headers}): {'ok', 'text', 'ttft', 'tpot',
    'latency', 'input_tokens', 'output_tokens', 'error'}."""
    started = time.monotonic()
    record = {'ok': False, 'text': None, 'ttft': None, 'tpot': None, 'latency': None,
              'input_tokens': 0, 'output_tokens': 0, 'error': None}
    try:
        conn = HTTPConnection(target['host'], int(target['port']), timeout=timeout)
        conn.request('POST', '/v1/chat/completions', json.dumps(chat_body(target['served'], prompt, max_tokens, ignore_eos)),
                     dict({'Content-Type': 'application/json'}, **(target.get('headers') or {})))
        resp = conn.getresponse()
        if resp.status != 200:
            record['error'] = 'HTTP %s: %s' % (resp.status, resp.read()[:300].decode('utf-8', 'replace'))
            return record
        text, chunks, first, usage = _read_stream(resp, started)
        conn.close()
    except (OSError, ValueError) as exc:
        record['error'] = '%s: %s' % (type(exc).__name__, exc)
        return record
    latency = time.monotonic() - started
    tokens = (usage or {}).get('completion_tokens') or chunks
    record.update(ok=True, text=text, ttft=first, latency=latency, output_tokens=tokens,
                  input_tokens=(usage or {}).get('prompt_tokens') or 0,
                  tpot=(latency - first) / (tokens - 1) if first is not None and tokens > 1 else None)
    return record


def run_pool(jobs, workers, work, done=None):
    """Run work(job) for every job with at most workers threads; results in job order, and the wall time.
    ``done(count, total)``, when given, is called after each job ends (one call at a time)."""
    lock, finished = threading.Lock(), itertools.count(1)

    def one(job):
        result = work(job)
        if done is not None:
            with lock:
                done(next(finished), len(jobs))
        return result

    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=max(1, min(workers, len(jobs)))) as pool:
        results = list(pool.map(one, jobs))
    return results, time.monotonic() - started


def synthetic_prompt(index, words):
    """A prompt of about `words` tokens, different per request so no prefix cache helps."""
    return ' '.join(WORDS[(index * 7 + k * 3) % len(WORDS)] for k in range(words))


def accuracy_replies(target, prompts, settings):
    """The model's reply text to each prompt (None where the request failed), and the failures."""
    records, duration = run_pool(prompts, settings['batch_size'],
                                 lambda prompt: chat(target, prompt, settings['max_out_len'], settings['timeout']),
                                 settings.get('done'))
    errors = [r['error'] for r in records if not r['ok']]
    return [r['text'] if r['ok'] else None for r in records], errors, duration


def performance_sweep(target, settings):
    """One level_summary per concurrency, with the per-request records, sent level by level."""
    levels = []
    for concurrency in settings['concurrency']:
        count = max(settings['requests'], concurrency)
        prompts = [synthetic_prompt(i, settings['input_len']) for i in range(count)]

        def work(prompt):
            record = chat(target, prompt, settings['output_len'], settings['timeout'], ignore_eos=True)
            record.pop('text', None)
            return record
        progress = settings.get('progress')
        records, duration = run_pool(prompts, concurrency, work,
                                     (lambda count, total, level=concurrency: progress(level, count, total))
                                     if progress else None)
        levels.append(dict(level_summary(concurrency, records, duration), records=records,
                           errors=sorted(set(r['error'] for r in records if r.get('error')))[:5]))
    return levels
