# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The image_pull role's rules: image-name grammar, candidates, input problems,
which local tag counts as present, and what a failed pull means.

Pure functions over the role's variables (keyed by their names, so every
message names the variable the user typed); the filters in plugins/filter are
thin entries over them.  Nothing here contacts a node.
"""

from __future__ import annotations

import json
import re

from ansible_collections.ascend.vllm.plugins.module_utils._image import parse, written_tag
from ansible_collections.ascend.vllm.plugins.module_utils._problem import report as render_problems
from ansible_collections.ascend.vllm.plugins.module_utils._text import truncate
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._boolean import is_true, to_bool
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._formats import format_problem, registry_problems
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._ranges import range_problems

# The grammars (Docker's reference grammar, simplified) and their messages are contracts/_formats.py's,
# which judges every variable that names an image, image_pull's and the balancer's alike.
RELEASE_TAG_RE = re.compile(r'^v?[0-9]+[.][0-9]+')

# docker_image_pull wraps the daemon's answer in the API error:
# '... 500 Server Error for http+docker://...: Internal Server Error ("Get ...: connection refused")'.
# Only the daemon's words say what went wrong.
_DAEMON_WORDS_RE = re.compile(r'(?s)\("(.*)"\)\s*$')
# A registry that answers "no such tag or digest": asking again changes nothing.
_NOT_FOUND_RE = re.compile(r'404 Client Error|manifest unknown|name unknown|not found: manifest')
REASON_LENGTH = 300


def _problem(msg, fix):
    return {'check': 'image', 'msg': msg, 'fix': fix}


def _str(value):
    return '' if value is None else str(value)


def _items(value):
    return list(value) if isinstance(value, (list, tuple, dict)) else []


def _archive_problems(inputs, controller_isfile):
    archive = inputs.get('image_pull_archive')
    on_node = is_true(inputs.get('image_pull_archive_on_node', False))
    out = []
    if not on_node and not controller_isfile(archive):
        out.append(_problem('image_pull_archive=%s is not a file on the controller' % json.dumps(archive),
                            'make the tarball with docker save on a connected machine and put it at that path, or '
                            'set image_pull_archive_on_node: true when it is on the node already'))
    isreg = inputs.get('image_pull_archive_node_isreg')
    if on_node and isreg is not None and not is_true(isreg):
        out.append(_problem('image_pull_archive=%s is not a file on the node' % json.dumps(archive),
                            'copy the docker save tarball to that path on the node, or set image_pull_archive_on_node: '
                            'false to copy it from the controller'))
    archive_dir = inputs.get('image_pull_archive_dir')
    if not on_node and not (isinstance(archive_dir, str) and archive_dir.startswith('/')):
        out.append(_problem('image_pull_archive_dir=%s is not an absolute path on the node' % json.dumps(archive_dir),
                            'set image_pull_archive_dir to an absolute directory, e.g. /var/tmp/ascend-vllm'))
    return out


def image_problems(inputs, controller_isfile):
    """What is wrong with the image inputs, each {check, msg, fix}, in the order a user reads them.

    ``inputs`` holds the role variables by name; ``image_pull_archive_node_isreg`` is the node's
    answer for an on-node tarball (None while unknown: no problem yet).  ``controller_isfile(path)``
    says whether the controller has that file.
    """
    pulling = len(_str(inputs.get('image_pull_archive'))) == 0
    image = inputs.get('image_pull_image') or ''
    out = []
    registries = _items(inputs.get('image_pull_registries'))
    if pulling and not image and not registries:
        out.append(_problem('image_pull_registries=[]: no registry to pull from',
                            'list at least one registry, e.g. [quay.io, m.daocloud.io/quay.io] (guide 4.1), or load '
                            'the image offline with image_pull_archive'))
    elif pulling and not image:
        out += [dict(found, check='image') for found in registry_problems('image_pull_registries', registries)]
    found = [format_problem(name, inputs.get(name), empty_ok) for name, empty_ok in
             (('image_pull_repository', False), ('image_pull_digest', True), ('image_pull_image', True))]
    out += [dict(problem, check='image') for problem in found + range_problems(inputs, 'image_pull_') if problem]
    if not pulling:
        out += _archive_problems(inputs, controller_isfile)
    if to_bool(inputs.get('image_pull_offline')) and inputs.get('image_pull_policy') == 'always':
        out.append(_problem('image_pull_policy="always" asks a registry on every run, and image_pull_offline is true '
                            '(the node reaches no registry)',
                            'set image_pull_policy: not_present, and load a new image with image_pull_archive'))
    return out


def offline_problems(inputs, found, variable='image_pull_offline'):
    """With image_pull_offline, an image that is neither on the node nor in a tarball: nothing could fetch it.

    ``found``: what ``present`` says of the node's images; ``variable``: the name the user set.
    """
    # As the roles read it: "yes", "true" and 1 are true too (the argument spec's bool).
    if not to_bool(inputs.get('image_pull_offline')) or found.get('present') or _str(inputs.get('image_pull_archive')):
        return []
    return [_problem('%s=true: the image %s is not on the node, and with no registry in reach nothing can pull it'
                     % (variable, found.get('ref')),
                     'on a machine with access run `docker pull` and `docker save -o vllm-ascend.tar` of the image, '
                     'then set image_pull_archive to that tarball on the controller (docs/air-gapped.md)')]


def image_tag(inputs, profile_suffix):
    """The tag pulled: the release tag written in image_pull_image when it has one, else image_pull_tag plus
    image_pull_tag_suffix, or the profile's suffix when that is null."""
    written = written_tag(inputs.get('image_pull_image'))
    # A release tag (v0.23.0-310p) is what runs; a tag of one's own (latest) says nothing of the release.
    if written and RELEASE_TAG_RE.match(written):
        return written
    suffix = inputs.get('image_pull_tag_suffix')
    if suffix is None:
        if profile_suffix is None:
            raise ValueError('no image tag suffix: image_pull_tag_suffix is null and there is no platform profile')
        suffix = profile_suffix
    # str() like Jinja's `~`: a tag YAML read as a number (0.23) keeps its digits.
    return str(inputs.get('image_pull_tag')) + str(suffix)


