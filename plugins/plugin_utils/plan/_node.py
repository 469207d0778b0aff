# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The plan judged against the node: what the one node read found, and every rule again with its figures.

``node_query(request, plan)`` is what the node read (``ascend.vllm.node_facts``) must
look at for this plan; ``node_plan(request, plan, node, ...)`` judges the plan that
``plan._host.host_plan`` built against what it read: the node's problems
(``_node_problems``), which image the host runs and whether it is there, every
``vllm_config`` rule with the chips' real memory, the model directories, the publish
address and the digest pins. Pure; the ``ascend.vllm.host_plan`` action runs it on the
controller.
"""

import json
import re
import shlex

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts import releases
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._image_ref import (
    judge as judge_image, offline_problems, pin_problems, present)
from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._instances import plain
from ansible_collections.ascend.vllm.plugins.module_utils.node._node_gather import SUBSETS as NODE_SUBSETS
from ansible_collections.ascend.vllm.plugins.plugin_utils.judge._node_problems import (
    archive_architecture_problems, archive_architectures, image_architecture_problems, node_query as _node_query,
    node_verdict)
from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._serve import (
    cache_dir_problems, config_problems, missing_model_dirs, model_dirs, model_path_problems,
    publish_address_problems, unwritable_dir)
from ansible_collections.ascend.vllm.plugins.plugin_utils.plan._host import (
    IMAGE_INPUTS, _stop, configs, containers, frontends, host_values, services)
from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._rolling import expected_containers, upgrade_steps
from ansible_collections.ascend.vllm.plugins.module_utils._labels import INSTANCE_LABEL, MANAGED_LABEL, SPEC_LABEL
from ansible_collections.ascend.vllm.plugins.module_utils.serve._keep import previous_name
from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._serve import RUN_SETTINGS
from ansible_collections.ascend.vllm.plugins.module_utils._problem import problem
from ansible_collections.ascend.vllm.plugins.module_utils._unit import digest, env_text
from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._source import (
    SOURCE, configured_profile, installed_ok, preload_paths, source_query)
from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._serve import instance_secrets

PREFIX = 'vllm_serve_'
# The npu_check role variables (npu_check_<name>) the node's judge reads as they are.
NPU_CHECK_VALUES = ('driver_dir', 'driver_version_file', 'driver_min_version', 'npu_smi_path', 'docker_min_version',
                    'disk_min_free_gb', 'rc_memory_margin_mb')


def npu_settings(request, planned):
    """The npu_check settings of the host (its role variables), for this plan: computed once a run (host_plan)
    and handed to node_query and node_plan."""
    configured = planned.get('configs') or {}
    profile = configured_profile(configured) or planned.get('profile') or {}
    cache_dir = request.get(PREFIX + 'model_cache_dir')
    local = model_dirs(planned.get('instances') or [], configured, cache_dir)
    image = planned.get('image') or {}
    return dict(((key, request.get('npu_check_' + key)) for key in NPU_CHECK_VALUES), **{
        'host': request.host,
        'platform': planned.get('platform') or '',
        'profile': profile,
        'profile_given': bool(profile),
        'platform_problems': [],
        # The planned instances as they are (node_problems takes the keys it judges), each with its host memory.
        'instances': [dict(entry, host_memory_mb=((configured.get(entry['name']) or {}).get('memory') or {})
                           .get('usable_mb')) for entry in planned.get('instances') or []],
        'image_tag': planned.get('image_tag') or image.get('image_tag') or '',
        # The release record the image runs under (contracts/releases.py), assumed or its own.
        'release': (planned.get('release') or {}).get('release') or '',
        'mount_sources': bool(request.get('npu_check_mount_sources')),
        'ports': bool(request.get('npu_check_ports')),
        'images': list(image.get('candidates') or []),
        'paths': ([cache_dir] + [item['host'] for item in local]
                  + [re.sub(r'/*$', '/config.json', item['host']) for item in local] + _archive(request)
                  + [entry['path'] for entry in dirs(request, planned)] + _balancer_left(request, planned)[1]),
        # The source install method: its plan, the instances' units, and whether a balancer needs Docker.
        'install': planned.get('install') or {},
        'services': planned.get('services') or {},
        'needs_docker': bool((planned.get('balancer') or {}).get('enabled')),
        'binds': binds(request, planned),
    })


def binds(request, planned):
    """The ports the host's components other than the instances bind on the node, each with the variable that sets
    it and the container of ours that may hold it: the balancer's frontends and its metrics port (HAProxy in the host's
    network). The node read looks at each and the judge refuses one held by anything else."""
    front = planned.get('balancer') or {}
    if not front.get('enabled'):
        return []
    owner = request.get('balancer_container_name')
    ports = [('balancer_port', frontend.get('port')) for frontend in front.get('frontends') or []]
    ports.append(('balancer_metrics_port', request.get('balancer_metrics_port')))
    return [{'port': int(port), 'var': var, 'component': 'the balancer', 'container': owner}
            for var, port in ports if isinstance(port, int) and not isinstance(port, bool)]


def _archive(request):
    """The offline tarball said to be on the node (image_pull_archive_on_node), to look for."""
    archive = request.get('image_pull_archive') or ''
    return [archive] if archive and request.get('image_pull_archive_on_node') else []


def dirs(request, planned):
    """The directories the host's components write on the node (created when missing), each with the variable that
    sets it and what goes there: the tarball's copy (image_pull_archive_dir, when the controller copies one) and the
    balancer's configuration and admin socket. The node read looks at each; dir_problems judges them."""
    out = []
    if request.get('image_pull_archive') and not request.get('image_pull_archive_on_node'):
        out.append(('image_pull_archive_dir', request.get('image_pull_archive_dir') or '', 'the controller copies the image tarball there',
                    ', with room for the tarball'))
    if (planned.get('balancer') or {}).get('enabled'):
        out.append(('balancer_config_dir', request.get('balancer_config_dir'),
                    'the balancer writes its HAProxy configuration there', ''))
        out.append(('balancer_run_dir', request.get('balancer_run_dir'), "HAProxy's admin socket is made there", ''))
    return [{'var': var, 'path': path, 'use': use, 'room': room} for var, path, use, room in out
            if isinstance(path, str) and path.startswith('/')]


