#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import annotations

DOCUMENTATION = r'''
---
module: eval_report
short_description: Write one evaluation run's results, tables and plots, and judge the accuracy gate
version_added: 0.1.0
description:
  - >-
    Runs on the controller (C(delegate_to: localhost), C(run_once)) after the C(ascend.vllm.eval) role evaluated
    every host. Creates O(dest)/O(run_id)/ with C(results.json) (everything the runners returned, with the
    reference table and the settings), C(summary.md) (every host and instance in one table, the reference beside
    each score), one C(<host>-<instance>.md) per instance and, for each instance with a performance sweep,
    C(<host>-<instance>-throughput.png) and C(<host>-<instance>-latency.png) (throughput, TTFT and TPOT against
    concurrency), and C(<host>-<instance>-vllm_api_general_chat.py), the guide's AISBench C(VLLMCustomAPIChat)
    model config for that instance (host, port, served name, C(max_out_len), C(batch_size), temperature 0,
    C(enable_thinking) false).
  - >-
    Every report records its provenance: the date it was written (UTC), the run, and per host and instance the
    node's hostname, the image reference, image id and registry digest, the argv the container was started with,
    and the driver, firmware and CANN versions, as O(provenance) gives them; whatever is not known is written as
    C(unknown), never left out.
  - >-
    Compares each accuracy score with the reference of the instance's model (the vllm-ascend docs,
    "Qwen3.5-Dense" tutorial, section 7, plus O(references)) and returns a failure for each score more than
    O(tolerance) points below it. It does not fail itself, so the report is written either way.
author:
  - ascend.vllm maintainers (!UNKNOWN)
requirements:
  - matplotlib (for the plots, on the controller)
options:
  results:
    description: Host name to the list of instances the runner returned (M(ascend.vllm.vllm_eval) C(instances)).
    type: dict
    required: true
  dest:
    description: Directory the run folder is created in.
    type: path
    required: true
  run_id:
    description: Name of the run folder.
    type: str
    required: true
  tolerance:
    description: Points a score may fall below its reference.
    type: float
    required: true
  references:
    description: Extra or overriding reference scores, model name to dataset to percent.
    type: dict
    default: {}
  provenance:
    description: Host name to what M(ascend.vllm.vllm_eval) read with C(action=provenance) (C(node) and
      C(instances)); a host or a field missing here is reported as C(unknown).
    type: dict
    default: {}
  settings:
    description: The settings of the run, stored in C(results.json); C(host), C(max_out_len) and C(batch_size)
      also go into the AISBench model configs.
    type: dict
    default: {}
attributes:
  check_mode:
    description: Can run in check_mode and return changed status prediction without modifying target.
    support: full
    details: Writes nothing in check mode.
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check_mode), when in diff mode.
    support: none
'''

EXAMPLES = r'''
- name: Write the report of this run
  ascend.vllm.eval_report:
    results: "{{ dict(ansible_play_hosts | zip(ansible_play_hosts | map('extract', hostvars, ['__eval_run', 'instances']))) }}"
    dest: /srv/eval-results
    run_id: 20260101T120000Z
    tolerance: 2.0
  delegate_to: localhost
  run_once: true
'''

RETURN = r'''
path:
  description: The run folder.
  returned: always
  type: str
files:
  description: The files written, relative to RV(path).
  returned: success
  type: list
  elements: str
failures:
  description: Scores under the gate, each C({host, instance, msg}).
  returned: always
  type: list
  elements: dict
summary:
  description: The Markdown of C(summary.md).
  returned: always
  type: str
date:
  description: When the report was written, UTC, ISO 8601.
  returned: always
  type: str
'''

import datetime
import json
import os

from ansible.module_utils.basic import AnsibleModule, missing_required_lib

from ansible_collections.ascend.vllm.plugins.module_utils.evaluation._eval import REFERENCE, aisbench_model_config
from ansible_collections.ascend.vllm.plugins.module_utils.evaluation._eval_provenance import provenance_rows
from ansible_collections.ascend.vllm.plugins.module_utils.evaluation._eval_report import (
    HAS_MATPLOTLIB, accuracy_rows, host_provenance, markdown, performance_rows, plot_compare, plot_levels, slug)


def write(path, name, text, files):
    with open(os.path.join(path, name), 'w') as handle:
        handle.write(text)
    files.append(name)


def write_instances(path, results, params, files, notes):
    """Per instance: its Markdown table and, with a sweep, its two plots."""
    for host in sorted(results):
        for inst in results[host]:
            one = {host: [inst]}
            acc, _fail = accuracy_rows(one, params['tolerance'], params['references'])
            stem = '%s-%s' % (slug(host), slug(inst['name']))
            title = '%s / %s (%s)' % (host, inst['name'], inst.get('model'))
            prov = provenance_rows(host_provenance(one, params['provenance']))
            write(path, stem + '.md', markdown(title, acc, performance_rows(one), params['tolerance'], notes, prov),
                  files)
            settings = params['settings']
            write(path, stem + '-vllm_api_general_chat.py', aisbench_model_config(
                '%s/%s' % (host, inst['name']), inst, settings.get('host', '127.0.0.1'),
                settings.get('max_out_len', 4096), settings.get('batch_size', 16)), files)
            if inst.get('performance'):
                plot_levels(inst['performance'], '%s/%s' % (host, inst['name']),
                            os.path.join(path, stem + '-throughput.png'), os.path.join(path, stem + '-latency.png'))
                files.extend([stem + '-throughput.png', stem + '-latency.png'])


def main():
    module = AnsibleModule(
        argument_spec=dict(
            results=dict(type='dict', required=True),
            dest=dict(type='path', required=True),
            run_id=dict(type='str', required=True),
            tolerance=dict(type='float', required=True),
            references=dict(type='dict', default={}),
            provenance=dict(type='dict', default={}),
            settings=dict(type='dict', default={}),
        ),
        supports_check_mode=True,
    )
    params = module.params
    results = params['results']
    path = os.path.join(params['dest'], params['run_id'])
    acc, failures = accuracy_rows(results, params['tolerance'], params['references'])
    count = sum(len(v) for v in results.values())
    date = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()
    notes = ['%d host(s), %d instance(s); run %s, written %s.' % (len(results), count, params['run_id'], date)]
    provenance = host_provenance(results, params['provenance'])
    summary = markdown('Evaluation summary', acc, performance_rows(results), params['tolerance'], notes,
                       provenance_rows(provenance))
    if module.check_mode:
        module.exit_json(changed=False, path=path, files=[], failures=failures, summary=summary, date=date)
    if any(inst.get('performance') for insts in results.values() for inst in insts) and not HAS_MATPLOTLIB:
        module.fail_json(msg=missing_required_lib('matplotlib'), path=path, failures=failures)
    os.makedirs(path, exist_ok=True)
    files = []
    raw = {'run_id': params['run_id'], 'date': date, 'tolerance': params['tolerance'], 'settings': params['settings'],
           'reference': dict(REFERENCE, **params['references']), 'provenance': provenance, 'results': results,
           'failures': failures}
    write(path, 'results.json', json.dumps(raw, indent=2, sort_keys=True), files)
    write(path, 'summary.md', summary, files)
    write_instances(path, results, params, files, notes)
    if any(inst.get('performance') for insts in results.values() for inst in insts):
        plot_compare(results, os.path.join(path, 'compare.png'), 'Run %s: every host and instance' % params['run_id'])
        files.append('compare.png')
    module.exit_json(changed=True, path=path, files=files, failures=failures, summary=summary, date=date)


if __name__ == '__main__':
    main()
