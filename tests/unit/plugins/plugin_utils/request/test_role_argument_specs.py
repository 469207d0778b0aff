# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
import pytest

import os


from ansible_collections.ascend.vllm.plugins.plugin_utils.request._vars import role_argument_specs

ROLES = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', '..', 'roles')


def test_every_role_of_the_collection():
    specs = role_argument_specs(ROLES)
    assert set(specs) == {'balancer', 'container_run', 'eval', 'image_pull', 'npu_check', 'vllm_serve'}
    assert 'vllm_serve_port' in specs['vllm_serve']['argument_specs']['main']['options']


def test_a_directory_without_roles(tmp_path):
    with pytest.raises(ValueError):
        role_argument_specs(str(tmp_path))
