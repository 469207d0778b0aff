# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The image_pull rules: grammar, candidates, problems (the messages preflight shows), presence, pull failures."""

import pytest
from hypothesis import given, settings, strategies as st

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._image_ref import (
    candidates, classify_failure, failure_message, image_problems, image_tag, judge, pin_problems, pins, present,
    problem_report, resolve)

BASE = {
    'image_pull_registries': ['quay.io', 'm.daocloud.io/quay.io'], 'image_pull_repository': 'ascend/vllm-ascend',
    'image_pull_tag': 'v0.23.0', 'image_pull_tag_suffix': None, 'image_pull_digest': '', 'image_pull_image': '',
    'image_pull_retries': 3, 'image_pull_delay': 10, 'image_pull_timeout': 3600, 'image_pull_poll_interval': 15,
    'image_pull_archive': '', 'image_pull_archive_on_node': False, 'image_pull_archive_dir': '/var/tmp/ascend-vllm',
}
DIGEST = 'sha256:' + 'a' * 64


def _inputs(**changes):
    out = dict(BASE)
    out.update(changes)
    return out


def _problems(isfile=lambda path: False, **changes):
    return image_problems(_inputs(**changes), isfile)


def test_defaults_have_no_problem():
    assert _problems() == []


# (changes, msg, fix): the exact words preflight shows (tests/reliability/bad_inputs.yml checks parts of them).
@pytest.mark.parametrize('changes, msg, fix', [
    ({'image_pull_registries': []}, 'image_pull_registries=[]: no registry to pull from',
     'list at least one registry, e.g. [quay.io, m.daocloud.io/quay.io] (guide 4.1), or load the image offline '
     'with image_pull_archive'),
    ({'image_pull_registries': ['https://quay.io']}, 'image_pull_registries[0]="https://quay.io" is not a registry address',
     'write each registry as host[:port][/path] without a scheme, one registry per list item, e.g. quay.io'),
    ({'image_pull_registries': ['quay.io', 'quay.io m.daocloud.io/quay.io']},
     'image_pull_registries[1]="quay.io m.daocloud.io/quay.io" is not a registry address',
     'write each registry as host[:port][/path] without a scheme, one registry per list item, e.g. quay.io'),
    ({'image_pull_registries': [5]}, 'image_pull_registries[0]=5 is not a registry address',
     'write each registry as host[:port][/path] without a scheme, one registry per list item, e.g. quay.io'),
    ({'image_pull_repository': 'Ascend/vllm'}, 'image_pull_repository="Ascend/vllm" is not a repository path',
     'set image_pull_repository to lower-case path components, e.g. ascend/vllm-ascend'),
    ({'image_pull_digest': 'abc123'}, 'image_pull_digest="abc123" is not a digest',
     'set image_pull_digest to sha256: and 64 hex digits (`docker images --digests` shows it), or "" to pull by tag'),
    ({'image_pull_image': 'quay.io/ascend/vllm-ascend v0.23.0-310p'},
     'image_pull_image="quay.io/ascend/vllm-ascend v0.23.0-310p" is not an image reference',
     'write it as registry/repository:tag, e.g. quay.io/ascend/vllm-ascend:v0.23.0-310p, or "" to use '
     'image_pull_registries'),
    ({'image_pull_retries': 0}, 'image_pull_retries=0 is below 1', 'set image_pull_retries to 1 or more, e.g. 3'),
    ({'image_pull_timeout': -1}, 'image_pull_timeout=-1 is below 1', 'set image_pull_timeout to 1 or more, e.g. 3600'),
    ({'image_pull_poll_interval': '-5'}, 'image_pull_poll_interval="-5" is below 1',
     'set image_pull_poll_interval to 1 or more, e.g. 15'),
    ({'image_pull_delay': None}, 'image_pull_delay=null is not a number', 'set image_pull_delay to 0 or more, e.g. 10'),
    ({'image_pull_archive': '/nonexistent/vllm.tar'}, 'image_pull_archive="/nonexistent/vllm.tar" is not a file on the controller',
     'make the tarball with docker save on a connected machine and put it at that path, or set '
     'image_pull_archive_on_node: true when it is on the node already'),
    ({'image_pull_archive': '/x.tar', 'image_pull_archive_on_node': True, 'image_pull_archive_node_isreg': False},
     'image_pull_archive="/x.tar" is not a file on the node',
     'copy the docker save tarball to that path on the node, or set image_pull_archive_on_node: false to copy it '
     'from the controller'),
])
def test_each_bad_input_gives_one_problem(changes, msg, fix):
    assert _problems(**changes) == [{'check': 'image', 'msg': msg, 'fix': fix}]


