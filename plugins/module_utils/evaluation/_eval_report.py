# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Evaluation results to rows, gate failures and Markdown (pure), and the PNG plots (matplotlib, optional)."""

from __future__ import annotations

import re

from ansible_collections.ascend.vllm.plugins.module_utils.evaluation._eval import gate, reference_for

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
                rows.append({'host': host, 'instance': inst['name'], 'model': inst.get('model'), 'dataset': dataset,
                             'score': acc['accuracy'], 'correct': acc['correct'], 'total': acc['total'],
                             'reference': ref, 'floor': None if ref is None else round(ref - tolerance, 2),
                             'verdict': 'no reference' if ref is None else ('FAIL' if msg else 'pass')})
                if msg:
                    failures.append({'host': host, 'instance': inst['name'], 'msg': msg})
    return rows, failures


def performance_rows(results):
    """One row per host, instance and concurrency level (the level summary without its records)."""
    return [dict({k: v for k, v in level.items() if k != 'records'}, host=host, instance=inst['name'],
                 model=inst.get('model'))
            for host in sorted(results) for inst in results[host] for level in inst.get('performance') or []]


def accuracy_table(rows, tolerance):
    return ['| host | instance | model | dataset | score | reference | floor (tolerance %s) | correct/total | gate |'
            % tolerance, '|---|---|---|---|---:|---:|---:|---:|---|'] + [
        '| %s | %s | %s | %s | %s | %s | %s | %d/%d | %s |' % (
            r['host'], r['instance'], r['model'], r['dataset'], _fmt(r['score']), _fmt(r['reference']),
            _fmt(r['floor']), r['correct'], r['total'], r['verdict']) for r in rows]


def performance_table(rows):
    return ['| host | instance | concurrency | requests (failed) | req/s | output tok/s | TTFT p50 / p90 / p99 ms '
            '| TPOT p50 / p90 / p99 ms | E2E p50 / p99 ms |', '|---|---|---:|---:|---:|---:|---:|---:|---:|'] + [
        '| %s | %s | %d | %d (%d) | %s | %s | %s / %s / %s | %s / %s / %s | %s / %s |' % (
            (r['host'], r['instance'], r['concurrency'], r['requests'], r['failed'], _fmt(r['request_throughput']),
             _fmt(r['output_throughput'])) + tuple(_fmt(r[metric][pct]) for metric, pct in (
                 ('ttft_ms', 'p50'), ('ttft_ms', 'p90'), ('ttft_ms', 'p99'), ('tpot_ms', 'p50'), ('tpot_ms', 'p90'),
                 ('tpot_ms', 'p99'), ('e2el_ms', 'p50'), ('e2el_ms', 'p99')))) for r in rows]


def host_provenance(results, provenance):
    """The provenance of every host of the results (a host the node read did not reach: all unknown), and of
    only the instances evaluated."""
    out = {}
    for host in sorted(results):
        data = (provenance or {}).get(host) or {}
        found = {item.get('instance'): item for item in data.get('instances') or []}
        out[host] = {'node': data.get('node') or {},
                     'instances': [found.get(inst['name']) or {'instance': inst['name']} for inst in results[host]] or [{}]}
    return out


def provenance_table(rows):
    """What ran where: image, digest and versions per host and instance, then each instance's argv."""
    columns = ('host', 'hostname', 'instance', 'image', 'digest', 'driver', 'firmware', 'cann')
    return (['| host | node hostname | instance | image | image digest | driver | firmware | CANN |',
             '|---|---|---|---|---|---|---|---|'] + ['| %s |' % ' | '.join(str(r[key]) for key in columns) for r in rows]
            + [''] + ['- `%s/%s` argv: `%s`' % (r['host'], r['instance'], r['argv']) for r in rows])