def dir_problems(declared, paths):
    """A declared directory must be one root can write on the node, or create."""
    out = []
    for entry in declared:
        why = unwritable_dir(paths.get(entry['path']))
        if why is not None:
            out.append(problem('paths', '%s=%s %s; %s' % (entry['var'], json.dumps(entry['path']), why, entry['use']),
                               'set %s to a directory root can write on the node%s' % (entry['var'], entry['room'])))
    return out


def image_problems(request, planned, paths):
    """The image inputs judged again with the tarball the node has (or lacks)."""
    archive = _archive(request)
    if not archive:
        return list((planned.get('image') or {}).get('problems') or [])
    inputs = dict((name, request.get(name)) for name in IMAGE_INPUTS)
    inputs['image_pull_archive_node_isreg'] = bool((paths.get(archive[0]) or {}).get('isreg'))
    return judge_image(inputs, (planned.get('profile') or {}).get('image_tag_suffix'), lambda _path: False)['problems']


def _balancer_left(request, planned):
    """([container], [directories]) a host without a balancer may still have of an earlier one, to look for
    (the balancer role removes them; a node read that finds none spares it the work)."""
    if (planned.get('balancer') or {}).get('enabled'):
        return [], []
    names = [request.get('balancer_container_name')]
    dirs = [request.get('balancer_config_dir'), request.get('balancer_run_dir')]
    return ([name for name in names if isinstance(name, str) and name],
            [path for path in dirs if isinstance(path, str) and path.startswith('/')])