def candidates(inputs, tag):
    """References to try, in registry order: the exact image, else <registry>/<repository>:<tag> or @<digest>."""
    image = inputs.get('image_pull_image') or ''
    if image:
        return [image]
    repository = _str(inputs.get('image_pull_repository'))
    digest = inputs.get('image_pull_digest') or ''
    return ['%s/%s%s' % (_str(registry).rstrip('/'), repository, '@' + digest if digest else ':' + tag)
            for registry in _items(inputs.get('image_pull_registries'))]


def judge(inputs, profile_suffix, controller_isfile):
    """{candidates, image_tag, pins, problems}: everything the controller can say about the image inputs."""
    tag = image_tag(inputs, profile_suffix)
    refs = candidates(inputs, tag)
    return {'candidates': refs, 'image_tag': tag, 'pins': pins(refs, tag, inputs.get('image_pull_image') or ''),
            'problems': image_problems(inputs, controller_isfile)}


def pins(refs, tag, image):
    """The candidates pinned to a digest whose tag is known, each {ref, digest, candidate, variable}.

    ``ref`` is the registry/repository:tag to ask the registry about: the tag written in the
    pinned image_pull_image, or ``tag`` (image_pull_tag with its suffix) for image_pull_digest.
    A digest-only image_pull_image names no tag, so there is nothing to compare it with.
    """
    out = []
    for candidate in refs or []:
        if not isinstance(candidate, str) or '@' not in candidate:
            continue
        ref = parse(candidate)
        name, digest = str(ref._replace(digest='')), ref.digest
        if ref.tag:
            out.append({'ref': name, 'digest': digest, 'candidate': candidate, 'variable': 'image_pull_image'})
        elif not image and tag:
            out.append({'ref': '%s:%s' % (name, tag), 'digest': digest, 'candidate': candidate,
                        'variable': 'image_pull_digest'})
    return out


def pin_problems(pinned, answers):
    """A problem per pin whose digest is not what its registry says the tag points to.

    ``answers`` is node_facts' ``manifests`` ({ref: {digest, children, status, error}}); a registry
    that did not answer says nothing (the pull reports an unreachable registry).
    """
    out = []
    for pin in pinned or []:
        answer = (answers or {}).get(pin['ref']) or {}
        told = answer.get('digest')
        shown = pin['candidate'] if pin['variable'] == 'image_pull_image' else pin['digest']
        if told and (pin['digest'] == told or pin['digest'] in (answer.get('children') or [])):
            continue
        if answer.get('status') == 404:
            out.append(_problem('%s=%s: the registry has no %s (HTTP 404), so the pin cannot be checked against '
                                'its tag' % (pin['variable'], json.dumps(shown), pin['ref']),
                                'check the tag (%s) against the tags the registry lists' % pin['ref']))
        elif told:
            out.append(_problem('%s=%s pins %s, but the registry says %s points to %s: the container would run '
                                'another image than the tag names' % (
                                    pin['variable'], json.dumps(shown), pin['digest'], pin['ref'], told),
                                'pin the digest the tag points to (%s@%s), or write the tag that digest was taken '
                                'from' % (pin['ref'], told)))
    return out


def _local_tags(node_images):
    """(tags, {tag: id}) from 'repo:tag' strings or docker_host_info image dicts (RepoTags, Id)."""
    tags, ids = [], {}
    for image in node_images or []:
        if isinstance(image, dict):
            for tag in image.get('RepoTags') or []:
                tags.append(tag)
                ids.setdefault(tag, image.get('Id'))
        elif isinstance(image, str) and image:
            tags.append(image)
    return tags, ids


