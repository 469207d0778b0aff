# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Provenance of an evaluation: what each instance ran (image, digest, argv) and on what (driver,
firmware, CANN), read on the node; every value not found is the string ``unknown``, never left out.

Pure parsing here; the reads (files on the node, the Docker Engine API) are in the vllm_eval module.
"""

from __future__ import annotations

import io
import re
import tarfile

from ansible_collections.ascend.vllm.plugins.module_utils._image import parse
from ansible_collections.ascend.vllm.plugins.module_utils._redact import redact_argv

from typing import Any, Dict, List, Optional

UNKNOWN = 'unknown'
# The firmware package's version file, assumed to have the driver file's format; not checked against a
# capture from a real node (docs/evaluation.md says so).
FIRMWARE_VERSION_FILE = '/usr/local/Ascend/firmware/version.info'
# The CANN toolkit's version files under ASCEND_TOOLKIT_HOME (set with ENV by the CANN base images);
# formats from captures of 310P hosts, paths as vllm-ascend's collect_env shows them (not checked in an image).
CANN_FILES = ('{home}/{arch}-linux/ascend_toolkit_install.info', '{home}/version.cfg')
# Docker's architecture names to the ones CANN's folders use.
ARCH = {'amd64': 'x86_64', 'arm64': 'aarch64', 'x86_64': 'x86_64', 'aarch64': 'aarch64'}
# What the recorded argv shows instead of a secret.
MASK = '(hidden)'


def key_values(text: Optional[str]) -> Dict[str, str]:
    """``key=value`` lines (version.info, ascend_toolkit_install.info, version.cfg) as a dict."""
    out = {}
    for line in (text or '').splitlines():
        key, sep, value = line.partition('=')
        if sep and key.strip() and not key.lstrip().startswith('#'):
            out[key.strip()] = value.strip()
    return out


def version_info(text: Optional[str]) -> str:
    """The version a driver (or firmware) ``version.info`` names: ``Version=``, else ``package_version=``."""
    values = key_values(text)
    return values.get('Version') or values.get('package_version') or UNKNOWN


def cann_version(install_info: Optional[str] = None, version_cfg: Optional[str] = None) -> str:
    """The CANN toolkit version: ``version=`` of ascend_toolkit_install.info, else the release of
    ``toolkit_running_version=[8.2.0.2.220:8.2.RC2]`` in version.cfg."""
    match = re.search(r'\[[^:\]]*:([^\]]+)\]', key_values(version_cfg).get('toolkit_running_version', ''))
    return key_values(install_info).get('version') or (match.group(1) if match else UNKNOWN)


def masked_argv(argv: List[str]) -> List[str]:
    """The argv as text with the value of every secret flag (``--api-key K`` or ``--api-key=K``, module_utils/_redact.py)
    hidden."""
    return redact_argv([str(arg) for arg in argv or []], shown_as=MASK)


def file_from_tar(data: bytes) -> Optional[str]:
    """The text of the first regular file in a tar stream (the Docker Engine's container archive answer)."""
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode='r:*') as archive:
            member = next((member for member in archive if member.isfile()), None)
            return archive.extractfile(member).read().decode('utf-8', 'replace') if member else None
    except (tarfile.TarError, EOFError):
        return None


def _env(inspect: Dict[str, Any]) -> Dict[str, str]:
    return dict(item.split('=', 1) for item in (inspect.get('Config') or {}).get('Env') or [] if '=' in item)


def cann_paths(inspect: Optional[Dict[str, Any]], image: Optional[Dict[str, Any]]) -> List[str]:
    """Where the container's CANN version files would be; empty when the image sets no ASCEND_TOOLKIT_HOME."""
    home = _env(inspect or {}).get('ASCEND_TOOLKIT_HOME')
    if not home:
        return []
    arch = ARCH.get((image or {}).get('Architecture') or '', (image or {}).get('Architecture') or 'x86_64')
    return [pattern.format(home=home.rstrip('/'), arch=arch) for pattern in CANN_FILES]


def image_digest(image: Optional[Dict[str, Any]], reference: Optional[str]) -> str:
    """The registry digest of the container's image: the RepoDigests entry of the repository the container
    names, else the only one; ``unknown`` for an image that never came from a registry (loaded from an archive)."""
    digests = [parse(str(d)) for d in (image or {}).get('RepoDigests') or [] if str(d).strip()]
    repository = parse(reference).name if isinstance(reference, str) and reference.strip() else ''
    named = [entry.digest for entry in digests if entry.name == repository and entry.digest]
    return (named or [digests[0].digest if len(digests) == 1 else None])[0] or UNKNOWN


def instance_provenance(name: str, container: Optional[str], inspect: Optional[Dict[str, Any]],
                        image: Optional[Dict[str, Any]], cann: str) -> Dict[str, Any]:
    """What one instance ran, from ``docker inspect`` of its container and of its image."""
    if not inspect:
        return {'instance': name, 'container': container or UNKNOWN, 'image': UNKNOWN, 'image_id': UNKNOWN,
                'digest': UNKNOWN, 'argv': UNKNOWN, 'cann': UNKNOWN,
                'note': 'no container %s on the node' % container if container else 'no container name given'}
    config = inspect.get('Config') or {}
    reference = config.get('Image') or UNKNOWN
    argv = list(config.get('Entrypoint') or []) + list(config.get('Cmd') or [])
    return {'instance': name, 'container': container, 'image': reference,
            'image_id': inspect.get('Image') or UNKNOWN, 'digest': image_digest(image, reference),
            'argv': masked_argv(argv) if argv else UNKNOWN, 'cann': cann or UNKNOWN}


def node_provenance(hostname: Optional[str], driver_text: Optional[str], firmware_text: Optional[str]) -> Dict[str, str]:
    """The node's own part: its hostname, driver and firmware versions."""
    return {'hostname': hostname or UNKNOWN, 'driver': version_info(driver_text),
            'firmware': version_info(firmware_text)}


def provenance_rows(provenance: Dict[str, Any]) -> List[Dict[str, Any]]:
    """One row per host and instance for the report; a host with no provenance at all shows unknowns."""
    rows = []
    for host in sorted(provenance):
        data = provenance[host] or {}
        for inst in data.get('instances') or [{}]:
            row = {key: source.get(key) or UNKNOWN for source, keys in (
                (data.get('node') or {}, ('hostname', 'driver', 'firmware')),
                (inst, ('instance', 'container', 'image', 'image_id', 'digest', 'cann'))) for key in keys}
            argv = inst.get('argv')
            rows.append(dict(row, host=host, argv=' '.join(argv) if isinstance(argv, list) else UNKNOWN))
    return rows
