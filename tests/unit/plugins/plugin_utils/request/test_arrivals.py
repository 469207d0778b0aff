# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""One reading of a role variable, whichever role consumes it: the class, not the case.

For every option of every role's argument spec, by the kind of value it takes (a port, an int or
float with a range, a bool, an enum, a list of str or of numbers, a string or path):
- a good value in each form it can arrive in -- native (inventory YAML, JSON extra vars), text from
  ``-e key=value``, an AWX survey answer (text for a multiple choice or text question, a number for an
  integer or float one) -- passes preflight's variables check, and every form is read as the same
  value (``contracts/_coerce.arrived``, which the request and the eval role's eval_plan both use);
  the eval role's own checks accept that value too;
- a bad value is refused by preflight's variables check naming the variable, its value (hidden for a
  secret) and a fix that names the variable.
"""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from ansible_collections.ascend.vllm.plugins.module_utils._redact import HIDDEN
from ansible_collections.ascend.vllm.plugins.module_utils.evaluation._eval import DATASETS, RUNNERS
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._coerce import arrived
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._formats import FORMATS
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._ranges import PORT, RANGES
from ansible_collections.ascend.vllm.plugins.plugin_utils.evaluation._eval_inputs import (
    report_dir_problems, setting_problems)
from ansible_collections.ascend.vllm.plugins.plugin_utils.request._vars import (
    check_role_vars, judged, role_argument_specs, value_specs)

ROLES = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', '..', 'roles')
SPECS = role_argument_specs(ROLES)
BY_SPEC = value_specs(SPECS)
# Every option of every role (not the ascend_vllm_* globals, which read as the option they feed).
OPTIONS = dict((name, spec) for name, spec in sorted(BY_SPEC.items()) if not name.startswith('ascend_vllm_'))
EXAMPLES = int(os.environ.get('ASCEND_HYPOTHESIS_EXAMPLES', '200'))


def kind(name, spec):
    """The kind of value a variable takes, from its argument spec and its range (contracts/_ranges.py)."""
    bounds = RANGES.get(name)
    kind_ = spec.get('type', 'str')
    if name in FORMATS:
        return FORMATS[name].kind
    if kind_ == 'int' and bounds is not None and (bounds.minimum, bounds.maximum) == PORT:
        return 'port'
    if kind_ in ('int', 'float'):
        return kind_ + (' range' if bounds is not None else '')
    if kind_ == 'list':
        elements = spec.get('elements', 'str')
        if elements in ('int', 'float'):
            return 'list of %s%s' % (elements, ' range' if bounds is not None else '')
        return 'list of %s%s' % (elements, ' choices' if spec.get('choices') else '')
    if kind_ in ('str', 'path') and spec.get('choices'):
        return 'enum'
    return kind_


KINDS = {}
for _name, _spec in OPTIONS.items():
    KINDS.setdefault(kind(_name, _spec), []).append(_name)


def test_every_kind_of_value_is_covered():
    """A new kind of option (a type or a range these strategies do not know) fails here, not silently."""
    assert set(KINDS) <= set(GOOD) | {'dict', 'raw', 'list of dict'}, sorted(set(KINDS) - set(GOOD))
    # The kinds the brief names, each with at least one variable of the collection.
    for needed in ('port', 'int range', 'float range', 'bool', 'enum', 'list of str', 'list of int range', 'path',
                   'str', 'registry', 'repository', 'image', 'digest', 'tag'):
        assert KINDS.get(needed), needed
    assert KINDS.get('dataset') == ['eval_datasets']


def _number(bounds, floats=False):
    low = bounds.minimum if bounds is not None and bounds.minimum is not None else 0
    high = bounds.maximum if bounds is not None and bounds.maximum is not None else low + 10 ** 6
    if floats:
        return st.floats(min_value=low, max_value=high, allow_nan=False, allow_infinity=False)
    return st.integers(min_value=int(low), max_value=int(high))


_TEXT = st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7e), min_size=1, max_size=12)


def _good(name, spec):
    """Values the variable's contract accepts, of the kind its spec declares."""
    kind_ = kind(name, spec)
    bounds = RANGES.get(name)
    if kind_ in ('port', 'int range', 'int'):
        return _number(bounds)
    if kind_ in ('float range', 'float'):
        return _number(bounds, floats=True) if bounds else st.floats(min_value=0.1, max_value=0.95)
    if kind_ == 'bool':
        return st.booleans()
    if kind_ == 'enum':
        return st.sampled_from(spec['choices'])
    if kind_.startswith('list of int') or kind_.startswith('list of float'):
        return st.lists(_number(bounds, floats=kind_.startswith('list of float')), min_size=1, max_size=3)
    if kind_ == 'list of str choices':
        return st.lists(st.sampled_from(spec['choices']), min_size=1, max_size=2, unique=True)
    if kind_ in ('list of str', 'list of path'):
        return st.lists(_TEXT, max_size=3)
    if kind_ in _IMAGE_PARTS:
        return _IMAGE_PARTS[kind_]
    return _TEXT


