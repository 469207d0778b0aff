# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The node_facts entry file: arguments, check mode and one answer with every part."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


import pytest

from ansible.module_utils import basic

from ansible_collections.ascend.vllm.plugins.modules import node_facts
from moduleargs import set_module_args as module_args  # noqa: E402 pylint: disable=wrong-import-position


class ExitJson(Exception):
    pass


class FailJson(Exception):
    pass


def _exit_json(self, **kwargs):
    kwargs.setdefault('changed', False)
    raise ExitJson(kwargs)


def _fail_json(self, msg, **kwargs):
    raise FailJson(dict(kwargs, msg=msg, failed=True))


@pytest.fixture(autouse=True)
def patch_exit(monkeypatch):
    monkeypatch.setattr(basic.AnsibleModule, 'exit_json', _exit_json)
    monkeypatch.setattr(basic.AnsibleModule, 'fail_json', _fail_json)


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
