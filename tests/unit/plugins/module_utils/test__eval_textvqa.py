# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""textvqa for the builtin runner: loading AISBench's layout, the request, and scoring equal to AISBench's."""

import base64
import json

import pytest

from ansible_collections.ascend.vllm.plugins.module_utils.evaluation import _eval_textvqa as T

# (reply, annotators' answers, AISBench 3.1.20260630 TEXTEvaluator accuracy with answer-only entries, and with
# entries carrying answer_id as textvqa's annotations do). Computed by running AISBench's own evaluator.
CASES = [
    ('Stop.', ['stop'] * 10, 0.0, 100.0),
    ('the stop', ['stop'] * 2 + ['go'] * 8, 53.333333333333336, 60.0),
    ('two', ['2'] * 10, 0.0, 100.0),
    ('Coca-Cola', ['coca cola'] * 5 + ['coca-cola'] * 5, 0.0, 100.0),
    ('dont', ["don't"] * 4 + ['do not'] * 6, 60.0, 100.0),
    ('nine.', ['9'] * 3 + ['nine'] * 7, 70.0, 90.0),
    ('A dog', ['dog'] * 9 + ['cat'], 10.0, 100.0),
]


@pytest.mark.parametrize('reply, gold, plain, with_ids', CASES)
def test_vqa_accuracy_equals_aisbenchs(reply, gold, plain, with_ids):
    assert 100 * T.vqa_accuracy(reply, [{'answer': a} for a in gold]) == pytest.approx(plain)
    assert 100 * T.vqa_accuracy(reply, [{'answer': a, 'answer_id': i} for i, a in enumerate(gold)]) == \
        pytest.approx(with_ids)


def test_normalise_prediction():
    assert T.normalise_prediction('<unk>The  Two\tdogs!') == '2 dogs'
    assert T.normalise_prediction('isnt it') == "isn't it"


def test_score_counts_above_half_as_correct():
    items = [{'question_id': 1, 'question': 'q1', 'answers': [{'answer': 'stop', 'answer_id': i} for i in range(10)]},
             {'question_id': 2, 'question': 'q2', 'answers': [{'answer': 'go', 'answer_id': i} for i in range(10)]}]
    out = T.textvqa_score(items, ['Stop', None])
    assert (out['accuracy'], out['correct'], out['total']) == (50.0, 1, 2)
    assert [d['score'] for d in out['details']] == [1.0, 0.0]


def _dataset(tmp_path, rows, annotations, image=b'\x89PNG'):
    (tmp_path / 'textvqa_json').mkdir()
    (tmp_path / 'img.png').write_bytes(image)
    (tmp_path / 'textvqa_json' / 'textvqa_val.jsonl').write_text(''.join(json.dumps(r) + '\n' for r in rows))
    (tmp_path / 'textvqa_json' / 'textvqa_val_annotations.json').write_text(json.dumps({'annotations': annotations}))
    return str(tmp_path)


def test_load_textvqa_reads_questions_answers_and_images(tmp_path):
    path = _dataset(tmp_path, [{'question_id': 5, 'question': 'What?', 'image': 'img.png'},
                               {'question_id': 6, 'question': 'Who?', 'image': str(tmp_path / 'img.png')}],
                    [{'question_id': 5, 'answers': [{'answer': 'a'}]}, {'question_id': 6, 'answers': [{'answer': 'b'}]}])
    items = T.load_textvqa(path)
    assert [(i['question_id'], i['question'], i['answers']) for i in items] == [
        (5, 'What?', [{'answer': 'a'}]), (6, 'Who?', [{'answer': 'b'}])]
    assert base64.b64decode(items[0]['image']) == b'\x89PNG'
    assert len(T.load_textvqa(path, limit=1)) == 1


def test_load_textvqa_names_a_question_without_answers(tmp_path):
    path = _dataset(tmp_path, [{'question_id': 5, 'question': 'What?', 'image': 'img.png'}], [])
    with pytest.raises(ValueError, match='line 1: question 5 has no answers in textvqa_json/textvqa_val_annotations'):
        T.load_textvqa(path)


def test_load_textvqa_refuses_too_many_image_bytes(tmp_path, monkeypatch):
    monkeypatch.setattr(T, 'MAX_IMAGE_BYTES', 10)
    path = _dataset(tmp_path, [{'question_id': 5, 'question': 'What?', 'image': 'img.png'}] * 3,
                    [{'question_id': 5, 'answers': []}], image=b'0123456')
    with pytest.raises(ValueError, match="the first 2 questions' images exceed"):
        T.load_textvqa(path)


def test_content_is_the_image_then_aisbenchs_prompt():
    image, text = T.textvqa_content({'question': 'What is on the sign?', 'image': 'QUJD'})
    assert image == {'type': 'image_url', 'image_url': {'url': 'data:image/jpeg;base64,QUJD'}}
    assert text == {'type': 'text', 'text': 'What is on the sign? Answer the question using a single word or phrase.'}
