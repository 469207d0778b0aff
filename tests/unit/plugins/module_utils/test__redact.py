# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""_redact: no secret leaves a node in a diagnostics archive or a saved log.

The class-level test puts generated secrets in every place they turn up in (environment
entries, mapping keys, command lines, log text, JSON and Python reprs of all of those, nested),
known to the caller or not, and checks that none survives while what is not secret stays."""

import json
import random
import string

import pytest

from ansible_collections.ascend.vllm.plugins.module_utils._redact import (
    REDACTED, known_secrets, redact, redact_argv, redact_bytes, redact_text, secret_name, secret_values)

SECRET_NAMES = ['VLLM_API_KEY', 'API_KEY', 'OPENAI_API_KEY', 'HF_TOKEN', 'HUGGING_FACE_HUB_TOKEN', 'MODELSCOPE_TOKEN',
                'AWS_SECRET_ACCESS_KEY', 'DB_PASSWORD', 'REGISTRY_PASSWD', 'api_key', 'hf_token', 'token',
                'client_secret', 'SSH_PRIVATE_KEY', 'KEY_FILE_PASSWORD', 'GIT_CREDENTIALS']
PLAIN_NAMES = ['PATH', 'HOME', 'max_num_batched_tokens', 'num_speculative_tokens', 'max_tokens', 'KEEP_PREVIOUS',
               'ASCEND_RT_VISIBLE_DEVICES', 'model', 'served_model_name', 'LD_LIBRARY_PATH', 'SOC_VERSION']
SECRET_FLAGS = ['--api-key', '--hf-token', '--api_key', '--token']


@pytest.mark.parametrize('name', SECRET_NAMES + [f.lstrip('-') for f in SECRET_FLAGS])
def test_secret_names(name):
    assert secret_name(name)


@pytest.mark.parametrize('name', PLAIN_NAMES + ['', None, '--port', '--max-num-batched-tokens', 'monkeypatch'])
def test_plain_names(name):
    assert not secret_name(name)


def _secret(rng):
    alphabet = string.ascii_letters + string.digits + '-_.~+/'
    return rng.choice(['sk-', 'hf_', '', 'tok.']) + ''.join(rng.choice(alphabet) for _index in range(rng.randint(8, 40)))


def _places(rng, secret):
    """(place, value) pairs where a report might carry ``secret`` with a name that says it is one."""
    name, flag = rng.choice(SECRET_NAMES), rng.choice(SECRET_FLAGS)
    argv = ['vllm', 'serve', 'Qwen/Qwen3.5-2B', '--port', '8080', flag, secret, '--max-num-seqs', '4']
    env = ['PATH=/usr/bin', '%s=%s' % (name, secret), 'SOC_VERSION=ascend310p1']
    inspect = {'Config': {'Env': env, 'Cmd': argv, 'Labels': {'ascend.vllm.managed-by': 'ascend.vllm'}},
               'Args': ['%s=%s' % (flag, secret)], 'HostConfig': {'Binds': ['/root/.cache:/root/.cache']}}
    return [
        ('env list', env),
        ('argv', argv),
        ('argv =', ['vllm', 'serve', '%s=%s' % (flag, secret)]),
        ('mapping', {name: secret, 'model': 'Qwen/Qwen3.5-2B'}),
        ('mapping list', {name: [secret]}),
        ('inspect', inspect),
        ('inspect json text', json.dumps(inspect)),
        ('nested plan', {'instances': [{'name': 'a', 'options': {'env': {name: secret}, 'extra_args': argv}}]}),
        ('vllm args log', "(APIServer pid=7) INFO non-default args: {'model': 'Qwen', '%s': '%s', "
                          "'max_num_batched_tokens': 2048}" % (name.lower(), secret)),
        ('vllm args list log', "non-default args: {'%s': ['%s']}" % (name.lower(), secret)),
        ('shell line', 'docker run -e %s=%s image vllm serve m %s %s' % (name, secret, flag, secret)),
        ('yaml text', '%s: %s\nport: 8080\n' % (name, secret)),
        ('bearer', 'curl -H "Authorization: Bearer %s" http://127.0.0.1:8080/v1/models' % secret),
        ('url credentials', 'HttpProxy: http://ops:%s@proxy.example:3128' % secret),
    ]


@pytest.mark.parametrize("seed", range(100))
def test_no_generated_secret_survives_anywhere(seed):
    rng = random.Random(seed)
    secret = _secret(rng)
    for place, value in _places(rng, secret):
        # Unknown to the caller: the names, flags and headers give it away.
        out = redact(value)
        assert secret not in json.dumps(out), (place, out)
        assert REDACTED in json.dumps(out), place
        # Known to the caller (the configured key), also inside text with no name at all.
        free = 'the key %s was%sseen' % (secret, rng.choice([' ', '', '\n', '"']))
        assert secret not in json.dumps(redact([value, free, {'x': free}], [secret])), place
        assert secret.encode() not in redact_bytes(json.dumps(value).encode(), [secret])


@pytest.mark.parametrize('seed', range(10))
def test_redacted_data_keeps_its_shape_and_what_is_not_secret(seed):
    rng = random.Random(seed)
    secret = _secret(rng)
    inspect = dict(_places(rng, secret))['inspect']
    out = redact(inspect, [secret])
    assert out['Config']['Env'][0] == 'PATH=/usr/bin' and out['Config']['Env'][2] == 'SOC_VERSION=ascend310p1'
    assert out['Config']['Env'][1].endswith('=' + REDACTED)
    assert out['Config']['Cmd'][:5] == ['vllm', 'serve', 'Qwen/Qwen3.5-2B', '--port', '8080']
    assert out['Config']['Cmd'][6] == REDACTED and out['Config']['Cmd'][7:] == ['--max-num-seqs', '4']
    assert out['Config']['Labels'] == {'ascend.vllm.managed-by': 'ascend.vllm'}
    # JSON text stays JSON, and redacting twice changes nothing.
    text = redact_text(json.dumps(inspect), [secret])
    assert json.loads(text)['Config']['Env'][1].endswith(REDACTED)
    assert redact_text(text, [secret]) == text


def test_counts_named_like_tokens_are_not_secrets():
    plan = {'max_num_batched_tokens': 2048, 'num_speculative_tokens': 1, 'max_tokens': 50,
            'argv': ['--max-num-batched-tokens', '2048', '--speculative-config', '{"num_speculative_tokens": 1}']}
    assert redact(plan) == plan
    assert redact_text('max_num_batched_tokens=2048 num_speculative_tokens: 1') == \
        'max_num_batched_tokens=2048 num_speculative_tokens: 1'


def test_empty_and_flag_values_are_left_alone():
    assert redact({'api_key': None, 'api_key_required': True, 'VLLM_API_KEY': ''}) == \
        {'api_key': None, 'api_key_required': True, 'VLLM_API_KEY': ''}
    assert redact_argv(['--api-key', '--port', '8080']) == ['--api-key', '--port', '8080']
    assert redact_argv(['NOEQUALS']) == ['NOEQUALS']


def test_short_known_values_are_not_searched_for():
    # A 3-character "key" would blank every occurrence of those letters in the report.
    assert known_secrets(['abc', None, 'abcd', 'abcdef']) == ['abcdef', 'abcd']
    assert redact_text('the abc of it', ['abc']) == 'the abc of it'


def test_binary_files_lose_the_known_values_only():
    data = b'\xff\xfe binary sk-0123456789 \x00 api_key=plain'
    assert redact_bytes(data, ['sk-0123456789']) == b'\xff\xfe binary <redacted> \x00 api_key=plain'


@pytest.mark.parametrize('value', [{}, [], {'inner': 1}, [1, 2], {'nested': {'deep': []}}])
def test_a_json_document_stays_json_when_a_secret_named_key_holds_a_mapping_or_list(value):
    """diagnose's plan.json: a key named like a secret whose value opens a mapping or list (found when the
    plan gained a mapping under such a key) must not lose its bracket to the redaction."""
    text = json.dumps({'api_key_var': '', 'secret_env': value, 'HF_TOKEN': 'hf_abcdef123456', 'port': 8080}, indent=2)
    out = redact_text(text, [])
    parsed = json.loads(out)
    assert parsed['HF_TOKEN'] != 'hf_abcdef123456' and parsed['port'] == 8080


# ------------------------------------------------------------------ one predicate, strict and loose
@pytest.mark.parametrize('name, strict, loose', [
    ('VLLM_API_KEY', True, True), ('hf_token', True, True), ('--api-key', True, True),
    ('vllm_serve_apikey', False, True),   # a misspelling: hidden, never routed
    ('MYAPIKEY', False, True), ('DB_PASSWORD', True, True), ('MONKEY', False, True),
    ('TOKENS', False, True), ('HF_ENDPOINT', False, False), ('LD_PRELOAD', False, False),
])
def test_secret_name_strict_and_loose(name, strict, loose):
    assert secret_name(name) is strict
    assert secret_name(name, loose=True) is loose


def test_secret_values_are_the_loosely_named_long_enough_values():
    env = {'VLLM_API_KEY': 'sk-0123456789', 'MYAPIKEY': 'abcdefgh', 'HF_TOKEN': 'abc', 'PATH': '/usr/bin',
           'OTHER_SECRET': None}
    assert secret_values(env) == ['abcdefgh', 'sk-0123456789']
    assert secret_values(None) == []
