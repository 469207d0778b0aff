# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.ascend.vllm.plugins.filter.container_keep import FilterModule as Keep

OURS = {'ascend.vllm.managed-by': 'ascend.vllm'}
SERVING = {'exists': True, 'running': True, 'restarting': False, 'labels': OURS}
NONE = {'exists': False}


def test_container_keep_reads_the_switch_as_ansible_does():
    keep = Keep().filters()['container_keep']
    probe = {'changed': True, 'actions': [{'created': 'x'}]}
    assert keep(SERVING, NONE, 'yes', probe)['keep']
    assert not keep(SERVING, NONE, 'no', probe)['keep']
    assert keep(SERVING, NONE)['probe'] and not keep(SERVING, NONE)['keep']
