# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The version matrix and its rules: which driver suits an image, which firmware suits a driver."""

import pytest

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts import releases, versions
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._image_tags import parse_image_tag
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.platforms import PLATFORMS

ENTRY = versions.IMAGES['v0.23.0-310p']
# compatible_version_fw of real driver version.info files (25.0.rc1.1, 25.3.rc1, 24.1.rc3), as published.
FW_2501 = '[7.0.0,7.7.99]'
FW_2503 = '[6.4.0,6.4.99],[7.0.0,8.9.9]'


def test_every_platform_suffix_of_the_guide_release_has_an_entry():
    # The guide's release (v0.23.0) on each built-in platform: one entry per tag it runs.
    tags = set('v0.23.0' + p['image_tag_suffix'] for p in PLATFORMS.values())
    assert tags <= set(versions.IMAGES)


def test_entries_are_the_records_whose_hdk_was_read():
    # A driver is judged only against a record whose CANN and HDK list were read; every tag of it has an entry.
    expected = set(tag for record in releases.RELEASES.values()
                   if record['hdk'] and 'hdk' not in record['unverified'] for tag in record['images'].values())
    assert expected == set(versions.IMAGES)
    assert 'v0.24.0rc1-310p' not in versions.IMAGES and 'v0.30.0-310p' not in versions.IMAGES


@pytest.mark.parametrize('tag', sorted(versions.IMAGES))
def test_entries_are_complete_and_sourced(tag):
    entry = versions.IMAGES[tag]
    parsed = parse_image_tag(tag)
    assert tag.startswith(entry['vllm_ascend']) and entry['vllm_ascend'].startswith('v%d.%d.%d' % tuple(parsed['version']))
    for fact in ('vllm', 'cann', 'python', 'hdk', 'firmware'):
        assert entry['sources'][fact], fact
    assert entry['unverified']
    # The release paired with the CANN is one it lists as compatible; no release is both.
    assert entry['hdk_paired'] in entry['hdk_compatible']
    assert not set(entry['hdk_compatible']) & set(entry['hdk_incompatible'])


@pytest.mark.parametrize('image, tag', [
    ('v0.23.0-310p', 'v0.23.0-310p'),
    ('quay.io/ascend/vllm-ascend:v0.23.0-310p-openeuler', 'v0.23.0-310p-openeuler'),
    ('127.0.0.1:5000/ascend/vllm-ascend:v0.23.0-310p@sha256:' + 'a' * 64, 'v0.23.0-310p'),
    ('127.0.0.1:5000/ascend/vllm-ascend@sha256:' + 'a' * 64, ''),
    ('', ''), (None, ''),
])
def test_the_entry_of_a_tag_or_a_reference(image, tag):
    """The version data is found by the tag the one reference reader (module_utils/_image.py) reads."""
    entry = versions.entry_for(image)
    assert (entry is not None) is (tag in versions.IMAGES), (image, tag)
    if entry is not None:
        assert entry == versions.entry_for(tag)


def test_entry_for_a_reference_and_an_unknown_tag():
    assert versions.entry_for('quay.io/ascend/vllm-ascend:v0.23.0-310p')['cann'] == '9.1.0'
    assert versions.entry_for('v0.22.0-310p') is None


@pytest.mark.parametrize('driver, verdict, release', [
    # compatible: the releases the CANN 9.1.0 (and 9.1.1, 9.2.0) release notes mark Y
    ('25.2.0', 'ok', '25.2.X'),
    ('25.2.3', 'ok', '25.2.X'),
    ('25.3.rc1', 'ok', '25.3.X'),
    ('25.5.1', 'ok', '25.5.X'),
    ('26.0.rc1', 'ok', '26.0.RC1'),
    ('26.0.RC1', 'ok', '26.0.RC1'),
    ('26.0.rc1.1', 'ok', '26.0.RC1'),
    ('25.7.rc1', 'ok', '25.7.RC1'),
    ('26.1.0', 'ok', '26.1.0'),
    ('26.1.1', 'ok', '26.1.1'),
    ('26.2.rc1', 'ok', '26.2.RC1'),
    # too old: marked N, or older than every compatible release
    ('25.0.rc1.1', 'incompatible', '25.0.X'),
    ('25.0.0', 'incompatible', '25.0.X'),
    ('24.1.rc2.2', 'too_old', None),
    ('22.0.4', 'too_old', None),
    ('25.1.0', 'too_old', None),
    # too new / not listed: neither refused nor called compatible
    ('26.3.0', 'unlisted', None),
    ('27.0.rc1', 'unlisted', None),
    ('26.2.0', 'unlisted', None),
    ('25.4.0', 'unlisted', None),
    # unknown format, and no version at all (version.info missing)
    ('V100R001C18', 'unknown', None),
    ('25.2', 'unknown', None),
    ('latest', 'unknown', None),
    (None, 'missing', None),
    ('', 'missing', None),
])
def test_driver_verdict(driver, verdict, release):
    out = versions.driver_verdict(ENTRY, driver)
    assert (out['verdict'], out['release']) == (verdict, release)
    assert bool(out['msg']) == (verdict != 'ok')


