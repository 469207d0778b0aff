# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""job_wait with progress lines: the module runs on the node, this loop on the controller.

Each module run returns after at most ``report_after`` seconds with the newest line of the job's log; this loop prints
one line per run (``_progress.job_line``) and returns the job's own result once it has ended, with ``changed``, ``rc``,
``stdout`` ... of that result at the top, so a task registers it as it would the job's module.
"""

from __future__ import annotations

import time

from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

from ansible_collections.ascend.vllm.plugins.module_utils._text import seconds_text
from ansible_collections.ascend.vllm.plugins.plugin_utils.report._progress import job_line, wait_options, wait_pull

display = Display()


class ActionModule(ActionBase):
    """Wait for a background job in module runs of at most ``report_after`` seconds, printing progress."""

    _supports_check_mode = True
    _supports_async = False

    def run(self, tmp=None, task_vars=None):
        super(ActionModule, self).run(tmp, task_vars)
        task_vars = task_vars or {}
        args = dict(self._task.args)
        host = task_vars.get('inventory_hostname', '?')
        numbers, refused = wait_options(args)
        if refused:
            return refused
        what = str(args.get('what') or 'running')

        def call(seconds):
            return self._execute_module(module_name='ascend.vllm.job_wait', task_vars=task_vars,
                                        module_args=dict(args, report_after=seconds))

        def show(result, elapsed):
            display.display(job_line(host, what, result.get('progress'), elapsed, numbers['timeout']), stderr=True)

        start = time.monotonic()
        try:
            result = wait_pull(call, show, time.monotonic, numbers['timeout'], numbers['report_after'])
        finally:
            self._remove_tmp_path(self._connection._shell.tmpdir)
        seconds = round(time.monotonic() - start, 3)
        if result.get('failed'):
            return dict(result, seconds=seconds)
        if not result.get('finished'):
            return {'failed': True, 'changed': False, 'seconds': seconds,
                    'msg': '%s did not end within the timeout (%s s)' % (what, seconds_text(numbers['timeout']))}
        answer = dict(result.get('answer') or {})
        # The job's own result, as its module would have returned it.
        answer.pop('started', None)
        answer.pop('finished', None)
        answer.pop('ansible_job_id', None)
        answer.pop('results_file', None)
        return dict(answer, changed=bool(answer.get('changed')), failed=bool(answer.get('failed')), answer=answer,
                    seconds=seconds)
