# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The vllm_config action plugin: the module's result, planned on the controller, no node contacted."""

import json
import os
import subprocess
import sys


import pytest

from ansible_collections.ascend.vllm.plugins.action.vllm_config import ActionModule
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.planner import plan, summary, task_result
from moduleargs import run_controller_action  # noqa: E402 pylint: disable=wrong-import-position

GUIDE = {'platform': 'atlas_300i_duo', 'model': 'Qwen/Qwen3.5-2B', 'tensor_parallel_size': 1,
         'max_model_len': 16384, 'max_num_seqs': 32}
# A model outside the catalog whose guide_defaults differ from the catalog's in every field.
ACME_SPEC = {
    'num_hidden_layers': 24, 'full_attention_interval': 4, 'num_attention_heads': 8, 'num_key_value_heads': 2,
    'head_dim': 256, 'linear_num_key_heads': 16, 'linear_num_value_heads': 16, 'linear_key_head_dim': 128,
    'linear_value_head_dim': 128, 'linear_conv_kernel_dim': 4, 'hidden_size': 2048, 'vocab_size': 248320,
    'tie_word_embeddings': True, 'num_parameters': 2270000000, 'mtp_num_layers': 1,
    'max_position_embeddings': 262144, 'min_image_tag': 'v0.23.0rc1-310p',
    'guide_defaults': {'max_num_seqs': 8, 'gpu_memory_utilization': 0.8, 'served_model_name': 'acme',
                       'num_speculative_tokens': 0},
}


def run_action(args, check_mode=False):
    """The action plugin as the task executor runs it, over a connection that fails on any use."""
    return run_controller_action(ActionModule, 'ascend.vllm.vllm_config', args, check_mode=check_mode)


CASES = {
    'guide': GUIDE,
    'guide with strings': dict(GUIDE, max_model_len='16k', tensor_parallel_size='1', port='8000'),
    'tp2 trimmed': {'platform': 'atlas_300i_duo', 'model': 'Qwen/Qwen3.5-9B', 'tensor_parallel_size': 2,
                    'cudagraph_batch_sizes': [1, 2, 4, 8], 'cudagraph_trim': True, 'max_model_len': '32K'},
    'four violations': {'platform': 'atlas_200i_pro', 'model': 'Qwen/Qwen3.5-9B', 'dtype': 'bfloat16',
                        'tensor_parallel_size': 2, 'cudagraph_batch_sizes': [1, 2, 4, 8],
                        'max_model_len': 262144, 'var_prefix': 'vllm_serve_'},
    'unknown platform': {'platform': 'atlas_900', 'model': 'Qwen/Qwen3.5-2B', 'max_model_len': 16384,
                         'var_names': {'platform': 'ascend_vllm_platform'}},
    'model_spec guide_defaults': {'platform': 'atlas_300i_duo', 'model': 'acme/Dense', 'model_spec': ACME_SPEC,
                                  'max_model_len': 8192},
    'inventory platform': {'platform': 'atlas_300i_pro', 'model': 'Qwen/Qwen3.5-4B', 'max_model_len': 16384,
                           'platform_spec': {'based_on': 'atlas_300i_duo', 'chip_memory_mb': 21500,
                                             'chips_per_card': 1, 'allowed_tp': [1]}},
    'missing max_model_len': {'platform': 'atlas_300i_duo', 'model': 'Qwen/Qwen3.5-2B'},
}


@pytest.mark.parametrize('check_mode', [False, True], ids=['run', 'check'])
@pytest.mark.parametrize('name', sorted(CASES))
def test_action_returns_the_plan_as_the_task_result(name, check_mode):
    """The module runs nowhere but here: what a task gets is the planner's result, failed with its summary line
    when a rule is broken, with its warnings as the task's."""
    result = run_action(CASES[name], check_mode=check_mode)
    result.pop('invocation', None)
    direct = plan(dict(CASES[name]))
    expected = task_result(direct)
    if direct['violations']:
        expected.update(failed=True, msg=summary(direct['violations']))
    if direct['warnings']:
        expected['warnings'] = list(direct['warnings'])
    for key, value in expected.items():
        if key not in ('warnings',):
            assert result[key] == value, key
    assert result.get('warnings', []) == expected.get('warnings', [])
    assert result['changed'] is False


