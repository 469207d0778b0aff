# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Platform profiles: the one place that knows what each Atlas device needs.

A profile is plain data (dicts, lists, strings, numbers) so roles can read it
through the ``vllm_config`` module result and inventories can override any
field.  Every list that comes from the deployment guide
(``shared/seed/000_de1b8cca3feb25fe.txt``, "4.1 Docker 镜像安装") keeps the
guide's order and spelling, so a generated ``docker run`` can be compared with
the guide line by line.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
from typing import Any, Dict, List, Optional


def _mount(source, target=None, read_only=True):
    # type: (str, Optional[str], bool) -> Dict[str, Any]
    return {'source': source, 'target': target or source, 'read_only': read_only}


# Read-only is the default for every guide mount: they are driver libraries,
# config files and binaries the container only reads.  Huawei's own container
# instructions for the 310-series edge boards mount the same daemon binaries
# and libraries ":ro" (e.g. "-v /var/slogd:/var/slogd:ro -v
# /var/dmp_daemon:/var/dmp_daemon:ro" in the ascend-infer-310b image guide).
# /var/slogd and /var/dmp_daemon are the log and device-manager daemon
# executables on Atlas 200-class boards, not directories the container writes
# (slog writes under /var/log/npu), so they stay read-only too.  The only
# mount the container writes is the model cache, kept apart in
# ``model_cache_mount``.
_MODEL_CACHE_MOUNT = _mount('/root/.cache', read_only=False)

PLATFORMS = {
    'atlas_300i_duo': {
        'description': 'Atlas 300I DUO inference card (two 310P3 chips per card, PCIe EP mode)',
        'os_family': 'any',
        # Guide 4.1 (300I DUO command): no --privileged, --shm-size=1g.
        'privileged': False,
        'shm_size': '1g',
        # Guide 4.1 (300I DUO command): "-v /usr/local/bin/npu-smi:/usr/local/bin/npu-smi".
        'npu_smi_path': '/usr/local/bin/npu-smi',
        # Guide 4.1: "vllm-ascend:v0.23.0-310p".
        'image_tag_suffix': '-310p',
        # Guide 5.1 and 9.1: "在 Atlas 300I DUO 上，TP=1 和 TP=2 均受支持".
        'allowed_tp': [1, 2],
        'chips_per_card': 2,
        # EP mode: the card has its own memory (vllm_ascend/utils.py is_rc_device
        # is false when lspci lists "accelerators", fixture 05).
        'rc_mode': False,
        # npu-smi total of chip 0 on an Atlas 300I Duo 96 GB (fixture 01: "1175 / 44280").
        'chip_memory_mb': 44280,
        'chip_device_template': '/dev/davinci{index}',
        # Guide 4.1 (300I DUO command): "--device /dev/davinci0" .. "/dev/davinci7".
        'guide_chip_devices': ['/dev/davinci%d' % i for i in range(8)],
        # Guide 4.1 (300I DUO command), in the guide's order.
        'manager_devices': ['/dev/davinci_manager', '/dev/devmm_svm', '/dev/hisi_hdc'],
        # Guide 4.1 (300I DUO command): every -v except /root/.cache, in order and
        # with the guide's spelling (trailing slash on lib64/ included).
        'mounts': [
            _mount('/usr/local/dcmi'),
            _mount('/usr/local/bin/npu-smi'),
            _mount('/usr/local/Ascend/driver/lib64/'),
            _mount('/usr/local/Ascend/driver/version.info'),
            _mount('/etc/ascend_install.info'),
        ],
        # Guide 4.1: "-v /root/.cache:/root/.cache" (ModelScope/HF downloads land here).
        'model_cache_mount': copy.deepcopy(_MODEL_CACHE_MOUNT),
        # Guide 4.1: "-p 8080:8080".
        'guide_port_mapping': '8080:8080',
    },
    'atlas_200i_pro': {
        'description': 'Atlas 200I Pro (one 310P chip, RC mode, host memory shared), Ubuntu host',
        'os_family': 'Debian',
        # Guide 4.1 (200I Pro Ubuntu command): --privileged, --shm-size=10g.
        'privileged': True,
        'shm_size': '10g',
        # Guide 4.1 (200I Pro command): "-v /usr/local/sbin/npu-smi:/usr/local/sbin/npu-smi".
        'npu_smi_path': '/usr/local/sbin/npu-smi',
        'image_tag_suffix': '-310p',
        # Guide 5.1: "在单个可见 NPU 的 Atlas 200I Pro 上，使用 TP=1".
        'allowed_tp': [1],
        'chips_per_card': 1,
        # RC mode: host and device share memory; vllm-ascend reads free memory
        # from psutil (vllm_ascend/_310p/worker_310p.py, is_rc_device()).
        'rc_mode': True,
        # Nominal only (24 GiB board); RC mode reads host memory, so deploys pass
        # the real figure from npu_facts/host facts as chip_memory_mb.
        'chip_memory_mb': 24576,
        'chip_device_template': '/dev/davinci{index}',
        # Guide 4.1 (200I Pro command): "--device=/dev/davinci0:/dev/davinci0".
        'guide_chip_devices': ['/dev/davinci0'],
        # Guide 4.1 (200I Pro command), in the guide's order.
        'manager_devices': ['/dev/davinci_manager', '/dev/ascend_manager', '/dev/user_config'],
        # Guide 4.1 (200I Pro Ubuntu command): every -v except /root/.cache, in order.
        'mounts': [
            _mount('/etc/sys_version.conf'),
            _mount('/etc/ld.so.conf.d/mind_so.conf'),
            _mount('/etc/hdcBasic.cfg'),
            _mount('/var/dmp_daemon'),
            _mount('/usr/lib64/libmmpa.so'),
            _mount('/usr/lib64/libcrypto.so.1.1'),
            _mount('/usr/local/sbin/npu-smi'),
            _mount('/usr/lib64/libstackcore.so'),
            # Ubuntu keeps libyaml under the multiarch directory; the image expects /usr/lib64.
            _mount('/usr/lib/aarch64-linux-gnu/libyaml-0.so.2', '/usr/lib64/libyaml-0.so.2'),
            _mount('/etc/slog.conf'),
            _mount('/var/slogd'),
            _mount('/usr/local/Ascend/driver/lib64'),
            _mount('/usr/lib64/libtensorflow.so'),
        ],
        'model_cache_mount': copy.deepcopy(_MODEL_CACHE_MOUNT),
        'guide_port_mapping': '8080:8080',
    },
    'atlas_200i_pro_openeuler': {
        'description': 'Atlas 200I Pro (one 310P chip, RC mode, host memory shared), openEuler host',
        'os_family': 'openEuler',
        # Guide 4.1 (200I Pro openEuler command): --privileged, --shm-size=10g.
        'privileged': True,
        'shm_size': '10g',
        'npu_smi_path': '/usr/local/sbin/npu-smi',
        # Guide 4.1: "vllm-ascend:v0.23.0-310p-openeuler".
        'image_tag_suffix': '-310p-openeuler',
        'allowed_tp': [1],
        'chips_per_card': 1,
        'rc_mode': True,
        'chip_memory_mb': 24576,
        'chip_device_template': '/dev/davinci{index}',
        'guide_chip_devices': ['/dev/davinci0'],
        'manager_devices': ['/dev/davinci_manager', '/dev/ascend_manager', '/dev/user_config'],
        # Guide 4.1 (200I Pro openEuler command): every -v except /root/.cache, in order.
        'mounts': [
            _mount('/etc/sys_version.conf'),
            _mount('/etc/ld.so.conf.d/mind_so.conf'),
            _mount('/etc/hdcBasic.cfg'),
            _mount('/var/dmp_daemon'),
            _mount('/usr/lib64/libsemanage.so.2'),
            _mount('/usr/lib64/libmmpa.so'),
            _mount('/usr/lib64/libcrypto.so.1.1'),
            # openEuler ships the versioned file; the image links against the soname.
            _mount('/usr/lib64/libyaml-0.so.2.0.9', '/usr/lib64/libyaml-0.so.2'),
            _mount('/usr/local/sbin/npu-smi'),
            _mount('/usr/lib64/libstackcore.so'),
            _mount('/etc/slog.conf'),
            _mount('/var/slogd'),
            _mount('/usr/local/Ascend/driver/lib64'),
            _mount('/usr/lib64/libtensorflow.so'),
        ],
        'model_cache_mount': copy.deepcopy(_MODEL_CACHE_MOUNT),
        'guide_port_mapping': '8080:8080',
    },
}  # type: Dict[str, Dict[str, Any]]


