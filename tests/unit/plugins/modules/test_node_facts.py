# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The node_facts entry file: arguments, check mode and one answer with every part."""


import pytest


from ansible_collections.ascend.vllm.plugins.modules import node_facts
from moduleargs import ExitJson, FailJson, patch_exit_fail, set_module_args as module_args  # noqa: E402,F401 pylint: disable=wrong-import-position,unused-import


def run(args):
    with module_args(args):
        with pytest.raises(ExitJson) as exc:
            node_facts.main()
    return exc.value.args[0]


def test_reads_only_what_is_asked_in_check_mode(tmp_path):
    out = run({'gather': ['paths', 'memory'], 'paths': [str(tmp_path), str(tmp_path / 'nope')],
               '_ansible_check_mode': True})
    assert out['changed'] is False
    assert out['paths'][str(tmp_path)]['isdir'] and not out['paths'][str(tmp_path / 'nope')]['exists']
    assert set(out) >= {'paths', 'memory'} and 'docker' not in out


def test_engine_that_is_not_there_is_no_failure(tmp_path):
    out = run({'gather': ['docker', 'disk'], 'docker_host': 'unix://%s' % (tmp_path / 'docker.sock'),
               'containers': ['vllm-ascend']})
    assert out['docker']['reachable'] is False and 'cannot connect' in out['docker']['error']
    assert out['containers'] == {} and out['disk']['root'] == '/var/lib/docker'
