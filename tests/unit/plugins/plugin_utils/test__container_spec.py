# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The container spec of each platform is the guide's `docker run` line (tests/sim/sim_guide.py keeps them verbatim)."""

import os

import pytest

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._container_spec import (
    SPEC_LABEL, container_spec, devices, mounts, spec_digest)
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.platforms import get_profile, profile_names

# tests/sim/sim_guide.py, loaded once by the platform tests.
from test_platforms import SIM_GUIDE  # noqa: E402  pylint: disable=import-error


def _guide(platform):
    """(devices, [(source, target)], shm, privileged, ports) of the guide's docker run line."""
    flags = SIM_GUIDE.guide_flags(platform)
    out = {'devices': [], 'binds': [], 'shm': None, 'privileged': False, 'ports': []}
    words = iter(flags)
    for word in words:
        if word.startswith('--device'):
            value = word.split('=', 1)[1] if '=' in word else next(words)
            host, inside = (value.split(':', 1) + [''])[:2]
            assert inside in ('', host), value
            out['devices'].append(host)
        elif word == '-v':
            source, target = next(words).split(':')
            out['binds'].append((source, target))
        elif word.startswith('--shm-size='):
            out['shm'] = word.split('=', 1)[1]
        elif word == '--privileged':
            out['privileged'] = True
        elif word == '-p':
            out['ports'].append(next(words))
    return out


def _inputs(chips, **changes):
    out = {'container_run_chips': chips, 'container_run_port': 8080, 'container_run_publish_address': '',
           'container_run_model_cache_dir': '/root/.cache', 'container_run_extra_mounts': [],
           'container_run_command_env': {}, 'container_run_env': {}, 'container_run_instance': 'default',
           'container_run_model': 'Qwen/Qwen3.5-2B', 'container_run_platform': 'p', 'container_run_labels': {}}
    out.update(changes)
    return out


@pytest.mark.parametrize('platform', profile_names())
def test_every_platform_gives_the_guide_docker_run_line(platform):
    profile = get_profile(platform)
    guide = _guide(platform)
    chips = [int(device[len('/dev/davinci'):]) for device in profile['guide_chip_devices']]
    spec = container_spec(profile, _inputs(chips))
    assert spec['devices'] == guide['devices']
    assert [(m['source'], m['target']) for m in spec['mounts']] == guide['binds']
    assert spec['shm_size'] == guide['shm']
    assert spec['privileged'] is guide['privileged']
    assert spec['published_ports'] == guide['ports'] == ['8080:8080']
    # The container writes only the model cache; driver files and binaries are read-only.
    assert [m['read_only'] for m in spec['mounts']] == [True] * (len(guide['binds']) - 1) + [False]
    assert all(m['type'] == 'bind' for m in spec['mounts'])


def test_an_instance_gets_only_its_chips():
    profile = get_profile('atlas_300i_duo')
    assert devices(profile, [1]) == ['/dev/davinci1', '/dev/davinci_manager', '/dev/devmm_svm', '/dev/hisi_hdc']
    assert devices(profile, [2, 3])[:2] == ['/dev/davinci2', '/dev/davinci3']


def test_model_cache_and_extra_mounts():
    profile = get_profile('atlas_300i_duo', {'model_cache_mount': {'target': '/cache'}})
    found = mounts(profile, '/data/models', [{'source': '/srv/m', 'target': '/models', 'read_only': 'yes'},
                                             {'source': '/a', 'target': '/b'}])
    assert found[-3:] == [
        {'type': 'bind', 'source': '/data/models', 'target': '/cache', 'read_only': False},
        {'type': 'bind', 'source': '/srv/m', 'target': '/models', 'read_only': True},
        {'type': 'bind', 'source': '/a', 'target': '/b', 'read_only': False}]


