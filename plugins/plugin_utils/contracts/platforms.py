# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Platform profiles: the one place that knows what each Atlas device needs.

A profile is plain data (dicts, lists, strings, numbers) so roles can read it
through the ``vllm_config`` module result and inventories can override any
field.  Every list that comes from the deployment guide (vllm-ascend docs,
"Qwen3.5-Dense" tutorial, section 4.1 "Docker 镜像安装", the ``docker run``
commands for Atlas 300I DUO and Atlas 200I Pro) keeps the guide's order and
spelling, so a generated ``docker run`` can be compared with the guide line by
line.  "Guide 4.1" / "guide 5.1" below name sections of that tutorial.
"""

from __future__ import annotations

import copy
import difflib
import json
from typing import Any, Dict, List, Optional, Tuple

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._container_spec import template_problem


# What each host path the guide mounts is ("file" or "dir") and what installs it, for the
# preflight's mount check (plugins/plugin_utils/judge/_node_problems.py).  Ascend's driver package
# (Ascend-hdk-310p-npu-driver) installs /usr/local/Ascend/driver, npu-smi, /usr/local/dcmi and
# /etc/ascend_install.info; the Atlas 200I Pro's board software (its driver and firmware
# package) the rest of the 200I Pro lines' files, except the OS libraries named by package.
DRIVER_PACKAGE = 'the Ascend NPU driver package (Ascend-hdk-310p-npu-driver)'
BOARD_PACKAGE = "the Atlas 200I Pro board's driver and firmware package"
MOUNT_SOURCES: Dict[str, Tuple[str, str]] = {
    '/usr/local/dcmi': ('dir', DRIVER_PACKAGE),
    '/usr/local/bin/npu-smi': ('file', DRIVER_PACKAGE),
    '/usr/local/Ascend/driver/lib64': ('dir', DRIVER_PACKAGE),
    '/usr/local/Ascend/driver/version.info': ('file', DRIVER_PACKAGE),
    '/etc/ascend_install.info': ('file', DRIVER_PACKAGE),
    '/usr/local/sbin/npu-smi': ('file', BOARD_PACKAGE),
    '/etc/sys_version.conf': ('file', BOARD_PACKAGE),
    '/etc/ld.so.conf.d/mind_so.conf': ('file', BOARD_PACKAGE),
    '/etc/hdcBasic.cfg': ('file', BOARD_PACKAGE),
    '/var/dmp_daemon': ('file', BOARD_PACKAGE),
    '/var/slogd': ('file', BOARD_PACKAGE),
    '/etc/slog.conf': ('file', BOARD_PACKAGE),
    '/usr/lib64/libmmpa.so': ('file', BOARD_PACKAGE),
    '/usr/lib64/libstackcore.so': ('file', BOARD_PACKAGE),
    '/usr/lib64/libtensorflow.so': ('file', BOARD_PACKAGE),
    '/usr/lib64/libcrypto.so.1.1': ('file', BOARD_PACKAGE + ' or the OS OpenSSL 1.1 libraries'),
    '/usr/lib/aarch64-linux-gnu/libyaml-0.so.2': ('file', 'the Ubuntu package libyaml-0-2'),
    '/usr/lib64/libyaml-0.so.2.0.9': ('file', 'the openEuler package libyaml'),
    '/usr/lib64/libsemanage.so.2': ('file', 'the openEuler package libsemanage'),
}


def _mount(source: str, target: Optional[str] = None, read_only: bool = True) -> Dict[str, Any]:
    mount = {'source': source, 'target': target or source, 'read_only': read_only}
    known = MOUNT_SOURCES.get(source.rstrip('/'))
    if known:
        mount['kind'], mount['provided_by'] = known
    return mount


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

# The serving process's environment (docs/image-contract.md has the whole contract).
# The guide starts the image with "docker run ... -it $IMAGE bash" and types
# "vllm serve" into that interactive shell, which reads /root/.bashrc.  The
# collection runs "vllm serve" as the container's command (through the image's
# ENTRYPOINT, never replacing it), which reads no .bashrc; so the profile gives,
# as container environment, what the image sets only in .bashrc.  "${NAME}"
# expands to the image's own ENV value of NAME (read from the image on the node),
# the way the .bashrc lines build on it, and "$(uname -m)" to the image's machine.
#
# vllm-ascend Dockerfile.310p at v0.23.0 and v0.23.0rc1 (the images of the guide)
# append to /root/.bashrc, in this order:
#   export LD_PRELOAD=/usr/lib/$(uname -m)-linux-gnu/libjemalloc.so.2:$LD_PRELOAD
#   export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/lib
#   export LD_LIBRARY_PATH=/usr/local/Ascend/driver/lib64:/usr/lib64:/root/aicpu_kernels/0/aicpu_kernels_device/sand_box:$LD_LIBRARY_PATH
# The first two are written with double quotes, so $LD_PRELOAD (empty) and
# $LD_LIBRARY_PATH (the image's ENV value) were expanded at build time: the shell
# ends with "<jemalloc>:" and "<three dirs>:<image ENV value>:/usr/local/lib".
# Dockerfile.310p.openEuler (same releases) preloads /usr/lib64/libjemalloc.so.2.
# On the Atlas 200I Pro the guide mounts board libraries into /usr/lib64; only
# this .bashrc line puts /usr/lib64 on the library path.
# OMP_NUM_THREADS=1 and TASK_QUEUE_ENABLE=1 are the image's own ENV values
# (Dockerfile.310p "ENV SOC_VERSION=... TASK_QUEUE_ENABLE=1 OMP_NUM_THREADS=1"), the
# values vllm-ascend's tutorials export (e.g. "Qwen3.5-27B" tutorial, v0.23.0); the
# profile restates them so that an operator changes them in one place.
_BASHRC_LD_LIBRARY_PATH = ('/usr/local/Ascend/driver/lib64:/usr/lib64:'
                           '/root/aicpu_kernels/0/aicpu_kernels_device/sand_box:${LD_LIBRARY_PATH}:/usr/local/lib')


def _environment(jemalloc: str) -> Dict[str, str]:
    return {
        'LD_LIBRARY_PATH': _BASHRC_LD_LIBRARY_PATH,
        'LD_PRELOAD': jemalloc + ':',
        'OMP_NUM_THREADS': '1',
        'TASK_QUEUE_ENABLE': '1',
    }


# "$(uname -m)" is the image's machine (aarch64 on the Atlas 200I Pro), as in the Dockerfile line.
_UBUNTU_ENVIRONMENT = _environment('/usr/lib/$(uname -m)-linux-gnu/libjemalloc.so.2')
_OPENEULER_ENVIRONMENT = _environment('/usr/lib64/libjemalloc.so.2')

PLATFORMS: Dict[str, Dict[str, Any]] = {
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
        # The -310p image (Ubuntu): its .bashrc additions, see _environment above.
        'environment': dict(_UBUNTU_ENVIRONMENT),
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
        # The -310p image (Ubuntu): /usr/lib64 on the library path is what makes the
        # board libraries mounted there loadable.
        'environment': dict(_UBUNTU_ENVIRONMENT),
        'guide_port_mapping': '8080:8080',
    },
}

# The openEuler 200I Pro is the 200I Pro with the openEuler host's differences (guide 4.1 gives it
# its own command): the same board, devices, privilege, shm size, RC mode and TP; its own mounts,
# image suffix and the image's environment.
PLATFORMS['atlas_200i_pro_openeuler'] = dict(copy.deepcopy(PLATFORMS['atlas_200i_pro']), **{
    'description': 'Atlas 200I Pro (one 310P chip, RC mode, host memory shared), openEuler host',
    'os_family': 'openEuler',
    # Guide 4.1: "vllm-ascend:v0.23.0-310p-openeuler".
    'image_tag_suffix': '-310p-openeuler',
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
    # The -310p-openeuler image: jemalloc under /usr/lib64 (Dockerfile.310p.openEuler).
    'environment': dict(_OPENEULER_ENVIRONMENT),
})


def profile_names() -> List[str]:
    return sorted(PLATFORMS)


def _check_type(name: str, key: str, value: Any, reference: Any) -> None:
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
    # What a device path must look like is the container spec's rule, judged here before any host is asked.
    if key == 'chip_device_template' and template_problem(value):
        raise ValueError('platform %s: %s' % (name, template_problem(value)))
    if key == 'manager_devices' and not all(isinstance(path, str) and path.startswith('/dev/') for path in value):
        raise ValueError('platform %s: manager_devices must be device paths under /dev/, got %r' % (name, value))


def get_profile(name: str, overrides: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """Return a deep copy of profile ``name`` with ``overrides`` applied.

    Top-level values are replaced; dict values (``model_cache_mount``) are
    merged one level deep so an inventory can change only ``source``.
    Unknown profiles, unknown override keys and values of the wrong kind
    raise ``ValueError`` naming the key and the valid choices.
    """
    if name not in PLATFORMS:
        raise ValueError('unknown platform %r; valid platforms: %s' % (name, ', '.join(profile_names())))
    return _apply_overrides(name, copy.deepcopy(PLATFORMS[name]), overrides)


def _apply_overrides(name: str, profile: Dict[str, Any], overrides: Any) -> Dict[str, Any]:
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
            bad = sorted(set(value) - set(reference)) if key not in OPEN_DICT_FIELDS else []
            if bad:
                raise ValueError('unknown key(s) %s in platform override %s; valid keys: %s'
                                 % (', '.join(bad), key, ', '.join(sorted(reference))))
            merged = dict(reference)
            merged.update(copy.deepcopy(value))
            profile[key] = merged
        else:
            profile[key] = copy.deepcopy(value)
    return profile


# Fields an inventory-defined platform (``ascend_vllm_platform_spec``) must give
# when it is not ``based_on`` a built-in profile.  ``guide_*`` fields only serve
# the comparison with the guide's own command lines and are optional there.
# ``environment`` is optional too (an image whose plain ENV is enough needs none).
OPTIONAL_SPEC_FIELDS = ('os_family', 'environment')
REQUIRED_SPEC_FIELDS = tuple(sorted(
    key for key in PLATFORMS['atlas_300i_duo'] if not key.startswith('guide_') and key not in OPTIONAL_SPEC_FIELDS))
# Dict fields whose override may add keys (an operator adds variables to ``environment``).
OPEN_DICT_FIELDS = ('environment',)
SPEC_ONLY_KEYS = ('based_on',)


def did_you_mean(value: Any, choices: List[str]) -> str:
    """" (did you mean X?)" for the closest choice, ignoring case; "" when none is close."""
    if not isinstance(value, str) or not value:
        return ''
    lowered = dict((choice.lower(), choice) for choice in choices)
    if value.lower() in lowered and lowered[value.lower()] != value:
        return ' (did you mean %s?)' % lowered[value.lower()]
    close = difflib.get_close_matches(value.lower(), sorted(lowered), n=2, cutoff=0.6)
    if not close:
        # An abbreviation ("shm" for "shm_size") is too short for difflib's ratio.
        close = [choice for choice in sorted(lowered) if len(value) >= 3 and choice.startswith(value.lower())][:2]
    return ' (did you mean %s?)' % ' or '.join(lowered[choice] for choice in close) if close else ''


def platform_from_groups(group_names: Any, spec_names: Any = ()) -> str:
    """The platform a host's inventory groups name (the last in sorted order), or ''."""
    known = set(profile_names()) | set(spec_names or ())
    found = sorted(name for name in (group_names or []) if name in known)
    return found[-1] if found else ''


