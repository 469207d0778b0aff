# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The instances of a vllm_serve host: planning and the checks of the plan.

Pure functions over plain data (no Ansible imports), used by the host plan (plan/_host.py).
``plan_instances`` turns the inventory (``ascend_vllm_instances`` or the scalar ``vllm_serve_*`` variables)
into one entry per instance; ``plan_problems`` reports what is wrong with it in the preflight report shape
``{check, msg, fix}``, naming the variable the user wrote.
"""

import json
import os
import re
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ansible_collections.ascend.vllm.plugins.module_utils._image import written_tag
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._boolean import to_bool
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._ranges import RANGES, range_problems
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._grammar import (
    CONTAINER_NAME_RE, ENV_NAME_RE, is_ip_address)
from ansible_collections.ascend.vllm.plugins.module_utils._problem import problem
from ansible_collections.ascend.vllm.plugins.module_utils._redact import HIDDEN, secret_name
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._address import is_wildcard
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.vllm_options import INSTANCE_KEYS, INSTANCE_OPTIONS

# The host-level numeric settings judged here (contracts/_ranges.py holds their ranges); the port is per instance.
MINIMUMS = tuple(name for name in sorted(RANGES) if name.startswith('vllm_serve_') and name != 'vllm_serve_port')

# What the plan carries instead of an API key: the key itself stays in the inventory
# and is read (instance_secrets) only where the container's environment and the
# readiness check need it, in tasks whose output is not logged.
SECRET_MARKER = '<hidden: %s>'

# vLLM's own API key variable: the key's one door is vllm_serve_api_key (or an instance's
# api_key), which the collection passes by environment, hashes for the balancer and the
# smoke tests use; set in env it would bypass all three.
API_KEY_ENV_NAMES = ('VLLM_API_KEY',)


def to_json(value: Any) -> str:
    """A value as the messages show it (Ansible's to_json: json.dumps with default separators)."""
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)


def plain(value: Any) -> Any:
    """Plain dicts and lists all the way down, each item read through ``[]``.

    Ansible hands filters lazy containers that template an item when it is read;
    json.dumps and dict() would see the raw items instead.
    """
    if isinstance(value, dict):
        return dict((key, plain(value[key])) for key in value)
    if isinstance(value, (list, tuple)):
        return [plain(value[index]) for index in range(len(value))]
    return value


def to_int(value: Any, default: int = 0) -> int:
    """Jinja's ``int`` filter: int(value), else int(float(value)), else ``default``."""
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        try:
            return int(float(value))
        except (TypeError, ValueError, OverflowError):
            return default


