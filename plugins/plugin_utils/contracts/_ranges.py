# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The range of every numeric role variable, declared once.

The roles' argument specs say a variable is an ``int`` or a ``float`` (or a list of them); this table says which
numbers make sense (a timeout of 0 s, a port of 70000, a log of -3 lines do not). One generic
check (``range_problem``) judges every entry, in the variables stage of the host plan, before
any host is contacted. A unit test fails when a numeric option of any role's argument spec has
no entry here, so a new variable cannot arrive without its range.

The numeric options of vllm_config (``vllm_serve_<option>``: tensor_parallel_size,
max_num_seqs, gpu_memory_utilization, ...) are not here: their ranges depend on the model and
the platform and are rules of the planner (``contracts/_rules.py``), each quoting the guide.
"""

from __future__ import annotations

import collections
import json
import math
import re

# minimum/maximum: inclusive bounds (None: unbounded); example: a value the fix suggests.
Range = collections.namedtuple('Range', ['minimum', 'maximum', 'example'])

PORT = (1, 65535)

RANGES = {
    # balancer: HAProxy's own ranges (a port, counts and milliseconds of its health check). Its
    # timers stop at 2147483647 ms: `haproxy -c` of HAProxy 2.6 says "timer overflow in argument
    # <2147483648> to <inter> ..., maximum value is 2147483647 ms (~24.8 days)".
    'balancer_port': Range(PORT[0], PORT[1], 8000),
    'balancer_metrics_port': Range(PORT[0], PORT[1], 8404),
    'balancer_health_interval': Range(1, 2147483647, 1000),
    'balancer_health_fall': Range(1, None, 2),
    'balancer_health_rise': Range(1, None, 2),
    # Seconds (timeout client/server ...s): the same timer limit.
    'balancer_timeout': Range(1, 2147483, 600),
    'balancer_ready_timeout': Range(1, None, 120),
    # container_run: Docker's stop timeout (0 kills at once) and json-file's max-file; the chips are
    # device ids (/dev/davinciN), each item of the list judged.
    'container_run_chips': Range(0, None, 0),
    'container_run_port': Range(PORT[0], PORT[1], 8080),
    'container_run_stop_timeout': Range(0, None, 30),
    'container_run_log_max_file': Range(1, None, 3),
    # eval: counts of requests and tokens, seconds, and a tolerance in accuracy points.
    'eval_limit': Range(1, None, 100),
    # Each concurrency level of the sweep (a list: every item judged).
    'eval_concurrency': Range(1, None, 4),
    'eval_tolerance': Range(0, 100, 2.0),
    'eval_max_out_len': Range(1, None, 4096),
    'eval_batch_size': Range(1, None, 16),
    'eval_perf_requests': Range(1, None, 32),
    'eval_perf_input_len': Range(1, None, 128),
    'eval_perf_output_len': Range(1, None, 128),
    'eval_request_timeout': Range(1, None, 600),
    'eval_run_timeout': Range(1, None, 86400),
    'eval_poll_interval': Range(1, None, 30),
    # image_pull: attempts, seconds between them, seconds for one pull, seconds between looks.
    'image_pull_retries': Range(1, None, 3),
    'image_pull_delay': Range(0, None, 10),
    'image_pull_timeout': Range(1, None, 3600),
    'image_pull_poll_interval': Range(1, None, 15),
    # npu_check: GB the Docker data root keeps free, MiB of host memory kept back in RC mode.
    'npu_check_disk_min_free_gb': Range(0, None, 20),
    'npu_check_rc_memory_margin_mb': Range(0, None, 0),
    # vllm_serve: ports, seconds, lines and tokens.
    'vllm_serve_port': Range(PORT[0], PORT[1], 8080),
    'vllm_serve_metrics_npu_exporter_port': Range(PORT[0], PORT[1], 8082),
    'vllm_serve_ready_timeout': Range(1, None, 1800),
    'vllm_serve_ready_poll_interval': Range(1, None, 30),
    'vllm_serve_source_build_timeout': Range(1, None, 7200),
    'vllm_serve_smoke_timeout': Range(1, None, 600),
    'vllm_serve_smoke_max_tokens': Range(1, None, 50),
    'vllm_serve_smoke_chat_max_tokens': Range(1, None, 1024),
    'vllm_serve_log_lines': Range(0, None, 50),
    'vllm_serve_diagnose_log_lines': Range(0, None, 500),
    'vllm_serve_drain_timeout': Range(0, None, 600),
    'vllm_serve_teardown_wait': Range(0, None, 60),
}

# Variables whose null means "no limit" (every other ranged variable needs a number).
NULLABLE = ('eval_limit',)

_NUMBER_RE = re.compile(r'^\s*[-+]?([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][-+]?[0-9]+)?\s*$')


def _number(value):
    """The value as a number (an int or float, or text that reads as one), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value if not isinstance(value, float) or math.isfinite(value) else None
    if isinstance(value, str) and _NUMBER_RE.match(value):
        number = float(value)
        return int(number) if number.is_integer() and '.' not in value and 'e' not in value.lower() else number
    return None


def _show(value):
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


def range_problem(name, value):
    """{msg, fix} when ``name`` has a range and ``value`` (of the right type) lies outside it, else None.

    A value that is not a number is the type check's to report, not this one's. For a list variable
    (``eval_concurrency``) the range is every item's.
    """
    bounds = RANGES.get(name)
    if bounds is None:
        return None
    if isinstance(value, (list, tuple)):
        for item in value:
            problem = range_problem(name, item) if item is not None else None
            if problem is not None:
                # "NAME=ITEM is below N" -> "NAME=[...]: the item ITEM is below N"
                why = problem['msg'][len('%s=%s ' % (name, _show(item))):]
                return {'msg': '%s=%s: the item %s %s' % (name, _show(list(value)), _show(item), why),
                        'fix': problem['fix'].replace('set %s to' % name, 'set every item of %s to' % name, 1)}
        return None
    number = _number(value)
    if value is None and name not in NULLABLE:
        why = 'is not a number'
    elif number is None:
        return None
    elif bounds.minimum is not None and number < bounds.minimum:
        why = 'is below %s' % bounds.minimum
    elif bounds.maximum is not None and number > bounds.maximum:
        why = 'is above %s' % bounds.maximum
    else:
        return None
    if bounds.maximum is None:
        fix = 'set %s to %s or more, e.g. %s' % (name, bounds.minimum, bounds.example)
    else:
        fix = 'set %s to a number in %s..%s, e.g. %s' % (name, bounds.minimum, bounds.maximum, bounds.example)
    return {'msg': '%s=%s %s' % (name, _show(value), why), 'fix': fix}


def range_problems(values, prefix=''):
    """{check: settings, msg, fix} for every variable of ``values`` (a mapping) whose name starts with
    ``prefix`` and lies outside its range."""
    out = []
    for name in sorted(RANGES):
        if name.startswith(prefix) and name in values:
            problem = range_problem(name, values[name])
            if problem is not None:
                out.append(dict(problem, check='settings'))
    return out
