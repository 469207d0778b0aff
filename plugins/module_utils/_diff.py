# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""What ``--diff`` shows of a file a module writes or removes: one entry of the result's ``diff`` list.

Ansible's callbacks print a ``diff`` list entry by entry, each as ``--- before_header`` / ``+++ after_header`` and a
unified diff of ``before`` and ``after``. A file that did not exist, or will not, is the empty text with
``(absent)`` in its header, so a new report shows as created and a removed archive as removed. A file that is not
UTF-8 text, or is larger than ``LIMIT``, is shown by a one-line description instead of its bytes.
"""

from __future__ import annotations

import contextlib
import os
import stat
from typing import Any, Dict, Optional, Sequence, Union

from ansible_collections.ascend.vllm.plugins.module_utils._redact import MASKED

# Bytes of a text file shown whole; a longer one is described by its size (a diff is read by a person).
LIMIT = 256 * 1024
ABSENT = '(absent)'


def described(data: Union[bytes, str, None], what: str = '') -> Optional[str]:
    """The text a diff shows for a file's content: the text itself, or ``<what, N bytes>`` for bytes that are not
    UTF-8 text or are more than ``LIMIT``; None for a file that does not exist."""
    if data is None:
        return None
    raw = data.encode('utf-8') if isinstance(data, str) else bytes(data)
    if len(raw) > LIMIT:
        return '<%s, %d bytes>\n' % (what or 'a file', len(raw))
    if b'\0' not in raw:
        with contextlib.suppress(UnicodeDecodeError):
            return raw.decode('utf-8')
    return '<%s, %d bytes>\n' % (what or 'binary data', len(raw))


def current(path: str, what: str = '') -> Optional[str]:
    """What a diff shows of the file at ``path`` now (None: no such file, or not one that can be read)."""
    size = file_size(path)
    if size is None:
        return None
    if size > LIMIT:
        return '<%s, %d bytes>\n' % (what or 'a file', size)
    try:
        with open(path, 'rb') as handle:
            return described(handle.read(), what)
    except OSError:
        return None


def hide(text: Optional[str], secrets: Sequence[str]) -> Optional[str]:
    """``text`` with every non-empty value of ``secrets`` replaced by ``MASKED``."""
    if text is None:
        return None
    for secret in sorted((s for s in secrets if s), key=len, reverse=True):
        text = text.replace(secret, MASKED)
    return text


def change(path: str, before: Optional[str], after: Optional[str]) -> Optional[Dict[str, str]]:
    """One ``diff`` entry for ``path`` going from ``before`` to ``after`` (None: absent), or None when it stays."""
    return None if before == after else {'before_header': path if before is not None else '%s %s' % (path, ABSENT),
                                         'after_header': path if after is not None else '%s %s' % (path, ABSENT),
                                         'before': before or '', 'after': after or ''}


def add(result: Dict[str, Any], enabled: bool, path: str, before: Optional[str], after: Optional[str]) -> None:
    """Append ``change(path, before, after)`` to ``result['diff']`` when ``enabled`` (the task runs with --diff)."""
    entry = change(path, before, after) if enabled else None
    if entry:
        result.setdefault('diff', []).append(entry)


def listing(members: Dict[str, Any]) -> str:
    """What a diff shows of an archive: one line per member, ``name (N bytes)``, sorted."""
    return ''.join('%s (%d bytes)\n' % (name, len(members[name]) if members[name] is not None else 0)
                   for name in sorted(members))


def file_size(path: str) -> Optional[int]:
    """The size of the regular file at ``path``, None when there is none."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_size if stat.S_ISREG(info.st_mode) else None
