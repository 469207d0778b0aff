#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import annotations

DOCUMENTATION = r'''
---
module: aisbench_eval
short_description: Score datasets and sweep performance of vLLM instances with AISBench
version_added: 0.2.0
description:
  - The AISBench runner of the C(ascend.vllm.eval) role (C(eval_runner=aisbench)). Runs on the controller, where
    AISBench (C(ais-bench-benchmark), pinned) lives in a cached virtual environment (C(make aisbench)), and
    talks to each instance at O(host) and its port.
  - For each instance it writes the guide's C(VLLMCustomAPIChat) model config (the vllm-ascend docs,
    "Qwen3.5-Dense" tutorial, section 7; temperature 0, C(enable_thinking=False)) with AISBench's own dataset
    configs (gsm8k 0-shot CoT chat prompt, textvqa base64) pointed at the local O(dataset_dirs) (textvqa through a
    copy of its question file with absolute image paths), and runs
    C(ais_bench <config> --dump-eval-details) (accuracy), then C(ais_bench <config> -m perf) with one streaming
    model per O(concurrency) level over O(requests) prompts of O(input_len) words asking for O(output_len)
    tokens (performance).
  - Reads AISBench's C(results/), C(performances/*/perf.csv) and C(perf.json) into the shape
    M(ascend.vllm.vllm_eval) returns, so M(ascend.vllm.eval_report) writes the same report. AISBench's own run
    folders stay under O(workdir).
  - The inputs are checked by the role before this runs (the environment installed, the dataset layout AISBench
    reads); an AISBench task that fails (its CLI exits 0 then) fails the module with the end of its log.
extends_documentation_fragment:
  - ascend.vllm.module
  - ansible.builtin.action_common_attributes
  - ascend.vllm.eval_load
options:
  venv:
    description: The AISBench virtual environment (C(bin/ais_bench) in it).
    type: path
    required: true
  host:
    description: Address of the servers as seen from the controller.
    type: str
    required: true
  where:
    description: Name of the host the instances run on, for the config comments and folder names.
    type: str
    required: true
  instances:
    description: The instances, each C({name, port, served, model}) as M(ascend.vllm.vllm_eval) probes them.
    type: list
    elements: dict
    required: true
  api_key:
    description: Bearer token, when the servers were started with C(--api-key) (written into the configs, mode 0600).
    type: str
  dataset_dirs:
    description: Dataset name (C(gsm8k), C(textvqa)) to its local directory as AISBench keeps it; empty for no
      accuracy run.
    type: dict
    default: {}
  limit:
    description: Score only the first N questions of each dataset.
    type: int
  tokenizer:
    description: A tokenizer directory on the controller for AISBench's perf summarizer (the model's). AISBench
      counts tokens with it only when a response has no usage (vLLM always sends usage); when not given, a
      whitespace tokenizer is written into O(workdir) to pass AISBench's check.
    type: path
  workdir:
    description: Folder on the controller for the configs and AISBench's run folders (one per instance and mode).
    type: path
    required: true
  timeout:
    description: Seconds one C(ais_bench) run may take.
    type: int
    default: 3600
attributes:
  check_mode:
    details: In check mode nothing is written or sent; the instances come back without results, and C(changed) is
      true (a run writes the configs and sends the requests).
  diff_mode:
    support: partial
    details:
      - Every file the module writes under O(workdir) (the model configs, the performance dataset, the stand-in
        tokenizer, the textvqa question copies) before and after, in check mode too; O(api_key) shows as
        C(********).
      - AISBench's own run folders under O(workdir) are not shown.
notes:
  - Sends load to the servers; run it after the deploy, not during one.
'''

EXAMPLES = r'''
- name: Score gsm8k and sweep concurrency 1, 4 and 16 with AISBench
  ascend.vllm.aisbench_eval:
    venv: ~/.cache/ascend-vllm/aisbench-3.1.20260630
    host: 10.0.0.11
    where: node1
    instances: [{name: default, port: 8080, served: qwen3.5, model: Qwen/Qwen3.5-2B}]
    dataset_dirs:
      gsm8k: /data/gsm8k
    concurrency: [1, 4, 16]
    workdir: eval-results/aisbench/node1
  delegate_to: localhost
'''

RETURN = r'''
instances:
  description: One entry per instance, as given, with C(accuracy) (dataset to C({accuracy, correct, total,
    errors, details}), the score AISBench computed), C(performance) (one summary per level, as
    M(ascend.vllm.vllm_eval) returns them) and C(aisbench) (its run folders).
  returned: always
  type: list
  elements: dict
diff:
  description: With C(--diff), per file written, its path (C(before_header), C(after_header); C((absent)) when it did
    not exist) and its text before and after, the API key hidden.
  returned: in diff mode, when a file changes
  type: list
  elements: dict
  version_added: 0.4.0
'''

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.ascend.vllm.plugins.module_utils._diff import add, current, described, hide
from ansible_collections.ascend.vllm.plugins.module_utils.evaluation._load import LOAD_SPEC
from ansible_collections.ascend.vllm.plugins.module_utils.evaluation._eval_aisbench import (
    accuracy_config, failure_log, latest_run, perf_config, perf_dataset, read_accuracy, read_performance,
    stand_in_tokenizer, textvqa_files)


