# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""vllm_config as a task runs it (its action plugin, on the controller): results, failures, warnings."""

import json

import pytest

from ansible_collections.ascend.vllm.plugins.action.vllm_config import ActionModule
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.planner import summary
from moduleargs import run_controller_action  # noqa: E402 pylint: disable=wrong-import-position


class AnsibleExitJson(Exception):
    pass


class AnsibleFailJson(Exception):
    pass


@pytest.fixture
def warnings():
    return []


def run(args, check_mode=False, seen=None):
    """The task's result (the action plans on the controller; no module is shipped) and whether it failed."""
    result = run_controller_action(ActionModule, 'ascend.vllm.vllm_config', args, check_mode=check_mode)
    if seen is not None:
        seen.extend(result.get('warnings', []))
    return (AnsibleFailJson if result.get('failed') else AnsibleExitJson), result


GUIDE_ARGV = [
    'vllm', 'serve', 'Qwen/Qwen3.5-2B', '--host', '127.0.0.1', '--port', '1025', '--tensor-parallel-size', '1',
    '--served-model-name', 'qwen3.5', '--max-num-seqs', '32', '--max-model-len', '16384', '--trust-remote-code',
    '--gpu-memory-utilization', '0.90', '--mamba-ssm-cache-dtype', 'float16', '--dtype', 'float16',
    '--speculative-config', '{"method":"qwen3_5_mtp","num_speculative_tokens":1}',
    '--compilation-config', '{"cudagraph_mode":"FULL_DECODE_ONLY","cudagraph_capture_sizes":[2,4,8,16]}',
    '--additional-config', '{"ascend_compilation_config":{"enable_npugraph_ex":false}}',
    # The Qwen3.5 model cards' parsers (contracts/models.py), on by default.
    '--reasoning-parser', 'qwen3', '--enable-auto-tool-choice', '--tool-call-parser', 'qwen3_coder',
]


@pytest.mark.parametrize('check_mode', [False, True])
def test_success_returns_the_guide_command(check_mode, warnings):
    kind, result = run({'platform': 'atlas_300i_duo', 'model': 'Qwen/Qwen3.5-2B', 'tensor_parallel_size': 1,
                        'max_model_len': 16384, 'max_num_seqs': 32}, check_mode=check_mode, seen=warnings)
    assert kind is AnsibleExitJson
    assert result['changed'] is False
    assert result['argv'] == GUIDE_ARGV
    assert result['env'] == {'VLLM_USE_MODELSCOPE': 'True'}
    assert result['cudagraph_capture_sizes'] == [2, 4, 8, 16]
    assert result['violations'] == []
    assert result['memory']['fits'] is True
    assert result['profile']['shm_size'] == '1g'
    assert result['model']['name'] == 'Qwen/Qwen3.5-2B'
    assert result['settings']['max_model_len'] == 16384
    # Advice is both returned and shown as a task warning.
    assert result['config_warnings'] == warnings
    assert len(warnings) == 1 and 'run without a graph' in warnings[0]


def test_string_arguments_from_the_command_line_are_coerced():
    kind, result = run({'platform': 'atlas_300i_duo', 'model': 'Qwen/Qwen3.5-9B', 'tensor_parallel_size': '2',
                        'max_model_len': '32K', 'max_num_seqs': '16', 'gpu_memory_utilization': '0.85',
                        'port': '8000', 'cudagraph_batch_sizes': '1,8', 'image_tag': 'v0.23.0-310p'})
    assert kind is AnsibleExitJson, result.get('msg')
    argv = result['argv']
    assert argv[argv.index('--max-model-len') + 1] == '32768'
    assert argv[argv.index('--tensor-parallel-size') + 1] == '2'
    assert result['cudagraph_capture_sizes'] == [2, 16]
    assert result['image']['version'] == [0, 23, 0]


def test_api_key_stays_out_of_the_result():
    kind, result = run({'platform': 'atlas_300i_duo', 'model': 'Qwen/Qwen3.5-2B', 'max_model_len': 8192,
                        'api_key': 'not-in-output'})
    assert kind is AnsibleExitJson
    assert result['api_key_env'] == 'VLLM_API_KEY'
    assert 'not-in-output' not in json.dumps(result)