def balancer_leftovers(request, planned, node):
    """Whether the node read found any of a balancer the plan has no use for (True when it cannot tell)."""
    names, dirs = _balancer_left(request, planned)
    if not (node.get('docker') or {}).get('reachable', True):
        names = []  # no Docker Engine answers (a node of the source install method): no balancer container either
    containers, paths = node.get('containers') or {}, node.get('paths') or {}
    return (any(name not in containers or (containers[name] or {}).get('exists') for name in names)
            or any(path not in paths or (paths[path] or {}).get('exists') for path in dirs))


def node_query(request, planned, settings=None):
    """The node_facts arguments for this plan (paths, npu-smi, driver file, containers, ports; with the source
    install method the install's and the units' facts instead of the instances' containers)."""
    settings = npu_settings(request, planned) if settings is None else settings
    query = _node_query(settings)
    install = planned.get('install') or {}
    if install.get('method') == SOURCE:
        # No instance container; the containers of the other components that bind ports (the balancer) still.
        query['containers'] = [bind['container'] for bind in settings.get('binds') or [] if bind['container']]
        query['source'] = source_query(install, planned.get('services') or {},
                                       preload_paths(configured_profile(planned.get('configs')).get('environment')))
        query['gather'] = ['paths', 'npu', 'docker', 'ports', 'memory', 'addresses', 'units', 'system', 'source']
    else:
        # The image's own environment, which container_ensure builds the containers' on: read here once.
        query['images'] = _image_refs(request, planned)
    query['containers'] = sorted(set(query['containers']) | set(_balancer_left(request, planned)[0]))
    serving = serving_query(request, planned)
    if serving:
        query['serving'] = serving
        query['gather'] = list(query.get('gather') or NODE_SUBSETS) + ['serving']
    return query


def _image_refs(request, planned):
    """The image references the host may run: vllm_serve_image when set, else the plan's candidates."""
    if request.get(PREFIX + 'image'):
        return [request.get(PREFIX + 'image')]
    return list((planned.get('image') or {}).get('candidates') or [])


def _secrets(request):
    """The variables the API key and the environment's secrets are read from (never put in the plan)."""
    return dict((name, request.get(name)) for name in (PREFIX + 'instances', PREFIX + 'api_key', PREFIX + 'env'))


def _image_expected(request, planned, ref, image_ids, image_current):
    """{instance name: {digest, image_id}} of the containers this plan asks for with the image ``ref``."""
    run = {
        'configs': planned.get('configs') or {},
        'host': dict(host_values(request), image=request.get(PREFIX + 'image') or ref),
        'settings': dict((name, request.get(name)) for name in RUN_SETTINGS),
        'image_ids': image_ids,
        'image_current': image_current,
    }
    return expected_containers(planned.get('instances') or [], run, _secrets(request), {})


def _source_expected(request, planned):
    """{instance name: {digest, image_id}} of the units this plan asks for (the digest with the secrets)."""
    expected = {}
    for entry in planned.get('instances') or []:
        service = (planned.get('services') or {}).get(entry['name'])
        if not service:
            continue
        env = dict(service['env'])
        env.update(instance_secrets(entry, (planned.get('configs') or {}).get(entry['name']), _secrets(request))['env'])
        expected[entry['name']] = {'digest': digest(service['unit'], env_text(env), service['launcher_text']),
                                   'image_id': SOURCE}
    return expected


def serving_query(request, planned):
    """node_facts' ``serving``: the instances that may already serve as this plan asks, each with the digests it
    would carry (one per image reference the node may run, worked out before the node is read) and its URL: the read
    asks /health and /v1/models, never an inference request. Asked in the node read's round trip; the answer counts
    only for an instance the node plan leaves as it is (``verified``). None when the deploy pulls or loads anyway (a
    policy of always, a tarball)."""
    source = (planned.get('install') or {}).get('method') == SOURCE
    digests = {name: [value['digest']] for name, value in _source_expected(request, planned).items()} if source else {}
    if not source and request.get('image_pull_policy') == 'not_present' and not request.get('image_pull_archive'):
        for ref in _image_refs(request, planned):
            for name, value in _image_expected(request, planned, ref, {ref: 'planned'}, True).items():
                digests.setdefault(name, []).append(value['digest'])
    configured, secrets = planned.get('configs') or {}, _secrets(request)
    return [{'name': entry['runs_as'], 'service': source, 'digests': sorted(set(digests[entry['name']])),
             'url': entry['url'], 'served_model_name': entry['served_model_name'],
             'api_key': instance_secrets(entry, configured.get(entry['name']) or {}, secrets)['api_key'] or None}
            for entry in planned.get('instances') or [] if digests.get(entry['name'])]


