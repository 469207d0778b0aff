"""The thin filters over _rolling.py."""
import pytest

from ansible_collections.ascend.vllm.plugins.filter.upgrade_outcome import FilterModule as Outcome
from ansible_collections.ascend.vllm.plugins.filter.upgrade_steps import FilterModule as Steps


def test_upgrade_steps_filter():
    steps = Steps().filters()['upgrade_steps']
    plan = [{'name': 'a', 'container_name': 'x'}]
    assert steps(plan, [], {})['fresh'] == plan
    assert steps(plan)['roll'][0]['rolling']['backend'] is None


def test_upgrade_outcome_filter():
    outcome = Outcome().filters()['upgrade_outcome']
    assert outcome({'state': 'ready'}, {'drain': True})['put_back']
    assert outcome({'state': 'failed'})['failed']


def _host():
    return {'image': 'reg/vllm-ascend:v0.23.0-310p', 'publish_address': '', 'model_cache_dir': '/root/.cache',
            'platform': 'atlas_300i_duo', 'keep_previous': True}


def _digest_of_container_run(entry, config, variables):
    """The label container_run puts on the container: its own inputs, its own defaults."""
    import yaml
    from ansible_collections.ascend.vllm.plugins.filter.instance_container import instance_container
    from ansible_collections.ascend.vllm.plugins.filter.upgrade_steps import _DEFAULTS
    from ansible_collections.ascend.vllm.plugins.module_utils.serve._container_spec import SPEC_LABEL, container_spec
    with open(_DEFAULTS) as handle:
        inputs = dict((k, v) for k, v in yaml.safe_load(handle).items() if k.startswith('container_run_'))
    inputs.update(instance_container(entry, config, variables=variables, host=_host())['run'])
    return container_spec(inputs['container_run_profile'], inputs)['labels'][SPEC_LABEL]


def _case():
    from ansible_collections.ascend.vllm.plugins.module_utils.contracts.platforms import get_profile
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


def test_a_container_with_the_plans_digest_and_image_is_only_checked():
    steps = Steps().filters()['upgrade_steps']
    entry, config, variables = _case()
    digest = _digest_of_container_run(entry, config, variables)
    found = steps([entry], [], _containers(digest), run=_run(config), variables=variables)
    assert [e['name'] for e in found['same']] == ['a'] and found['roll'] == [] and found['fresh'] == []


@pytest.mark.parametrize('why', ['api key', 'image id', 'kept previous', 'pulled now', 'restart policy', 'argv'])
def test_anything_else_rolls(why):
    steps = Steps().filters()['upgrade_steps']
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
    found = steps([entry], [], containers, run=run, variables=variables)
    assert [e['name'] for e in found['roll']] == ['a'] and found['same'] == []
