# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The host plan: from one request, everything a host will run, and every problem with it, in one step.

``host_plan(request, specs, isfile)`` judges the request in the order preflight
always did -- variable names and types and the platform first (nothing else is
worth judging while those are wrong), then the image inputs, the instance plan,
every ``vllm_config`` rule of every instance, the balancer and the model
directories -- and returns the plan with all problems at once. The
``ascend.vllm.host_plan`` action runs it on the controller, before any node is
contacted; the phases consume its result instead of recomputing it.
"""

import json
import os
import posixpath
import re

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.ascend.vllm.plugins.plugin_utils.fleet._balancer import balancer_plan
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.models import GUIDE_DEFAULTS
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._image_ref import candidates as image_candidates
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._image_ref import judge as judge_image
from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._instances import (
    api_key, image_tag, plain, plan_instances, plan_problems, to_json)
from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._instances import MINIMUMS
from ansible_collections.ascend.vllm.plugins.module_utils._problem import problem
from ansible_collections.ascend.vllm.plugins.module_utils._redact import HIDDEN, secret_name
from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._serve import (
    config_problems, container_plan, env_config_problems, instance_configs, model_dirs, model_path_problems, report)
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._address import with_urls
from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._rolling import upgrade_steps
from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._source import (
    SOURCE, env_problems, install_plan, service_plan, unit_name, with_launcher)
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.planner import config_result
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.platforms import PLATFORMS, profile_verdict
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts import releases
from ansible_collections.ascend.vllm.plugins.plugin_utils.request._request import with_origins
from ansible_collections.ascend.vllm.plugins.plugin_utils.request._vars import check_role_vars
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.vllm_options import INSTANCE_OPTIONS, argument_spec

PREFIX = 'vllm_serve_'
IMAGE_INPUTS = ('image_pull_registries', 'image_pull_repository', 'image_pull_tag', 'image_pull_tag_suffix',
                'image_pull_digest', 'image_pull_image', 'image_pull_retries', 'image_pull_delay',
                'image_pull_timeout', 'image_pull_poll_interval', 'image_pull_archive', 'image_pull_archive_on_node',
                'image_pull_archive_dir', 'image_pull_offline', 'image_pull_policy', 'image_pull_assume_release')
SETTINGS = ('vllm_serve_model_cache_dir', 'vllm_serve_publish_address', 'vllm_serve_host',
            'vllm_serve_model_roots', 'vllm_serve_allow_unauthenticated') + MINIMUMS


class _UserVariables:
    """The variables the user set, as check_role_vars reads them (a template error raises on read)."""

    def __init__(self, request):
        self._request = request

    def keys(self):
        return self._request.user_names()

    def __getitem__(self, name):
        # As written: the problems name the value the user wrote (``"8080"``, ``0.0``).
        return self._request.written(name)


def release_overrides(request, record):
    """The platform overrides an instance runs with: the record's container needs for the platform (its shm
    size) under the user's own overrides, which win."""
    user = request.get(PREFIX + 'platform_overrides') or {}
    needs = ((record or {}).get('container') or {}).get(request.get(PREFIX + 'platform') or '') or {}
    if not needs.get('shm_size') or not isinstance(user, dict) or request.get(PREFIX + 'platform_spec'):
        return user
    return dict({'shm_size': needs['shm_size']}, **user)


