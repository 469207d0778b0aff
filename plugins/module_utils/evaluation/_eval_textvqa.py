# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""textvqa for the builtin runner: the dataset as AISBench keeps it, the request it sends, its scoring.

Pure functions, no I/O except reading the dataset directory on the controller. The prompt and the
scoring follow AISBench's textvqa_gen_base64 config and TEXTEvaluator (ais_bench/benchmark/datasets/
textvqa.py, Apache-2.0): the standard VQA accuracy, min(1, matches among the other nine answers / 3)
averaged over the ten annotators, after VQA answer normalisation.
"""

from __future__ import annotations

import base64
import json
import os
import re

from ansible_collections.ascend.vllm.plugins.module_utils.evaluation._eval import jsonl_rows
QUESTIONS = 'textvqa_json/textvqa_val.jsonl'
ANNOTATIONS = 'textvqa_json/textvqa_val_annotations.json'
PROMPT = '{question} Answer the question using a single word or phrase.'
# The builtin runner hands the images to the node inside the module arguments: keep them small.
MAX_IMAGE_BYTES = 64 * 1024 * 1024

CONTRACTIONS = {
    "'ow'sat": "'ow's'at", "'ows'at": "'ow's'at", "I'dve": "I'd've", "Id've": "I'd've", 'Im': "I'm", 'Ive': "I've",
    'aint': "ain't", 'arent': "aren't", 'cant': "can't", "couldn'tve": "couldn't've", 'couldnt': "couldn't",
    "couldnt've": "couldn't've", 'couldve': "could've", 'didnt': "didn't", 'doesnt': "doesn't", 'dont': "don't",
    "hadn'tve": "hadn't've", 'hadnt': "hadn't", "hadnt've": "hadn't've", 'hasnt': "hasn't", 'havent': "haven't",
    "he'dve": "he'd've", 'hed': "he'd", "hed've": "he'd've", 'hes': "he's", 'howd': "how'd", 'howll': "how'll",
    'hows': "how's", 'isnt': "isn't", "it'dve": "it'd've", 'itd': "it'd", "itd've": "it'd've", 'itll': "it'll",
    "let's": "let's", 'maam': "ma'am", "mightn'tve": "mightn't've", 'mightnt': "mightn't",
    "mightnt've": "mightn't've", 'mightve': "might've", 'mustnt': "mustn't", 'mustve': "must've",
    'neednt': "needn't", 'notve': "not've", 'oclock': "o'clock", 'oughtnt': "oughtn't", "ow's'at": "'ow's'at",
    'shant': "shan't", "she'dve": "she'd've", "she's": "she's", "shed've": "she'd've",
    "shouldn'tve": "shouldn't've", 'shouldnt': "shouldn't", "shouldnt've": "shouldn't've", 'shouldve': "should've",
    "somebody'd": 'somebodyd', "somebody'dve": "somebody'd've", "somebodyd've": "somebody'd've",
    'somebodyll': "somebody'll", 'somebodys': "somebody's", "someone'dve": "someone'd've", 'someoned': "someone'd",
    "someoned've": "someone'd've", 'someonell': "someone'll", 'someones': "someone's",
    "something'dve": "something'd've", 'somethingd': "something'd", "somethingd've": "something'd've",
    'somethingll': "something'll", 'thats': "that's", "there'dve": "there'd've", 'thered': "there'd",
    "thered've": "there'd've", 'therere': "there're", 'theres': "there's", "they'dve": "they'd've",
    'theyd': "they'd", "theyd've": "they'd've", 'theyll': "they'll", 'theyre': "they're", 'theyve': "they've",
    'twas': "'twas", 'wasnt': "wasn't", "we'dve": "we'd've", "wed've": "we'd've", 'werent': "weren't",
    'weve': "we've", 'whatll': "what'll", 'whatre': "what're", 'whats': "what's", 'whatve': "what've",
    'whens': "when's", 'whered': "where'd", 'wheres': "where's", 'whereve': "where've", "who'dve": "who'd've",
    'whod': "who'd", "whod've": "who'd've", 'wholl': "who'll", 'whos': "who's", 'whove': "who've",
    'whyll': "why'll", 'whyre': "why're", 'whys': "why's", 'wont': "won't", "wouldn'tve": "wouldn't've",
    'wouldnt': "wouldn't", "wouldnt've": "wouldn't've", 'wouldve': "would've", "y'all'dve": "y'all'd've",
    "y'alld've": "y'all'd've", "y'allll": "y'all'll", 'yall': "y'all", "yall'd've": "y'all'd've",
    "yall'll": "y'all'll", "you'dve": "you'd've", 'youd': "you'd", "youd've": "you'd've", 'youll': "you'll",
    'youre': "you're", 'youve': "you've"
}
MANUAL_MAP = {'none': '0', 'zero': '0', 'one': '1', 'two': '2', 'three': '3', 'four': '4', 'five': '5', 'six': '6',
              'seven': '7', 'eight': '8', 'nine': '9', 'ten': '10'}
ARTICLES = ('a', 'an', 'the')
PUNCT = (';', r'/', '[', ']', '"', '{', '}', '(', ')', '=', '+', '\\', '_', '-', '>', '<', '@', '`', ',', '?', '!')
SPECIAL_TOKENS = ('☞', '☟', '☜', '<unk>', '<|im_end|>', '<|endoftext|>')
PERIOD_STRIP = re.compile(r'(?!<=\d)(\.)(?!\d)')
COMMA_STRIP = re.compile(r'(\d)(,)(\d)')


def process_punctuation(text):
    out = text
    for mark in PUNCT:
        out = out.replace(mark, '' if mark + ' ' in text or ' ' + mark in text or re.search(COMMA_STRIP, text) else ' ')
    # AISBench passes re.UNICODE as the count argument of sub (a quirk kept for equal scores).
    return PERIOD_STRIP.sub('', out, re.UNICODE)


def process_digit_article(text):
    words = (MANUAL_MAP.get(word, word) for word in text.lower().split())
    return ' '.join(CONTRACTIONS.get(word, word) for word in words if word not in ARTICLES)


def normalise_prediction(text):
    """AISBench TEXTEvaluator's cleaning of a reply before it is compared."""
    text = str(text or '').replace('\n', ' ').replace('\t', ' ').strip()
    for token in SPECIAL_TOKENS:
        text = text.replace(token, '')
    return process_digit_article(process_punctuation(text))