_NAME = st.from_regex(r'\A[a-z0-9]+([._-][a-z0-9]+)?\Z')
_TAG = st.from_regex(r'\A[A-Za-z0-9_][A-Za-z0-9_.-]{0,20}\Z')
_REGISTRY = st.sampled_from(['quay.io', 'm.daocloud.io/quay.io', 'docker.io', 'registry.local:5000', '172.17.0.1:5000',
                             '[::1]:5000', 'harbor.example.com/proxy'])
_REPOSITORY = st.lists(_NAME, min_size=1, max_size=3).map('/'.join)
_DIGEST = st.from_regex(r'\A[a-f0-9]{64}\Z').map(lambda hexits: 'sha256:' + hexits)
_IMAGE_PARTS = {
    'registry': st.lists(_REGISTRY, min_size=1, max_size=3),
    'repository': _REPOSITORY,
    'digest': _DIGEST,
    'tag': _TAG,
    'node path': st.lists(_NAME, min_size=1, max_size=3).map(lambda parts: '/' + '/'.join(parts)),
    'dataset': st.lists(st.sampled_from(sorted(DATASETS)), min_size=1, max_size=2, unique=True),
    'image': st.tuples(_REGISTRY.filter(lambda registry: '/' not in registry and '[' not in registry), _REPOSITORY,
                       _TAG).map(lambda parts: '%s/%s:%s' % parts),
}


GOOD = dict.fromkeys(['node path', 'dataset', 'registry', 'repository', 'digest', 'tag', 'image', 'port', 'int range', 'int',
                      'float range', 'float', 'bool', 'enum', 'list of int', 'list of int range', 'list of float',
                      'list of str', 'list of str choices', 'list of path',
                      'str', 'path'])


def _text(value):
    """How ``-e key=value`` or an AWX text answer spells a scalar."""
    if isinstance(value, bool):
        return 'true' if value else 'false'
    return value if isinstance(value, str) else repr(value) if isinstance(value, float) else str(value)


def arrivals(name, value):
    """{form: the value as it arrives}: native, -e key=value, an AWX survey answer.

    A list or mapping reaches a play natively only (YAML, ``-e @file``, ``-e '{"k": [..]}'`` JSON, AWX extra
    variables): ``-e key=value`` and survey questions give text, which a list variable refuses (below)."""
    forms = {'native': value, 'json extra vars': json.loads(json.dumps(value))}
    if not isinstance(value, (list, dict)):
        forms['-e key=value'] = _text(value)
        # AWX: integer and float questions answer with a number, multiple choice and text with text.
        forms['awx survey'] = value if isinstance(value, (int, float)) and not isinstance(value, bool) else _text(value)
    return forms


def _eval_problems(name, value):
    """The eval role's own checks of one judged variable (eval_plan reads values as the request does)."""
    settings = {'eval_tolerance': 2.0, 'eval_runner': 'builtin', 'eval_performance': True, 'eval_concurrency': [1],
                'eval_batch_size': 16, 'eval_max_out_len': 4096, 'eval_perf_requests': 8, 'eval_perf_input_len': 32,
                'eval_perf_output_len': 16, 'eval_request_timeout': 60, 'eval_limit': None, 'eval_accuracy': True,
                'eval_report_dir': 'eval-results'}
    settings[name] = value
    return [problem for problem in setting_problems(settings) + report_dir_problems(settings)
            if problem['check'] == name]


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_good_value_in_every_form_is_accepted_and_read_the_same(data):
    name = data.draw(st.sampled_from(sorted(name for name in OPTIONS if kind(name, OPTIONS[name]) in GOOD)))
    value = data.draw(_good(name, OPTIONS[name]))
    read = {}
    for form, given_value in arrivals(name, value).items():
        problems = [problem for problem in check_role_vars({name: given_value}, SPECS) if problem['variable'] == name]
        assert problems == [], (form, given_value, problems)
        read[form] = judged(name, given_value, BY_SPEC)
    assert len(set(json.dumps(item, sort_keys=True) for item in read.values())) == 1, read
    if name.startswith('eval_'):
        assert _eval_problems(name, read['native']) == [], (name, read)