def instance_plan(request, pulled_tag=None):
    """{'plan', 'problems', 'image_tag'}: the instances of the host from the instance list or the scalars.

    ``pulled_tag``: the tag image_pull will pull (the image plan's), which ``vllm_serve_image_tag``
    stands for unless the user set it.
    """
    list_var = 'ascend_vllm_instances' if request.is_set('ascend_vllm_instances') else PREFIX + 'instances'
    instances = request.get(PREFIX + 'instances') or []
    # Not a list (a string, a mapping): one entry that the plan reports as not a mapping.
    instances = list(instances) if isinstance(instances, (list, tuple)) else [instances]
    ignored = overridden_problems(request, instances, list_var)
    scalars = {
        'instance_name': request.get(PREFIX + 'instance_name', 'default'),
        'container_name': request.get(PREFIX + 'container_name', 'vllm-ascend'),
        'chips': request.get(PREFIX + 'chips'),
        'port': request.get(PREFIX + 'port', 8080),
        'env': request.get(PREFIX + 'env') or {},
        'options': dict((option, request.get(PREFIX + option)) for option in INSTANCE_OPTIONS),
    }
    plan = with_urls(plan_instances(instances, scalars, list_var), request.get(PREFIX + 'publish_address'))
    settings = dict((name, request.get(name)) for name in SETTINGS)
    settings.update(host=request.host, platform=request.get(PREFIX + 'platform') or '',
                    platform_groups=[name for name in request.get('group_names') or [] if name in PLATFORMS])
    return {
        'plan': plan,
        'problems': plan_problems(plan, list_var, settings, list(PLATFORMS)) + ignored,
        'image_tag': image_tag(pulled_tag if request.get(PREFIX + 'image_tag') is None
                               else request.get(PREFIX + 'image_tag'), request.get(PREFIX + 'image') or '',
                               request.get('image_pull_image') or ''),
    }


# With an instance list, scalars that never apply (the list names the instances and hands out
# chips) and scalars each instance can set for itself (they apply only to instances that do not).
_LIST_IGNORES = ('instance_name', 'chips')
_LIST_DEFAULTS = ('port', 'container_name') + tuple(INSTANCE_OPTIONS)


def overridden_problems(request, instances, list_var):
    """Scalars the user set for this host alone (extra vars, host_vars, its inventory entry) that the instance
    list leaves without effect; set for a group they are the default of the group's other hosts."""
    if not instances or not all(isinstance(inst, dict) for inst in instances):
        return []
    out = []
    for suffix in _LIST_IGNORES + _LIST_DEFAULTS:
        name = PREFIX + suffix
        if not request.is_set(name) or not request.for_this_host(name):
            continue
        key = 'name' if suffix == 'instance_name' else suffix
        if suffix in _LIST_IGNORES:
            why = '%s gives the instances their %s' % (list_var, 'names' if key == 'name' else 'chips')
            fix = 'remove %s, or set %s in the instances of %s instead' % (name, key, list_var)
        elif all(key in inst for inst in instances):
            why = 'every instance of %s sets its own %s' % (list_var, key)
            fix = 'remove %s, or leave %s out of the instances of %s that should take it' % (name, key, list_var)
        else:
            continue
        shown = HIDDEN if secret_name(suffix) else to_json(request.get(name))
        out.append(problem('settings', '%s=%s has no effect on %s: %s' % (name, shown, request.host, why), fix, name))
    return out


def config_params(entry, request, var_names, tag, node=None, record=None):
    """The vllm_config options of one planned instance: every instance option of the option table.

    ``node`` (what preflight read of the node: ``chip_total_mb``/``chip_free_mb`` per instance and
    ``rc_mode``) replaces the platform's nominal chip figures.
    """
    options = entry.get('options') or {}
    params = dict((name, options[name]) for name in INSTANCE_OPTIONS if options.get(name) is not None)
    node = node or {}
    total = (node.get('chip_total_mb') or {}).get(entry['name'])
    if params.get('chip_memory_mb') is None and total is not None:
        params['chip_memory_mb'] = total
    free = (node.get('chip_free_mb') or {}).get(entry['name'])
    # In RC mode the chips share host memory: npu_check weighs that instead.
    if free is not None and not node.get('rc_mode'):
        params['chip_free_memory_mb'] = free
    params.update(platform=request.get(PREFIX + 'platform'),
                  platform_overrides=release_overrides(request, record),
                  platform_spec=request.get(PREFIX + 'platform_spec'),
                  host=serve_host(request), port=entry['port'], visible_chips=len(entry['chips'] or []),
                  offline=request.get(PREFIX + 'offline'),
                  var_prefix=entry['var_prefix'],
                  var_names=dict(var_names, visible_chips=str(entry['chips_var']).split(' ', 1)[0]))
    if tag is not None:
        params['image_tag'] = tag
    return params


