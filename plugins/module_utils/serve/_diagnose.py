# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""What a bug report needs from one node, gathered in one module call (ascend.vllm.diagnose_collect),
and the controller's one archive of every node's (ascend.vllm.diagnose_bundle).

``Collector`` asks each source in turn and never stops at one that fails: a missing
npu-smi, an engine that does not answer or an absent log directory become lines of
the archive's ``manifest.json``.  Every byte that goes into the archive passes
through module_utils/_redact.py.  The node's probes are injected (``run_command``,
a ``DockerApi``, the file system root), so unit tests drive it with fakes.

Sources (docs/troubleshooting.md lists them and why):
- ``npu-smi info`` and ``npu-smi info -t board -i <NPU id>`` for every NPU id it lists (the board's
  driver and firmware versions; npu-smi reference, "Querying NPU details");
- the driver's ``version.info`` and ``/etc/ascend_install.info`` (both mounted into the
  containers by the vllm-ascend docs, "Qwen3.5-Dense" tutorial, section 4.1);
- the host plan the controller computed (instances, argv, env), redacted again here;
- ``docker inspect`` and the last log lines of every container labelled
  ``ascend.vllm.managed-by=ascend.vllm`` (instances, the balancer, a kept
  ``<name>-previous``), the engine's version and a summary of every container;
- log directories and files: the logs vllm_serve saved of failed containers, the
  Ascend host logs (``/var/log/npu``), the CANN application logs (``$HOME/ascend/log``)
  and the slog configuration the guide mounts (``/etc/slog.conf``), the NPU Exporter's
  log directory; each file capped to its last ``max_file_bytes``, all together to
  ``max_total_bytes``, newest first.
