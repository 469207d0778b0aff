# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""vllm_ready with progress lines: the module runs on the node, this loop on the controller.

The documentation is the module's (plugins/modules/vllm_ready.py).  With
``report_after`` the module returns ``state=waiting`` every so many seconds while
a model loads; this action prints one line then (the time since the container's
start, the time left, the newest log line) through Ansible's display, which the
worker hands to the terminal at every verbosity, and runs the module again.  The
task sees one result, the outcome: no ``until`` loop, no "FAILED - RETRYING".

The action also says, on the controller, what the outcome means for the run
(plugin_utils/serve/_keep.py): the failure's reason and where its log was saved, what
follows for a container kept during a replacement (``kept``: drop it or put it back), and
for a container just put back (``restoring``) the sentence the failure message ends with.
"""

from __future__ import annotations

from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

from ansible.module_utils.parsing.convert_bool import boolean

from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._keep import (
    after_ready, failure_message, ready_notes, ready_outcome, restore_note)
from ansible_collections.ascend.vllm.plugins.module_utils.serve._ready import SMOKE_KEYS
from ansible_collections.ascend.vllm.plugins.plugin_utils.report._progress import ready_line, wait_ready

display = Display()


class ActionModule(ActionBase):
    """Wait for a vLLM container in module runs of at most ``report_after`` seconds, printing progress."""

    def run(self, tmp=None, task_vars=None):
        super().run(tmp, task_vars)
        args = dict(self._task.args)
        # The plan's smoke settings of the instance, one dict (module_utils/serve/_ready.SMOKE_KEYS): the task's
        # own options win.
        smoke = args.pop('smoke', None) or {}
        if not isinstance(smoke, dict) or set(smoke) - set(SMOKE_KEYS):
            return {'failed': True, 'msg': 'smoke must be a dict of %s, got %r' % (', '.join(SMOKE_KEYS), smoke)}
        args = dict(smoke, **args)
        kept = str(args.pop('kept', '') or '')
        instance = str(args.pop('instance', '') or '')
        restoring = boolean(args.pop('restoring', False) or False, strict=False)
        not_started = boolean(args.pop('not_started', False) or False, strict=False)
        host = task_vars.get('inventory_hostname', '?')
        if not_started and self._task.check_mode:
            # Check mode did not create or change the container: there is nothing of this run to watch.
            return {'changed': False, 'state': 'not_started', 'task': '', 'error': '', 'reason': '', 'log_note': '',
                    'after': 'none', 'log_tail': [], 'completion': '', 'chat': '', 'models': [],
                    'served_model_name': args.get('served_model_name') or '',
                    'outcome': dict(ready_outcome('not_started', True, 'none'), message='')}

        def call(waited):
            return self._execute_module(module_name='ascend.vllm.vllm_ready', task_vars=task_vars,
                                        module_args=dict(args, waited=waited) if waited else args)

        def show(result):
            display.display(ready_line(host, str(args.get('name')), result.get('waited') or 0,
                                       _number(args.get('timeout'), 1800), result.get('log_tail'),
                                       hide_log=bool(self._task.no_log)), stderr=True)

        every = _number(args.get('report_after'), 0)
        result = call(0) if every <= 0 else wait_ready(call, show, _number(args.get('timeout'), 1800), every)
        # Every outcome carries the same keys, a failure before the watch (a bad option) too.
        for key, empty in (('state', 'error'), ('task', ''), ('error', result.get('msg') or ''), ('log_tail', []),
                           ('completion', ''), ('chat', ''), ('models', [])):
            result.setdefault(key, empty)
        result.update(ready_notes(result, host))
        result['after'] = after_ready(kept, result.get('state') != 'ready', self._task.check_mode)
        # What the outcome means for the run (plugin_utils/serve/_keep.py), so the role's tasks only act on it.
        service = boolean(args.get('service', False) or False, strict=False)
        result['outcome'] = ready_outcome(result['state'], self._task.check_mode, result['after'])
        result['outcome']['message'] = failure_message(
            dict(result, name=args.get('name'), url=args.get('url')), instance or str(args.get('name') or ''), host,
            service, args.get('log_lines', 50)) if result['outcome']['failed'] else ''
        if restoring:
            result['restore_note'] = restore_note('restore', result, service)
        return result


def _number(value, default):
    """A numeric option as the module will read it; the module reports a bad value itself."""
    try:
        return float(value if value not in (None, '') else default)
    except (TypeError, ValueError):
        return float(default)