def is_integer(value: Any) -> bool:
    """Jinja's ``integer`` test: an int that is not a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


def as_list(value: Any) -> List[Any]:
    """A list as given, a single value as a list of one."""
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


# More chips than any Atlas 310P host carries (an 8-card server of 300I DUO has 16).
MAX_CHIPS_PER_HOST = 64


def repeated(values: Sequence[Any]) -> List[Any]:
    """The values that occur more than once, each once, in order of first occurrence."""
    out: List[Any] = []
    for value in values:
        if value not in out and sum(1 for other in values if other == value) > 1:
            out.append(value)
    return out


def _chips(inst: Dict[str, Any], listed: bool, where: str, scalar_chips: Any, own: Dict[str, Any], next_chip: int,
           tp: int) -> Tuple[List[Any], str]:
    """The chips of one instance and the variable they come from."""
    if inst.get('chips') is not None:
        return as_list(inst['chips']), where + '.chips'
    if not listed and scalar_chips is not None:
        return as_list(scalar_chips), 'vllm_serve_chips'
    chips = list(range(next_chip, next_chip + tp))
    shown = ', '.join(str(chip) for chip in chips)
    if listed and 'tensor_parallel_size' not in own:
        # The instance's own entry is what the user can fix (give it chips), not the shared TP size.
        return chips, '%s.chips (not set: chips %s handed out, vllm_serve_tensor_parallel_size at a time)' % (
            where, shown)
    var = where + '.tensor_parallel_size' if 'tensor_parallel_size' in own else 'vllm_serve_tensor_parallel_size'
    return chips, '%s (chips %s)' % (var, shown)


def plan_instances(instances: Any, scalars: Dict[str, Any], list_var: str) -> List[Dict[str, Any]]:
    """One entry per instance (the ``__vllm_serve_plan`` shape).

    ``instances`` is ``vllm_serve_instances`` (empty: one instance from the
    scalars); ``scalars`` holds ``instance_name``, ``container_name``, ``chips``,
    ``port``, ``env`` and ``options`` (the ``vllm_serve_<option>`` values);
    ``list_var`` is the inventory variable the list came from.  Chips not given
    are handed out consecutively, tensor_parallel_size at a time; ports count up
    from ``port`` by the instance's index.
    """
    listed = bool(instances)
    raw = list(instances) if listed else [{'name': scalars['instance_name']}]
    base = dict((key, value) for key, value in (scalars.get('options') or {}).items() if value is not None)
    plan = []
    next_chip = 0
    for index, inst in enumerate(raw):
        inst = inst if isinstance(inst, dict) else {}
        own = dict((key, value) for key, value in inst.items() if key in INSTANCE_OPTIONS and value is not None)
        options = dict(base, **own)
        tp = to_int(options.get('tensor_parallel_size', 1))
        # A TP size no host has chips for is refused by vllm_config's TP rule; the hand-out here
        # must not try to list billions of chips first.
        tp = min(tp, MAX_CHIPS_PER_HOST) if tp > 0 else 1
        where = '%s[%d]' % (list_var, index) if listed else ''
        chips, chips_var = _chips(inst, listed, where, scalars.get('chips'), own, next_chip, tp)
        next_chip = max([next_chip] + [chip + 1 for chip in chips if is_integer(chip)])
        name = str(inst['name'] if 'name' in inst else 'instance%d' % index)
        default_container = scalars['container_name'] if len(raw) == 1 else '%s-%s' % (scalars['container_name'], name)
        env = dict(scalars.get('env') or {}) if isinstance(scalars.get('env'), dict) else {}
        own_env = inst.get('env')
        env.update(own_env if isinstance(own_env, dict) else {})
        # A secret in the environment (HF_TOKEN, ...): the plan carries a marker, the
        # container gets the value (secret_env_values) from a task that does not log it.
        secret_env = dict((env_name, '%s.env.%s' % (where, env_name) if isinstance(own_env, dict) and env_name in own_env
                           else 'vllm_serve_env.%s' % env_name)
                          for env_name in env if secret_name(env_name) and isinstance(env[env_name], str))
        env.update((env_name, SECRET_MARKER % var) for env_name, var in secret_env.items())
        key_var = ''
        if options.get('api_key'):
            key_var = where + '.api_key' if 'api_key' in own else 'vllm_serve_api_key'
            options['api_key'] = SECRET_MARKER % key_var
        plan.append({
            'index': index,
            'name': name,
            'named': 'name' in inst or not listed,
            'unknown_keys': [key for key in inst if key not in INSTANCE_KEYS + INSTANCE_OPTIONS],
            'container_name': inst.get('container_name', default_container),
            'chips': chips,
            'port': inst['port'] if 'port' in inst else to_int(scalars['port']) + index,
            'chips_var': chips_var,
            'port_var': where + '.port' if 'port' in inst else 'vllm_serve_port' + (' + %d' % index if index else ''),
            'container_var': (where + '.container_name' if 'container_name' in inst or len(raw) > 1
                              else 'vllm_serve_container_name'),
            # A name built from vllm_serve_container_name and the instance's name: what the user typed.
            'container_from': ([to_json(scalars['container_name']), where + '.name', to_json(name)]
                               if 'container_name' not in inst and len(raw) > 1 else None),
            'env': env,
            'options': options,
            'var_prefix': '%s[%d].' % (list_var, index) if listed else 'vllm_serve_',
            'api_key_var': key_var,
            'hidden_env': secret_env,
            'shape': shape_of(raw[index], listed),
            'own_env': (own_env if own_env is None else to_json(own_env) if not isinstance(own_env, dict)
                        else dict((name, env[name] if name in secret_env else value) for name, value in own_env.items())),
            'option_vars': dict((key, where + '.' + key if key in own else 'vllm_serve_' + key) for key in options),
        })
    return plan


def _listed(instances: Any, entry: Dict[str, Any]) -> Dict[str, Any]:
    """The instance list's own entry for a planned instance ({} for the scalars or a non-mapping entry)."""
    listed = isinstance(instances, (list, tuple)) and len(instances) > 0
    inst = instances[entry['index']] if listed and entry['index'] < len(instances) else None
    return inst if isinstance(inst, dict) else {}