"""

from __future__ import annotations

import io
import json
import os
import platform
import tarfile
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

from ansible_collections.ascend.vllm.plugins.module_utils.node import _node_docker
from ansible_collections.ascend.vllm.plugins.module_utils._diff import current, file_size, listing
from ansible_collections.ascend.vllm.plugins.module_utils._labels import MANAGED_LABEL, MANAGED_VALUE
from ansible_collections.ascend.vllm.plugins.module_utils.node._node_npu import NpuSmiError, locate_npu_smi
from ansible_collections.ascend.vllm.plugins.module_utils._redact import redact, redact_bytes, redact_text
from ansible_collections.ascend.vllm.plugins.module_utils.node.npu_smi import parse_board_info, parse_npu_smi_info, parse_version_info
from ansible_collections.ascend.vllm.plugins.module_utils._unit import UNIT_DIR, managed
from ansible_collections.ascend.vllm.plugins.module_utils.node import DRIVER_VERSION_FILE

INSTALL_INFO_FILE = '/etc/ascend_install.info'
# Where vllm_serve saves the full log of a container that failed (vllm_serve_failed_log_dir).
FAILED_LOG_DIR = '/var/log/ascend-vllm'
LOG_PATHS = (
    FAILED_LOG_DIR,
    # Ascend host logs (slog; CANN docs, "Log Reference", "Viewing Logs (Control CPU open form)").
    '/var/log/npu',
    # CANN application logs, default $HOME/ascend/log (CANN docs, env var ASCEND_PROCESS_LOG_PATH).
    '/root/ascend/log',
    # The slog configuration the guide mounts into the Atlas 200I Pro containers.
    '/etc/slog.conf',
    # MindCluster NPU Exporter's log (its docs' -logFile), when it runs on the node.
    '/var/log/mindx-dl/npu-exporter',
)
LOG_LINES = 500
MAX_FILE_BYTES = 2 * 1024 * 1024
MAX_TOTAL_BYTES = 32 * 1024 * 1024


def npu_ids(text: str) -> List[int]:
    """The NPU ids ``npu-smi info`` lists (each card once), for ``npu-smi info -t board -i ID``."""
    return list(dict.fromkeys(chip['npu_id'] for chip in parse_npu_smi_info(text)['chips']))


def safe_name(name: str) -> str:
    """An archive member name from a container or host name."""
    return ''.join(c if c.isalnum() or c in '._-' else '_' for c in str(name)) or '_'


def tail_bytes(data: bytes, limit: int) -> Tuple[bytes, bool]:
    """The last ``limit`` bytes (a log's end is where the failure is) and whether it was cut."""
    cut = 0 < limit < len(data)
    return data[-limit:] if cut else data, cut


class Collector:
    """One node's diagnostics: ``files`` (archive member -> bytes) and ``manifest`` (one line per source)."""

    def __init__(self, params: Dict[str, Any], run_command: Callable[..., Tuple[int, str, str]], docker: Any = None,
                 root: str = '/', clock: Callable[[], float] = time.time) -> None:
        self.params, self.run_command, self.docker, self.root, self.clock = params, run_command, docker, root, clock
        self.secrets = [s for s in params.get('secrets') or [] if s]
        self.files: Dict[str, bytes] = {}
        self.manifest: List[Dict[str, Any]] = []
        self.summary: Dict[str, Any] = {}
        self.copied = 0

    def add(self, member: str, data: Any, source: str, **note: Any) -> None:
        """One archive member, redacted; text is UTF-8."""
        raw = redact_bytes(data if isinstance(data, bytes) else (data if isinstance(data, str) else json.dumps(
            redact(data, self.secrets), indent=2, sort_keys=True, default=str) + '\n').encode('utf-8'), self.secrets)
        self.files[member] = raw
        self.manifest.append(dict(note, file=member, source=source, bytes=len(raw)))

    def missing(self, source: str, why: str) -> None:
        self.manifest.append({'file': None, 'source': source, 'error': redact_text(why, self.secrets)})

    def path(self, path: str) -> str:
        return os.path.join(self.root, path.lstrip('/'))

    def command(self, member: str, argv: List[str]) -> Optional[str]:
        """Output of ``argv`` as a member (with rc and stderr when it failed); its stdout or None."""
        rc, out, err = self.run_command(argv, environ_update={'LC_ALL': 'C'})
        text = out if rc == 0 else '$ %s\nrc=%d\n--- stdout\n%s\n--- stderr\n%s\n' % (' '.join(argv), rc, out, err)
        self.add(member, text, ' '.join(argv), rc=rc)
        return out if rc == 0 else None

    def npu(self) -> None:
        try:
            path = locate_npu_smi(self.params.get('npu_smi_path') or None, os.environ.get('PATH', ''))
        except NpuSmiError as exc:
            self.missing('npu-smi', exc.msg)
            # Not where the platform says, but on the node all the same: its output is what counts here.
            path = exc.details.get('found')
            if not path:
                return
        text = self.command('npu-smi/info.txt', [path, 'info'])
        if text is None:
            return
        try:
            ids = npu_ids(text)
        except ValueError as exc:
            self.missing('npu-smi info -t board', 'the npu-smi info output could not be parsed: %s' % exc)
            return
        self.summary['npu_ids'] = ids
        boards = self.summary['boards'] = {}
        for npu_id in ids:
            board = self.command('npu-smi/board-%d.txt' % npu_id, [path, 'info', '-t', 'board', '-i', str(npu_id)])
            # Software Version is the driver's, Firmware Version the firmware's (npu-smi reference, "Querying NPU
            # details").
            try:
                fields = parse_board_info(board or '')['fields']
            except ValueError:
                fields = {}
            boards[str(npu_id)] = dict((key, fields[key]) for key in ('Software Version', 'Firmware Version')
                                       if key in fields)

    def versions(self) -> None:
        for member, source in (('driver/version.info', self.params.get('driver_version_file') or DRIVER_VERSION_FILE),
                               ('driver/ascend_install.info', INSTALL_INFO_FILE)):
            data = self.read(source)
            if data is not None:
                self.add(member, data, source)
        try:
            self.summary['driver_version'] = parse_version_info(
                self.files.get('driver/version.info', b'').decode('utf-8', 'replace'))['version']
        except ValueError as exc:
            self.missing('driver version', str(exc))

    def read(self, source: str, quiet: bool = False) -> Optional[bytes]:
        """The file's bytes; None, and (unless ``quiet``) a manifest line, when it cannot be read."""
        try:
            with open(self.path(source), 'rb') as handle:
                return handle.read()
        except OSError as exc:
            if not quiet:
                self.missing(source, str(exc))
            return None

    def host(self) -> None:
        uname, release = platform.uname(), self.read('/etc/os-release', quiet=True)
        self.add('host.json', {'hostname': uname[1], 'kernel': uname[2], 'machine': uname[4], 'collected_at': time.strftime(
            '%Y-%m-%dT%H:%M:%SZ', time.gmtime(self.clock())),
            'os_release': release.decode('utf-8', 'replace') if release is not None else None}, 'the node')

    def containers(self) -> None:
        if self.docker is None:
            return
        try:
            version = self.docker.get('/version') or {}
            every = self.docker.get('/containers/json?all=1') or []
        except _node_docker.DockerError as exc:
            self.missing('docker', str(exc))
            return
        self.add('docker/engine.json', {'version': version}, 'GET /version')
        summaries = [_node_docker.container_summary(c) for c in every]
        self.add('docker/containers.json', summaries, 'GET /containers/json?all=1')
        names = sorted(c['name'] for c in summaries if c['labels'].get(MANAGED_LABEL) == MANAGED_VALUE)
        self.summary['containers'] = names
        for name in names:
            self.container(name)

    def container(self, name: str) -> None:
        try:
            inspect = _node_docker.inspect_raw(self.docker, name)
        except _node_docker.DockerError as exc:
            self.missing('docker inspect %s' % name, str(exc))
            return
        if inspect is None:
            return
        self.add('docker/%s.inspect.json' % safe_name(name), inspect, 'docker inspect %s' % name)
        lines = int(self.params.get('log_lines') or LOG_LINES)
        try:
            text = self.docker.logs(name, tail=lines, timestamps=True, tty=bool((inspect.get('Config') or {}).get('Tty')))
        except _node_docker.DockerError as exc:
            self.missing('docker logs %s' % name, str(exc))
            return
        self.add('logs/%s.log' % safe_name(name), text, 'docker logs --timestamps --tail %d %s' % (lines, name))

    def services(self) -> None:
        """The source install method's units (ours: serve/_source.py's marker line) and their journals."""
        unit_dir = self.path(UNIT_DIR)
        if not os.path.isdir(self.path('/run/systemd/system')) or not os.path.isdir(unit_dir):
            return
        names = []
        for name in sorted(os.listdir(unit_dir)):
            text = self.read(os.path.join(UNIT_DIR, name), quiet=True) if name.endswith('.service') else None
            if managed(text):
                names.append(name)
                self.add('systemd/%s' % safe_name(name), text, os.path.join(UNIT_DIR, name))
        self.summary['services'] = names
        lines = int(self.params.get('log_lines') or LOG_LINES)
        for name in names:
            self.command('logs/%s.log' % safe_name(name),
                         ['journalctl', '--no-pager', '-u', name, '-n', str(lines), '-o', 'short-iso-precise'])
            self.command('systemd/%s.status' % safe_name(name), ['systemctl', 'status', '--no-pager', name])

    def log_paths(self) -> None:
        budget = int(self.params.get('max_total_bytes') or MAX_TOTAL_BYTES)
        for source in self.params.get('log_paths') or LOG_PATHS:
            full = self.path(source)
            if not os.path.exists(full):
                self.manifest.append({'file': None, 'source': source, 'absent': True})
                continue
            for path in self.files_under(full):
                self.copy(path, budget)

    def files_under(self, full: str) -> List[str]:
        """Regular files at ``full`` (a file or a directory), newest first; symbolic links are not followed."""
        if os.path.isfile(full) and not os.path.islink(full):
            return [full]
        found = [os.path.join(directory, name) for directory, _dirs, names in os.walk(full) for name in names]
        return sorted((path for path in found if os.path.isfile(path) and not os.path.islink(path)),
                      key=lambda path: (os.path.getmtime(path), path), reverse=True)

    def copy(self, path: str, budget: int) -> None:
        source = '/' + os.path.relpath(path, self.root)
        if self.copied >= budget:
            self.manifest.append({'file': None, 'source': source, 'skipped': 'max_total_bytes reached'})
            return
        data = self.read(source)
        if data is None:
            return
        data, cut = tail_bytes(data, min(int(self.params.get('max_file_bytes') or MAX_FILE_BYTES),
                                         budget - self.copied))
        self.copied += len(data)
        self.add('files' + source, data, source, truncated=cut)

    def run(self, plan: Any = None) -> Dict[str, Any]:
        """Every source; returns the summary (also written as ``summary.json``)."""
        self.host()
        if plan is not None:
            self.add('plan.json', plan, 'the host plan (controller)')
        self.npu()
        self.versions()
        self.containers()
        self.services()
        self.log_paths()
        self.summary['problems'] = [entry for entry in self.manifest if entry.get('error')]
        self.add('summary.json', self.summary, 'this collection')
        self.add('manifest.json', self.manifest, 'this collection')
        return self.summary


def write_archive(path: str, prefix: str, files: Dict[str, bytes], mtime: Optional[float] = None) -> None:
    """A gzip'd tar of ``files`` under ``prefix/``, mode 0600 (it may hold logs the operator keeps private)."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, 'wb') as handle:
        with tarfile.open(fileobj=handle, mode='w:gz') as tar:
            for member in sorted(files):
                info = tarfile.TarInfo('%s/%s' % (prefix, member))
                info.size, info.mode, info.mtime = len(files[member]), 0o600, int(mtime or time.time())
                tar.addfile(info, io.BytesIO(files[member]))


def read_archive(path: str) -> Dict[str, bytes]:
    """Member name -> bytes of the regular files of a tar archive (the node's, fetched)."""
    with tarfile.open(path, 'r:*') as tar:
        return {member.name: tar.extractfile(member).read() for member in tar.getmembers() if member.isfile()}


def archive_shown(path: str) -> Optional[str]:
    """What --diff shows of a diagnostics archive: its members' names and sizes (``_diff.listing``), None when there
    is no file; a file that is not a tar archive by its size."""
    if file_size(path) is None:
        return None
    try:
        return listing(read_archive(path))
    except (OSError, EOFError, tarfile.TarError):
        return current(path, 'a file that is not a tar archive')


def bundle(archives: Dict[str, str], missing: Dict[str, str]) -> Dict[str, bytes]:
    """The members of one archive of every host's: ``HOST/...`` from each host's archive (whose own
    top directory is replaced by the host's name), plus ``hosts.json`` naming the hosts left out."""
    files = {'%s/%s' % (safe_name(host), name.split('/', 1)[-1]): data
             for host in sorted(archives) for name, data in read_archive(archives[host]).items()}
    index = {'collected': sorted(archives), 'missing': dict(missing or {})}
    files['hosts.json'] = (json.dumps(index, indent=2, sort_keys=True) + '\n').encode('utf-8')
    return files


def bundle_name(when: float) -> str:
    return 'ascend-vllm-diagnose-%s' % time.strftime('%Y%m%dT%H%M%SZ', time.gmtime(when))
