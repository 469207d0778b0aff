# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The dashboard and the alert rules of roles/vllm_serve/files/monitoring query what really exists.

Every PromQL expression of the Grafana dashboard (panel targets and template variables) and of the
Prometheus rules is parsed (promql-parser); each series name must be one metric-sources.yml lists for
an exporter, each label one the series carries (the scrape targets' labels from the vllm_serve role's
``metrics_targets``, the exporter's own, ``le`` of a histogram bucket), each ``component`` the one
its exporter's targets get. metric-sources.yml's vLLM names are checked against the test image's
stand-in server, and HAProxy's against HAProxy's own /metrics where Debian's haproxy is installed.
The rules are checked and their alerts tested with promtool where Debian's prometheus is installed;
the playbook that installs both runs for real against the controller.
"""

import importlib.machinery
import importlib.util
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import types
import urllib.request

import promql_parser
import pytest
import yaml

from ansible_collections.ascend.vllm.plugins.plugin_utils.fleet._metrics import metrics_targets

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))
FILES = os.path.join(ROOT, 'roles', 'vllm_serve', 'files', 'monitoring')
DASHBOARD_PATH = os.path.join(FILES, 'ascend-vllm-dashboard.json')
RULES_PATH = os.path.join(FILES, 'ascend-vllm-alerts.yml')
STANDIN = os.path.join(ROOT, 'tests', 'sim', 'images', 'vllm-ascend', 'vllm')
ALERT_TESTS = os.path.join(os.path.dirname(__file__), 'monitoring_alerts_test.yml')

with open(os.path.join(FILES, 'metric-sources.yml')) as _handle:
    SOURCES = yaml.safe_load(_handle)
with open(DASHBOARD_PATH) as _handle:
    DASHBOARD = json.load(_handle)
with open(RULES_PATH) as _handle:
    RULES = yaml.safe_load(_handle)

# Grafana's range variables, replaced by a duration before parsing; any other $variable may only
# stand inside a label matcher's string (the parser refuses it anywhere else).
GRAFANA_RANGES = {'$__rate_interval': '5m', '$__interval': '1m', '$__range': '1h'}
LABEL_VALUES = re.compile(r'^label_values\((?P<expr>.+),\s*(?P<label>[A-Za-z_][A-Za-z0-9_]*)\s*\)$')
LEGEND_LABEL = re.compile(r'\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}')
ANNOTATION_LABEL = re.compile(r'\$labels\.([A-Za-z_][A-Za-z0-9_]*)')
# The labels Prometheus itself gives every scraped series: job (the operator's job_name) and instance
# (which the target file sets).
PROMETHEUS_LABELS = {'job', 'instance'}


def _targets():
    """The target groups one host with an instance, a balancer and an NPU Exporter gets."""
    plan = [{'name': 'vllm-0', 'port': 8001, 'options': {'model': 'Qwen/Qwen3.5-2B'}}]
    balancer = {'enabled': True, 'metrics_port': 8404, 'container': 'ascend-vllm-balancer',
                'frontends': [{'model': 'Qwen/Qwen3.5-2B'}]}
    return metrics_targets(plan, 'node1', 'atlas_300i_duo', '192.0.2.10', balancer, 8082)


TARGET_GROUPS = _targets()
TARGET_LABELS = set().union(*(group['labels'] for group in TARGET_GROUPS))
COMPONENTS = set(group['labels']['component'] for group in TARGET_GROUPS)


def _family_type(name):
    entry = SOURCES['metrics'][name]
    return entry['type'] if entry['exporter'] != 'vllm' else SOURCES['vllm_0_23_0'][name]


def _samples():
    """{sample name: (family, type)} of every family metric-sources.yml lists."""
    out = {}
    for family in SOURCES['metrics']:
        kind = _family_type(family)
        suffixes = {'gauge': ('',), 'counter': ('_total',), 'histogram': ('_bucket', '_sum', '_count')}[kind]
        for suffix in suffixes:
            out[family + suffix] = (family, kind)
    return out


SAMPLES = _samples()


def _expressions():
    """(where, PromQL, legends) of every query of the dashboard and the rules."""
    found = []
    for panel in DASHBOARD['panels']:
        for target in panel.get('targets') or []:
            found.append(('panel %r %s' % (panel['title'], target.get('refId')), target['expr'],
                          [target.get('legendFormat', '')]))
    for variable in DASHBOARD['templating']['list']:
        if variable['type'] == 'query':
            query = variable['query']['query'] if isinstance(variable['query'], dict) else variable['query']
            match = LABEL_VALUES.match(query)
            assert match, 'variable %s: %r is not label_values(SELECTOR, LABEL)' % (variable['name'], query)
            found.append(('variable %s' % variable['name'], match.group('expr'), ['{{%s}}' % match.group('label')]))
    for group in RULES['groups']:
        for rule in group['rules']:
            found.append(('rule %s' % rule.get('alert', rule.get('record')), rule['expr'],
                          list((rule.get('annotations') or {}).values())))
    return found


EXPRESSIONS = _expressions()


def _parse(expr):
    for variable, duration in GRAFANA_RANGES.items():
        expr = expr.replace(variable, duration)
    return promql_parser.parse(expr)


def _selectors(tree):
    found = []

    def visit(node):
        if isinstance(node, promql_parser.VectorSelector):
            found.append(node)
    promql_parser.walk(tree, visit)
    return found


def _matchers(selector):
    return [(matcher.name, str(matcher.op).rsplit('.', 1)[-1], matcher.value) for matcher in selector.matchers.matchers]


def _series_labels(sample):
    """The labels a scraped sample carries: the target's, Prometheus's, its exporter's, le of a bucket."""
    family, _kind = SAMPLES[sample]
    exporter = SOURCES['metrics'][family]['exporter']
    labels = TARGET_LABELS | PROMETHEUS_LABELS | set(SOURCES['exporters'][exporter]['labels'])
    return labels | ({'le'} if sample.endswith('_bucket') else set())


def _grouping_labels(tree):
    """Labels named in by (...), without (...), on (...) and ignoring (...) anywhere in the expression."""
    text = str(tree)
    return set(label.strip() for group in re.findall(r'\b(?:by|without|on|ignoring)\s*\(([^)]*)\)', text)
               for label in group.split(',') if label.strip())


def test_the_files_hold_what_the_test_reads():
    assert len(DASHBOARD['panels']) >= 10 and len(RULES['groups'][0]['rules']) >= 4
    assert sum(1 for where, _e, _l in EXPRESSIONS if where.startswith('rule ')) == len(RULES['groups'][0]['rules'])
    assert {'vllm', 'balancer', 'npu'} <= COMPONENTS


@pytest.mark.parametrize('where, expr, legends', EXPRESSIONS, ids=[e[0] for e in EXPRESSIONS])
def test_every_series_is_exported_under_that_name(where, expr, legends):
    tree = _parse(expr)
    selectors = _selectors(tree)
    assert selectors, '%s: %s selects no series' % (where, expr)
    for selector in selectors:
        assert selector.name, '%s: a selector without a metric name: %s' % (where, expr)
        assert selector.name in SAMPLES, '%s: %s is exported by nothing metric-sources.yml lists' % (
            where, selector.name)


@pytest.mark.parametrize('where, expr, legends', EXPRESSIONS, ids=[e[0] for e in EXPRESSIONS])
def test_every_label_is_one_the_series_carries(where, expr, legends):
    tree = _parse(expr)
    carried = set()
    for selector in _selectors(tree):
        labels = _series_labels(selector.name)
        carried |= labels
        for name, _op, _value in _matchers(selector):
            assert name in labels, '%s: %s has no label %s (it has %s)' % (where, selector.name, name, sorted(labels))
    for label in _grouping_labels(tree):
        assert label in carried, '%s: groups by %s, which no series of it carries' % (where, label)
    for text in legends:
        for label in LEGEND_LABEL.findall(text) + ANNOTATION_LABEL.findall(text):
            assert label in carried, '%s: shows {{%s}}, which no series of it carries' % (where, label)


@pytest.mark.parametrize('where, expr, legends', EXPRESSIONS, ids=[e[0] for e in EXPRESSIONS])
def test_label_values_are_ones_the_exporters_write(where, expr, legends):
    for selector in _selectors(_parse(expr)):
        family, _kind = SAMPLES[selector.name]
        entry = SOURCES['metrics'][family]
        own = SOURCES['exporters'][entry['exporter']].get('component')
        for name, op, value in _matchers(selector):
            if name == 'component':
                values = set(value.split('|')) if op == 'Re' else {value}
                assert values <= COMPONENTS, '%s: component %s, the targets have %s' % (where, value, COMPONENTS)
                assert own is None or values == {own}, '%s: %s comes from targets with component %s, not %s' % (
                    where, selector.name, own, value)
            elif name == 'state':
                assert op == 'Equal' and value in entry['states'], '%s: state %s of %s' % (where, value, family)
        if own is not None:
            assert ('component', 'Equal', own) in _matchers(selector), (
                '%s: %s needs component="%s" (the same name may come from another job)' % (where, selector.name, own))


def test_the_dashboard_uses_only_series_a_310p_reports():
    dashboard_families = set(SAMPLES[selector.name][0] for where, expr, _l in EXPRESSIONS
                             for selector in _selectors(_parse(expr)))
    not_on_310p = set(name for name, entry in SOURCES['metrics'].items() if entry.get('on_310p') is False)
    assert not_on_310p, 'metric-sources.yml names no series the 310P lacks (the HBM ones)'
    assert dashboard_families.isdisjoint(not_on_310p), dashboard_families & not_on_310p


def test_the_dashboard_has_the_panels_a_user_looks_for():
    queries = dict((panel['title'], ' '.join(t['expr'] for t in panel['targets'])) for panel in DASHBOARD['panels'])
    wanted = {'Instances up': 'up{', 'Tokens per second': 'vllm:generation_tokens_total',
              'Time to first token (TTFT)': 'vllm:time_to_first_token_seconds_bucket',
              'Time per output token (TPOT)': 'vllm:request_time_per_output_token_seconds_bucket',
              'Requests running and waiting': 'vllm:num_requests_waiting', 'KV cache use': 'vllm:kv_cache_usage_perc',
              'Balancer servers by state': 'haproxy_server_status', 'NPU memory': 'npu_chip_info_used_memory',
              'NPU temperature': 'npu_chip_info_temperature', 'NPU power': 'npu_chip_info_power'}
    for title, series in wanted.items():
        assert series in queries.get(title, ''), (title, queries.get(title))
    assert 'vllm:prompt_tokens_total' in queries['Tokens per second']


def test_every_panel_has_a_datasource_and_targets_on_it():
    variables = dict((variable['name'], variable) for variable in DASHBOARD['templating']['list'])
    assert variables['datasource']['type'] == 'datasource' and variables['datasource']['query'] == 'prometheus'
    uids = set()
    ids = [panel['id'] for panel in DASHBOARD['panels']]
    assert len(ids) == len(set(ids)), 'panel ids repeat: %s' % ids
    for panel in DASHBOARD['panels']:
        assert panel['datasource'] == {'type': 'prometheus', 'uid': '${datasource}'}, panel['title']
        assert panel['targets'], '%s has no query' % panel['title']
        ref_ids = [target['refId'] for target in panel['targets']]
        assert len(ref_ids) == len(set(ref_ids)), panel['title']
        for target in panel['targets']:
            assert target['datasource'] == panel['datasource'] and target['expr'].strip(), panel['title']
        grid = panel['gridPos']
        assert 0 <= grid['x'] and grid['x'] + grid['w'] <= 24 and grid['h'] > 0, panel['title']
        uids.add(panel['datasource']['uid'])
    assert uids == {'${datasource}'}
    assert DASHBOARD['uid'] and DASHBOARD['title'] and isinstance(DASHBOARD['schemaVersion'], int)


def test_the_rules_file_has_the_shape_prometheus_loads():
    """What promtool checks, for machines without it: groups of named rules, each alert with a parsable
    expression, a duration, a severity and a summary."""
    names = [group['name'] for group in RULES['groups']]
    assert len(names) == len(set(names))
    alerts = [rule['alert'] for group in RULES['groups'] for rule in group['rules']]
    assert len(alerts) == len(set(alerts))
    assert {'AscendVllmInstanceDown', 'AscendVllmBalancerServerDown', 'AscendVllmKvCacheNearFull',
            'AscendVllmNpuChipUnhealthy'} <= set(alerts)
    for group in RULES['groups']:
        for rule in group['rules']:
            assert set(rule) <= {'alert', 'expr', 'for', 'labels', 'annotations'}, rule
            assert re.match(r'^[0-9]+[smh]$', rule['for']), rule
            assert rule['labels']['severity'] in ('warning', 'critical'), rule
            assert rule['annotations']['summary'], rule
            _parse(rule['expr'])


# ----------------------------------------------------------------------------- the stand-in server
def _standin_metrics():
    """The /metrics text of the test image's stand-in after one finished request."""
    loader = importlib.machinery.SourceFileLoader('ascend_vllm_standin', STANDIN)
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    args = types.SimpleNamespace(model_tag='Qwen/Qwen3.5-2B', model=None, served_model_name=['qwen3.5'],
                                 max_model_len=4096, api_key=None)
    engine = module.Engine(args, {})
    engine.ttft.observe(0.2)
    engine.tpot.observe(0.05)
    return module.metrics(engine)


def _family(name, kind):
    """The family of a HELP/TYPE line's name: the Prometheus text format (prometheus_client, vLLM's /metrics)
    names a counter's lines after its sample, X_total."""
    return name[:-len('_total')] if kind == 'counter' and name.endswith('_total') else name


def _exposition(text):
    """({family: type}, {family: help}, {sample name}) of a Prometheus text exposition."""
    types_ = dict((_family(name, kind), kind) for name, kind in re.findall(r'^# TYPE (\S+) (\S+)$', text, re.M))
    counters = set(name for name, kind in types_.items() if kind == 'counter')
    helps = dict((name[:-len('_total')] if name.endswith('_total') and name[:-len('_total')] in counters else name,
                  value) for name, value in re.findall(r'^# HELP (\S+) (.*)$', text, re.M))
    samples = set(re.findall(r'^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{|\s)', text, re.M))
    return types_, helps, samples


def test_the_standin_exports_every_vllm_series_the_files_use():
    types_, helps, samples = _exposition(_standin_metrics())
    used = set(selector.name for _w, expr, _l in EXPRESSIONS for selector in _selectors(_parse(expr))
               if selector.name.startswith('vllm:'))
    assert used, 'the dashboard uses no vLLM series'
    assert used <= samples, 'the stand-in does not export %s' % sorted(used - samples)
    for family, entry in SOURCES['metrics'].items():
        if entry['exporter'] == 'vllm':
            assert types_.get(family) == SOURCES['vllm_0_23_0'][family], family
            assert helps.get(family) == entry['help'], family


def test_the_standin_exports_only_what_vllm_0_23_0_does():
    types_, _helps, _samples = _exposition(_standin_metrics())
    assert types_, 'no # TYPE line in the stand-in /metrics'
    for family, kind in types_.items():
        assert SOURCES['vllm_0_23_0'].get(family) == kind, '%s (%s) is no vLLM 0.23.0 family' % (family, kind)


# ------------------------------------------------------------------------------ HAProxy's own names
HAPROXY = shutil.which('haproxy')


def _free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


@pytest.mark.skipif(HAPROXY is None, reason="Debian's haproxy is not installed (apt-get install haproxy)")
def test_haproxy_exports_the_balancer_series_the_files_use(tmp_path):
    with open(os.path.join(ROOT, 'roles', 'balancer', 'templates', 'haproxy.cfg.j2')) as handle:
        template = handle.read()
    exporter_line = 'http-request use-service prometheus-exporter if { path /metrics }'
    assert exporter_line in template, 'the balancer no longer serves HAProxy\'s Prometheus exporter'
    metrics_port, backend_port, dead_port = _free_port(), _free_port(), _free_port()
    config = tmp_path / 'haproxy.cfg'
    config.write_text('\n'.join([
        'defaults', '    mode http', '    timeout connect 2s', '    timeout client 10s', '    timeout server 10s',
        'frontend metrics', '    bind 127.0.0.1:%d' % metrics_port, '    ' + exporter_line,
        '    http-request return status 404',
        'frontend qwen', '    bind 127.0.0.1:%d' % backend_port, '    default_backend qwen',
        'backend qwen', '    option httpchk GET /health',
        '    server vllm-0 127.0.0.1:%d check inter 1s' % dead_port, '']))
    proc = subprocess.Popen([HAPROXY, '-f', str(config)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        text = ''
        for _attempt in range(100):
            try:
                with urllib.request.urlopen('http://127.0.0.1:%d/metrics' % metrics_port, timeout=2) as response:
                    text = response.read().decode()
                break
            except OSError:
                time.sleep(0.05)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    types_, helps, samples = _exposition(text)
    for family, entry in SOURCES['metrics'].items():
        if entry['exporter'] == 'haproxy':
            assert types_.get(family) == entry['type'] and helps.get(family) == entry['help'], family
            assert family in samples, family
    states = set(re.findall(r'^haproxy_server_status\{[^}]*state="([A-Z]+)"', text, re.M))
    assert states == set(SOURCES['metrics']['haproxy_server_status']['states']), states


# ------------------------------------------------------------------------------------ promtool
PROMTOOL = shutil.which('promtool')


@pytest.mark.skipif(PROMTOOL is None, reason="Debian's prometheus (promtool) is not installed")
def test_promtool_loads_the_rules():
    proc = subprocess.run([PROMTOOL, 'check', 'rules', RULES_PATH], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert 'SUCCESS: %d rules found' % sum(len(group['rules']) for group in RULES['groups']) in proc.stdout


@pytest.mark.skipif(PROMTOOL is None, reason="Debian's prometheus (promtool) is not installed")
def test_each_alert_fires_on_what_it_is_for_and_not_otherwise(tmp_path):
    """promtool's rule unit tests (monitoring_alerts_test.yml): series shaped like the targets' and the
    exporters', each alert firing after its "for", and quiet on healthy series."""
    shutil.copy(RULES_PATH, str(tmp_path / 'ascend-vllm-alerts.yml'))
    shutil.copy(ALERT_TESTS, str(tmp_path / 'alerts_test.yml'))
    proc = subprocess.run([PROMTOOL, 'test', 'rules', 'alerts_test.yml'], cwd=str(tmp_path),
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert 'SUCCESS' in proc.stdout


# ------------------------------------------------------------------------------------ the playbook
def _run_playbook(tmp_path, *extra):
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, 'ansible.cfg'), ANSIBLE_NOCOLOR='1',
               ANSIBLE_LOCAL_TEMP=str(tmp_path / 'tmp'))
    command = [os.path.join(os.path.dirname(sys.executable), 'ansible-playbook'),
               os.path.join(ROOT, 'playbooks', 'monitoring.yml')]
    for pair in extra:
        command += ['-e', pair]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)


def test_the_playbook_installs_both_and_tells_grafana_where(tmp_path):
    rules, dashboards, provisioning = tmp_path / 'rules', tmp_path / 'dashboards', tmp_path / 'provisioning'
    extra = ('ascend_vllm_monitoring_rules_dir=%s' % rules, 'ascend_vllm_monitoring_dashboards_dir=%s' % dashboards,
             'ascend_vllm_monitoring_grafana_provisioning_dir=%s' % provisioning)
    proc = _run_playbook(tmp_path, *extra)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with open(RULES_PATH) as source, open(str(rules / 'ascend-vllm-alerts.yml')) as installed:
        assert installed.read() == source.read()
    with open(str(dashboards / 'ascend-vllm-dashboard.json')) as installed:
        assert json.load(installed) == DASHBOARD
    with open(str(provisioning / 'ascend-vllm.yml')) as handle:
        provider = yaml.safe_load(handle)
    assert provider['apiVersion'] == 1
    [entry] = provider['providers']
    assert entry['type'] == 'file' and entry['options']['path'] == str(dashboards)
    again = _run_playbook(tmp_path, *extra)
    assert again.returncode == 0 and re.search(r'localhost\s*: ok=\d+\s+changed=0\b', again.stdout), again.stdout


def test_the_playbook_refuses_to_run_with_nowhere_to_install(tmp_path):
    proc = _run_playbook(tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert 'ascend_vllm_monitoring_rules_dir' in proc.stdout and 'Install the alert rules' not in proc.stdout
