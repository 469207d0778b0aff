# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.ascend.vllm.plugins.filter.container_pids import container_pids


@pytest.mark.parametrize('results, expected', [
    ([{'stdout_lines': ['PID', '  4242', '4243 ']}, {'stdout_lines': ['PID', '17']}], [4242, 4243, 17]),
    # A container that was not there: docker top failed, nothing to wait for.
    ([{'rc': 1, 'stdout_lines': []}, {'skipped': True}], []),
])
def test_pids(results, expected):
    assert container_pids(results) == expected
