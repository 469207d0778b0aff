# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The marks by which every phase finds what the collection runs on a node: its containers' labels
(plugin_utils/contracts/_container_spec.labels writes them) and the value its systemd units carry (_unit.py)."""

# Marks the containers (and, as MANAGED_VALUE, the units) this collection created.
MANAGED_LABEL = 'ascend.vllm.managed-by'
MANAGED_VALUE = 'ascend.vllm'
# The instance a container of ours runs.
INSTANCE_LABEL = 'ascend.vllm.instance'
# The digest of everything the collection asks Docker for (plugin_utils/contracts/_container_spec.spec_digest): a
# later run that plans the same container with the same image knows from the node's one read that nothing would
# change, and skips the replacement path.
SPEC_LABEL = 'ascend.vllm.spec'
