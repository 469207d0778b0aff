# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.ascend.vllm.plugins.filter.container_spec import FilterModule, container_spec
from ansible_collections.ascend.vllm.plugins.filter.platform import platform_profile


def test_filter_is_registered_under_its_file_name():
    assert FilterModule().filters() == {'container_spec': container_spec}


def test_spec_from_the_platform_profile_filter():
    profile = platform_profile('atlas_200i_pro')['profile']
    spec = container_spec(profile, {'container_run_chips': [0], 'container_run_port': 8080,
                                    'container_run_model_cache_dir': '/root/.cache'})
    assert spec['privileged'] is True and spec['shm_size'] == '10g'
    assert spec['devices'] == ['/dev/davinci0', '/dev/davinci_manager', '/dev/ascend_manager', '/dev/user_config']


def test_bad_profile_is_a_filter_error():
    with pytest.raises(AnsibleFilterError, match='container_run_profile'):
        container_spec({}, {})
