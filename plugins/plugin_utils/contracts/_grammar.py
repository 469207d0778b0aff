# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The grammars of the programs that consume the user's values, in one place.

Every value the collection hands to a consumer is checked against that consumer's grammar
and reserved names here: environment variable names (the shell, Docker), container names
and label keys (Docker), listen and publish addresses (uvicorn, Docker's port mappings) and
served model names (vLLM's argument parser and its OpenAI API). The checks that name a
user's variable import these; none writes its own pattern.
"""

from __future__ import annotations

import re
import socket
from typing import Any, Optional

# An environment variable name: what the shell can export and vLLM, CANN and Python read
# (POSIX: letters, digits and underscores, not starting with a digit). Docker passes other
# names through, where nothing ever reads them.
ENV_NAME_RE = re.compile(r'\A[A-Za-z_][A-Za-z0-9_]*\Z')

# Docker's container names ("[a-zA-Z0-9][a-zA-Z0-9_.-]+" in its daemon; one character is also taken).
CONTAINER_NAME_RE = re.compile(r'^[a-zA-Z0-9][a-zA-Z0-9_.-]*$')

# Docker's "Object labels" page: keys are alphanumeric strings with periods, underscores, slashes
# and hyphens; "The com.docker.*, io.docker.*, and org.dockerproject.* namespaces are reserved by
# Docker for internal use". ascend.vllm.* is this collection's: preflight, verify and teardown find
# their containers by it.
LABEL_KEY_RE = re.compile(r'^[A-Za-z0-9][A-Za-z0-9._/-]*$')
RESERVED_LABEL_PREFIXES = ('ascend.vllm.', 'com.docker.', 'io.docker.', 'org.dockerproject.')

# A host name (RFC 1123): what a listen address may be besides an IP literal.
HOSTNAME_RE = re.compile(r'^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?'
                         r'([.][A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$')


def is_ip_address(text: Any) -> bool:
    """An IPv4 address (four decimal bytes) or an IPv6 address, without brackets or port."""
    if not isinstance(text, str) or not text:
        return False
    if re.match(r'^[0-9]{1,3}([.][0-9]{1,3}){3}$', text):
        # No byte above 255, no leading zero: Python's ipaddress and Go's net.ParseIP (Go 1.17 on) refuse "10.0.0.01".
        return all(int(part) <= 255 and (part == '0' or not part.startswith('0')) for part in text.split('.'))
    if ':' in text and re.match(r'^[0-9A-Fa-f:.]+$', text):
        try:
            socket.inet_pton(socket.AF_INET6, text)
            return True
        except (OSError, ValueError):
            return False
    return False


def served_name_problem(name: str) -> Optional[str]:
    """Why vLLM or a client would trip over this served model name, or None."""
    if name != name.strip():
        return ('served_model_name %r has spaces around it: vLLM serves it with them, so a client asking for %r '
                'gets "model does not exist"' % (name, name.strip()))
    if name.startswith('-'):
        return ('served_model_name %r starts with "-": vLLM\'s parser reads it as a flag and stops with '
                '"argument --served-model-name: expected at least one argument"' % name)
    if any(ord(char) < 32 or ord(char) == 127 for char in name):
        return 'served_model_name %r holds a control character (a tab or line break)' % name
    return None


def listen_host_problem(host: str) -> Optional[str]:
    """Why uvicorn could not bind this listen address, or None."""
    if host != host.strip() or re.search(r'\s', host):
        return 'host %r has spaces in it; uvicorn cannot bind that address' % host
    if '://' in host or '/' in host:
        return 'host %r is a URL, not an address' % host
    if is_ip_address(host) or HOSTNAME_RE.match(host) and not re.match(r'^[0-9.]+$', host):
        return None
    if host.startswith('[') or re.match(r'^[0-9.]+:[0-9]+$', host) or re.match(r'^[^:]+:[0-9]+$', host):
        return 'host %r carries a port or brackets; vLLM takes the port from port' % host
    return 'host %r is neither an IP address nor a host name' % host
