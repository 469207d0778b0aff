# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The node side of a module whose work its action plugin does from the controller."""

from __future__ import annotations

from ansible.module_utils.basic import AnsibleModule


def controller_only(name, argument_spec):
    """Fail a run of module ``name`` on a node. Its arguments are checked first, as any module's are (and
    ansible-test compares ``argument_spec`` with the module's documentation)."""
    AnsibleModule(argument_spec=argument_spec, supports_check_mode=True).fail_json(
        msg='ascend.vllm.%s runs from the controller only (its action plugin); '
            'call it as a task, not as a module on a node' % name)