def test_driver_messages_name_the_cann_and_the_releases():
    assert versions.driver_verdict(ENTRY, '25.0.rc1.1')['msg'] == (
        'the CANN 9.1.0 release notes mark Ascend HDK 25.0.X incompatible')
    assert versions.driver_verdict(ENTRY, '24.1.rc2.2')['msg'] == (
        'older than every Ascend HDK the CANN 9.1.0 release notes list as compatible (oldest 25.2.X)')
    assert versions.driver_verdict(ENTRY, '26.3.0')['msg'].startswith('newer than the Ascend HDK releases')


@pytest.mark.parametrize('earlier, later', [
    ('26.0.rc1', '26.0.0'), ('26.0.0', '26.0.1'), ('25.0.rc1', '25.0.rc1.1'), ('24.1.rc2.2', '25.0.rc1'),
])
def test_driver_order(earlier, later):
    assert versions.parse_driver_version(earlier) < versions.parse_driver_version(later)


@pytest.mark.parametrize('text, pairs', [
    (FW_2501, [('7.0.0', '7.7.99')]),
    (FW_2503, [('6.4.0', '6.4.99'), ('7.0.0', '8.9.9')]),
    ('[7.0.0,8.2.99]', [('7.0.0', '8.2.99')]),
])
def test_parse_fw_ranges(text, pairs):
    assert versions.parse_fw_ranges(text) == pairs


@pytest.mark.parametrize('text', [None, '', '[]', '[7.0.0]'])
def test_fw_ranges_without_a_pair(text):
    with pytest.raises(ValueError, match='no \\[start,end\\] range'):
        versions.parse_fw_ranges(text)


@pytest.mark.parametrize('firmware, ranges, compatibility, verdict', [
    # npu-smi's own verdict wins when it gives one
    ('7.1.0.3.220', FW_2503, 'OK', 'ok'),
    ('7.8.0.6.201', FW_2503, 'NOK', 'incompatible'),
    # compatible: in a range, each version cut to the bounds' length and compared as text
    ('7.8.0.6.201', FW_2503, None, 'ok'),            # 25.5.1 board (310P) under a 25.3 driver's list
    ('7.7.0.1.231', FW_2501, 'UNKNOWN', 'ok'),       # 25.0.rc1.1's own firmware
    ('6.4.0.1.100', FW_2503, 'NOT SUPPORT', 'ok'),
    # firmware older than the driver accepts
    ('6.3.0.1.241', FW_2501, None, 'older'),         # the 23.0.RC1 310P firmware under a 25.0 driver
    ('1.84.15.1.310', FW_2503, None, 'older'),       # below 6.4: always refused by the driver
    ('7.1.0.7.220', '[7.5.0,8.9.9]', None, 'older'),
    ('6.9.0.1.100', FW_2503, None, 'unjudged'),      # between two ranges: the card's own list decides
    # newer than the driver lists, no list, no firmware: not judged here
    ('7.8.0.6.201', FW_2501, None, 'unjudged'),
    ('7.8.0.6.201', None, None, 'unjudged'),
    ('NA', FW_2503, None, 'unjudged'),
    (None, FW_2503, None, 'unjudged'),
])
def test_firmware_verdict(firmware, ranges, compatibility, verdict):
    assert versions.firmware_verdict(firmware, '25.5.1', ranges, compatibility)['verdict'] == verdict


def test_firmware_older_message_names_both_versions_and_the_list():
    assert versions.firmware_verdict('6.3.0.1.241', '25.0.rc1.1', FW_2501)['msg'] == (
        'firmware 6.3.0.1.241 is older than driver 25.0.rc1.1 accepts (6.4 or newer)')
    assert versions.firmware_verdict('7.1.0.7.220', '25.3.rc1', '[7.5.0,8.9.9]')['msg'] == (
        'firmware 7.1.0.7.220 is older than driver 25.3.rc1 accepts (compatible_version_fw=[7.5.0,8.9.9])')


def test_npu_check_takes_the_matrix_by_default():
    # roles/npu_check: the driver rule defaults to the image's entry (the keyword module_utils reads).
    import os
    import yaml
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..', '..'))
    with open(os.path.join(root, 'roles', 'npu_check', 'defaults', 'main.yml')) as handle:
        defaults = yaml.safe_load(handle)
    assert defaults['npu_check_driver_min_version'] == versions.AUTO
    assert 'image_pull_image_tag' in defaults['npu_check_image_tag']
