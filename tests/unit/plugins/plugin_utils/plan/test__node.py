# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""What preflight's lines say deploy will do about the image (plan._node.image_line)."""

import pytest

from ansible_collections.ascend.vllm.plugins.plugin_utils.plan._node import image_line

REF = 'registry.example:5000/ascend/vllm-ascend:v0.23.0-310p'
MIRROR = 'mirror.example/ascend/vllm-ascend:v0.23.0-310p'


class _Request(dict):
    def get(self, name, default=None):
        return dict.get(self, name, default)


@pytest.mark.parametrize('present, policy, archive, expected', [
    (True, 'not_present', '', REF + ': present on the node'),
    (True, 'always', '', REF + ': present, pulled again (image_pull_policy: always)'),
    (False, 'not_present', '', REF + ': not on the node, pulled from %s, then %s' % (REF, MIRROR)),
    (False, 'not_present', '/srv/vllm.tar', REF + ': loaded from /srv/vllm.tar'),
    (True, 'always', '/srv/vllm.tar', REF + ': loaded from /srv/vllm.tar'),
])
def test_the_image_line_says_what_deploy_does(present, policy, archive, expected):
    request = _Request(image_pull_policy=policy, image_pull_archive=archive)
    assert image_line({'ref': REF, 'present': present}, [REF, MIRROR], request) == 'image ' + expected


# ------------------------------------------------------------------ offline (air-gapped) sites
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._image_ref import image_problems, offline_problems  # noqa: E402


@pytest.mark.parametrize('offline, present, archive, refused', [
    (True, False, '', True),            # nothing on the node, nothing to load: nothing can fetch it
    ('yes', False, '', True),           # the argument spec's bool: "yes" is true
    ('false', False, '', False),
    (True, True, '', False),            # already there
    (True, False, '/srv/vllm.tar', False),  # loaded from the tarball
    (False, False, '', False),          # a node that reaches its registries pulls
])
def test_an_offline_node_without_the_image_or_a_tarball_is_refused(offline, present, archive, refused):
    problems = offline_problems({'image_pull_offline': offline, 'image_pull_archive': archive},
                                {'ref': REF, 'present': present}, 'ascend_vllm_offline')
    assert bool(problems) is refused
    if refused:
        assert problems[0]['msg'].startswith('ascend_vllm_offline=true: the image %s is not on the node' % REF)
        assert 'docker save' in problems[0]['fix'] and 'image_pull_archive' in problems[0]['fix']


def test_offline_refuses_a_pull_policy_that_asks_the_registry():
    inputs = {'image_pull_registries': ['quay.io'], 'image_pull_repository': 'ascend/vllm-ascend',
              'image_pull_retries': 3, 'image_pull_delay': 5, 'image_pull_timeout': 1800,
              'image_pull_poll_interval': 15, 'image_pull_archive': '', 'image_pull_offline': True,
              'image_pull_policy': 'always'}
    problems = image_problems(inputs, lambda _path: False)
    assert [p['msg'].split('=', 1)[0] for p in problems] == ['image_pull_policy']
    assert image_problems(dict(inputs, image_pull_policy='not_present'), lambda _path: False) == []
    assert image_problems(dict(inputs, image_pull_offline=False), lambda _path: False) == []
    assert len(image_problems(dict(inputs, image_pull_offline='yes'), lambda _path: False)) == 1


# ------------------------------------------------------------------ where the tarball is copied to
from ansible_collections.ascend.vllm.plugins.plugin_utils.plan._node import dir_problems, dirs  # noqa: E402


@pytest.mark.parametrize('found, on_node, words', [
    ({'exists': True, 'isdir': True, 'writable': True}, False, None),
    ({'exists': False, 'isdir': False, 'writable': True}, False, None),
    ({'exists': True, 'isdir': True, 'writable': False}, False, 'is not writable on the node'),
    ({'exists': False, 'isdir': False, 'writable': False}, False, 'cannot be created'),
    ({'exists': True, 'isdir': False, 'writable': True}, False, 'is a file on the node'),
    ({'exists': True, 'isdir': True, 'writable': False}, True, None),  # the tarball is on the node: nothing copied
])
def test_the_tarball_directory_must_be_writable(found, on_node, words):
    request = _Request(image_pull_archive='/srv/vllm.tar', image_pull_archive_on_node=on_node,
                       image_pull_archive_dir='/var/tmp/ascend-vllm')
    problems = dir_problems(dirs(request, {}), {'/var/tmp/ascend-vllm': found})
    if words is None:
        assert problems == []
    else:
        assert len(problems) == 1 and words in problems[0]['msg']
        assert problems[0]['msg'].startswith('image_pull_archive_dir="/var/tmp/ascend-vllm"')


@pytest.mark.parametrize('enabled', [True, False])
def test_the_balancer_s_directories_are_judged_when_it_runs(enabled):
    request = _Request(balancer_config_dir='/etc/ascend-vllm/balancer', balancer_run_dir='/var/lib/x/run')
    declared = dirs(request, {'balancer': {'enabled': enabled}})
    assert [entry['path'] for entry in declared] == (['/etc/ascend-vllm/balancer', '/var/lib/x/run'] if enabled else [])
    problems = dir_problems(declared, {'/etc/ascend-vllm/balancer': {'exists': True, 'isdir': False, 'writable': True},
                                       '/var/lib/x/run': {'exists': False, 'isdir': False, 'writable': True}})
    assert [(p['msg'], p['fix']) for p in problems] == ([(
        'balancer_config_dir="/etc/ascend-vllm/balancer" is a file on the node, not a directory; the balancer writes '
        'its HAProxy configuration there', 'set balancer_config_dir to a directory root can write on the node')]
        if enabled else [])


# ---------------------------------------------------------------- the plan is the node's desired state
def _running(name, instance='x', ours=True, ports=()):
    labels = {'ascend.vllm.instance': instance} if instance else {}
    if ours:
        labels['ascend.vllm.managed-by'] = 'ascend.vllm'
    return {'name': name, 'labels': labels, 'ports': list(ports)}


def test_what_is_ours_and_no_longer_planned_is_removed_and_nothing_else():
    from ansible_collections.ascend.vllm.plugins.plugin_utils.plan._node import unplanned
    planned = {'instances': [{'name': 'a', 'container_name': 'vllm-ascend-a'}]}
    running = [_running('vllm-ascend-a'), _running('vllm-ascend-a-previous'), _running('vllm-ascend-b'),
               _running('mine', ours=False), _running('ascend-vllm-balancer', instance=None), 'not a container']
    assert unplanned(planned, running) == ['vllm-ascend-b']
    assert unplanned({'instances': []}, running) == ['vllm-ascend-a', 'vllm-ascend-a-previous', 'vllm-ascend-b']
    assert unplanned(planned, None) == []


def test_a_port_held_by_a_container_the_run_removes_is_free():
    from ansible_collections.ascend.vllm.plugins.plugin_utils.judge._node_problems import port_problems
    running = [_running('vllm-ascend-b', ports=[8081]), _running('theirs', ours=False, ports=[8082])]
    facts = {'docker': {'containers': running},
             'listeners': {'8081': {'listening': True}}}
    instances = [{'name': 'a', 'container_name': 'vllm-ascend-a', 'port': 8081},
                 {'name': 'c', 'container_name': 'vllm-ascend-c', 'port': 8082}]
    held = port_problems(facts, instances, {}, removing=['vllm-ascend-b'])
    assert [p['msg'] for p in held] == [
        'vllm_serve_port: port 8082 (instance c) is already in use on the node by container theirs']
    assert len(port_problems(facts, instances, {})) == 2
