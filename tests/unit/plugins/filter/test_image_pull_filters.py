# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The thin image_pull filters: each registered under its file's name, each passing its inputs through."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.ascend.vllm.plugins.filter import image_pull_plan, image_pull_present, image_pull_report
from ansible_collections.ascend.vllm.plugins.module_utils.contracts._image_ref import classify_failure, failure_message

INPUTS = {
    'image_pull_registries': ['127.0.0.1:5000'], 'image_pull_repository': 'ascend/vllm-ascend',
    'image_pull_tag': 'v0.23.0', 'image_pull_tag_suffix': None, 'image_pull_digest': '', 'image_pull_image': '',
    'image_pull_retries': 3, 'image_pull_delay': 10, 'image_pull_timeout': 3600, 'image_pull_poll_interval': 15,
    'image_pull_archive': '', 'image_pull_archive_on_node': False, 'image_pull_archive_dir': '/var/tmp/ascend-vllm',
}


@pytest.mark.parametrize('module', [image_pull_plan, image_pull_present, image_pull_report])
def test_one_filter_per_file_named_after_it(module):
    name = module.__name__.rsplit('.', 1)[1]
    assert list(module.FilterModule().filters()) == [name]


def test_plan_reads_the_tarball_on_the_controller(tmp_path):
    tarball = tmp_path / 'vllm.tar'
    tarball.write_bytes(b'')
    plan = image_pull_plan.image_pull_plan(dict(INPUTS, image_pull_archive=str(tarball)), '-310p')
    assert plan == {'candidates': ['127.0.0.1:5000/ascend/vllm-ascend:v0.23.0-310p'], 'image_tag': 'v0.23.0-310p',
                    'pins': [], 'problems': []}
    missing = image_pull_plan.image_pull_plan(dict(INPUTS, image_pull_archive=str(tmp_path / 'no.tar')), '-310p')
    assert [p['msg'] for p in missing['problems']] == [
        'image_pull_archive="%s" is not a file on the controller' % (tmp_path / 'no.tar')]


def test_plan_without_suffix_or_dict_is_a_filter_error():
    with pytest.raises(AnsibleFilterError, match='image_pull_tag_suffix is null'):
        image_pull_plan.image_pull_plan(INPUTS, None)
    with pytest.raises(AnsibleFilterError, match='expects a dict'):
        image_pull_plan.image_pull_plan(['x'], '-310p')


def test_present_accepts_npu_check_image_lists():
    ref = '127.0.0.1:5000/ascend/vllm-ascend:v0.23.0-310p'
    found = image_pull_present.image_pull_present([ref, 'debian:12'], [ref], 'ascend/vllm-ascend', 'v0.23.0-310p')
    assert (found['ref'], found['present']) == (ref, True)


def test_attempt_failure_and_report_pass_through():
    attempt = classify_failure('404 Client Error: Not Found ("manifest unknown")')
    assert attempt == {'reason': 'manifest unknown', 'missing': True}
    msg = failure_message('n1', ['r:t'], [dict(attempt, ref='r:t', attempt=1)], INPUTS, 't')
    assert msg.startswith('Could not pull the vllm-ascend image on n1 from any registry (r:t). r:t: not found')
    assert image_pull_report.image_pull_report([], 'n1') == '0 image problem(s) on n1; nothing was pulled:'
