# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The format of every role variable that names an image, a dataset or a path on the node, declared once
(data/formats.yml).

The argument specs say such a variable is a ``str`` (or a list of them); this table says which
grammar its value must follow -- Docker's reference grammar, simplified: a registry address, a
repository path, an image reference, a digest, a tag -- whichever role pulls it (image_pull for
vllm-ascend, the balancer for HAProxy). One generic check (``format_problem``) judges every entry in
the variables stage of the host plan, before any host is contacted, with the same message for the
same kind of value. A unit test fails when a variable named like one of these kinds has no entry.
The evaluation's dataset names are here too: preflight refuses an unknown one with the eval role's words,
whichever playbook runs (the role's argument spec leaves them out of ``choices``, which Ansible's own
role validation would judge first, in its words).
"""

from __future__ import annotations

import collections
import re
from typing import Any, Dict, List, Optional

from ansible_collections.ascend.vllm.plugins.module_utils.evaluation._eval import DATASETS
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts import _data
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._coerce import _show

# What a registry, a repository and an image reference may look like (Docker's
# reference grammar, simplified): no scheme, no spaces, lower-case repositories.
REGISTRY_RE = r'^([A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:]+\])(:[0-9]{1,5})?(/[A-Za-z0-9._-]+)*$'
REPOSITORY_RE = r'^[a-z0-9]+([._-][a-z0-9]+)*(/[a-z0-9]+([._-][a-z0-9]+)*)*$'
REFERENCE_RE = (r'^([A-Za-z0-9.-]+(:[0-9]{1,5})?/)?[a-z0-9]+([._-][a-z0-9]+)*(/[a-z0-9]+([._-][a-z0-9]+)*)*'
                r'(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(@sha256:[a-f0-9]{64})?$')
DIGEST_RE = r'^sha256:[a-f0-9]{64}$'
# Docker's tag grammar: [\w][\w.-]{0,127}.
TAG_RE = r'^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$'

Format = collections.namedtuple('Format', ['kind', 'example', 'instead'])
FORMATS = dict((name, Format(entry['kind'], entry.get('example'), entry.get('instead')))
               for name, entry in _data.load('formats')['entries'].items())

# {kind: (its grammar, what a value that breaks it is not, the fix)}; registries and datasets have their own checks.
_GRAMMARS = {
    'repository': (REPOSITORY_RE, 'a repository path', 'set {name} to lower-case path components, e.g. {example}'),
    'digest': (DIGEST_RE, 'a digest',
               'set {name} to sha256: and 64 hex digits (`docker images --digests` shows it), or "" to pull by tag'),
    'image': (REFERENCE_RE, 'an image reference', 'write it as registry/repository:tag, e.g. {example}{instead}'),
    'node path': (r'^/', 'an absolute path on the node', 'set {name} to an absolute path on the node, e.g. {example}'),
    'tag': (TAG_RE, 'an image tag',
            'set {name} to letters, digits, _, . and - (at most 128, not starting with . or -), e.g. {example}'),
}


def _match(pattern: str, value: Any) -> bool:
    return isinstance(value, str) and re.match(pattern, value) is not None


def registry_problems(name: str, registries: Any) -> List[Dict[str, str]]:
    """{msg, fix} for each item of a registry list that is not a registry address (``NAME[i]=...``)."""
    out = []
    for index, registry in enumerate(registries if isinstance(registries, (list, tuple)) else []):
        if _match(REGISTRY_RE, registry):
            continue
        example = (re.sub(r'^[a-zA-Z]+://', '', registry).strip().split(' ')[0]
                   if isinstance(registry, str) and registry.strip() else 'quay.io')
        out.append({'msg': '%s[%d]=%s is not a registry address' % (name, index, _show(registry)),
                    'fix': 'write each registry as host[:port][/path] without a scheme, one registry per list '
                           'item, e.g. ' + example})
    return out


def unknown_dataset(name: str, dataset: Any) -> Optional[Dict[str, str]]:
    """{msg, fix} when ``dataset`` is not a dataset the evaluation reads (the eval role's words), else None."""
    if isinstance(dataset, str) and dataset in DATASETS:
        return None
    return {'msg': '%s: unknown dataset %r' % (name, dataset),
            'fix': 'use one of: %s (the datasets %s names)' % (', '.join(DATASETS), name)}


def format_problem(name: str, value: Any, empty_ok: bool = True) -> Optional[Dict[str, str]]:
    """{msg, fix} when ``name`` has a format and ``value`` does not follow it, else None (the first problem of
    a list). An empty value means "not set" unless ``empty_ok`` is false."""
    spec = FORMATS.get(name)
    if spec is None or (empty_ok and (value is None or value == '')):
        return None
    if spec.kind == 'registry':
        found = registry_problems(name, value)
        return found[0] if found else None
    if spec.kind == 'dataset':
        found = [unknown_dataset(name, item) for item in (value if isinstance(value, (list, tuple)) else [])]
        return next((item for item in found if item is not None), None)
    grammar, what, fix = _GRAMMARS.get(spec.kind, (None, None, None))
    # A tag YAML read as a number (0.23) is judged by its digits.
    if grammar is None or _match(grammar, str(value) if spec.kind == 'tag' else value):
        return None
    return {'msg': '%s=%s is not %s' % (name, _show(value), what),
            'fix': fix.format(name=name, example=spec.example,
                              instead=', or "" to use %s' % spec.instead if spec.instead else '')}
