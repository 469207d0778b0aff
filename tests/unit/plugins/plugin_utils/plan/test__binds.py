# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Every port a component of the plan binds on the node is declared, so that the one node read looks at it and
the judge refuses it when someone else holds it (issue: "a component cannot use one it did not declare")."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings, strategies as st

from test__host import plan_for, read_request_for  # noqa: E402  pylint: disable=import-error

from ansible_collections.ascend.vllm.plugins.plugin_utils.plan._node import node_query  # noqa: E402

PORTS = st.integers(min_value=1025, max_value=60000)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow],
          max_examples=int(os.environ.get('ASCEND_HYPOTHESIS_EXAMPLES', '60')) // 20 or 1)
@given(count=st.integers(min_value=1, max_value=2), first=PORTS, balancer=st.sampled_from([None, True, False]),
       balancer_port=PORTS, metrics_port=PORTS, method=st.sampled_from(['image', 'source']))
def test_every_port_the_plan_binds_is_one_the_node_read_looks_at(count, first, balancer, balancer_port,
                                                                 metrics_port, method):
    user = {'vllm_serve_instances': [{'name': 'i%d' % n, 'chips': [n], 'port': first + n} for n in range(count)],
            'balancer_port': balancer_port, 'balancer_metrics_port': metrics_port, 'vllm_serve_install_method': method}
    if method == 'source':
        user['vllm_serve_source_wheelhouse'] = '/srv/wheelhouse'
    if balancer is not None:
        user['balancer_enabled'] = balancer
    planned = plan_for(user)
    if planned['problems']:
        return  # refused (ports that collide): nothing binds
    bound = set(entry['port'] for entry in planned['instances'])
    front = planned.get('balancer') or {}
    if front.get('enabled'):
        bound |= set(frontend['port'] for frontend in front['frontends']) | {metrics_port}
    query = node_query(read_request_for(user), planned)
    assert bound <= set(query['ports'])
    if front.get('enabled'):
        assert 'vllm-balancer' in query['containers']
