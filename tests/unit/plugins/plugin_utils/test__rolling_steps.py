# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The rolling steps the host plan carries (serve/_rolling.py: expected_containers, upgrade_steps).

A serving container whose digest label and image are what the plan asks for is only checked;
any other difference (the API key, the image, a kept container, a pull in this run, a
container_run setting, the command) rolls it. The digest is computed as container_run labels
the container: from its own inputs and its own defaults file.
"""

import os

import pytest
import yaml

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.platforms import get_profile
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._container_spec import SPEC_LABEL, container_spec
from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._rolling import (
    expected_containers, upgrade_outcome, upgrade_steps)
from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._serve import container_run_vars, instance_container

DEFAULTS = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', 'roles', 'container_run', 'defaults',
                        'main.yml')


def _run_defaults():
    with open(DEFAULTS) as handle:
        return dict((k, v) for k, v in yaml.safe_load(handle).items() if k.startswith('container_run_'))


def _host():
    return {'image': 'reg/vllm-ascend:v0.23.0-310p', 'publish_address': '', 'model_cache_dir': '/root/.cache',
            'platform': 'atlas_300i_duo', 'keep_previous': True}


def _digest_of_container_run(entry, config, variables):
    """The label container_run puts on the container: its own inputs, its own defaults."""
    inputs = _run_defaults()
    inputs.update(container_run_vars(entry, config, instance_container(entry, config, variables), _host()))
    return container_spec(inputs['container_run_profile'], inputs)['labels'][SPEC_LABEL]


def _case():
    entry = {'name': 'a', 'container_name': 'vllm-a', 'chips': [0], 'port': 8080, 'env': {},
             'options': {'model': 'Qwen/Qwen3.5-2B'}, 'api_key_var': 'vllm_serve_api_key'}
    config = {'ok': True, 'argv': ['vllm', 'serve', 'Qwen/Qwen3.5-2B'], 'env': {'X': '1'},
              'api_key_env': 'VLLM_API_KEY', 'profile': get_profile('atlas_300i_duo'),
              'settings': {'model': 'Qwen/Qwen3.5-2B'}}
    variables = {'vllm_serve_api_key': 'secret-1'}
    return entry, config, variables


def _run(config, image_current=True, settings=None):
    return {'configs': {'a': config}, 'host': _host(), 'settings': settings or {},
            'image_ids': {'reg/vllm-ascend:v0.23.0-310p': 'sha256:1'}, 'image_current': image_current}


def _containers(digest, image_id='sha256:1', previous=False):
    out = {'vllm-a': {'exists': True, 'running': True, 'restarting': False, 'image_id': image_id,
                      'labels': {'ascend.vllm.spec': digest}}}
    if previous:
        out['vllm-a-previous'] = {'exists': True, 'running': False}
    return out


def _steps(plan, containers, run, variables):
    return upgrade_steps(plan, [], containers, expected_containers(plan, run, variables, _run_defaults()))


def test_without_the_node_read_everything_rolls_and_a_missing_container_is_fresh():
    plan = [{'name': 'a', 'container_name': 'x'}]
    assert upgrade_steps(plan, [], {})['fresh'] == plan
    assert upgrade_steps(plan)['roll'][0]['rolling']['backend'] is None


def test_outcome_puts_back_a_drained_instance_that_serves():
    assert upgrade_outcome({'state': 'ready'}, {'drain': True})['put_back']
    assert upgrade_outcome({'state': 'failed'}, None)['failed']


def test_a_container_with_the_plans_digest_and_image_is_only_checked():
    entry, config, variables = _case()
    digest = _digest_of_container_run(entry, config, variables)
    found = _steps([entry], _containers(digest), _run(config), variables)
    assert [e['name'] for e in found['same']] == ['a'] and found['roll'] == [] and found['fresh'] == []


@pytest.mark.parametrize('why', ['api key', 'image id', 'kept previous', 'pulled now', 'restart policy', 'argv'])
def test_anything_else_rolls(why):
    entry, config, variables = _case()
    digest = _digest_of_container_run(entry, config, variables)
    containers, run = _containers(digest), _run(config)
    if why == 'api key':
        variables = {'vllm_serve_api_key': 'secret-2'}
    elif why == 'image id':
        containers = _containers(digest, image_id='sha256:0')
    elif why == 'kept previous':
        containers = _containers(digest, previous=True)
    elif why == 'pulled now':
        run = _run(config, image_current=False)
    elif why == 'restart policy':
        run = _run(config, settings={'container_run_restart_policy': 'always'})
    else:
        run = _run(dict(config, argv=config['argv'] + ['--max-model-len', '4096']))
    found = _steps([entry], containers, run, variables)
    assert [e['name'] for e in found['roll']] == ['a'] and found['same'] == []
