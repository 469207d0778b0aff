# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""An action decided on the controller, its task arguments checked as AnsibleModule checks a module's."""

from __future__ import annotations

import copy

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.module_utils.common.parameters import remove_values
from ansible.module_utils.errors import UnsupportedError
from ansible.plugins.action import ActionBase


def task_args(action, spec, **checks):
    """(the validation result, None) when the task's arguments fit ``spec`` (and ``checks``, such as ``required_if``),
    else (it, the task's failed result).

    The message has every error, each in AnsibleModule's own words (an unknown option as ``Unsupported
    parameters for (NAME) module: ...``), so the task reads as the module's would; no value of a
    ``no_log`` option shows in it.
    """
    checked = ArgumentSpecValidator(spec, **checks).validate(dict(action._task.args))
    if not checked.error_messages:
        return checked, None
    msg = '; '.join('Unsupported parameters for (%s) module: %s' % (action._task.action, error.msg)
                    if isinstance(error, UnsupportedError) else error.msg for error in checked.errors)
    return checked, remove_values({'failed': True, 'changed': False, 'msg': msg}, checked._no_log_values)


class ControllerAction(ActionBase):
    """The task's result is ``act``'s, once its arguments fit ``SPEC`` (a copy each run: the validated values
    hold the spec's defaults). No file is transferred, no node is needed unless ``act`` runs a module."""

    _requires_connection = False
    SPEC = {}

    def run(self, tmp=None, task_vars=None):
        super().run(tmp, task_vars)
        checked, failed = task_args(self, copy.deepcopy(self.SPEC))
        return failed or self.act(checked, task_vars or {})

    def act(self, checked, task_vars):
        """The task's result from ``checked`` (its ``validated_parameters``) and the host's variables."""
        raise NotImplementedError
