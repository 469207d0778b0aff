# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Reference table, input checks, gsm8k scoring as AISBench does it, the gate and the percentiles."""

import json

import pytest

from ansible_collections.ascend.vllm.plugins.module_utils._problem import problem
from ansible_collections.ascend.vllm.plugins.module_utils.evaluation import _eval
from ansible_collections.ascend.vllm.plugins.plugin_utils.evaluation import _eval_inputs

GOOD = {
    'eval_tolerance': 2.0, 'eval_runner': 'builtin', 'eval_performance': True, 'eval_concurrency': [1, 4],
    'eval_batch_size': 16, 'eval_max_out_len': 4096, 'eval_perf_requests': 8, 'eval_perf_input_len': 32,
    'eval_perf_output_len': 16, 'eval_request_timeout': 60, 'eval_limit': None, 'eval_accuracy': True,
    'eval_datasets': ['gsm8k'], 'eval_dataset_dirs': {}, 'eval_report_dir': 'eval-results',
}


@pytest.fixture
def gsm8k_dir(tmp_path):
    rows = [{'question': 'Two plus two?', 'answer': 'Add.\n#### 4'},
            {'question': 'Big?', 'answer': 'Many.\n#### 1,200'}]
    (tmp_path / 'test.jsonl').write_text(''.join(json.dumps(r) + '\n' for r in rows))
    return str(tmp_path)


@pytest.mark.parametrize('model, dataset, expected', [
    ('Qwen/Qwen3.5-2B', 'gsm8k', 77.71), ('/models/qwen3.5-4b/', 'gsm8k', 93.18), ('Qwen3.5-9B', 'gsm8k', 95.30),
    ('Qwen/Qwen3.5-2B', 'textvqa', 76.09), ('Qwen/Qwen3.5-4B', 'textvqa', 79.08), ('Qwen/Qwen3.5-9B', 'textvqa', 82.33),
    ('Qwen/Qwen3-0.6B', 'gsm8k', None), ('Qwen/Qwen3.5-2B', 'mmlu', None),
])
def test_reference_table(model, dataset, expected):
    assert _eval.reference_for(model, dataset) == expected


def test_inventory_references_add_and_override():
    extra = {'Qwen/Qwen3-0.6B': {'gsm8k': 60.0}, 'Qwen3.5-2B': {'gsm8k': 70.0}}
    assert _eval.reference_for('Qwen/Qwen3-0.6B', 'gsm8k', extra) == 60.0
    assert _eval.reference_for('Qwen/Qwen3.5-2B', 'gsm8k', extra) == 70.0
    assert _eval.reference_for('Qwen/Qwen3.5-2B', 'textvqa', extra) == 76.09


def test_good_inputs_have_no_problem(gsm8k_dir):
    assert _eval_inputs.input_problems(dict(GOOD, eval_dataset_dirs={'gsm8k': gsm8k_dir})) == []


@pytest.mark.parametrize('runner', ['builtin', 'aisbench'])
def test_textvqa_needs_its_question_file(runner, gsm8k_dir):
    (found,) = _eval_inputs.input_problems(dict(GOOD, eval_runner=runner, eval_datasets=['textvqa'],
                                                eval_dataset_dirs={'textvqa': gsm8k_dir}))
    assert found['msg'] == 'eval_dataset_dirs.textvqa=%s: textvqa_json/textvqa_val.jsonl is missing there' % gsm8k_dir
    assert 'textvqa_val_annotations.json' in found['fix']


