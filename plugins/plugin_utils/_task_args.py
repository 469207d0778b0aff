# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""A controller-only action's task arguments, checked as AnsibleModule checks a module's."""

from __future__ import annotations

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.module_utils.common.parameters import remove_values
from ansible.module_utils.errors import UnsupportedError


def task_args(action, spec):
    """(the validation result, None) when the task's arguments fit ``spec``, else (it, the task's failed result).

    The message has every error, each in AnsibleModule's own words (an unknown option as ``Unsupported
    parameters for (NAME) module: ...``), so the task reads as the module's would; no value of a
    ``no_log`` option shows in it.
    """
    checked = ArgumentSpecValidator(spec).validate(dict(action._task.args))
    if not checked.error_messages:
        return checked, None
    msg = '; '.join('Unsupported parameters for (%s) module: %s' % (action._task.action, error.msg)
                    if isinstance(error, UnsupportedError) else error.msg for error in checked.errors)
    return checked, remove_values({'failed': True, 'changed': False, 'msg': msg}, checked._no_log_values)
