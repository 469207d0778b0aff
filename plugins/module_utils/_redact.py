# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Secrets out of what leaves a node: diagnostics archives and saved container logs.

One rule set, applied to everything a bug report carries (docker inspect output, the
host plan, log lines, copied files):

- the values the caller knows are secret (the configured API keys) are replaced
  wherever they occur;
- a value whose name says it is secret: environment entries ``NAME=value``, mapping
  keys, ``--flag value`` / ``--flag=value`` arguments and ``name: value`` /
  ``name=value`` text, for names like ``VLLM_API_KEY``, ``*_KEY``, ``*TOKEN*``,
  ``*SECRET*``, ``*PASSWORD*`` (``--api-key``, ``--hf-token``); ``*_TOKENS`` counts
  (``max_num_batched_tokens``) are not secrets;
- ``Authorization: Bearer ...`` headers and the ``user:password@`` part of URLs
  (a registry or proxy address in ``docker info``).

Pure functions over plain data, standard library only.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, List, Optional

# What a message shows instead of a secret's value (problems, reports).
HIDDEN = '(value hidden)'
# What a file, a diff or a container's settings show in a secret's place.
MASKED = '********'

REDACTED = '<redacted>'
# Shorter known values are not searched for in text: they would match by chance and
# mangle the report, and nobody uses a 1-3 character key.
MIN_SECRET_LENGTH = 4

_SECRET_NAME = re.compile(r'(?:^|[^A-Z])KEY$|(?:^|_)KEY_|TOKEN(?!S)|SECRET|PASSW(?:OR)?D|CREDENTIAL|PRIVATE', re.I)
_FLAG = re.compile(r'^(--?[A-Za-z][\w-]*)(=(.*))?$', re.S)
_BEARER = re.compile(r'(\bBearer\s+)[^\s"\',;]+', re.I)
# user:password@ in a URL; the password may hold a "/" a careless URL did not escape.
_URL_CREDENTIALS = re.compile(r'(\b[a-z][a-z0-9+.-]*://)[^/\s:@"\']+:[^\s@"\']+@', re.I)
# name: value / name=value / "name": "value" / 'name': ['value'] in free text (log lines).
_NAME_SEP = re.compile(r'''(?P<name>[A-Za-z_][A-Za-z0-9_.-]*)(?P<close>['"]?)(?P<sep>\s*[:=]\s*)''')
# A bare value never starts with { or [: those open a mapping or list (JSON, YAML flow) whose
# own secret-named keys are matched one by one; replacing the bracket would break the document.
_VALUE = re.compile(r'''\[\s*(?:'[^']*'|"[^"]*")\s*\]|'[^']*'|"[^"]*"|[^\s,;'"\[\{\]\})][^\s,;'"\]\})]*''')
# --flag value, --flag=value, and "--flag", "value" (a command line printed as a JSON or Python list).
_CLI_FLAG_VALUE = re.compile(
    r'(?P<flag>--[A-Za-z][\w-]*)(?P<sep>=|\s+|[\'"]\s*,\s*[\'"])(?P<value>[^\s"\',\]]+|"[^"]*"|\'[^\']*\')')


# Loose: any name holding one of these words (a misspelt ``vllm_serve_apikey``, an env ``MYAPIKEY``),
# where hiding too much costs nothing (a value in an error message, an unknown variable).
_SECRET_WORD = re.compile(r'KEY|TOKEN|SECRET|PASSW|CREDENTIAL|PRIVATE', re.I)


def secret_name(name: Any, loose: bool = False) -> bool:
    """Whether a variable, key or option of this name holds a secret (``VLLM_API_KEY``, ``hf_token``).

    The one predicate for secret names in the collection. ``loose`` also takes any name that holds
    one of the words (``MONKEY`` too), for values that are only ever hidden, never routed.
    """
    text = str(name or '').strip().lstrip('-').replace('-', '_')
    return bool(text) and bool((_SECRET_WORD if loose else _SECRET_NAME).search(text.upper()))


def secret_values(mapping: Any) -> List[str]:
    """The values (as text, long enough to search for) of a mapping's secret-named keys, loosely named."""
    return sorted(known_secrets(value for key, value in mapping.items() if secret_name(key, loose=True))) if isinstance(
        mapping, dict) else []