@pytest.mark.parametrize('change, check, words', [
    ({'eval_datasets': ['mmlu']}, 'eval_datasets', ["unknown dataset 'mmlu'", 'gsm8k']),
    ({'eval_dataset_dirs': {'gsm8k': '/no/such/dir'}}, 'eval_dataset_dirs',
     ['eval_dataset_dirs.gsm8k=/no/such/dir', 'no such directory', 'test.jsonl']),
    ({'eval_dataset_dirs': {}}, 'eval_dataset_dirs', ['eval_dataset_dirs.gsm8k is not set']),
    ({'eval_tolerance': 101}, 'eval_tolerance', ['eval_tolerance=101', '0 to 100']),
    ({'eval_tolerance': -1}, 'eval_tolerance', ['eval_tolerance=-1']),
    ({'eval_tolerance': 'loose'}, 'eval_tolerance', ["eval_tolerance='loose'"]),
    ({'eval_concurrency': [0, 4]}, 'eval_concurrency', ['eval_concurrency=[0, 4]']),
    ({'eval_concurrency': []}, 'eval_concurrency', ['eval_concurrency=[]']),
    ({'eval_runner': 'opencompass'}, 'eval_runner', ["eval_runner='opencompass'"]),
    ({'eval_batch_size': 0}, 'eval_batch_size', ['eval_batch_size=0']),
    ({'eval_limit': 0}, 'eval_limit', ['eval_limit=0']),
    ({'eval_accuracy': False, 'eval_performance': False}, 'eval_accuracy', ['nothing to evaluate']),
    ({'eval_report_dir': ''}, 'eval_report_dir', ["eval_report_dir=''", 'where ansible-playbook runs']),
    ({'eval_report_dir': None}, 'eval_report_dir', ['eval_report_dir=None']),
])
def test_bad_inputs_name_variable_value_and_fix(change, check, words, gsm8k_dir):
    settings = dict(GOOD, eval_dataset_dirs={'gsm8k': gsm8k_dir, 'textvqa': gsm8k_dir})
    settings.update(change)
    problems = [p for p in _eval_inputs.input_problems(settings) if not p['msg'].startswith('eval_dataset_dirs.textvqa')]
    assert [p['check'] for p in problems] == [check], problems
    for word in words:
        assert word in problems[0]['msg'] + ' ' + problems[0]['fix']
    assert problems[0]['fix']


def test_missing_test_file_is_named(tmp_path):
    problems = _eval_inputs.input_problems(dict(GOOD, eval_dataset_dirs={'gsm8k': str(tmp_path)}))
    assert len(problems) == 1 and 'test.jsonl is missing' in problems[0]['msg']


def test_plots_need_matplotlib(gsm8k_dir):
    problems = _eval_inputs.input_problems(dict(GOOD, eval_dataset_dirs={'gsm8k': gsm8k_dir}), plots_available=False)
    assert [p['check'] for p in problems] == ['eval_performance'] and 'matplotlib' in problems[0]['fix']


def test_load_gsm8k_takes_the_gold_number(gsm8k_dir):
    assert _eval.load_gsm8k(gsm8k_dir) == [{'question': 'Two plus two?', 'answer': '4'},
                                           {'question': 'Big?', 'answer': '1200'}]
    assert len(_eval.load_gsm8k(gsm8k_dir, limit=1)) == 1


def test_load_gsm8k_names_a_bad_line(tmp_path):
    (tmp_path / 'test.jsonl').write_text('{"question": "q", "answer": "no marker"}\n')
    with pytest.raises(ValueError, match='line 1'):
        _eval.load_gsm8k(str(tmp_path))


@pytest.mark.parametrize('reply, pred', [
    ('So 3 + 4 = 7.\nanswer:7', '7'),
    ('It costs -2.5 dollars', '-2.5'),
    ('<think>maybe 9</think>The answer is 8', '8'),
    ('reasoning 9</think> answer:10', '10'),
    ('answer:12\n\nQuestion: what about 99?', '12'),
    ('no number here', 'NULL'),
    ('1,200 apples', '200'),  # AISBench's regex takes no thousands separators
])
def test_gsm8k_extract_as_aisbench(reply, pred):
    assert _eval.gsm8k_extract(reply) == pred


@pytest.mark.parametrize('pred, gold, equal', [
    ('7', '7', True), ('7.0', '7', True), ('7.5', '7', False), ('NULL', '7', False), ('8', '7', False),
])
def test_gsm8k_equal_as_aisbench(pred, gold, equal):
    assert _eval.gsm8k_equal(pred, gold) is equal


def test_gsm8k_score_three_of_four():
    items = [{'question': 'q%d' % i, 'answer': str(i)} for i in range(4)]
    result = _eval.gsm8k_score(items, ['answer:0', 'answer:1', 'answer:2', 'answer:5'])
    assert (result['accuracy'], result['correct'], result['total']) == (75.0, 3, 4)
    assert [d['correct'] for d in result['details']] == [True, True, True, False]
    assert _eval.gsm8k_score(items[:1], [None])['accuracy'] == 0.0