def serve_host(request):
    """The address vLLM binds: vllm_serve_host in a container (Docker publishes the port on
    vllm_serve_publish_address); as a service (the source install method) vLLM binds the publish address
    itself (every address when it is empty), unless the user set vllm_serve_host."""
    if request.get(PREFIX + 'install_method') != SOURCE or request.is_set(PREFIX + 'host'):
        return request.get(PREFIX + 'host')
    return request.get(PREFIX + 'publish_address') or '0.0.0.0'


def host_values(request):
    """The host-wide values of every instance's container (container_run's) or service (vllm_service's)."""
    return dict((name, request.get(PREFIX + name)) for name in ('publish_address', 'model_cache_dir', 'platform',
                                                                'keep_previous'))


def services(request, instances, configured, install):
    """{instance name: its ascend.vllm.vllm_service arguments} with the source install method ({} without)."""
    if not install:
        return {}
    host = host_values(request)
    return dict((entry['name'], service_plan(entry, configured[entry['name']], install, host)) for entry in instances
                if isinstance(configured.get(entry['name']), dict) and configured[entry['name']].get('ok', True))


def instance_config(params):
    """What the vllm_config action returns for ``params``, as a result of a loop over the plan."""
    validation = ArgumentSpecValidator(argument_spec()).validate(params)
    if validation.error_messages:
        return {'failed': True, 'msg': validation.errors.msg}
    return config_result(validation.validated_parameters)


def configs(plan, request, var_names, tag, node=None, record=None):
    """{instance name: config} (argv, env, settings, profile, memory, violations) of every instance.

    ``record``: the release record the image runs under (its container needs apply).
    """
    return instance_configs([dict(instance_config(config_params(entry, request, var_names, tag, node, record)),
                                  item=entry) for entry in plan])


def named(instances, configured, source, smoke=None):
    """The instances with the two names every phase knows them by, worked out here once:

    ``served_model_name``, the name the API serves the model under (the instance's vllm_config result's; where
    that result failed, and the plan stops, its own option or the guide's qwen3.5), and ``runs_as``, what runs
    it on the node: its container, or its systemd unit with the source install method; and ``smoke``, everything its
    smoke tests send (``smoke``: the request's vllm_serve_smoke_* settings, ``smoke_settings``) with what they ask of
    its chat parsers (``smoke_chat``): vllm_ready takes it as one option, wherever an instance is checked."""
    out = []
    for entry in instances:
        config = configured.get(entry['name'])
        settings = (config.get('settings') if isinstance(config, dict) else None) or {}
        out.append(dict(entry, served_model_name=(settings.get('served_model_name')
                                                  or (entry.get('options') or {}).get('served_model_name')
                                                  or GUIDE_DEFAULTS['served_model_name']),
                        runs_as=unit_name(entry['container_name']) if source else entry['container_name'],
                        smoke=dict(smoke or {}, **smoke_chat(settings, smoke))))
    return out


def smoke_settings(request):
    """What the smoke tests of every instance of the host send (the vllm_serve_smoke_* variables), as vllm_ready's
    options; ``reasoning`` and ``tool_call`` say whether the operator wants those checks (``smoke_chat`` narrows
    them to the instance's parsers)."""
    def on(key):
        # Unset only where no role default reached the request (unit tests): on, as the defaults say.
        return bool(request.get(PREFIX + 'smoke_' + key, True))
    return dict(((key, request.get(PREFIX + 'smoke_' + key)) for key in ('prompt', 'max_tokens', 'chat_max_tokens')),
                smoke_test=on('test'), smoke_timeout=request.get(PREFIX + 'smoke_timeout'),
                reasoning=on('reasoning'), tool_call=on('tool_call'))


def smoke_chat(settings, wanted=None):
    """What the smoke tests ask of an instance's chat parsers (vllm_ready's reasoning, reasoning_field and
    tool_call): a reasoning answer when it runs with a reasoning parser, a tool call with a tool-call parser,
    each unless ``wanted`` (``smoke_settings``) turns it off."""
    wanted = wanted or {}
    return {'reasoning': bool(settings.get('reasoning_parser')) and wanted.get('reasoning', True),
            'reasoning_field': settings.get('reasoning_field') or 'reasoning',
            'tool_call': bool(settings.get('tool_call_parser')) and wanted.get('tool_call', True)}


