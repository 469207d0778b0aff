#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import annotations

DOCUMENTATION = r'''
---
module: vllm_eval
short_description: Probe deployed vLLM instances, score gsm8k and textvqa, sweep performance from the node
version_added: 0.1.0
description:
  - The builtin runner of the C(ascend.vllm.eval) role. Runs where the server is (the vllm-ascend docs,
    "Qwen3.5-Dense" tutorial, section 7 points AISBench at C(127.0.0.1)) and talks to each instance over its
    OpenAI API with the requests AISBench's C(VLLMCustomAPIChat) sends (one user turn, temperature 0,
    O(max_out_len), C(chat_template_kwargs.enable_thinking=false)), streamed.
  - With O(action=probe) it only asks C(GET /v1/models) of each instance and reports the served name and
    model, or a problem naming an instance that does not answer. No load is sent.
  - >-
    With O(action=provenance) it reads what each instance runs and on what, for the report (RV(provenance)):
    the node's hostname, the driver version (C(/usr/local/Ascend/driver/version.info)) and the firmware version
    (C(/usr/local/Ascend/firmware/version.info)), and from the Docker Engine the instance's container (its
    C(container_name)): image reference, image id, registry digest, the argv it was started with (the value of
    C(--api-key) hidden) and the CANN version inside it (C(ascend_toolkit_install.info) or C(version.cfg) under
    the container's C(ASCEND_TOOLKIT_HOME)). Whatever cannot be read is C(unknown). No request is sent to vLLM.
  - With O(action=run) it sends the gsm8k questions given in O(datasets) (at most O(batch_size) at a time)
    and scores the replies like AISBench's gsm8k evaluator (the last C(\boxed{}) or the last number, equal
    within 1e-6 to the number after C(####)), and the textvqa questions (the image and the question in one user
    turn, as AISBench's C(textvqa_gen_base64) sends them) scored like AISBench's C(TEXTEvaluator) (VQA accuracy
    over the annotators' answers); then, for each O(concurrency) level, sends synthetic prompts of
    O(input_len) words asking for O(output_len) tokens and times each stream (TTFT, TPOT, end-to-end).
  - Standard library only; nothing is installed or changed.
extends_documentation_fragment:
  - ascend.vllm.module
  - ansible.builtin.action_common_attributes
  - ascend.vllm.eval_load
  - ascend.vllm.docker_engine
options:
  action:
    description: C(probe) asks each instance what it serves; C(run) evaluates; C(provenance) reads what each
      instance runs and on what.
    type: str
    choices: [probe, run, provenance]
    default: probe
  host:
    description: Address of the servers as seen from where the module runs.
    type: str
    default: 127.0.0.1
  instances:
    description: The instances, each with C(name) and C(port); C(served) (the served model name) is asked
      of the server when not given. Other keys are ignored, so a vllm_serve plan entry can be passed as is.
    type: list
    elements: dict
    required: true
  api_key:
    description: Bearer token, when the servers were started with C(--api-key).
    type: str
  datasets:
    description: Dataset name to its items, C(gsm8k) C({question, answer}) (answer the gold number) and
      C(textvqa) C({question_id, question, answers, image}) (image in base64), as M(ascend.vllm.eval_plan) reads
      them.
    type: dict
    default: {}
  requests:
    description: Requests per concurrency level (at least the level itself).
  timeout:
    description: Seconds one request may take.
    type: int
    default: 600
  progress_file:
    description:
      - With V(run), a file on the node the module empties when it starts and appends a line to after each request
        ends (the instance, the dataset or the concurrency level, how many requests of how many are done), for
        M(ascend.vllm.job_wait) to show while the module runs as an async job (the eval role does).
    type: path
    version_added: 0.4.0
attributes:
  check_mode:
    details: Only reads; O(action=run) sends no requests in check mode.
  diff_mode:
    details:
      - The one file it writes is its own progress log (O(progress_file)), read by M(ascend.vllm.job_wait) while it
        runs; the results are returned, and M(ascend.vllm.eval_report) writes (and diffs) the report.
notes:
  - Sends load to the servers with O(action=run); run it after the deploy, not during one.
'''

