# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Addresses, one home: wildcards, loopback, IPv6 brackets in port mappings and URLs.

Every place that turns a publish address into something another program reads --
Docker's port mapping (community.docker's ``published_ports``), the URL the
readiness check and the smoke tests call from the node, a Prometheus target, an
HAProxy bind -- asks this module, so an IPv6 address is bracketed where the
consumer's grammar needs it and never where it does not. Pure.
"""

from __future__ import annotations

# A publish address that means "every address of the node".
WILDCARDS = ('', '0.0.0.0', '::')


def is_wildcard(address):
    """Whether ``address`` publishes on every address of the node ('' , 0.0.0.0, ::)."""
    return address is None or address in WILDCARDS


def is_ipv6(address):
    """Whether ``address`` (bracketed or not) is an IPv6 address."""
    return isinstance(address, str) and ':' in address.strip('[]')


def bracketed(address):
    """``address`` as a URL or ``host:port`` writes it: an IPv6 address in brackets, once."""
    address = str(address)
    if is_ipv6(address) and not address.startswith('['):
        return '[%s]' % address
    return address


def port_mapping(address, port, container_port=None):
    """Docker's ``[ADDRESS:]PORT:CONTAINER_PORT`` for community.docker's ``published_ports``.

    '' publishes on every address (Docker's default); an IPv6 address is written in brackets,
    as community.docker's parser requires (``[::1]:8080:8080``; ``:::8080:8080`` is refused).
    """
    container_port = port if container_port is None else container_port
    if not address:
        return '%s:%s' % (port, container_port)
    return '%s:%s:%s' % (bracketed(address), port, container_port)


def reach_address(publish_address):
    """The address to call a published port at from the node itself.

    A wildcard is reached on loopback of its own family (IPv6 ``::`` on ``::1``); any other
    address on itself.
    """
    if publish_address in ('', '0.0.0.0') or publish_address is None:
        return '127.0.0.1'
    if publish_address == '::':
        return '::1'
    return str(publish_address).strip('[]')


def host_port(address, port):
    """``host:port`` (``[v6]:port``)."""
    return '%s:%s' % (bracketed(address), port)


def url(publish_address, port, scheme='http'):
    """The URL of a port published on ``publish_address``, called from the node."""
    return '%s://%s' % (scheme, host_port(reach_address(publish_address), port))


def with_urls(plan, publish_address):
    """The planned instances, each with the ``url`` the node calls it at (readiness, smoke tests)."""
    return [dict(entry, url=url(publish_address, entry.get('port'))) for entry in plan]