def test_problems_come_all_at_once_in_reading_order():
    found = _problems(image_pull_registries=['https://a', 'b c'], image_pull_repository='X', image_pull_retries=0)
    assert [p['msg'].split('=')[0] for p in found] == [
        'image_pull_registries[0]', 'image_pull_registries[1]', 'image_pull_repository', 'image_pull_retries']


@pytest.mark.parametrize('value', [1, '3', True, 2.5])
def test_counts_given_as_digits_or_numbers_pass(value):
    assert _problems(image_pull_retries=value) == []


def test_registries_are_not_judged_when_not_pulling_from_them():
    assert _problems(image_pull_registries=[], image_pull_image='quay.io/ascend/vllm-ascend:v0.23.0-310p') == []
    assert _problems(isfile=lambda path: True, image_pull_registries=['https://x'], image_pull_archive='/t.tar') == []


def test_archive_problems():
    assert _problems(isfile=lambda path: path == '/t.tar', image_pull_archive='/t.tar') == []
    found = _problems(isfile=lambda path: True, image_pull_archive='/t.tar', image_pull_archive_dir='tmp')
    assert [p['msg'] for p in found] == ['image_pull_archive_dir="tmp" is not an absolute path on the node']
    # On the node: unknown until the node answered, and the controller path is not asked.
    assert _problems(image_pull_archive='/t.tar', image_pull_archive_on_node='yes') == []
    assert _problems(image_pull_archive='/t.tar', image_pull_archive_on_node=True, image_pull_archive_node_isreg=True) == []


@pytest.mark.parametrize('changes, suffix, tag, refs', [
    ({}, '-310p', 'v0.23.0-310p',
     ['quay.io/ascend/vllm-ascend:v0.23.0-310p', 'm.daocloud.io/quay.io/ascend/vllm-ascend:v0.23.0-310p']),
    ({'image_pull_tag_suffix': '-310p-openeuler'}, '-310p', 'v0.23.0-310p-openeuler',
     ['quay.io/ascend/vllm-ascend:v0.23.0-310p-openeuler',
      'm.daocloud.io/quay.io/ascend/vllm-ascend:v0.23.0-310p-openeuler']),
    ({'image_pull_tag_suffix': ''}, '-310p', 'v0.23.0',
     ['quay.io/ascend/vllm-ascend:v0.23.0', 'm.daocloud.io/quay.io/ascend/vllm-ascend:v0.23.0']),
    ({'image_pull_registries': ['10.0.0.5:5000/']}, '-310p', 'v0.23.0-310p', ['10.0.0.5:5000/ascend/vllm-ascend:v0.23.0-310p']),
    ({'image_pull_digest': DIGEST, 'image_pull_registries': ['quay.io']}, '-310p', 'v0.23.0-310p',
     ['quay.io/ascend/vllm-ascend@' + DIGEST]),
    ({'image_pull_image': 'my.reg/x:y'}, '-310p', 'v0.23.0-310p', ['my.reg/x:y']),
    ({'image_pull_tag': 0.23}, '-310p', '0.23-310p',
     ['quay.io/ascend/vllm-ascend:0.23-310p', 'm.daocloud.io/quay.io/ascend/vllm-ascend:0.23-310p']),
])
def test_candidates_and_tag(changes, suffix, tag, refs):
    inputs = _inputs(**changes)
    assert image_tag(inputs, suffix) == tag
    assert candidates(inputs, tag) == refs
    judged = judge(inputs, suffix, lambda path: False)
    assert (judged['candidates'], judged['image_tag']) == (refs, tag)