def api_key(instances: Any, scalar_key: Any, entry: Dict[str, Any]) -> str:
    """The API key of a planned instance, read from the inventory values the plan left it in.

    ``instances`` is ``vllm_serve_instances`` and ``scalar_key`` ``vllm_serve_api_key``,
    as ``plan_instances`` read them; the instance's own ``api_key`` wins.
    """
    key = _listed(instances, entry).get('api_key')
    key = scalar_key if key is None else key
    return '' if key is None or not entry.get('api_key_var') else str(key)


def secret_env_values(instances: Any, scalar_env: Any, entry: Dict[str, Any]) -> Dict[str, str]:
    """{name: value} of the secrets in a planned instance's environment, read from the inventory values.

    ``instances`` is ``vllm_serve_instances`` and ``scalar_env`` ``vllm_serve_env``; the
    instance's own ``env`` wins, as in ``plan_instances``.
    """
    own = _listed(instances, entry).get('env')
    own = own if isinstance(own, dict) else {}
    scalar = scalar_env if isinstance(scalar_env, dict) else {}
    return dict((name, str(own[name] if name in own else scalar.get(name, ''))) for name in entry.get('hidden_env') or {})


def env_variable(entry: Dict[str, Any], name: Any) -> str:
    """The inventory variable an environment name of a planned instance comes from: its own env, else vllm_serve_env."""
    prefix = entry.get('var_prefix') or 'vllm_serve_'
    own_env = entry.get('own_env')
    return prefix + 'env' if isinstance(own_env, dict) and name in own_env and prefix.endswith('.') else 'vllm_serve_env'


def env_problems(entry: Dict[str, Any]) -> List[Dict[str, str]]:
    """The environment's contract: names the shell and vLLM read, values as strings, the API key by its door."""
    prefix = entry['var_prefix']
    out = []
    for name, value in sorted((entry.get('env') or {}).items(), key=lambda item: str(item[0])):
        env_var = env_variable(entry, name)
        if not isinstance(name, str) or not ENV_NAME_RE.match(name):
            out.append(problem('settings', '%s has the variable name %s, which no shell can export and neither vLLM '
                               'nor CANN reads (letters, digits and underscores, not starting with a digit): it would '
                               'be set and silently ignored' % (env_var, to_json(name)),
                               'correct the name in %s (e.g. HF_ENDPOINT, not HF-ENDPOINT), or remove it' % env_var))
        elif name in API_KEY_ENV_NAMES:
            out.append(problem('secrets', '%s.%s %s sets vLLM\'s API key past the collection: the balancer, the '
                               'smoke tests and the exposure check would not know it' % (env_var, name, HIDDEN),
                               'remove %s from %s and set %s instead (passed by environment, never printed)'
                               % (name, env_var, prefix + 'api_key' if prefix.endswith('.') else 'vllm_serve_api_key')))
        elif value is None or isinstance(value, (dict, list)):
            shown = HIDDEN if secret_name(name) else to_json(value)
            out.append(problem('settings', '%s.%s=%s is not a string' % (env_var, name, shown),
                               'give %s.%s a value in quotes (e.g. "1"), or remove the key' % (env_var, name)))
    return out


def shape_of(inst: Any, listed: bool) -> str:
    """What an entry of the instance list is when it is not a mapping ('' when it is)."""
    if not listed or isinstance(inst, dict):
        return ''
    return 'a string' if isinstance(inst, str) else 'null' if inst is None else type(inst).__name__


# Options that take a list, with an example: a string there would be split or walked character by character.
LIST_OPTIONS = {'cudagraph_batch_sizes': '[1, 2, 4, 8]', 'extra_args': '["--enforce-eager"]'}