def test_env_labels_and_ports():
    spec = container_spec(dict(get_profile('atlas_200i_pro'), environment={}), _inputs(
        [0], container_run_port=8081, container_run_publish_address='127.0.0.1',
        container_run_command_env={'VLLM_USE_MODELSCOPE': True, 'N': 2, 'X': 'a'},
        container_run_env={'X': 'b', 'R': 0.5}, container_run_labels={'team': 'ml', 'ascend.vllm.model': 'mine'}))
    assert spec['env'] == {'VLLM_USE_MODELSCOPE': 'True', 'N': '2', 'X': 'b', 'R': '0.5'}
    assert len(spec['labels'].pop(SPEC_LABEL)) == 64
    assert spec['labels'] == {'ascend.vllm.managed-by': 'ascend.vllm', 'ascend.vllm.instance': 'default',
                              'ascend.vllm.model': 'mine', 'ascend.vllm.platform': 'p', 'ascend.vllm.port': '8081',
                              'team': 'ml'}
    assert spec['published_ports'] == ['127.0.0.1:8081:8081']


@pytest.mark.parametrize('profile, words', [
    ({}, 'shm_size'),
    ({'shm_size': '1g'}, 'chip_device_template'),
    ({'shm_size': '1g', 'chip_device_template': '/dev/davinci'}, '{index}'),
])
def test_an_incomplete_profile_is_refused(profile, words):
    with pytest.raises(ValueError, match=words.replace('{', r'\{').replace('}', r'\}')):
        container_spec(profile, _inputs([0]))


def test_a_mount_without_target_is_refused():
    with pytest.raises(ValueError, match='source and target'):
        mounts(get_profile('atlas_300i_duo'), '/root/.cache', [{'source': '/a'}])


# The image's ENV as `docker image inspect` shows it (Config.Env), shaped like the CANN base image's.
IMAGE_ENV = ['PATH=/usr/local/bin:/usr/bin', 'LD_LIBRARY_PATH=/usr/local/Ascend/driver/lib64:/toolkit/lib64',
             'OMP_NUM_THREADS=1', 'TASK_QUEUE_ENABLE=1']
BASHRC_PREFIX = '/usr/local/Ascend/driver/lib64:/usr/lib64:/root/aicpu_kernels/0/aicpu_kernels_device/sand_box:'


@pytest.mark.parametrize('platform, jemalloc', [
    ('atlas_300i_duo', '/usr/lib/aarch64-linux-gnu/libjemalloc.so.2:'),
    ('atlas_200i_pro', '/usr/lib/aarch64-linux-gnu/libjemalloc.so.2:'),
    ('atlas_200i_pro_openeuler', '/usr/lib64/libjemalloc.so.2:'),
])
def test_env_is_what_the_guides_interactive_shell_has(platform, jemalloc):
    """The image's .bashrc lines (vllm-ascend Dockerfile.310p / .openEuler, v0.23.0), built on the image's ENV."""
    spec = container_spec(get_profile(platform), _inputs([0], container_run_image_env=IMAGE_ENV))
    assert spec['env']['LD_LIBRARY_PATH'] == (
        BASHRC_PREFIX + '/usr/local/Ascend/driver/lib64:/toolkit/lib64' + ':/usr/local/lib')
    assert spec['env']['LD_PRELOAD'] == jemalloc
    assert spec['env']['OMP_NUM_THREADS'] == '1' and spec['env']['TASK_QUEUE_ENABLE'] == '1'


def test_operator_changes_and_adds_profile_environment():
    profile = get_profile('atlas_300i_duo', {'environment': {
        'OMP_NUM_THREADS': '4', 'PYTORCH_NPU_ALLOC_CONF': 'expandable_segments:True'}})
    spec = container_spec(profile, _inputs([0], container_run_image_env=IMAGE_ENV,
                                           container_run_env={'TASK_QUEUE_ENABLE': '2'}))
    assert spec['env']['OMP_NUM_THREADS'] == '4'
    assert spec['env']['PYTORCH_NPU_ALLOC_CONF'] == 'expandable_segments:True'
    assert spec['env']['TASK_QUEUE_ENABLE'] == '2'
    assert spec['env']['LD_LIBRARY_PATH'].startswith(BASHRC_PREFIX)


def test_image_env_unknown_leaves_an_empty_reference():
    spec = container_spec(get_profile('atlas_200i_pro'), _inputs([0]))
    assert spec['env']['LD_LIBRARY_PATH'] == BASHRC_PREFIX + ':/usr/local/lib'


