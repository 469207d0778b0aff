# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import annotations


class ModuleDocFragment:
    """The options of the modules that follow an async job on the node, in runs their action plugin repeats."""

    DOCUMENTATION = r'''
options:
  results_file:
    description: The async job's results file (the C(results_file) that the async task which started it returns).
    type: path
    required: true
  timeout:
    description:
      - Seconds (the controller's clock) the whole wait may take; then the task fails, its message naming the job and
        saying that it did not end within the timeout.
      - The job has its own limit, its C(async) value.
    type: float
    default: 3600
  report_after:
    description: Seconds between two progress lines; also the longest one run of the module on the node takes.
    type: float
    default: 15
'''