def verified(found, steps):
    """{instance name: its vllm_serve_status entry} of the instances the node read checked (``found``: node_facts'
    ``serving``) that answered every check and that the plan leaves as they are (``steps['same']``): nothing in
    this run changes them, so the deploy's readiness check of them is done."""
    return {entry['name']: {'container': entry['runs_as'], 'model': (entry.get('options') or {}).get('model') or '',
                            'served_model_name': entry['served_model_name'], 'url': entry['url'],
                            'port': entry['port'], 'chips': entry['chips'], 'state': 'ready'}
            for entry in steps.get('same') or [] if ((found or {}).get(entry['runs_as']) or {}).get('state') == 'ready'}


def verified_lines(status):
    """What the deploy's readiness check prints of an instance the node read found serving as planned (a read:
    no inference request; the smoke tests ran when it started, and ascend.vllm.verify runs them again)."""
    return ['%s (%s) serves as planned: /health and /v1/models answered (unchanged, so no smoke test this run; '
            'ascend.vllm.verify sends them)' % (name, state['container']) for name, state in sorted(status.items())]


def unplanned(planned, containers):
    """The running instance containers of ours (the collection's label and an instance label) that no planned
    instance runs as or keeps as ``<name>-previous``: what a run removes, in name order. The load balancer's
    container is the balancer role's (``balancer_leftovers``); a container without our label is never ours."""
    wanted = set(name for entry in planned.get('instances') or []
                 for name in (entry['container_name'], previous_name(entry['container_name'])))
    return sorted(set(c['name'] for c in containers or [] if isinstance(c, dict)
                      and (c.get('labels') or {}).get(MANAGED_LABEL) == 'ascend.vllm'
                      and (c.get('labels') or {}).get(INSTANCE_LABEL) and c.get('name') not in wanted))


def unplanned_units(planned, units):
    """The systemd units of ours (their file's marker line) that the plan does not run: every one with the image
    install method, those of no planned instance with the source method. What a run stops and removes, in name
    order; a unit without our marker is never listed by the read."""
    wanted = set(service['name'] for service in (planned.get('services') or {}).values() if isinstance(service, dict))
    wanted.update(entry.get('runs_as') for entry in planned.get('instances') or [])
    return sorted(name for name in (units or {}) if name not in wanted)


def release_lines(release):
    """The release record the image runs under and, one line each, what is not checked for it."""
    release = release or {}
    if not release.get('release'):
        return []
    state = 'assumed (image_pull_assume_release)' if release.get('assumed') else (
        'complete' if release.get('complete') else 'incomplete')
    head = 'release record %s: %s (docs/versions.md)' % (release['release'], state)
    return [head] + ['  not checked: %s' % line for line in release.get('not_checked') or []]