def _bad(name, spec):
    """Values of the wrong kind, or outside the variable's range or choices, in the forms they arrive in."""
    kind_ = kind(name, spec)
    bounds = RANGES.get(name)
    options = []
    if kind_ in ('port', 'int range', 'int', 'float range', 'float'):
        options.append(st.sampled_from(['abc', 'eight', '8080x', [1], {'a': 1}]))
    if kind_ in ('port', 'int range', 'float range', 'list of int range') and bounds.minimum is not None:
        low = st.integers(max_value=int(bounds.minimum) - 1, min_value=int(bounds.minimum) - 10 ** 6)
        options.append(low.flatmap(lambda number: st.sampled_from([number, str(number)]))
                       if not kind_.startswith('list') else low.map(lambda number: [number]))
    if kind_ in ('port', 'int range', 'float range') and bounds.maximum is not None:
        options.append(st.integers(min_value=int(bounds.maximum) + 1, max_value=int(bounds.maximum) + 10 ** 6)
                       .flatmap(lambda number: st.sampled_from([number, str(number)])))
    if kind_ == 'bool':
        options.append(st.sampled_from(['maybe', 'ja', '2', 2, -1, [True], {'on': 1}]))
    if kind_ == 'enum':
        options.append(_TEXT.filter(lambda text: text not in spec['choices']))
    if kind_.startswith('list of') or kind_ in ('registry', 'dataset'):
        # -e key=value and a survey's text question give text: never split at commas.
        options.append(st.sampled_from(['a,b', '[1, 2]', 'x']))
    if kind_ == 'list of str choices':
        options.append(_TEXT.filter(lambda text: text not in spec['choices']).map(lambda text: [text]))
    if kind_ in ('str', 'path', 'repository', 'image', 'digest', 'tag'):
        options.append(st.sampled_from([['a', 'b'], {'a': 'b'}]))
    # Each grammar of contracts/_formats.py: what a user writes by mistake.
    if kind_ == 'registry':
        options.append(st.sampled_from([['https://quay.io'], ['quay.io m.daocloud.io/quay.io'], ['quay.io', 'a b'],
                                        ['quay.io/'], ['-x.io']]))
    if kind_ == 'repository':
        options.append(st.sampled_from(['Ascend/vllm', 'ascend//vllm', 'a b', 'quay.io/ascend/vllm-ascend:v1']))
    if kind_ == 'image':
        options.append(st.sampled_from(['quay.io/ascend/vllm-ascend v0.23.0-310p', 'https://quay.io/a/b:c',
                                        'Quay.io/Ascend/vllm:1', 'a/b:c:d']))
    if kind_ == 'digest':
        options.append(st.sampled_from(['abc123', 'sha256:xyz', 'sha256:' + '0' * 63, 'md5:' + '0' * 32]))
    if kind_ == 'tag':
        options.append(st.sampled_from([':', '-latest', '.v1', 'v 1', 'v0.23.0/310p', 'x' * 129]))
    if kind_ == 'node path':
        options.append(st.sampled_from(['etc/ascend', './run', '~/cache', 'C:\\cache', ['/a']]))
    if kind_ == 'dataset':
        options.append(st.sampled_from([['mmlu'], ['gsm8k', 'GSM8K'], ['textvqa', 'gsm8k ']]))
    return st.one_of(options) if options else st.nothing()


_BAD_KINDS = ('node path', 'dataset', 'registry', 'repository', 'image', 'digest', 'tag', 'port', 'int range', 'int', 'float range',
              'float', 'bool', 'enum', 'list of int', 'list of int range', 'list of str', 'list of str choices', 'list of path', 'str', 'path')


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_bad_value_is_refused_naming_the_variable_its_value_and_the_fix(data):
    name = data.draw(st.sampled_from(sorted(name for name in OPTIONS if kind(name, OPTIONS[name]) in _BAD_KINDS)))
    value = data.draw(_bad(name, OPTIONS[name]))
    problems = [problem for problem in check_role_vars({name: value}, SPECS) if problem['variable'] == name]
    assert len(problems) == 1, (name, value, problems)
    problem = problems[0]
    # The value, or (an item of a list that is wrong: NAME[i]=ITEM) the item.
    # (The eval role's own words quote a dataset as Python does: 'mmlu'.)
    items = [value] + (value if isinstance(value, list) else [])
    shown = [HIDDEN] if OPTIONS[name].get('no_log') else (
        [json.dumps(item, sort_keys=True, ensure_ascii=False) for item in items] + [repr(item) for item in items])
    assert problem['msg'].startswith(('%s=' % name, '%s[' % name, '%s:' % name)), problem
    assert any(text in problem['msg'] for text in shown), (value, problem)
    # A fix to follow: a value to set (an example) or what to do.
    assert problem['fix'] and ('e.g.' in problem['fix'] or name in problem['fix']), problem


