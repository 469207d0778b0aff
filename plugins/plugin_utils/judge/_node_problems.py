# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The node preflight's judgement, on the controller: what to ask the node, and its problems.

``node_query`` turns the platform profile and the planned instances into the arguments
of ascend.vllm.node_facts; ``node_problems`` turns what that module returned into the
problem list (``{check, msg, fix}``, in the order the checks run) and ``npu_check_result``;
``node_verdict`` adds the summary line and the failure report. Used by ascend.vllm.node_facts
with ``checks`` (the npu_check role) and by ascend.vllm.host_plan (plan/_node.py). Pure functions over plain data; nothing here contacts a node.
"""

import json
import re
import tarfile
from collections import Counter
from typing import Any, Dict, List, Optional, Tuple

from ansible.module_utils.compat.version import LooseVersion

from ansible_collections.ascend.vllm.plugins.module_utils._image import tag_of
from ansible_collections.ascend.vllm.plugins.module_utils._labels import MANAGED_LABEL, MANAGED_VALUE
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts import releases, versions
from ansible_collections.ascend.vllm.plugins.module_utils.serve._keep import previous_name
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts import _container_spec
from ansible_collections.ascend.vllm.plugins.module_utils._problem import problem, report
from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._source import source_problems, unit_name

PLATFORM_NAMES = 'atlas_300i_duo, atlas_200i_pro or atlas_200i_pro_openeuler'

DRIVER_FIX = ('install the Ascend 310P driver and firmware (Ascend-hdk-310p-npu-driver / -firmware) and reboot; '
              'set npu_check_driver_dir / npu_check_driver_version_file if they live elsewhere')
CHIP_DEVICE_FIX = ('the driver is not loaded or the chip id is wrong: check `npu-smi info` and `ls /dev/davinci*`, '
                   'reboot after a driver install, and give each instance chips that exist')
MANAGER_DEVICE_FIX = ('the Ascend driver did not create it: reinstall the driver, or drop it from the platform profile '
                      'with ascend_vllm_platform_overrides.manager_devices if this board has none')
MOUNT_FIX = ("install the driver/toolkit component that provides it, or change the platform profile's mounts "
             'in ascend_vllm_platform_overrides')
DOCKER_FIX = ('install Docker Engine (Ubuntu: docker.io or docker-ce; openEuler: docker-engine), start it '
              '(systemctl enable --now docker), and install python3-requests, which community.docker needs on the node')
NPU_SMI_FIX = ('install the Ascend driver (it ships npu-smi) and run the play as root (become: true); '
               'set npu_check_npu_smi_path if npu-smi lives elsewhere')
CHIP_BUSY_FIX = ('stop that process or the container running it (`docker ps`, `npu-smi info`), '
                 'or give the instance other chips; a 310P chip cannot be shared (dcmi error -8005)')
DISK_FIX = ("free space (`docker system prune`, old images), move Docker's data-root to a larger disk, "
            'or lower npu_check_disk_min_free_gb if you know the image fits')
MEMORY_FIX = ('stop other memory users, set npu_check_drop_page_cache: true to drop the page cache first, '
              'or lower max_model_len / max_num_seqs / gpu_memory_utilization')
# The Python modules the community.docker modules the roles run on a node import there (their doc fragment
# docker.api_documentation: requirements), with the package that brings each per distribution. Debian and Ubuntu
# (python3-requests) and openEuler (python3-requests) name it the same.
NODE_PYTHON_PACKAGES = {'requests': 'python3-requests'}
# `uname -m` of a node -> the architecture Docker records in an image's config (Go's GOARCH), as Docker maps them
# for `--platform`: linux/amd64 runs on x86_64, linux/arm64 on aarch64.
DOCKER_ARCHITECTURES = {'x86_64': 'amd64', 'amd64': 'amd64', 'aarch64': 'arm64', 'arm64': 'arm64',
                        'armv7l': 'arm', 'i686': '386', 'i386': '386', 'ppc64le': 'ppc64le', 's390x': 's390x',
                        'riscv64': 'riscv64'}


def version_at_least(version: Any, minimum: str) -> bool:
    """Loose comparison, as Jinja's ``version(minimum, '>=', strict=false)`` test."""
    left, right = LooseVersion(str(version)), LooseVersion(str(minimum))
    try:
        return left >= right
    except TypeError:  # '23.0.rc2' against '23.0.0': compare the parts as text
        return [str(p) for p in left.version] >= [str(p) for p in right.version]


def normalize_instances(instances: Any) -> List[Dict[str, Any]]:
    """npu_check_instances with every key filled in, as the role documents them."""
    out = []
    for inst in instances or []:
        name = str(inst.get('name', 'default'))
        out.append({
            'name': name,
            'container_name': inst.get('container_name', 'vllm-ascend'),
            'chips': [int(c) for c in inst.get('chips', [0])],
            'chips_var': inst.get('chips_var', 'chips of instance ' + name),
            'container_var': inst.get('container_var', 'container_name of instance ' + name),
            'port': inst.get('port'),
            'host_memory_mb': int(inst.get('host_memory_mb') or 0),
        })
    return out