def test_violations_fail_with_the_summary_line():
    result = run_action(CASES['four violations'])
    assert result['failed'] is True and result['changed'] is False
    assert result['msg'].startswith('4 configuration problem(s): vllm_serve_dtype=bfloat16: ')
    assert [item['variable'] for item in result['violations']] == [
        'vllm_serve_dtype', 'vllm_serve_tensor_parallel_size', 'vllm_serve_cudagraph_batch_sizes',
        'vllm_serve_max_model_len']
    assert 'argv' not in result and result['memory']['fits'] is False


def test_success_carries_the_plan_and_its_warnings():
    result = run_action(GUIDE)
    assert 'failed' not in result and result['changed'] is False
    direct = plan(GUIDE)
    for key in ('argv', 'command', 'env', 'settings', 'profile', 'memory', 'model', 'image', 'api_key_env',
                'violations', 'cudagraph_capture_sizes'):
        assert result[key] == direct[key], key
    assert result['config_warnings'] == direct['warnings'] == result['warnings']
    assert len(result['warnings']) == 1 and 'run without a graph' in result['warnings'][0]


def test_guide_defaults_of_a_model_spec_apply():
    result = run_action(CASES['model_spec guide_defaults'])
    assert result['settings']['max_num_seqs'] == 8
    assert result['settings']['gpu_memory_utilization'] == 0.8
    assert result['settings']['served_model_name'] == 'acme'
    assert '--speculative-config' not in result['argv']


def test_api_key_stays_out_of_the_result():
    result = run_action(dict(GUIDE, api_key='not-in-output'))
    assert result['api_key_env'] == 'VLLM_API_KEY'
    assert 'not-in-output' not in json.dumps(result)


@pytest.mark.parametrize('args,expected', [
    ({'model': 'Qwen/Qwen3.5-2B', 'max_model_len': 16384}, 'missing required arguments: platform'),
    (dict(GUIDE, max_len=1), 'Unsupported parameters for (ascend.vllm.vllm_config) module: max_len.'),
    (dict(GUIDE, cudagraph_trim='sometimes'), "cudagraph_trim"),
])
def test_argument_errors_fail_with_ansibles_own_wording(args, expected):
    action = run_action(args)
    assert action['failed'] is True
    assert expected in action['msg']


def test_plans_for_a_host_that_cannot_be_reached(tmp_path):
    """ansible -m ascend.vllm.vllm_config against an SSH host at a documentation address (RFC 5737)."""
    ansible = os.path.join(os.path.dirname(sys.executable), 'ansible')
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..', '..'))
    inventory = tmp_path / 'inventory.yml'
    inventory.write_text('all:\n  hosts:\n    far:\n      ansible_host: 203.0.113.1\n'
                         '      ansible_connection: ssh\n      ansible_ssh_timeout: 5\n')
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(root, 'ansible.cfg'), ANSIBLE_STDOUT_CALLBACK='json',
               ANSIBLE_LOAD_CALLBACK_PLUGINS='1', ANSIBLE_NOCOLOR='1')
    proc = subprocess.run(
        [ansible, 'far', '-i', str(inventory), '-m', 'ascend.vllm.vllm_config', '--check',
         '-a', json.dumps({'platform': 'atlas_300i_duo', 'model': 'Qwen/Qwen3.5-2B', 'max_model_len': 16384})],
        cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (task,) = json.loads(proc.stdout)['plays'][0]['tasks']
    host = task['hosts']['far']
    assert host.get('unreachable') is not True
    assert host['argv'][:3] == ['vllm', 'serve', 'Qwen/Qwen3.5-2B']
    assert host['settings']['max_num_seqs'] == 32
