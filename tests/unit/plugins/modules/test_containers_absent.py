# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""containers_absent: which containers go (ours only), their pids noted before, npu-smi read after — one module
run on the node through the collection's one Engine client (node/_node_docker), here with the Engine API faked
at its paths and npu-smi at its command line."""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlsplit

from hypothesis import given, settings, strategies as st

from ansible_collections.ascend.vllm.plugins.module_utils.node._node_docker import DockerError, MANAGED_LABEL
from ansible_collections.ascend.vllm.plugins.modules import containers_absent


class FakeApi(object):
    """The Engine API at the paths the module asks: ``ours`` carry our label, ``theirs`` do not."""

    def __init__(self, ours, theirs=(), tops=None):
        self.containers = dict((n, {'ours': True, 'running': True}) for n in ours)
        self.containers.update((n, {'ours': False, 'running': True}) for n in theirs)
        self.tops = tops or {}
        self.calls = []

    def get(self, path):
        url = urlsplit(path)
        self.calls.append(('GET', url.path))
        if url.path == '/containers/json':
            assert json.loads(parse_qs(url.query)['filters'][0]) == {'label': ['%s=ascend.vllm' % MANAGED_LABEL]}
            return [{'Names': ['/' + n], 'Id': n, 'State': 'running', 'Labels': {MANAGED_LABEL: 'ascend.vllm'}}
                    for n, c in self.containers.items() if c['ours']]
        name = url.path.split('/')[2]
        return {'Titles': ['PID'], 'Processes': [[str(p)] for p in self.tops.get(name, [])]}

    def post(self, path):
        self.calls.append(('POST', urlsplit(path).path))

    def delete(self, path):
        name = urlsplit(path).path.split('/')[2]
        self.calls.append(('DELETE', name))
        if self.containers.pop(name, None) is None:
            raise DockerError('no such container', 404)


class FakeModule(object):
    def __init__(self, params, check_mode=False):
        self.params = dict({'names': [], 'all_managed': False, 'stop_timeout': 30, 'wait': 0,
                            'npu_smi_path': None, 'docker_host': None}, **params)
        self.check_mode = check_mode
        self.warnings = []

    def run_command(self, argv, environ_update=None):
        return 127, '', 'npu-smi: not found'

    def warn(self, msg):
        self.warnings.append(msg)


def removed(api):
    return [name for method, name in api.calls if method == 'DELETE']


def test_ours_are_listed_then_their_pids_read_then_stopped_and_removed(monkeypatch):
    monkeypatch.setattr(containers_absent, 'read_until_gone', lambda read, pids, wait: ({}, []))
    api = FakeApi(['vllm-ascend-b', 'vllm-ascend-b-previous', 'other'], tops={'vllm-ascend-b': [41, 42]})
    result = containers_absent.remove(FakeModule({'names': ['vllm-ascend-a', 'vllm-ascend-b'], 'wait': 5}), api)
    assert removed(api) == ['vllm-ascend-b', 'vllm-ascend-b-previous']
    assert ('POST', '/containers/vllm-ascend-b/stop') in api.calls
    assert (result.get('failed'), result['changed'], result['pids']) == (None, True, [41, 42])
    assert result['msg'] == 'Removed containers: vllm-ascend-b, vllm-ascend-b-previous'


def test_processes_still_on_the_chips_fail_naming_the_pids_and_the_fix(monkeypatch):
    monkeypatch.setattr(containers_absent, 'locate_npu_smi', lambda path, search: '/usr/local/bin/npu-smi')
    monkeypatch.setattr(containers_absent, 'npu_facts_from',
                        lambda text, path, version_file, warn: {'processes': [{'pid': 7}]})
    module = FakeModule({'names': ['a'], 'wait': 0.2})
    module.run_command = lambda argv, environ_update=None: (0, 'npu-smi info', '')
    result = containers_absent.remove(module, FakeApi(['a'], tops={'a': [7]}))
    assert result['failed'] and result['msg'] == (
        'npu-smi still lists processes of the removed containers after 0.2s: [7]. Fix: kill them (kill PID) or reboot '
        'the node.')


def test_npu_smi_unreadable_is_a_warning_not_a_failure():
    module = FakeModule({'names': ['a'], 'wait': 1})
    result = containers_absent.remove(module, FakeApi(['a'], tops={'a': [7]}))
    assert not result.get('failed') and result['removed'] == ['a']
    assert module.warnings and module.warnings[0].startswith('npu-smi could not be read after the removal')


def test_check_mode_removes_nothing_and_reads_no_npu_smi():
    module = FakeModule({'names': ['a']}, check_mode=True)
    api = FakeApi(['a'], tops={'a': [7]})
    result = containers_absent.remove(module, api)
    assert (result['changed'], result['removed'], result['msg']) == (True, ['a'], 'Would remove containers: a')
    assert removed(api) == []
    assert [method for method, _path in api.calls if method != 'GET'] == [] and module.warnings == []


@settings(max_examples=150, deadline=None)
@given(planned=st.lists(st.sampled_from(['a', 'b', 'c']), unique=True),
       ours=st.lists(st.sampled_from(['a', 'b', 'a-previous', 'x', 'y']), unique=True),
       theirs=st.lists(st.sampled_from(['c', 'z', 'c-previous']), unique=True),
       all_managed=st.booleans())
def test_only_our_containers_ever_go(planned, ours, theirs, all_managed):
    """Whatever is planned and on the node: nothing without our label goes; with all_managed every one of ours
    goes; without it, only planned ones and their kept containers."""
    api = FakeApi(ours, theirs)
    result = containers_absent.remove(FakeModule({'names': planned, 'all_managed': all_managed}), api)
    gone = removed(api)
    assert set(gone) <= set(ours) and len(gone) == len(set(gone))
    if all_managed:
        assert set(gone) == set(ours)
    else:
        assert set(gone) == set(n for n in ours if n in planned or n.endswith('-previous') and n[:-9] in planned)
    assert result['removed'] == gone
