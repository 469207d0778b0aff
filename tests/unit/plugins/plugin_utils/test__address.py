# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Addresses in port mappings and URLs, judged by the programs that read them.

The port mapping goes to community.docker's own parser (the one docker_container runs); the
URL to Python's URL parser (the one vllm_ready's HTTP client uses). Addresses are generated
(IPv4, IPv6, wildcards, loopback), so a form nobody listed is covered too.
"""

import ipaddress
from urllib.parse import urlsplit

import pytest
from hypothesis import given, settings, strategies as st

try:  # community.docker 5 made its module_utils private (_module_container); 4.x, bundled with ansible 12
    from ansible_collections.community.docker.plugins.module_utils._module_container.base import _preprocess_ports
except ImportError:
    from ansible_collections.community.docker.plugins.module_utils.module_container.base import _preprocess_ports

from ansible_collections.ascend.vllm.plugins.plugin_utils.fleet._metrics import metrics_targets
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._address import (
    port_mapping, reach_address, url, with_urls)


class _Refused(Exception):
    pass


class _Module(object):
    """What community.docker's parser needs of AnsibleModule: fail_json."""

    def fail_json(self, msg, **_kwargs):
        raise _Refused(msg)


def docker_binds(mapping):
    """{container port: (host ip, host port)} as docker_container would send it to the Engine."""
    return _preprocess_ports(_Module(), {'published_ports': [mapping]})['published_ports']


ADDRESSES = st.one_of(
    st.ip_addresses(v=4).map(str), st.ip_addresses(v=6).map(str),
    st.sampled_from(['', '0.0.0.0', '::', '127.0.0.1', '::1', '2001:db8::1', 'fe80::1']))
PORTS = st.integers(min_value=1, max_value=65535)


@settings(max_examples=300, deadline=None)
@given(ADDRESSES, PORTS)
def test_docker_reads_the_mapping_as_the_address_and_port_meant(address, port):
    binds = docker_binds(port_mapping(address, port))
    if address:
        assert binds == {port: (address, str(port))}
    else:
        assert list(binds) == [port] and binds[port][1] == str(port)


@settings(max_examples=300, deadline=None)
@given(ADDRESSES, PORTS)
def test_the_url_reaches_the_published_address(address, port):
    parts = urlsplit(url(address, port))
    assert parts.scheme == 'http' and parts.port == port
    reached = ipaddress.ip_address(parts.hostname)
    if address in ('', '0.0.0.0', '::'):
        assert reached.is_loopback and reached.version == (6 if address == '::' else 4)
    else:
        assert reached == ipaddress.ip_address(address)


@pytest.mark.parametrize('address, mapping, target', [
    ('', '8080:8080', 'http://127.0.0.1:8080'),
    ('0.0.0.0', '0.0.0.0:8080:8080', 'http://127.0.0.1:8080'),
    ('127.0.0.1', '127.0.0.1:8080:8080', 'http://127.0.0.1:8080'),
    ('::', '[::]:8080:8080', 'http://[::1]:8080'),
    ('::1', '[::1]:8080:8080', 'http://[::1]:8080'),
    ('2001:db8::5', '[2001:db8::5]:8080:8080', 'http://[2001:db8::5]:8080'),
])
def test_the_forms_an_operator_writes(address, mapping, target):
    assert port_mapping(address, 8080) == mapping
    assert url(address, 8080) == target


def test_the_unbracketed_form_docker_refuses_is_never_built():
    # What 0.1.0 built for an IPv6 publish address, and community.docker's answer to it.
    with pytest.raises(_Refused, match='square brackets'):
        docker_binds(':::8080:8080')
    assert port_mapping('::', 8080) != ':::8080:8080'


def test_every_planned_instance_carries_its_url():
    plan = with_urls([{'name': 'a', 'port': 8080}, {'name': 'b', 'port': 8081}], '::1')
    assert [entry['url'] for entry in plan] == ['http://[::1]:8080', 'http://[::1]:8081']
    assert reach_address('10.0.0.5') == '10.0.0.5'


def test_prometheus_targets_bracket_ipv6():
    groups = metrics_targets([{'name': 'a', 'port': 8080, 'container_name': 'c', 'options': {}}], 'h',
                             'atlas_300i_duo', '2001:db8::7')
    assert groups[0]['targets'] == ['[2001:db8::7]:8080']
