# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import annotations


class ModuleDocFragment:
    """The one Docker Engine connection policy of the modules that talk to the node's Engine."""

    DOCUMENTATION = r'''
options:
  docker_host:
    description:
      - The Docker Engine to ask, C(unix:///path) or C(tcp://host:port) (plain HTTP, no TLS).
      - Unset, E(DOCKER_HOST) of the module's environment when that is set, else V(unix:///var/run/docker.sock)
        -- the same policy as the Docker CLI and community.docker's modules.
      - Any other kind (C(ssh://), C(npipe://)), or a C(tcp://) Engine with E(DOCKER_TLS_VERIFY) set, is refused with
        that reason; in preflight the node read reports the Engine as unreachable with it, before any change.
    type: str
'''
