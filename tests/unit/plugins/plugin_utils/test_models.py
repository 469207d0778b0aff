# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Model catalog: the numbers, the copies, the model_spec checks."""

import pytest

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.models import (
    GUIDE_DEFAULTS, MODELS, REQUIRED_FIELDS, ModelSpecError, get_model, model_names)

# Numbers from the public config copies cited in models.py (reference.md table).
CATALOG = [
    # name, layers, hidden, heads, kv heads, linear value heads, tied, parameters
    ('Qwen/Qwen3.5-2B', 24, 2048, 8, 2, 16, True, 2270000000),
    ('Qwen/Qwen3.5-4B', 32, 2560, 16, 4, 32, True, 4660000000),
    ('Qwen/Qwen3.5-9B', 32, 4096, 16, 4, 32, False, 9650000000),
]


def _new_model_spec(**changes):
    spec = {
        'num_hidden_layers': 8, 'full_attention_interval': 4, 'num_attention_heads': 8,
        'num_key_value_heads': 2, 'head_dim': 128, 'linear_num_key_heads': 8,
        'linear_num_value_heads': 8, 'linear_key_head_dim': 64, 'linear_value_head_dim': 64,
        'linear_conv_kernel_dim': 4, 'hidden_size': 1024, 'vocab_size': 32000,
        'tie_word_embeddings': True, 'num_parameters': 500000000, 'mtp_num_layers': 0,
        'max_position_embeddings': 32768, 'min_image_tag': 'v0.23.0rc1-310p',
    }
    spec.update(changes)
    return spec


def test_catalog_names():
    assert model_names() == ['Eco-Tech/Qwen3.5-27B-w8a8-mtp', 'Eco-Tech/Qwen3.6-27B-w8a8',
                             'Eco-Tech/Qwen3.6-27B-w8a8-310p', 'Qwen/Qwen3.5-2B', 'Qwen/Qwen3.5-4B',
                             'Qwen/Qwen3.5-9B']


@pytest.mark.parametrize('name, served', [('Eco-Tech/Qwen3.5-27B-w8a8-mtp', 'qwen3.5'),
                                          ('Eco-Tech/Qwen3.6-27B-w8a8', 'qwen3.6'),
                                          ('Eco-Tech/Qwen3.6-27B-w8a8-310p', 'qwen3.6')])
def test_27b_w8a8_entries(name, served):
    # Qwen/Qwen3.6-27B config.json as quoted in models.py [Q36]; the tutorial's 300I DUO facts [T27B].
    model = get_model(name)
    assert (model['num_hidden_layers'], model['hidden_size'], model['num_attention_heads'],
            model['num_key_value_heads'], model['linear_num_value_heads']) == (64, 5120, 24, 4, 48)
    assert model['tie_word_embeddings'] is False and model['mtp_num_layers'] == 1
    assert model['quantization'] == 'ascend'
    assert model['allowed_tp'] == {'atlas_300i_duo': [2, 4]}
    assert model['tp_cudagraph_batch_sizes'] == [1, 4]
    # int8 weights: fewer bytes than fp16 parameters, at least the tutorial's "~30 GB".
    assert 30e9 <= model['weight_bytes'] < model['num_parameters'] * 2
    assert model['guide_defaults'] == {'max_model_len': 16384, 'max_num_seqs': 128, 'gpu_memory_utilization': 0.9,
                                       'num_speculative_tokens': 1, 'served_model_name': served}
    assert model['min_image_tag'] == 'v0.23.0rc1-310p'


def test_a_spec_keeps_the_catalog_guide_defaults_it_does_not_change():
    model = get_model('Eco-Tech/Qwen3.6-27B-w8a8', {'guide_defaults': {'max_num_seqs': 16}})
    assert model['guide_defaults']['max_num_seqs'] == 16
    assert model['guide_defaults']['served_model_name'] == 'qwen3.6'


@pytest.mark.parametrize('key, value', [
    ('weight_bytes', 0), ('weight_bytes', 'big'), ('quantization', ''), ('quantization', 8),
    ('allowed_tp', {'atlas_300i_duo': []}), ('allowed_tp', ['atlas_300i_duo']), ('allowed_tp', {'x': [0]}),
    ('tp_cudagraph_batch_sizes', [1, 2, 4]), ('tp_cudagraph_batch_sizes', [0]), ('source', 3),
])
def test_optional_fields_are_checked(key, value):
    with pytest.raises(ModelSpecError) as caught:
        get_model('Qwen/Qwen3.5-2B', {key: value})
    assert [item[0] for item in caught.value.bad] == [key]


@pytest.mark.parametrize('name, layers, hidden, heads, kv_heads, linear_v_heads, tied, params', CATALOG)
def test_catalog_numbers(name, layers, hidden, heads, kv_heads, linear_v_heads, tied, params):
    model = get_model(name)
    assert model['name'] == name
    assert model['num_hidden_layers'] == layers
    assert model['hidden_size'] == hidden
    assert model['num_attention_heads'] == heads
    assert model['num_key_value_heads'] == kv_heads
    assert model['linear_num_value_heads'] == linear_v_heads
    assert model['tie_word_embeddings'] is tied
    assert model['num_parameters'] == params
    # Shared by all three: interval 4 (3 GDN + 1 full), head_dim 256, 16 GDN key heads of
    # 128, value dim 128, conv 4, vocab 248320, one MTP layer, 262144 positions.
    assert model['full_attention_interval'] == 4
    assert model['head_dim'] == 256
    assert model['linear_num_key_heads'] == 16
    assert model['linear_key_head_dim'] == 128
    assert model['linear_value_head_dim'] == 128
    assert model['linear_conv_kernel_dim'] == 4
    assert model['vocab_size'] == 248320
    assert model['mtp_num_layers'] == 1
    assert model['max_position_embeddings'] == 262144
    assert model['min_image_tag'] == 'v0.23.0rc1-310p'
    assert model['guide_min_image_tag'] == 'v0.23.0-310p'
    assert model['guide_defaults'] == {'max_model_len': 16384, 'max_num_seqs': 32, 'gpu_memory_utilization': 0.9,
                                       'num_speculative_tokens': 1, 'served_model_name': 'qwen3.5'}


