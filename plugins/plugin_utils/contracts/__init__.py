# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The contracts of the request: the option table, the model and platform catalogs, the version data,
the image inputs and the vllm_config rules (planner) that build the vllm serve command.
"""
