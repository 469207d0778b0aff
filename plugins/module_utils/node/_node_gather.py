# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Everything the node preflight reads, gathered in one module run (ascend.vllm.node_facts).

``gather_node`` asks each source in turn and never raises for what the node lacks:
a missing npu-smi, an engine that does not answer or a path that is not there are
facts for the controller to judge (plugin_utils/judge/_node_problems.py).
"""

from __future__ import annotations

import contextlib

from ansible_collections.ascend.vllm.plugins.module_utils.node import _node_docker, _node_probe, _node_registry, _node_source
from ansible_collections.ascend.vllm.plugins.module_utils.node._node_npu import NpuSmiError, npu_facts_from, read_npu, run_npu_smi

SUBSETS = ('paths', 'npu', 'docker', 'ports', 'disk', 'memory', 'addresses', 'units', 'system')
DEFAULT_DOCKER_ROOT = '/var/lib/docker'


def _npu(params, run_command, search_path, warn):
    """(facts, error, facts of the npu-smi found elsewhere) for the npu-smi asked for."""
    try:
        return read_npu(run_command, params['npu_smi_path'] or None, search_path,
                        params['driver_version_file'], warn, boards=True), None, None
    except NpuSmiError as exc:
        error = dict(exc.details, msg=exc.msg)
    if error.get('found'):
        # npu-smi elsewhere than the profile says often means the wrong platform:
        # its chips tell the controller which one this node is.
        with contextlib.suppress(NpuSmiError):
            return None, error, npu_facts_from(run_npu_smi(run_command, error['found']), error['found'],
                                               params['driver_version_file'], warn)
    return None, error, None


def gather_node(params, run_command, search_path, warn, docker_api=None, proc='/proc', probe=None):
    """The node facts for the module parameters ``params`` (see plugins/modules/node_facts.py)."""
    subsets = set(params.get('gather') or SUBSETS)
    readers = (
        ('paths', lambda: dict((path, _node_probe.stat_path(path)) for path in params.get('paths') or [])),
        ('memory', lambda: _node_probe.memory(proc=proc)),
        ('addresses', lambda: _node_probe.addresses(proc=proc)),
        # Every systemd unit of ours, whatever the install method: the plan's desired state names which stay.
        ('units', lambda: _node_source.managed_units(run_command)),
        ('system', _node_probe.system),
        ('manifests', lambda: dict((ref, _node_registry.tag_digest(ref, params.get('registry_timeout', 10)))
                                   for ref in params.get('manifests') or [])))
    out = dict((subset, read()) for subset, read in readers if subset in subsets)
    if 'npu' in subsets:
        out['npu'], out['npu_error'], out['npu_found'] = _npu(params, run_command, search_path, warn)
    engine = None
    if 'docker' in subsets or 'disk' in subsets:
        api = docker_api or _node_docker.DockerApi(_node_docker.engine_host(params.get('docker_host')), params.get('docker_timeout', 10))
        engine = _node_docker.engine_facts(api, params.get('containers') or [], params.get('images') or [])
    if 'docker' in subsets:
        out['containers'], out['docker'] = engine.pop('inspected'), engine
    if 'ports' in subsets:
        found = _node_probe.listeners(params.get('ports') or [], proc=proc, probe=probe or (
            lambda port: _node_probe.connect_probe(port, params.get('probe_timeout', 1.0))))
        out['listeners'] = dict((str(port), value) for port, value in found.items())
    if 'disk' in subsets:
        out['disk'] = _node_probe.disk(engine.get('root_dir') or DEFAULT_DOCKER_ROOT, proc=proc)
    return out