def test_judge_gives_the_problems_with_the_candidates():
    judged = judge(_inputs(image_pull_registries=['https://quay.io']), '-310p', lambda path: False)
    assert judged['candidates'] == ['https://quay.io/ascend/vllm-ascend:v0.23.0-310p']
    assert [p['msg'] for p in judged['problems']] == ['image_pull_registries[0]="https://quay.io" is not a registry address']


def test_no_suffix_without_a_profile():
    with pytest.raises(ValueError, match='image_pull_tag_suffix is null'):
        image_tag(_inputs(), None)


REFS = ['10.0.0.5:5000/ascend/vllm-ascend:v0.23.0-310p', 'quay.io/ascend/vllm-ascend:v0.23.0-310p']


@pytest.mark.parametrize("node, pinned, ref, present_, refs", [
    ([], False, REFS[0], False, []),
    (['debian:12'], False, REFS[0], False, []),
    ([REFS[1]], False, REFS[1], True, [REFS[1]]),
    ([REFS[1], REFS[0]], False, REFS[0], True, REFS),
    # The same repository and tag under another registry name (a loaded tarball, an old mirror).
    (['old.mirror/ascend/vllm-ascend:v0.23.0-310p'], False, 'old.mirror/ascend/vllm-ascend:v0.23.0-310p', True,
     ['old.mirror/ascend/vllm-ascend:v0.23.0-310p']),
    (['ascend/vllm-ascend:v0.23.0-310p'], False, 'ascend/vllm-ascend:v0.23.0-310p', True, ['ascend/vllm-ascend:v0.23.0-310p']),
    (['other/ascend/vllm-ascend:v0.23.0-310p-openeuler', 'notascend/vllm-ascend:v0.23.0-310p'], False, REFS[0], False, []),
    # A pin only matches itself.
    (['old.mirror/ascend/vllm-ascend:v0.23.0-310p'], True, REFS[0], False, []),
])
def test_presence(node, pinned, ref, present_, refs):
    assert present(node, REFS, 'ascend/vllm-ascend', 'v0.23.0-310p', pinned) == {
        'ref': ref, 'present': present_, 'refs': refs, 'id': None}


def test_presence_from_docker_host_info_gives_the_id():
    node = [{'RepoTags': None, 'Id': 'sha256:dangling'}, {'RepoTags': [REFS[1], 'x:y'], 'Id': 'sha256:0123456789abcdef'}]
    found = present(node, REFS, 'ascend/vllm-ascend', 'v0.23.0-310p', False)
    assert (found['ref'], found['present'], found['id']) == (REFS[1], True, 'sha256:0123456789abcdef')
    assert present([], [], 'r', 't', False) == {'ref': '', 'present': False, 'refs': [], 'id': None}


REFUSED = ('500 Server Error for http+docker://localhost/v1.41/images/create?tag=v0.23.0-310p&fromImage=127.0.0.1%3A5999'
           '%2Fascend%2Fvllm-ascend: Internal Server Error ("Get "https://127.0.0.1:5999/v2/": dial tcp 127.0.0.1:5999: '
           'connect: connection refused")')
UNKNOWN = ('404 Client Error for http+docker://localhost/v1.41/images/create?tag=v0.99.0-310p: Not Found ("manifest for '
           '127.0.0.1:5000/ascend/vllm-ascend:v0.99.0-310p not found: manifest unknown: manifest unknown")')


@pytest.mark.parametrize('raw, reason, missing', [
    (REFUSED, 'Get "https://127.0.0.1:5999/v2/": dial tcp 127.0.0.1:5999: connect: connection refused', False),
    (UNKNOWN, 'manifest for 127.0.0.1:5000/ascend/vllm-ascend:v0.99.0-310p not found: manifest unknown: manifest unknown',
     True),
    ('error pulling: name unknown', 'error pulling: name unknown', True),
    (None, 'failed', False),
    ('("")', '("")', False),
    ('read tcp:\n   connection   reset by peer', 'read tcp: connection reset by peer', False),
])
def test_classify_failure(raw, reason, missing):
    assert classify_failure(raw) == {'reason': reason, 'missing': missing}


