# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The preflight's read of a node, in one place: node_facts, the opt-in page-cache drop and the memory read after it.

Both callers run it from the controller, each with its own ``execute(name, args)`` (an action's
``_execute_module``): ascend.vllm.host_plan with ``read_node`` and ascend.vllm.node_facts with
``checks`` (the npu_check role). What ``execute`` returns is judged here, so both drop the page
cache by the same rule and report a failed read the same way.
"""

from typing import Any, Callable, Dict, Optional, Tuple

from ansible_collections.ascend.vllm.plugins.plugin_utils.judge._node_problems import node_problems

NODE_FACTS = 'ascend.vllm.node_facts'
# RC mode (Atlas 200I Pro) short of host memory, as the older 310P notes advise (npu_check_drop_page_cache).
DROP_COMMAND = 'sync && echo 3 > /proc/sys/vm/drop_caches'

Execute = Callable[[str, Dict[str, Any]], Dict[str, Any]]


class NodeReadError(Exception):
    """A module run on the node that failed or did not reach the node; ``result`` is its result."""

    def __init__(self, name: str, host: str, result: Dict[str, Any]) -> None:
        self.name = name
        self.result = result
        self.unreachable = bool(result.get('unreachable'))
        super().__init__('%s on %s: %s' % (name, host, result.get('msg', result)))


def run_module(execute: Execute, name: str, args: Dict[str, Any], host: str) -> Dict[str, Any]:
    """``execute(name, args)``, raising NodeReadError when it failed or the node was not reached."""
    result = execute(name, args)
    if result.get('failed') or result.get('unreachable'):
        raise NodeReadError(name, host, result)
    return result


def read_node(execute: Execute, query: Dict[str, Any], settings: Dict[str, Any], drop_page_cache: bool,
              check_mode: bool, host: str) -> Tuple[Dict[str, Any], Optional[Dict[str, Any]], Optional[Dict[str, Any]]]:
    """(node, drop, memory_again) of one node; None for what did not run.

    ``node``: node_facts with ``query``. When ``drop_page_cache`` (opted in), not in check mode and
    the verdict on ``settings`` says host memory is short (RC mode): ``drop`` the page cache (its
    command result, ``changed`` when it worked; a failure is data, named in the memory problem)
    and, after a drop that worked, ``memory_again`` (node_facts' ``gather=[memory]``).
    """
    node = run_module(execute, NODE_FACTS, query, host)
    drop = memory_again = None
    if drop_page_cache and not check_mode and node_problems(node, settings)['drop_page_cache']:
        drop = dict(execute('ansible.legacy.command', {'_raw_params': DROP_COMMAND, '_uses_shell': True}))
        drop['changed'] = drop.get('rc') == 0
        if drop['changed']:
            memory_again = run_module(execute, NODE_FACTS, {'gather': ['memory']}, host)
    return node, drop, memory_again
