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
requirements:
  - matplotlib (for the plots, on the controller)
extends_documentation_fragment:
  - ascend.vllm.module
  - ansible.builtin.action_common_attributes
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
    details: Writes nothing in check mode; C(changed) is then true, the report a run would write.
  diff_mode:
    support: full
    details:
      - Every file of the run folder before and after, in check mode too; a new run folder's files show as created
        (C((absent)) before).
      - A plot shows as C(<PNG image, N bytes>) (in check mode C(<PNG image the run would draw>)), not its bytes.
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
diff:
  description: With C(--diff), per file of the run folder, its path (C(before_header), C(after_header); C((absent))
    when it did not exist) and its text C(before) and C(after).
  returned: in diff mode
  type: list
  elements: dict
  version_added: 0.4.0
'''

import datetime
import json
import os

from ansible.module_utils.basic import AnsibleModule, missing_required_lib

from ansible_collections.ascend.vllm.plugins.module_utils._diff import add, current, described
from ansible_collections.ascend.vllm.plugins.module_utils.evaluation._eval import REFERENCE, aisbench_model_config
from ansible_collections.ascend.vllm.plugins.module_utils.evaluation._eval_provenance import provenance_rows
from ansible_collections.ascend.vllm.plugins.module_utils.evaluation._eval_report import (
    HAS_MATPLOTLIB, accuracy_rows, host_provenance, markdown, performance_rows, plot_compare, plot_levels, slug)

PNG = 'PNG image'


class Writer:
    """The files of the run folder: each written (not in check mode), listed, and shown with --diff before and after
    (a new report shows as created; a plot as its size, or in check mode as a plot the run would draw)."""

    def __init__(self, module, path):
        self.module, self.path, self.diff = module, path, module._diff  # pylint: disable=protected-access
        self.files, self.result = [], {}

    def text(self, name, text):
        full = os.path.join(self.path, name)
        before = current(full)
        if not self.module.check_mode:
            with open(full, 'w') as handle:
                handle.write(text)
            self.files.append(name)
        add(self.result, self.diff, full, before, described(text))

    def plots(self, names, draw):
        """``draw()`` writes the PNG files ``names`` (matplotlib)."""
        befores = [current(os.path.join(self.path, name), PNG) for name in names]
        if not self.module.check_mode:
            draw()
            self.files.extend(names)
        for name, before in zip(names, befores):
            full = os.path.join(self.path, name)
            add(self.result, self.diff, full, before, '<%s the run would draw>\n' % PNG if self.module.check_mode else current(full, PNG))


def write_instances(writer, results, params, notes):
    """Per instance: its Markdown table and, with a sweep, its two plots."""
    path = writer.path
    for host in sorted(results):
        for inst in results[host]:
            one = {host: [inst]}
            acc, _fail = accuracy_rows(one, params['tolerance'], params['references'])
            stem = '%s-%s' % (slug(host), slug(inst['name']))
            title = '%s / %s (%s)' % (host, inst['name'], inst.get('model'))
            prov = provenance_rows(host_provenance(one, params['provenance']))
            writer.text(stem + '.md', markdown(title, acc, performance_rows(one), params['tolerance'], notes, prov))
            settings = params['settings']
            writer.text(stem + '-vllm_api_general_chat.py', aisbench_model_config(
                '%s/%s' % (host, inst['name']), inst, settings.get('host', '127.0.0.1'),
                settings.get('max_out_len', 4096), settings.get('batch_size', 16)))
            if inst.get('performance'):
                names = [stem + '-throughput.png', stem + '-latency.png']
                writer.plots(names, lambda inst=inst, host=host, names=names: plot_levels(
                    inst['performance'], '%s/%s' % (host, inst['name']), os.path.join(path, names[0]),
                    os.path.join(path, names[1])))


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
    performance = any(inst.get('performance') for insts in results.values() for inst in insts)
    if performance and not HAS_MATPLOTLIB and not module.check_mode:
        module.fail_json(msg=missing_required_lib('matplotlib'), path=path, failures=failures)
    if not module.check_mode:
        os.makedirs(path, exist_ok=True)
    writer = Writer(module, path)
    raw = {'run_id': params['run_id'], 'date': date, 'tolerance': params['tolerance'], 'settings': params['settings'],
           'reference': dict(REFERENCE, **params['references']), 'provenance': provenance, 'results': results,
           'failures': failures}
    writer.text('results.json', json.dumps(raw, indent=2, sort_keys=True))
    writer.text('summary.md', summary)
    write_instances(writer, results, params, notes)
    if performance:
        writer.plots(['compare.png'], lambda: plot_compare(results, os.path.join(path, 'compare.png'),
                                                           'Run %s: every host and instance' % params['run_id']))
    # In check mode nothing is written (files is empty); changed says that a run would write the report.
    module.exit_json(changed=True, path=path, files=writer.files, failures=failures, summary=summary, date=date,
                     **writer.result)


if __name__ == '__main__':
    main()