def present(node_images, refs, repository, tag, pinned):
    """Which image this host runs and whether the node has it.

    The first candidate (in registry order) on the node wins, then any local
    <anything>/<repository>:<tag> (a loaded tarball, an earlier mirror); otherwise
    the first candidate is what a pull tries first.  A pin (exact image or digest)
    only matches itself.  Returns {ref, present, refs, id}; id is the local image
    id when the node listing gave one.
    """
    tags, ids = _local_tags(node_images)
    found = [ref for ref in refs if ref in tags]
    if not pinned:
        wanted = '%s:%s' % (repository, tag)
        for local in tags:
            if (local == wanted or local.endswith('/' + wanted)) and local not in found:
                found.append(local)
    chosen = (found + list(refs) + [''])[0]
    return {'ref': chosen, 'present': bool(found), 'refs': found, 'id': ids.get(chosen) if found else None}


def resolve(inputs, profile_suffix, controller_isfile, node_images, archive_node_isreg=None):
    """image_pull's whole judgement of one host: ``judge`` with the tarball the node has (``archive_node_isreg``,
    None when not looked for), which reference runs and whether the node has it, the offline rule, and what is
    left to do. Returns ``judge``'s keys plus {found, done, needed}: ``done`` when the image is there and the
    policy is not_present; ``needed`` when a pull or load is due, a tarball is given or the inputs are wrong."""
    if archive_node_isreg is not None:
        inputs = dict(inputs, image_pull_archive_node_isreg=bool(archive_node_isreg))
    judged = judge(inputs, profile_suffix, controller_isfile)
    pinned = bool(inputs.get('image_pull_image') or inputs.get('image_pull_digest'))
    found = present(node_images, judged['candidates'], inputs.get('image_pull_repository'), judged['image_tag'],
                    pinned)
    problems = judged['problems'] + offline_problems(inputs, found)
    done = bool(found['present']) and inputs.get('image_pull_policy') == 'not_present'
    needed = not done or bool(_str(inputs.get('image_pull_archive'))) or bool(problems)
    return dict(judged, problems=problems, found=found, done=done, needed=needed)


def classify_failure(raw):
    """{reason, missing} for a failed pull: the daemon's own words, and whether the registry said "not found"."""
    raw = 'failed' if raw is None else str(raw)
    found = _DAEMON_WORDS_RE.search(raw)
    reason = (found.group(1) if found else '') or raw
    return {'reason': truncate(re.sub(r'\s+', ' ', reason), REASON_LENGTH),
            'missing': _NOT_FOUND_RE.search(raw) is not None}


def failure_message(host, refs, errors, inputs, tag):
    """The one message for "no registry gave the image": each registry's last answer and the fix.

    ``errors`` are the failed attempts [{ref, attempt, reason, missing}]; a reference that
    answered "not found" from every registry is a wrong reference, not the network.
    """
    # The balancer's HAProxy image names its own variables (``inputs['names']``, plan/_host.balancer_image).
    names = {**{name: name for name in ('image_pull_tag', 'image_pull_registries', 'image_pull_archive',
                                        'image_pull_digest', 'image_pull_image')},
             'image': 'vllm-ascend image', **(inputs.get('names') or {})}
    missing = [e['ref'] for e in errors if e.get('missing')]
    parts = []
    for index, ref in enumerate(refs):
        tries = [e for e in errors if e['ref'] == ref]
        state = 'not found, the registry has no such tag or digest' if ref in missing else 'failed'
        parts.append('%s: %s after %d attempt(s) (%s)%s' % (
            ref, state, len(tries), tries[-1]['reason'] if tries else 'not tried', '.' if index == len(refs) - 1 else ';'))
    if len(missing) == len(refs):
        fix = ("the image reference does not exist: check %s (%s, tag %s with the platform's suffix), "
               "%s or %s against the tags the registry lists (GET /v2/%s/tags/list)"
               % (names['image_pull_tag'], _str(inputs.get('image_pull_tag')), tag, names['image_pull_digest'],
                  names['image_pull_image'], _str(inputs.get('image_pull_repository'))))
    else:
        fix = ("check the node's network/proxy to the registries, put a reachable mirror first in "
               "%s, or load the image offline with %s (docker save tarball)"
               % (names['image_pull_registries'], names['image_pull_archive']))
        if missing:
            fix += '; the registries that answered do not have %s: check %s' % (tag, names['image_pull_tag'])
    return ' '.join(['Could not pull the %s on %s from any registry (%s).' % (names['image'], host, ', '.join(refs))]
                    + parts + ['Fix: %s.' % fix])


def problem_report(host, problems):
    """The message that stops a run on image input problems: a count, then one line per problem."""
    return render_problems('image', host, problems, 'nothing was pulled')