EXAMPLES = r'''
- name: Ask each instance what it serves
  ascend.vllm.vllm_eval:
    action: probe
    instances: [{name: default, port: 8080}]

- name: Read what each instance runs (image, digest, argv) and on what (driver, firmware, CANN)
  ascend.vllm.vllm_eval:
    action: provenance
    instances: [{name: default, port: 8080, container_name: vllm-ascend}]

- name: Score gsm8k and sweep concurrency 1, 4 and 16
  ascend.vllm.vllm_eval:
    action: run
    instances: [{name: default, port: 8080, served: qwen3.5}]
    datasets:
      gsm8k: [{question: "1 + 1?", answer: "2"}]
    concurrency: [1, 4, 16]
'''

RETURN = r'''
instances:
  description: One entry per instance, as given, with C(up), C(served), C(model) and C(error) (probe), and
    C(accuracy) (dataset to C({accuracy, correct, total, errors, duration_s, details})) and C(performance)
    (one summary per level, C(records) per request) after O(action=run).
  returned: always
  type: list
  elements: dict
message:
  description: The failure message naming every instance that does not answer, or empty.
  returned: always
  type: str
problems:
  description: Instances that do not answer, in the preflight report shape C({check, msg, fix}).
  returned: always
  type: list
  elements: dict
provenance:
  description: With O(action=provenance), C(node) (C(hostname), C(driver), C(firmware)) and C(instances), one
    C({instance, container, image, image_id, digest, argv, cann}) per instance; C(unknown) where nothing was found.
  returned: with O(action=provenance)
  type: dict
  sample:
    node: {hostname: atlas-01, driver: 24.1.rc2.2, firmware: unknown}
    instances:
      - instance: default
        container: vllm-ascend
        image: quay.io/ascend/vllm-ascend:v0.23.0-310p
        image_id: sha256:0b1c...
        digest: sha256:4f1c...
        argv: [vllm, serve, /models/Qwen3.5-4B, --port, '8080']
        cann: 8.2.RC2
'''

import socket

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.ascend.vllm.plugins.module_utils.evaluation._eval import gsm8k_prompt, gsm8k_score, problems_report
from ansible_collections.ascend.vllm.plugins.module_utils.evaluation._load import LOAD_SPEC
from ansible_collections.ascend.vllm.plugins.module_utils.evaluation._eval_textvqa import textvqa_content, textvqa_score
from ansible_collections.ascend.vllm.plugins.module_utils.evaluation._eval_client import (
    accuracy_replies, performance_sweep, probe)
from ansible_collections.ascend.vllm.plugins.module_utils.evaluation._eval_provenance import (
    FIRMWARE_VERSION_FILE, UNKNOWN, cann_paths, cann_version, file_from_tar,
    instance_provenance, node_provenance)
from ansible_collections.ascend.vllm.plugins.module_utils.node import DRIVER_VERSION_FILE
from ansible_collections.ascend.vllm.plugins.module_utils.node._node_docker import DockerApi, DockerError, engine_host, inspect_raw
from ansible_collections.ascend.vllm.plugins.module_utils._text import read_text

from urllib.parse import quote


def _container_file(api, container, path):
    """A file inside a container (GET /containers/{id}/archive), or None."""
    try:
        status, body = api.request('/containers/%s/archive?path=%s' % (quote(container, safe=''), quote(path, safe='')))
    except DockerError:
        return None
    return file_from_tar(body) if status == 200 else None


def provenance_of(params):
    """What each instance runs and on what; ``unknown`` for whatever cannot be read."""
    api = DockerApi(engine_host(params['docker_host']))
    instances = []
    for item in params['instances']:
        container = item.get('container_name')
        inspect = image = None
        cann = UNKNOWN
        if container:
            try:
                inspect = inspect_raw(api, container)
                if inspect and inspect.get('Image'):
                    image = api.get('/images/%s/json' % quote(inspect['Image'], safe=''))
            except DockerError:
                # An engine that cannot be asked leaves what it would have told unknown.
                pass
            texts = [_container_file(api, container, path) for path in cann_paths(inspect, image)] if inspect else []
            cann = cann_version(*(texts + [None, None])[:2])
        instances.append(instance_provenance(item.get('name'), container, inspect, image, cann))
    node = node_provenance(socket.gethostname(), read_text(DRIVER_VERSION_FILE), read_text(FIRMWARE_VERSION_FILE))
    return {'node': node, 'instances': instances}


