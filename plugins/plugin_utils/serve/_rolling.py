# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Rolling upgrade: the order of the instances, the balancer drain and the outcome.

Pure functions.  The roles do the work: vllm_serve replaces one running instance at a
time (container_run keeps the previous container and restores it when the new one
fails), the module ascend.vllm.balancer_server drains the instance from the host's
HAProxy through its admin socket first and puts it back afterwards (module_utils/serve/_haproxy.py).
"""

from typing import Any, Dict, List, Optional

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._container_spec import SPEC_LABEL, spec_digest
from ansible_collections.ascend.vllm.plugins.module_utils.serve._keep import previous_name
from ansible_collections.ascend.vllm.plugins.module_utils.serve._words import words
from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._keep import container_state
from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._serve import (
    RUN_SETTINGS, container_run_vars, instance_container)


def expected_containers(plan: List[Dict[str, Any]], run: Dict[str, Any], variables: Any,
                        defaults: Optional[Dict[str, Any]]) -> Dict[str, Dict[str, Any]]:
    """{instance name: {digest, image_id}} of the containers the plan asks for; {} when they cannot be known.

    ``run``: configs, host, settings, image_ids, image_current (plan/_node.py builds it);
    ``defaults``: container_run's defaults, for the settings vllm_serve does not pass (None: unknown).
    """
    image_id = (run.get('image_ids') or {}).get((run.get('host') or {}).get('image'))
    if not run.get('image_current') or not image_id or defaults is None:
        return {}
    given = run.get('settings') or {}
    settings = dict((name, defaults.get(name) if given.get(name) is None else given[name]) for name in RUN_SETTINGS)
    out = {}
    for entry in plan:
        config = (run.get('configs') or {}).get(entry['name'])
        if not isinstance(config, dict) or not config.get('ok', True) or not config.get('profile'):
            continue
        inputs = container_run_vars(entry, config, instance_container(entry, config, variables), run['host'])
        inputs.update(settings)
        out[entry['name']] = {'digest': spec_digest(inputs['container_run_profile'], inputs), 'image_id': image_id}
    return out


def unchanged(containers: Dict[str, Any], name: str, expected: Any) -> bool:
    """Whether the container ``name`` already is what the plan asks for: it serves, carries the
    digest label of the same spec (``_container_spec.spec_digest``), runs the image the
    reference names on the node now, and no replacement was left half-done (no kept
    ``<name>-previous``). ``expected``: {digest, image_id}, None when unknown (never unchanged)."""
    if not isinstance(expected, dict) or not expected.get('digest') or not expected.get('image_id'):
        return False
    found = containers.get(name) or {}
    kept = containers.get(previous_name(name)) or {}
    return ((found.get('labels') or {}).get(SPEC_LABEL) == expected['digest']
            and found.get('image_id') == expected['image_id'] and not kept.get('exists'))


def upgrade_steps(plan: List[Dict[str, Any]], frontends: Any = None, containers: Any = None,
                  expected: Any = None) -> Dict[str, List[Dict[str, Any]]]:
    """Which instances roll one at a time, which start together, and which are already as planned.

    ``roll``: instances whose container serves now (a changed spec replaces it), in the
    order of the instance list, each with the balancer backend and server that carry it
    (``backend``/``server`` None when no frontend of the balancer plan does) and the other
    instances of that frontend (``peers``).  ``fresh``: instances with no serving
    container (first deploy, stopped, crash-looping): nothing serves on them to protect,
    so they are created together and then waited for, as a first deploy does.
    ``containers`` is npu_check's view of the node (None when preflight did not read it:
    every instance then rolls, which is the safe order).  ``same``: serving instances whose
    container is exactly what the plan asks for (``unchanged``, ``expected`` by instance
    name): nothing to replace, the readiness check and the smoke tests still follow.
    """
    where = {}
    for frontend in frontends or []:
        names = [server['instance'] for server in frontend.get('servers') or []]
        for server in frontend.get('servers') or []:
            where[server['instance']] = {'backend': frontend['name'], 'server': server['name'],
                                         'peers': [name for name in names if name != server['instance']]}
    out = {'roll': [], 'fresh': [], 'same': []}
    for entry in plan:
        # npu_check's view of the container; a node not read leaves every instance to roll.
        state = container_state(containers.get(entry['container_name']) if isinstance(containers, dict) else None)
        serving = state['running'] and not state['restarting']
        if isinstance(containers, dict) and not serving:
            out['fresh'].append(entry)
            continue
        if serving and unchanged(containers, entry['container_name'], (expected or {}).get(entry['name'])):
            out['same'].append(entry)
            continue
        out['roll'].append(dict(entry, rolling=dict({'backend': None, 'server': None, 'peers': []},
                                                    **where.get(entry['name'], {}))))
    return out


def upgrade_outcome(status: Any, drained: Any, seconds: Any = None, restored: Any = None, host: str = '',
                    left: Any = (), check_mode: bool = False, name: str = '', error: str = '',
                    service: bool = False) -> Dict[str, Any]:
    """What the rolling step does after one instance was replaced and checked.

    ``status``: vllm_serve_status of the instance (state ready/failed, error);
    ``drained``: the balancer_server result of the drain (``drain`` true when it drained);
    ``seconds``: wall-clock seconds from the replacement's start to readiness (controller
    clock); ``restored``: vllm_ready's result for the restored previous container, if any;
    ``left``: the instances of this host not rolled yet. In ``check_mode`` nothing was
    replaced, so nothing failed and nothing is rolled back: the outcome says what would happen
    to the instance ``name``. ``error``: why the replacement failed before it could be checked
    (the failed task's message, e.g. the Engine refusing to start the container), reported as
    the cause when the instance has no status yet.

    Returns ``put_back`` (set the server ready again in the balancer: it was drained and
    the instance serves, new or restored), ``failed``, ``gap`` (seconds without service on
    a host that could not drain) and ``msg``.
    """
    status = status if isinstance(status, dict) else {}
    if check_mode:
        return {'put_back': False, 'failed': False, 'gap': None,
                'msg': '%s on %s would be replaced and checked, one instance at a time (check mode: nothing changed)'
                       % (status.get('container') or name or '?', host)}
    untouched = 'Not upgraded (untouched): %s and the hosts after %s.' % (
        ', '.join(left) or 'no other instance of this host', host)
    if not status and error:
        return {'put_back': False, 'failed': True, 'gap': None,
                'msg': 'Rolling upgrade stopped at %s on %s: %s. %s' % (
                    name or '?', host, str(error).rstrip('.'), untouched)}
    was_drained = bool(isinstance(drained, dict) and drained.get('drain'))
    ok = status.get('state') == 'ready'
    restored_ok = isinstance(restored, dict) and restored.get('state') == 'ready'
    name = status.get('container', '?')
    out = {'put_back': was_drained and (ok or restored_ok), 'failed': not ok, 'gap': None, 'msg': ''}
    if ok and not was_drained and seconds is not None:
        why = drained.get('why', 'the instance is not behind a balancer') if isinstance(drained, dict) else ''
        out['gap'] = gap = round(float(seconds), 1)
        out['msg'] = ('%s on %s cannot be upgraded without downtime (%s): it did not serve for up to %.1f s while '
                      'it was replaced; run two instances of the model behind the balancer to avoid that'
                      % (name, host, why, gap))
    elif ok:
        out['msg'] = '%s on %s upgraded; back in the balancer' % (name, host) if was_drained else ''
    else:
        # ``service``: a systemd service, not a container (serve/_words.py).
        what = words(service)['served_by']
        back = ('the previous %s serves again%s' % (what, ' and is back in the balancer' if was_drained else '')
                if restored_ok else 'the previous %s could not be brought back' % what if restored else
                'there was no previous %s to go back to' % what)
        out['msg'] = 'Rolling upgrade stopped at %s on %s: %s. Rolled back: %s. %s' % (
            name, host, status.get('error', 'it did not become ready'), back, untouched)
    return out
