# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Evaluation after deploy: scoring, the AISBench runner, the client, provenance and the report.
"""
