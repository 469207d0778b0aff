# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The consumers' grammars (contracts/_grammar), checked against the consumers themselves where they run here."""

import ipaddress
import string

from hypothesis import given, settings, strategies as st

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._grammar import (
    CONTAINER_NAME_RE, ENV_NAME_RE, is_ip_address)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=string.digits + string.hexdigits + '.:', max_size=45))
def test_ip_addresses_are_what_pythons_ipaddress_accepts(text):
    try:
        ipaddress.ip_address(text)
        expected = True
    except ValueError:
        expected = False
    # ipaddress takes IPv4 with leading zeros as an error, as does the grammar's inet_pton for IPv6;
    # the grammar also refuses zone ids and brackets (a Docker port mapping cannot hold them).
    assert is_ip_address(text) == expected or (expected and '%' in text), text


def test_ip_address_examples():
    for good in ('0.0.0.0', '127.0.0.1', '10.0.0.10', '::', '::1', 'fe80::1', '2001:db8::8:800:200c:417a'):
        assert is_ip_address(good), good
    for bad in ('300.1.1.1', '10.0.0.01', ':::', '1.2.3', '[::1]', '127.0.0.1:8080', 'fe80::1%eth0', ''):
        assert not is_ip_address(bad), bad


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=string.ascii_letters + string.digits + '_-. =$', min_size=1, max_size=20))
def test_env_names_are_what_a_posix_shell_can_export(name):
    shell_ok = (name[0] in string.ascii_letters + '_'
                and all(char in string.ascii_letters + string.digits + '_' for char in name))
    assert bool(ENV_NAME_RE.match(name)) == shell_ok


def test_container_names_follow_docker():
    assert CONTAINER_NAME_RE.match('vllm-ascend') and CONTAINER_NAME_RE.match('a')
    for bad in ('-vllm', '.vllm', 'vllm ascend', 'vllm/ascend', ''):
        assert not CONTAINER_NAME_RE.match(bad), bad
