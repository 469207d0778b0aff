# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Rows, gate failures, Markdown tables and plots of an evaluation run."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


from ansible_collections.ascend.vllm.plugins.module_utils import _eval, _eval_report

LEVEL = {'concurrency': 2, 'requests': 4, 'failed': 0, 'duration_s': 1.0, 'request_throughput': 4.0,
         'output_throughput': 40.0, 'total_throughput': 80.0,
         'ttft_ms': {'mean': 5.0, 'p50': 5.0, 'p90': 6.0, 'p99': 7.0},
         'tpot_ms': {'mean': 2.0, 'p50': 2.0, 'p90': 2.5, 'p99': 3.0},
         'e2el_ms': {'mean': 30.0, 'p50': 30.0, 'p90': 33.0, 'p99': 35.0}, 'records': [{'ok': True}]}


def results(score):
    inst = {'name': 'a', 'port': 8080, 'served': 'qwen3.5', 'model': 'Qwen/Qwen3.5-4B',
            'accuracy': {'gsm8k': {'accuracy': score, 'correct': 3, 'total': 4}}, 'performance': [LEVEL]}
    return {'n2': [dict(inst)], 'n1': [dict(inst)]}


def test_rows_carry_the_reference_and_the_gate():
    rows, failures = _eval_report.accuracy_rows(results(92.0), 2.0)
    assert [(r['host'], r['reference'], r['floor'], r['verdict']) for r in rows] == [
        ('n1', 93.18, 91.18, 'pass'), ('n2', 93.18, 91.18, 'pass')]
    assert failures == []
    rows, failures = _eval_report.accuracy_rows(results(90.0), 2.0)
    assert [f['host'] for f in failures] == ['n1', 'n2'] and rows[0]['verdict'] == 'FAIL'
    assert 'n1/a: gsm8k accuracy 90.00 is below the reference 93.18' in failures[0]['msg']


def test_unknown_model_has_no_reference_and_no_gate():
    res = {'n1': [{'name': 'a', 'model': 'Other/Model', 'accuracy': {'gsm8k': {'accuracy': 1.0, 'correct': 0,
                                                                               'total': 4}}}]}
    rows, failures = _eval_report.accuracy_rows(res, 0)
    assert rows[0]['verdict'] == 'no reference' and failures == []
    assert '| — | — |' in '\n'.join(_eval_report.accuracy_table(rows, 0))


def test_markdown_has_one_row_per_host_beside_the_reference():
    acc, _f = _eval_report.accuracy_rows(results(92.0), 2.0)
    text = _eval_report.markdown('t', acc, _eval_report.performance_rows(results(92.0)), 2.0)
    assert '| n1 | a | Qwen/Qwen3.5-4B | gsm8k | 92.00 | 93.18 | 91.18 | 3/4 | pass |' in text
    assert '| n2 | a | 2 | 4 (0) | 4.00 | 40.00 | 5.00 / 6.00 / 7.00 | 2.00 / 2.50 / 3.00 | 30.00 / 35.00 |' in text
    assert 'records' not in _eval_report.performance_rows(results(92.0))[0]


def test_plots_are_pngs_of_the_set_size(tmp_path):
    import matplotlib.image  # pylint: disable=import-outside-toplevel
    paths = [str(tmp_path / 't.png'), str(tmp_path / 'l.png')]
    _eval_report.plot_levels([LEVEL, dict(LEVEL, concurrency=4)], 'n1/a', *paths)
    for path in paths:
        assert matplotlib.image.imread(path).shape[:2] == (400, 640)


def test_slug():
    assert _eval_report.slug('node 1/a') == 'node_1_a'
    assert _eval.model_key('Qwen/Qwen3.5-2B') == 'qwen3.5-2b'