def node_plan(request, planned, node, drop=None, memory_again=None, registry=None, read_archive=archive_architectures,
              settings=None):
    """The plan with the node's figures, and every problem of the plan and the node at once.

    ``node``: node_facts' answer; ``drop``/``memory_again``: the page-cache drop and the memory
    read after it (RC mode, opt-in); ``registry``: node_facts' ``manifests`` for the digest pins;
    ``read_archive``: the images' architectures of the controller's tarball (image_pull_archive);
    ``settings``: npu_settings' answer when the caller has it.
    """
    node = plain(node or {})
    settings = dict(npu_settings(request, planned) if settings is None else settings,
                    drop=drop or {}, memory_again=memory_again or {})
    removing = unplanned(planned, (node.get('docker') or {}).get('containers'))
    removing_units = unplanned_units(planned, node.get('units'))
    verdict = node_verdict(node, dict(settings, removing=removing, removing_units=removing_units))
    image = planned.get('image') or {}
    pinned = bool(request.get('image_pull_image') or request.get('image_pull_digest'))
    found = present(((node.get('docker') or {}).get('images')), image.get('candidates') or [],
                    request.get('image_pull_repository'), image.get('image_tag'), pinned)
    paths = node.get('paths') or {}
    configured = configs(planned.get('instances') or [], request, planned.get('var_names') or {},
                         planned.get('image_tag'), verdict['result'],
                         releases.get((planned.get('release') or {}).get('release')))
    cache_dir = request.get(PREFIX + 'model_cache_dir')
    local = model_dirs(planned.get('instances') or [], configured, cache_dir)
    inputs = dict((name, request.get(name)) for name in IMAGE_INPUTS)
    source = (planned.get('install') or {}).get('method') == SOURCE
    offline = [] if source else offline_problems(inputs, found,
                                                 request.first_set('image_pull_offline', 'ascend_vllm_offline'))
    problems = (([] if source else image_problems(request, planned, paths))
                + dir_problems(dirs(request, planned), paths)
                + offline + list(verdict['problems'])
                + config_problems(configured)
                + missing_model_dirs(local, paths) + cache_dir_problems(cache_dir, paths)
                + model_path_problems(local, configured, cache_dir, plain(request.get(PREFIX + 'model_roots') or []),
                                      paths)
                + publish_address_problems(request.get(PREFIX + 'publish_address'), node.get('addresses'))
                + pin_problems(image.get('pins') or [], (registry or {}).get('manifests') or {}))
    # What image_pull's main entry point has to do: a pull or load unless the image is there and the policy
    # is not_present; a tarball is always loaded (its content may differ from the image of the same name).
    # With the source install method nothing is pulled: the install is the virtualenv's (deploy checks and installs it).
    needed = not source and (not (found['present'] and request.get('image_pull_policy') == 'not_present')
                             or bool(request.get('image_pull_archive')))
    machine = (node.get('system') or {}).get('machine')
    if not source and not needed:
        # The image the node has is the one its containers will run: it must be built for the node.
        problems += image_architecture_problems((node.get('docker') or {}).get('image_configs'), [found['ref']],
                                                machine)
    archive = request.get('image_pull_archive')
    if not source and archive and not request.get('image_pull_archive_on_node'):
        # The tarball the controller copies and loads: its images must be built for the node too.
        problems += archive_architecture_problems(archive, read_archive(archive), machine)
    out = dict(planned, **_stop(request, problems, configs=configured, stage='node', node=verdict))
    out['image'] = dict(image, ref=found['ref'], present=found['present'], found=found, needed=needed)
    front = planned.get('balancer') or {}
    out['balancer'] = dict(front, leftovers=not front.get('enabled') and balancer_leftovers(request, planned, node))
    if source:
        packages = ((node.get('source') or {}).get('venv') or {}).get('packages') or {}
        out['install'] = dict(planned['install'], present=installed_ok(planned['install'], packages)
                              and not any(name in packages for name in planned['install']['remove']))
        head = install_line(planned['install'], node.get('source') or {})
        out['services'] = services(request, planned.get('instances') or [], configured, planned['install'])
        steps = source_steps(request, out, node.get('source') or {})
    else:
        head = image_line(found, image.get('candidates') or [], request)
        out['containers'] = containers(request, planned.get('instances') or [], configured,
                                       verdict['result'].get('containers') or {}, verdict['result'].get('paths') or {},
                                       _image_config(node, found['ref'], needed))
        steps = node_steps(request, out, verdict['result'], found['ref'], not needed)
    out['steps'] = dict(steps, remove=removing, remove_services=removing_units)
    out['verified'] = verified(node.get('serving'), out['steps'])
    out['lines'] = ([out['node']['summary'], head] + release_lines(planned.get('release'))
                    + command_lines(planned.get('instances') or [], configured) + verified_lines(out['verified']))
    return out


