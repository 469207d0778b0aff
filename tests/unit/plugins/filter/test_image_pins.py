# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.ascend.vllm.plugins.filter.image_pins import FilterModule, image_pins

PIN = 'sha256:' + 'c' * 64


def test_the_filter_lists_the_pins_with_their_tag():
    assert FilterModule().filters()['image_pins'] is image_pins
    assert image_pins(['q.io/a/b@' + PIN, 'q.io/a/b:v1'], 'v0.23.0-310p') == [
        {'ref': 'q.io/a/b:v0.23.0-310p', 'digest': PIN, 'candidate': 'q.io/a/b@' + PIN,
         'variable': 'image_pull_digest'}]
    assert image_pins(None, 'v1', None) == []
