# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Keep the last good container, the node's part: the name a container is kept under while its replacement
starts, which containers of ours containers_absent removes, and what a kept container's command line serves
(vllm_ready). The decisions around them (what to keep, what to do after the readiness check) are the
controller's: plugin_utils/serve/_keep.py.
"""

from __future__ import annotations

from typing import Any, List

# Fixed, so that teardown finds a kept container from the instance's name alone.
PREVIOUS_SUFFIX = '-previous'


def previous_name(name: str) -> str:
    """The name a container is kept under while its replacement starts."""
    return name + PREVIOUS_SUFFIX


def containers_to_remove(names: List[str], ours: List[str], all_managed: bool) -> List[str]:
    """Of the node's containers of ours (``ours``: names of containers with this collection's label, stopped
    ones too), those of ``names`` with each one's kept ``<name>-previous`` (left by an interrupted deploy),
    and with ``all_managed`` every one of ours; in that order, once each.  A container with an instance's
    name that we did not create (another user's) is not in ``ours`` and is left alone."""
    wanted = [found for name in names for found in (name, previous_name(name)) if found in ours]
    return list(dict.fromkeys(wanted + (list(ours) if all_managed else [])))


def served_model_name(argv: Any, default: str = '') -> str:
    """The first name a ``vllm serve`` command line serves (``--served-model-name``), else its model.

    A restored container may serve another name than the failed spec asked for; its
    own command line says which.
    """
    argv = [str(arg) for arg in argv or []] if isinstance(argv, (list, tuple)) else []
    for index, arg in enumerate(argv):
        flag, _sep, value = arg.partition('=')
        if flag.replace('_', '-') != '--served-model-name':
            continue
        if value:
            return value
        if index + 1 < len(argv) and not argv[index + 1].startswith('-'):
            return argv[index + 1]
    model = argv[argv.index('serve') + 1:][:1] if 'serve' in argv else []
    return model[0] if model and not model[0].startswith('-') else default
