# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Serving on a node: the instances, container specs, readiness, progress, keep-last-good, rolling
upgrades and diagnostics.
"""
