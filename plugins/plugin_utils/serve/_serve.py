# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""What the host plan derives from its instances and their vllm_config results (pure functions over plain data):
the inputs of npu_check, the model directories and their problems, the container settings and the summary lines.
"""

import re
import socket
from typing import Any, Dict, List, Optional, Tuple

from ansible_collections.ascend.vllm.plugins.module_utils._problem import problem, report as render_problems
from ansible_collections.ascend.vllm.plugins.module_utils._text import truncate
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._address import WILDCARDS, is_ipv6
from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._instances import (
    api_key as read_api_key, env_variable, plain, secret_env_values, to_json)


def instance_configs(results: List[Dict[str, Any]]) -> Dict[str, Dict[str, Any]]:
    """``__vllm_serve_configs`` from the results of the vllm_config loop over the plan."""
    return dict((result['item']['name'], {
        'ok': 'argv' in result,
        'msg': result.get('msg', ''),
        'argv': result.get('argv', []),
        'env': result.get('env', {}),
        'api_key_env': result.get('api_key_env'),
        'settings': result.get('settings', {}),
        'profile': result.get('profile') or {},
        'memory': result.get('memory') or {},
        'violations': result.get('violations', []),
    }) for result in results or [])


def cache_target(config: Optional[Dict[str, Any]]) -> str:
    """Where the model cache is mounted in the container (the profile's, else the guide's)."""
    return (((config or {}).get('profile') or {}).get('model_cache_mount') or {}).get('target') or '/root/.cache'


def under(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory + '/')


def model_dirs(plan: List[Dict[str, Any]], configs: Optional[Dict[str, Any]], cache_dir: str) -> List[Dict[str, str]]:
    """The local model directories to look for on the node.

    An absolute model_path is a directory in the container: under the model cache
    target it lives in ``cache_dir`` on the node, anywhere else it is bind-mounted
    from the same path.
    """
    out = []
    for entry in plan:
        path = entry['options'].get('model_path')
        if not (isinstance(path, str) and path.startswith('/')):
            continue
        target = cache_target((configs or {}).get(entry['name']))
        host = cache_dir + path[len(target):] if under(path, target) else path
        out.append({'name': entry['name'], 'path': path, 'host': host, 'prefix': entry['var_prefix']})
    return out


def config_problems(configs: Optional[Dict[str, Any]]) -> List[Dict[str, str]]:
    """Every vllm_config violation of every instance, or its error when it has none."""
    out = []
    for name, config in (configs or {}).items():
        for item in config.get('violations') or []:
            out.append(problem('config', '%s=%s: %s' % (item['variable'], to_json(item['value']), item['rule']),
                               item['fix']))
        if not config.get('ok') and not config.get('violations'):
            out.append(problem('config', 'instance %s: %s' % (name, config.get('msg', '')),
                               'correct the instance settings'))
    return out


def env_config_problems(plan: List[Dict[str, Any]], configs: Optional[Dict[str, Any]]) -> List[Dict[str, str]]:
    """An instance's environment against its configuration, as vllm-ascend judges them at start.

    vllm-ascend v0.23.0 (vllm_ascend/platform.py) stops with "ACL graph is incompatible with
    ASCEND_LAUNCH_BLOCKING=1" when graph mode is on and the variable is "1" (NPU error messages
    suggest setting it for debugging).
    """
    out = []
    for entry in plan or []:
        config = (configs or {}).get(entry['name']) or {}
        mode = (config.get('settings') or {}).get('cudagraph_mode')
        if str((entry.get('env') or {}).get('ASCEND_LAUNCH_BLOCKING', '0')) == '1' and mode not in (None, 'NONE') \
                and '--enforce-eager' not in (config.get('argv') or []):
            var = env_variable(entry, 'ASCEND_LAUNCH_BLOCKING') + '.ASCEND_LAUNCH_BLOCKING'
            out.append(problem('config', '%s="1" with graph mode (cudagraph_mode %s): vllm-ascend stops at start with '
                               '"ACL graph is incompatible with ASCEND_LAUNCH_BLOCKING=1"' % (var, mode),
                               'remove ASCEND_LAUNCH_BLOCKING (or set it to "0"); for debugging read the plog files '
                               'under $HOME/ascend/log/debug in the container instead', var))
    return out


def missing_model_dirs(wanted_dirs: List[Dict[str, str]], node_paths: Dict[str, Any]) -> List[Dict[str, str]]:
    """A problem per model directory (``model_dirs``) the node read (``node_paths``: node_facts' paths) did not find."""
    return [problem('model', '%smodel_path %s is not on the node (looked at %s)'
                    % (wanted['prefix'], wanted['path'], wanted['host']),
                    'download the weights there first, or leave model_path unset to load the model id from ModelScope')
            for wanted in wanted_dirs if not (node_paths.get(wanted['host']) or {}).get('exists')]


def _allowed(path: str, roots: List[str]) -> bool:
    return any(under(path, root.rstrip('/') or '/') for root in roots)


def _node_model_dir_problem(wanted: Dict[str, str], paths: Dict[str, Any],
                            allowed: List[str]) -> Optional[Tuple[str, str]]:
    """(what is wrong, fix) with the model directory as the node has it, or None (missing: missing_model_dirs)."""
    found = paths.get(wanted['host']) or {}
    if not found.get('exists'):
        return None
    if found.get('isreg'):
        return ('is a file on the node (%s), not a model directory' % wanted['host'],
                'set it to the directory that holds config.json and the weights, e.g. %s'
                % (wanted['path'].rsplit('/', 1)[0] or '/'))
    if not found.get('isdir'):
        return 'is not a directory on the node (%s)' % wanted['host'], 'set it to the model directory'
    real = found.get('realpath')
    if isinstance(real, str) and real and not _allowed(real, allowed):
        return ('leads through a link to %s on the node, outside %s' % (real, ', '.join(allowed)),
                'point it at the real directory inside the model cache, or add that directory to '
                'vllm_serve_model_roots')
    config = paths.get(wanted['host'].rstrip('/') + '/config.json')
    if config is not None and not config.get('isreg'):
        return ('has no config.json on the node (%s/config.json), so it is not a model directory vLLM can load'
                % wanted['host'].rstrip('/'),
                'point it at the directory that holds config.json (a ModelScope download keeps it in '
                '<cache>/modelscope/hub/models/<org>/<name>)')
    return None


def unwritable_dir(found: Optional[Dict[str, Any]]) -> Optional[str]:
    """Why a directory the deploy writes to (or creates) cannot be used, from node_facts' stat of it, or None.

    ``found`` without ``writable`` (an older node read) says nothing.
    """
    if not found or 'writable' not in found:
        return None
    if found.get('exists') and not found.get('isdir'):
        return 'is a file on the node, not a directory'
    if not found.get('writable'):
        return 'is not writable on the node' if found.get('exists') else 'does not exist and cannot be created on the node'
    return None


def cache_dir_problems(cache_dir: Any, node_paths: Optional[Dict[str, Any]]) -> List[Dict[str, str]]:
    """The model cache as the node has it: mounted read-write at /root/.cache, where vLLM downloads the
    weights and writes its caches, so a directory the node's root can write (or create: container_run
    creates a missing one). Unknown (an older node read without ``writable``): no problem."""
    why = unwritable_dir((node_paths or {}).get(cache_dir) if isinstance(cache_dir, str) else None)
    if why is None:
        return []
    variable = 'vllm_serve_model_cache_dir=%s' % to_json(cache_dir)
    if why.startswith('is a file'):
        return [problem('paths', '%s %s; the container mounts it as its model cache (/root/.cache)'
                        % (variable, why), 'move the file away, or set vllm_serve_model_cache_dir to a directory')]
    return [problem('paths', '%s %s (a read-only filesystem or mount?); vLLM downloads the weights and writes its '
                    'caches there' % (variable, why), 'make it writable for root on the node, or set '
                    'vllm_serve_model_cache_dir to a writable directory with room for the weights')]


def model_path_problems(wanted_dirs: List[Dict[str, str]], configs: Optional[Dict[str, Any]], cache_dir: str,
                        roots: Any, node_paths: Optional[Dict[str, Any]] = None) -> List[Dict[str, str]]:
    """A problem per local model_path outside the model cache and vllm_serve_model_roots, and,
    once the node was read (``node_paths``: node_facts' paths), per one that is a file, a link
    out of them or a directory without config.json.
    """
    roots = [root for root in (roots if isinstance(roots, list) else []) if isinstance(root, str) and root]
    out = []
    for wanted in wanted_dirs or []:
        target = cache_target((configs or {}).get(wanted['name']))
        variable = '%smodel_path=%s' % (wanted['prefix'], to_json(wanted['path']))
        allowed = [cache_dir] + roots
        if not under(wanted['path'], target) and not _allowed(wanted['path'], roots):
            out.append(problem('paths', '%s is outside the model cache (%s in the container, %s on the node) and '
                               'outside vllm_serve_model_roots %s' % (variable, target, cache_dir, to_json(roots)),
                               'put the weights under %s on the node and set model_path to %s/..., or add the '
                               'directory that holds them to vllm_serve_model_roots (mounted read-only in place)'
                               % (cache_dir, target)))
            continue
        found = _node_model_dir_problem(wanted, node_paths or {}, allowed)
        if found:
            out.append(problem('paths', '%s %s' % (variable, found[0]), found[1]))
    return out


# Always fine: every address, or loopback (each node has it).
ANY_ADDRESSES = WILDCARDS + ('127.0.0.1', '::1')


def _same_address(one: str, other: str) -> bool:
    if ':' in one and ':' in other:
        try:
            return socket.inet_pton(socket.AF_INET6, one) == socket.inet_pton(socket.AF_INET6, other)
        except (OSError, ValueError):
            return False
    return one == other


def publish_address_problems(address: Any, node_addresses: Any) -> List[Dict[str, str]]:
    """A problem when vllm_serve_publish_address is not one of the node's addresses (read by node_facts).

    Docker cannot bind the published port there, so the new container would fail to start.
    Nothing is said before the node was read (``node_addresses`` None) or for a value that is
    not an address at all (the plan reports that).
    """
    if not isinstance(address, str) or not isinstance(node_addresses, list):
        return []
    # '::' and '::1' are always the node's own -- unless the node runs without IPv6 (the
    # kernel's disable_ipv6): then Docker's proxy cannot listen there and the start fails.
    if is_ipv6(address) and node_addresses and not any(is_ipv6(str(own)) for own in node_addresses):
        return [problem('ports', 'vllm_serve_publish_address=%s is an IPv6 address, but this node has no IPv6 '
                        'address (IPv6 is disabled): Docker could not publish the port there and the new container '
                        'would not start' % to_json(address), 'enable IPv6 on the node (sysctl '
                        'net.ipv6.conf.all.disable_ipv6=0), or set vllm_serve_publish_address to an IPv4 address of the '
                        'node, 127.0.0.1 or "" (every address)')]
    if address in ANY_ADDRESSES or not node_addresses or any(_same_address(address, own) for own in node_addresses):
        return []
    own = ', '.join(str(item) for item in node_addresses)
    return [problem('ports', 'vllm_serve_publish_address=%s is not an address of this node (it has %s): Docker could '
                    'not publish the port there and the new container would not start' % (to_json(address), own),
                    'set vllm_serve_publish_address to one of %s, or "" to publish on every address' % own)]


def report(problems: List[Dict[str, Any]], host: str) -> str:
    """The preflight failure message: a count line, then one line per problem with its fix."""
    return render_problems('preflight', host, problems, 'nothing was pulled or started')


def container_settings(entry: Dict[str, Any], config: Dict[str, Any],
                       secrets: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
    """env, extra mounts and no_log (the instance has a key or a secret) of one container.

    ``secrets`` is ``instance_secrets``' env: the values of the environment's secrets and the API key
    under the server's variable, which the plan only carries markers for.
    """
    env = dict(entry.get('env') or {})
    env.update(secrets or {})
    path = entry['options'].get('model_path') or ''
    mounts = []
    # A local model directory outside the cache is mounted read-only in place.
    if isinstance(path, str) and path.startswith('/') and not under(path, cache_target(config)):
        mounts.append({'source': path, 'target': path, 'read_only': True})
    settings = config.get('settings') or {}
    return {'env': env, 'extra_mounts': mounts, 'no_log': bool(entry.get('api_key_var')) or bool(entry.get('hidden_env')),
            'model': settings['model'] if 'model' in settings else entry['options'].get('model')}


def instance_container(entry: Dict[str, Any], config: Dict[str, Any], variables: Any) -> Dict[str, Any]:
    """``container_settings`` of a planned instance, with its API key and environment secrets (``instance_secrets``)."""
    return container_settings(plain(entry), plain(config or {}), instance_secrets(entry, config, variables)['env'])


def instance_secrets(entry: Dict[str, Any], config: Dict[str, Any], variables: Any) -> Dict[str, Any]:
    """{api_key, env} of a planned instance, read from the host's variables (``vllm_serve_instances``,
    ``vllm_serve_api_key``, ``vllm_serve_env``): the key, and the environment entries the plan carries only
    markers for -- each secret by its name, and the key under the server's variable (vllm_config's
    ``api_key_env``). What ``container_settings`` puts in the container's environment, no more."""
    def get(name):
        return plain(variables[name]) if name in variables else None
    entry = plain(entry)
    instances = get('vllm_serve_instances') or []
    key = read_api_key(instances, get('vllm_serve_api_key'), entry)
    env = secret_env_values(instances, get('vllm_serve_env'), entry)
    api_key_env = (plain(config or {})).get('api_key_env')
    if key and api_key_env:
        env[api_key_env] = key
    return {'api_key': key, 'env': env}


def container_plan(entry: Dict[str, Any], config: Dict[str, Any], host: Dict[str, Any]) -> Dict[str, Any]:
    """The container_run variables of a planned instance, as the host plan carries them: no image (image_pull
    says which at run time) and no secret (its environment keeps the plan's markers; ``instance_secrets`` gives
    the values)."""
    run = container_run_vars(entry, config, container_settings(entry, config), host)
    run.pop('container_run_image', None)
    return run


# The container_run settings beyond the instance's (restart policy, stop timeout, log
# options, the user's labels): what vllm_serve does not pass, container_run's defaults
# or the user's inventory values fill in.
RUN_SETTINGS = ('container_run_restart_policy', 'container_run_stop_timeout', 'container_run_log_max_size',
                'container_run_log_max_file', 'container_run_labels')


def container_run_vars(entry: Dict[str, Any], config: Dict[str, Any], container: Dict[str, Any],
                       host: Dict[str, Any]) -> Dict[str, Any]:
    """The container_run variables of one instance, as vllm_serve passes them (deploy_instance.yml).

    ``container`` is ``container_settings``' answer, ``host`` the role's host-wide values:
    image, publish_address, model_cache_dir, platform, keep_previous.
    """
    return {
        'container_run_name': entry['container_name'],
        'container_run_image': host.get('image'),
        'container_run_command': config.get('argv') or [],
        'container_run_command_env': config.get('env') or {},
        'container_run_env': container['env'],
        'container_run_no_log': container['no_log'],
        'container_run_profile': config.get('profile') or {},
        'container_run_chips': entry['chips'],
        'container_run_port': entry['port'],
        'container_run_publish_address': host.get('publish_address'),
        'container_run_model_cache_dir': host.get('model_cache_dir'),
        'container_run_extra_mounts': container['extra_mounts'],
        'container_run_instance': entry['name'],
        'container_run_model': container['model'],
        'container_run_platform': host.get('platform'),
        'container_run_keep_previous': host.get('keep_previous'),
    }


def left_out_line(host: str, status: Optional[Dict[str, Any]], reach: Optional[Dict[str, Any]]) -> str:
    """Why a host of the play is not serving: unreachable, an instance failed, or an earlier error."""
    reach = reach or {}
    failed = [(name, state) for name, state in (status or {}).items() if (state or {}).get('state') != 'ready']
    if reach.get('unreachable') or reach.get('failed'):
        why = ('unreachable: ' if reach.get('unreachable') else 'did not answer: ') + truncate(
            re.sub(r'\s+', ' ', str(reach.get('msg', 'no answer'))), 200)
    elif failed:
        why = 'failed: instance %s -- %s' % (', instance '.join(name for name, _state in failed),
                                             truncate(str(failed[0][1].get('error', 'not serving')), 300))
    else:
        why = 'failed before serving (see its error above)'
    return '%s: NOT deployed, %s' % (host, why)