def _image_config(node, ref, needed):
    """The own configuration of image ``ref`` as the read found it, with its reference (``image``), when nothing is
    pulled or loaded before the containers start; else None (container_ensure reads the image it finds then)."""
    found = None if needed else ((node.get('docker') or {}).get('image_configs') or {}).get(ref)
    return dict(found, image=ref) if found else None


def install_line(install, facts):
    """What deploy does about the virtualenv: nothing (the versions are installed) or an install from the wheelhouse."""
    versions = 'vLLM %s and vllm-ascend %s' % (install['versions']['vllm'], install['versions']['vllm_ascend'])
    if installed_ok(install, (facts.get('venv') or {}).get('packages')):
        return '%s: installed in %s (source install)' % (versions, install['venv'])
    build = install.get('build') or {}
    if build:
        return '%s: built from %s %s and %s %s into %s, dependencies from %s (source install)' % (
            versions, build['vllm']['repo'], build['vllm']['tag'], build['vllm_ascend']['repo'],
            build['vllm_ascend']['tag'], install['venv'],
            'the wheelhouse %s' % install['wheelhouse'] if install['wheelhouse'] else "the node's package index")
    return '%s: installed into %s from the wheelhouse %s (source install)' % (
        versions, install['venv'], install['wheelhouse'])


def source_steps(request, planned, facts):
    """The rolling steps with the units the node read found, in the shape upgrade_steps reads of containers:
    a unit that runs and whose files are what the plan asks for (the digest with the secrets themselves) is
    only checked; one kept from an interrupted replacement (``.previous``) rolls."""
    units = facts.get('units') or {}
    found = {}
    for entry in planned.get('instances') or []:
        unit = units.get(entry['runs_as']) or {}
        if not (planned.get('services') or {}).get(entry['name']):
            continue
        found[entry['container_name']] = {'exists': bool(unit.get('exists')), 'running': bool(unit.get('active')),
                                          'restarting': bool(unit.get('restarting')),
                                          'labels': {SPEC_LABEL: unit.get('digest') or ''}, 'image_id': SOURCE}
        found[entry['container_name'] + '-previous'] = {'exists': bool(unit.get('previous'))}
    expected = _source_expected(request, planned)
    return upgrade_steps(planned.get('instances') or [], frontends(planned.get('balancer') or {}), found, expected)


def node_steps(request, planned, result, ref, image_current):
    """Which instances roll one at a time, start together, or are already as planned (serve/_rolling), with
    the containers the node read found: a container whose digest label and image are what this plan asks
    for is only checked. ``ref``: the image the host runs; ``image_current``: nothing pulls or loads it."""
    instances = planned.get('instances') or []
    expected = _image_expected(request, planned, ref, result.get('image_ids') or {}, image_current)
    return upgrade_steps(instances, frontends(planned.get('balancer') or {}), result.get('containers'), expected)


def image_line(found, candidates, request):
    """What deploy does about the image: nothing (present), a load from the tarball, or a pull."""
    if found.get('present') and request.get('image_pull_policy') == 'not_present':
        return 'image %s: present on the node' % found['ref']
    if request.get('image_pull_archive'):
        return 'image %s: loaded from %s' % (found.get('ref'), request.get('image_pull_archive'))
    if found.get('present'):
        return 'image %s: present, pulled again (image_pull_policy: always)' % found['ref']
    return 'image %s: not on the node, pulled from %s' % (found.get('ref'), ', then '.join(candidates))


def command_line(config):
    """The exact command of one instance's vllm_config result, quoted as a shell would need it."""
    return ' '.join(shlex.quote(str(arg)) for arg in config.get('argv') or [])


def command_lines(plan, configured):
    """One line per instance whose command was built: the model, its chips and port, and the exact command."""
    built = [(entry, configured.get(entry['name']) or {}) for entry in plan]
    return ['%s on chips %s port %s: %s' % ((config.get('settings') or {}).get('model', entry['name']), entry['chips'],
                                            entry['port'], command_line(config)) for entry, config in built if config.get('ok')]
