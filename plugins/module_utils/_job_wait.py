# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""What the modules that follow an async job (image_pull_wait, job_wait) share: their common options,
documented once in the ascend.vllm.job_wait doc fragment, and the one reading of them."""

from __future__ import annotations

from ansible.module_utils.basic import AnsibleModule

ARGUMENT_SPEC = dict(
    results_file=dict(type='path', required=True),
    timeout=dict(type='float', default=3600),
    report_after=dict(type='float', default=15),
)


def job_wait_module(argument_spec, **checks):
    """The module with the common options and its own (``argument_spec``, and AnsibleModule's ``checks`` such as
    ``required_one_of``); fails unless ``timeout`` and ``report_after`` are more than 0."""
    module = AnsibleModule(argument_spec=dict(ARGUMENT_SPEC, **argument_spec), supports_check_mode=True, **checks)
    for option in ('timeout', 'report_after'):
        if module.params[option] <= 0:
            module.fail_json(msg='%s=%s: must be more than 0' % (option, module.params[option]))
    return module