def _model_path_problem(path: Any, var: str) -> Optional[Dict[str, str]]:
    """model_path as given: absolute, normalised, no ~ and no .. (it is bind-mounted as written)."""
    if not isinstance(path, str) or not path.startswith(('/', '~', '.')) and '/..' not in path:
        return None
    norm = os.path.normpath(path) if path.startswith('/') else ''
    if path.startswith('~'):
        why, fix = 'starts with ~, which nothing expands on the node', 'write the absolute path, e.g. /root/models/...'
    elif not path.startswith('/'):
        why, fix = 'is relative', 'write the absolute directory on the node, e.g. /data/models/Qwen3.5-2B'
    elif '..' in path.split('/'):
        why, fix = 'has a .. segment (it would resolve to %s)' % norm, 'write the directory itself, without ..'
    elif norm != path and not (path.endswith('/') and norm == path.rstrip('/')):
        why, fix = 'is not normalised (it means %s)' % norm, 'write it as %s' % norm
    else:
        return None
    return problem('paths', '%s=%s %s' % (var, to_json(path), why), fix)


def instance_problems(entry: Dict[str, Any]) -> List[Dict[str, str]]:
    """What is wrong with one planned instance on its own: values of the wrong shape (a non-mapping instance, a
    string for a list, nulls in env, odd model paths), then its name, keys, chips, port and container name."""
    prefix = entry['var_prefix']
    if entry.get('shape'):
        return [problem('instances', '%s is %s, not a mapping' % (prefix[:-1], entry['shape']),
                        'write each instance as a mapping, e.g. {name: chip0, chips: [0]}')]
    out = []
    option_vars = entry.get('option_vars') or {}
    for key, example in LIST_OPTIONS.items():
        value = entry['options'].get(key)
        if isinstance(value, str):
            out.append(problem('settings', '%s=%s is a string, not a list' % (option_vars[key], to_json(value)),
                               'write %s as a YAML list, e.g. %s' % (option_vars[key], example)))
    if isinstance(entry.get('own_env'), str):
        out.append(problem('settings', '%senv=%s is not a mapping' % (prefix, entry['own_env']),
                           'write %senv as a mapping of variable to value, e.g. {HF_ENDPOINT: "https://..."}' % prefix))
    out += env_problems(entry)
    path = _model_path_problem(entry['options'].get('model_path'), option_vars.get('model_path', ''))
    out += [path] if path else []
    where = prefix[:-1] if prefix.endswith('.') else 'instance %s' % entry['name']
    if not entry['named']:
        out.append(problem('instances', where + ' has no name', 'give every instance a unique name'))
    if entry['unknown_keys']:
        unknown = ', '.join(str(key) for key in entry['unknown_keys'])
        out.append(problem('instances', '%s has unknown key(s) %s' % (where, unknown),
                           'use name, chips, port, container_name, env and vllm_config options (%s)'
                           % ', '.join(INSTANCE_OPTIONS)))
    chips = entry['chips']
    if not chips or not all(is_integer(chip) and chip >= 0 for chip in chips):
        out.append(problem('instances', '%s=%s is not a list of device ids' % (entry['chips_var'], to_json(chips)),
                           'set %s to device ids (N of /dev/davinciN), e.g. [0] or [0, 1]'
                           % entry['chips_var'].split(' ')[0]))
    port = entry['port']
    if not (is_integer(port) and 1 <= port <= 65535):
        out.append(problem('instances', '%s=%s is not a port number' % (entry['port_var'], to_json(port)),
                           'set %s to an integer in 1..65535' % entry['port_var'].split(' ')[0]))
    name = entry['container_name']
    built = entry.get('container_from')
    if built and not (isinstance(name, str) and CONTAINER_NAME_RE.match(name)):
        out.append(problem('instances', '%s=%s: the container name %s made from it and vllm_serve_container_name=%s '
                           'is not a Docker container name' % (built[1], built[2], to_json(name), built[0]),
                           'give %s only letters, digits, _, . and -, or set %s' % (built[1], entry['container_var'])))
    elif not (isinstance(name, str) and CONTAINER_NAME_RE.match(name)):
        out.append(problem('instances', '%s=%s is not a Docker container name'
                           % (entry['container_var'], to_json(name)), 'set %s to letters, digits, _, . and - (starting with a letter or digit)'
                           % entry['container_var']))
    return out


