# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The plan of a host as ``playbooks/plan.yml`` prints it, before any node is contacted.

One list of lines per host, from ``host_plan``'s result (the ``plan`` stage, no node read): the platform,
the image or the source install, each instance with its exact ``vllm serve`` line and its memory fit on
the platform's nominal chip, the balancer, then every problem with its fix.
"""

from typing import Any, Callable, Dict, List

from ansible_collections.ascend.vllm.plugins.module_utils._problem import line as problem_line
from ansible_collections.ascend.vllm.plugins.plugin_utils.fleet._balancer import summary_lines as balancer_lines
from ansible_collections.ascend.vllm.plugins.plugin_utils.plan._node import command_line, install_line, release_lines


def image_line(image: Dict[str, Any], get: Callable[..., Any]) -> str:
    """What a deploy would do about the image, as far as the controller knows."""
    candidates = image.get('candidates') or []
    if not candidates:
        return 'image: none planned (see the problems)'
    if get('image_pull_archive'):
        return 'image %s: loaded from %s' % (candidates[0], get('image_pull_archive'))
    how = 'pulled again on every run (image_pull_policy: always)' if get('image_pull_policy') == 'always' else \
        'pulled unless the node has it'
    return 'image %s: %s, from %s' % (candidates[0], how, ', then '.join(candidates))


def memory_line(memory: Dict[str, Any]) -> str:
    """The memory fit of one instance on one chip's share, and the largest settings that fit."""
    if not memory:
        return '  memory: not planned (see the problems)'
    verdict = 'fits' if memory.get('fits') else 'does NOT fit'
    return ('  memory: %s: KV cache and state need %s MB of the %s MB KV budget (chip %s MB x %s = %s MB usable, '
            'weights %s MB per chip); the most that fit: max_num_seqs %s at this max_model_len, max_model_len %s '
            'at this max_num_seqs' % (
                verdict, memory.get('required_mb'), memory.get('kv_budget_mb'), memory.get('chip_memory_mb'),
                memory.get('gpu_memory_utilization'), memory.get('usable_mb'), memory.get('weights_mb_per_chip'),
                memory.get('max_num_seqs_fit'), memory.get('max_model_len_fit')))


def instance_lines(instances: List[Dict[str, Any]], configs: Dict[str, Any]) -> List[str]:
    """Per instance: where it runs, its ``vllm serve`` line (or why there is none) and its memory fit."""
    lines = []
    for entry in instances:
        config = configs.get(entry['name']) or {}
        lines.append('instance %s: %s as %s in %s on chips %s, port %s' % (
            entry['name'], (entry.get('options') or {}).get('model', '?'), entry.get('served_model_name'),
            entry.get('runs_as') or entry.get('container_name'),
            ','.join(str(chip) for chip in entry.get('chips') or []), entry.get('port')))
        lines.append('  ' + command_line(config) if config.get('ok') else '  no vllm serve line (see the problems)')
        lines.append(memory_line(config.get('memory') or {}))
    return lines


def plan_lines(planned: Dict[str, Any], get: Callable[..., Any]) -> List[str]:
    """The report of one host's plan; ``get``: the host's variables (the request's ``get``)."""
    problems = planned.get('problems') or []
    if planned.get('stage') != 'plan':
        # The variables or the platform are wrong: nothing else was planned.
        return problem_lines(problems)
    profile = planned.get('profile') or {}
    lines = ['platform %s%s; the node is not read: preflight checks the chips, the image on the node, ports and paths'
             % (planned.get('platform') or '(none)', ': %s' % profile['description'] if profile.get('description') else '')]
    install = planned.get('install') or {}
    if install.get('method') == 'source':
        lines.append('install: ' + install_line(install, {}))
    elif planned.get('image'):
        lines.append(image_line(planned['image'], get))
    lines += release_lines(planned.get('release'))
    lines += instance_lines(planned.get('instances') or [], planned.get('configs') or {})
    front = planned.get('balancer') or {}
    lines += balancer_lines(dict(front, address=front.get('reach', '127.0.0.1'),
                                 tls=bool(get('balancer_tls_certificate') and get('balancer_tls_key'))))
    return lines + problem_lines(problems)


def problem_lines(problems: List[Dict[str, Any]]) -> List[str]:
    """Every problem with its fix (the preflight report's lines), or that there is none."""
    if not problems:
        return ['problems: none']
    return ['%d problem(s); a deploy would stop at preflight:' % len(problems)] + [problem_line(item) for item in problems]
