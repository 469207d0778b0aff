# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The driver and firmware rules over the release records (releases.py, data/releases.yml).

``IMAGES`` is the driver-matrix view of the records whose CANN and Ascend HDK list were read: one
entry per image tag, derived from its record (the record is the one home of every fact in it).
The rules below are pure functions over plain data: ``driver_verdict`` judges the node's
driver version against an entry, ``firmware_verdict`` judges a card's firmware against the
driver, the way the driver itself does (its DCMI library). The node preflight reports what
they return (plugin_utils/judge/_node_problems.py).

[DCMI] The Ascend driver's DCMI library (the public copy of Huawei's driver source,
       src/custom/dev_prod/user/dcmi: ``dcmi_get_device_compatibility``,
       ``dcmi_judge_compatibility``; npucli ``npu_info_print.c``): the ``Compatibility`` line of
       ``npu-smi info -t board -i ID`` is the driver's verdict on the card's firmware, OK when the
       running firmware is in a range of ``compatible_version_fw`` of the driver's version.info
       (each version cut to the length of the range's bounds, then compared as text), NOK for a
       firmware below "6.4."; printed for EP cards only, never on SoC boards.
"""

from __future__ import annotations

import copy
import re
from typing import Any, Dict, List, Optional, Tuple

from ansible_collections.ascend.vllm.plugins.module_utils._image import tag_of

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts import releases


def _entry(record: Optional[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
    """The driver-matrix view of a release record, or None when its CANN or HDK list was not read."""
    if not record or not record.get('cann') or not record.get('hdk') or 'hdk' in record['unverified']:
        return None
    sources = record['sources']
    return {
        'release': record['release'],
        'vllm_ascend': record['release'],
        'vllm': ('v' + record['vllm']) if record.get('vllm') else None,
        'cann': record['cann'],
        'hdk_paired': record['hdk']['paired'],
        'hdk_compatible': list(record['hdk']['compatible']),
        'hdk_incompatible': list(record['hdk']['incompatible']),
        'sources': dict([(key, sources[key]) for key in ('vllm', 'cann', 'python', 'hdk') if key in sources]
                        + [('firmware', '[DCMI] the driver judges its firmware by compatible_version_fw of its '
                                        'version.info')]),
        'unverified': ['%s: %s' % item for item in sorted(record['unverified'].items())],
    }


IMAGES: Dict[str, Dict[str, Any]] = dict(
    (tag, _entry(record)) for record in map(releases.RELEASES.get, releases.names()) if _entry(record)
    for tag in record['images'].values())

# npu_check_driver_min_version's default: the oldest driver the image's entry allows.
AUTO = 'auto'
# [DCMI] COMPAT_VERSION_START_FW: the driver calls any firmware below this incompatible.
FIRMWARE_FLOOR = '6.4.'

# "25.2.0", "25.0.rc1.1", "26.0.RC1", "22.0.4" (driver versions as version.info and npu-smi print them).
_DRIVER_RE = re.compile(r'^(\d+)\.(\d+)\.(?:(rc)(\d+)|(\d+))((?:\.\d+)*)$', re.IGNORECASE)
# HDK releases as the release notes write them: "25.2.X", "26.0.RC1", "26.1.0".
_HDK_RE = re.compile(r'^(\d+)\.(\d+)\.(X|RC\d+|\d+)$', re.IGNORECASE)


def entry_for(image: Any, release: Any = None) -> Optional[Dict[str, Any]]:
    """The matrix entry of an image tag or reference, or None when the tag has none.

    ``release`` (image_pull_assume_release) names the record to judge a tag by that has none of its own.
    """
    entry = IMAGES.get(tag_of(image)) or (_entry(releases.RELEASES.get(str(release))) if release else None)
    return copy.deepcopy(entry)


def parse_driver_version(text: Any) -> Tuple[int, int, int, int, Tuple[int, ...]]:
    """Sort key of a driver version: (major, minor, 0 for rcN / 1 for a release, N or patch, rest).

    "26.0.rc1" < "26.0.0" < "26.0.1".  Raises ValueError for anything else.
    """
    match = _DRIVER_RE.match(str(text).strip()) if text is not None else None
    if not match:
        raise ValueError('driver version %r is not MAJOR.MINOR.PATCH or MAJOR.MINOR.rcN (e.g. 25.2.0, 25.0.rc1.1)'
                         % (text,))
    major, minor, rc, rc_n, patch, rest = match.groups()
    return (int(major), int(minor), 0 if rc else 1, int(rc_n if rc else patch),
            tuple(int(part) for part in rest.split('.') if part))


def _hdk(release: str) -> Tuple[int, int, Optional[Tuple[int, int]]]:
    match = _HDK_RE.match(release)
    if not match:
        raise ValueError('HDK release %r is not MAJOR.MINOR.X, MAJOR.MINOR.RCn or MAJOR.MINOR.PATCH' % (release,))
    major, minor, last = match.groups()
    if last.upper() == 'X':
        return int(major), int(minor), None
    if last.upper().startswith('RC'):
        return int(major), int(minor), (0, int(last[2:]))
    return int(major), int(minor), (1, int(last))


def in_release(key: Tuple[Any, ...], release: str) -> bool:
    """Whether a driver (its parse_driver_version key) belongs to an HDK release ("25.2.X", "26.0.RC1", "26.1.0")."""
    low, high = _release_bounds(release)
    return low <= key <= high


def _release_bounds(release: str) -> Tuple[Tuple[Any, ...], Tuple[Any, ...]]:
    major, minor, stage = _hdk(release)
    if stage is None:
        return (major, minor, 0, 0, ()), (major, minor, 2, 0, ())
    return (major, minor) + stage + ((),), (major, minor) + stage + ((1 << 30,),)


def driver_verdict(entry: Dict[str, Any], driver_version: Any) -> Dict[str, Any]:
    """Judge a driver version against a matrix entry.

    Returns ``{verdict, release, msg}``; verdict is ``ok`` (in a listed compatible release),
    ``incompatible`` (a release the notes mark N), ``too_old`` (older than every compatible
    release), ``unlisted`` (newer than the oldest compatible release but in none: not refused,
    the notes say nothing), ``unknown`` (not a driver version) or ``missing`` (no version read).
    """
    if driver_version in (None, ''):
        return {'verdict': 'missing', 'release': None, 'msg': 'no driver version was read'}
    try:
        key = parse_driver_version(driver_version)
    except ValueError as exc:
        return {'verdict': 'unknown', 'release': None, 'msg': str(exc)}
    for release in entry['hdk_compatible']:
        if in_release(key, release):
            return {'verdict': 'ok', 'release': release, 'msg': ''}
    for release in entry['hdk_incompatible']:
        if in_release(key, release):
            return {'verdict': 'incompatible', 'release': release,
                    'msg': 'the CANN %s release notes mark Ascend HDK %s incompatible' % (entry['cann'], release)}
    oldest = min(_release_bounds(release)[0] for release in entry['hdk_compatible'])
    if key < oldest:
        return {'verdict': 'too_old', 'release': None,
                'msg': 'older than every Ascend HDK the CANN %s release notes list as compatible (oldest %s)'
                       % (entry['cann'], entry['hdk_compatible'][0])}
    newest = max(_release_bounds(release)[1] for release in entry['hdk_compatible'])
    where = 'newer than' if key > newest else 'between'
    return {'verdict': 'unlisted', 'release': None,
            'msg': '%s the Ascend HDK releases the CANN %s release notes read list (%s): not verified, not refused'
                   % (where, entry['cann'], ', '.join(entry['hdk_compatible']))}


def parse_fw_ranges(text: Any) -> List[Tuple[str, str]]:
    """compatible_version_fw of version.info ("[6.4.0,6.4.99],[7.0.0,8.9.9]") as (start, end) pairs.

    Split on every "[", "]" and "," as the driver does ([DCMI] ``strtok_s(list, "],[")``);
    a bound without its pair is dropped, as there. Raises ValueError when no pair is left.
    """
    tokens = [token for token in re.split(r'[\[\],]', str(text or '')) if token.strip()]
    pairs = [(tokens[i].strip(), tokens[i + 1].strip()) for i in range(0, len(tokens) - 1, 2)]
    if not pairs:
        raise ValueError('compatible_version_fw %r has no [start,end] range' % (text,))
    return pairs


def _cut(version: str, start: str, end: str) -> str:
    return version[:max(len(start), len(end))]


def firmware_in_range(firmware: str, ranges: List[Tuple[str, str]]) -> bool:
    """[DCMI] ``dcmi_judge_compatibility``: the firmware, cut to each range's bound length, within it as text."""
    return any(start <= _cut(firmware, start, end) <= end for start, end in ranges)


def firmware_verdict(firmware: Any, driver_version: Any, fw_ranges_text: Any, compatibility: Any = None) -> Dict[str, Any]:
    """Judge a card's firmware against the driver on the node.

    ``compatibility`` is npu-smi's own ``Compatibility`` (OK, NOK, UNKNOWN, NOT SUPPORT or None when
    not printed, as on RC boards), which wins when OK or NOK. Otherwise the driver's rule is applied
    here to ``compatible_version_fw`` (``fw_ranges_text``). Returns ``{verdict, msg}``: ``ok``,
    ``incompatible`` (npu-smi said NOK), ``older`` (below every range the driver accepts, or below
    6.4), ``unjudged`` (newer than the ranges, no ranges, or no firmware version: not refused).
    """
    said = str(compatibility or '').strip().upper()
    if said == 'OK':
        return {'verdict': 'ok', 'msg': ''}
    if said == 'NOK':
        return {'verdict': 'incompatible',
                'msg': 'npu-smi reports firmware %s incompatible with driver %s (Compatibility NOK)'
                       % (firmware, driver_version)}
    fw = str(firmware or '').strip()
    if not fw or fw.upper() in ('NA', 'N/A'):
        return {'verdict': 'unjudged', 'msg': 'no firmware version was read'}
    if fw < FIRMWARE_FLOOR:
        return {'verdict': 'older',
                'msg': 'firmware %s is older than driver %s accepts (6.4 or newer)' % (fw, driver_version)}
    try:
        ranges = parse_fw_ranges(fw_ranges_text)
    except ValueError:
        return {'verdict': 'unjudged', 'msg': 'the driver\'s version.info has no compatible_version_fw'}
    if firmware_in_range(fw, ranges):
        return {'verdict': 'ok', 'msg': ''}
    shown = ','.join('[%s,%s]' % pair for pair in ranges)
    if all(_cut(fw, start, end) < start for start, end in ranges):
        return {'verdict': 'older',
                'msg': 'firmware %s is older than driver %s accepts (compatible_version_fw=%s)'
                       % (fw, driver_version, shown)}
    return {'verdict': 'unjudged',
            'msg': 'firmware %s is newer than driver %s lists (compatible_version_fw=%s); the card\'s own list decides'
                   % (fw, driver_version, shown)}
