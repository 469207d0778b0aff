# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Keep the last good container while its replacement starts: the pure decisions (the kept name and what the
node reads of kept containers: module_utils/serve/_keep.py).

A running container of ours whose spec changed is stopped and renamed to
``<name>-previous`` (container_run) before the new one is created; once the new one
is ready and passed the smoke tests the kept one is removed, and when it is not the
kept one comes back under its name (vllm_serve).  These functions decide, from what
Docker reports, what to keep, whether the change replaces the container and what to
do with a kept container after the readiness check.  The container changes
themselves are made by ascend.vllm.container_ensure (community.docker.docker_container
and ascend.vllm.container_rename) and the vllm_serve role.
"""

from __future__ import annotations

from typing import Any, Dict, Optional

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._boolean import is_true
from ansible_collections.ascend.vllm.plugins.module_utils._labels import INSTANCE_LABEL, MANAGED_LABEL, MANAGED_VALUE
from ansible_collections.ascend.vllm.plugins.module_utils.serve._words import words


def container_state(found: Any) -> Dict[str, Any]:
    """{exists, running, restarting, ours} from either shape Docker's state reaches us in.

    ``found`` is npu_check's view of a container (``{exists, running, restarting,
    labels}``, node_facts) or a community.docker.docker_container_info result
    (``{exists, container: <docker inspect>}``); anything else is "no container".
    """
    if not isinstance(found, dict) or not found.get('exists'):
        return {'exists': False, 'running': False, 'restarting': False, 'ours': False, 'instance': None}
    if isinstance(found.get('container'), dict):
        # docker inspect's shape, read as npu_check's.
        state = found['container'].get('State') or {}
        found = {'labels': (found['container'].get('Config') or {}).get('Labels'), 'running': state.get('Running'),
                 'restarting': state.get('Restarting')}
    labels = found.get('labels') or {}
    return {'exists': True, 'running': bool(found.get('running')), 'restarting': bool(found.get('restarting')),
            'ours': labels.get(MANAGED_LABEL) == MANAGED_VALUE, 'instance': labels.get(INSTANCE_LABEL)}


def replaces(probe: Any) -> bool:
    """Whether a check-mode run of community.docker.docker_container would re-create the container.

    Its ``actions`` list a ``created`` entry exactly when the container would be
    (re-)created; an in-place update (``updated``, e.g. the restart policy) or a
    start keeps the container and needs nothing kept.
    """
    if not isinstance(probe, dict) or probe.get('skipped') or probe.get('failed'):
        return False
    return any(isinstance(action, dict) and 'created' in action for action in probe.get('actions') or [])


def keep_plan(existing: Any, previous: Any, enabled: bool = True, probe: Any = None,
              instance: Optional[str] = None) -> Dict[str, Any]:
    """What container_run does before it creates or updates the container.

    - ``leftover``: a stopped ``<name>-previous`` of ours is on the node (a run was
      interrupted after keeping it): it stays the container to come back to, and the
      current one is not kept on top of it (it never passed the checks of a run).
    - ``probe``: the current container is ours and serving (running, not in Docker's
      restart back-off): ask docker_container in check mode whether it would replace it.
    - ``keep``: the probe says it would: stop it and rename it to ``<name>-previous``.
    - ``kept``: this run has a container to come back to (leftover or kept now).
    - ``unchanged``: the probe found nothing to do at all (not even a start or an
      in-place update), so the real call is skipped: a re-run costs one call, not two.
    - ``why``: one line for the log.

    ``probe`` is the registered check-mode result (None before it ran).  A container
    that is not running, crash-loops, or is not ours (another user's) is not kept;
    neither is anything when ``enabled`` is false.  With ``instance``, a
    ``<name>-previous`` labelled for another instance (another instance's container
    whose name happens to end so) is not this instance's and blocks keeping too. ``enabled`` is read
    as Ansible's ``| bool`` reads it (``'no'`` is false).
    """
    current, kept = container_state(existing), container_state(previous)
    plan = {'leftover': False, 'probe': False, 'keep': False, 'kept': False, 'unchanged': False}
    if not is_true(enabled):
        return dict(plan, why='keeping the previous container is turned off')
    if kept['exists'] and not kept['ours']:
        return dict(plan, why='a container of the kept name was not created by ascend.vllm; nothing is kept')
    if kept['exists'] and instance and kept['instance'] != instance:
        return dict(plan, why='a container of the kept name belongs to instance %s; nothing is kept' % kept['instance'])
    if kept['exists']:
        return dict(plan, leftover=True, kept=True,
                    why='a container kept by an interrupted run is the one to come back to')
    if not current['exists']:
        return dict(plan, why='no container yet (first deploy)')
    if not current['ours']:
        return dict(plan, why='the container was not created by ascend.vllm; nothing is kept')
    if not current['running'] or current['restarting']:
        return dict(plan, why='the container is not serving; nothing is kept')
    plan['probe'] = True
    if probe is None:
        return dict(plan, why='the container serves; ask whether the new spec replaces it')
    if not replaces(probe):
        # The probe found nothing at all to do: the real call would not either.
        plan['unchanged'] = not probe.get('changed') and not probe.get('skipped') and not probe.get('failed')
        return dict(plan, why='the spec is unchanged (or changes in place); nothing is kept')
    return dict(plan, keep=True, kept=True, why='the spec changed; the serving container is kept stopped')


def after_ready(previous: Optional[str], failed: Any, check_mode: Any = False) -> str:
    """What vllm_serve does with a kept container once the new one was checked.

    ``restore`` (the new one failed: put the kept one back), ``drop`` (the new one
    serves: remove the kept one) or ``none`` (nothing kept, or check mode).
    """
    if not previous or is_true(check_mode):
        return 'none'
    return 'restore' if is_true(failed) else 'drop'


def restore_note(after: str, restored: Any = None, service: bool = False) -> str:
    """The sentence the failure message ends with when the kept container was put back.

    ``after`` is after_ready's answer, ``restored`` the vllm_ready result of the restored
    container (previous.yml).  Empty when nothing was restored. ``service``: the instance is a
    systemd service (serve/_words.py).
    """
    if after != 'restore':
        return ''
    said = words(service)
    restored = restored if isinstance(restored, dict) else {}
    if restored.get('state') == 'ready':
        return (' It was removed and the previous %s was restored: it serves again (%s as before this run); fix '
                'the change and run again.' % (said['served_by'], said['same']))
    note = (' It was removed and the previous %s was restored, but does not serve either: %s.'
            % (said['served_by'], restored.get('error') or restored.get('msg') or 'it was not checked'))
    if restored.get('state') == 'crashed':
        note += ' %s.' % said['kept']
    return note


# What vllm_ready may answer in check mode for an instance this run would create, change or start: it does not
# run yet (or is the old one), so there is nothing meaningful to test.
STATES_NOT_THERE = ('not_started', 'absent', 'not_running')


def ready_outcome(state: str, check_mode: Any, after: str) -> Dict[str, bool]:
    """What the readiness check of one instance means for the run, from vllm_ready's ``state`` and ``after``:

    ``skip`` (check mode, nothing of this run to test), ``failed`` (anything but ``ready`` otherwise), and
    ``crashed``: a vLLM that crashed while starting is stopped, or Docker's (systemd's) restart policy starts it
    again and again, reloading the weights and holding the chip each time -- unless the kept container is put
    back instead (``after`` restore), or in check mode. A container still loading, or serving but failing a
    check, stays."""
    check = is_true(check_mode)
    skip = check and state in STATES_NOT_THERE
    failed = not skip and state != 'ready'
    return {'skip': skip, 'failed': failed, 'crashed': failed and state == 'crashed' and not check and after != 'restore'}


def failure_message(result: Dict[str, Any], instance: str, host: str, service: bool, log_lines: Any) -> str:
    """The readiness failure's message, up to the restore note that previous.yml's restore adds: which instance,
    which check, why, what became of it, and where its log is."""
    said = words(service)
    restore = result.get('after') == 'restore'
    crashed = (result.get('outcome') or {}).get('crashed')
    stopped = ('The service is stopped; the journal keeps its log; the next run starts it again. ' if service else
               'The container is stopped and kept with its logs; the next run starts it again. ') if crashed else ''
    return ('Instance %s (%s, %s) on %s %s. %s: %s. %sThe %s%s\'s last %s log lines are shown above.%s' % (
        instance, result.get('name') or '', result.get('url') or '', host,
        'did not take the change' if restore else 'is not serving', result.get('task') or 'Watch the container',
        result.get('reason') or '', stopped, 'changed ' if restore else '', 'service' if service else said['it'],
        log_lines, result.get('log_note') or ''))


def ready_notes(result: Dict[str, Any], host: str) -> Dict[str, str]:
    """``reason`` and ``log_note`` of a vllm_ready result: why it failed (with a hint on a timeout and the cause the
    log names) and where the failed container's whole log was saved; both empty when it serves."""
    state = result.get('state') or ''
    if state == 'ready':
        return {'reason': '', 'log_note': ''}
    reason = str(result.get('error') or result.get('msg') or 'failed')
    if state in ('timeout', 'waiting'):
        reason += ' (raise vllm_serve_ready_timeout for slow first downloads)'
    if result.get('cause'):
        reason += '; cause in the log: %s' % result['cause']
    note = ''
    if result.get('log_file'):
        note = ' Its whole log is saved on %s at %s.' % (host, result['log_file'])
    elif result.get('log_file_error'):
        note = ' (Its whole log could not be saved: %s.)' % result['log_file_error']
    return {'reason': reason, 'log_note': note}
