# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Evaluation results to rows, gate failures and Markdown (pure), and the PNG plots (matplotlib, optional)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.ascend.vllm.plugins.module_utils._eval import gate, reference_for

try:
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    HAS_MATPLOTLIB = True
except ImportError:
    plt = None
    HAS_MATPLOTLIB = False


def slug(text):
    return re.sub(r'[^A-Za-z0-9_.-]+', '_', str(text)).strip('_') or 'x'


def _fmt(value, digits=2):
    return '—' if value is None else '%.*f' % (digits, value)


def accuracy_rows(results, tolerance, references=None):
    """One row per host, instance and dataset: score, reference, floor, verdict; and the gate failures."""
    rows, failures = [], []
    for host in sorted(results):
        for inst in results[host]:
            for dataset, acc in sorted((inst.get('accuracy') or {}).items()):
                ref = reference_for(inst.get('model'), dataset, references)
                msg = gate(host, inst['name'], dataset, acc['accuracy'], ref, tolerance)
                verdict = 'no reference' if ref is None else ('FAIL' if msg else 'pass')
                rows.append({'host': host, 'instance': inst['name'], 'model': inst.get('model'), 'dataset': dataset,
                             'score': acc['accuracy'], 'correct': acc['correct'], 'total': acc['total'],
                             'reference': ref, 'floor': None if ref is None else round(ref - tolerance, 2),
                             'verdict': verdict})
                if msg:
                    failures.append({'host': host, 'instance': inst['name'], 'msg': msg})
    return rows, failures


def performance_rows(results):
    """One row per host, instance and concurrency level (the level summary without its records)."""
    rows = []
    for host in sorted(results):
        for inst in results[host]:
            for level in inst.get('performance') or []:
                row = {k: v for k, v in level.items() if k != 'records'}
                row.update(host=host, instance=inst['name'], model=inst.get('model'))
                rows.append(row)
    return rows


def accuracy_table(rows, tolerance):
    lines = ['| host | instance | model | dataset | score | reference | floor (tolerance %s) | correct/total | gate |'
             % tolerance, '|---|---|---|---|---:|---:|---:|---:|---|']
    for r in rows:
        lines.append('| %s | %s | %s | %s | %s | %s | %s | %d/%d | %s |' % (
            r['host'], r['instance'], r['model'], r['dataset'], _fmt(r['score']), _fmt(r['reference']),
            _fmt(r['floor']), r['correct'], r['total'], r['verdict']))
    return lines


def performance_table(rows):
    lines = ['| host | instance | concurrency | requests (failed) | req/s | output tok/s | TTFT p50 / p90 / p99 ms '
             '| TPOT p50 / p90 / p99 ms | E2E p50 / p99 ms |', '|---|---|---:|---:|---:|---:|---:|---:|---:|']
    for r in rows:
        lines.append('| %s | %s | %d | %d (%d) | %s | %s | %s / %s / %s | %s / %s / %s | %s / %s |' % (
            r['host'], r['instance'], r['concurrency'], r['requests'], r['failed'], _fmt(r['request_throughput']),
            _fmt(r['output_throughput']), _fmt(r['ttft_ms']['p50']), _fmt(r['ttft_ms']['p90']),
            _fmt(r['ttft_ms']['p99']), _fmt(r['tpot_ms']['p50']), _fmt(r['tpot_ms']['p90']),
            _fmt(r['tpot_ms']['p99']), _fmt(r['e2el_ms']['p50']), _fmt(r['e2el_ms']['p99'])))
    return lines


def markdown(title, acc_rows, perf_rows, tolerance, notes=()):
    """A Markdown report: accuracy beside the reference, then the performance sweep."""
    lines = ['# %s' % title, '']
    lines.extend(notes)
    if notes:
        lines.append('')
    if acc_rows:
        lines += ['## Accuracy', '', 'Reference: vllm-ascend docs, "Qwen3.5-Dense" tutorial, section 7 (AISBench, '
                  'Atlas 300I DUO).', ''] + accuracy_table(acc_rows, tolerance) + ['']
    if perf_rows:
        lines += ['## Performance', ''] + performance_table(perf_rows) + ['']
    return '\n'.join(lines)


def plot_levels(levels, title, throughput_path, latency_path):
    """Two PNGs: throughput vs concurrency, and TTFT/TPOT p50 and p99 vs concurrency."""
    conc = [lv['concurrency'] for lv in levels]
    fig, axis = plt.subplots(figsize=(6.4, 4.0), dpi=100)
    axis.plot(conc, [lv['output_throughput'] for lv in levels], marker='o', label='output tokens/s')
    axis.plot(conc, [lv['request_throughput'] for lv in levels], marker='s', label='requests/s')
    axis.set_xlabel('concurrency')
    axis.set_ylabel('throughput')
    axis.set_title('%s: throughput' % title)
    axis.grid(True, alpha=0.3)
    axis.legend()
    fig.tight_layout()
    fig.savefig(throughput_path)
    plt.close(fig)
    fig, axis = plt.subplots(figsize=(6.4, 4.0), dpi=100)
    for metric in ('ttft_ms', 'tpot_ms'):
        for pct, style in (('p50', '-'), ('p99', '--')):
            axis.plot(conc, [lv[metric][pct] for lv in levels], style, marker='o',
                      label='%s %s' % (metric.split('_', 1)[0].upper(), pct))
    axis.set_xlabel('concurrency')
    axis.set_ylabel('milliseconds')
    axis.set_title('%s: latency' % title)
    axis.grid(True, alpha=0.3)
    axis.legend()
    fig.tight_layout()
    fig.savefig(latency_path)
    plt.close(fig)