@pytest.mark.parametrize('name', sorted(name for name in OPTIONS if kind(name, OPTIONS[name]) == 'bool'))
@pytest.mark.parametrize('text,truth', [('true', True), ('false', False), ('yes', True), ('no', False),
                                        ('True', True), ('FALSE', False), ('on', True), ('off', False),
                                        ('1', True), ('0', False), ('y', True), ('n', False)])
def test_every_bool_reads_ansibles_truth_table(name, text, truth):
    """One truth table for every bool of every role: what `| bool` and a module's type: bool make of it."""
    assert judged(name, text, BY_SPEC) is truth
    assert not [problem for problem in check_role_vars({name: text}, SPECS) if problem['variable'] == name]


def test_a_node_path_is_not_expanded_on_the_controller():
    """Ansible's path type expands ~ and $VARS with the controller's environment; a node's path is read as written."""
    assert arrived('vllm_serve_model_cache_dir', '~/models', OPTIONS['vllm_serve_model_cache_dir'])[0] == '~/models'


def test_the_eval_roles_runner_choices_are_the_runners_it_has():
    assert sorted(OPTIONS['eval_runner']['choices']) == sorted(RUNNERS)


def test_an_unknown_dataset_is_refused_in_preflight_with_the_eval_roles_words():
    """Preflight judges the datasets (whichever playbook runs) with the words the eval role uses."""
    from ansible_collections.ascend.vllm.plugins.plugin_utils.evaluation._eval_inputs import dataset_problems
    (found,) = [problem for problem in check_role_vars({'eval_datasets': ['gsm8k', 'mmlu']}, SPECS)
                if problem['variable'] == 'eval_datasets']
    (role,) = dataset_problems(['gsm8k', 'mmlu'], {'gsm8k': '/'})[-1:]
    assert (found['msg'], found['fix']) == (role['msg'], role['fix']) == (
        "eval_datasets: unknown dataset 'mmlu'", 'use one of: %s (the datasets eval_datasets names)' % ', '.join(DATASETS))


# The suffixes a variable of each kind is named with: a new one without an entry in contracts/_formats.py fails.
NAMED = {'registry': '_registries', 'repository': '_repository', 'image': '_image', 'digest': '_digest',
         'tag': '_tag'}
# Path variables judged elsewhere (their own messages) or that live on the controller, where a relative
# path is taken from the directory ansible-playbook runs in.
PATHS_ELSEWHERE = {
    'vllm_serve_model_cache_dir': 'node: serve/_instances.py',
    'image_pull_archive_dir': 'node: contracts/_image_ref.py',
    'eval_aisbench_venv': 'controller',
    'eval_aisbench_tokenizer': 'controller',
}


def test_every_variable_that_names_an_image_has_a_format():
    """A new variable named like a registry list, a repository, an image, a digest or a tag cannot arrive
    without its grammar (contracts/_formats.py)."""
    missing = sorted(name for name in OPTIONS for suffix in NAMED.values()
                     if name.endswith(suffix) and name not in FORMATS)
    assert not missing, missing
    assert set(FORMATS) <= set(OPTIONS), sorted(set(FORMATS) - set(OPTIONS))


def test_the_balancer_and_image_pull_refuse_the_same_registry_with_the_same_words():
    """The case that started it: a registry with a scheme was refused for the vLLM image and pulled at
    deploy time for HAProxy's, after the instances had been replaced."""
    found = dict((problem['variable'], problem['msg']) for problem in check_role_vars(
        {'image_pull_registries': ['https://quay.io'], 'balancer_registries': ['https://docker.io']}, SPECS))
    assert found == {'image_pull_registries': 'image_pull_registries[0]="https://quay.io" is not a registry address',
                     'balancer_registries': 'balancer_registries[0]="https://docker.io" is not a registry address'}


def test_every_path_variable_says_where_it_lives():
    """A path on the node is judged absolute in preflight (contracts/_formats.py, or in its plan's own words);
    a controller path may be relative. A new path variable cannot arrive without saying which."""
    paths = sorted(name for name, spec in OPTIONS.items()
                   if spec.get('type') == 'path' or spec.get('elements') == 'path')
    undeclared = [name for name in paths if name not in FORMATS and name not in PATHS_ELSEWHERE]
    assert not undeclared, undeclared
    for name in paths:
        if name in FORMATS:
            assert FORMATS[name].kind == 'node path', name
            assert check_role_vars({name: 'relative/dir'}, SPECS)[0]['msg'] == \
                '%s="relative/dir" is not an absolute path on the node' % name