def shared_problems(plan: List[Dict[str, Any]], list_var: str) -> List[Dict[str, str]]:
    """Names, container names, ports and chips that two instances share."""
    out = []
    # Each shared value names where every instance got it (the variable, with the instance's index).
    for key, label, source in (
            ('name', 'name', lambda entry: entry['var_prefix'] + 'name' if entry['var_prefix'].endswith('.')
             else 'vllm_serve_instance_name'),
            ('container_name', 'container name', lambda entry: entry['container_var']),
            ('port', 'port', lambda entry: entry['port_var'])):
        for value in repeated([entry[key] for entry in plan]):
            where = [source(entry) for entry in plan if entry[key] == value]
            out.append(problem('instances', '%s: two instances share the %s %s (%s)' % (
                list_var, label, value, ', '.join(where)), 'give each instance its own %s' % label))
    # A chip listed twice by one instance is that instance's mistake, named by the variable it came from.
    for entry in plan:
        for chip in repeated([chip for chip in entry['chips'] if is_integer(chip)]):
            out.append(problem('instances', '%s=%s lists chip %s twice' % (
                str(entry['chips_var']).split(' ', 1)[0], to_json(entry['chips']), chip),
                'list each chip once (one chip per tensor-parallel rank)'))
    chips = [chip for entry in plan for chip in entry['chips'] if is_integer(chip)]
    for chip in repeated(chips):
        where = [str(entry['chips_var']).split(' ', 1)[0] for entry in plan if chip in entry['chips']]
        if len(where) > 1:
            out.append(problem('instances', '%s: chip %s is given to more than one instance (%s)' % (
                list_var, chip, ', '.join(where)), 'a 310P chip serves one vLLM server; give each instance its own chips'))
    return out


def _listen_problems(host: Any) -> List[Dict[str, str]]:
    """vllm_serve_host is where vLLM listens inside the container, which has its own network:
    the published port reaches it only on every address.  A value that is no address at all
    is vllm_config's (rule_names) to report."""
    if not isinstance(host, str) or host in ('0.0.0.0', '::') or not (is_ip_address(host) or host == 'localhost'):
        return []
    return [problem('ports', 'vllm_serve_host=%s: vLLM listens inside the container, which has its own network, so '
                    'the port Docker publishes never reaches an address other than 0.0.0.0 or ::' % to_json(host),
                    'set vllm_serve_host: 0.0.0.0 and choose the node address with vllm_serve_publish_address (e.g. '
                    '%s)' % ('127.0.0.1' if host in ('localhost', '::1') or host.startswith('127.') else host))]


def _roots_problems(roots: Any) -> List[Dict[str, str]]:
    """vllm_serve_model_roots: absolute, normalised node directories."""
    if roots is None:
        return []
    if not isinstance(roots, list):
        return [problem('paths', 'vllm_serve_model_roots=%s is not a list' % to_json(roots),
                        'set vllm_serve_model_roots to a list of directories, e.g. ["/data/models"]')]
    out = []
    for index, root in enumerate(roots):
        normal = os.path.normpath(root) if isinstance(root, str) and root.startswith('/') else None
        if normal is None or normal != root.rstrip('/') or '/..' in root or normal == '/':
            out.append(problem('paths', 'vllm_serve_model_roots[%d]=%s is not an absolute, normalised directory '
                               'below /' % (index, to_json(root)),
                               'write it as an absolute path without .., ~, . or // segments, e.g. /data/models'))
    return out


def host_problems(settings: Dict[str, Any], platform_names: Sequence[str]) -> List[Dict[str, str]]:
    """Host-level settings: platform set, model cache dir, publish address, minimums.

    ``settings`` holds ``host``, ``platform``, ``vllm_serve_model_cache_dir``,
    ``vllm_serve_publish_address`` and the variables of ``MINIMUMS``.
    """
    out = []
    groups = settings.get('platform_groups') or []
    if len(groups) > 1:
        out.append(problem('platform', 'host %s is in %d platform groups: %s' % (settings['host'], len(groups),
                           ', '.join(groups)), 'put %s in one platform group only (one host is one kind of board)'
                           % settings['host']))
    elif not settings.get('platform'):
        names = list(platform_names)
        out.append(problem('platform', 'no platform is set for %s' % settings['host'],
                           'set ascend_vllm_platform (%s or %s) in group_vars, or put the host in the inventory group '
                           'of that name' % (', '.join(names[:-1]), names[-1])))
    cache_dir = settings.get('vllm_serve_model_cache_dir')
    if not (isinstance(cache_dir, str) and cache_dir.startswith('/')):
        out.append(problem('paths', 'vllm_serve_model_cache_dir=%s is not an absolute path on the node'
                           % to_json(cache_dir), 'set vllm_serve_model_cache_dir to an absolute directory on the node, '
                           'e.g. /root/.cache (the guide mounts it)'))
    address = settings.get('vllm_serve_publish_address')
    if address and not is_ip_address(address):
        out.append(problem('ports', 'vllm_serve_publish_address=%s is not an IP address' % to_json(address),
                           'set vllm_serve_publish_address to an IP address of the node such as 127.0.0.1 (no port: '
                           'the port is vllm_serve_port), or "" to publish on every address'))
    out += _listen_problems(settings.get('vllm_serve_host')) + _roots_problems(settings.get('vllm_serve_model_roots'))
    # Unset (None) is the argument spec's to judge; a number must lie within its range.
    out += range_problems(dict((name, settings[name]) for name in MINIMUMS if settings.get(name) is not None))
    return out


