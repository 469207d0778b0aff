# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""job_wait with progress lines: the module runs on the node, this loop on the controller (plugin_utils/_follow.py).

Each module run returns after at most ``report_after`` seconds with the newest line of the job's log; this loop prints
one line per run (``_progress.job_line``) and returns the job's own result once it has ended, with ``changed``, ``rc``,
``stdout`` ... of that result at the top, so a task registers it as it would the job's module.
"""

from __future__ import annotations

from ansible_collections.ascend.vllm.plugins.module_utils._text import seconds_text
from ansible_collections.ascend.vllm.plugins.plugin_utils.report._progress import job_line
from ansible_collections.ascend.vllm.plugins.plugin_utils._follow import FollowAction


class ActionModule(FollowAction):
    """Wait for a background job, printing the newest line of its log."""

    MODULE = 'ascend.vllm.job_wait'

    def line(self, host, args, progress, elapsed, timeout):
        return job_line(host, str(args.get('what') or 'running'), progress, elapsed, timeout)

    def outcome(self, result, seconds, args, timeout):
        if result.get('failed'):
            return dict(result, seconds=seconds)
        if not result.get('finished'):
            return {'failed': True, 'changed': False, 'seconds': seconds, 'msg': '%s did not end within the timeout (%s s)'
                    % (args.get('what') or 'running', seconds_text(timeout))}
        answer = dict(result.get('answer') or {})
        # The job's own result, as its module would have returned it.
        for key in ('started', 'finished', 'ansible_job_id', 'results_file'):
            answer.pop(key, None)
        return dict(answer, changed=bool(answer.get('changed')), failed=bool(answer.get('failed')), answer=answer,
                    seconds=seconds)
