#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import annotations

DOCUMENTATION = r'''
---
module: eval_plan
short_description: Check the eval role's variables and read its datasets, on the controller
version_added: 0.3.0
description:
  - >-
    Reads the task host's C(eval_*) variables (templated, as the C(eval) role reads them) and judges them before any
    request is sent: known datasets, a local directory per dataset that holds the file AISBench reads (nothing is
    downloaded at run time), a tolerance from 0 to 100, the runner, positive concurrency levels and counts, a report
    directory, and that the controller can draw the plots (matplotlib).
  - >-
    With C(eval_runner=aisbench) it also checks that AISBench is installed in C(eval_aisbench_venv) (null: where
    C(make aisbench) installs it) and that each dataset directory has every file AISBench's loader opens (gsm8k
    C(train.jsonl) and C(test.jsonl); textvqa its questions, annotations and images), naming the command to
    install it or the missing file.
  - >-
    When there is no problem and the builtin runner scores gsm8k, it also reads C(test.jsonl) of the gsm8k
    directory (the first C(eval_limit) questions) so the runner on the node gets the questions and gold numbers;
    for textvqa it reads the questions, their annotators' answers and the images (base64, at most 64 MB in all:
    set C(eval_limit) or use the AISBench runner for the whole set).
  - >-
    Fails with every problem at once (a count line, then each problem naming the variable, its value and the fix).
  - >-
    Runs on the controller (an action plugin), where the dataset directories are; no host is contacted. The C(eval)
    role runs it first and registers its result as C(__eval_inputs).
extends_documentation_fragment:
  - ascend.vllm.module.action
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.flow
options: {}
attributes:
  action:
    details: Only the action plugin exists; everything is computed and read on the controller.
  check_mode:
    details: Only judges and reads, so check mode gives the same result.
  platform:
    platforms: all
seealso:
  - module: ascend.vllm.vllm_eval
  - module: ascend.vllm.aisbench_eval
'''

EXAMPLES = r'''
- name: Check the evaluation inputs and read the datasets (every problem at once)
  ascend.vllm.eval_plan:
  register: eval_inputs

- name: Score the datasets from the node with what the controller read
  ascend.vllm.vllm_eval:
    action: run
    instances: [{name: default, port: 8080}]
    datasets: "{{ eval_inputs.datasets }}"
'''

RETURN = r'''
problems:
  description: Each problem as C({check, msg, fix}); empty when all is well.
  returned: always
  type: list
  elements: dict
datasets:
  description: Dataset name to its items for the builtin runner (gsm8k C({question, answer}); textvqa
    C({question_id, question, answers, image})); empty otherwise.
  returned: success
  type: dict
aisbench_venv:
  description: The AISBench virtual environment the AISBench runner uses (C(eval_aisbench_venv) or its default).
  returned: success
  type: str
report_dir:
  description: C(eval_report_dir) as an absolute path, a relative one taken from the directory ansible-playbook
    was run from (the controller's working directory).
  returned: success
  type: str
aisbench_dirs:
  description: For the AISBench runner, each dataset of C(eval_datasets) to its directory as an absolute path;
    empty otherwise.
  returned: success
  type: dict
'''

from ansible_collections.ascend.vllm.plugins.module_utils._controller_only import controller_only


def main():
    # The eval_* variables and the dataset directories are the controller's: only the action plugin can read them.
    controller_only('eval_plan', {})


if __name__ == '__main__':
    main()
