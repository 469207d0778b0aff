# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The node: one read of it (node_facts) and what is judged of that read (npu-smi, Docker, paths,
registry).
"""

# The Ascend driver's version file (the format of a real capture: Version=24.1.rc2.2).
DRIVER_VERSION_FILE = '/usr/local/Ascend/driver/version.info'