def test_guide_defaults():
    assert GUIDE_DEFAULTS == {'max_model_len': 16384, 'max_num_seqs': 32, 'gpu_memory_utilization': 0.9,
                              'num_speculative_tokens': 1, 'served_model_name': 'qwen3.5'}


def test_get_model_returns_a_copy():
    model = get_model('Qwen/Qwen3.5-2B')
    model['guide_defaults']['max_num_seqs'] = 1
    model['num_hidden_layers'] = 1
    assert MODELS['Qwen/Qwen3.5-2B']['guide_defaults']['max_num_seqs'] == 32
    assert get_model('Qwen/Qwen3.5-2B')['num_hidden_layers'] == 24


def test_spec_overrides_catalog_fields():
    model = get_model('Qwen/Qwen3.5-9B', {'num_parameters': 9653108208, 'guide_defaults': {'max_num_seqs': 8}})
    assert model['num_parameters'] == 9653108208
    assert model['guide_defaults']['max_num_seqs'] == 8
    assert model['guide_defaults']['max_model_len'] == 16384


def test_spec_accepts_an_integral_float_parameter_count():
    assert get_model('Qwen/Qwen3.5-2B', {'num_parameters': 2.27e9})['num_parameters'] == 2270000000


def test_spec_describes_a_new_model():
    model = get_model('acme/Hybrid-0.5B', _new_model_spec())
    assert model['name'] == 'acme/Hybrid-0.5B'
    assert model['guide_defaults'] == GUIDE_DEFAULTS


def test_new_model_without_spec_lists_the_catalog():
    with pytest.raises(ValueError) as exc:
        get_model('acme/Unknown-1B')
    assert 'acme/Unknown-1B' in str(exc.value) and 'Qwen/Qwen3.5-4B' in str(exc.value)


def test_new_model_names_every_missing_key():
    spec = _new_model_spec()
    for key in ('head_dim', 'vocab_size', 'min_image_tag'):
        del spec[key]
    with pytest.raises(ValueError) as exc:
        get_model('acme/Hybrid-0.5B', spec)
    assert 'missing key(s) head_dim, vocab_size, min_image_tag' in str(exc.value)


@pytest.mark.parametrize('changes, words', [
    ({'head_dim': 0}, ['head_dim=0', 'positive integer']),
    ({'num_attention_heads': '8'}, ['num_attention_heads=', 'positive integer']),
    ({'num_key_value_heads': True}, ['num_key_value_heads=True']),
    ({'mtp_num_layers': -1}, ['mtp_num_layers=-1', '>= 0']),
    ({'tie_word_embeddings': 'yes'}, ['tie_word_embeddings=', 'true or false']),
    ({'min_image_tag': '0.23.0'}, ['min_image_tag=', 'image tag']),
    ({'guide_defaults': {'max_len': 1}}, ['guide_defaults keys max_len']),
    ({'guide_defaults': [1]}, ['guide_defaults=[1]']),
    ({'num_hidden_layers': 2}, ['num_hidden_layers=2', 'full_attention_interval']),
])
def test_bad_spec_values_are_named(changes, words):
    with pytest.raises(ValueError) as exc:
        get_model('acme/Hybrid-0.5B', _new_model_spec(**changes))
    for word in words:
        assert word in str(exc.value)


def test_unknown_spec_key_lists_the_valid_ones():
    with pytest.raises(ValueError) as exc:
        get_model('Qwen/Qwen3.5-2B', {'layers': 24})
    assert 'unknown model_spec key(s) layers' in str(exc.value)
    assert 'num_hidden_layers' in str(exc.value)


def test_spec_must_be_a_dict():
    with pytest.raises(ValueError):
        get_model('Qwen/Qwen3.5-2B', ['num_hidden_layers'])


def test_required_fields_cover_what_the_planner_reads():
    assert set(REQUIRED_FIELDS) >= {
        'num_hidden_layers', 'full_attention_interval', 'num_attention_heads', 'num_key_value_heads',
        'head_dim', 'linear_num_key_heads', 'linear_num_value_heads', 'linear_key_head_dim',
        'linear_value_head_dim', 'linear_conv_kernel_dim', 'num_parameters', 'mtp_num_layers',
        'max_position_embeddings', 'min_image_tag'}


@pytest.mark.parametrize('name, spec, field, expected', [
    ('acme/Unknown-1B', None, 'unknown_model', 'acme/Unknown-1B'),
    ('Qwen/Qwen3.5-2B', {'layers': 24}, 'unknown', ['layers']),
    ('acme/Tiny', {'head_dim': 128}, 'missing', None),
    ('Qwen/Qwen3.5-2B', {'head_dim': 0}, 'bad', [('head_dim', 0, 'a positive integer')]),
    ('Qwen/Qwen3.5-2B', [1], 'bad', [('model_spec', [1], 'a dict')]),
])
def test_model_spec_error_says_what_is_wrong_item_by_item(name, spec, field, expected):
    with pytest.raises(ModelSpecError) as exc:
        get_model(name, spec)
    value = getattr(exc.value, field)
    if field == 'missing':
        assert 'num_hidden_layers' in value and 'head_dim' not in value
    else:
        assert value == expected
