# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The container_run role's container spec: devices, mounts, environment,
labels and published ports of one vLLM container, from the platform profile.

Pure functions; plugins/action/container_ensure.py builds the container from them.  The
profile (plugins/plugin_utils/contracts/platforms.py) holds the guide's lists; nothing
here names a device or a path of its own.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any, List

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._boolean import is_true
from ansible_collections.ascend.vllm.plugins.module_utils._redact import secret_name, secret_values
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._grammar import LABEL_KEY_RE, RESERVED_LABEL_PREFIXES
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._address import port_mapping
from ansible_collections.ascend.vllm.plugins.module_utils._labels import INSTANCE_LABEL, MANAGED_LABEL, MANAGED_VALUE, SPEC_LABEL

# Guide 4.1: "-v /root/.cache:/root/.cache", for a profile that names no cache mount.
DEFAULT_CACHE_MOUNT = {'target': '/root/.cache', 'read_only': False}


def chip_device(template, chip):
    """The device node of chip ``chip`` (N of /dev/davinciN) by the profile's ``chip_device_template``: the one
    place a chip becomes a path, for the container's devices and for the node judgement alike.  ValueError
    (``template_problem``'s words) for a template that is not a /dev path with ``{index}`` once."""
    problem = template_problem(template)
    if problem:
        raise ValueError(problem)
    return template.replace('{index}', str(chip))


def template_problem(template):
    """Why ``template`` cannot name a chip's device node, or None."""
    if isinstance(template, str) and template.startswith('/dev/') and template.count('{index}') == 1:
        return None
    return ('chip_device_template must be a device path under /dev/ with {index} once, e.g. /dev/davinci{index}; '
            'got %r' % (template,))


def devices(profile, chips):
    """The instance's chips (only these: two instances on one card never share one), then the manager devices."""
    return ([chip_device(profile.get('chip_device_template'), chip) for chip in chips]
            + list(profile.get('manager_devices') or []))


def mounts(profile, cache_dir, extra=None):
    """The profile's binds, the model cache, then the extra binds, all as docker_container ``mounts``.

    Binds go through ``mounts`` (not ``volumes``): a missing host path fails the start
    instead of Docker creating an empty directory in its place.
    """
    cache = profile.get('model_cache_mount') or DEFAULT_CACHE_MOUNT
    wanted = list(profile.get('mounts') or []) + [
        {'source': cache_dir, 'target': cache.get('target', DEFAULT_CACHE_MOUNT['target']),
         'read_only': cache.get('read_only', False)}] + list(extra or [])
    out = []
    for mount in wanted:
        if not isinstance(mount, dict) or 'source' not in mount or 'target' not in mount:
            raise ValueError('a mount needs source and target, got %r' % (mount,))
        out.append({'type': 'bind', 'source': mount['source'], 'target': mount['target'],
                    'read_only': is_true(mount.get('read_only', False))})
    return out


_REFERENCE = re.compile(r'\$\{([A-Za-z_][A-Za-z0-9_]*)\}')


def image_env_dict(image_env):
    """The image's ``Config.Env`` (a list of ``NAME=value``) as a dict; a dict is returned as is."""
    if isinstance(image_env, dict):
        return dict((str(key), str(value)) for key, value in image_env.items())
    return dict(str(item).split('=', 1) for item in image_env or [] if '=' in str(item))


# Docker's image architecture -> what ``uname -m`` prints in the container.
_MACHINE = {'amd64': 'x86_64', 'arm64': 'aarch64', 'arm': 'armv7l', 'ppc64le': 'ppc64le', 's390x': 's390x'}
DEFAULT_MACHINE = 'aarch64'


def machine(image_arch):
    """``uname -m`` of a container of an image whose ``Architecture`` is ``image_arch`` (aarch64 when unknown)."""
    return _MACHINE.get(str(image_arch or ''), str(image_arch or '') or DEFAULT_MACHINE)


def expand(value, image_env, image_arch=None):
    """A profile value with ``${NAME}`` replaced by the image's ENV value of NAME ('' when the image has
    none) and ``$(uname -m)`` by the image's machine, as the image's .bashrc lines were written."""
    text = str(value).replace('$(uname -m)', machine(image_arch))
    return _REFERENCE.sub(lambda match: image_env.get(match.group(1), ''), text)


def environment(command_env, env, profile_env=None, image_env=None, image_arch=None):
    """The serving process's environment beyond the image's ENV, every value a string (Docker wants strings).

    The profile's ``environment`` (what the image sets only in its interactive shell's
    .bashrc, ``${NAME}`` expanded against the image's ENV), then vllm_config's, then the user's.
    """
    known = image_env_dict(image_env)
    merged = {**{key: expand(value, known, image_arch) for key, value in (profile_env or {}).items()},
              **(command_env or {}), **(env or {})}
    return {key: str(value) for key, value in merged.items()}


