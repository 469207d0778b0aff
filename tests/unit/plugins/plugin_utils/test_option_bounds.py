# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The bounds of the vllm_config options (vllm_options.BOUNDS), judged by one check (_rules.bounded).

The class, not the case: every numeric or boolean option has bounds (tensor_parallel_size has
its own rule: its fix names the model's and platform's TP sizes), and for every bounded option a
value outside the bounds gives one violation naming the user's variable and the value, with the
bounds' words, while a value inside gives none about that option.
"""

from hypothesis import given, settings, strategies as st

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.planner import plan
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.vllm_options import BOUNDS, OPTIONS

OWN_RULE = ('tensor_parallel_size',)


def _request(**changes):
    """The guide's inputs on an Atlas 300I DUO (2B, no MTP so that any max_num_seqs fits), plus changes."""
    base = {'platform': 'atlas_300i_duo', 'model': 'Qwen/Qwen3.5-2B', 'tensor_parallel_size': 1,
            'max_model_len': 4096, 'max_num_seqs': 4, 'num_speculative_tokens': 0, 'var_prefix': 'vllm_serve_'}
    base.update(changes)
    return base


def test_every_numeric_or_boolean_option_has_bounds():
    numeric = [option.name for option in OPTIONS
               if option.type == 'bool' or option.var_type in ('int', 'float')
               or option.name in ('port', 'visible_chips', 'chip_free_memory_mb')]
    missing = sorted(name for name in numeric if name not in BOUNDS and name not in OWN_RULE)
    assert not missing, 'options without bounds in vllm_options.BOUNDS: %s' % ', '.join(missing)
    assert set(BOUNDS) <= set(option.name for option in OPTIONS)


def _outside(bounds):
    if bounds.kind == 'bool':
        return st.sampled_from(['maybe', 'TRUE!', 2, -1, 'y e s'])
    choices = []
    if bounds.minimum is not None:
        low = st.integers(max_value=int(bounds.minimum) - (0 if bounds.open_minimum else 1), min_value=-10 ** 6)
        choices.append(low)
    if bounds.maximum is not None:
        choices.append(st.integers(min_value=int(bounds.maximum) + 1, max_value=10 ** 6))
    return st.one_of(choices).flatmap(lambda number: st.sampled_from([number, str(number)]))


@settings(deadline=None)
@given(data=st.data())
def test_a_value_outside_the_bounds_is_one_violation_naming_variable_and_value(data):
    option = data.draw(st.sampled_from(sorted(BOUNDS)))
    value = data.draw(_outside(BOUNDS[option]))
    found = [v for v in plan(_request(**{option: value}))['violations'] if v['variable'] == 'vllm_serve_' + option]
    assert len(found) == 1, found
    assert found[0]['value'] == value
    assert found[0]['rule'].startswith('%s must be ' % option)
    assert found[0]['fix'].startswith('set vllm_serve_%s' % option) and found[0]['fix'].endswith(BOUNDS[option].fix)


def _inside(option, bounds):
    if bounds.kind == 'bool':
        return st.sampled_from([True, False, 'yes', 'no', 'true', 'false'])
    if bounds.kind == 'float':
        return st.floats(min_value=0.05, max_value=bounds.maximum, allow_nan=False)
    high = bounds.maximum if bounds.maximum is not None else 10 ** 6
    low = bounds.minimum
    if option == 'num_speculative_tokens':
        high = 0  # the 2B model has an MTP head, but more than 0 tokens is another rule's business
    return st.integers(min_value=low, max_value=max(low, min(high, 10 ** 6)))


@settings(deadline=None)
@given(data=st.data())
def test_a_value_inside_the_bounds_is_no_violation_of_the_bounds(data):
    option = data.draw(st.sampled_from(sorted(BOUNDS)))
    value = data.draw(_inside(option, BOUNDS[option]))
    violations = plan(_request(**{option: value}))['violations']
    assert not [v for v in violations if v['rule'].startswith('%s must be ' % option)], violations
