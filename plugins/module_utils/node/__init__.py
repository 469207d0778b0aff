# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The node: one read of it (node_facts) and what is judged of that read (npu-smi, Docker, paths,
registry).
"""
