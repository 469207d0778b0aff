# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Every collection variable a playbook reads is one preflight knows.

A variable the playbooks read from extra vars (``-e ascend_vllm_upgrade_serial=2``) reaches
the request like any other; if no argument spec mentions it, preflight would refuse the
documented command as a misspelt variable.
"""

import glob
import os
import re

import pytest

from ansible_collections.ascend.vllm.plugins.plugin_utils.request._vars import check_role_vars, role_argument_specs

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))
PREFIXED = re.compile(r'\b((?:ascend_vllm|vllm_serve|image_pull|npu_check|container_run|balancer|eval)_[a-z0-9_]*[a-z0-9])\b')


def _read_by_playbooks():
    names = set()
    for path in glob.glob(os.path.join(ROOT, 'playbooks', '*.yml')) + [os.path.join(ROOT, 'site.yml')]:
        with open(path) as handle:
            names.update(PREFIXED.findall(handle.read()))
    return sorted(names)


@pytest.mark.parametrize('name', _read_by_playbooks())
def test_preflight_knows_every_variable_a_playbook_reads(name):
    specs = role_argument_specs(os.path.join(ROOT, 'roles'))
    assert check_role_vars({name: '1'}, specs) == [] or \
        all(problem['kind'] == 'type' for problem in check_role_vars({name: '1'}, specs)), name
