# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""image_pull_wait with progress lines: the module runs on the node, this loop on the controller
(plugin_utils/_follow.py).

The documentation is the module's (plugins/modules/image_pull_wait.py).  Each run of the module returns
after at most ``report_after`` seconds with what the Docker Engine said about the pull (or the load).
"""

from __future__ import annotations

from ansible_collections.ascend.vllm.plugins.module_utils._text import seconds_text
from ansible_collections.ascend.vllm.plugins.plugin_utils.report._progress import load_line, pull_line
from ansible_collections.ascend.vllm.plugins.plugin_utils._follow import FollowAction


class ActionModule(FollowAction):
    """Wait for a background pull or load, printing progress."""

    MODULE = 'ascend.vllm.image_pull_wait'

    def line(self, host, args, progress, elapsed, timeout):
        archive = args.get('archive')
        return (load_line if archive else pull_line)(host, str(archive or args.get('name')), progress, elapsed,
                                                     timeout)

    def outcome(self, result, seconds, args, timeout):
        result = dict(result, seconds=seconds)
        if not result.get('finished') and not result.get('failed'):
            archive = args.get('archive')
            result.update(failed=True, msg=args.get('msg') or 'the %s of %s did not end within the timeout (%s s)' % (
                'load' if archive else 'pull', archive or args.get('name'), seconds_text(timeout)))
        return result
