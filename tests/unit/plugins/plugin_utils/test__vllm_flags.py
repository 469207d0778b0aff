# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""extra_args against vLLM 0.23's own flag list: split, unknown, conflicting, missing and extra values."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts import planner
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._cli_args import (
    MANAGED_FLAGS, extra_arg_problems, split_extra_args)
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._vllm_flags import ALIASES, CONFLICTS, FLAGS, KINDS, SOURCE


def request(**changes):
    """The guide's inputs on an Atlas 300I DUO, 2B, plus changes."""
    req = {'platform': 'atlas_300i_duo', 'model': 'Qwen/Qwen3.5-2B', 'max_model_len': 16384, 'max_num_seqs': 8,
           'var_prefix': 'vllm_serve_'}
    req.update(changes)
    return req


def problems(*items):
    words, bad = split_extra_args(list(items))
    assert bad == []
    return extra_arg_problems(words)


def test_the_table_names_its_source_and_covers_every_managed_flag():
    assert 'arg_utils.py' in SOURCE and 'cli_args.py' in SOURCE
    assert set(FLAGS.values()) <= set(KINDS)
    assert set(MANAGED_FLAGS) <= set(FLAGS)
    assert set(CONFLICTS) <= set(FLAGS)
    assert set(ALIASES.values()) <= set(FLAGS)
    # The fork's own edge-cloud flags are not vLLM's.
    assert '--edge-npu-count' not in FLAGS and '--role-registry' not in FLAGS


@pytest.mark.parametrize('items, words', [
    (['--enforce-eager --seed 1'], ['--enforce-eager', '--seed', '1']),
    (['--enforce-eager', '--seed 1'], ['--enforce-eager', '--seed', '1']),
    (["--hf-overrides '{\"a\": 1}'"], ['--hf-overrides', '{"a": 1}']),
    (['--chat-template={% if x %}a b{% endif %}'], ['--chat-template={% if x %}a b{% endif %}']),
    (['--max-num-seqs=2 --seed 1'], ['--max-num-seqs=2', '--seed', '1']),
    (['--hf-overrides', '{"a": 1, "b": 2}'], ['--hf-overrides', '{"a": 1, "b": 2}']),
])
def test_items_are_split_like_a_shell_line(items, words):
    assert split_extra_args(items) == (words, [])


def test_an_item_that_cannot_be_split_is_reported():
    words, bad = split_extra_args(['--seed "1'])
    assert words == [] and bad[0][0] == 0 and 'No closing quotation' in bad[0][2]


@pytest.mark.parametrize('items', [
    ['--enable-prefix-caching'], ['--no-enable-prefix-caching'], ['--max-num-batched-tokens', '8k'],
    ['--max_num_batched_tokens=4096'], ['--seed', '-1'], ['--hf-token'], ['--hf-token', 'abc'],
    ['--allowed-media-domains', 'a.com', 'b.com'], ['--compilation-config.level=0'],
    ['-q', 'ascend'], ['--no-enable-expert-parallel'], ['--enforce-eager --seed 1'], ['--middleware', 'x.y'],
    ['--max-num-batched-tokens', '8K'], ['--max-num-batched-tokens=16k'], ['--cpu-offload-gb', '0.5'],
    ['--seed', ' 7 '], ['--block-size', '128'],
])
def test_flags_vllm_accepts_pass(items):
    assert problems(*items) == []


@pytest.mark.parametrize('items', [
    ['--kv-transfer-config.kv_role=kv_both'], ['--kv-transfer-config', '{"kv_role": "kv_both"}'], ['-ep'],
    ['-pp', '2'], ['--data-parallel-size=2'], ['-dcp', '2'], ['--prefill-context-parallel-size', '2'],
])
def test_flags_vllm_accepts_but_vllm_ascend_refuses_on_310p_are_reported(items):
    found = problems(*items)
    assert len(found) == 1 and 'is not supported on 310P' in found[0][1], found


