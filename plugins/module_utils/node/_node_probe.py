# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Read-only probes of the node for the preflight: paths, TCP listeners, disk, memory, and the system.

Each function reads ``/proc`` or the filesystem under a root it is given (``/`` on a
node, a temporary tree in the unit tests) and returns plain data; nothing is changed.
The text parsers (``parse_*``) are pure.
"""

from __future__ import annotations

import functools
import glob
import importlib
import os
import platform
import re
import socket
import stat
import sys

from ansible_collections.ascend.vllm.plugins.module_utils._text import read_text

# A /proc/net/tcp row: sl, local address:port (hex), remote address, st (0A: LISTEN), 5 more fields, inode.
_LISTENING_RE = re.compile(r'^\s*\S+\s+\S*:([0-9A-Fa-f]+)\s+\S+\s+0A\s+(?:\S+\s+){5}(\d+)', re.M)
_OCTAL_RE = re.compile(r'\\([0-7]{3})')
_read = functools.partial(read_text, missing='')


def _writable(path):
    """Whether this user can write ``path``, or (missing) create it: its nearest existing parent is writable.
    A read-only filesystem answers no, for root too."""
    probe = path
    while probe and not os.path.lexists(probe):
        parent = os.path.dirname(probe.rstrip('/')) or '/'
        if parent == probe:
            break
        probe = parent
    return bool(probe) and os.access(probe, os.W_OK)


def stat_path(path):
    """{exists, isdir, isreg, ischr, islnk, realpath, writable} of ``path``; a dangling link exists but is
    nothing else. ``writable``: this user can write it, or create it when it is missing."""
    out = {'exists': False, 'isdir': False, 'isreg': False, 'ischr': False, 'islnk': False,
           'writable': isinstance(path, str) and path.startswith('/') and _writable(path)}
    try:
        link = os.lstat(path)
    except OSError:
        return out
    out.update(exists=True, islnk=stat.S_ISLNK(link.st_mode))
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return out
    out.update(isdir=stat.S_ISDIR(mode), isreg=stat.S_ISREG(mode), ischr=stat.S_ISCHR(mode))
    # Where links lead: a model directory must not lead out of the directories it is confined to.
    out['realpath'] = os.path.realpath(path)
    return out


def parse_proc_net_tcp(text):
    """[(local port, socket inode)] of the listening sockets in a /proc/net/tcp{,6} text."""
    return [(int(port, 16), int(inode)) for port, inode in _LISTENING_RE.findall(text)]


def parse_meminfo(text):
    """{key: kB} of a /proc/meminfo text."""
    return {key.strip(): int(value) for key, value in re.findall(r'^([^:\n]*):[ \t]*(\d+)(?:\s|$)', text, re.M)}


def parse_mounts(text):
    """Mount points of a /proc/mounts text (octal escapes such as \\040 decoded)."""
    return [_OCTAL_RE.sub(lambda m: chr(int(m.group(1), 8)), fields[1])
            for fields in map(str.split, text.splitlines()) if len(fields) >= 2]


def parse_fib_trie(text):
    """The node's own IPv4 addresses: the "/32 host LOCAL" leaves of /proc/net/fib_trie."""
    found, last = [], None
    for line in (text or '').splitlines():
        words = line.split()
        if len(words) >= 2 and words[0] in ('|--', '+--'):
            last = words[1]
        elif words[:3] == ['/32', 'host', 'LOCAL'] and last and last not in found:
            found.append(last)
    return found


def parse_if_inet6(text):
    """The node's own IPv6 addresses from /proc/net/if_inet6 (32 hex digits each, first column)."""
    found = [socket.inet_ntop(socket.AF_INET6, bytes.fromhex(hexa))
             for hexa in re.findall(r'^\s*([0-9a-fA-F]{32})\b', text or '', re.M)]
    return sorted(set(found), key=found.index)


def addresses(proc='/proc'):
    """The IPv4 and IPv6 addresses of the node's interfaces (what ``ip addr`` lists), from /proc."""
    return parse_fib_trie(_read(os.path.join(proc, 'net', 'fib_trie'))) + parse_if_inet6(
        _read(os.path.join(proc, 'net', 'if_inet6')))


