# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""image_pull_wait with progress lines: the module runs on the node, this loop on the controller.

The documentation is the module's (plugins/modules/image_pull_wait.py).  Each run
of the module returns after at most ``report_after`` seconds with what the Docker
Engine said about the pull; this action prints one line then through Ansible's
display (which the worker hands to the terminal at every verbosity) and runs it
again, until the background job has ended or ``timeout`` has passed.  The task
sees one result: no ``until`` loop, no "FAILED - RETRYING".
"""

from __future__ import annotations

import time

from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

from ansible_collections.ascend.vllm.plugins.module_utils._text import seconds_text
from ansible_collections.ascend.vllm.plugins.plugin_utils.report._progress import load_line, pull_line, wait_options, wait_pull

display = Display()


class ActionModule(ActionBase):
    """Wait for a background pull in module runs of at most ``report_after`` seconds, printing progress."""

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
        archive = args.get('archive')
        name = str(archive or args.get('name'))
        line = load_line if archive else pull_line

        def call(seconds):
            return self._execute_module(module_name='ascend.vllm.image_pull_wait', task_vars=task_vars,
                                        module_args=dict(args, report_after=seconds))

        def show(result, elapsed):
            display.display(line(host, name, result.get('progress'), elapsed, numbers['timeout']), stderr=True)

        start = time.monotonic()
        try:
            result = wait_pull(call, show, time.monotonic, numbers['timeout'], numbers['report_after'])
        finally:
            self._remove_tmp_path(self._connection._shell.tmpdir)
        result = dict(result, seconds=round(time.monotonic() - start, 3))
        if not result.get('finished') and not result.get('failed'):
            result.update(failed=True, msg=args.get('msg') or 'the %s of %s did not end within the timeout (%s s)' % (
                'load' if archive else 'pull', name, seconds_text(numbers['timeout'])))
        return result
