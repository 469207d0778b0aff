# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The chat parsers: the catalog's, the vLLM registry, the options and what the planner refuses."""

from __future__ import annotations

import pathlib
import re

import pytest

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts import releases, chat_parsers, models
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.planner import plan

STANDIN = pathlib.Path(__file__).resolve().parents[4] / 'tests' / 'sim' / 'images' / 'vllm-ascend' / 'vllm'
PARSER_FLAGS = ['--reasoning-parser', 'qwen3', '--enable-auto-tool-choice', '--tool-call-parser', 'qwen3_coder']


def request(**changes):
    base = {'platform': 'atlas_300i_duo', 'model': 'Qwen/Qwen3.5-2B', 'max_model_len': 16384,
            'image_tag': 'v0.23.0-310p', 'var_prefix': 'vllm_serve_'}
    base.update(changes)
    return base


def one_violation(result):
    assert len(result['violations']) == 1, result['violations']
    return result['violations'][0]


def test_the_stand_in_registers_the_same_names():
    """The test image's vllm refuses and accepts the names preflight does (both read from vLLM 0.23.0)."""
    text = STANDIN.read_text()
    for var, kind in (('REASONING_PARSERS', 'reasoning'), ('TOOL_CALL_PARSERS', 'tool_call')):
        block = text[text.index(var + ' = ('):]
        assert re.findall(r'"([^"]+)"', block[:block.index(')\n')]) == chat_parsers.REGISTRY['v0.23.0'][kind]


def test_every_complete_release_has_the_parser_names_of_its_vllm():
    """What a default deploy runs is judged in full; an incomplete record's unread vLLM is said (below)."""
    for name in releases.names():
        record = releases.get(name)
        if releases.complete(record):
            assert chat_parsers.registry_for(record['vllm']) is not None, name


@pytest.mark.parametrize('name', models.model_names())
def test_every_catalog_model_has_parsers_its_vllm_registers(name):
    model = models.get_model(name)
    registry = chat_parsers.registry_for('v0.23.0')
    assert model['reasoning_parser'] in registry['reasoning']
    assert model['tool_call_parser'] in registry['tool_call']


@pytest.mark.parametrize('name', models.model_names())
def test_catalog_models_serve_with_their_parsers_by_default(name):
    result = plan(request(model=name, tensor_parallel_size=4 if '27B' in name else 1,
                          chip_memory_mb=44280, max_num_seqs=8))
    assert result['violations'] == [], result['violations']
    assert result['argv'][-5:] == PARSER_FLAGS
    settings = result['settings']
    assert (settings['reasoning_parser'], settings['tool_call_parser'], settings['reasoning_field']) == \
        ('qwen3', 'qwen3_coder', 'reasoning')


@pytest.mark.parametrize('reasoning, tool, flags', [
    ('none', 'none', []),
    ('none', 'auto', PARSER_FLAGS[2:]),
    ('auto', 'none', PARSER_FLAGS[:2]),
    ('qwen3', 'qwen3_coder', PARSER_FLAGS),
])
def test_options_turn_each_parser_on_and_off(reasoning, tool, flags):
    result = plan(request(reasoning_parser=reasoning, tool_call_parser=tool))
    assert result['violations'] == []
    assert result['argv'][result['argv'].index('--additional-config') + 2:] == flags
    assert bool(result['settings']['reasoning_parser']) == ('--reasoning-parser' in flags)
    assert bool(result['settings']['tool_call_parser']) == ('--tool-call-parser' in flags)


def test_a_model_without_parsers_gets_none_with_auto():
    spec = dict(models.get_model('Qwen/Qwen3.5-2B'), reasoning_parser=None, tool_call_parser=None)
    for key in ('name',):
        spec.pop(key)
    result = plan(request(model='my/model', model_spec=spec))
    assert result['violations'] == []
    assert '--reasoning-parser' not in result['argv'] and '--tool-call-parser' not in result['argv']


def test_model_spec_may_name_another_parser_that_vllm_has():
    result = plan(request(model_spec={'reasoning_parser': 'deepseek_r1'}, reasoning_parser='deepseek_r1'))
    assert result['violations'] == []
    assert result['argv'][result['argv'].index('--reasoning-parser') + 1] == 'deepseek_r1'