@pytest.mark.parametrize('arch, path', [
    ('arm64', '/usr/lib/aarch64-linux-gnu/libjemalloc.so.2:'),
    ('amd64', '/usr/lib/x86_64-linux-gnu/libjemalloc.so.2:'),
    (None, '/usr/lib/aarch64-linux-gnu/libjemalloc.so.2:'),
])
def test_jemalloc_follows_the_image_architecture_like_the_bashrc_line(arch, path):
    """Dockerfile.310p writes /usr/lib/$(uname -m)-linux-gnu/libjemalloc.so.2 into .bashrc."""
    inputs = _inputs([0], container_run_image_env=IMAGE_ENV, container_run_image_arch=arch)
    spec = container_spec(get_profile('atlas_300i_duo'), inputs)
    assert spec['env']['LD_PRELOAD'] == path


# ------------------------------------------------------------------ the extra labels' contract
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._container_spec import label_problems  # noqa: E402


@pytest.mark.parametrize('labels, words', [
    ({'com.example.team': 'infra'}, None),
    ({}, None),
    (None, None),
    ({'ascend.vllm.managed-by': 'me'}, 'the ascend.vllm.* namespace is reserved'),
    ({'com.docker.compose.project': 'x'}, 'the com.docker.* namespace is reserved'),
    ({'com.example.api_token': 'hf_0123456789'}, 'cannot carry a secret'),
    ({'has space': 'x'}, 'not a label key'),
    ({'.leading-dot': 'x'}, 'not a label key'),
    (['not', 'a', 'mapping'], 'must be a mapping'),
])
def test_extra_labels_have_a_contract(labels, words):
    problems = label_problems(labels)
    if words is None:
        assert problems == []
    else:
        assert len(problems) == 1 and words in problems[0], problems
        assert 'hf_0123456789' not in problems[0]


# The digest label (ascend.vllm.spec): a later run skips the replacement path when the
# container carries the plan's digest, so every input that reaches docker_container must
# move it, and what only the node knows (the image's ENV, read there) must not.
_RUN = {'container_run_image': 'reg/ascend/vllm-ascend:v0.23.0-310p', 'container_run_command': ['vllm', 'serve', 'm'],
        'container_run_restart_policy': 'unless-stopped', 'container_run_stop_timeout': 30,
        'container_run_log_max_size': '100m', 'container_run_log_max_file': 3}
_CHANGES = [
    ('container_run_chips', [1]), ('container_run_port', 8081), ('container_run_publish_address', '127.0.0.1'),
    ('container_run_model_cache_dir', '/data/cache'),
    ('container_run_extra_mounts', [{'source': '/m', 'target': '/m', 'read_only': True}]),
    ('container_run_command_env', {'A': '1'}), ('container_run_env', {'VLLM_API_KEY': 'k2'}),
    ('container_run_instance', 'b'), ('container_run_model', 'Qwen/Qwen3.5-4B'), ('container_run_platform', 'q'),
    ('container_run_labels', {'team': 'ml'}), ('container_run_image', 'reg/ascend/vllm-ascend:v0.23.1-310p'),
    ('container_run_command', ['vllm', 'serve', 'm', '--max-model-len', '4096']),
    ('container_run_restart_policy', 'always'), ('container_run_stop_timeout', 60),
    ('container_run_log_max_size', '10m'), ('container_run_log_max_file', 5),
]


def _run_inputs(**changes):
    out = dict(_inputs([0]), **_RUN)
    out['container_run_env'] = {'VLLM_API_KEY': 'k1'}
    out.update(changes)
    return out


@pytest.mark.parametrize('name, value', _CHANGES, ids=[change[0] for change in _CHANGES])
def test_every_input_that_reaches_docker_moves_the_digest(name, value):
    profile = get_profile('atlas_300i_duo')
    assert spec_digest(profile, _run_inputs()) != spec_digest(profile, _run_inputs(**{name: value}))