def test_long_reasons_are_cut_at_a_word():
    reason = classify_failure('word ' * 100)['reason']
    assert reason.endswith('word...') and len(reason) <= 300
    assert classify_failure('x' * 304)['reason'] == 'x' * 304


def _error(ref, attempt, reason, missing=False):
    return {'ref': ref, 'attempt': attempt, 'reason': reason, 'missing': missing}


def test_failure_message_network():
    errors = [_error(REFS[0], 1, 'connection refused'), _error(REFS[0], 2, 'connection refused again'),
              _error(REFS[1], 1, 'manifest unknown', True)]
    assert failure_message('node1', REFS, errors, BASE, 'v0.23.0-310p') == (
        'Could not pull the vllm-ascend image on node1 from any registry (%s, %s). '
        '%s: failed after 2 attempt(s) (connection refused again); '
        '%s: not found, the registry has no such tag or digest after 1 attempt(s) (manifest unknown). '
        "Fix: check the node's network/proxy to the registries, put a reachable mirror first in image_pull_registries, "
        'or load the image offline with image_pull_archive (docker save tarball); the registries that answered do not '
        'have v0.23.0-310p: check image_pull_tag.' % (REFS[0], REFS[1], REFS[0], REFS[1]))


def test_failure_message_when_every_registry_says_not_found():
    errors = [_error(ref, 1, 'manifest unknown', True) for ref in REFS]
    msg = failure_message('node1', REFS, errors, BASE, 'v0.23.0-310p')
    assert msg.endswith(
        "Fix: the image reference does not exist: check image_pull_tag (v0.23.0, tag v0.23.0-310p with the platform's "
        'suffix), image_pull_digest or image_pull_image against the tags the registry lists '
        '(GET /v2/ascend/vllm-ascend/tags/list).')
    assert msg.count('no such tag or digest after 1 attempt(s) (manifest unknown)') == 2


def test_the_balancers_failure_names_the_balancers_variables():
    # The balancer's HAProxy image (plan/_host.balancer_image): its own variables, never image_pull_*.
    from ansible_collections.ascend.vllm.plugins.plugin_utils.plan._host import balancer_image
    values = {'balancer_tag': '2.6', 'balancer_repository': 'library/haproxy', 'balancer_registries': ['r1'],
              'balancer_image': '', 'image_pull_policy': 'not_present'}
    inputs = balancer_image(type('R', (), {'get': staticmethod(values.get)}))['inputs']
    refs = ['r1/library/haproxy:2.6']
    network = failure_message('n', refs, [_error(refs[0], 1, 'refused')], inputs, '2.6')
    assert network.startswith('Could not pull the HAProxy image of the balancer on n from any registry')
    assert 'mirror first in balancer_registries, or load the image offline with balancer_image_archive' in network
    absent = failure_message('n', refs, [_error(refs[0], 1, 'manifest unknown', True)], inputs, '2.6')
    assert 'check balancer_tag (2.6, tag 2.6' in absent and '/v2/library/haproxy/tags/list' in absent
    assert 'image_pull' not in network + absent


def test_failure_message_names_untried_registries():
    msg = failure_message('n', REFS, [_error(REFS[0], 1, 'refused')], BASE, 't')
    assert '%s: failed after 0 attempt(s) (not tried).' % REFS[1] in msg


def test_problem_report():
    problems = [{'check': 'image', 'msg': 'a=1 is bad', 'fix': 'set a'}, {'check': 'image', 'msg': 'b', 'fix': 'c'}]
    assert problem_report('n1', problems) == (
        '2 image problem(s) on n1; nothing was pulled:\n- [image] a=1 is bad. Fix: set a\n- [image] b. Fix: c\n')


# ------------------------------------------------------------------ tags written in a reference, digest pins