@pytest.mark.parametrize('items, word, words_in_problem, words_in_fix', [
    (['--enforce-eagre'], '--enforce-eagre', ['not a vllm serve flag of vLLM 0.23', 'did you mean --enforce-eager'],
     ['correct or remove']),
    (['--enable_prefix_cashing'], '--enable_prefix_cashing', ['did you mean --enable-prefix-caching'], ['remove']),
    (['--seed'], '--seed', ['missing its value', 'expected one argument'], ['right after --seed']),
    (['--seed', '--enforce-eager'], '--seed', ['missing its value'], ['--seed=VALUE']),
    (['--allowed-media-domains'], '--allowed-media-domains', ['expected at least one argument'], ['VALUE']),
    (['--seed='], '--seed=', ['empty value'], ['--seed=VALUE']),
    (['--enforce-eager=true'], '--enforce-eager=true', ['takes no value', "ignored explicit argument 'true'"],
     ['--enforce-eager alone', '--no-enforce-eager']),
    (['--disable-log-stats=yes'], '--disable-log-stats=yes', ['takes no value'], ['alone']),
    (['--enforce-eager', 'TRUE'], 'TRUE', ['--enforce-eager takes no value', "'TRUE' after it is left over"],
     ['remove']),
    (['Qwen/Qwen3.5-2B'], 'Qwen/Qwen3.5-2B', ['not a flag', 'unrecognized arguments'], ['remove it']),
    (['--no-seed'], '--no-seed', ['not a vllm serve flag', 'did you mean --seed'], ['remove']),
    (['--seed.x=1'], '--seed.x=1', ['takes no JSON keys'], ['--seed VALUE']),
    (['--headless'], '--headless', ['conflicts', 'nothing answers on the port'], ['remove it']),
    (['--cudagraph-capture-sizes', '1', '2'], '--cudagraph-capture-sizes', ['capture sizes'], ['remove']),
    (['--spec-tokens', '2'], '--spec-tokens', ['mutually exclusive'], ['remove']),
    (['--uds', '/tmp/s'], '--uds', ['Unix socket'], ['remove']),
    (['-h'], '-h', ['prints its help'], ['remove']),
    (['-x'], '-x', ['not a vllm serve flag'], ['remove']),
    (['--seed', '8k'], '--seed', ["takes an integer, not '8k'", 'invalid int value'], ['e.g. 1']),
    (['--seed=TRUE'], '--seed=TRUE', ["not 'TRUE'"], ['an integer']),
    (['--max-num-batched-tokens', '8 k'], '--max-num-batched-tokens', ["not '8 k'", 'human_readable_int'],
     ['8192, 8k or 8K']),
    (['--max-num-batched-tokens', '1.5K'], '--max-num-batched-tokens', ["not '1.5K'"], ['8k']),
    (['--cpu-offload-gb', '4GB'], '--cpu-offload-gb', ["takes a number, not '4GB'", 'invalid float value'], ['number']),
    ([u'\u2013-enforce-eager'], u'\u2013-enforce-eager', ['a dash a word processor'], ['retype it as --enforce-eager']),
    ([u'\u2014seed', '1'], u'\u2014seed', ['two ASCII hyphens'], ['--seed']),
    ([u'\uff0d\uff0denforce-eager'], u'\uff0d\uff0denforce-eager', ['a dash'], ['retype it as --enforce-eager']),
])
def test_flags_vllm_refuses_are_named(items, word, words_in_problem, words_in_fix):
    found = problems(*items)
    assert found[0][0] == word
    for text in words_in_problem:
        assert text in found[0][1]
    for text in words_in_fix:
        assert text in found[0][2]


def test_values_of_managed_flags_are_not_reported_twice():
    assert problems('--dtype', 'bfloat16', '--served-model-name', 'a', 'b', '-O3', '-cc', '{}') == []


@pytest.mark.parametrize('extra, value, words', [
    (['--enforce-eagre'], '--enforce-eagre', ['did you mean --enforce-eager']),
    (['--seed'], '--seed', ['missing its value']),
    (['--seed "1'], '--seed "1', ['item 0 of extra_args', 'cannot be split']),
    (['--enforce-eager', 'yes'], 'yes', ['takes no value']),
])
def test_the_planner_names_the_variable_and_the_item_as_written(extra, value, words):
    result = planner.plan(request(extra_args=extra))
    assert result['argv'] is None
    found = [item for item in result['violations'] if item['value'] == value]
    assert found and found[0]['variable'] == 'vllm_serve_extra_args'
    for text in words:
        assert text in found[0]['rule']
    assert 'vllm_serve_extra_args' in found[0]['fix']


def test_the_planner_passes_split_items_on_as_separate_words():
    result = planner.plan(request(extra_args=['--enforce-eager --seed 1']))
    assert result['violations'] == []
    assert result['argv'][-3:] == ['--enforce-eager', '--seed', '1']
    assert any('split like a shell line' in text for text in result['warnings'])


def test_short_managed_aliases_are_managed():
    result = planner.plan(request(extra_args=['-sc', '{"method": "mtp"}']))
    assert any('--speculative-config' in item['rule'] for item in result['violations'])


@pytest.mark.parametrize('changes, variable, value, words', [
    (dict(served_model_name=' qwen3.5'), 'served_model_name', ' qwen3.5', ['spaces around it']),
    (dict(served_model_name='qwen3.5 '), 'served_model_name', 'qwen3.5 ', ['model does not exist']),
    (dict(served_model_name='--qwen'), 'served_model_name', '--qwen', ['reads it as a flag']),
    (dict(served_model_name='qwen\n3.5'), 'served_model_name', 'qwen\n3.5', ['control character']),
    (dict(host='0.0.0.0 '), 'host', '0.0.0.0 ', ['spaces']),
    (dict(host='http://0.0.0.0'), 'host', 'http://0.0.0.0', ['URL']),
    (dict(host='0.0.0.0:8080'), 'host', '0.0.0.0:8080', ['port']),
    (dict(host='[::]'), 'host', '[::]', ['brackets']),
    (dict(host='300.1.1.1'), 'host', '300.1.1.1', ['neither an IP address nor a host name']),
    (dict(host=u'\uff10.0.0.0'), 'host', u'\uff10.0.0.0', ['neither']),
])
def test_names_and_hosts_vllm_or_uvicorn_refuse(changes, variable, value, words):
    result = planner.plan(request(**changes))
    found = [item for item in result['violations'] if item['variable'] == 'vllm_serve_' + variable]
    assert len(found) == 1 and found[0]['value'] == value
    for text in words:
        assert text in found[0]['rule']


@pytest.mark.parametrize('changes', [
    dict(host='0.0.0.0'), dict(host='::'), dict(host='127.0.0.1'), dict(host='localhost'), dict(host='node-1.lan'),
    dict(host='fe80::1'), dict(served_model_name='qwen 3.5'), dict(served_model_name=u'\u901a\u4e49'),
])
def test_names_and_hosts_vllm_accepts_pass(changes):
    assert planner.plan(request(**changes))['violations'] == []
