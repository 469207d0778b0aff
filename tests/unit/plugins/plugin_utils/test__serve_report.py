# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
import pytest

from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._serve import report as preflight_report


@pytest.mark.parametrize('problems, expected', [
    ([{'check': 'config', 'msg': 'vllm_serve_dtype="bfloat16": dtype must be float16.', 'fix': 'set it to float16'},
      {'check': 'instances', 'msg': 'ascend_vllm_instances: chip 0 is given to more than one instance',
       'fix': 'give each instance its own chips'}],
     '2 preflight problem(s) on node1; nothing was pulled or started:\n'
     '- [config] vllm_serve_dtype="bfloat16": dtype must be float16. Fix: set it to float16\n'
     '- [instances] ascend_vllm_instances: chip 0 is given to more than one instance. Fix: give each instance its '
     'own chips\n'),
    ([], '0 preflight problem(s) on node1; nothing was pulled or started:\n'),
])
def test_report_lines(problems, expected):
    assert preflight_report(problems, 'node1') == expected
