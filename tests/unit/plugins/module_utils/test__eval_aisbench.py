# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The AISBench runner: installation and dataset-layout checks, the configs it writes, reading its outputs."""

import ast
import json
import os

from ansible_collections.ascend.vllm.plugins.module_utils.evaluation import _eval_aisbench as A

TARGET = {'host': '10.0.0.11', 'port': 8081, 'served': 'qwen3.5', 'model': 'Qwen/Qwen3.5-2B'}
SETTINGS = {'max_out_len': 4096, 'batch_size': 16, 'limit': None, 'api_key': None, 'concurrency': [1, 4],
            'output_len': 64}


def test_default_venv_is_keyed_by_the_pinned_version():
    assert A.default_venv('/home/op') == '/home/op/.cache/ascend-vllm/aisbench-3.1.20260630'
    assert A.default_venv('/home/op', '/xdg') == '/xdg/ascend-vllm/aisbench-3.1.20260630'


def _venv(tmp_path, marker=A.AISBENCH_VERSION):
    (tmp_path / 'bin').mkdir(parents=True)
    (tmp_path / 'bin' / 'ais_bench').write_text('#!/bin/sh\n')
    if marker is not None:
        (tmp_path / A.READY_MARKER).write_text(marker + '\n')
    return str(tmp_path)


def test_venv_missing_names_the_install_command(tmp_path):
    (found,) = A.venv_problems(str(tmp_path / 'none'))
    assert found['check'] == 'eval_aisbench_venv'
    assert 'AISBench 3.1.20260630 is not installed there' in found['msg']
    assert found['fix'].startswith('run on the controller: make aisbench')


def test_venv_half_installed_or_other_version_is_a_problem(tmp_path):
    assert A.venv_problems(_venv(tmp_path / 'a', marker=None))  # install interrupted: no marker
    (found,) = A.venv_problems(_venv(tmp_path / 'b', marker='3.1.20250101'))
    assert 'holds AISBench 3.1.20250101, the collection pins 3.1.20260630' in found['msg']
    assert A.venv_problems(_venv(tmp_path / 'c')) == []


def test_gsm8k_layout_needs_both_splits(tmp_path):
    (tmp_path / 'test.jsonl').write_text('{}\n')
    (found,) = A.layout_problems('gsm8k', str(tmp_path))
    assert found['check'] == 'eval_dataset_dirs'
    assert found['msg'].endswith('AISBench needs train.jsonl and test.jsonl there, missing: train.jsonl')
    (tmp_path / 'train.jsonl').write_text('{}\n')
    assert A.layout_problems('gsm8k', str(tmp_path)) == []


def test_textvqa_layout_checks_the_images_it_names(tmp_path):
    (tmp_path / 'textvqa_json').mkdir()
    (tmp_path / 'textvqa_json' / 'textvqa_val_annotations.json').write_text('{"annotations": []}')
    (tmp_path / 'textvqa_json' / 'textvqa_val.jsonl').write_text(
        json.dumps({'question_id': 7, 'question': 'What?', 'image': 'images/a.png'}) + '\n')
    (found,) = A.layout_problems('textvqa', str(tmp_path))
    assert 'image images/a.png of question 7 is missing' in found['msg']
    (tmp_path / 'images').mkdir()
    (tmp_path / 'images' / 'a.png').write_bytes(b'png')
    assert A.layout_problems('textvqa', str(tmp_path)) == []
    rows = A.textvqa_files(str(tmp_path))['textvqa_json/textvqa_val.jsonl']
    assert json.loads(rows)['image'] == str(tmp_path / 'images' / 'a.png')


def test_accuracy_config_is_the_guides_model_block_with_local_datasets():
    text = A.accuracy_config('n1/a', TARGET, dict(SETTINGS, limit=50), {'gsm8k': '/data/gsm8k'})
    ast.parse(text)
    for key in ('type=VLLMCustomAPIChat', 'abbr=\'vllm-api-general-chat\'', "host_ip='10.0.0.11'", 'host_port=8081',
                "model='qwen3.5'", 'max_out_len=4096', 'batch_size=16', 'temperature=0.0', 'ignore_eos=False',
                '"enable_thinking": False', 'pred_postprocessor=dict(type=extract_non_reasoning_content)',
                'gsm8k_gen_0_shot_cot_chat_prompt import gsm8k_datasets',
                "path='/data/gsm8k', reader_cfg=dict(d[\"reader_cfg\"], test_range='[0:50]')",
                'summarizer = dict(attr="accuracy"'):
        assert key in text, key


def test_accuracy_config_points_textvqa_at_its_question_file():
    text = A.accuracy_config('n1/a', TARGET, SETTINGS, {'textvqa': '/data/textvqa'})
    ast.parse(text)
    assert "path='/data/textvqa/textvqa_json/textvqa_val.jsonl'" in text
    assert 'textvqa_gen_base64 import textvqa_datasets' in text


def test_perf_config_has_one_streaming_model_per_level():
    text = A.perf_config('n1/a', TARGET, SETTINGS, '/w/perf.jsonl', '/w/tok')
    ast.parse(text)
    assert text.count('type=VLLMCustomAPIChat') == 2
    assert "abbr='concurrency-1'" in text and "abbr='concurrency-4'" in text
    assert 'batch_size=1,' in text and 'batch_size=4,' in text
    assert text.count('stream=True') == 2 and text.count('ignore_eos=True') == 2 and 'max_out_len=64' in text
    assert "path='/w/tok'" in text and "path='/w/perf.jsonl'" in text
    assert 'DefaultPerfSummarizer' in text