def profile_names():
    # type: () -> List[str]
    return sorted(PLATFORMS)


def _check_type(name, key, value, reference):
    # type: (str, str, Any, Any) -> None
    """Raise ValueError when an override has another kind of value than the profile."""
    if isinstance(reference, bool):
        ok = isinstance(value, bool)
    elif isinstance(reference, int):
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif isinstance(reference, str):
        ok = isinstance(value, str)
    elif isinstance(reference, list):
        ok = isinstance(value, list)
    elif isinstance(reference, dict):
        ok = isinstance(value, dict)
    else:  # pragma: no cover - every profile value is one of the kinds above
        ok = True
    if not ok:
        raise ValueError(
            'platform override %s for %s must be a %s like the profile value %r, got %r'
            % (key, name, type(reference).__name__, reference, value))


def get_profile(name, overrides=None):
    # type: (str, Optional[Dict[str, Any]]) -> Dict[str, Any]
    """Return a deep copy of profile ``name`` with ``overrides`` applied.

    Top-level values are replaced; dict values (``model_cache_mount``) are
    merged one level deep so an inventory can change only ``source``.
    Unknown profiles, unknown override keys and values of the wrong kind
    raise ``ValueError`` naming the key and the valid choices.
    """
    if name not in PLATFORMS:
        raise ValueError('unknown platform %r; valid platforms: %s' % (name, ', '.join(profile_names())))
    profile = copy.deepcopy(PLATFORMS[name])
    if not overrides:
        return profile
    if not isinstance(overrides, dict):
        raise ValueError('platform overrides must be a dict, got %r' % (overrides,))
    unknown = sorted(set(overrides) - set(profile))
    if unknown:
        raise ValueError('unknown platform override key(s) %s; valid keys: %s'
                         % (', '.join(unknown), ', '.join(sorted(profile))))
    for key, value in overrides.items():
        reference = profile[key]
        _check_type(name, key, value, reference)
        if isinstance(reference, dict):
            bad = sorted(set(value) - set(reference))
            if bad:
                raise ValueError('unknown key(s) %s in platform override %s; valid keys: %s'
                                 % (', '.join(bad), key, ', '.join(sorted(reference))))
            merged = dict(reference)
            merged.update(copy.deepcopy(value))
            profile[key] = merged
        else:
            profile[key] = copy.deepcopy(value)
    return profile