def test_prompt_is_aisbenchs_zero_shot_cot_chat_prompt():
    prompt = _eval.gsm8k_prompt('What is 2+2?')
    assert prompt.startswith('Answer the following question.The last line of the response')
    assert prompt.endswith("Let's think step by step.\n\nQuestion: What is 2+2?")


@pytest.mark.parametrize('score, tolerance, fails', [(75.0, 5.0, False), (75.0, 2.0, True), (77.71, 0, False)])
def test_gate(score, tolerance, fails):
    msg = _eval.gate('node1', 'a', 'gsm8k', score, 77.71, tolerance)
    assert (msg is not None) is fails
    if fails:
        for word in ('node1/a', 'gsm8k', '75.00', '77.71', 'eval_tolerance=2.0', 'floor 75.71'):
            assert word in msg


def test_no_reference_no_gate():
    assert _eval.gate('h', 'a', 'gsm8k', 1.0, None, 0) is None


def test_percentile_matches_numpy_linear():
    assert _eval.percentile([1, 2, 3, 4], 50) == 2.5
    assert _eval.percentile([1, 2, 3, 4], 90) == pytest.approx(3.7)
    assert _eval.percentile([5], 99) == 5
    assert _eval.percentile([], 50) is None


def test_level_summary():
    records = [{'ok': True, 'ttft': 0.1, 'tpot': 0.01, 'latency': 0.5, 'input_tokens': 10, 'output_tokens': 40},
               {'ok': True, 'ttft': 0.3, 'tpot': 0.03, 'latency': 1.5, 'input_tokens': 10, 'output_tokens': 40},
               {'ok': False, 'error': 'HTTP 500'}]
    level = _eval.level_summary(4, records, 2.0)
    assert (level['requests'], level['failed'], level['output_throughput'], level['request_throughput']) == (3, 1, 40.0, 1.0)
    assert level['ttft_ms'] == {'mean': 200.0, 'p50': 200.0, 'p90': 280.0, 'p99': 298.0}
    assert level['tpot_ms']['p50'] == 20.0


def test_problems_report():
    text = _eval.problems_report([problem('eval_tolerance', 'eval_tolerance=101: bad.', 'use 2')], 'n1')
    assert text == ('1 evaluation problem(s) on n1; no request was sent to any instance:\n'
                    '- [eval_tolerance] eval_tolerance=101: bad. Fix: use 2\n')


def test_aisbench_model_config_has_the_guides_keys():
    text = _eval.aisbench_model_config('n1/a', {'port': 8081, 'served': 'qwen3.5', 'model': 'Qwen/Qwen3.5-2B'},
                                       '127.0.0.1', 4096, 16)
    scope = {}
    exec(compile(text.replace('from ais_bench', '# from ais_bench'), 'cfg', 'exec'),  # pylint: disable=exec-used
         {'VLLMCustomAPIChat': 'VLLMCustomAPIChat', 'extract_non_reasoning_content': 'x'}, scope)
    model = scope['models'][0]
    expected = (8081, 'qwen3.5', 'Qwen/Qwen3.5-2B', '127.0.0.1')
    assert (model['host_port'], model['model'], model['path'], model['host_ip']) == expected
    assert (model['max_out_len'], model['batch_size'], model['attr']) == (4096, 16, 'service')
    assert model['generation_kwargs'] == {'temperature': 0.0, 'ignore_eos': False,
                                          'chat_template_kwargs': {'enable_thinking': False}}


@pytest.mark.parametrize('path, cwd, expected', [
    # A relative path is taken from where ansible-playbook was run, not from the playbook's directory.
    ('eval-results', '/home/op/site', '/home/op/site/eval-results'),
    ('../reports/./x', '/home/op/site', '/home/op/reports/x'),
    ('/srv/eval', '/home/op/site', '/srv/eval'),
])
def test_report_dir_is_taken_from_the_controllers_working_directory(path, cwd, expected):
    assert _eval.report_dir(path, cwd) == expected


def test_report_dir_expands_the_home_directory(monkeypatch):
    monkeypatch.setenv('HOME', '/home/op')
    assert _eval.report_dir('~/eval', '/elsewhere') == '/home/op/eval'