def label_problems(extra: Any) -> List[str]:
    """What is wrong with the user's extra labels (container_run_labels), each naming the key and the fix.

    Labels are shown to anyone who may run ``docker inspect``: a secret-named key is refused (its
    value never shown), as is a key in a reserved namespace or outside Docker's key grammar.
    """
    if extra is None or extra == {}:
        return []
    if not isinstance(extra, dict):
        return ['container_run_labels must be a mapping of label keys to values, got %s' % type(extra).__name__]
    out = []
    for key in sorted(extra, key=str):
        name = 'container_run_labels[%s]' % json.dumps(str(key))
        reserved = [prefix for prefix in RESERVED_LABEL_PREFIXES if str(key).startswith(prefix)]
        if not isinstance(key, str) or not LABEL_KEY_RE.match(key):
            out.append('%s: not a label key (letters, digits, and . _ / - inside); fix: use a reverse-DNS key such '
                       'as com.example.team' % name)
        elif reserved:
            owner = ('this collection finds its containers by it' if reserved[0] == 'ascend.vllm.'
                     else 'Docker\'s internal use')
            out.append('%s: the %s* namespace is reserved (%s); fix: use a key under a domain you own, e.g. '
                       'com.example.%s' % (name, reserved[0], owner, key.split('.')[-1] or 'label'))
        elif secret_name(key, loose=True):
            out.append('%s: a label is shown to anyone who can run docker inspect, so it cannot carry a secret '
                       '(value hidden); fix: pass an API key as vllm_serve_api_key and tokens through the '
                       'container environment' % name)
    return out


def labels(instance, model, platform, port, extra=None):
    """The labels preflight, verify and teardown find our containers by; the user's merged over them."""
    return {
        MANAGED_LABEL: MANAGED_VALUE,
        INSTANCE_LABEL: str(instance),
        'ascend.vllm.model': str(model),
        'ascend.vllm.platform': str(platform),
        'ascend.vllm.port': str(port),
        **(extra or {}),
    }


# The container_run variables besides the spec's inputs that reach docker_container.
_RUN_SETTINGS = ('container_run_image', 'container_run_command', 'container_run_restart_policy',
                 'container_run_stop_timeout', 'container_run_log_max_size', 'container_run_log_max_file')


def _spec(profile, inputs):
    port = inputs.get('container_run_port')
    return {
        'devices': devices(profile, inputs.get('container_run_chips') or []),
        'mounts': mounts(profile, inputs.get('container_run_model_cache_dir'), inputs.get('container_run_extra_mounts')),
        'env': environment(inputs.get('container_run_command_env'), inputs.get('container_run_env'),
                           profile.get('environment'), inputs.get('container_run_image_env'),
                           inputs.get('container_run_image_arch')),
        'labels': labels(inputs.get('container_run_instance'), inputs.get('container_run_model'),
                         inputs.get('container_run_platform'), port, inputs.get('container_run_labels')),
        # The guide's -p PORT:PORT, on one host address when given (an IPv6 one in brackets).
        'published_ports': [port_mapping(inputs.get('container_run_publish_address') or '', port)],
        'shm_size': profile['shm_size'],
        'privileged': is_true(profile.get('privileged', False)),
    }


def _canonical(value):
    """Scalars as text (a templated "8080" and 8080 are one port), booleans as true/false."""
    if isinstance(value, dict):
        return dict((str(key), _canonical(item)) for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return [_canonical(item) for item in value]
    if isinstance(value, bool):
        return 'true' if value else 'false'
    return None if value is None else str(value)


def spec_digest(profile, inputs):
    """sha256 of the container as this collection would ask Docker for it, without the image's own ENV.

    Covers the spec (devices, mounts, environment, labels, ports, shm, privileged), the
    image reference, the command, the restart policy, stop timeout and log options. The
    image's ENV is left out (it is read on the node); the image's identity is compared on
    its own (the container's image id against the node's id for the reference). A
    collection that maps the same inputs differently gives another digest.
    """
    base = dict(inputs, container_run_image_env=[], container_run_image_arch='')
    settings = dict((name, inputs.get(name)) for name in _RUN_SETTINGS)
    text = json.dumps(_canonical({'spec': _spec(profile, base), 'settings': settings}), sort_keys=True)
    return hashlib.sha256(text.encode('utf-8')).hexdigest()


def container_spec(profile, inputs):
    """Everything platform- and instance-specific of one container, from the profile and the role variables.

    ``inputs`` holds the container_run variables by name (container_run_chips, _port,
    _publish_address, _model_cache_dir, _extra_mounts, _command_env, _env, _instance,
    _model, _platform, _labels, _image_env and _image_arch: the image's ``Config.Env`` and
    ``Architecture`` on the node; _image, _command, _restart_policy, _stop_timeout and
    _log_max_size/_log_max_file for the digest label, SPEC_LABEL).
    """
    if not isinstance(profile, dict) or 'shm_size' not in profile:
        raise ValueError('container_run_profile must be a platform profile with shm_size, got %r' % (profile,))
    spec = _spec(profile, inputs)
    spec['labels'][SPEC_LABEL] = spec_digest(profile, inputs)
    # What an error message about this container must not show (the env's secret-named values).
    spec['secret_values'] = secret_values(spec['env'])
    spec['label_problems'] = label_problems(inputs.get('container_run_labels'))
    return spec
