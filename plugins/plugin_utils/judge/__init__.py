# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The node judged on the controller: the node read as preflight runs it and the problems found in it."""
