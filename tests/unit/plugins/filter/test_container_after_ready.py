# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.ascend.vllm.plugins.filter.container_after_ready import FilterModule as AfterReady
from ansible_collections.ascend.vllm.plugins.filter.served_model_name import FilterModule as Served

# The keep decision itself (formerly the filter ascend.vllm.container_keep) is tested on
# module_utils/serve/_keep.py keep_plan: tests/unit/plugins/module_utils/test__keep.py.


def test_container_after_ready():
    after = AfterReady().filters()['container_after_ready']
    assert after('vllm-ascend-previous', True) == 'restore'
    assert after('vllm-ascend-previous', False, False) == 'drop'
    assert after('', True) == 'none'


def test_served_model_name_filter():
    served = Served().filters()['served_model_name']
    assert served(['vllm', 'serve', 'm', '--served-model-name', 'qwen3.5']) == 'qwen3.5'
    assert served([], 'qwen3.5') == 'qwen3.5'


def test_container_restore_note():
    from ansible_collections.ascend.vllm.plugins.filter.container_restore_note import FilterModule as Note
    note = Note().filters()['container_restore_note']
    assert note('drop', {'state': 'ready'}) == '' and note('none') == ''
    assert 'restored: it serves again' in note('restore', {'state': 'ready'})