PIN = 'sha256:' + 'a' * 64
OTHER = 'sha256:' + 'b' * 64


@pytest.mark.parametrize('image, expected', [
    ('r.io/ascend/vllm-ascend:v0.11.0-310p', 'v0.11.0-310p'),
    ('r.io:5000/ascend/vllm-ascend:v0.22.0-310p@' + PIN, 'v0.22.0-310p'),
    ('r.io/ascend/vllm-ascend:latest', 'v0.23.0-310p'),
    ('r.io/ascend/vllm-ascend@' + PIN, 'v0.23.0-310p'),
])
def test_the_release_tag_written_in_image_pull_image_is_the_tag(image, expected):
    assert image_tag(_inputs(image_pull_image=image), '-310p') == expected


def test_judge_lists_the_pins():
    judged = judge(_inputs(image_pull_digest=PIN, image_pull_registries=['q.io']), '-310p', lambda path: False)
    assert judged['pins'] == [{'ref': 'q.io/ascend/vllm-ascend:v0.23.0-310p', 'digest': PIN,
                               'candidate': 'q.io/ascend/vllm-ascend@' + PIN, 'variable': 'image_pull_digest'}]
    assert judge(_inputs(), '-310p', lambda path: False)['pins'] == []


def test_pins_name_the_tag_to_ask_about():
    exact = pins(['r.io:5000/a/b:v0.23.0-310p@' + PIN], 'v0.23.0-310p', 'r.io:5000/a/b:v0.23.0-310p@' + PIN)
    assert exact == [{'ref': 'r.io:5000/a/b:v0.23.0-310p', 'digest': PIN,
                      'candidate': 'r.io:5000/a/b:v0.23.0-310p@' + PIN, 'variable': 'image_pull_image'}]
    digest = pins(['q.io/a/b@' + PIN, 'm.io/a/b@' + PIN], 'v0.23.0-310p', '')
    assert [(p['ref'], p['variable']) for p in digest] == [
        ('q.io/a/b:v0.23.0-310p', 'image_pull_digest'), ('m.io/a/b:v0.23.0-310p', 'image_pull_digest')]
    # A digest-only exact image names no tag; an unpinned candidate is not a pin.
    assert pins(['q.io/a/b@' + PIN], 'v0.23.0-310p', 'q.io/a/b@' + PIN) == []
    assert pins(['q.io/a/b:v0.23.0-310p'], 'v0.23.0-310p', '') == []


def test_a_pin_the_tag_does_not_point_to_is_refused_with_the_right_digest():
    pinned = pins(['q.io/a/b:v0.23.0-310p@' + PIN], 'x', 'q.io/a/b:v0.23.0-310p@' + PIN)
    found = pin_problems(pinned, {'q.io/a/b:v0.23.0-310p': {'digest': OTHER, 'children': [], 'status': 200}})
    assert found[0]['msg'].startswith('image_pull_image="q.io/a/b:v0.23.0-310p@%s" pins %s, but the registry says '
                                      'q.io/a/b:v0.23.0-310p points to %s' % (PIN, PIN, OTHER))
    assert 'q.io/a/b:v0.23.0-310p@' + OTHER in found[0]['fix']


def test_a_pin_is_fine_when_it_is_the_tag_or_one_of_its_platforms():
    pinned = pins(['q.io/a/b@' + PIN], 'v1', '')
    assert pin_problems(pinned, {'q.io/a/b:v1': {'digest': PIN, 'status': 200}}) == []
    assert pin_problems(pinned, {'q.io/a/b:v1': {'digest': OTHER, 'children': [PIN], 'status': 200}}) == []


def test_a_missing_tag_is_refused_and_an_unreachable_registry_says_nothing():
    pinned = pins(['q.io/a/b@' + PIN], 'v9', '')
    missing = pin_problems(pinned, {'q.io/a/b:v9': {'digest': None, 'status': 404, 'error': 'HTTP 404'}})
    assert missing[0]['msg'].startswith('image_pull_digest="%s": the registry has no q.io/a/b:v9' % PIN)
    assert pin_problems(pinned, {'q.io/a/b:v9': {'digest': None, 'status': None, 'error': 'refused'}}) == []
    assert pin_problems(pinned, {}) == []


