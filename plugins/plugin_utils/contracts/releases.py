# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Release records: one record per vllm-ascend release that ships 310P images (data/releases.yml).

A record holds what the collection needs to run that release: its image tag per platform, the
versions inside (vLLM, vllm-ascend, CANN, NNAL, torch, torch_npu, Python), the Ascend HDK
releases its CANN supports (and those it rules out), what each platform's container needs for
it beyond the platform profile (the shm size the tutorial gives), the "Qwen3.5-Dense" tutorial's
serve defaults at that release, the models that tutorial lists per platform, and its known 310P
issues that can be detected before start. Every fact names the source it was read from
(``sources``, keyed by field); a required field that could not be read is in ``unverified``
(field -> why) and its value is None. A record is complete when no required field is unverified.

The plan runs the newest complete record unless ``image_pull_tag`` names another
(docs/versions.md shows these records).
"""

from __future__ import annotations

import copy
from typing import Any, Dict, List, Optional

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts import _data
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._image_tags import image_sort_key, parse_image_tag

# The fields a record needs to be complete (the plan uses each of them).
REQUIRED = ('images', 'vllm', 'vllm_ascend', 'cann', 'hdk', 'container', 'serve', 'models')


def _record(release: str, fields: Dict[str, Any], suffixes: Dict[str, str]) -> Dict[str, Any]:
    record = dict((field, None) for field in _data.load('releases')['schema'])
    record.update(fields, release=release, images=dict((platform, release + suffix)
                                                       for platform, suffix in suffixes.items()))
    record['vllm_ascend'] = record['vllm_ascend'] or release.lstrip('v')
    record['issues'] = record['issues'] or []
    return record


def _records() -> Dict[str, Dict[str, Any]]:
    suffixes = dict((name, profile['image_tag_suffix']) for name, profile in _data.load('platforms')['entries'].items())
    return dict((release, _record(release, fields, suffixes))
                for release, fields in _data.load('releases')['entries'].items())


RELEASES: Dict[str, Dict[str, Any]] = _records()


def names() -> List[str]:
    """The recorded releases, oldest first (v0.23.0rc1 < v0.23.0 < v0.24.0rc1)."""
    return sorted(RELEASES, key=lambda release: image_sort_key(parse_image_tag(release)))


def missing(record: Dict[str, Any]) -> List[str]:
    """The required fields of a record that could not be read (its value is None or it is listed unverified)."""
    return [field for field in REQUIRED if record.get(field) is None or field in record.get('unverified', {})]


def complete(record: Dict[str, Any]) -> bool:
    return not missing(record)


def default_release() -> str:
    """The newest complete record: what the plan runs when image_pull_tag is not set."""
    found = [name for name in names() if complete(RELEASES[name])]
    if not found:
        raise ValueError('no release record is complete')
    return found[-1]


def get(release: Any) -> Optional[Dict[str, Any]]:
    """A copy of the record of a release ("v0.23.0"), or None."""
    record = RELEASES.get(str(release)) if release is not None else None
    return copy.deepcopy(record) if record is not None else None


def release_of_tag(tag: Any) -> Optional[str]:
    """The release whose images include this tag ("v0.23.0-310p-openeuler" -> "v0.23.0"), or None."""
    text = str(tag or '')
    for name in names():
        if text in RELEASES[name]['images'].values():
            return name
    return None


def recorded_tags() -> List[str]:
    """Every image tag of every record, oldest record first."""
    return list(dict.fromkeys(tag for name in names() for tag in RELEASES[name]['images'].values()))


def not_checked(record: Dict[str, Any]) -> List[str]:
    """What the plan cannot check for this record: one line per unverified field, with why."""
    return ['%s (%s)' % (field, why) for field, why in sorted(record.get('unverified', {}).items())]


def choose(tag: Any, assume: Any = '') -> Dict[str, Any]:
    """Which record an image tag runs under.

    Returns {release, record, assumed, problems, not_checked}: the tag's own record; else, with
    ``assume`` (image_pull_assume_release) naming a record, that record, assumed, and what is not
    checked; else a problem naming the tags that have a record. ``assume`` naming no record is
    a problem too.
    """
    tag, assume = str(tag or ''), str(assume or '')
    own = release_of_tag(tag)
    problems: List[Dict[str, str]] = []
    if assume and assume not in RELEASES:
        problems.append({'check': 'release', 'variable': 'image_pull_assume_release',
                         'msg': 'image_pull_assume_release=%s names no release record' % assume,
                         'fix': 'set image_pull_assume_release to one of %s, or "" (docs/versions.md)'
                                % ', '.join(names())})
    release = None if problems else own or assume or None
    record = get(release)
    lines = not_checked(record) if record else []
    if record and own is None:
        lines.insert(0, 'image %s has no release record: every fact of %s (versions, HDK, container line, serve '
                        'defaults, models, vLLM flags) is assumed, not read for it' % (tag, assume))
    if not record and not problems:
        problems.append({'check': 'release', 'variable': 'image_pull_tag',
                         'msg': 'image tag %s has no release record, so nothing about it (driver, CANN, container '
                                'line, models, vLLM flags) can be checked' % (tag or '""'),
                         'fix': 'set image_pull_tag to a recorded release (%s; tags %s), or set '
                                'image_pull_assume_release to the record to assume for it (docs/versions.md)'
                                % (', '.join(names()), ', '.join(recorded_tags()))})
    return {'release': release, 'record': record, 'assumed': bool(record) and own is None, 'problems': problems,
            'not_checked': lines}