def balancer(request, plan):
    """The balancer of the host: frontends, servers, key digests and problems (``plan``: the named instances)."""
    instances = request.get(PREFIX + 'instances') or []
    keys = dict((entry['name'], api_key(instances, request.get(PREFIX + 'api_key'), entry)) for entry in plan)
    settings = dict(((key, request.get('balancer_' + key)) for key in ('enabled', 'port', 'metrics_port', 'publish_address')),
                    allow_unauthenticated=request.get(PREFIX + 'allow_unauthenticated'))
    front = balancer_plan(plan, keys, settings)
    # HAProxy's admin socket, where a rolling upgrade drains a server: the balancer role's directory, named once.
    run_dir = request.get('balancer_run_dir')
    front['socket'] = posixpath.join(run_dir, 'admin.sock') if isinstance(run_dir, str) and run_dir else ''
    entries = dict((entry['name'], entry) for entry in plan)
    for frontend in front.get('frontends') or []:
        # Where the balancer's smoke tests read the frontend's key from (its first server's instance):
        # the marker, never the key.
        first = entries.get(((frontend.get('servers') or [{}])[0]).get('instance')) or {}
        frontend['key_source'] = dict((name, first.get(name)) for name in ('name', 'index', 'api_key_var'))
    if front.get('enabled'):
        front['image'] = balancer_image(request)
    # The frontends' readiness check sends the instances' smoke requests only when they do (vllm_serve_smoke_test).
    front['smoke_test'] = smoke_settings(request)['smoke_test']
    return front


def balancer_image(request):
    """The arguments of ascend.vllm.image_ensure for the HAProxy image: balancer_image, else each of
    balancer_registries with balancer_repository:balancer_tag (no platform suffix), pulled or loaded
    (balancer_image_archive) with image_pull's retries, timeouts and tarball settings."""
    tag = str(request.get('balancer_tag'))
    refs = image_candidates({'image_pull_image': request.get('balancer_image') or '',
                             'image_pull_registries': request.get('balancer_registries') or [],
                             'image_pull_repository': request.get('balancer_repository'), 'image_pull_digest': ''}, tag)
    return {
        'candidates': refs, 'image_tag': tag, 'policy': request.get('image_pull_policy'),
        'retries': request.get('image_pull_retries'), 'delay': request.get('image_pull_delay'),
        'timeout': request.get('image_pull_timeout'), 'report_after': request.get('image_pull_poll_interval'),
        'inputs': {'image_pull_tag': request.get('balancer_tag'), 'image_pull_repository': request.get('balancer_repository'),
                   # The variables a failed pull's fix names (contracts/_image_ref.failure_message).
                   'names': {'image': 'HAProxy image of the balancer', 'image_pull_tag': 'balancer_tag',
                             'image_pull_registries': 'balancer_registries',
                             'image_pull_archive': 'balancer_image_archive', 'image_pull_digest': 'balancer_image',
                             'image_pull_image': 'balancer_image'}},
        'archive': request.get('balancer_image_archive') or '',
        'archive_on_node': bool(request.get('image_pull_archive_on_node')),
        'archive_dir': request.get('image_pull_archive_dir'),
        'archive_cleanup': bool(request.get('image_pull_archive_cleanup')),
    }


_PEM_CERTIFICATE = re.compile(r'-----BEGIN CERTIFICATE-----.+?-----END CERTIFICATE-----', re.S)
_PEM_KEY = re.compile(r'-----BEGIN ((RSA|EC|ENCRYPTED) )?PRIVATE KEY-----.+?-----END ((RSA|EC|ENCRYPTED) )?PRIVATE KEY-----',
                      re.S)
_TLS_FIX = ('give the PEM text itself, not a path: %s: "{{ lookup(\'ansible.builtin.file\', \'/path/on/the/controller\') }}" '
            '(the key from Ansible Vault)')