def test_all_violations_fail_together():
    kind, result = run({'platform': 'atlas_200i_pro', 'model': 'Qwen/Qwen3.5-9B', 'dtype': 'bfloat16',
                        'tensor_parallel_size': 2, 'cudagraph_batch_sizes': [1, 2, 4, 8],
                        'max_model_len': 262144, 'var_prefix': 'vllm_serve_'})
    assert kind is AnsibleFailJson
    assert result['failed'] is True
    variables = [item['variable'] for item in result['violations']]
    assert variables == ['vllm_serve_dtype', 'vllm_serve_tensor_parallel_size',
                         'vllm_serve_cudagraph_batch_sizes', 'vllm_serve_max_model_len']
    assert result['msg'].startswith('4 configuration problem(s): vllm_serve_dtype=bfloat16: ')
    assert 'vllm_serve_tensor_parallel_size=2: TP 2 is not supported on atlas_200i_pro' in result['msg']
    assert 'vllm_serve_cudagraph_batch_sizes=[1, 2, 4, 8]: ' in result['msg']
    assert 'vllm_serve_max_model_len=262144: Qwen/Qwen3.5-9B at TP 2 does not fit' in result['msg']
    assert '\n' not in result['msg']
    for item in result['violations']:
        assert sorted(item) == ['fix', 'rule', 'value', 'variable']
        assert item['fix']
    # What could be computed comes back too.
    assert result['memory']['fits'] is False
    assert result['memory']['attention_mask_mb'] == 131072.0
    assert 'argv' not in result


def test_missing_max_model_len_is_a_violation_not_an_argspec_error():
    kind, result = run({'platform': 'atlas_300i_duo', 'model': 'Qwen/Qwen3.5-2B', 'tensor_parallel_size': 'two'})
    assert kind is AnsibleFailJson
    assert [item['variable'] for item in result['violations']] == ['tensor_parallel_size', 'max_model_len']
    assert result['memory'] is None


def test_unknown_platform_is_a_violation_with_the_valid_names():
    kind, result = run({'platform': 'atlas_900', 'model': 'Qwen/Qwen3.5-2B', 'max_model_len': 16384,
                        'dtype': 'bfloat16', 'var_prefix': 'vllm_serve_',
                        'var_names': {'platform': 'ascend_vllm_platform'}})
    assert kind is AnsibleFailJson
    # Reported with the other problems, under the variable the caller reads it from.
    assert [item['variable'] for item in result['violations']] == ['ascend_vllm_platform', 'vllm_serve_dtype']
    assert 'atlas_900' in result['msg'] and 'atlas_300i_duo' in result['violations'][0]['fix']
    assert result['violations'][0]['fix'].startswith('set ascend_vllm_platform to one of: ')
    assert result['profile'] is None


def test_var_names_rename_options_in_problems_and_fixes():
    kind, result = run({'platform': 'atlas_300i_duo', 'model': 'Qwen/Qwen3.5-2B', 'max_model_len': 16384,
                        'image_tag': 'v0.22.0-310p', 'var_prefix': 'vllm_serve_',
                        'var_names': {'image_tag': 'image_pull_tag'}})
    assert kind is AnsibleFailJson
    (item,) = result['violations']
    assert item['variable'] == 'image_pull_tag'
    assert item['fix'] == 'set image_pull_tag so that the image tag is v0.23.0rc1-310p or newer'


def test_summary_format():
    text = summary([
        {'variable': 'a', 'value': 'x', 'rule': 'r1', 'fix': 'f1'},
        {'variable': 'b', 'value': [1, 2], 'rule': 'r2', 'fix': 'f2'},
        {'variable': 'c', 'value': None, 'rule': 'r3', 'fix': 'f3'},
    ])
    assert text == '3 configuration problem(s): a=x: r1; b=[1, 2]: r2; c=null: r3'
