# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
from ansible_collections.ascend.vllm.plugins.plugin_utils.fleet._balancer import summary_lines as balancer_summary


def test_one_line_per_frontend():
    status = {'enabled': True, 'why': 'on (balancer_enabled: true)', 'address': '10.0.0.5', 'tls': False,
              'frontends': [{'served': 'qwen3.5', 'port': 8000, 'key_required': False,
                             'servers': [{'instance': 'a'}, {'instance': 'b'}]}]}
    assert balancer_summary(status) == ['balancer: qwen3.5 at http://10.0.0.5:8000 across a, b '
                                        '(on (balancer_enabled: true))']
