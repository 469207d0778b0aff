# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.ascend.vllm.plugins.filter.container_after_ready import FilterModule as AfterReady
from ansible_collections.ascend.vllm.plugins.filter.container_keep import FilterModule as Keep
from ansible_collections.ascend.vllm.plugins.filter.served_model_name import FilterModule as Served

OURS = {'ascend.vllm.managed-by': 'ascend.vllm'}
SERVING = {'exists': True, 'running': True, 'restarting': False, 'labels': OURS}
NONE = {'exists': False}


def test_container_keep_reads_the_switch_as_ansible_does():
    keep = Keep().filters()['container_keep']
    probe = {'changed': True, 'actions': [{'created': 'x'}]}
    assert keep(SERVING, NONE, 'yes', probe)['keep']
    assert not keep(SERVING, NONE, 'no', probe)['keep']
    assert keep(SERVING, NONE)['probe'] and not keep(SERVING, NONE)['keep']


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