def _socket_owners(proc, inodes):
    """{inode: {(process name, pid)}} for the socket inodes, from every /proc/PID/fd."""
    owners = {inode: set() for inode in inodes}
    wanted = {'socket:[%d]' % inode: inode for inode in inodes}
    for link in glob.glob(os.path.join(proc, '[0-9]*', 'fd', '*')):
        try:
            inode = wanted.get(os.readlink(link))
        except OSError:
            continue  # gone, or not ours to read (not root)
        if inode is not None:
            pid_dir = os.path.dirname(os.path.dirname(link))
            owners[inode].add((_read(os.path.join(pid_dir, 'comm')).strip() or '?', int(os.path.basename(pid_dir))))
    return owners


def connect_probe(port, timeout=1.0, host='127.0.0.1'):
    """True when something accepts a TCP connection on host:port within ``timeout`` seconds."""
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError:
        return False
    return True


def listeners(ports, proc='/proc', probe=connect_probe):
    """{port: {listening, processes: [{name, pid}], accepts}} for each TCP port.

    ``listening``: a socket in LISTEN state on that port in this network namespace
    (what ``ss -ltnp sport = :PORT`` lists); ``processes``: who holds it (empty when
    /proc/PID/fd cannot be read); ``accepts``: a connect to 127.0.0.1 succeeded within a
    second, which also catches a listener elsewhere behind a DNAT rule.
    """
    sockets = [found for name in ('tcp', 'tcp6') for found in parse_proc_net_tcp(_read(os.path.join(proc, 'net', name)))]
    wanted = set(int(p) for p in ports)
    inodes = sorted(set(inode for port, inode in sockets if port in wanted and inode))
    owners = _socket_owners(proc, inodes) if inodes else {}
    out = {}
    for port in sorted(wanted):
        mine = [inode for p, inode in sockets if p == port]
        holders = sorted(set(h for inode in mine for h in owners.get(inode, [])), key=lambda h: (h[1], h[0]))
        out[port] = {'listening': bool(mine), 'processes': [{'name': n, 'pid': pid} for n, pid in holders],
                     'accepts': probe(port)}
    return out


def filesystem_of(path, mount_points):
    """The longest mount point that is ``path`` or one of its parent directories."""
    parts = [part for part in path.strip('/').split('/') if part]
    prefixes = ['/'] + ['/' + '/'.join(parts[:i + 1]) for i in range(len(parts))]
    found = [p for p in prefixes if p in set(mount_points)]
    return found[-1] if found else None


def disk(path, proc='/proc'):
    """{root, mount, free_gb} for the filesystem holding ``path`` (GiB free to unprivileged users)."""
    mount = filesystem_of(path, parse_mounts(_read(os.path.join(proc, 'mounts'))))
    free_gb = None
    if mount is not None:
        try:
            vfs = os.statvfs(mount)
            free_gb = round(vfs.f_bavail * vfs.f_frsize / 1073741824.0, 1)
        except OSError:
            mount = None
    return {'root': path, 'mount': mount, 'free_gb': free_gb}


def memory(proc='/proc'):
    """{available_mb, total_mb} from /proc/meminfo (MemAvailable, MemTotal); None when missing."""
    info = parse_meminfo(_read(os.path.join(proc, 'meminfo')))
    return dict((name, info[key] // 1024 if key in info else None)
                for name, key in (('available_mb', 'MemAvailable'), ('total_mb', 'MemTotal')))


# What the community.docker modules the roles run on a node import there: their API-based modules
# (docker_container, docker_image_pull, docker_image_load, docker_login, ...) list `requests` as their
# requirement (community.docker's docker.api_documentation doc fragment) and fail at their first run
# without it (module_utils/_api/_import_helper.py). The collection's own modules use the standard library.
NODE_PYTHON_MODULES = ('requests',)


def python_modules(names, importer=importlib.import_module):
    """Per module name whether this Python imports it: {found, version, error}. A module that is there but
    fails to import (a broken install) is not found, with the error."""
    out = {}
    for name in names:
        try:
            found = importer(name)
        except Exception as exc:  # pylint: disable=broad-except
            # ImportError, or whatever a broken package raises while it is imported.
            out[name] = {'found': False, 'version': None, 'error': '%s: %s' % (type(exc).__name__, exc)}
            continue
        version = getattr(found, '__version__', None)
        out[name] = {'found': True, 'version': str(version) if version else None, 'error': None}
    return out


def system(modules=NODE_PYTHON_MODULES, importer=importlib.import_module, uname=os.uname):
    """{machine, python: {executable, version, modules}}: the node's architecture (``uname -m``) and the Python
    that runs the modules (this one), with the modules the roles' modules need there."""
    return {'machine': uname().machine,
            'python': {'executable': sys.executable, 'version': platform.python_version(),
                       'modules': python_modules(modules, importer)}}
