# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Following a background job on the node from the controller, with progress lines.

A waiting module (image_pull_wait, job_wait) runs on the node for at most ``report_after`` seconds and says
how far the job got; the controller shows one line then through Ansible's display (which the worker hands
to the terminal at every verbosity) and runs it again, until the job has ended or ``timeout`` has passed.
The task sees one result: no ``until`` loop, no "FAILED - RETRYING".
"""

from __future__ import annotations

import time

from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

from ansible_collections.ascend.vllm.plugins.plugin_utils.report._progress import wait_options, wait_pull

display = Display()


def follow(run, line, timeout, every):
    """``run(seconds)`` (one module run, returning within ``seconds``) again and again until it says
    ``finished`` or ``timeout`` seconds have passed (report/_progress.wait_pull), showing
    ``line(progress, elapsed)`` after each run that did not."""
    return wait_pull(run, lambda result, elapsed: display.display(line(result.get('progress'), elapsed), stderr=True),
                     time.monotonic, timeout, every)


class FollowAction(ActionBase):
    """Follow a job through the module ``MODULE`` with the task's arguments; ``line`` is the progress line of
    ``host``, the result is ``outcome``'s."""

    MODULE = ''

    def run(self, tmp=None, task_vars=None):
        super().run(tmp, task_vars)
        task_vars = task_vars or {}
        args = dict(self._task.args)
        host = task_vars.get('inventory_hostname', '?')
        numbers, refused = wait_options(args)
        if refused:
            return refused

        def run_module(seconds):
            return self._execute_module(module_name=self.MODULE, task_vars=task_vars,
                                        module_args=dict(args, report_after=seconds))

        start = time.monotonic()
        try:
            result = follow(run_module, lambda progress, elapsed: self.line(host, args, progress, elapsed,
                                                                            numbers['timeout']),
                            numbers['timeout'], numbers['report_after'])
        finally:
            self._remove_tmp_path(self._connection._shell.tmpdir)
        return self.outcome(result, round(time.monotonic() - start, 3), args, numbers['timeout'])

    def line(self, host, args, progress, elapsed, timeout):
        """The progress line after a run of the module that has not seen the job end."""
        raise NotImplementedError

    def outcome(self, result, seconds, args, timeout):
        """The task's result from the last module run's (``finished`` false at the timeout)."""
        raise NotImplementedError
