# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""What preflight's lines say deploy will do about the image (plan._node.image_line)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.ascend.vllm.plugins.module_utils.plan._node import image_line

REF = 'registry.example:5000/ascend/vllm-ascend:v0.23.0-310p'
MIRROR = 'mirror.example/ascend/vllm-ascend:v0.23.0-310p'


class _Request(dict):
    def get(self, name, default=None):
        return dict.get(self, name, default)


@pytest.mark.parametrize('present, policy, archive, expected', [
    (True, 'not_present', '', REF + ': present on the node'),
    (True, 'always', '', REF + ': present, pulled again (image_pull_policy: always)'),
    (False, 'not_present', '', REF + ': not on the node, pulled from %s, then %s' % (REF, MIRROR)),
    (False, 'not_present', '/srv/vllm.tar', REF + ': loaded from /srv/vllm.tar'),
    (True, 'always', '/srv/vllm.tar', REF + ': loaded from /srv/vllm.tar'),
])
def test_the_image_line_says_what_deploy_does(present, policy, archive, expected):
    request = _Request(image_pull_policy=policy, image_pull_archive=archive)
    assert image_line({'ref': REF, 'present': present}, [REF, MIRROR], request) == 'image ' + expected