def tls_problems(request, front):
    """The balancer's TLS inputs: PEM text (not a path), both or neither, and used only where a balancer runs.

    HAProxy reads them as one PEM file at start; a path or half a pair would stop it after the deploy.
    The key's value is never shown.
    """
    cert, key = request.get('balancer_tls_certificate') or '', request.get('balancer_tls_key') or ''
    if not (cert or key) or not isinstance(cert, str) or not isinstance(key, str):
        return []
    out = []
    if bool(cert) != bool(key):
        given, missing = ('balancer_tls_certificate', 'balancer_tls_key') if cert else \
            ('balancer_tls_key', 'balancer_tls_certificate')
        out.append(problem('balancer', '%s is set but %s is empty: HAProxy needs the certificate and its key'
                           % (given, missing), 'set %s too, or leave both empty for plain HTTP' % missing, given))
    if cert and not _PEM_CERTIFICATE.search(cert):
        shown = to_json(cert) if len(cert) <= 120 and '\n' not in cert else '(%d characters)' % len(cert)
        out.append(problem('balancer', 'balancer_tls_certificate=%s is not a PEM certificate '
                           '(-----BEGIN CERTIFICATE----- ...)' % shown, _TLS_FIX % 'balancer_tls_certificate', 'balancer_tls_certificate'))
    if key and not _PEM_KEY.search(key):
        out.append(problem('balancer', 'balancer_tls_key %s is not a PEM private key (-----BEGIN PRIVATE KEY----- ...)'
                           % HIDDEN, _TLS_FIX % 'balancer_tls_key', 'balancer_tls_key'))
    if not front.get('enabled'):
        for name in ('balancer_tls_certificate', 'balancer_tls_key'):
            if request.is_set(name) and request.for_this_host(name):
                out.append(problem('balancer', '%s has no effect on %s: it runs no load balancer (%s)'
                                   % (name, request.host, front.get('why') or 'balancer off'),
                                   'remove it, or serve one model from more than one instance (or set '
                                   'balancer_enabled: true) to put a balancer in front', name))
    return out


# Settings that mean something on some platforms only: (variables, do they apply to this profile and
# request, why they do not). Reported like an overridden scalar: only when set for this host alone.
PLATFORM_BOUND = (
    (('npu_check_rc_memory_margin_mb', 'npu_check_drop_page_cache'), lambda profile, request: bool(profile.get('rc_mode')),
     'it applies in RC mode only (the Atlas 200I Pro, host memory shared); %s runs in EP mode with its own memory'),
    (('ascend_vllm_platform_spec', 'vllm_serve_platform_spec'),
     lambda profile, request: request.get(PREFIX + 'platform') not in PLATFORMS,
     'a built-in platform (%s) ignores it; it describes a platform that is not built in'),
)


def platform_bound_problems(request, profile):
    """A setting the user made for this host that its platform never reads (``PLATFORM_BOUND``)."""
    if not profile:
        return []
    platform = request.get(PREFIX + 'platform') or ''
    out = []
    for names, applies, why in PLATFORM_BOUND:
        for name in names:
            if applies(profile, request) or not request.is_set(name) or not request.for_this_host(name):
                continue
            out.append(problem('settings', '%s=%s has no effect on %s: %s' % (
                name, to_json(request.get(name)), request.host, why % platform),
                'remove %s from this host, or check ascend_vllm_platform (%s)' % (name, platform), name))
    return out


_CONTROLLER = ('localhost', '127.0.0.1', '::1')


# What a service of ours reads or binds at every start, so it must live where a reboot keeps it: the balancer's
# configuration and admin-socket directories (bind-mounted into its container), the model cache (bind-mounted into
# the instances' containers) and the source install method's root (units' environment files, launcher, virtualenv).
START_PATHS = ('balancer_config_dir', 'balancer_run_dir', 'container_run_model_cache_dir', PREFIX + 'model_cache_dir',
               PREFIX + 'source_root')
