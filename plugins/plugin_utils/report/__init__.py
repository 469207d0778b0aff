# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""What a run reports of a host, put together from the phases' own lines (serve, fleet)."""