def profile_from_spec(name: str, spec: Any) -> Dict[str, Any]:
    """A profile for a platform described in inventory; ValueError names what is wrong.

    ``spec`` either names a built-in profile in ``based_on`` and changes some of its
    fields (checked like overrides), or gives every field of REQUIRED_SPEC_FIELDS.
    """
    if not isinstance(spec, dict):
        raise ValueError('the platform spec of %s must be a dict of profile fields, got %r' % (name, spec))
    spec = copy.deepcopy(spec)
    base_name = spec.pop('based_on', None)
    if base_name is not None:
        if base_name not in PLATFORMS:
            raise ValueError('based_on %r is not a built-in platform; built-in: %s'
                             % (base_name, ', '.join(profile_names())))
        profile = get_profile(base_name, spec)
        profile['based_on'] = base_name
        return profile
    reference = PLATFORMS['atlas_300i_duo']
    unknown = sorted(set(spec) - set(reference))
    if unknown:
        raise ValueError('unknown platform spec key(s) %s; valid keys: %s'
                         % (', '.join(unknown), ', '.join(sorted(set(reference) | set(SPEC_ONLY_KEYS)))))
    missing = [key for key in REQUIRED_SPEC_FIELDS if key not in spec]
    if missing:
        raise ValueError('platform %s is not built in, so its spec needs every field or based_on; missing %s'
                         % (name, ', '.join(missing)))
    for key, value in spec.items():
        _check_type(name, key, value, reference[key])
    return spec