# The trees a reboot empties: tmpfs on systemd hosts (/run, /dev/shm), /tmp cleared at boot (tmp.mount or
# systemd-tmpfiles' tmp.conf), /var/run a link to /run.
REBOOT_CLEARED = ('/run', '/var/run', '/tmp', '/dev/shm')


def boot_path_problems(request):
    """A path a service needs at every start that a reboot empties: the service would not come back after a reboot
    (Docker refuses a bind mount whose source is gone, systemd a unit whose EnvironmentFile is)."""
    out = []
    for var in START_PATHS:
        path = request.get(var)
        if not isinstance(path, str) or not path:
            continue
        normal = posixpath.normpath(path)
        cleared = next((top for top in REBOOT_CLEARED if normal == top or normal.startswith(top + '/')), None)
        if cleared:
            out.append(problem('paths', '%s=%s is under %s, which a reboot empties: what the service needs there at '
                               'start would be gone, and it would not come back after a reboot' % (
                                   var, to_json(path), cleared), 'set %s to a directory on disk, e.g. '
                               '/var/lib/ascend-vllm/%s' % (var, posixpath.basename(normal) or 'data'), var))
    return out


def metrics_file_problems(request):
    """vllm_serve_metrics_file on the controller: where deploy will read, merge and rewrite it.

    An existing file that is not a JSON list of file_sd target groups (a prometheus.yml, a YAML
    target file) would be replaced after the deploy, losing what it held: refused here, with the
    rest (a relative path, a missing or read-only directory, a directory of that name).
    """
    path = request.get(PREFIX + 'metrics_file') or ''
    if not path or not isinstance(path, str) or request.get(PREFIX + 'metrics_file_host') not in _CONTROLLER:
        return []
    var = PREFIX + 'metrics_file'

    def wrong(why, fix):
        return [problem('paths', '%s=%s %s' % (var, to_json(path), why), fix, var)]

    if not os.path.isabs(path):
        return wrong('is not an absolute path on the controller', 'set %s to an absolute path, e.g. '
                     '/etc/prometheus/targets/ascend-vllm.json' % var)
    parent = os.path.dirname(path)
    if not os.path.isdir(parent):
        return wrong('is in %s, which does not exist on the controller' % parent,
                     'create %s (the directory Prometheus reads file_sd targets from), or correct %s' % (parent, var))
    if os.path.isdir(path):
        return wrong('is a directory on the controller', 'name the file itself, e.g. %s/ascend-vllm.json' % path)
    if not os.path.exists(path):
        return [] if os.access(parent, os.W_OK) else wrong(
            'cannot be created: %s is not writable by the controller\'s user' % parent,
            'make %s writable for the user that runs ansible-playbook, or choose another directory' % parent)
    if not os.access(path, os.W_OK):
        return wrong('is not writable by the controller\'s user', 'make it writable, or choose another file')
    try:
        with open(path, 'rb') as handle:
            text = handle.read().decode('utf-8')
        groups = json.loads(text) if text.strip() else []
    except (ValueError, OSError, UnicodeDecodeError):
        groups = None
    if not isinstance(groups, list) or not all(isinstance(group, dict) for group in groups):
        return wrong('holds something other than a JSON list of file_sd target groups (a prometheus.yml, a '
                     'YAML target file?); deploy would replace it and lose what it holds',
                     'point %s at a file of its own (e.g. /etc/prometheus/targets/ascend-vllm.json) that '
                     'Prometheus reads through file_sd_configs' % var)
    return []


def _stop(request, problems, **rest):
    problems = with_origins(problems, request)
    return dict({'host': request.host, 'problems': problems, 'report': report(problems, request.host) if problems else ''},
                **rest)


