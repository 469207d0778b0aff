# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Platform profiles: the one place that knows what each Atlas device needs (data/platforms.yml).

A profile is plain data (dicts, lists, strings, numbers) so roles can read it
through the ``vllm_config`` module result and inventories can override any
field.
"""

from __future__ import annotations

import copy
import difflib
import json
from typing import Any, Dict, List, Optional, Tuple

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._container_spec import template_problem
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts import _data

_DATA = _data.load('platforms')
# What each host path the guide mounts is ("file" or "dir") and what installs it.
MOUNT_SOURCES: Dict[str, Tuple[str, str]] = dict((path, tuple(known)) for path, known in _DATA['mount_sources'].items())


def _mount(volume: str) -> Dict[str, Any]:
    """A guide ``-v`` value (SOURCE or SOURCE:TARGET) as a read-only mount, with its kind and package."""
    source, _sep, target = volume.partition(':')
    mount = {'source': source, 'target': target or source, 'read_only': True}
    known = MOUNT_SOURCES.get(source.rstrip('/'))
    if known:
        mount['kind'], mount['provided_by'] = known
    return mount


# Each profile's fields in the order of the schema (an entry that takes fields from a YAML anchor lists them first).
PLATFORMS: Dict[str, Dict[str, Any]] = dict(
    (name, dict(((key, profile[key]) for key in _DATA['schema']), mounts=[_mount(volume) for volume in profile['mounts']]))
    for name, profile in _DATA['entries'].items())


def profile_names() -> List[str]:
    return sorted(PLATFORMS)


def _check_type(name: str, key: str, value: Any, reference: Any) -> None:
    """Raise ValueError when an override has another kind of value than the profile (its type in the schema)."""
    if not _data.is_kind(value, _DATA['schema'][key]):
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
    profile, bad = resolve_profile(name, overrides)
    if bad:
        raise ValueError(bad[2])
    return profile


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
        profile[key] = {**reference, **copy.deepcopy(value)} if isinstance(reference, dict) else copy.deepcopy(value)
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


def resolve_profile(name: Any, overrides: Any = None,
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
            parts.extend('%s.%s is not a field%s' % (key, sub, did_you_mean(sub, sorted(reference[key])))
                         for sub in ([] if key in OPEN_DICT_FIELDS else sorted(set(overrides[key]) - set(reference[key]))))
        elif type(reference[key]) is not type(overrides[key]) and not (
                isinstance(reference[key], str) and isinstance(overrides[key], str)):
            parts.append('give %s a %s like the profile value %s' % (
                key, type(reference[key]).__name__, json.dumps(reference[key])))
    return 'in %s: %s; profile fields: %s' % (variable, '; '.join(parts) or 'use the profile fields',
                                              ', '.join(sorted(reference)))


def platform_violation(bad: Tuple[str, Any, str, Any], name_of: Any) -> Tuple[str, Any, str, str]:
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


# The variables a platform problem names unless the caller reads the platform from others.
PLATFORM_VARIABLES = {'platform': 'ascend_vllm_platform', 'platform_overrides': 'ascend_vllm_platform_overrides',
                      'platform_spec': 'ascend_vllm_platform_spec'}


def profile_verdict(name: Any, overrides: Any, spec: Any, var_names: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
    """{'profile': dict or None, 'problems': [...]}: the profile of a platform, or the one problem that
    stops it, naming the user's variables (``var_names`` maps platform/platform_overrides/platform_spec;
    PLATFORM_VARIABLES for those it leaves out)."""
    var_names = dict(PLATFORM_VARIABLES, **(var_names or {}))
    profile, bad = resolve_profile(name, overrides or {}, spec or None)
    if not bad:
        return {'profile': profile, 'problems': []}
    option, value, rule, fix = platform_violation(bad, lambda option: var_names.get(option, option))
    if option == 'platform':
        fix += ', or put the host in the inventory group of that name'
    return {'profile': None, 'problems': [
        {'check': 'platform', 'msg': '%s=%s: %s' % (var_names[option], json.dumps(value, sort_keys=True), rule),
         'fix': fix}]}
