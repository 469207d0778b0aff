# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The catalogs as data: ``data/<name>.yml`` beside this file, read once on the controller.

Each file has ``schema`` (every field an entry may have: ``str``, ``int``, ``number``, ``bool``,
``list``, ``dict`` or ``any``, with ``?`` when it may be null or left out) and ``entries``; YAML keeps each
fact next to the comment or ``sources`` field that says where it was read, and its anchors let
entries share a fact written once (``common``). A file that breaks its schema fails at load,
naming the file, the entry and the field.
"""

from __future__ import annotations

import functools
import json
import os
from typing import Any, Dict

import yaml

DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data')
_TYPES = {'str': (str,), 'int': (int,), 'number': (int, float), 'bool': (bool,), 'list': (list,), 'dict': (dict,),
          'any': (object,)}


def _check(path: str, doc: Any) -> None:
    schema = doc.get('schema') if isinstance(doc, dict) else None
    if not isinstance(schema, dict) or not isinstance(doc.get('entries'), dict):
        raise ValueError('%s: needs a "schema" and an "entries" mapping' % path)
    for entry, fields in doc['entries'].items():
        if not isinstance(fields, dict):
            raise ValueError('%s: entry %s: must be a mapping of fields, got %r' % (path, entry, fields))
        unknown = sorted(set(fields) - set(schema))
        if unknown:
            raise ValueError('%s: entry %s, field %s: not a field of the schema (%s)'
                             % (path, entry, unknown[0], ', '.join(schema)))
        for field, kind in schema.items():
            value = fields.get(field)
            if not is_kind(value, kind):
                raise ValueError('%s: entry %s, field %s: %s' % (
                    path, entry, field, 'missing (type %s)' % kind if value is None
                    else '%r is not of type %s' % (value, kind.rstrip('?'))))


def is_kind(value: Any, kind: str) -> bool:
    """Whether ``value`` is of a schema type (``int``, ``str?``, ...); None is one only of a ``?`` type."""
    if value is None:
        return kind.endswith('?')
    wanted = _TYPES[kind.rstrip('?')]
    return isinstance(value, wanted) and not (isinstance(value, bool) and int in wanted)


@functools.lru_cache(maxsize=None)
def _read(name: str) -> str:
    path = os.path.join(DIR, name + '.yml')
    with open(path, encoding='utf-8') as handle:
        doc = yaml.safe_load(handle)
    _check(path, doc)
    # As JSON text, every load gets its own objects: entries that share an anchor share no dict.
    return json.dumps(doc)


def load(name: str) -> Dict[str, Any]:
    """A fresh copy of ``data/<name>.yml`` (its ``entries`` checked against its ``schema``)."""
    return json.loads(_read(name))