def host_plan(request, specs, isfile, figures=None):
    """The whole plan of one host and every problem with it (``report`` is the preflight message).

    ``figures``: the chips' figures npu_check read in this run (``chip_total_mb``, ``chip_free_mb``,
    ``rc_mode``, as in ``config_params``' ``node``) instead of the platform's nominal ones.
    """
    var_names = request.var_names()
    problems = check_role_vars(_UserVariables(request), specs)
    platform = {'profile': None, 'problems': []}
    if not [found for found in problems if found.get('kind') == 'type']:
        platform = profile_verdict(request.get(PREFIX + 'platform') or '', request.get(PREFIX + 'platform_overrides'),
                                   request.get(PREFIX + 'platform_spec'), var_names)
    problems += platform['problems']
    if problems:
        return _stop(request, problems, stage='variables')
    image = judge_image(dict((name, request.get(name)) for name in IMAGE_INPUTS),
                        (platform['profile'] or {}).get('image_tag_suffix'), isfile)
    chosen = releases.choose(image['image_tag'], request.get('image_pull_assume_release') or '')
    release = dict(chosen, complete=bool(chosen['record']) and releases.complete(chosen['record']))
    planned = instance_plan(request, image['image_tag'])
    platform_set = bool(request.get(PREFIX + 'platform'))
    install = (install_plan(request.get, planned['image_tag'], request.is_set)
               if request.get(PREFIX + 'install_method') == SOURCE else None)
    configured = (configs(planned['plan'], request, var_names, planned['image_tag'], figures, release['record'])
                  if platform_set else {})
    planned['plan'] = named(planned['plan'], configured, bool(install), smoke_settings(request))
    front = balancer(request, planned['plan']) if platform_set else {'enabled': False, 'frontends': [], 'problems': []}
    cache_dir = request.get(PREFIX + 'model_cache_dir')
    local = model_dirs(planned['plan'], configured, cache_dir)
    if install:
        # One launcher text for the install (vllm-ascend is built through it) and every service.
        install = with_launcher(install, configured)
    served = services(request, planned['plan'], configured, install)
    problems = (list((install or {}).get('problems') or [])
                + [found for name, service in sorted(served.items()) for found in env_problems(name, service['env'])]
                + image['problems'] + release['problems'] + planned['problems']
                + front['problems'] + config_problems(configured) + env_config_problems(planned['plan'], configured)
                + tls_problems(request, front)
                + platform_bound_problems(request, platform['profile']) + metrics_file_problems(request)
                + boot_path_problems(request)
                + model_path_problems(local, configured, cache_dir, plain(request.get(PREFIX + 'model_roots') or []),
                                      {}))
    # Without the node read no container is known: every instance rolls, the safe order (serve/_rolling).
    return _stop(request, problems, stage='plan', platform=request.get(PREFIX + 'platform'),
                 profile=platform['profile'], image=image, instances=planned['plan'], image_tag=planned['image_tag'],
                 release=dict((key, value) for key, value in release.items() if key not in ('problems', 'record')),
                 configs=configured, balancer=front, var_names=var_names,
                 steps=upgrade_steps(planned['plan'], frontends(front), None),
                 containers={} if install else containers(request, planned['plan'], configured),
                 install=install or {'method': 'image'}, services=served)


def containers(request, instances, configured, found=None, paths=None, image=None):
    """{instance name: its container_run variables} (serve/_serve.container_plan: no image, secrets as markers),
    with what the node read found (``found``: its containers, ``paths``: its paths, ``image``: the own configuration
    of the image the deploy runs) -- the container, the one kept for it, the model cache directory and the image --
    or null for each when the node was not read (container_run looks)."""
    host = host_values(request)
    cache_dir = host['model_cache_dir']
    cache_exists = None if paths is None or cache_dir not in paths else bool((paths[cache_dir] or {}).get('exists'))
    out = {}
    for entry in instances:
        if isinstance(configured.get(entry['name']), dict):
            name = entry['container_name']
            out[entry['name']] = dict(container_plan(entry, configured[entry['name']], host),
                                      container_run_existing=None if found is None else found.get(name),
                                      container_run_existing_previous=None if found is None else found.get(name + '-previous'),
                                      container_run_cache_dir_exists=cache_exists, container_run_image_config=image)
    return out


def frontends(front):
    """The balancer's frontends, whose servers a rolling upgrade drains ([] when the host runs none)."""
    return list(front.get('frontends') or []) if front.get('enabled') else []
