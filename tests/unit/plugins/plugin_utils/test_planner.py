# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Planner: the guide's command, every rule (pass and fail), capture sizes, memory."""

import itertools
import random
import shlex

import pytest

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._capture import capture_sizes
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._coerce import format_utilization, parse_human_int
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._image_tags import image_sort_key, parse_image_tag
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._memory import cache_layout
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.models import get_model
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.planner import plan
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.platforms import did_you_mean

MODELS = ['Qwen/Qwen3.5-2B', 'Qwen/Qwen3.5-4B', 'Qwen/Qwen3.5-9B']
PLATFORMS = ['atlas_300i_duo', 'atlas_200i_pro', 'atlas_200i_pro_openeuler']


# Not in the guide's command: the parsers of the Qwen3.5 model cards, on by default (contracts/models.py).
MODEL_CARD_PARSERS = ['--reasoning-parser', 'qwen3', '--enable-auto-tool-choice', '--tool-call-parser', 'qwen3_coder']


def _round_up(value, multiple):
    return ((value + multiple - 1) // multiple) * multiple


def vllm_adjust_for_spec_decode(sizes, num_speculative_tokens, max_capture_size=None):
    """What vLLM does to a capture-size list when speculative decoding is on: the oracle the planner's
    capture sizes are checked against.

    Mirrors ``CompilationConfig.adjust_cudagraph_sizes_for_spec_decode``
    (vllm/config/compilation.py, without sequence parallelism): every size is
    rounded up to a multiple of k+1, sizes that end above the largest capture
    size are dropped, the rest de-duplicated and sorted.  ``max_capture_size``
    defaults to the largest size given, as vLLM's does for an explicit list.
    """
    multiple_of = num_speculative_tokens + 1
    if not sizes or multiple_of <= 1:
        return list(sizes)
    largest = max(sizes) if max_capture_size is None else max_capture_size
    rounded = sorted(set(_round_up(size, multiple_of) for size in sizes
                         if _round_up(size, multiple_of) <= largest))
    if not rounded and multiple_of <= largest:
        rounded = [multiple_of]
    if not rounded:
        raise ValueError('No valid cudagraph sizes after rounding to multiple of %d' % multiple_of)
    return rounded


def guide_argv(model_path, parsers=True):
    """Section 5.1 of the guide, with the JSON values written compactly (and the model card's parsers)."""
    return [
        'vllm', 'serve', model_path,
        '--host', '127.0.0.1',
        '--port', '1025',
        '--tensor-parallel-size', '1',
        '--served-model-name', 'qwen3.5',
        '--max-num-seqs', '32',
        '--max-model-len', '16384',
        '--trust-remote-code',
        '--gpu-memory-utilization', '0.90',
        '--mamba-ssm-cache-dtype', 'float16',
        '--dtype', 'float16',
        '--speculative-config', '{"method":"qwen3_5_mtp","num_speculative_tokens":1}',
        '--compilation-config', '{"cudagraph_mode":"FULL_DECODE_ONLY","cudagraph_capture_sizes":[2,4,8,16]}',
        '--additional-config', '{"ascend_compilation_config":{"enable_npugraph_ex":false}}',
    ] + (MODEL_CARD_PARSERS if parsers else [])


def request(**changes):
    """The guide's inputs on an Atlas 300I DUO, 2B, plus changes."""
    base = {'platform': 'atlas_300i_duo', 'model': 'Qwen/Qwen3.5-2B', 'tensor_parallel_size': 1,
            'max_model_len': 16384, 'max_num_seqs': 32}
    base.update(changes)
    return base


def one_violation(result):
    assert len(result['violations']) == 1, result['violations']
    return result['violations'][0]


# --------------------------------------------------------------------------- the guide's command

@pytest.mark.parametrize('platform', PLATFORMS)
@pytest.mark.parametrize('model', MODELS)
def test_guide_inputs_give_the_guide_command(model, platform):
    # chip_memory_mb: the argv must not depend on the memory figure; the 200I Pro
    # nominal 24 GiB cannot hold the 9B at the guide's settings (tested below).
    result = plan({'platform': platform, 'model': model, 'tensor_parallel_size': 1, 'max_model_len': 16384,
                   'max_num_seqs': 32, 'chip_memory_mb': 44280})
    assert result['violations'] == []
    assert result['argv'] == guide_argv(model)
    assert shlex.split(result['command']) == guide_argv(model)
    assert result['env'] == {'VLLM_USE_MODELSCOPE': 'True'}
    assert result['cudagraph_capture_sizes'] == [2, 4, 8, 16]
    assert result['api_key_env'] is None
    assert result['settings']['port'] == 1025 and result['settings']['served_model_name'] == 'qwen3.5'


@pytest.mark.parametrize('model', MODELS)
def test_parsers_off_give_exactly_the_guide_command(model):
    result = plan({'platform': 'atlas_300i_duo', 'model': model, 'max_model_len': 16384,
                   'reasoning_parser': 'none', 'tool_call_parser': 'none'})
    assert result['argv'] == guide_argv(model, parsers=False)
    assert result['settings']['reasoning_parser'] is None and result['settings']['tool_call_parser'] is None


def test_defaults_are_the_guide_values():
    result = plan({'platform': 'atlas_300i_duo', 'model': 'Qwen/Qwen3.5-4B', 'max_model_len': 16384})
    assert result['argv'] == guide_argv('Qwen/Qwen3.5-4B')


def test_guide_inputs_warn_that_large_decode_batches_run_eagerly():
    result = plan(request())
    assert result['warnings'] == [
        'largest capture size 16 (8 requests) is below max_num_seqs 32 x 2 tokens: decode batches above '
        '8 requests run without a graph (vllm-ascend logs the same)']


def test_no_mtp_drops_the_speculative_config():
    result = plan(request(num_speculative_tokens=0))
    assert '--speculative-config' not in result['argv']
    assert result['cudagraph_capture_sizes'] == [1, 2, 4, 8]
    assert result['argv'][result['argv'].index('--compilation-config') + 1] == \
        '{"cudagraph_mode":"FULL_DECODE_ONLY","cudagraph_capture_sizes":[1,2,4,8]}'


def test_optional_parts_of_the_command():
    result = plan(request(model_path='/root/.cache/Qwen3.5-2B', trust_remote_code=False,
                          extra_args=['--enable-prefix-caching', '--max-num-batched-tokens', '4096'],
                          gpu_memory_utilization=0.925, api_key='s3cret'))
    argv = result['argv']
    assert argv[2] == '/root/.cache/Qwen3.5-2B'
    assert '--trust-remote-code' not in argv
    assert argv[argv.index('--gpu-memory-utilization') + 1] == '0.925'
    assert argv[-3:] == ['--enable-prefix-caching', '--max-num-batched-tokens', '4096']
    # The key travels as VLLM_API_KEY, never on the command line or in the result.
    assert 's3cret' not in result['command'] and 's3cret' not in argv and '--api-key' not in argv
    assert result['api_key_env'] == 'VLLM_API_KEY'
    assert result['env'] == {}


def test_modelscope_env_can_be_turned_off():
    assert plan(request(use_modelscope=False))['env'] == {}


@pytest.mark.parametrize('value, text', [
    (0.9, '0.90'), (0.925, '0.925'), (1, '1.00'), (0.95, '0.95'), (0.5, '0.50'), (0.8125, '0.8125')])
def test_format_utilization(value, text):
    assert format_utilization(value) == text


def test_utilization_as_a_string_is_accepted():
    argv = plan(request(gpu_memory_utilization='0.85'))['argv']
    assert argv[argv.index('--gpu-memory-utilization') + 1] == '0.85'


def test_human_max_model_len_goes_out_as_an_integer():
    argv = plan(request(max_model_len='16K'))['argv']
    assert argv[argv.index('--max-model-len') + 1] == '16384'


# --------------------------------------------------------------------------- rules: failures

FAILURES = [
    # changes, variable, value, words in rule, words in fix
    (dict(dtype='bfloat16'), 'dtype', 'bfloat16', ['FP16 only'], ['float16']),
    (dict(mamba_ssm_cache_dtype='float32'), 'mamba_ssm_cache_dtype', 'float32', ['FP16 only', 'float32'],
     ['float16']),
    (dict(tensor_parallel_size='two'), 'tensor_parallel_size', 'two', ['positive integer'], ['[1, 2]']),
    (dict(tensor_parallel_size=0), 'tensor_parallel_size', 0, ['positive integer'], ['[1, 2]']),
    (dict(platform='atlas_200i_pro', tensor_parallel_size=2), 'tensor_parallel_size', 2,
     ['not supported on atlas_200i_pro', '[1]'], ['to 1']),
    (dict(tensor_parallel_size=2, visible_chips=1), 'tensor_parallel_size', 2, ['only 1 are visible'],
     ['at most 1']),
    (dict(visible_chips=0), 'visible_chips', 0, ['integer >= 1'], ['npu_facts']),
    (dict(tensor_parallel_size=3, platform_overrides={'allowed_tp': [1, 2, 3]}), 'tensor_parallel_size', 3,
     ['num_attention_heads=8', 'num_key_value_heads=2', 'linear_num_key_heads=16',
      'linear_num_value_heads=16'], ['[1, 2]']),
    (dict(num_speculative_tokens=-1), 'num_speculative_tokens', -1, ['>= 0'], ['1']),
    (dict(num_speculative_tokens='one'), 'num_speculative_tokens', 'one', ['>= 0'], ['0 to turn MTP off']),
    (dict(model_spec={'mtp_num_layers': 0}), 'num_speculative_tokens', 1, ['no MTP head'],
     ['num_speculative_tokens: 0']),
    (dict(speculative_method='eagle'), 'speculative_method', 'eagle', ['MTP head'], ['qwen3_5_mtp']),
    (dict(max_num_seqs=0), 'max_num_seqs', 0, ['>= 1'], ['32']),
    (dict(cudagraph_mode='FULLY'), 'cudagraph_mode', 'FULLY', ['FULL_DECODE_ONLY', 'PIECEWISE'],
     ['FULL_DECODE_ONLY']),
    (dict(cudagraph_batch_sizes=[]), 'cudagraph_batch_sizes', [], ['non-empty list'], ['[1, 2, 4, 8]']),
    (dict(cudagraph_batch_sizes='1,2'), 'cudagraph_batch_sizes', '1,2', ['non-empty list'], ['[1, 2, 4, 8]']),
    (dict(cudagraph_batch_sizes=[0, 2]), 'cudagraph_batch_sizes', [0, 2], ['bad: 0'], ['[1, 2, 4, 8]']),
    (dict(cudagraph_batch_sizes=[1.5, 'x']), 'cudagraph_batch_sizes', [1.5, 'x'], ["bad: 1.5, 'x'"],
     ['[1, 2, 4, 8]']),
    (dict(tensor_parallel_size=2, cudagraph_batch_sizes=[1, 2, 4, 8]), 'cudagraph_batch_sizes', [1, 2, 4, 8],
     ['at most two', '4 given'], ['[1, 8] (smallest and largest)', 'cudagraph_trim: true']),
    (dict(cudagraph_trim='sometimes'), 'cudagraph_trim', 'sometimes', ['true or false'], ['true or false']),
    (dict(max_model_len=None), 'max_model_len', None, ['must be set', '128 GiB'], ['16384']),
    (dict(max_model_len='long'), 'max_model_len', 'long', ['16k'], ['16384']),
    (dict(max_model_len='1.5K'), 'max_model_len', '1.5K', ['decimals', '1.5k'], ['16384', 'or 1.5k (decimal suffix)']),
    (dict(max_model_len=-1), 'max_model_len', -1, ['no -1/auto'], ['16384']),
    (dict(max_model_len=300000), 'max_model_len', 300000, ['max_position_embeddings 262144'],
     ['at most 262144']),
    (dict(gpu_memory_utilization=0), 'gpu_memory_utilization', 0, ['(0, 1]'], ['0.90']),
    (dict(gpu_memory_utilization=1.5), 'gpu_memory_utilization', 1.5, ['(0, 1]'], ['0.90']),
    (dict(gpu_memory_utilization='high'), 'gpu_memory_utilization', 'high', ['(0, 1]'], ['0.90']),
    (dict(port=0), 'port', 0, ['1..65535'], ['1..65535', '1025']),
    (dict(port=70000), 'port', 70000, ['1..65535'], ['1025']),
    (dict(port='http'), 'port', 'http', ['1..65535'], ['1025']),
    (dict(served_model_name=' '), 'served_model_name', ' ', ['non-empty'], ['qwen3.5']),
    (dict(host=''), 'host', '', ['non-empty'], ['0.0.0.0', '127.0.0.1']),
    (dict(model_path=''), 'model_path', '', ['model id or a directory'], ['model_path']),
    (dict(trust_remote_code='maybe'), 'trust_remote_code', 'maybe', ['true or false'], ['true']),
    (dict(use_modelscope='maybe'), 'use_modelscope', 'maybe', ['true or false'], ['true']),
    (dict(chip_memory_mb='lots'), 'chip_memory_mb', 'lots', ['integer >= 1', 'MiB'], ['MiB']),
    (dict(memory_reserve_mb=-1), 'memory_reserve_mb', -1, ['integer >= 0'], ['MiB']),
    (dict(extra_args=['--dtype', 'bfloat16']), 'extra_args', ['--dtype', 'bfloat16'],
     ['repeats flags the module manages: --dtype'], ['remove them']),
    (dict(extra_args=['--max_model_len=8192']), 'extra_args', ['--max_model_len=8192'], ['--max-model-len'],
     ['remove']),
    (dict(extra_args=['-tp', '2']), 'extra_args', ['-tp', '2'], ['--tensor-parallel-size'], ['remove']),
    (dict(extra_args=['-O3']), 'extra_args', ['-O3'], ['--compilation-config'], ['remove']),
    (dict(extra_args=['--compilation-config.cudagraph_mode=FULL']), 'extra_args',
     ['--compilation-config.cudagraph_mode=FULL'], ['--compilation-config'], ['remove']),
    (dict(extra_args=['--no-trust-remote-code']), 'extra_args', ['--no-trust-remote-code'],
     ['--trust-remote-code'], ['remove']),
    # A secret on the command line: refused with its value hidden.
    (dict(extra_args=['--api-key', 'k']), 'extra_args', '(value hidden)', ['--api-key', 'secret'], ['remove', 'api_key']),
    (dict(extra_args=['--hf-token=hf_abcdef']), 'extra_args', '(value hidden)', ['--hf-token', 'secret'],
     ['remove', 'env', 'HF_TOKEN']),
    (dict(extra_args=[1]), 'extra_args', [1], ['list of strings'], ['--enable-prefix-caching']),
    (dict(image_tag='v0.22.0-310p'), 'image_tag', 'v0.22.0-310p', ['v0.23.0rc1 or newer'],
     ['v0.23.0rc1-310p or newer']),
    (dict(image_tag='v0.23.0-310p-openeuler'), 'image_tag', 'v0.23.0-310p-openeuler', ['-310p image'],
     ['ends in -310p']),
    (dict(image_tag='v0.23.0'), 'image_tag', 'v0.23.0', ['-310p image', 'socversion'], ['v0.23.0-310p']),
    (dict(platform='atlas_200i_pro_openeuler', image_tag='v0.23.0-310p'), 'image_tag', 'v0.23.0-310p',
     ['-310p-openeuler image'], ['v0.23.0-310p-openeuler']),
    (dict(image_tag='latest'), 'image_tag', 'latest', ['vX.Y.Z'], ['v0.23.0-310p']),
    (dict(chip_free_memory_mb=30000), 'chip_free_memory_mb', 30000,
     ['30000 MiB', '39852.0 MiB', 'Free memory on device'], ['at most 0.67']),
    (dict(platform='atlas_800'), 'platform', 'atlas_800', ['unknown platform'], ['atlas_300i_duo']),
    (dict(platform_overrides={'shm': '2g'}), 'platform_overrides', {'shm': '2g'}, ['shm', 'shm_size'],
     ['vllm_serve_platform_overrides', 'shm is not a profile field (did you mean shm_size?)', 'profile fields']),
    (dict(platform_overrides={'privileged': 'yes'}), 'platform_overrides', {'privileged': 'yes'}, ['privileged'],
     ['give privileged a bool like the profile value false']),
    (dict(platform_overrides={'model_cache_mount': {'src': '/data'}}), 'platform_overrides',
     {'model_cache_mount': {'src': '/data'}}, ['src'], ['model_cache_mount.src is not a field (did you mean source?)']),
    (dict(platform_overrides=['shm_size', '2g']), 'platform_overrides', ['shm_size', '2g'], ['must be a dict'],
     ['set vllm_serve_platform_overrides to a dict']),
    (dict(platform='atlas_300i_trio'), 'platform', 'atlas_300i_trio', ['unknown platform'],
     ['set vllm_serve_platform to one of', '(did you mean atlas_300i_duo']),
    (dict(model='qwen/qwen3.5-2b'), 'model', 'qwen/qwen3.5-2b', ['unknown model'],
     ['set vllm_serve_model to one of', '(did you mean Qwen/Qwen3.5-2B?)', 'vllm_serve_model_spec']),
    (dict(model='Qwen/Qwen3.5-7B'), 'model', 'Qwen/Qwen3.5-7B', ['unknown model'], ['Qwen/Qwen3.5-9B']),
    (dict(model_spec={'num_layers': 24}), 'model_spec', {'num_layers': 24}, ['unknown model_spec key(s) num_layers'],
     ['in vllm_serve_model_spec: num_layers is not a field (did you mean ', 'num_hidden_layers']),
    (dict(model='acme/Tiny', model_spec={'num_hidden_layers': 24}), 'model_spec', {'num_hidden_layers': 24},
     ['missing key(s)'], ['acme/Tiny is not a catalog model', 'give vllm_serve_model_spec every field, missing']),
    (dict(model_spec=[24]), 'model_spec', [24], ['must be a dict'], ['give model_spec a dict']),
    (dict(model='Qwen/Qwen3-8B'), 'model', 'Qwen/Qwen3-8B', ['unknown model', 'Qwen/Qwen3.5-9B'],
     ['model_spec']),
    (dict(model_spec={'head_dim': 0}), 'model_spec', {'head_dim': 0}, ['head_dim=0'],
     ['in vllm_serve_model_spec: give head_dim a positive integer']),
]


@pytest.mark.parametrize('changes, variable, value, rule_words, fix_words', FAILURES)
def test_each_rule_fails_alone_and_says_why(changes, variable, value, rule_words, fix_words):
    result = plan(request(var_prefix='vllm_serve_', **changes))
    found = one_violation(result)
    assert found['variable'] == 'vllm_serve_' + variable
    assert found['value'] == value
    for word in rule_words:
        assert word in found['rule']
    for word in fix_words:
        assert word in found['fix']
    assert result['argv'] is None and result['command'] is None


def test_npugraph_ex_in_extra_args_is_refused_twice():
    extra = ['--additional-config', '{"ascend_compilation_config":{"enable_npugraph_ex":true}}']
    rules = [item['rule'] for item in plan(request(extra_args=extra))['violations']]
    assert len(rules) == 2
    assert 'enable_npugraph_ex must stay false' in rules[0]
    assert 'repeats flags the module manages: --additional-config' in rules[1]


def test_npugraph_ex_through_a_dotted_key_is_refused():
    extra = ['--additional-config.ascend_compilation_config.enable_npugraph_ex=true']
    rules = [item['rule'] for item in plan(request(extra_args=extra))['violations']]
    assert any('enable_npugraph_ex must stay false' in rule for rule in rules)


def test_memory_violation_quotes_what_fits():
    # 9B at the guide's settings on the Atlas 200I Pro nominal 24 GiB (TP 1 only):
    # (24576 * 0.9 - 9650000000 * 2 / 2**20 - 512 - 2048) / 2 = 575.24 MiB; one block is 9 pages
    # of 384 tokens x 4096 bytes = 13.5 MiB, so 42 blocks, and one 16384-token KV cache alone takes 43.
    result = plan(request(platform='atlas_200i_pro', model='Qwen/Qwen3.5-9B', chip_free_memory_mb=23000))
    found = one_violation(result)
    memory = result['memory']
    assert memory['fits'] is False
    assert memory['kv_budget_mb'] == pytest.approx((24576 * 0.9 - 9650000000 * 2 / 2 ** 20 - 512 - 2048) / 2,
                                                   abs=0.01)
    assert memory['num_blocks'] == 42
    assert memory['max_num_seqs_fit'] == 0
    # Not even one sequence fits, so the variable to change is max_model_len.
    assert found['variable'] == 'max_model_len' and found['value'] == 16384
    # 32 sequences' state (32 x 6 blocks) is already more than the 42 blocks, whatever the length.
    assert memory['max_model_len_fit'] == 0
    assert 'a single sequence fits up to max_model_len %d' % memory['max_model_len_fit_one_seq'] in found['fix']
    # One sequence at 14976 tokens (39 blocks of 384): mask 2 * 14976^2 / 2^20 = 427.79 MiB, budget
    # (22118.4 - 18405.91 - 2048 - 427.79) / 2 = 618.35 MiB = 45 blocks = 6 state + 39 KV blocks.
    assert memory['max_model_len_fit_one_seq'] == 14976
    assert 'does not fit 24576 MiB x 0.90' in found['rule']


def test_memory_violation_names_max_num_seqs_when_fewer_sequences_fit():
    result = plan(request(platform='atlas_200i_pro', model='Qwen/Qwen3.5-9B', max_model_len=4096,
                          chip_free_memory_mb=23000))
    found = one_violation(result)
    assert found['variable'] == 'max_num_seqs'
    # (24576 * 0.9 - 18405.91 - 32 - 2048) / 2 = 816.24 MiB -> 60 blocks of 13.5 MiB; 4096 tokens
    # take ceil(4096 / 384) = 11, leaving 49 blocks: 8 sequences of 6 state blocks.
    assert result['memory']['max_num_seqs_fit'] == 8
    assert 'lower max_num_seqs to at most 8 (at this max_model_len)' in found['fix']
    assert 'gpu_memory_utilization' in found['fix']


def test_every_violation_is_reported_at_once():
    result = plan(request(dtype='bfloat16', platform='atlas_200i_pro', tensor_parallel_size=2,
                          cudagraph_batch_sizes=[1, 2, 4, 8], model='Qwen/Qwen3.5-9B', max_model_len=262144,
                          port=0, var_prefix='vllm_serve_'))
    variables = [item['variable'] for item in result['violations']]
    assert variables == ['vllm_serve_dtype', 'vllm_serve_tensor_parallel_size',
                         'vllm_serve_cudagraph_batch_sizes', 'vllm_serve_port', 'vllm_serve_max_model_len']
    assert '131072.0 MiB' in result['violations'][-1]['rule']  # the 262144^2 fp16 mask
    assert result['memory']['attention_mask_mb'] == 2 * 262144 * 262144 / 2 ** 20


# --------------------------------------------------------------------------- rules: passes

PASSES = [
    dict(tensor_parallel_size=2),
    dict(tensor_parallel_size='2', visible_chips='2'),
    # kv heads (2) replicated across 4 ranks: vLLM allows TP a multiple of them.
    dict(tensor_parallel_size=4, platform_overrides={'allowed_tp': [1, 2, 4]}),
    dict(num_speculative_tokens=0, model_spec={'mtp_num_layers': 0}),
    dict(speculative_method='mtp'),
    dict(cudagraph_mode='full_decode_only'),
    dict(cudagraph_batch_sizes=['1', 2, 4.0]),
    dict(max_model_len='16k'),
    dict(max_model_len=262144, model='Qwen/Qwen3.5-2B', max_num_seqs=1, chip_memory_mb=1000000),
    dict(gpu_memory_utilization=1),
    dict(port='8080', host='0.0.0.0'),
    dict(extra_args=['--enable-prefix-caching', '--max-num-batched-tokens=4096', '--disable-log-stats']),
    dict(image_tag='v0.23.0-310p'),
    dict(image_tag='quay.io/ascend/vllm-ascend:v0.24.0rc1-310p'),
    dict(platform='atlas_200i_pro_openeuler', image_tag='v0.23.0-310p-openeuler'),
    dict(chip_free_memory_mb=43000),
    dict(model='acme/Hybrid-0.5B', model_spec={
        'num_hidden_layers': 8, 'full_attention_interval': 4, 'num_attention_heads': 8, 'num_key_value_heads': 2,
        'head_dim': 128, 'linear_num_key_heads': 8, 'linear_num_value_heads': 8, 'linear_key_head_dim': 64,
        'linear_value_head_dim': 64, 'linear_conv_kernel_dim': 4, 'hidden_size': 1024, 'vocab_size': 32000,
        'tie_word_embeddings': True, 'num_parameters': 500000000, 'mtp_num_layers': 1,
        'max_position_embeddings': 32768, 'min_image_tag': 'v0.23.0rc1-310p'}),
]


@pytest.mark.parametrize('changes', PASSES)
def test_valid_requests_pass(changes):
    result = plan(request(**changes))
    assert result['violations'] == []
    assert result['argv'][:2] == ['vllm', 'serve']
    assert result['memory']['fits'] is True


@pytest.mark.parametrize('changes, words', [
    (dict(cudagraph_mode='PIECEWISE'), ['cudagraph_mode PIECEWISE', 'recommends FULL_DECODE_ONLY']),
    (dict(num_speculative_tokens=2), ['num_speculative_tokens is 2', 'recommends 1']),
    (dict(speculative_method='mtp'), ['speculative_method mtp']),
    (dict(image_tag='v0.23.0rc1-310p'), ['older than the guide\'s minimum v0.23.0']),
    (dict(platform='atlas_200i_pro_openeuler', image_tag='v0.23.0rc1-310p-openeuler'), ['#12983']),
    (dict(platform='atlas_200i_pro'), ['RC mode', 'chip_free_memory_mb']),
    (dict(cudagraph_batch_sizes=[1, 64]), ['[64] requests exceed max_num_seqs 32']),
    (dict(tensor_parallel_size=2, cudagraph_batch_sizes=[1, 2, 4, 8], cudagraph_trim=True),
     ['kept [1, 8]', 'dropped [2, 4]']),
])
def test_warnings(changes, words):
    result = plan(request(**changes))
    assert result['violations'] == []
    text = ' | '.join(result['warnings'])
    for word in words:
        assert word in text


@pytest.mark.parametrize('tag, extra, warned', [
    # vllm-ascend #14339 (open): MTP with prefix caching gives wrong accuracy on the v0.23.0 300I DUO image.
    ('v0.23.0-310p', [], True),
    ('v0.23.0-310p', ['--no-enable-prefix-caching'], False),
    ('v0.30.0-310p', [], False),
    ('v0.22.0-310p', [], False),
])
def test_the_known_issues_of_the_release_record_are_warned_with_their_source(tag, extra, warned):
    result = plan(request(image_tag=tag, extra_args=extra))
    found = [text for text in result['warnings'] if 'vllm-ascend#14339' in text]
    assert bool(found) == warned, result['warnings']
    if warned:
        assert 'issue vllm-project/vllm-ascend#14339' in found[0] and '--no-enable-prefix-caching' in found[0]


# v0.25.1rc1 runs vLLM 0.25.1, which has its own generated table; v0.30.0's vLLM was not read.
@pytest.mark.parametrize('tag, warned', [('v0.23.0-310p', False), ('v0.25.1rc1-310p', False), ('v0.30.0-310p', True)])
def test_extra_args_of_a_release_whose_flags_were_not_read_are_said_to_be_judged_by_vllm_023(tag, warned):
    result = plan(request(image_tag=tag, extra_args=['--enable-chunked-prefill']))
    found = [text for text in result['warnings'] if 'were checked against the flags of vLLM 0.23.0' in text]
    assert bool(found) == warned, result['warnings']


def test_capture_sizes_are_normalised_in_settings():
    result = plan(request(cudagraph_mode='piecewise'))
    assert result['settings']['cudagraph_mode'] == 'PIECEWISE'
    assert '"cudagraph_mode":"PIECEWISE"' in result['command']


def test_unknown_request_key_is_a_caller_bug():
    with pytest.raises(ValueError) as exc:
        plan(request(tensor_parallel=1))
    assert 'tensor_parallel' in str(exc.value)


# --------------------------------------------------------------------------- capture sizes

@pytest.mark.parametrize('tp, batch, k, expected', [
    (1, None, 1, [2, 4, 8, 16]),  # the guide's example
    (1, None, 2, [3, 6, 12, 24]),
    (1, None, 0, [1, 2, 4, 8]),
    (2, None, 1, [2, 16]),  # TP default [1, 8]
    (2, None, 0, [1, 8]),
    (1, [8, 1, 8, 4], 1, [2, 8, 16]),
    (2, [1, 2, 4, 8], 1, None),  # more than two sizes with TP: violation
])
def test_plan_capture_sizes(tp, batch, k, expected):
    result = plan(request(tensor_parallel_size=tp, cudagraph_batch_sizes=batch, num_speculative_tokens=k))
    assert result['cudagraph_capture_sizes'] == expected
    if expected is not None:
        assert vllm_adjust_for_spec_decode(expected, k) == expected


def test_trim_keeps_the_smallest_and_largest():
    result = plan(request(tensor_parallel_size=2, cudagraph_batch_sizes=[4, 1, 2, 8], cudagraph_trim=True))
    assert result['cudagraph_capture_sizes'] == [2, 16]


@pytest.mark.parametrize('sizes, k, expected', [
    ([1, 2, 4, 8], 1, [2, 4, 8]),  # the guide's list given raw: 1 rounds to 2, 8 stays the largest
    ([1, 2, 4, 8], 0, [1, 2, 4, 8]),
    ([1, 2, 4, 8], 2, [3, 6]),  # 9 would exceed the largest (8)
    ([8, 4, 2], 1, [2, 4, 8]),
    ([3], 1, [2]),  # nothing rounds within 3, but 2 itself fits
    ([], 1, []),
])
def test_vllm_adjust_for_spec_decode(sizes, k, expected):
    assert vllm_adjust_for_spec_decode(sizes, k) == expected


def test_vllm_adjust_raises_like_vllm_when_nothing_fits():
    with pytest.raises(ValueError) as exc:
        vllm_adjust_for_spec_decode([1], 3)
    assert 'multiple of 4' in str(exc.value)


def _batch_lists():
    pool = [1, 2, 3, 4, 5, 6, 8, 12, 16, 24, 32, 48, 64]
    lists = [list(combo) for size in (1, 2, 3) for combo in itertools.combinations(pool, size)]
    rng = random.Random(310)
    lists += [rng.sample(range(1, 257), rng.randint(1, 12)) for dummy in range(300)]
    return lists


@pytest.mark.parametrize('k', [0, 1, 2, 3, 4, 7])
def test_output_is_a_fixed_point_of_vllm_rounding(k):
    for batch in _batch_lists():
        sizes = capture_sizes(batch, k)
        assert vllm_adjust_for_spec_decode(sizes, k) == sizes, (batch, k)
        assert sizes == sorted(set(sizes))
        assert all(size % (k + 1) == 0 for size in sizes)


# --------------------------------------------------------------------------- parsers

@pytest.mark.parametrize('value, expected', [
    (16384, 16384), ('16384', 16384), (' 8192 ', 8192), (16384.0, 16384),
    ('16k', 16000), ('16K', 16384), ('1m', 1000000), ('1M', 1048576), ('25.6k', 25600), ('2g', 2000000000),
])
def test_parse_human_int(value, expected):
    assert parse_human_int(value) == expected


@pytest.mark.parametrize('value', ['1.5K', 'abc', '16 k', True, 2.5, None, [16384]])
def test_parse_human_int_refuses(value):
    with pytest.raises(ValueError):
        parse_human_int(value)


@pytest.mark.parametrize('tag, version, rc, suffix', [
    ('v0.23.0-310p', [0, 23, 0], None, '-310p'),
    ('v0.23.0rc1-310p-openeuler', [0, 23, 0], 1, '-310p-openeuler'),
    ('quay.io/ascend/vllm-ascend:v0.22.0-310p', [0, 22, 0], None, '-310p'),
    ('v0.23.0', [0, 23, 0], None, ''),
])
def test_parse_image_tag(tag, version, rc, suffix):
    parsed = parse_image_tag(tag)
    assert (parsed['version'], parsed['rc'], parsed['suffix']) == (version, rc, suffix)


def test_release_candidate_sorts_before_its_release():
    order = ['v0.22.0-310p', 'v0.23.0rc1-310p', 'v0.23.0rc2-310p', 'v0.23.0-310p', 'v0.23.1-310p', 'v0.24.0rc1-310p']
    keys = [image_sort_key(parse_image_tag(tag)) for tag in order]
    assert keys == sorted(keys)


# --------------------------------------------------------------------------- memory, by hand

# Chip 44280 MiB (fixture 01) x 0.9 = 39852 MiB usable; mask 2 * 16384^2 / 2^20 = 512 MiB;
# reserve 2048 MiB; MTP on (k = 1); 32 sequences of 16384 tokens.
#
# Per layer, fp16:  attention bytes/token = 2 (K,V) x kv heads per rank x 256 x 2
#                   GDN state = 2 x [conv_dim/TP x (4 - 1 + 1) + v_heads/TP x 128 x 128]
#   2B  (kv 2, GDN k/v heads 16/16, conv_dim 2*16*128 + 16*128 = 6144):
#       TP1: 2048 B/token;  2 x (6144 x 4 + 16 x 16384) = 573440 B
#       TP2: 1024 B/token;  2 x (3072 x 4 +  8 x 16384) = 286720 B
#   4B, 9B (kv 4, GDN k/v heads 16/32, conv_dim 2*16*128 + 32*128 = 8192):
#       TP1: 4096 B/token;  2 x (8192 x 4 + 32 x 16384) = 1114112 B
#       TP2: 2048 B/token;  2 x (4096 x 4 + 16 x 16384) = 557056 B
# Layers: 2B 6 full + 1 MTP = 7 attention, 18 GDN; 4B/9B 8 + 1 = 9 attention, 24 GDN.
# kv_bytes_per_token = attention layers x bytes/token; gdn_state_bytes_per_seq = GDN layers x (1 + k) x state.
# Block: 128 x ceil(state / (128 x bytes/token)) = 384 tokens in all six cases
#   (573440/2048 = 280, 286720/1024 = 280, 1114112/4096 = 272, 557056/2048 = 272 -> 384).
# Group size = attention layers (7 or 9; the GDN count is over 1.5x it), so one block costs
#   7 or 9 pages of 384 x bytes/token; a sequence's GDN state takes ceil(18/7) = ceil(24/9) = 3 groups
#   x 2 slots = 6 blocks; a 16384-token KV cache takes ceil(16384/384) = 43 blocks: 32 x 6 + 43 = 235.
HAND = [
    # model, TP, weights MiB, kv_bytes_per_token, gdn_state_bytes_per_seq, block bytes,
    #   kv_budget MiB, num_blocks, max_num_seqs_fit, max_model_len_fit
    ('Qwen/Qwen3.5-2B', 1, 2270000000 * 2 / 2 ** 20, 7 * 2048, 18 * 2 * 573440, 7 * 384 * 2048,
     (39852 - 4329.6814 - 512 - 2048) / 2, 3139, (3139 - 43) // 6, 121441),
    ('Qwen/Qwen3.5-2B', 2, 2270000000 * 2 / 2 / 2 ** 20, 7 * 1024, 18 * 2 * 286720, 7 * 384 * 1024,
     (39852 - 2164.8407 - 512 - 2048) / 2, 6690, (6690 - 43) // 6, 131207),
    ('Qwen/Qwen3.5-4B', 1, 4660000000 * 2 / 2 ** 20, 9 * 4096, 24 * 2 * 1114112, 9 * 384 * 4096,
     (39852 - 8888.2446 - 512 - 2048) / 2, 1051, (1051 - 43) // 6, 94582),
    ('Qwen/Qwen3.5-4B', 2, 4660000000 * 2 / 2 / 2 ** 20, 9 * 2048, 24 * 2 * 557056, 9 * 384 * 2048,
     (39852 - 4444.1223 - 512 - 2048) / 2, 2433, (2433 - 43) // 6, 118115),
    ('Qwen/Qwen3.5-9B', 1, 9650000000 * 2 / 2 ** 20, 9 * 4096, 24 * 2 * 1114112, 9 * 384 * 4096,
     (39852 - 18405.9143 - 512 - 2048) / 2, 699, (699 - 43) // 6, 69827),
    ('Qwen/Qwen3.5-9B', 2, 9650000000 * 2 / 2 / 2 ** 20, 9 * 2048, 24 * 2 * 557056, 9 * 384 * 2048,
     (39852 - 9202.9572 - 512 - 2048) / 2, 2080, (2080 - 43) // 6, 107904),
]


@pytest.mark.parametrize('model, tp, weights, kv_token, gdn_seq, block, budget, blocks, seqs_fit, len_fit', HAND)
def test_memory_by_hand(model, tp, weights, kv_token, gdn_seq, block, budget, blocks, seqs_fit, len_fit):
    result = plan(request(model=model, tensor_parallel_size=tp, chip_memory_mb=44280, gpu_memory_utilization=0.9))
    memory = result['memory']
    assert memory['usable_mb'] == 39852.0
    assert memory['attention_mask_mb'] == 512.0
    assert memory['reserve_mb'] == 2048
    assert memory['weights_mb_per_chip'] == pytest.approx(weights, abs=0.01)
    assert memory['kv_bytes_per_token'] == kv_token
    assert memory['gdn_state_bytes_per_seq'] == gdn_seq
    assert memory['block_size_tokens'] == 384
    assert memory['block_bytes'] == block
    assert memory['state_blocks_per_seq'] == 6
    assert memory['kv_budget_mb'] == pytest.approx(budget, abs=0.01)
    assert memory['num_blocks'] == blocks
    assert memory['required_blocks'] == 235
    assert memory['required_mb'] == pytest.approx(235 * block / 2 ** 20, abs=0.01)
    assert memory['fits'] is True
    assert memory['max_num_seqs_fit'] == seqs_fit
    assert abs(memory['max_model_len_fit'] - len_fit) <= 1


def test_max_model_len_fit_is_capped_at_the_model_maximum():
    memory = plan(request(max_num_seqs=1, chip_memory_mb=10 ** 7))['memory']
    assert memory['max_model_len_fit'] == 262144


def test_memory_plan_is_skipped_when_its_inputs_are_wrong():
    assert plan(request(max_model_len=None))['memory'] is None


def test_layout_without_gdn_layers_uses_plain_blocks():
    model = get_model('acme/Dense', {
        'num_hidden_layers': 4, 'full_attention_interval': 1, 'num_attention_heads': 8, 'num_key_value_heads': 2,
        'head_dim': 128, 'linear_num_key_heads': 1, 'linear_num_value_heads': 1, 'linear_key_head_dim': 1,
        'linear_value_head_dim': 1, 'linear_conv_kernel_dim': 4, 'hidden_size': 1024, 'vocab_size': 32000,
        'tie_word_embeddings': True, 'num_parameters': 500000000, 'mtp_num_layers': 0,
        'max_position_embeddings': 32768, 'min_image_tag': 'v0.23.0rc1-310p'})
    layout = cache_layout(model, 1, 0)
    assert layout['block_size_tokens'] == 128
    assert layout['state_blocks_per_seq'] == 0
    assert layout['block_bytes'] == 4 * 128 * (2 * 2 * 128 * 2)


# --------------------------------------------------------------------------- variable names in reports

def test_var_names_override_the_prefix_in_variables_and_fixes():
    result = plan(request(platform='atlas_300i_trio', image_tag='latest', var_prefix='vllm_serve_',
                          var_names={'platform': 'ascend_vllm_platform', 'image_tag': 'image_pull_tag'}))
    found = dict((item['variable'], item) for item in result['violations'])
    assert sorted(found) == ['ascend_vllm_platform', 'image_pull_tag']
    assert found['ascend_vllm_platform']['fix'].startswith('set ascend_vllm_platform to one of: atlas_200i_pro')
    assert found['image_pull_tag']['fix'].startswith('set image_pull_tag so that the image tag is a release')


@pytest.mark.parametrize('names', [None, 'not a dict', {'platform': ''}, {'platform': 3}])
def test_unusable_var_names_fall_back_to_the_prefix(names):
    result = plan(request(platform='atlas_800', var_prefix='vllm_serve_', var_names=names))
    assert one_violation(result)['variable'] == 'vllm_serve_platform'


def test_memory_fix_names_the_callers_variables():
    result = plan(request(platform='atlas_200i_pro', model='Qwen/Qwen3.5-9B', max_model_len=4096,
                          var_prefix='ascend_vllm_instances[0].'))
    fix = one_violation(result)['fix']
    assert 'lower ascend_vllm_instances[0].max_num_seqs to at most 8 (at this max_model_len)' in fix
    assert 'raise ascend_vllm_instances[0].gpu_memory_utilization (now 0.90)' in fix


def test_memory_fix_when_the_weights_leave_no_room():
    result = plan(request(gpu_memory_utilization=0.1, var_prefix='vllm_serve_'))
    found = one_violation(result)
    assert found['variable'] == 'vllm_serve_max_model_len'
    assert 'raise vllm_serve_gpu_memory_utilization (now 0.10)' in found['fix']


@pytest.mark.parametrize('value, choices, expected', [
    ('atlas_300i_trio', ['atlas_200i_pro', 'atlas_300i_duo'], ' (did you mean atlas_300i_duo or atlas_200i_pro?)'),
    ('qwen/qwen3.5-2b', ['Qwen/Qwen3.5-2B', 'Qwen/Qwen3.5-4B'], ' (did you mean Qwen/Qwen3.5-2B?)'),
    ('shm', ['privileged', 'shm_size'], ' (did you mean shm_size?)'),
    ('zz', ['privileged', 'shm_size'], ''),
    ('', ['a'], ''),
    (None, ['a'], ''),
])
def test_did_you_mean(value, choices, expected):
    assert did_you_mean(value, choices) == expected


# --------------------------------------------------------------------------- the 27B W8A8 tutorial
# vllm-ascend docs, "Qwen3.5-27B & Qwen3.6-27B" tutorial, branch releases/v0.23.0 (the line of
# the pinned image v0.23.0-310p), section 5.1, tab "Atlas 300I DUO": its two commands word for
# word (JSON written compactly), plus the --quantization ascend its prose on the same tab asks
# for: "The quantized versions need to start with the `--quantization ascend` parameter."
def tutorial_27b_argv(model_path, served):
    return [
        'vllm', 'serve', model_path,
        '--host', '127.0.0.1',
        '--port', '1025',
        '--tensor-parallel-size', '4',
        '--served-model-name', served,
        '--max-num-seqs', '128',
        '--max-model-len', '16384',
        '--trust-remote-code',
        '--gpu-memory-utilization', '0.90',
        '--mamba-ssm-cache-dtype', 'float16',
        '--dtype', 'float16',
        '--quantization', 'ascend',
        '--speculative-config', '{"method":"qwen3_5_mtp","num_speculative_tokens":1}',
        '--compilation-config', '{"cudagraph_mode":"FULL_DECODE_ONLY","cudagraph_capture_sizes":[2,8]}',
        '--additional-config', '{"ascend_compilation_config":{"enable_npugraph_ex":false}}',
    ] + MODEL_CARD_PARSERS


TUTORIAL_27B = [('Eco-Tech/Qwen3.5-27B-w8a8-mtp', 'qwen3.5'), ('Eco-Tech/Qwen3.6-27B-w8a8', 'qwen3.6')]


@pytest.mark.parametrize('model, served', TUTORIAL_27B)
def test_27b_tutorial_inputs_give_the_tutorial_command(model, served):
    # Only what an operator types: the model, TP 4 and the length; the rest is the model's.
    result = plan({'platform': 'atlas_300i_duo', 'model': model, 'tensor_parallel_size': 4,
                   'max_model_len': 16384})
    assert result['violations'] == []
    assert result['argv'] == tutorial_27b_argv(model, served)
    assert shlex.split(result['command']) == tutorial_27b_argv(model, served)
    # The tutorial's "export VLLM_USE_MODELSCOPE=True".
    assert result['env'] == {'VLLM_USE_MODELSCOPE': 'True'}
    assert result['cudagraph_capture_sizes'] == [2, 8]
    # Int8 weights: a quarter of about 33 GB per chip, not 27.78e9 x 2 bytes.
    assert 7000 < result['memory']['weights_mb_per_chip'] < 8000


@pytest.mark.parametrize('model, served', TUTORIAL_27B)
def test_27b_on_a_300i_duo_based_platform_spec_keeps_the_tutorial_rules(model, served):
    result = plan({'platform': 'my_duo', 'platform_spec': {'based_on': 'atlas_300i_duo'}, 'model': model,
                   'tensor_parallel_size': 4, 'max_model_len': 16384})
    assert result['violations'] == [] and result['argv'] == tutorial_27b_argv(model, served)
    refused = plan({'platform': 'my_duo', 'platform_spec': {'based_on': 'atlas_300i_duo'}, 'model': model,
                    'tensor_parallel_size': 1, 'max_model_len': 16384})
    assert any('allowed: [2, 4]' in item['rule'] for item in refused['violations'])


def test_27b_ci_config_at_tp2_plans():
    # vllm-ascend weekly CI on main, tests/e2e/weekly/single_node/configs/
    # Qwen3.6-27B-W8A8-310P-300I-DUO.yaml: TP 2, 16 sequences, 20480 tokens, 0.80, no MTP,
    # capture sizes [8,16], --quantization ascend (it leaves --dtype to the default; the
    # tutorial says float16 must be set, and the plan sets it).
    result = plan({'platform': 'atlas_300i_duo', 'model': 'Eco-Tech/Qwen3.6-27B-w8a8', 'tensor_parallel_size': 2,
                   'max_model_len': 20480, 'max_num_seqs': 16, 'gpu_memory_utilization': 0.8,
                   'num_speculative_tokens': 0, 'cudagraph_batch_sizes': [8, 16]})
    assert result['violations'] == []
    argv = result['argv']
    for flag, value in (('--tensor-parallel-size', '2'), ('--max-model-len', '20480'), ('--max-num-seqs', '16'),
                        ('--gpu-memory-utilization', '0.80'), ('--quantization', 'ascend'),
                        ('--mamba-ssm-cache-dtype', 'float16')):
        assert argv[argv.index(flag) + 1] == value
    assert '--speculative-config' not in argv
    assert result['cudagraph_capture_sizes'] == [8, 16]


@pytest.mark.parametrize('model, served', TUTORIAL_27B)
@pytest.mark.parametrize('platform', ['atlas_200i_pro', 'atlas_200i_pro_openeuler'])
def test_27b_is_refused_on_the_200i_pro_naming_the_model(model, served, platform):
    result = plan({'platform': platform, 'model': model, 'max_model_len': 16384, 'var_prefix': 'vllm_serve_'})
    violation = one_violation(result)
    assert violation['variable'] == 'vllm_serve_model' and violation['value'] == model
    assert 'atlas_300i_duo only' in violation['rule'] and 'Qwen3.5-27B & Qwen3.6-27B' in violation['rule']
    assert 'Qwen/Qwen3.5-2B' in violation['fix'] and 'Eco-Tech' not in violation['fix']


@pytest.mark.parametrize('model, served', TUTORIAL_27B)
def test_27b_at_tp1_is_refused_with_the_tutorial_sizes(model, served):
    result = plan({'platform': 'atlas_300i_duo', 'model': model, 'tensor_parallel_size': 1, 'max_model_len': 16384})
    rules = [item['rule'] for item in result['violations'] if item['variable'] == 'tensor_parallel_size']
    assert rules and 'allowed: [2, 4]' in rules[0]
    # And it does not fit one chip either (the weights alone are ~31 GiB of the 44 GB chip).
    assert result['memory']['fits'] is False


def test_27b_at_tp2_with_the_tp4_sequences_names_what_fits():
    result = plan({'platform': 'atlas_300i_duo', 'model': 'Eco-Tech/Qwen3.6-27B-w8a8', 'tensor_parallel_size': 2,
                   'max_model_len': 16384})
    violation = one_violation(result)
    assert 'does not fit' in violation['rule']
    assert 'tensor_parallel_size to 4' in violation['fix'] or 'max_num_seqs' in violation['fix']


def test_27b_more_than_two_capture_sizes_with_tp_are_refused():
    result = plan({'platform': 'atlas_300i_duo', 'model': 'Eco-Tech/Qwen3.6-27B-w8a8', 'tensor_parallel_size': 4,
                   'max_model_len': 16384, 'cudagraph_batch_sizes': [1, 2, 4]})
    violation = one_violation(result)
    assert violation['variable'] == 'cudagraph_batch_sizes' and 'at most two' in violation['rule']


@pytest.mark.parametrize('changes, words', [
    (dict(model='Qwen/Qwen3.5-2B', quantization='ascend'), 'unquantized checkpoint'),
    (dict(model='Eco-Tech/Qwen3.6-27B-w8a8', tensor_parallel_size=4, quantization='fp8'), 'ascend-quantized'),
    (dict(quantization='awq'), 'vllm-ascend knows the quantization methods'),
])
def test_quantization_is_checked(changes, words):
    violation = one_violation(plan(request(**changes)))
    assert violation['variable'] == 'quantization' and words in violation['rule']


def test_quantization_ascend_with_a_local_quantized_directory_is_accepted():
    # model_path may hold W8A8 weights of a catalog architecture (e.g. a 310P ModelSlim export).
    result = plan(request(model='Qwen/Qwen3.5-9B', model_path='/models/Qwen3.5-9B-W8A8-310P', quantization='ascend'))
    assert result['violations'] == []
    assert result['argv'][result['argv'].index('--quantization') + 1] == 'ascend'


def test_quantization_in_extra_args_is_a_managed_flag():
    for words in (['--quantization', 'ascend'], ['-q', 'ascend'], ['--quantization=ascend']):
        violation = one_violation(plan(request(extra_args=words)))
        assert violation['variable'] == 'extra_args', words


# --------------------------------------------------------------------------- offline (air-gapped) sites
def test_offline_serves_a_local_directory_with_the_hub_turned_off():
    result = plan(request(model_path='/data/models/Qwen3.5-2B', offline=True))
    assert result['violations'] == []
    assert result['env'] == {'HF_HUB_OFFLINE': '1'}  # and no VLLM_USE_MODELSCOPE for a directory
    assert result['argv'][2] == '/data/models/Qwen3.5-2B'


@pytest.mark.parametrize('model_path', [None, 'Qwen/Qwen3.5-2B', 'models/Qwen3.5-2B'])
def test_offline_refuses_what_would_need_a_download(model_path):
    violation = one_violation(plan(request(model_path=model_path, offline=True, var_prefix='vllm_serve_',
                                           var_names={'offline': 'ascend_vllm_offline'})))
    assert violation['variable'] == 'vllm_serve_model_path'
    assert violation['value'] == (model_path or 'Qwen/Qwen3.5-2B')
    assert 'ascend_vllm_offline is true' in violation['rule']
    assert 'set vllm_serve_model_path' in violation['fix']


def test_offline_must_be_a_switch():
    violation = one_violation(plan(request(offline='sometimes')))
    assert violation['variable'] == 'offline' and violation['fix'] == 'set offline: false'
