# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The plans of a host's instances: containers, services, the source install, rolling steps and preflight's report."""