def resolve_profile(name: Any,
                    overrides: Any = None,
                    spec: Any = None) -> Tuple[Optional[Dict[str, Any]], Optional[Tuple[str, Any, str, Any]]]:
    """(profile, None), or (None, (option, value, error, base profile)) for the first thing that is wrong.

    option is ``platform``, ``platform_overrides`` or ``platform_spec``.  A built-in
    name ignores ``spec``; any other name needs one.
    """
    if name not in PLATFORMS and spec:
        try:
            base = profile_from_spec(name, spec)
        except ValueError as exc:
            return None, ('platform_spec', spec, str(exc), None)
    elif name not in PLATFORMS:
        return None, ('platform', name, 'unknown platform %r; valid platforms: %s'
                      % (name, ', '.join(profile_names())), None)
    else:
        base = copy.deepcopy(PLATFORMS[name])
    try:
        return _apply_overrides(name, copy.deepcopy(base), overrides), None
    except ValueError as exc:
        return None, ('platform_overrides', overrides, str(exc), base)


def overrides_fix(reference: Dict[str, Any], overrides: Any, variable: str) -> str:
    """What to change in platform overrides that were refused."""
    if not isinstance(overrides, dict):
        return 'set %s to a dict of profile fields, e.g. {shm_size: 2g}' % variable
    parts = []
    for key in sorted(overrides):
        if key not in reference:
            parts.append('%s is not a profile field%s' % (key, did_you_mean(key, sorted(reference))))
        elif isinstance(reference[key], dict) and isinstance(overrides[key], dict):
            for sub in [] if key in OPEN_DICT_FIELDS else sorted(set(overrides[key]) - set(reference[key])):
                parts.append('%s.%s is not a field%s' % (key, sub, did_you_mean(sub, sorted(reference[key]))))
        elif type(reference[key]) is not type(overrides[key]) and not (
                isinstance(reference[key], str) and isinstance(overrides[key], str)):
            parts.append('give %s a %s like the profile value %s' % (
                key, type(reference[key]).__name__, json.dumps(reference[key])))
    return 'in %s: %s; profile fields: %s' % (variable, '; '.join(parts) or 'use the profile fields',
                                              ', '.join(sorted(reference)))


