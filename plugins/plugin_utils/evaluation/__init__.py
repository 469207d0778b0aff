# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The eval role's inputs judged on the controller, before any request."""
