# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""An image reference, read once: ``[registry/]repository[:tag][@digest]``.

The one reader of image references for the whole collection, on the controller and on the node. It
splits as Docker's reference grammar does (the ``distribution/reference`` package the Engine uses,
``splitDockerDomain``): the first path component is the registry when it contains ``.`` or ``:``, is
``localhost``, or has an upper-case letter; the tag follows the last ``:`` after the registry; the
digest follows ``@``. It does not judge: what a valid reference is (lower-case repositories, tag
length) is the request's contract (plugin_utils/contracts/_image_ref.py).
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional, Tuple

# What Docker writes for a reference without a registry (the Engine and the registry's HTTP API).
DOCKER_HUB = 'registry-1.docker.io'


class ImageRef(NamedTuple):
    """The parts of a reference as written; an empty string for a part that is not written."""

    registry: str
    repository: str
    tag: str
    digest: str

    @property
    def name(self) -> str:
        """The reference without its tag and digest, as written (``quay.io/ascend/vllm-ascend``)."""
        return '%s/%s' % (self.registry, self.repository) if self.registry else self.repository

    def __str__(self) -> str:
        return self.name + (':' + self.tag if self.tag else '') + ('@' + self.digest if self.digest else '')

    def engine_parts(self) -> Tuple[str, str, str]:
        """``(registry, fromImage, tag)`` as the Engine's ``POST /images/create`` takes them: the name with its
        registry, and the digest, else the tag, else ``latest`` (registry '' for Docker Hub)."""
        return self.registry, self.name, self.digest or self.tag or 'latest'

    def registry_parts(self) -> Tuple[str, str, Optional[str]]:
        """``(registry host, repository path, tag or None)`` as the registry's HTTP API wants them: Docker Hub
        and its ``library/`` namespace when no registry is written."""
        if self.registry:
            return self.registry, self.repository, self.tag or None
        path = self.repository if '/' in self.repository else 'library/' + self.repository
        return DOCKER_HUB, path, self.tag or None


def parse(text: str) -> ImageRef:
    """The parts of an image reference. Raises ``ValueError`` for anything but a non-empty string."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError('an image reference is a non-empty string, not %r' % (text,))
    name, _at, digest = text.partition('@')
    first, slash, rest = name.partition('/')
    registry, name = (first, rest) if slash and (
        '.' in first or ':' in first or first == 'localhost' or first.lower() != first) else ('', name)
    head, colon, tag = name.rpartition(':')
    return ImageRef(registry, head, tag, digest) if colon and '/' not in tag else ImageRef(registry, name, '', digest)


def written_tag(text: Any) -> Optional[str]:
    """The tag written in a reference, or None when it names none (or is not a reference)."""
    try:
        return parse(text).tag or None
    except ValueError:
        return None


def tag_of(text: Any) -> str:
    """The tag of a reference, or the text itself when it is a bare tag (``v0.23.0-310p``); '' otherwise.

    Callers that take "an image tag or reference" (the version data, the tag grammar) read both through this.
    """
    try:
        ref = parse(text)
    except ValueError:
        return ''
    return ref.tag or (ref.repository if not ref.registry and '/' not in ref.repository and not ref.digest else '')