def platform_violation(bad: Tuple[str, Any, str, Any],
                       name_of: Any = lambda option: option) -> Tuple[str, Any, str, str]:
    """(option, value, rule, fix) for what resolve_profile refused; name_of maps options to variables."""
    option, value, error, base = bad
    if option == 'platform':
        return (option, value, error, 'set %s to one of: %s%s, or describe it in %s'
                % (name_of('platform'), ', '.join(profile_names()), did_you_mean(value, profile_names()),
                   name_of('platform_spec')))
    if option == 'platform_spec':
        based_on = value.get('based_on') if isinstance(value, dict) else None
        if based_on in PLATFORMS:
            fields = dict((key, field) for key, field in value.items() if key != 'based_on')
            return (option, value, error, overrides_fix(PLATFORMS[based_on], fields, name_of('platform_spec'))
                    + '; based_on names the built-in profile the other fields change')
        return (option, value, error, 'in %s: give based_on (one of %s) and the fields that differ, or every field '
                '(%s)' % (name_of('platform_spec'), ', '.join(profile_names()), ', '.join(REQUIRED_SPEC_FIELDS)))
    reference = base if base is not None else PLATFORMS['atlas_300i_duo']
    return (option, value, error, overrides_fix(reference, value, name_of('platform_overrides')))


def profile_verdict(name: Any, overrides: Any, spec: Any, var_names: Dict[str, str]) -> Dict[str, Any]:
    """{'profile': dict or None, 'problems': [...]}: the profile of a platform, or the one problem that
    stops it, naming the user's variables (``var_names`` maps platform/platform_overrides/platform_spec)."""
    profile, bad = resolve_profile(name, overrides or {}, spec or None)
    if not bad:
        return {'profile': profile, 'problems': []}
    option, value, rule, fix = platform_violation(bad, lambda option: var_names.get(option, option))
    if option == 'platform':
        fix += ', or put the host in the inventory group of that name'
    return {'profile': None, 'problems': [
        {'check': 'platform', 'msg': '%s=%s: %s' % (var_names[option], json.dumps(value, sort_keys=True), rule),
         'fix': fix}]}