def is_loopback(address: Any) -> bool:
    """Whether a publish address keeps the port on the node itself (127.0.0.0/8 or ::1)."""
    return isinstance(address, str) and (re.match(r'^127[.][0-9]+[.][0-9]+[.][0-9]+$', address) is not None
                                         or address in ('::1', '0:0:0:0:0:0:0:1'))


def keyless(plan: List[Dict[str, Any]]) -> List[str]:
    """The instances of the plan served without an API key."""
    return [entry['name'] for entry in plan if not entry.get('api_key_var')]


def exposed(address: Any, allow: Any) -> Optional[str]:
    """Where ``address`` publishes beyond the node ('every address of the node' for a wildcard); None when it does
    not (unset, loopback) or the user allowed unauthenticated serving (``allow``: vllm_serve_allow_unauthenticated)."""
    if address is None or is_loopback(address) or to_bool(allow):
        return None
    return 'every address of the node' if is_wildcard(address) else address


def unauthenticated_exposure(var: str, address: Any, allow: Any, what: str, open_names: List[str],
                             subject: str) -> List[Dict[str, str]]:
    """The 'exposure' problem of ``open_names`` (served without a key) published on ``address`` by ``var``."""
    where = exposed(address, allow)
    if not open_names or where is None:
        return []
    return [problem('exposure', '%s=%s publishes %s %s on %s without an API key' % (
        var, to_json(address), what, ', '.join(open_names), where),
        'set vllm_serve_api_key (from Ansible Vault or an AWX credential), or set vllm_serve_allow_unauthenticated: '
        'true to serve anyone who reaches %s, or set %s: 127.0.0.1 to keep %s on the node' % (where, var, subject))]


def plan_problems(plan: List[Dict[str, Any]], list_var: str, settings: Dict[str, Any],
                  platform_names: Sequence[str]) -> List[Dict[str, str]]:
    """Every problem of the plan and the host-level settings, in the order of the preflight report."""
    out = host_problems(settings, platform_names)
    platform = out[:1] if out and out[0]['check'] == 'platform' else []
    rest = out[len(platform):]
    platform += [found for entry in plan for found in instance_problems(entry)]
    # An instance published beyond the node without an API key, unless the user allowed it; an address
    # that is not an IP address is host_problems' to report.
    address = settings.get('vllm_serve_publish_address')
    exposure = [] if address and not is_ip_address(address) else unauthenticated_exposure(
        'vllm_serve_publish_address', address, settings.get('vllm_serve_allow_unauthenticated'), 'instance',
        keyless(plan), 'the service')
    return platform + shared_problems(plan, list_var) + rest + exposure


def image_tag(tag: Optional[str], image: Any, pulled: Any = '') -> Optional[str]:
    """What vllm_config checks against the model's minimum: the image reference as the user
    wrote it (vllm_serve_image, else image_pull_image) when it carries a vllm-ascend release
    tag -- vllm_config reads the tag out of it and problems show the reference --, else
    image_pull's tag, else the reference's own tag; a digest-only reference has none."""
    for ref in (image, pulled):
        if re.match(r'^v?[0-9]+[.][0-9]+', written_tag(ref) or ''):
            return ref
    if tag is not None:
        return tag
    return image if written_tag(image) else None
