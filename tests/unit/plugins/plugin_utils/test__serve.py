# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Local model paths confined to the model cache and vllm_serve_model_roots; the publish address is the node's."""

import pytest

from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._serve import model_path_problems, publish_address_problems


def wanted(path, host=None, prefix='vllm_serve_'):
    return {'name': 'default', 'path': path, 'host': host or path, 'prefix': prefix}


DIR = {'exists': True, 'isdir': True, 'isreg': False}
FILE = {'exists': True, 'isdir': False, 'isreg': True}


def problems(item, roots=None, paths=None, cache='/root/.cache'):
    return model_path_problems([item], {}, cache, roots or [], paths)


def test_paths_in_the_cache_or_a_root_pass_on_the_controller():
    assert problems(wanted('/root/.cache/modelscope/hub/q')) == []
    assert problems(wanted('/data/models/q'), roots=['/data/models']) == []
    assert problems(wanted('/data/models/q'), roots=['/data/models/']) == []


@pytest.mark.parametrize('path, roots', [
    ('/data/models/q', []), ('/data/models-old/q', ['/data/models']), ('/etc', ['/data']), ('/', ['/data']),
])
def test_paths_outside_are_refused_naming_the_variable_value_and_roots(path, roots):
    found = problems(wanted(path), roots=roots)
    assert len(found) == 1 and found[0]['check'] == 'paths'
    assert 'vllm_serve_model_path="%s" is outside the model cache' % path in found[0]['msg']
    assert 'vllm_serve_model_roots' in found[0]['fix']


def test_instance_paths_name_the_instance_field():
    found = problems(wanted('/opt/q', prefix='ascend_vllm_instances[1].'))
    assert found[0]['msg'].startswith('ascend_vllm_instances[1].model_path="/opt/q"')


def test_a_file_a_link_out_and_a_directory_without_config_json_are_refused_once_the_node_was_read():
    item = wanted('/root/.cache/q', '/srv/cache/q')
    file_ = problems(item, cache='/srv/cache', paths={'/srv/cache/q': FILE})
    assert 'is a file on the node' in file_[0]['msg'] and '/root/.cache' in file_[0]['fix']
    link = dict(DIR, realpath='/etc')
    out = problems(item, cache='/srv/cache', paths={'/srv/cache/q': link, '/srv/cache/q/config.json': FILE})
    assert 'leads through a link to /etc' in out[0]['msg']
    bare = problems(item, cache='/srv/cache', paths={'/srv/cache/q': dict(DIR, realpath='/srv/cache/q'),
                                                     '/srv/cache/q/config.json': {'exists': False}})
    assert 'has no config.json on the node (/srv/cache/q/config.json)' in bare[0]['msg']
    good = problems(item, cache='/srv/cache', paths={'/srv/cache/q': dict(DIR, realpath='/srv/cache/q'),
                                                     '/srv/cache/q/config.json': FILE})
    assert good == []
    # Missing is missing_model_dirs' to say; not read yet says nothing.
    assert problems(item, cache='/srv/cache', paths={'/srv/cache/q': {'exists': False}}) == []
    assert problems(item, cache='/srv/cache', paths={}) == []


@pytest.mark.parametrize('address', ['', '0.0.0.0', '::', '127.0.0.1', '::1', '172.18.0.5', 'fe80:0::1'])
def test_own_and_wildcard_publish_addresses_pass(address):
    assert publish_address_problems(address, ['127.0.0.1', '172.18.0.5', '::1', 'fe80::1']) == []


def test_a_publish_address_the_node_does_not_have_names_its_addresses():
    found = publish_address_problems('10.9.9.9', ['127.0.0.1', '172.18.0.5'])
    assert found[0]['msg'].startswith('vllm_serve_publish_address="10.9.9.9" is not an address of this node '
                                      '(it has 127.0.0.1, 172.18.0.5)')
    assert '172.18.0.5' in found[0]['fix']


def test_nothing_is_said_before_the_node_was_read():
    assert publish_address_problems('10.9.9.9', None) == []
    assert publish_address_problems('10.9.9.9', []) == []


@pytest.mark.parametrize('address', ['::', '::1', '2001:db8::5', '[::1]'])
def test_an_ipv6_publish_address_on_a_node_without_ipv6_is_refused(address):
    found = publish_address_problems(address, ['127.0.0.1', '172.18.0.5'])
    assert len(found) == 1 and 'has no IPv6 address' in found[0]['msg'] and 'disable_ipv6' in found[0]['fix']
    # IPv4 and the wildcard '' or 0.0.0.0 still pass there.
    for ipv4 in ('', '0.0.0.0', '127.0.0.1'):
        assert publish_address_problems(ipv4, ['127.0.0.1', '172.18.0.5']) == []


# ------------------------------------------------------------------ the model cache on the node
from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._serve import cache_dir_problems  # noqa: E402


@pytest.mark.parametrize('found, words', [
    ({'exists': True, 'isdir': True, 'writable': True}, None),
    ({'exists': False, 'isdir': False, 'writable': True}, None),  # container_run creates it
    ({'exists': True, 'isdir': True, 'writable': False}, 'is not writable on the node'),
    ({'exists': False, 'isdir': False, 'writable': False}, 'does not exist and cannot be created'),
    ({'exists': True, 'isdir': False, 'isreg': True, 'writable': True}, 'is a file on the node'),
    ({'exists': True, 'isdir': True}, None),  # an older node read: nothing known
])
def test_the_model_cache_must_be_a_directory_root_can_write(found, words):
    problems = cache_dir_problems('/root/.cache', {'/root/.cache': found})
    if words is None:
        assert problems == []
    else:
        assert len(problems) == 1 and words in problems[0]['msg']
        assert problems[0]['msg'].startswith('vllm_serve_model_cache_dir="/root/.cache"')
        assert 'vllm_serve_model_cache_dir' in problems[0]['fix']
