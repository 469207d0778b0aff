# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
import json

from ansible_collections.ascend.vllm.plugins.filter.file_sd_merge import file_sd_merge


def group(host, instance):
    return {'targets': ['%s:8080' % host], 'labels': {'host': host, 'instance': instance, 'component': 'vllm'}}


def test_other_hosts_stay_sorted():
    text = json.dumps([group('n2', 'a'), group('n1', 'a')])
    assert file_sd_merge(text, ['n1'], [group('n1', 'b')]) == [group('n1', 'b'), group('n2', 'a')]