@pytest.mark.parametrize('platform', profile_names())
def test_the_profile_moves_the_digest(platform):
    profile = get_profile(platform)
    assert spec_digest(profile, _run_inputs()) != spec_digest(dict(profile, shm_size='7777m'), _run_inputs())


def test_the_digest_ignores_the_image_env_and_templated_scalars():
    profile = get_profile('atlas_300i_duo')
    base = spec_digest(profile, _run_inputs())
    on_node = _run_inputs(container_run_image_env=['LD_LIBRARY_PATH=/usr/local/x'], container_run_image_arch='amd64')
    assert spec_digest(profile, on_node) == base
    # Ansible may hand a port or a count over as text: one container either way.
    assert spec_digest(profile, _run_inputs(container_run_port='8080', container_run_stop_timeout='30')) == base
    assert container_spec(profile, on_node)['labels'][SPEC_LABEL] == base


# Moved from tests/unit/plugins/filter/test_container_spec.py: the filter ascend.vllm.container_spec is gone
# (0.3.0), ascend.vllm.container_ensure builds the spec with these functions.
def test_the_filter_is_no_longer_public():
    filters = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', '..', 'plugins', 'filter')
    assert os.path.isdir(filters)
    assert not os.path.exists(os.path.join(filters, 'container_spec.py'))
    assert not os.path.exists(os.path.join(filters, 'container_keep.py'))


def test_spec_from_the_platform_profile_filter():
    from ansible_collections.ascend.vllm.plugins.filter.platform import platform_profile
    profile = platform_profile('atlas_200i_pro')['profile']
    spec = container_spec(profile, {'container_run_chips': [0], 'container_run_port': 8080,
                                    'container_run_model_cache_dir': '/root/.cache'})
    assert spec['privileged'] is True and spec['shm_size'] == '10g'
    assert spec['devices'] == ['/dev/davinci0', '/dev/davinci_manager', '/dev/ascend_manager', '/dev/user_config']


def test_bad_profile_is_a_value_error():
    with pytest.raises(ValueError, match='container_run_profile'):
        container_spec({}, {})


# ------------------------------------------------------------------ device paths: one home
from hypothesis import given, strategies as st  # noqa: E402 pylint: disable=wrong-import-position

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts import _container_spec as _spec  # noqa: E402 pylint: disable=wrong-import-position
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts import platforms as _platforms  # noqa: E402 pylint: disable=wrong-import-position
from ansible_collections.ascend.vllm.plugins.plugin_utils.judge import _node_problems  # noqa: E402 pylint: disable=wrong-import-position

TEMPLATES = st.one_of(
    st.builds(lambda a, b: '/dev/' + a + '{index}' + b, st.text('abcdvinx_/0123', max_size=8), st.text('abc_', max_size=3)),
    st.text(max_size=20), st.none(), st.integers())


@given(template=TEMPLATES, chips=st.lists(st.integers(0, 15), max_size=4, unique=True))
def test_the_container_and_the_node_judgement_name_the_same_device_paths(template, chips):
    """One rule for every template a user may write: the spec and the judgement agree, or both refuse it, and the
    plan refuses it in preflight (a platform override) with the same words."""
    profile = {'chip_device_template': template, 'manager_devices': ['/dev/davinci_manager']}
    problem = _spec.template_problem(template)
    if problem is None:
        # The judgement looks at every chip of the host's instances, in chip order.
        paths = _spec.devices(profile, sorted(chips))
        assert paths == _node_problems.device_paths(profile, [{'chips': chips}])
        assert paths[:len(chips)] == [template.replace('{index}', str(c)) for c in sorted(chips)]
    else:
        with pytest.raises(ValueError, match='chip_device_template must be a device path under /dev/'):
            _spec.devices(profile, [0])
        if isinstance(template, str):
            with pytest.raises(ValueError, match='chip_device_template must be a device path under /dev/'):
                _platforms.get_profile('atlas_300i_duo', {'chip_device_template': template})


def test_manager_devices_must_be_device_paths():
    with pytest.raises(ValueError, match='manager_devices must be device paths under /dev/'):
        _platforms.get_profile('atlas_300i_duo', {'manager_devices': ['davinci_manager']})