def vqa_accuracy(prediction, answers):
    """The accuracy (0..1) of one reply against the annotators' answers, exactly as AISBench's TEXTEvaluator.

    answers: the annotation's answer entries (dicts with 'answer', or plain strings). Like AISBench, each
    annotator's reply is compared with the others that are not equal to it as a whole entry: annotations whose
    entries carry only the answer text therefore never match their own duplicates.
    """
    pred = normalise_prediction(prediction)
    gold = [dict(a) if isinstance(a, dict) else {'answer': str(a)} for a in answers]
    if len(set(str(a.get('answer')) for a in gold)) > 1:
        for entry in gold:
            entry['answer'] = process_punctuation(str(entry.get('answer')))
    scores = [min(1.0, sum(1 for other in gold if other != entry and other.get('answer') == pred) / 3.0)
              for entry in gold]
    return sum(scores) / len(scores) if scores else 0.0


def textvqa_score(items, replies):
    """{'accuracy', 'correct', 'total', 'details'}; correct counts the questions scoring above 0.5 (as AISBench)."""
    scores = [vqa_accuracy(reply if reply is not None else '', item['answers']) for item, reply in zip(items, replies)]
    details = [{'question_id': item['question_id'], 'question': item['question'], 'pred': (reply or '').strip(),
                'score': round(score, 4), 'correct': score > 0.5} for item, reply, score in zip(items, replies, scores)]
    total = len(details)
    return {'accuracy': 100.0 * sum(scores) / total if total else 0.0,
            'correct': sum(1 for d in details if d['correct']), 'total': total, 'details': details}


def load_textvqa(path, limit=None):
    """[{'question_id', 'question', 'answers', 'image'}] from a textvqa directory, the image as base64.

    Image paths in textvqa_val.jsonl are absolute or relative to the directory. Raises ValueError naming the
    file and line of a bad row, a question without annotations, or images too big to hand to the node.
    """
    with open(os.path.join(path, ANNOTATIONS)) as handle:
        gold = dict((a.get('question_id'), a.get('answers') or []) for a in json.load(handle).get('annotations') or [])
    items, size = [], 0
    for number, (qid, image, question) in jsonl_rows(path, QUESTIONS, 'textvqa row ({"question_id", "question", "image"})',
                                                     lambda row: (row['question_id'], row['image'], str(row['question']))):
        if qid not in gold:
            raise ValueError('%s line %d: question %s has no answers in %s' % (QUESTIONS, number, qid, ANNOTATIONS))
        with open(image if os.path.isabs(image) else os.path.join(path, image), 'rb') as pic:
            data = pic.read()
        size += len(data)
        if size > MAX_IMAGE_BYTES:
            raise ValueError('the first %d questions\' images exceed %d MB, more than the builtin runner hands '
                             'to a node' % (len(items) + 1, MAX_IMAGE_BYTES // (1024 * 1024)))
        items.append({'question_id': qid, 'question': question, 'answers': gold[qid],
                      'image': base64.b64encode(data).decode('ascii')})
        if limit and len(items) >= limit:
            break
    return items


def textvqa_content(item):
    """The user turn AISBench's textvqa_gen_base64 sends: the image, then the question."""
    return [{'type': 'image_url', 'image_url': {'url': 'data:image/jpeg;base64,' + item['image']}},
            {'type': 'text', 'text': PROMPT.format(question=item['question'])}]