# --- resolve: the image_pull role's whole judgement (ascend.vllm.image_ensure without candidates) ---

REF = 'quay.io/ascend/vllm-ascend:v0.23.0-310p'


def test_judge_reads_the_tarball_on_the_controller(tmp_path):
    tarball = tmp_path / 'vllm.tar'
    tarball.write_bytes(b'')
    plan = judge(_inputs(image_pull_registries=['127.0.0.1:5000'], image_pull_archive=str(tarball)), '-310p',
                 lambda path: path == str(tarball))
    assert plan == {'candidates': ['127.0.0.1:5000/ascend/vllm-ascend:v0.23.0-310p'], 'image_tag': 'v0.23.0-310p',
                    'pins': [], 'problems': []}
    missing = judge(_inputs(image_pull_archive=str(tmp_path / 'no.tar')), '-310p', lambda path: False)
    assert [p['msg'] for p in missing['problems']] == [
        'image_pull_archive="%s" is not a file on the controller' % (tmp_path / 'no.tar')]


def test_judge_without_any_suffix_names_the_variable():
    with pytest.raises(ValueError, match='image_pull_tag_suffix is null'):
        judge(_inputs(), None, lambda path: False)


def test_resolve_present_image_leaves_nothing_to_do():
    out = resolve(_inputs(image_pull_policy='not_present'), '-310p', lambda path: False, [REF, 'debian:12'])
    assert (out['found']['ref'], out['found']['present'], out['done'], out['needed'], out['problems']) == (
        REF, True, True, False, [])


def test_resolve_tarball_said_on_node_but_missing_is_a_problem():
    inputs = _inputs(image_pull_archive='/srv/vllm.tar', image_pull_archive_on_node=True,
                     image_pull_policy='not_present')
    out = resolve(inputs, '-310p', lambda path: False, [], archive_node_isreg=False)
    assert out['needed'] and any('image_pull_archive' in p['msg'] for p in out['problems'])
    assert not resolve(inputs, '-310p', lambda path: False, [], archive_node_isreg=True)['problems']


def test_resolve_offline_without_image_or_tarball_is_refused_with_the_fix():
    out = resolve(_inputs(image_pull_offline=True, image_pull_policy='not_present'), '-310p', lambda path: False, [])
    assert [p['msg'] for p in out['problems']] == [
        'image_pull_offline=true: the image %s is not on the node, and with no registry in reach nothing can pull it'
        % REF]
    assert 'image_pull_archive' in out['problems'][0]['fix']
    assert problem_report('n1', out['problems']).startswith('1 image problem(s) on n1; nothing was pulled:')


@settings(max_examples=200, deadline=None)
@given(on_node=st.booleans(), policy=st.sampled_from(['not_present', 'always']), offline=st.booleans(),
       archive=st.sampled_from(['', '/srv/vllm.tar']), retries=st.sampled_from([3, 0]))
def test_resolve_needed_is_false_only_when_nothing_is_left_to_do(on_node, policy, offline, archive, retries):
    """For every combination: work is due unless the image is there, the policy keeps it and nothing is wrong;
    the offline rule refuses exactly a missing image with no tarball."""
    inputs = _inputs(image_pull_policy=policy, image_pull_offline=offline, image_pull_archive=archive,
                     image_pull_retries=retries)
    out = resolve(inputs, '-310p', lambda path: True, [REF] if on_node else [])
    assert out['found']['present'] is on_node
    assert out['done'] is (on_node and policy == 'not_present')
    assert out['needed'] is (not out['done'] or bool(archive) or bool(out['problems']))
    offline_refused = any('nothing can pull it' in p['msg'] for p in out['problems'])
    assert offline_refused is (offline and not on_node and not archive)
    # The other two rules in play: an offline node cannot ask a registry on every run; retries >= 1.
    assert bool(out['problems']) is (offline_refused or (offline and policy == 'always') or retries == 0)
