# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
import pytest

from ansible_collections.ascend.vllm.plugins.filter.metrics_targets import metrics_targets

PLAN = [{'name': 'default', 'port': 8080, 'options': {'model': 'Qwen/Qwen3.5-2B'}}]


@pytest.mark.parametrize('addresses, target', [
    ({'metrics_address': None, 'publish_address': '127.0.0.1', 'host_address': '10.0.0.5'}, '127.0.0.1:8080'),
    ({'metrics_address': None, 'publish_address': '', 'host_address': '10.0.0.5'}, '10.0.0.5:8080'),
    ({'metrics_address': 'prom.example', 'publish_address': '', 'host_address': '10.0.0.5'}, 'prom.example:8080'),
    ({'publish_address': ''}, 'n1:8080'),
])
def test_address_choice(addresses, target):
    assert metrics_targets(PLAN, 'n1', 'atlas_300i_duo', addresses)[0]['targets'] == [target]


@pytest.mark.parametrize('port, expected', [(None, []), (0, []), (8082, ['127.0.0.1:8082']), ('9100', ['127.0.0.1:9100'])])
def test_npu_exporter_port(port, expected):
    addresses = {'metrics_address': None, 'publish_address': '127.0.0.1', 'host_address': '10.0.0.5'}
    out = metrics_targets(PLAN, 'n1', 'atlas_300i_duo', addresses, {}, port)
    assert [g['targets'][0] for g in out if g['labels']['component'] == 'npu'] == expected
    assert [g['labels']['instance'] for g in out] == ['default'] + (['npu-exporter'] if expected else [])
