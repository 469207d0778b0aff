# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""vllm-ascend image tags and releases: "v0.23.0rc1-310p-openeuler" -> version, rc, suffix."""

from __future__ import annotations

import re
from typing import Any, Dict, Tuple

from ansible_collections.ascend.vllm.plugins.module_utils._image import tag_of

_TAG_RE = re.compile(r'^v(\d+)\.(\d+)\.(\d+)(?:rc(\d+))?(.*)$')


def parse_image_tag(tag: str) -> Dict[str, Any]:
    """"v0.23.0rc1-310p-openeuler" -> version (0, 23, 0), rc 1, suffix "-310p-openeuler".

    A full reference ("quay.io/ascend/vllm-ascend:v0.23.0-310p", also pinned
    "...:v0.23.0-310p@sha256:...") is read for its tag (module_utils/_image.py).
    Raises ``ValueError`` when the tag is not vX.Y.Z[rcN][suffix].
    """
    text = tag_of(tag)
    match = _TAG_RE.match(text)
    if not match:
        raise ValueError('image tag %r is not vX.Y.Z[rcN][-suffix]' % (tag,))
    major, minor, patch, rc, suffix = match.groups()
    return {
        'tag': text,
        'version': [int(major), int(minor), int(patch)],
        'rc': int(rc) if rc is not None else None,
        'suffix': suffix,
    }


def image_sort_key(parsed: Dict[str, Any]) -> Tuple[int, int, int, float]:
    # A release candidate sorts before its release: v0.23.0rc1 < v0.23.0.
    rc = parsed['rc'] if parsed['rc'] is not None else float('inf')
    return (parsed['version'][0], parsed['version'][1], parsed['version'][2], rc)