def used_chips(instances: List[Dict[str, Any]]) -> List[int]:
    return sorted(set(c for inst in instances for c in inst['chips']))


def chip_device(profile: Dict[str, Any], chip: Any) -> str:
    return _container_spec.chip_device(profile.get('chip_device_template'), chip)


def device_paths(profile: Dict[str, Any], instances: List[Dict[str, Any]]) -> List[str]:
    """The device nodes the containers get: the instances' chips plus the manager devices."""
    return _container_spec.devices(profile, used_chips(instances))


def mount_specs(profile: Dict[str, Any], enabled: bool = True) -> List[Tuple[str, str, str]]:
    """(host path normalised: "/a//b/" -> "/a/b", kind or '', provided_by or '') of each bind mount of the profile."""
    return [(re.sub(r'(?<=.)/\Z', '', re.sub('/+', '/', m['source'])), str(m.get('kind') or ''),
             str(m.get('provided_by') or '')) for m in profile.get('mounts') or [] if isinstance(m, dict)] if enabled else []


def _ports(instances: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    return [inst for inst in instances if inst['port'] is not None]


def node_query(settings: Dict[str, Any]) -> Dict[str, Any]:
    """The ascend.vllm.node_facts arguments for the role settings (see node_problems)."""
    profile = settings.get('profile') or {}
    instances = normalize_instances(settings.get('instances'))
    mounts = [path for path, _kind, _by in mount_specs(profile, settings.get('mount_sources', True))]
    return {
        'paths': list(dict.fromkeys([settings['driver_dir'], settings['driver_version_file']]
                                    + device_paths(profile, instances) + mounts + list(settings.get('paths') or []))),
        'npu_smi_path': settings.get('npu_smi_path') or profile.get('npu_smi_path') or '',
        'driver_version_file': settings['driver_version_file'],
        # Each instance's container and the one a deploy keeps while replacing it (container_run); the containers of
        # the other components that bind ports.
        'containers': sorted(set([name for inst in instances
                                  for name in (inst['container_name'], previous_name(inst['container_name']))]
                                 + [bind['container'] for bind in settings.get('binds') or [] if bind['container']])),
        'ports': (sorted(set([int(inst['port']) for inst in _ports(instances)]
                             + [bind['port'] for bind in settings.get('binds') or []]))
                  if settings.get('ports', True) else []),
    }


def platform_problems(settings: Dict[str, Any]) -> List[Dict[str, str]]:
    """The platform is not set, or its profile cannot be resolved."""
    if settings.get('profile_given'):
        return []
    platform = settings.get('platform') or ''
    if not platform:
        return [problem('platform', 'no platform is set for ' + str(settings.get('host')),
                        'set ascend_vllm_platform (%s) in group_vars, or put the host in the inventory group of '
                        'that name' % PLATFORM_NAMES)]
    return [problem('platform', 'cannot read the profile of platform %s: %s' % (platform, p['msg']),
                    'correct ascend_vllm_platform / ascend_vllm_platform_overrides')
            for p in settings.get('platform_problems') or []]


def _path(facts: Dict[str, Any], path: str) -> Dict[str, Any]:
    return (facts.get('paths') or {}).get(path) or {}


def path_problems(facts: Dict[str, Any], settings: Dict[str, Any], profile: Dict[str, Any],
                  instances: List[Dict[str, Any]], mounts: bool = True) -> List[Dict[str, str]]:
    """Missing driver files, device nodes and (``mounts``) host files the container mounts."""
    out = [problem('driver', path + ' is missing: the Ascend NPU driver is not installed', DRIVER_FIX)
           for path in (settings['driver_dir'], settings['driver_version_file'])
           if not _path(facts, path).get('exists')]
    for path in device_paths(profile, instances):
        found = _path(facts, path)
        if found.get('ischr'):
            continue
        chip = re.match(r'.*davinci([0-9]+)$', path)
        fix = CHIP_DEVICE_FIX if chip else MANAGER_DEVICE_FIX
        # A chip's device names the variables that gave the chip, with the instance's index.
        source = ', '.join(dict.fromkeys(str(i.get('chips_var', '')).split(' ', 1)[0] for i in instances
                                         if chip and int(chip.group(1)) in (i.get('chips') or [])))
        state = ' is not a character device' if found.get('exists') else ' is missing'
        out.append(problem('devices', '%s%s%s' % (source + ': ' if source else '', path, state), fix))
    if mounts:
        out.extend(mount_problems(facts, profile, settings.get('mount_sources', True)))
    return out


def mount_problems(facts: Dict[str, Any], profile: Dict[str, Any], enabled: bool = True) -> List[Dict[str, str]]:
    """Host paths the container bind-mounts that are missing or of the other kind (file vs directory).

    The profile's mounts name their kind and what installs them (platforms.MOUNT_SOURCES);
    a mount an inventory added without them is only checked for existence.
    """
    out = []
    for path, kind, provided_by in mount_specs(profile, enabled):
        found = _path(facts, path)
        source = ' (provided by %s)' % provided_by if provided_by else ''
        fix = ('install %s, or change the platform profile\'s mounts in ascend_vllm_platform_overrides'
               % provided_by) if provided_by else MOUNT_FIX
        if not found.get('exists'):
            out.append(problem('mounts', '%s is missing%s; the container bind-mounts it and Docker would refuse to '
                               'start' % (path, source), fix))
        elif kind == 'dir' and not found.get('isdir') or kind == 'file' and found.get('isdir'):
            # E.g. an empty directory an earlier `docker run -v` created in place of a missing file.
            out.append(problem('mounts', '%s is a %s, the container expects a %s%s' % (
                path, 'directory' if found.get('isdir') else 'non-directory', 'directory' if kind == 'dir' else 'file',
                source), 'remove %s, then %s' % (path, fix)))
    return out


def docker_problems(docker: Dict[str, Any], settings: Dict[str, Any]) -> List[Dict[str, str]]:
    """An engine that does not answer, or one older than npu_check_docker_min_version."""
    if not docker.get('reachable'):
        return [problem('docker', 'cannot talk to the Docker Engine: ' + (docker.get('error') or 'unknown error'),
                        DOCKER_FIX)]
    version = docker.get('version')
    minimum = settings.get('docker_min_version') or ''
    if version is None or not minimum:
        return []
    match = re.match(r'^[0-9.]+', version)
    if version_at_least(match.group(0) if match and match.group(0) else '0', minimum):
        return []
    return [problem('docker', 'Docker Engine %s is older than %s' % (version, minimum),
                    'upgrade Docker Engine to %s or newer' % minimum)]


def python_problems(system: Optional[Dict[str, Any]]) -> List[Dict[str, str]]:
    """The node's Python (the one that runs the modules) cannot import what community.docker's modules need.

    ``system``: node_facts' ``system``; None (not read) judges nothing.
    """
    python = (system or {}).get('python') or {}
    out = []
    for name, found in sorted((python.get('modules') or {}).items()):
        if found.get('found'):
            continue
        package = NODE_PYTHON_PACKAGES.get(name, 'python3-' + name)
        executable = python.get('executable') or 'python3'
        out.append(problem(
            'python', 'the Python that runs the modules on the node (%s %s) cannot import %s (%s); the '
            'community.docker modules (the image pull or load, the containers) need it on the node'
            % (executable, python.get('version') or '', name, found.get('error') or 'not found'),
            'install %s on the node (Ubuntu/Debian: apt-get install %s; openEuler: dnf install %s), or `%s -m pip '
            'install %s` when ansible_python_interpreter is a virtualenv' % (package, package, package, executable,
                                                                             name)))
    return out


def docker_modules_run(settings: Dict[str, Any]) -> bool:
    """Whether the roles run community.docker's modules on the node: the image and the containers of the image
    install method, or the balancer's container of the source install method."""
    return (settings.get('install') or {}).get('method') != 'source' or bool(settings.get('needs_docker'))


def docker_architecture(machine: Any) -> Optional[str]:
    """The architecture Docker names for a node's ``uname -m`` (aarch64 -> arm64, x86_64 -> amd64); None if unknown."""
    return DOCKER_ARCHITECTURES.get(str(machine or '').strip().lower())


def image_architecture_problems(image_configs: Optional[Dict[str, Any]], refs: List[str],
                                machine: Any) -> List[Dict[str, str]]:
    """An image of ``refs`` present on the node (node_facts' ``docker.image_configs``) built for another
    architecture than the node's: a container of it would fail with `exec format error`.

    Judged only when both are known (an image config without ``architecture``, a ``machine`` Docker has no name
    for, or no system read, judge nothing).
    """
    wanted = docker_architecture(machine)
    found = [(ref, str(((image_configs or {}).get(ref) or {}).get('architecture') or '')) for ref in refs]
    return [problem(
        'image', 'image %s on the node is linux/%s, the node is %s (linux/%s): its containers cannot run there'
        % (ref, have, machine, wanted),
        'remove it on the node (docker rmi %s) and pull it there, or save the image for the node '
        '(docker pull --platform linux/%s %s, then docker save) and load that archive (image_pull_archive; '
        'docs/air-gapped.md)' % (ref, wanted, ref)) for ref, have in found if wanted and have and have != wanted]


def archive_architectures(path: Any) -> Dict[str, str]:
    """{image name: architecture} of the images in a `docker save` archive on the controller (its manifest.json and
    each image's config), {} when it cannot be read that way (missing, compressed, not an archive of images).

    Only an uncompressed tar is read: tarfile skips over the layers by seeking, so a multi-GB archive costs a scan of
    its headers; a compressed one would have to be decompressed whole and is left unjudged.
    """
    try:
        with tarfile.open(str(path), 'r:') as tar:
            manifest = json.load(tar.extractfile('manifest.json'))
            out = {}
            for entry in manifest:
                config = json.load(tar.extractfile(entry['Config']))
                for name in entry.get('RepoTags') or [entry['Config']]:
                    out[name] = str(config.get('architecture') or '')
            return out
    except (OSError, ValueError, KeyError, TypeError, AttributeError, tarfile.TarError):
        return {}


def archive_architecture_problems(archive: str, found: Dict[str, str], machine: Any) -> List[Dict[str, str]]:
    """The images of ``archive`` (``found``: archive_architectures) built for another architecture than the node's:
    loaded, they would not run there."""
    wanted = docker_architecture(machine)
    wrong = sorted((name, arch) for name, arch in (found or {}).items() if wanted and arch and arch != wanted)
    if not wrong:
        return []
    return [problem(
        'image', 'image_pull_archive=%s holds %s, the node is %s (linux/%s): loaded, its containers cannot run there'
        % (json.dumps(archive), ', '.join('%s (linux/%s)' % pair for pair in wrong), machine, wanted),
        'save the image for the node on a machine with access (docker pull --platform linux/%s %s, then docker save) '
        'and set image_pull_archive to that tarball (docs/air-gapped.md)' % (wanted, wrong[0][0]))]


def foreign_problems(containers: Dict[str, Any], instances: List[Dict[str, Any]]) -> List[Dict[str, str]]:
    """A container with an instance's name that this collection did not create (no managed-by label).

    The deploy would replace it without a word; it may be another user's. Only a
    container whose labels were read counts (node_facts always reads them).
    """
    out = []
    for inst in instances:
        name = inst['container_name']
        found = (containers or {}).get(name) or {}
        if not found.get('exists') or 'labels' not in found or _ours(found):
            continue
        out.append(problem(
            'containers',
            '%s=%s (instance %s): a container of that name (%s) is on the node and was not created by ascend.vllm '
            '(no %s label); the deploy would replace it' % (
                inst['container_var'], str(name), inst['name'], found.get('status') or 'state unknown', MANAGED_LABEL),
            'leave it alone by setting %s to another name; or, if it is yours and may go, remove it first '
            '(`docker rm -f %s`) and the next run creates the instance in its place' % (inst['container_var'], name)))
    return out


def _running(containers: Dict[str, Any], names: Dict[str, str]) -> Dict[str, Dict[str, Any]]:
    """{key: its container's devices, bound ports and host pids} of the containers ``names`` ({key: name}) that run."""
    out = {}
    for key, name in names.items():
        found = (containers or {}).get(name) or {}
        if found.get('exists') and found.get('running'):
            out[key] = {'container': name, 'devices': list(found.get('devices') or []),
                        'ports': list(found.get('ports') or []), 'pids': list(found.get('pids') or [])}
    return out


def removed_first(containers: Dict[str, Any], removing: Any) -> Dict[str, Dict[str, Any]]:
    """The running containers of ours the run removes before it starts anything (no longer in the plan), in
    _running's shape under ``removing <name>``: their chips, ports and memory are ours and come back."""
    return _running(containers, {'removing %s' % name: name for name in removing})


def _unit_held(name: str, chips: Any, port: Any, profile: Dict[str, Any]) -> Dict[str, Any]:
    """A systemd unit of ours in _running's shape: its chips' devices and its port (no pids: vLLM's processes
    are the unit's children, so its chips count as ours whole)."""
    return {'container': name, 'devices': [chip_device(profile, chip) for chip in chips or []],
            'ports': [str(port)] if port else [], 'pids': []}


def own_services(units: Any, instances: List[Dict[str, Any]], profile: Dict[str, Any]) -> Dict[str, Dict[str, Any]]:
    """Per instance whose unit runs (the source install method): its chips' devices and port."""
    return {inst['name']: _unit_held(unit_name(inst['container_name']), inst['chips'], inst['port'], profile)
            for inst in instances if ((units or {}).get(unit_name(inst['container_name'])) or {}).get('active')}


def units_removed_first(units: Dict[str, Any], removing: Any, profile: Dict[str, Any]) -> Dict[str, Dict[str, Any]]:
    """The running systemd units of ours the run stops and removes before it starts anything (no longer in the plan:
    another install method, fewer instances), in _running's shape under ``removing <name>``: the chips of their
    ASCEND_RT_VISIBLE_DEVICES and their port are ours and come back."""
    return {'removing %s' % name: _unit_held(name, found.get('chips'), found.get('port'), profile)
            for name, found in ((name, (units or {}).get(name) or {}) for name in removing or ())
            if found.get('active') or found.get('restarting')}


def npu_smi_problems(facts: Dict[str, Any], settings: Dict[str, Any]) -> List[Dict[str, str]]:
    """npu-smi cannot be run or read, or the driver is older than an explicit npu_check_driver_min_version.

    ``auto`` (the default) and the image's version data are judged by version_problems.
    """
    npu = facts.get('npu')
    if npu is None:
        return [problem('npu-smi', (facts.get('npu_error') or {}).get('msg') or 'npu-smi failed', NPU_SMI_FIX)]
    minimum = settings.get('driver_min_version') or ''
    if not minimum or minimum == versions.AUTO or version_at_least(npu.get('driver_version') or '0', minimum):
        return []
    return [problem('driver', 'driver %s is older than %s' % (npu.get('driver_version') or 'unknown', minimum),
                    'upgrade the Ascend driver and firmware to %s or newer' % minimum)]


VERSIONS_DOC = 'docs/versions.md'
FIRMWARE_FIX = ('install the firmware of the same Ascend HDK release as driver %s (Ascend-hdk-310p-npu-firmware) and '
                'reboot; when upgrading, firmware first, then driver (%s)')


def _driver_of(npu: Dict[str, Any]) -> Optional[str]:
    """version.info's Version, else what the board view says the driver is (Software Version)."""
    return npu.get('driver_version') or next(
        (b['software_version'] for b in npu.get('boards') or [] if b.get('software_version')), None)


def _driver_problem(entry: Dict[str, Any], tag: str, driver: Any, verdict: Dict[str, Any],
                    settings: Dict[str, Any]) -> Dict[str, str]:
    if tag.startswith(entry.get('release') or ''):
        image = 'image %s (CANN %s)' % (tag, entry['cann'])
    else:
        image = 'image %s (assumed release record %s, CANN %s)' % (tag, entry['release'], entry['cann'])
    listed = ', '.join(entry['hdk_compatible'])
    if verdict['verdict'] in ('unknown', 'missing'):
        return problem('versions', 'the driver version in %s (%s) cannot be checked against %s: %s'
                       % (settings['driver_version_file'], driver or 'no Version= line', image, verdict['msg']),
                       'reinstall the Ascend driver so that version.info gives Version=MAJOR.MINOR.PATCH, or set '
                       'npu_check_driver_min_version to "" to skip the check (%s)' % VERSIONS_DOC)
    return problem(
        'versions', 'driver %s does not suit %s: %s; vllm serve would fail at start (E30006 Failed to verify the OPP)'
        % (driver, image, verdict['msg']),
        'install Ascend HDK %s (driver and firmware of one release; the release paired with CANN %s) or another '
        'release the CANN %s release notes list as compatible (%s) and reboot, or run an image whose CANN suits '
        'driver %s (%s); npu_check_driver_min_version set to a version replaces this check'
        % (entry['hdk_paired'], entry['cann'], entry['cann'], listed, driver, VERSIONS_DOC))


def version_problems(facts: Dict[str, Any], settings: Dict[str, Any]) -> Tuple[List[Dict[str, str]], Dict[str, Any]]:
    """(problems, versions): the driver against the image's version data, each card's firmware against the driver.

    With npu_check_driver_min_version ``auto`` the image tag's entry in plugin_utils/contracts/versions.py
    decides: a driver the CANN release notes rule out (marked N, or older than every compatible
    release) or that cannot be read is a problem; one they do not list but do not rule out is a
    note. Firmware the driver refuses (npu-smi's Compatibility NOK, or below its
    compatible_version_fw) is a problem whatever the image.
    """
    npu = facts.get('npu')
    tag = tag_of(settings.get('image_tag'))
    out: Dict[str, Any] = {'image_tag': tag or None, 'cann': None, 'driver': None, 'driver_verdict': None,
                           'firmware': {}, 'notes': []}
    if npu is None:
        return [], out
    out['driver'] = driver = _driver_of(npu)
    problems = []
    assumed = settings.get('release') or ''
    entry = versions.entry_for(tag, assumed)
    if settings.get('driver_min_version') == versions.AUTO:
        if entry is None:
            record = releases.get(releases.release_of_tag(tag) or assumed)
            if record is not None:
                out['notes'].append('release record %s has no Ascend HDK list that was read (%s), so driver %s is not '
                                    'checked against image %s (%s)'
                                    % (record['release'], record['unverified'].get('hdk', 'not read'),
                                       driver or 'unknown', tag, VERSIONS_DOC))
            elif tag:
                out['notes'].append('no version data for image tag %s, so the driver is not checked against it (%s)'
                                    % (tag, VERSIONS_DOC))
        else:
            out['cann'] = entry['cann']
            verdict = versions.driver_verdict(entry, driver)
            out['driver_verdict'] = verdict['verdict']
            file_missing = not _path(facts, settings['driver_version_file']).get('exists', True)
            if verdict['verdict'] in ('incompatible', 'too_old', 'unknown') or (
                    verdict['verdict'] == 'missing' and not file_missing):
                problems.append(_driver_problem(entry, tag, driver, verdict, settings))
            elif verdict['verdict'] == 'unlisted':
                out['notes'].append('driver %s is %s' % (driver, verdict['msg']))
    ranges = (npu.get('driver_info') or {}).get('compatible_version_fw')
    for board in npu.get('boards') or []:
        card = 'NPU %s' % board.get('npu_id')
        if board.get('error'):
            out['notes'].append('%s: firmware not read (%s)' % (card, board['error']))
            continue
        out['firmware'][str(board.get('npu_id'))] = board.get('firmware_version')
        verdict = versions.firmware_verdict(board.get('firmware_version'), driver, ranges, board.get('compatibility'))
        if verdict['verdict'] in ('incompatible', 'older'):
            problems.append(problem('versions', '%s: %s' % (card, verdict['msg']),
                                    FIRMWARE_FIX % (driver, VERSIONS_DOC)))
        elif verdict['verdict'] == 'unjudged':
            out['notes'].append('%s: %s' % (card, verdict['msg']))
    return problems, out


def _chip_state_problem(chip_id: int, chips: List[Dict[str, Any]], listed: str,
                        instances: List[Dict[str, Any]]) -> Optional[Dict[str, str]]:
    found = [c for c in chips if c.get('device_id') == chip_id]
    if not found:
        source = ', '.join(dict.fromkeys(i['chips_var'] for i in instances if chip_id in i['chips']))
        return problem('chips', '%schip %s is not listed by npu-smi (device ids: %s)'
                       % (source + ': ' if source else '', chip_id, listed),
                       'set %s to chips that npu-smi lists (%s)'
                       % (source.split(' ', 1)[0] if source else "the instance's chips", listed))
    chip = found[0]
    if chip.get('health') != 'OK':
        return problem('chips', 'chip %s (NPU %s chip %s) health is %s'
                       % (chip_id, chip.get('npu_id'), chip.get('chip_id'), chip.get('health')),
                       'see `npu-smi info -t health -i %s`; reset or replace the card, or use another chip'
                       % chip.get('npu_id'))
    return None


def chip_problems(npu: Dict[str, Any], profile: Dict[str, Any], instances: List[Dict[str, Any]],
                  own: Dict[str, Any]) -> List[Dict[str, str]]:
    """Each chip the instances use (every listed chip without instances): listed, healthy, not held by others.

    A process is ours when its pid is one of our running containers' pids; only when
    `docker top` gave nothing for a container of ours do its chips count as ours whole.
    """
    chips = npu.get('chips') or []
    listed_ids = [c.get('device_id') for c in chips]
    listed = ', '.join(str(i) for i in listed_ids)
    own_pids = [pid for r in own.values() for pid in r['pids']]
    unmatched = [d for r in own.values() if not r['pids'] for d in r['devices']]
    out = []
    for chip_id in (used_chips(instances) if instances else listed_ids):
        state = _chip_state_problem(chip_id, chips, listed, instances)
        if state:
            out.append(state)
        for proc in npu.get('processes') or []:
            if (proc.get('device_id') == chip_id and proc.get('pid') not in own_pids
                    and chip_device(profile, chip_id) not in unmatched):
                out.append(problem('chips', 'chip %s is in use by pid %s (%s, %s MB)'
                                   % (chip_id, proc.get('pid'), proc.get('name'), proc.get('memory_mb')),
                                   CHIP_BUSY_FIX))
    return out


def chips_per_card_problems(facts: Dict[str, Any], settings: Dict[str, Any],
                            profile: Dict[str, Any]) -> List[Dict[str, str]]:
    """An npu-smi showing more chips on one card than the platform has (a DUO declared as a 200I Pro)."""
    if profile.get('chips_per_card') is None:
        return []
    npu = facts.get('npu') if facts.get('npu') is not None else (facts.get('npu_found') or {})
    most = max(Counter(chip.get('npu_id') for chip in npu.get('chips') or []).values(), default=0)
    if most <= int(profile['chips_per_card']):
        return []
    return [problem('platform', 'ascend_vllm_platform=%s has %s chip per card, but npu-smi shows %d chips on one card '
                    'of this node' % (json.dumps(settings.get('platform') or ''), profile['chips_per_card'], most),
                    'set ascend_vllm_platform to the platform of this node: atlas_300i_duo for an Atlas 300I DUO '
                    '(two chips per card)')]


def chip_memory(npu: Optional[Dict[str, Any]], profile: Dict[str, Any], instances: List[Dict[str, Any]],
                own: Dict[str, Any]) -> Dict[str, Any]:
    """(free, total): per instance the smallest free and total memory (MB) of its chips.

    Free is None where our running container holds one of the chips: that memory is
    ours and comes back when the container is re-created.
    """
    chips = (npu or {}).get('chips') or []
    own_devices = [d for r in own.values() for d in r['devices']]
    free_mb, total_mb = {}, {}
    for inst in instances:
        mine = [c for c in chips if c.get('device_id') in inst['chips']]
        held = any(chip_device(profile, c.get('device_id')) in own_devices for c in mine)
        free = [c.get('memory_free_mb') for c in mine if chip_device(profile, c.get('device_id')) not in own_devices]
        free_mb[inst['name']] = min(free) if free and not held else None
        total_mb[inst['name']] = min(c.get('memory_total_mb') for c in mine) if mine else None
    return {'free': free_mb, 'total': total_mb}


def _ours(container: Dict[str, Any]) -> bool:
    return (container.get('labels') or {}).get(MANAGED_LABEL) == MANAGED_VALUE


def _holders(facts: Dict[str, Any], port: Any, skip: Any) -> List[Dict[str, Any]]:
    return [{'name': c['name'], 'ours': _ours(c)} for c in (facts.get('docker') or {}).get('containers') or []
            if c['name'] not in skip and int(port) in (c.get('ports') or [])]


def _port_problem(var: str, port: Any, what: str, holders: List[Dict[str, Any]], procs: List[Dict[str, Any]],
                  other: str = 'give the instance another port') -> Dict[str, str]:
    """``port`` in use by ``holders`` (containers) or ``procs``; ``other``: the fix that moves ``var``'s port."""
    named = ['%s (pid %s)' % (p['name'], p['pid']) for p in procs]
    held_by = (' by container ' + ', '.join(h['name'] for h in holders) if holders
               else (' by ' + ', '.join(named) if named else ''))
    if holders:
        first = ('remove it: it is left from an earlier deploy (playbooks/teardown.yml removes every container '
                 'of this collection)' if any(h['ours'] for h in holders) else 'stop it')
        fix = first + ' (`docker rm -f %s`), or %s' % (' '.join(h['name'] for h in holders), other)
    elif named:
        fix = 'stop %s (`kill %s`), or %s' % (', '.join(named), ' '.join(str(p['pid']) for p in procs), other)
    else:
        fix = ('stop what listens there (`ss -ltnp sport = :%s` or `lsof -i :%s` as root shows it) or %s'
               % (port, port, other))
    return problem('ports', '%s: port %s (%s) is already in use on the node%s' % (var, port, what, held_by), fix)


def bind_problems(facts: Dict[str, Any], binds: List[Dict[str, Any]]) -> List[Dict[str, str]]:
    """The ports the plan declares for its other components (``binds``: port, var, component, container) held by
    another container or process. The component's own running container of ours may hold them (a re-run)."""
    out = []
    for bind in binds:
        port, owner = bind['port'], (facts.get('containers') or {}).get(bind['container']) or {}
        ours = owner.get('running') and _ours(owner)
        holders = _holders(facts, port, (bind['container'],))
        seen = (facts.get('listeners') or {}).get(str(port)) or {}
        mine = set(str(pid) for pid in owner.get('pids') or []) if ours else set()
        procs = [p for p in seen.get('processes') or [] if str(p['pid']) not in mine]
        if holders or procs or (seen.get('listening') or seen.get('accepts')) and not ours:
            out.append(_port_problem(bind['var'], port, bind['component'], holders, procs,
                                     'set %s to a free port' % bind['var']))
    return out


def port_problems(facts: Dict[str, Any], instances: List[Dict[str, Any]], own: Dict[str, Any],
                  removing: Any = ()) -> List[Dict[str, str]]:
    """Serving ports held by another container (Docker keeps a crash-looping one's port) or process.

    A container of ours that the run removes first (``removing``: no longer in the plan) frees its port.
    """
    out = []
    for inst in _ports(instances):
        port = inst['port']
        holding = _holders(facts, port, (inst['container_name'],))
        holders = [h for h in holding if h['name'] not in removing]
        if not holders and (len(holding) > len(holders)
                            or any(key.startswith('removing ') and str(port) in held['ports'] for key, held in own.items())):
            continue  # what holds it is of ours and the run removes it first
        seen = (facts.get('listeners') or {}).get(str(port)) or {}
        in_use = bool(seen.get('listening') or seen.get('accepts'))
        if holders or in_use and str(port) not in (own.get(inst['name']) or {}).get('ports', []):
            out.append(_port_problem(str(inst.get('port_var') or 'vllm_serve_port').split(' ', 1)[0], port,
                                     'instance %s' % inst['name'], holders, seen.get('processes') or []))
    return out


def disk_problems(disk: Dict[str, Any], image_present: bool, settings: Dict[str, Any]) -> List[Dict[str, str]]:
    """Too little space for the image on the filesystem of Docker's data root (only while it is missing)."""
    minimum = settings.get('disk_min_free_gb', 20)
    if image_present or disk.get('free_gb') is None or disk['free_gb'] >= minimum:
        return []
    return [problem('disk', 'only %s GiB free on %s (Docker data root %s); the image needs %s GiB'
                    % (disk['free_gb'], disk.get('mount'), disk.get('root'), minimum), DISK_FIX)]


def memory_problems(available: Optional[int], need: int, settings: Dict[str, Any]) -> List[Dict[str, str]]:
    """RC mode: MemAvailable must cover what the instances take plus the margin."""
    margin = int(settings.get('rc_memory_margin_mb') or 0)
    if available is None or need <= 0 or available >= need + margin:
        return []
    drop = settings.get('drop') or {}
    failed = ('dropping the page cache failed (%s); ' % (drop.get('stderr') or '').strip()
              if (drop.get('rc') or 0) != 0 else '')
    return [problem('memory', 'RC mode: %s MB host memory available, the instances will take %s MB '
                    '(gpu_memory_utilization x chip memory)%s and vllm-ascend refuses to start with less'
                    % (available, need, ' plus %d MB margin' % margin if margin > 0 else ''),
                    failed + MEMORY_FIX)]


CONTAINER_KEYS = ('exists', 'running', 'restarting', 'restart_count', 'status', 'started_at', 'image_id', 'labels')


def node_result(facts: Dict[str, Any], settings: Dict[str, Any], profile: Dict[str, Any],
                instances: List[Dict[str, Any]], own: Dict[str, Any], found_versions: Any = None) -> Dict[str, Any]:
    """npu_check_result: what the node has, for the roles that plan with it."""
    npu = facts.get('npu') or {}
    docker = facts.get('docker') or {}
    memory = chip_memory(facts.get('npu'), profile, instances, own)
    images = list(docker.get('images') or [])
    return {
        'platform': settings.get('platform') or '',
        'profile': profile,
        'driver_version': npu.get('driver_version'),
        'firmware_versions': dict((found_versions or {}).get('firmware') or {}),
        'versions': found_versions or {},
        'npu_smi_version': npu.get('npu_smi_version'),
        'chip_count': npu.get('chip_count', 0),
        'docker_version': docker.get('version'),
        'machine': (facts.get('system') or {}).get('machine'),
        'chip_free_mb': memory['free'],
        'chip_total_mb': memory['total'],
        'own_running': own,
        'image_present': bool(set(images) & set(settings.get('images') or [])),
        'disk': facts.get('disk') or {},
        'rc_mode': bool(profile.get('rc_mode', False)),
        # After a page-cache drop, the memory read again.
        'host_memory_available_mb': ((settings.get('memory_again') or {}).get('memory') or facts.get('memory')
                                     or {}).get('available_mb'),
        'images': images,
        'image_ids': dict(docker.get('image_ids') or {}),
        'paths': dict((path, dict((k, _path(facts, path).get(k, False)) for k in ('exists', 'isdir', 'isreg')))
                      for path in settings.get('paths') or []),
        'containers': dict((name, dict((k, v) for k, v in found.items() if k in CONTAINER_KEYS))
                           for name, found in (facts.get('containers') or {}).items()),
    }


def node_problems(facts: Dict[str, Any], settings: Dict[str, Any]) -> Dict[str, Any]:
    """{problems, result, drop_page_cache} for node_facts' answer and the role settings.

    settings: host, platform, profile (resolved, {} when it cannot be), profile_given,
    platform_problems, instances, driver_dir, driver_version_file, driver_min_version, image_tag,
    mount_sources, docker_min_version, ports, disk_min_free_gb, images,
    rc_memory_margin_mb, paths, and after a page-cache drop: drop, memory_again.
    """
    facts = facts or {}
    profile = settings.get('profile') or {}
    instances = normalize_instances(settings.get('instances'))
    install = settings.get('install') or {}
    source = install.get('method') == 'source'
    problems = platform_problems(settings) + path_problems(facts, settings, profile, instances, mounts=not source)
    if source:
        # No container: the units' state, the install's checks; Docker only for a balancer.
        own = own_services((facts.get('source') or {}).get('units'), instances, profile)
        problems += source_problems(install, facts.get('source'), settings.get('services') or {},
                                    bool(settings.get('needs_docker')), facts.get('docker'))
    else:
        own = _running(facts.get('containers'), {inst['name']: inst['container_name'] for inst in instances})
        problems += foreign_problems(facts.get('containers'), instances)
        problems += docker_problems(facts.get('docker') or {}, settings)
    own.update(removed_first(facts.get('containers'), settings.get('removing') or ()))
    if docker_modules_run(settings):
        problems += python_problems(facts.get('system'))
    problems += npu_smi_problems(facts, settings)
    found, found_versions = version_problems(facts, settings)
    problems += found
    own.update(units_removed_first(facts.get('units'), settings.get('removing_units') or (), profile))
    if facts.get('npu') is not None:
        problems += chip_problems(facts['npu'], profile, instances, own)
    problems += chips_per_card_problems(facts, settings, profile)
    if settings.get('ports', True):
        problems += port_problems(facts, instances, own, settings.get('removing') or ())
        problems += bind_problems(facts, settings.get('binds') or [])
    result = node_result(facts, settings, profile, instances, own, found_versions)
    if not source:
        problems += disk_problems(result['disk'], result['image_present'], settings)
    # RC mode: the host memory the instances take; those whose container runs hold theirs already.
    need = sum(inst['host_memory_mb'] for inst in instances if inst['name'] not in own) if result['rc_mode'] else 0
    memory = memory_problems(result['host_memory_available_mb'], need, settings)
    return {'problems': problems + memory, 'result': result, 'drop_page_cache': bool(memory)}


def summary(result: Dict[str, Any], problems: List[Dict[str, str]]) -> str:
    """The one line the role shows for the node."""
    firmware = sorted(set(str(v) for v in (result.get('firmware_versions') or {}).values() if v))
    notes = (result.get('versions') or {}).get('notes') or []
    return ('%s: driver %s, firmware %s, npu-smi %s, %s chip(s), Docker %s, free chip memory per instance (MB) %s, '
            '%d problem(s)%s'
            % (result['platform'], result['driver_version'] or '?', '/'.join(firmware) or '?',
               result['npu_smi_version'] or '?', result['chip_count'], result['docker_version'] or '?',
               result['chip_free_mb'], len(problems), ''.join('; note: ' + note for note in notes)))


def node_verdict(facts: Dict[str, Any], settings: Dict[str, Any]) -> Dict[str, Any]:
    """{problems, result, drop_page_cache, summary, report}: node_problems with the line and the report the role shows."""
    out = node_problems(facts, settings)
    out['summary'] = summary(out['result'], out['problems'])
    out['report'] = report('preflight', settings.get('host', ''), out['problems'])
    return out
