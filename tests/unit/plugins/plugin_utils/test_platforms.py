# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Platform profiles against the deployment guide's docker run commands (section 4.1)."""

import importlib.util
import os
import re

import pytest

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.platforms import (
    PLATFORMS, get_profile, profile_from_spec, profile_names)


def _load_sim_guide():
    # The guide's three "docker run" commands (section 4.1 of shared/seed/000_de1b8cca3feb25fe.txt)
    # are kept once in the repository, in tests/sim/sim_guide.py, whose own test checks them
    # against the guide; the profiles are checked against that text rather than a hand-made list.
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', 'sim', 'sim_guide.py')
    spec = importlib.util.spec_from_file_location('ascend_vllm_tests_sim_guide', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SIM_GUIDE = _load_sim_guide()
GUIDE = SIM_GUIDE.GUIDE_DOCKER_RUN

FIELDS = {
    'description': str, 'os_family': str, 'privileged': bool, 'shm_size': str, 'npu_smi_path': str,
    'image_tag_suffix': str, 'allowed_tp': list, 'chips_per_card': int, 'rc_mode': bool,
    'chip_memory_mb': int, 'chip_device_template': str, 'guide_chip_devices': list,
    'manager_devices': list, 'mounts': list, 'model_cache_mount': dict, 'environment': dict, 'guide_port_mapping': str,
}


def _guide_volumes(text):
    return [tuple(line.split()[1].split(':')) for line in text.splitlines() if line.startswith('-v ')]


def _guide_devices(text):
    # "--device /dev/x" and "--device=/dev/x:/dev/x" both name the host device first.
    return [re.split(r'[ =]', line)[1].split(':')[0] for line in text.splitlines() if line.startswith('--device')]


def test_profile_names():
    assert profile_names() == ['atlas_200i_pro', 'atlas_200i_pro_openeuler', 'atlas_300i_duo']


@pytest.mark.parametrize('name', sorted(PLATFORMS))
def test_profile_has_every_field_with_its_type(name):
    profile = PLATFORMS[name]
    assert sorted(profile) == sorted(FIELDS)
    for key, kind in FIELDS.items():
        assert isinstance(profile[key], kind), key


@pytest.mark.parametrize(
    'name, privileged, shm, npu_smi, suffix, allowed_tp, chips, rc, memory, os_family',
    [
        ('atlas_300i_duo', False, '1g', '/usr/local/bin/npu-smi', '-310p', [1, 2], 2, False, 44280, 'any'),
        ('atlas_200i_pro', True, '10g', '/usr/local/sbin/npu-smi', '-310p', [1], 1, True, 24576, 'Debian'),
        ('atlas_200i_pro_openeuler', True, '10g', '/usr/local/sbin/npu-smi', '-310p-openeuler', [1], 1, True,
         24576, 'openEuler'),
    ])
def test_profile_scalars(name, privileged, shm, npu_smi, suffix, allowed_tp, chips, rc, memory, os_family):
    profile = get_profile(name)
    assert profile['privileged'] is privileged
    assert profile['shm_size'] == shm
    assert profile['npu_smi_path'] == npu_smi
    assert profile['image_tag_suffix'] == suffix
    assert profile['allowed_tp'] == allowed_tp
    assert profile['chips_per_card'] == chips
    assert profile['rc_mode'] is rc
    assert profile['chip_memory_mb'] == memory
    assert profile['os_family'] == os_family
    assert profile['guide_port_mapping'] == '8080:8080'
    assert profile['chip_device_template'].format(index=3) == '/dev/davinci3'


@pytest.mark.parametrize('name', sorted(GUIDE))
def test_privileged_and_shm_match_the_guide(name):
    text = GUIDE[name]
    profile = get_profile(name)
    assert ('--privileged' in text) is profile['privileged']
    assert '--shm-size=%s' % profile['shm_size'] in text


@pytest.mark.parametrize('name', sorted(GUIDE))
def test_mounts_are_the_guide_list_in_order(name):
    profile = get_profile(name)
    ours = [(m['source'], m['target']) for m in profile['mounts']]
    cache = profile['model_cache_mount']
    guide = _guide_volumes(GUIDE[name])
    assert (cache['source'], cache['target']) == ('/root/.cache', '/root/.cache')
    assert [v for v in guide if v != ('/root/.cache', '/root/.cache')] == ours
    assert cache['read_only'] is False
    # Every guide mount is a driver file, library, config file or daemon binary.
    assert all(m['read_only'] is True for m in profile['mounts'])


@pytest.mark.parametrize('name', sorted(GUIDE))
def test_devices_are_the_guide_list_in_order(name):
    profile = get_profile(name)
    assert _guide_devices(GUIDE[name]) == profile['guide_chip_devices'] + profile['manager_devices']


@pytest.mark.parametrize('name', sorted(GUIDE))
def test_npu_smi_path_is_a_guide_mount(name):
    profile = get_profile(name)
    assert (profile['npu_smi_path'], profile['npu_smi_path']) in _guide_volumes(GUIDE[name])


def test_get_profile_returns_a_deep_copy():
    profile = get_profile('atlas_300i_duo')
    profile['mounts'][0]['source'] = '/elsewhere'
    profile['allowed_tp'].append(4)
    assert PLATFORMS['atlas_300i_duo']['mounts'][0]['source'] == '/usr/local/dcmi'
    assert get_profile('atlas_300i_duo')['allowed_tp'] == [1, 2]


def test_overrides_replace_values_and_merge_dicts():
    profile = get_profile('atlas_300i_duo', {'chip_memory_mb': 43693, 'allowed_tp': [1],
                                             'model_cache_mount': {'source': '/data/models'}})
    assert profile['chip_memory_mb'] == 43693
    assert profile['allowed_tp'] == [1]
    assert profile['model_cache_mount'] == {'source': '/data/models', 'target': '/root/.cache', 'read_only': False}
    assert PLATFORMS['atlas_300i_duo']['model_cache_mount']['source'] == '/root/.cache'


@pytest.mark.parametrize('overrides, words', [
    ({'shm': '2g'}, ['shm', 'shm_size', 'privileged']),
    ({'chip_memory_mb': '44280'}, ['chip_memory_mb', 'int']),
    ({'privileged': 'yes'}, ['privileged', 'bool']),
    ({'mounts': '/x:/x'}, ['mounts', 'list']),
    ({'model_cache_mount': {'src': '/x'}}, ['src', 'source', 'target']),
    ('shm_size=2g', ['dict']),
])
def test_bad_overrides_name_the_key_and_the_valid_ones(overrides, words):
    with pytest.raises(ValueError) as exc:
        get_profile('atlas_300i_duo', overrides)
    for word in words:
        assert word in str(exc.value)


def test_unknown_platform_lists_the_valid_ones():
    with pytest.raises(ValueError) as exc:
        get_profile('atlas_800')
    assert 'atlas_800' in str(exc.value)
    assert 'atlas_300i_duo' in str(exc.value) and 'atlas_200i_pro_openeuler' in str(exc.value)


def test_environment_override_may_add_variables_but_other_dicts_may_not():
    profile = get_profile('atlas_200i_pro', {'environment': {'PYTORCH_NPU_ALLOC_CONF': 'expandable_segments:True'}})
    assert profile['environment']['PYTORCH_NPU_ALLOC_CONF'] == 'expandable_segments:True'
    assert profile['environment']['LD_LIBRARY_PATH'].startswith('/usr/local/Ascend/driver/lib64:/usr/lib64:')
    with pytest.raises(ValueError, match='unknown key'):
        get_profile('atlas_200i_pro', {'model_cache_mount': {'sorce': '/x'}})


def test_a_spec_without_environment_is_complete():
    spec = dict((key, value) for key, value in PLATFORMS['atlas_300i_duo'].items()
                if not key.startswith('guide_') and key not in ('os_family', 'environment'))
    assert 'environment' not in profile_from_spec('my_board', spec)


def test_the_openeuler_profile_is_the_200i_pro_but_for_the_host_os():
    """One source for the 200I Pro board: the openEuler profile differs only where guide 4.1's commands do."""
    base, euler = PLATFORMS['atlas_200i_pro'], PLATFORMS['atlas_200i_pro_openeuler']
    differs = sorted(key for key in set(base) | set(euler) if base.get(key) != euler.get(key))
    assert differs == ['description', 'environment', 'image_tag_suffix', 'mounts', 'os_family']
