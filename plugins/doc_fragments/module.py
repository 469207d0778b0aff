# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import annotations


class ModuleDocFragment:
    """What the collection's modules share: their authors and the attribute support most of them have.

    A module names this fragment before ansible.builtin.action_common_attributes (which gives the attributes'
    descriptions): of two fragments that set the same key the first one listed wins, and the builtin one says
    ``platform: support: N/A``. A module's own attribute keys win over both.
    """

    # A module that runs on the node.
    DOCUMENTATION = r'''
author:
  - ascend.vllm maintainers (!UNKNOWN)
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
  platform:
    support: full
    platforms: posix
'''

    # A module whose work its action plugin does on the controller.
    ACTION = r'''
author:
  - ascend.vllm maintainers (!UNKNOWN)
attributes:
  action:
    support: full
  async:
    support: none
  bypass_host_loop:
    support: none
  check_mode:
    support: full
  diff_mode:
    support: none
  platform:
    support: full
    platforms: posix
'''
