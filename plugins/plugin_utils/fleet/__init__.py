# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Across the instances and hosts: the load balancer, Prometheus targets and the AWX objects.
"""
