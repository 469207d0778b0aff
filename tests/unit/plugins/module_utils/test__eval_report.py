# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Rows, gate failures, Markdown tables and plots of an evaluation run."""


from ansible_collections.ascend.vllm.plugins.module_utils.evaluation import _eval, _eval_report
from ansible_collections.ascend.vllm.plugins.module_utils.evaluation._eval_provenance import provenance_rows

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
    # Throughput; then TTFT and TPOT side by side, each on its own axis.
    assert matplotlib.image.imread(paths[0]).shape[:2] == (400, 640)
    assert matplotlib.image.imread(paths[1]).shape[:2] == (400, 960)


def _figures(monkeypatch):
    """Every figure the plot functions make, kept open to look at their axes."""
    import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel
    figures = []
    monkeypatch.setattr(plt, 'close', figures.append)
    return figures


def test_latency_has_ttft_and_tpot_on_their_own_axes_and_concurrency_on_a_log_scale(tmp_path, monkeypatch):
    figures = _figures(monkeypatch)
    levels = [dict(LEVEL, concurrency=c, ttft_ms={'p50': 100.0 * c, 'p99': 300.0 * c},
                   tpot_ms={'p50': 2.0, 'p99': 3.0}) for c in (1, 4, 16)]
    _eval_report.plot_levels(levels, 'n1/a', str(tmp_path / 't.png'), str(tmp_path / 'l.png'))
    throughput, latency = figures
    ttft, tpot = latency.axes
    assert [line.get_label() for line in ttft.lines] == ['TTFT p50', 'TTFT p99']
    assert [line.get_label() for line in tpot.lines] == ['TPOT p50', 'TPOT p99']
    # TPOT's scale is its own: milliseconds per token, not the TTFT p99's thousands.
    assert tpot.get_ylim()[1] < 10 < ttft.get_ylim()[1]
    for axis in (throughput.axes[0], ttft, tpot):
        assert axis.get_xscale() == 'log'
        assert list(axis.get_xticks()) == [1, 4, 16]


def test_one_figure_compares_every_host_and_instance(tmp_path, monkeypatch):
    import matplotlib.image  # pylint: disable=import-outside-toplevel
    figures = _figures(monkeypatch)
    res = results(92.0)
    res['n1'].append({'name': 'b', 'model': 'Qwen/Qwen3.5-2B', 'performance': [LEVEL, dict(LEVEL, concurrency=8)]})
    res['n3'] = [{'name': 'c', 'model': 'Qwen/Qwen3.5-2B', 'accuracy': {}}]
    labels = _eval_report.plot_compare(res, str(tmp_path / 'compare.png'), 'run x')
    assert labels == ['n1/a', 'n1/b', 'n2/a']
    (figure,) = figures
    assert [axis.get_title() for axis in figure.axes] == ['output throughput', 'TTFT p50', 'TPOT p50']
    for axis in figure.axes:
        assert [line.get_label() for line in axis.lines] == labels and axis.get_xscale() == 'log'
    assert [list(line.get_ydata()) for line in figure.axes[2].lines] == [[2.0], [2.0, 2.0], [2.0]]
    assert matplotlib.image.imread(str(tmp_path / 'compare.png')).shape[:2] == (450, 1440)


def test_the_report_carries_its_provenance_with_unknowns_named():
    res = results(92.0)
    provenance = {'n1': {'node': {'hostname': 'atlas-1', 'driver': '24.1.rc2.2', 'firmware': 'unknown'},
                         'instances': [{'instance': 'a', 'container': 'vllm-a', 'image': 'q/v:v0.23.0-310p',
                                        'image_id': 'sha256:1', 'digest': 'sha256:2', 'argv': ['vllm', 'serve'],
                                        'cann': '8.2.RC2'}, {'instance': 'other'}]}}
    hosts = _eval_report.host_provenance(res, provenance)
    # Only the instances evaluated; a host the read never reached is there too, all unknown.
    assert [i['instance'] for i in hosts['n1']['instances']] == ['a'] and sorted(hosts) == ['n1', 'n2']
    rows = provenance_rows(hosts)
    text = _eval_report.markdown('t', [], [], 2.0, prov_rows=rows)
    assert '| n1 | atlas-1 | a | q/v:v0.23.0-310p | sha256:2 | 24.1.rc2.2 | unknown | 8.2.RC2 |' in text
    assert '| n2 | unknown | a | unknown | unknown | unknown | unknown | unknown |' in text
    assert '- `n1/a` argv: `vllm serve`' in text and '- `n2/a` argv: `unknown`' in text


def test_slug():
    assert _eval_report.slug('node 1/a') == 'node_1_a'
    assert _eval.model_key('Qwen/Qwen3.5-2B') == 'qwen3.5-2b'