@pytest.mark.parametrize('changes, variable, value, rule, fix', [
    # The model's documentation names another parser.
    ({'reasoning_parser': 'deepseek_r1'}, 'vllm_serve_reasoning_parser', 'deepseek_r1',
     'Qwen/Qwen3.5-2B uses the reasoning parser qwen3; deepseek_r1 is not the one its documentation gives',
     'set vllm_serve_reasoning_parser to auto (qwen3) or none'),
    ({'tool_call_parser': 'hermes'}, 'vllm_serve_tool_call_parser', 'hermes',
     'Qwen/Qwen3.5-2B uses the tool-call parser qwen3_coder; hermes is not the one',
     'say so in vllm_serve_model_spec.tool_call_parser'),
    # vLLM 0.23.0 has no such name (it would stop at start).
    ({'tool_call_parser': 'qwen3_codr'}, 'vllm_serve_tool_call_parser', 'qwen3_codr',
     'vLLM 0.23.0 (in image v0.23.0-310p) has no tool-call parser named qwen3_codr (did you mean qwen3_coder',
     "set vllm_serve_tool_call_parser to auto (Qwen/Qwen3.5-2B's: qwen3_coder) or none"),
    ({'model_spec': {'reasoning_parser': 'qwen35'}, 'reasoning_parser': 'qwen35'}, 'vllm_serve_reasoning_parser',
     'qwen35', 'has no reasoning parser named qwen35', 'set vllm_serve_reasoning_parser to auto'),
    # The same, typed in extra_args.
    ({'reasoning_parser': 'none', 'extra_args': ['--reasoning-parser', 'qwen35']}, 'vllm_serve_extra_args',
     '--reasoning-parser qwen35', 'its engine stops after loading the model with KeyError "Reasoning parser \'qwen35\' '
     'not found"',
     'remove --reasoning-parser from vllm_serve_extra_args and set vllm_serve_reasoning_parser to auto'),
    ({'extra_args': ['--enable-auto-tool-choice', '--tool-call-parser=hermes']}, 'vllm_serve_extra_args',
     '--tool-call-parser hermes', 'hermes is not the one its documentation gives',
     'and remove --tool-call-parser from vllm_serve_extra_args'),
    # Set twice.
    ({'reasoning_parser': 'qwen3', 'extra_args': ['--reasoning_parser', 'qwen3']}, 'vllm_serve_extra_args',
     '--reasoning-parser qwen3', 'extra_args passes --reasoning-parser while vllm_serve_reasoning_parser sets it',
     'remove --reasoning-parser from vllm_serve_extra_args, or set vllm_serve_reasoning_parser to auto'),
    # vLLM stops at start: --enable-auto-tool-choice requires --tool-call-parser.
    ({'tool_call_parser': 'none', 'extra_args': ['--enable-auto-tool-choice']}, 'vllm_serve_extra_args',
     '--enable-auto-tool-choice', '"Error: --enable-auto-tool-choice requires --tool-call-parser"',
     'set vllm_serve_tool_call_parser to auto'),
    ({'reasoning_parser': ''}, 'vllm_serve_reasoning_parser', '', 'must be auto, none or a vLLM reasoning parser name',
     "set vllm_serve_reasoning_parser to auto (the model's: qwen3) or none"),
])
def test_refusals_name_the_variable_the_value_and_the_fix(changes, variable, value, rule, fix):
    found = one_violation(plan(request(**changes)))
    assert (found['variable'], found['value']) == (variable, value)
    assert rule in found['rule'], found['rule']
    assert fix in found['fix'], found['fix']


def test_extra_args_may_carry_the_parser_when_the_option_is_auto():
    result = plan(request(extra_args=['--reasoning-parser', 'qwen3']))
    assert result['violations'] == []
    assert result['argv'].count('--reasoning-parser') == 1 and result['settings']['reasoning_parser'] == 'qwen3'


@pytest.mark.parametrize('extra, tail, tool_call', [
    # auto with the parser in extra_args: the switch goes with it, once.
    (['--tool-call-parser', 'qwen3_coder'], ['--enable-auto-tool-choice', '--tool-call-parser', 'qwen3_coder'],
     'qwen3_coder'),
    (['--enable-auto-tool-choice', '--tool-call-parser', 'qwen3_coder'],
     ['--enable-auto-tool-choice', '--tool-call-parser', 'qwen3_coder'], 'qwen3_coder'),
    (['--enable-auto-tool-choice'], ['--tool-call-parser', 'qwen3_coder', '--enable-auto-tool-choice'], 'qwen3_coder'),
    # extra_args turns it off: no tool calls (the smoke test does not ask for one).
    (['--no-enable-auto-tool-choice'], ['--no-enable-auto-tool-choice'], None),
])
def test_auto_tool_choice_goes_with_the_parser_once(extra, tail, tool_call):
    result = plan(request(reasoning_parser='none', extra_args=extra))
    assert result['violations'] == []
    argv = result['argv']
    assert argv[argv.index('--additional-config') + 2:] == tail
    assert result['settings']['tool_call_parser'] == tool_call


def test_a_tool_call_parser_in_extra_args_without_auto_tool_choice_serves_no_tool_calls():
    result = plan(request(tool_call_parser='none', extra_args=['--tool-call-parser', 'qwen3_coder']))
    assert result['violations'] == []
    assert result['settings']['tool_call_parser'] is None


def test_an_image_whose_vllm_was_not_read_is_not_refused_but_said():
    # v0.26.0rc1's record names vLLM 0.26.0, whose parser names were not read.
    result = plan(request(image_tag='v0.26.0rc1-310p', tool_call_parser='qwen3_xml',
                          model_spec={'tool_call_parser': 'qwen3_xml'}))
    assert result['violations'] == []
    assert any('parser names of the vLLM in image v0.26.0rc1-310p were not read' in w for w in result['warnings'])


@pytest.mark.parametrize('value', ['', 'auto', 'none', 3, ' qwen3'])
def test_model_spec_parser_must_be_a_name_or_null(value):
    with pytest.raises(models.ModelSpecError) as exc:
        models.get_model('Qwen/Qwen3.5-2B', {'reasoning_parser': value})
    assert exc.value.bad[0][0] == 'reasoning_parser'
