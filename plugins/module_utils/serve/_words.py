# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""What the readiness check, keep-last-good and the rolling upgrade call an instance, by how it runs.

A container (the image install method) or a systemd service (the source install method,
serve/_source.py): the sentences are the same, the words differ -- who restarts a vLLM that
crashed, where a stopped one's log stays, what is put back after a failed change.
"""

from __future__ import annotations

WORDS = {
    'container': {
        'it': 'container', 'It': 'Container', 'served_by': 'container', 'restarter': 'Docker',
        'same': 'same container, image and settings', 'kept': 'It is stopped and kept with its logs',
    },
    'service': {
        'it': 'unit', 'It': 'Unit', 'served_by': 'service', 'restarter': 'systemd',
        'same': 'same unit, virtualenv and settings', 'kept': 'It is stopped; the journal keeps its log',
    },
}


def words(service=False):
    """The words for a container, or (``service``) for a systemd service."""
    return WORDS['service' if service else 'container']
