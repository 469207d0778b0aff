#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import annotations

DOCUMENTATION = r'''
---
module: job_wait
short_description: Wait for a long background job on the node and print the newest line of its log
version_added: 0.4.0
description:
  - Waits for a job started as an Ansible async job (C(async) and C(poll=0)) that writes what it does to a log file on
    the node - the source build of vllm-ascend, the built-in evaluation - and returns the job's result as RV(answer)
    once the job has ended. It never changes anything itself.
  - On the controller, the module's action plugin runs it on the node again and again, each run returning after at
    most O(report_after) seconds, and prints one progress line after each run (O(what), the time spent and the time
    left, the newest line of O(log)) at every verbosity, until the job ends or O(timeout) seconds have passed.
  - The job's result is read from its results file twice a second, so the wait ends within about half a second of the
    job.
extends_documentation_fragment:
  - ascend.vllm.module
  - ansible.builtin.action_common_attributes
  - ascend.vllm.job_wait
options:
  log:
    description: The file the job writes its progress or output to; a carriage return ends a line too.
    type: path
    required: true
  what:
    description: What the job does (C(building vllm-ascend)), as the progress line starts and as the failure at
      O(timeout) says, C(WHAT did not end within the timeout).
    type: str
    default: running
attributes:
  check_mode:
    details: The module only reads.
  platform:
    support: N/A
seealso:
  - module: ascend.vllm.image_pull_wait
'''

EXAMPLES = r'''
- name: Build in the background, writing its output to a log
  ansible.builtin.command:
    argv: [/bin/sh, -c, '"$@" > "$0" 2>&1; rc=$?; cat "$0"; exit $rc', /var/tmp/build.log, make, -j4]
  async: 7200
  poll: 0
  register: build_job

- name: Wait for it, with a progress line every 30 seconds
  ascend.vllm.job_wait:
    results_file: "{{ build_job.results_file }}"
    log: /var/tmp/build.log
    what: building
    timeout: 7200
    report_after: 30
  register: built
'''

RETURN = r'''
answer:
  description: The job's result (the module's return values, or the job's failure), once the job has ended.
  returned: success
  type: dict
finished:
  description: Whether the job has ended (false only from a run of the module itself, before the action plugin calls
    it again).
  returned: always
  type: bool
progress:
  description: C(log), C(size) (its bytes, null while it does not exist) and C(newest) (its last line that is not
    blank) in the last run; null when the job had ended before the run looked.
  returned: always
  type: dict
seconds:
  description: Seconds the whole wait took (the action plugin), or the last run (the module).
  returned: always
  type: float
'''

from ansible_collections.ascend.vllm.plugins.module_utils._job_wait import job_wait_module
from ansible_collections.ascend.vllm.plugins.module_utils._text import read_text
from ansible_collections.ascend.vllm.plugins.module_utils.node._pull_watch import FileObserver, job_answer, newest_line, watch_pull


def main():
    module = job_wait_module(dict(log=dict(type='path', required=True), what=dict(type='str', default='running')))
    params = module.params
    path = params['results_file']
    result = watch_pull(lambda: job_answer(read_text(path)), FileObserver(lambda: newest_line(params['log'])), params['report_after'])
    module.exit_json(changed=False, **result)


if __name__ == '__main__':
    main()
