# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Rules and memory planner for ``vllm serve`` on Atlas 310P devices.

``plan(request)`` checks a deployment request against the deployment guide
(vllm-ascend docs, "Qwen3.5-Dense" tutorial: section 4.1 for the images and
containers, section 5.1 for the ``vllm serve`` command) and vLLM / vllm-ascend
behaviour, and returns the exact ``vllm serve`` argv, its environment and a
memory plan.  It never raises on bad user input: every broken rule becomes one
entry in ``violations`` ({variable, value, rule, fix}), all reported at once,
so the caller can stop a whole fleet before anything is pulled or started.

This module is the public face of the planner; the work is done in private
modules by concern: ``_coerce`` (user values), ``_capture`` (graph sizes),
``_memory`` (the cache layout and memory fit), ``_image_tags``, ``_cli_args``
(managed flags, argv) and ``_rules`` (one function per rule).

All functions are pure and Python 3.8 compatible (they run on targets).
"""

from __future__ import annotations

import json
from typing import Any, Dict, List

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._cli_args import serve_command
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._rules import RULES, Context
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.vllm_options import defaults as _option_defaults

# The vllm_config options and what plan() assumes when one is not given; None
# means "not set" (the model's guide_defaults, the profile or another option
# decides).  Declared once, in vllm_options.OPTIONS.
DEFAULTS: Dict[str, Any] = _option_defaults()


def plan(request: Dict[str, Any]) -> Dict[str, Any]:
    """Check a request (the ``vllm_config`` module options) and build the serve command.

    Returns a dict with argv, command, env, api_key_env, settings,
    cudagraph_capture_sizes, memory, warnings, violations, profile, model and
    image.  argv/command/env are None when there are violations.
    Unknown request keys raise ``ValueError`` (a caller bug, not user input).
    """
    unknown = sorted(set(request) - set(DEFAULTS))
    if unknown:
        raise ValueError('unknown plan() option(s): %s' % ', '.join(unknown))
    req = _option_defaults()
    req.update(dict((key, value) for key, value in request.items() if value is not None))
    ctx = Context(req)
    for rule in RULES:
        rule(ctx)
    if not ctx.violations:
        ctx.result.update(serve_command(ctx))
    return ctx.result


def _show(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def summary(violations: List[Dict[str, Any]]) -> str:
    """One line: "N configuration problem(s): var=value: rule; ..."."""
    return '%d configuration problem(s): %s' % (
        len(violations),
        '; '.join('%s=%s: %s' % (item['variable'], _show(item['value']), item['rule']) for item in violations))


def task_result(result: Dict[str, Any]) -> Dict[str, Any]:
    """What vllm_config returns for a plan() result (the action plugin, and the host plan for each instance).

    argv, command, env, api_key_env and settings only when there are no
    violations; with violations it fails with ``summary(violations)`` as the
    message.  The planner's warnings are the task's warnings and ``config_warnings``.
    """
    shown = ('cudagraph_capture_sizes', 'memory', 'violations', 'profile', 'model', 'image')
    if not result['violations']:
        shown += ('argv', 'command', 'env', 'api_key_env', 'settings')
    out = dict(((key, result[key]) for key in shown), changed=False, config_warnings=result['warnings'])
    if result['violations']:
        out.update(failed=True, msg=summary(result['violations']))
    if result['warnings']:
        out['warnings'] = list(result['warnings'])
    return out


def config_result(params: Dict[str, Any]) -> Dict[str, Any]:
    """``task_result`` of the plan for validated ``params``, or a failure saying why there is none."""
    try:
        return task_result(plan(dict(params)))
    except ValueError as exc:
        return {'failed': True, 'changed': False, 'msg': 'vllm_config could not plan: %s' % exc}
