# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.ascend.vllm.plugins.filter.instance_container import instance_container

CONFIG = {'api_key_env': 'VLLM_API_KEY', 'settings': {'model': 'Qwen/Qwen3.5-2B'},
          'profile': {'model_cache_mount': {'target': '/root/.cache'}}}


def entry(**options):
    return {'env': {'HF_ENDPOINT': 'h'}, 'options': options}


@pytest.mark.parametrize('options, env, mounts, no_log', [
    ({}, {'HF_ENDPOINT': 'h'}, [], False),
    ({'model_path': '/data/m'}, {'HF_ENDPOINT': 'h'}, [{'source': '/data/m', 'target': '/data/m', 'read_only': True}], False),
    ({'model_path': '/root/.cache/m'}, {'HF_ENDPOINT': 'h'}, [], False),
    ({'model_path': '/root/.cache'}, {'HF_ENDPOINT': 'h'}, [], False),
    ({'model_path': 'relative/m'}, {'HF_ENDPOINT': 'h'}, [], False),
])
def test_env_mounts_and_no_log(options, env, mounts, no_log):
    out = instance_container(entry(**options), CONFIG)
    assert (out['env'], out['extra_mounts'], out['no_log']) == (env, mounts, no_log)


def test_model_from_the_settings_else_the_option():
    assert instance_container(entry(model='x'), CONFIG)['model'] == 'Qwen/Qwen3.5-2B'
    assert instance_container(entry(model='x'), {'settings': {}})['model'] == 'x'


@pytest.mark.parametrize('key, env, no_log', [
    # The API key goes to the environment, never the command line, and hides the spec from the log.
    ('s3cret', {'HF_ENDPOINT': 'h', 'VLLM_API_KEY': 's3cret'}, True),
    ('', {'HF_ENDPOINT': 'h'}, False),
])
def test_the_key_goes_to_the_environment(key, env, no_log):
    # The plan's option is a marker; the key itself comes as the second argument.
    out = instance_container(entry(api_key='<hidden: vllm_serve_api_key>'), CONFIG, key)
    assert (out['env'], out['no_log']) == (env, no_log)


def test_the_marker_never_reaches_the_environment():
    assert instance_container(entry(api_key='<hidden: vllm_serve_api_key>'), CONFIG)['env'] == {'HF_ENDPOINT': 'h'}


def test_no_api_key_variable_no_key():
    assert instance_container(entry(api_key='k'), {'api_key_env': None}, 'k')['env'] == {'HF_ENDPOINT': 'h'}
