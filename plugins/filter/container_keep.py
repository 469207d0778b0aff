# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
name: container_keep
short_description: Whether container_run keeps the serving container before replacing it
version_added: 0.2.0
description:
  - Decides, from what Docker reports, whether the serving container is kept (stopped and renamed to
    C(<name>-previous)) before community.docker.docker_container replaces it, so that the previous one can come
    back when the new one fails its checks.
  - A container is kept only when it is ours (label C(ascend.vllm.managed-by=ascend.vllm)), running and not in
    Docker's restart back-off, and a check-mode run of the same docker_container call (O(probe)) lists a
    C(created) action - the container would be re-created, not updated in place.
  - A C(<name>-previous) of ours already on the node (left by an interrupted run) is the container to come back to;
    the current container is then not kept on top of it.
author:
  - ascend.vllm maintainers (!UNKNOWN)
positional: previous, enabled, probe, instance
options:
  _input:
    description:
      - The current container, as npu_check reports it (C(npu_check_result.containers[name])) or as
        M(community.docker.docker_container_info) returns it; null or C(exists=false) when there is none.
    type: raw
    required: true
  previous:
    description:
      - C(<name>-previous) as npu_check reports it (C(npu_check_result.containers[name ~ '-previous'])) or as
        M(community.docker.docker_container_info) returns it.
    type: raw
  enabled:
    description: C(container_run_keep_previous); false decides nothing is kept.
    type: bool
    default: true
  probe:
    description: The registered result of the check-mode docker_container call; null before it ran.
    type: raw
  instance:
    description:
      - The instance's name (C(container_run_instance)). A C(<name>-previous) whose C(ascend.vllm.instance) label names
        another instance is not this one's kept container; nothing is kept then.
    type: str
'''

EXAMPLES = r'''
- name: Ask docker_container whether it would replace the serving container
  community.docker.docker_container:
    name: vllm-ascend
    image: "{{ image }}"
    state: started
  check_mode: true
  register: probe
  when: (existing | ascend.vllm.container_keep(previous_info)).probe
'''

RETURN = r'''
_value:
  description:
    - C(probe) (ask docker_container in check mode), C(keep) (stop and rename the container now), C(leftover) (a
      kept container from an interrupted run is there), C(kept) (this run has a container to come back to),
      C(unchanged) (the probe found nothing to do, so the real call is not needed) and C(why) (one line).
  type: dict
'''

from ansible.module_utils.parsing.convert_bool import boolean

from ansible_collections.ascend.vllm.plugins.module_utils.serve._instances import plain
from ansible_collections.ascend.vllm.plugins.module_utils.serve._keep import keep_plan


def container_keep(existing, previous=None, enabled=True, probe=None, instance=None):
    """{probe, keep, leftover, kept, unchanged, why} for one container."""
    return keep_plan(plain(existing), plain(previous), boolean(enabled, strict=False),
                     None if probe is None else plain(probe), instance)


class FilterModule(object):
    """Keep decision of the container_run role."""

    def filters(self):
        return {'container_keep': container_keep}