def markdown(title, acc_rows, perf_rows, tolerance, notes=(), prov_rows=()):
    """A Markdown report: where it ran, accuracy beside the reference, then the performance sweep."""
    lines = ['# %s' % title, ''] + (list(notes) + [''] if notes else [])
    if prov_rows:
        lines += ['## Provenance', ''] + provenance_table(prov_rows) + ['']
    if acc_rows:
        lines += ['## Accuracy', '', 'Reference: vllm-ascend docs, "Qwen3.5-Dense" tutorial, section 7 (AISBench, '
                  'Atlas 300I DUO).', ''] + accuracy_table(acc_rows, tolerance) + ['']
    if perf_rows:
        lines += ['## Performance', ''] + performance_table(perf_rows) + ['']
    return '\n'.join(lines)


def _concurrency_axis(axis, levels, ylabel, title):
    """Concurrency on a log-2 axis with a tick at each level swept, against ``ylabel``."""
    axis.set_ylabel(ylabel)
    axis.set_title(title)
    axis.set_xscale('log', base=2)
    axis.set_xticks(levels)
    axis.set_xticklabels([str(level) for level in levels])
    axis.minorticks_off()
    axis.set_xlabel('concurrency (log scale)')
    axis.grid(True, alpha=0.3)


def plot_levels(levels, title, throughput_path, latency_path):
    """Two PNGs of one instance: throughput vs concurrency, and latency vs concurrency with TTFT and TPOT
    each on its own axis (p50 and p99), concurrency on a log scale."""
    conc = [lv['concurrency'] for lv in levels]
    fig, axis = plt.subplots(figsize=(6.4, 4.0), dpi=100)
    axis.plot(conc, [lv['output_throughput'] for lv in levels], marker='o', label='output tokens/s')
    axis.plot(conc, [lv['request_throughput'] for lv in levels], marker='s', label='requests/s')
    _concurrency_axis(axis, sorted(set(conc)), 'throughput', '%s: throughput' % title)
    axis.legend()
    fig.tight_layout()
    fig.savefig(throughput_path)
    plt.close(fig)
    fig, axes = plt.subplots(1, 2, figsize=(9.6, 4.0), dpi=100)
    for axis, metric, name in ((axes[0], 'ttft_ms', 'TTFT'), (axes[1], 'tpot_ms', 'TPOT')):
        for pct, style in (('p50', '-'), ('p99', '--')):
            axis.plot(conc, [lv[metric][pct] for lv in levels], style, marker='o', label='%s %s' % (name, pct))
        _concurrency_axis(axis, sorted(set(conc)), '%s (ms)' % name, '%s: %s' % (title, name))
        axis.set_ylim(bottom=0)
        axis.legend()
    fig.tight_layout()
    fig.savefig(latency_path)
    plt.close(fig)


# The panels of the run's comparison figure: (title, level key, percentile or None, unit).
COMPARE_PANELS = (('output throughput', 'output_throughput', None, 'tokens/s'),
                  ('TTFT p50', 'ttft_ms', 'p50', 'ms'), ('TPOT p50', 'tpot_ms', 'p50', 'ms'))


def plot_compare(results, path, title):
    """One PNG with every host and instance of the run that has a sweep: throughput, TTFT and TPOT against
    concurrency; the labels of its lines."""
    series = [('%s/%s' % (host, inst['name']), inst['performance'])
              for host in sorted(results) for inst in results[host] if inst.get('performance')]
    levels = sorted(set(lv['concurrency'] for _label, sweep in series for lv in sweep))
    fig, axes = plt.subplots(1, len(COMPARE_PANELS), figsize=(14.4, 4.5), dpi=100)
    for axis, (panel, key, pct, unit) in zip(axes, COMPARE_PANELS):
        for label, sweep in series:
            axis.plot([lv['concurrency'] for lv in sweep], [lv[key] if pct is None else lv[key][pct] for lv in sweep],
                      marker='o', label=label)
        _concurrency_axis(axis, levels, unit, panel)
        axis.set_ylim(bottom=0)
    axes[0].legend(fontsize='small')
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return [label for label, _sweep in series]