def known_secrets(values: Optional[Iterable[Any]]) -> List[str]:
    """The caller's secret values worth searching for, longest first (a key that contains another)."""
    found = set(str(v) for v in values or [] if v is not None and len(str(v)) >= MIN_SECRET_LENGTH)
    return sorted(found, key=lambda v: (-len(v), v))


def redact_text(text: str, secrets: Iterable[str] = (), shown_as: str = REDACTED) -> str:
    """``text`` with the known secret values replaced by ``shown_as`` and every named secret by ``<redacted>``."""
    out = str(text)
    for value in known_secrets(secrets):
        out = out.replace(value, shown_as)
    out = _BEARER.sub(lambda m: m.group(1) + REDACTED, out)
    out = _URL_CREDENTIALS.sub(lambda m: m.group(1) + REDACTED + '@', out)
    out = _CLI_FLAG_VALUE.sub(
        lambda m: m.group('flag') + m.group('sep') + REDACTED if secret_name(m.group('flag')) else m.group(0), out)
    return _named_values(out)


def _named_values(text: str) -> str:
    """Every ``name: value`` / ``name=value`` of a secret name with its value replaced, keeping the
    value's quotes and brackets (JSON stays JSON); other text as it is."""
    out, pos = [], 0
    for found in _NAME_SEP.finditer(text):
        if found.start() < pos or not secret_name(found.group('name')):
            continue
        value = _VALUE.match(text, found.end())
        if not value:
            continue
        inner = value.group(0).strip('[] ')
        if inner.strip('\'"') == REDACTED:
            continue
        quote = inner[0] if inner[:1] in ('"', "'") else ''
        hidden = quote + REDACTED + quote
        out.append(text[pos:found.end()] + ('[%s]' % hidden if value.group(0).startswith('[') else hidden))
        pos = value.end()
    out.append(text[pos:])
    return ''.join(out)


def redact_bytes(data: bytes, secrets: Iterable[str] = ()) -> bytes:
    """A copied file: text is redacted as ``redact_text`` does; other bytes lose the known values only."""
    try:
        return redact_text(data.decode('utf-8'), secrets).encode('utf-8')
    except UnicodeDecodeError:
        for value in known_secrets(secrets):
            data = data.replace(value.encode('utf-8'), REDACTED.encode('utf-8'))
        return data


def redact_argv(argv: Iterable[Any], secrets: Iterable[str] = (), shown_as: str = REDACTED) -> List[Any]:
    """A command line: the value of ``--api-key KEY`` / ``--api-key=KEY`` (any secret-named flag) and
    every ``NAME=value`` word of a secret name, shown as ``shown_as``; other words as ``redact_text`` leaves them."""
    out: List[Any] = []
    hide_next = False
    for arg in argv:
        flag = _FLAG.match(arg) if isinstance(arg, str) else None
        named = bool(flag) and secret_name(flag.group(1))
        name, sep, _value = str(arg).partition('=')
        if not isinstance(arg, str):
            out.append(redact(arg, secrets))
        elif hide_next and not arg.startswith('--'):
            out.append(shown_as)
            named = False
        elif sep and secret_name(name):
            # --api-key=KEY, or an environment entry NAME=value
            out.append(name + '=' + shown_as)
        else:
            out.append(arg if named else redact_text(arg, secrets))
        # A secret-named flag without ``=``: its value is the next word.
        hide_next = named and not sep
    return out


def redact(value: Any, secrets: Iterable[str] = (), named: bool = False) -> Any:
    """A copy of plain data (docker inspect, the host plan) with every secret replaced.

    Mappings: a secret-named key's value (``named``) goes when it is a scalar, and its list's scalars; lists of
    strings are read as command lines and environments (``redact_argv``); strings as text."""
    secrets = known_secrets(secrets)
    if named and isinstance(value, (list, tuple)):
        return [REDACTED if _secret_scalar(v) else redact(v, secrets) for v in value]
    if named and _secret_scalar(value):
        return REDACTED
    if isinstance(value, dict):
        return {key: redact(item, secrets, secret_name(key)) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        if all(isinstance(item, str) for item in value):
            return redact_argv(value, secrets)
        return [redact(item, secrets) for item in value]
    if isinstance(value, str):
        return redact_text(value, secrets)
    return value


def _secret_scalar(value: Any) -> bool:
    """A value that can hold a secret: not empty, not a flag, not a container of other values."""
    return value is not None and value != '' and not isinstance(value, (bool, dict, list, tuple))