def probe_all(params, headers):
    """The instances with what each serves, and a problem per instance that does not answer."""
    out, problems = [], []
    for item in params['instances']:
        found = probe(params['host'], item['port'], headers=headers)
        # Only these keys: a deploy plan entry also carries options (an API key among them).
        entry = {'name': item.get('name'), 'port': item['port'], 'served': item.get('served') or found['served'],
                 'model': found['model'], 'up': found['up'], 'error': found['error']}
        out.append(entry)
        if not found['up']:
            problems.append({
                'check': 'eval_instances',
                'msg': 'instance %s (port %s) does not answer at http://%s:%s/v1/models: %s'
                       % (item.get('name'), item['port'], params['host'], item['port'], found['error']),
                'fix': 'deploy it first (ansible-playbook site.yml), check it with playbooks/verify.yml, or leave it '
                       'out of eval_instances'})
    return out, problems


def progress_writer(path):
    """``say(line)`` appending one line to the progress file ``path`` (what job_wait shows), or one that does
    nothing without a path."""
    def say(line):
        if path:
            with open(path, 'a') as handle:
                handle.write(line + '\n')
    return say


def evaluate(params, entry, headers):
    """Accuracy and performance of one instance."""
    target = {'host': params['host'], 'port': entry['port'], 'served': entry['served'], 'headers': headers}
    accuracy = {}
    say = progress_writer(params.get('progress_file'))
    instance = entry.get('name') or entry['served']
    settings = {'max_out_len': params['max_out_len'], 'batch_size': params['batch_size'], 'timeout': params['timeout']}
    for name, prompt, score in (('gsm8k', lambda i: gsm8k_prompt(i['question']), gsm8k_score),
                                ('textvqa', textvqa_content, textvqa_score)):
        items = (params['datasets'] or {}).get(name)
        if items:
            settings['done'] = lambda count, total, name=name: say(
                '%s: %s %d/%d answered' % (instance, name, count, total))
            replies, errors, duration = accuracy_replies(target, [prompt(i) for i in items], settings)
            accuracy[name] = dict(score(items, replies), errors=sorted(set(errors))[:5], duration_s=round(duration, 3))
    performance = []
    if params['concurrency']:
        performance = performance_sweep(target, {
            'concurrency': params['concurrency'], 'requests': params['requests'], 'input_len': params['input_len'],
            'output_len': params['output_len'], 'timeout': params['timeout'],
            'progress': lambda level, count, total: say('%s: performance at concurrency %d, %d/%d requests done'
                                                        % (instance, level, count, total))})
    return dict(entry, accuracy=accuracy, performance=performance)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            LOAD_SPEC,
            action=dict(type='str', choices=['probe', 'run', 'provenance'], default='probe'),
            host=dict(type='str', default='127.0.0.1'),
            instances=dict(type='list', elements='dict', required=True),
            api_key=dict(type='str', no_log=True),
            datasets=dict(type='dict', default={}),
            timeout=dict(type='int', default=600),
            progress_file=dict(type='path'),
            docker_host=dict(type='str'),
        ),
        supports_check_mode=True,
    )
    params = module.params
    for item in params['instances']:
        if 'port' not in item:
            module.fail_json(msg='instances: every entry needs a port, got %r' % (item,))
    if params['action'] == 'provenance':
        module.exit_json(changed=False, instances=[], problems=[], message='', provenance=provenance_of(params))
    headers = {'Authorization': 'Bearer %s' % params['api_key']} if params['api_key'] else {}
    instances, problems = probe_all(params, headers)
    if params['action'] == 'run' and params['progress_file'] and not module.check_mode:
        with open(params['progress_file'], 'w') as handle:  # this run's lines only
            handle.write('probed %d instance(s)\n' % len(instances))
    if params['action'] == 'run' and not problems and not module.check_mode:
        instances = [evaluate(params, entry, headers) for entry in instances]
    module.exit_json(changed=False, instances=instances, problems=problems,
                     message=problems_report(problems, params['host']) if problems else '')


if __name__ == '__main__':
    main()
