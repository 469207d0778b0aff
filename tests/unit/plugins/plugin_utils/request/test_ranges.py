# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The range of every numeric role variable (contracts/_ranges.py), judged by one generic check.

The class, not the case: every int or float option of every role's argument spec has a range
(or is a vllm_config option, whose range is a planner rule), and for every ranged variable any
number outside its range is refused by check_role_vars naming the variable and the value,
while every number inside passes.
"""

import glob
import os

import pytest
import yaml
from hypothesis import given, settings, strategies as st

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._ranges import RANGES, range_problem
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.vllm_options import INSTANCE_OPTIONS
from ansible_collections.ascend.vllm.plugins.plugin_utils.request._vars import check_role_vars

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', '..'))


def _specs():
    out = {}
    for path in sorted(glob.glob(os.path.join(ROOT, 'roles', '*', 'meta', 'argument_specs.yml'))):
        with open(path) as handle:
            out[path.split(os.sep)[-3]] = yaml.safe_load(handle)
    return out


SPECS = _specs()


def _numeric_options():
    found = {}
    for document in SPECS.values():
        for entry in document['argument_specs'].values():
            for name, spec in ((entry or {}).get('options') or {}).items():
                if spec.get('type') in ('int', 'float'):
                    found[name] = spec['type']
                elif spec.get('type') == 'list' and spec.get('elements') in ('int', 'float'):
                    found[name] = 'list'
    return found


NUMERIC = _numeric_options()
# vllm_serve_chips: the instance plan judges chips with the instance's index (serve/_instances.py).
PLANNER_RULES = set('vllm_serve_' + option for option in INSTANCE_OPTIONS) | {'vllm_serve_chips'}


def _as_given(name, number):
    """A number as the variable takes it: itself, or a list of it for a list of numbers."""
    return [number] if NUMERIC.get(name) == 'list' else number


def test_every_numeric_role_variable_has_a_range():
    missing = sorted(name for name in NUMERIC if name not in RANGES and name not in PLANNER_RULES)
    assert not missing, 'numeric role variables without a range in contracts/_ranges.py: %s' % ', '.join(missing)


def test_every_range_belongs_to_a_numeric_role_variable():
    stray = sorted(name for name in RANGES if name not in NUMERIC)
    assert not stray, 'ranges of no int/float option of any argument spec: %s' % ', '.join(stray)


@pytest.mark.parametrize('name', sorted(RANGES))
def test_the_example_and_the_default_lie_within_the_range(name):
    bounds = RANGES[name]
    assert range_problem(name, bounds.example) is None
    defaults = [entry['options'][name].get('default') for document in SPECS.values()
                for entry in document['argument_specs'].values() if name in ((entry or {}).get('options') or {})]
    for default in defaults:
        if isinstance(default, (int, float, list)) and not isinstance(default, bool):
            assert range_problem(name, default) is None, (name, default)


def _outside(bounds):
    """Numbers outside the range, as YAML or -e hands them over (int, float, text)."""
    options = []
    if bounds.minimum is not None:
        options.append(st.integers(max_value=int(bounds.minimum) - 1))
    if bounds.maximum is not None:
        options.append(st.integers(min_value=int(bounds.maximum) + 1))
    return st.one_of(options).flatmap(lambda number: st.sampled_from([number, str(number)]))


def _inside(bounds):
    low = int(bounds.minimum) if bounds.minimum is not None else -10 ** 6
    high = int(bounds.maximum) if bounds.maximum is not None else 10 ** 9
    return st.integers(min_value=low, max_value=high)


@settings(deadline=None)
@given(data=st.data())
def test_a_number_outside_the_range_is_refused_naming_variable_value_and_fix(data):
    name = data.draw(st.sampled_from(sorted(RANGES)))
    value = data.draw(_outside(RANGES[name]))
    problems = [problem for problem in check_role_vars({name: _as_given(name, value)}, SPECS)
                if problem['variable'] == name]
    assert len(problems) == 1, problems
    problem = problems[0]
    assert problem['kind'] == 'range'
    assert problem['msg'].startswith('%s=' % name) and str(value) in problem['msg']
    assert name in problem['fix'] and str(RANGES[name].example) in problem['fix']


@settings(deadline=None)
@given(data=st.data())
def test_a_number_inside_the_range_passes(data):
    name = data.draw(st.sampled_from(sorted(RANGES)))
    value = data.draw(_inside(RANGES[name]))
    assert not [problem for problem in check_role_vars({name: _as_given(name, value)}, SPECS)
                if problem['variable'] == name]


def test_a_value_of_the_wrong_type_is_the_type_checks_to_report():
    problems = check_role_vars({'vllm_serve_ready_timeout': '30m'}, SPECS)
    assert [problem['kind'] for problem in problems] == ['type']


def test_null_is_refused_unless_it_means_no_limit():
    assert range_problem('vllm_serve_ready_timeout', None)['msg'] == 'vllm_serve_ready_timeout=null is not a number'
    assert range_problem('eval_limit', None) is None