def test_perf_dataset_rows():
    rows = [json.loads(line) for line in A.perf_dataset(3, 5, 7).splitlines()]
    assert len(rows) == 3 and all(len(r['question'].split()) == 5 and r['max_tokens'] == 7 for r in rows)
    assert len(set(r['question'] for r in rows)) == 3  # no two prompts alike (no prefix-cache shortcut)


def test_stand_in_tokenizer_files():
    files = A.stand_in_tokenizer()
    assert json.loads(files['tokenizer.json'])['model']['type'] == 'WordLevel'
    assert json.loads(files['tokenizer_config.json'])['tokenizer_class'] == 'PreTrainedTokenizerFast'


def _write(path, text):
    os.makedirs(os.path.dirname(str(path)), exist_ok=True)
    with open(str(path), 'w') as handle:
        handle.write(text)


def test_read_accuracy_takes_aisbenchs_score_and_verdicts(tmp_path):
    run = tmp_path / '20261201_010000'
    prompt = [{'role': 'HUMAN', 'prompt': 'Answer ... step by step.\n\nQuestion: Two plus two?'}]
    details = {'1': {'prompt': prompt, 'predictions': ['5'], 'references': ['4'], 'correct': [False]},
               '0': {'prompt': prompt, 'predictions': ['4'], 'references': ['4'], 'correct': [True]}}
    _write(run / 'results' / 'vllm-api-general-chat' / 'gsm8k.json', json.dumps({'accuracy': 50.0, 'details': details}))
    _write(run / 'results' / 'vllm-api-general-chat' / 'textvqa.json', json.dumps(
        {'accuracy': 60.0, 'details': [{'pred': 'stop', 'answer': [{'answer': 'stop'}], 'correct': True}]}))
    assert A.latest_run(str(tmp_path)) == str(run)
    out = A.read_accuracy(str(run))
    assert (out['gsm8k']['accuracy'], out['gsm8k']['correct'], out['gsm8k']['total']) == (50.0, 1, 2)
    assert [(d['pred'], d['answer'], d['correct']) for d in out['gsm8k']['details']] == [('4', '4', True),
                                                                                         ('5', '4', False)]
    assert out['gsm8k']['details'][0]['question'] == 'Two plus two?'
    assert (out['textvqa']['accuracy'], out['textvqa']['correct'], out['textvqa']['total']) == (60.0, 1, 1)


def test_read_accuracy_without_a_score_says_so(tmp_path):
    _write(tmp_path / 'results' / 'vllm-api-general-chat' / 'gsm8k.json', json.dumps({'error': 'length differs'}))
    try:
        A.read_accuracy(str(tmp_path))
    except ValueError as exc:
        assert 'AISBench scored gsm8k with no accuracy: length differs' in str(exc)
    else:
        raise AssertionError('no error')


PERF_CSV = '''Performance Parameters,Stage,Average,Min,Max,Median,P75,P90,P99,N
E2EL,total,30.2 ms,22.1 ms,77.0 ms,25.0 ms,27.0 ms,45.0 ms,73.0 ms,8
TTFT,total,2.9 ms,2.0 ms,7.5 ms,2.3 ms,2.4 ms,4.0 ms,7.1 ms,8
TPOT,total,2.1 ms,2.0 ms,2.5 ms,2.1 ms,2.2 ms,2.3 ms,2.4 ms,8
'''
PERF_JSON = {'Benchmark Duration': {'total': '1.5 s'}, 'Total Requests': {'total': 8},
             'Failed Requests': {'total': 1}, 'Request Throughput': {'total': '5.3333 req/s'},
             'Output Token Throughput': {'total': '64.0 token/s'}, 'Total Token Throughput': {'total': '170.5 token/s'}}


def test_read_performance_in_the_builtin_shape(tmp_path):
    for level in (1, 4):
        _write(tmp_path / 'performances' / ('concurrency-%d' % level) / 'perf.csv', PERF_CSV)
        _write(tmp_path / 'performances' / ('concurrency-%d' % level) / 'perf.json', json.dumps(PERF_JSON))
    levels = A.read_performance(str(tmp_path), [1, 4])
    assert [lv['concurrency'] for lv in levels] == [1, 4]
    first = levels[0]
    assert (first['requests'], first['failed'], first['duration_s']) == (8, 1, 1.5)
    assert (first['request_throughput'], first['output_throughput'], first['total_throughput']) == (5.3333, 64.0, 170.5)
    assert first['ttft_ms'] == {'mean': 2.9, 'p50': 2.3, 'p90': 4.0, 'p99': 7.1}
    assert first['tpot_ms']['p50'] == 2.1 and first['e2el_ms']['p99'] == 73.0


def test_units_to_milliseconds():
    assert A._ms('1.5 s') == 1500.0 and A._ms('250 us') == 0.25 and A._ms('2.5 ms') == 2.5 and A._ms('') is None


def test_failure_log_picks_the_error_lines(tmp_path):
    _write(tmp_path / 'logs' / 'infer' / 'vllm-api-general-chat' / 'gsm8k.out',
           'starting\nAISBenchConfigError: path is not accessible\nTask state is error\n')
    text = A.failure_log(str(tmp_path))
    assert 'gsm8k.out: AISBenchConfigError: path is not accessible | Task state is error' in text
    assert A.failure_log(None) == ''