def ais_bench(module, args, what, cwd):
    """Run ais_bench in cwd (it writes a tmp/ folder there); fail naming what it was doing and its last lines."""
    cmd = [os.path.join(module.params['venv'], 'bin', 'ais_bench')] + args
    # coreutils' timeout ends a run that hangs (exit 124); AnsibleModule.run_command has no timeout.
    rc, out, err = module.run_command(['timeout', str(module.params['timeout'])] + cmd, cwd=cwd,
                                      environ_update={'TERM': 'dumb'})
    if rc == 124:
        module.fail_json(msg='%s: ais_bench took more than %d s (timeout)' % (what, module.params['timeout']))
    if rc != 0:
        tail = (err or out or '').strip().splitlines()[-5:]
        module.fail_json(msg='%s: ais_bench exited %d: %s' % (what, rc, ' | '.join(tail)), cmd=cmd)


def accuracy_files(params, entry, target, base):
    """The files of an accuracy run, in the order they are written: (path, text) each, and the config's path."""
    files = []
    dirs = dict(params['dataset_dirs'])
    if 'textvqa' in dirs:
        # AISBench opens the images from its working directory: a copy of the questions with absolute paths.
        local = os.path.join(base, 'textvqa')
        files.extend((os.path.join(local, name), text) for name, text in textvqa_files(dirs['textvqa']).items())
        dirs['textvqa'] = local
    config = os.path.join(base, 'accuracy.py')
    files.append((config, accuracy_config('%s/%s' % (params['where'], entry['name']), target, params, dirs)))
    return files, config


def performance_files(params, entry, target, base):
    """The files of a performance run, in the order they are written: (path, text) each, and the config's path."""
    files = []
    tokenizer = params['tokenizer']
    if not tokenizer:
        tokenizer = os.path.join(base, 'tokenizer')
        files.extend((os.path.join(tokenizer, name), text) for name, text in stand_in_tokenizer().items())
    dataset = os.path.join(base, 'perf.jsonl')
    files.append((dataset, perf_dataset(params['requests'], params['input_len'], params['output_len'])))
    config = os.path.join(base, 'performance.py')
    files.append((config, perf_config('%s/%s' % (params['where'], entry['name']), target, params, dataset,
                                      tokenizer)))
    return files, config


def write_all(module, result, files):
    """Write each (path, text) of ``files`` only its owner reads (the configs may hold the API key); with --diff,
    show it before and after (the key hidden)."""
    secrets = [module.params['api_key'] or '']
    for path, text in files:
        before = hide(current(path), secrets) if module._diff else None  # pylint: disable=protected-access
        if not module.check_mode:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, 'w') as handle:
                handle.write(text)
        add(result, module._diff, path, before, hide(described(text), secrets))  # pylint: disable=protected-access


def accuracy(module, entry, config, base):
    params = module.params
    what = '%s/%s accuracy' % (params['where'], entry['name'])
    ais_bench(module, [config, '-w', os.path.join(base, 'accuracy'), '--dump-eval-details'], what, base)
    run = latest_run(os.path.join(base, 'accuracy'))
    scores = read_accuracy(run) if run else {}
    missing = sorted(set(params['dataset_dirs']) - set(scores))
    if missing:
        module.fail_json(msg='%s: AISBench scored no %s; its log: %s' % (what, ', '.join(missing),
                                                                         failure_log(run) or 'none'), run=run)
    return scores, run


def performance(module, entry, config, base):
    params = module.params
    what = '%s/%s performance' % (params['where'], entry['name'])
    ais_bench(module, [config, '-m', 'perf', '-w', os.path.join(base, 'performance'), '--max-num-workers', '1'],
              what, base)
    run = latest_run(os.path.join(base, 'performance'))
    try:
        return read_performance(run, params['concurrency']), run
    except (OSError, ValueError, TypeError) as exc:
        module.fail_json(msg='%s: no AISBench performance results (%s); its log: %s'
                         % (what, exc, failure_log(run) or 'none'), run=run)


def evaluate(module, result, entry):
    params = module.params
    base = os.path.abspath(os.path.join(params['workdir'], str(entry['name'])))
    target = {'host': params['host'], 'port': entry['port'], 'served': entry.get('served'),
              'model': entry.get('model')}
    if not module.check_mode:
        os.makedirs(base, exist_ok=True)
    out = dict(entry, accuracy={}, performance=[], aisbench={})
    for kind, wanted, files_of, run in (('accuracy', params['dataset_dirs'], accuracy_files, accuracy),
                                        ('performance', params['concurrency'], performance_files, performance)):
        if wanted:
            files, config = files_of(params, entry, target, base)
            write_all(module, result, files)
            if not module.check_mode:
                out[kind], out['aisbench'][kind] = run(module, entry, config, base)
    # Check mode writes and sends nothing: the entry as given, and (for --diff) the files a run would write.
    return entry if module.check_mode else out


def main():
    module = AnsibleModule(
        argument_spec=dict(
            LOAD_SPEC,
            venv=dict(type='path', required=True),
            host=dict(type='str', required=True),
            where=dict(type='str', required=True),
            instances=dict(type='list', elements='dict', required=True),
            api_key=dict(type='str', no_log=True),
            dataset_dirs=dict(type='dict', default={}),
            limit=dict(type='int'),
            tokenizer=dict(type='path'),
            workdir=dict(type='path', required=True),
            timeout=dict(type='int', default=3600),
        ),
        supports_check_mode=True,
    )
    instances = module.params['instances']
    for item in instances:
        if 'port' not in item or 'name' not in item:
            module.fail_json(msg='instances: every entry needs a name and a port, got %r' % (item,))
    result = {}
    instances = [evaluate(module, result, entry) for entry in instances]
    # In check mode changed says that a run would write the configs and run AISBench.
    module.exit_json(changed=True, instances=instances, **result)


if __name__ == '__main__':
    main()
