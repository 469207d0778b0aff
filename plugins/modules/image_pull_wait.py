#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import annotations

DOCUMENTATION = r'''
---
module: image_pull_wait
short_description: Wait for a background image pull and print how far the Docker Engine got
version_added: 0.3.0
description:
  - Waits for an image pull started as an Ansible async job (for example
    M(community.docker.docker_image_pull) with C(async) and C(poll=0)) and returns the job's result
    as RV(answer) once the job has ended. It never pulls, removes or changes an image itself.
  - On the controller, the module's action plugin runs it on the node again and again, each run
    returning after at most O(report_after) seconds, and prints one progress line after each run
    (layers done, bytes downloaded and the total when the Engine has told the sizes, the time spent
    and the time left) at every verbosity, until the job ends or O(timeout) seconds have passed.
  - While the job runs, the module asks the Docker Engine for the same image
    (C(POST /images/create)). The Engine shares the layer downloads of concurrent pulls of one
    image, so this joins the job's pull, and the Engine's stream reports each layer's status and
    bytes. Leaving early does not stop the job's pull.
  - The job's result is read from its results file five times a second, so the wait ends within about
    0.2 s of the pull.
extends_documentation_fragment:
  - ascend.vllm.module
  - ansible.builtin.action_common_attributes
  - ascend.vllm.job_wait
  - ascend.vllm.docker_engine
options:
  name:
    description:
      - The image reference the job pulls (registry, repository and tag or digest); required unless O(archive) is
        given.
    type: str
  archive:
    description:
      - The archive on the node that the job loads (M(community.docker.docker_image_load) as an async job) instead of
        a pull. RV(progress) then says how many bytes of it the Docker Engine has been sent (C(size), C(read)) - the
        offset of the open archive in C(/proc/PID/fdinfo) of the process that sends it.
    type: path
    version_added: 0.4.0
  msg:
    description: The failure message at the timeout, instead of the default C(the pull of NAME did not end within the timeout (N s)).
    type: str
  cleanup:
    description:
      - Remove the job's results file (what M(ansible.builtin.async_status) with C(mode=cleanup) removes) once the
        job has ended and its answer was read, so that the caller needs no further module run for it.
    type: bool
    default: false
attributes:
  check_mode:
    details: The module only reads; in check mode a pull runs in the foreground and there is nothing to wait for.
notes:
  - Registry credentials for the progress request come from the Docker client's C(config.json)
    (E(DOCKER_CONFIG), else C(~/.docker)) C(auths), as C(docker login) and M(community.docker.docker_login)
    write them; a credential helper is not asked. A registry that refuses the request only leaves the
    progress line without layer figures; the pull is the job's.
  - Each run asks the registry for the image's manifest once, as a second C(docker pull) would; the layers
    are downloaded once.
seealso:
  - module: community.docker.docker_image_pull
  - module: ansible.builtin.async_status
'''

EXAMPLES = r'''
- name: Start the pull in the background
  community.docker.docker_image_pull:
    name: quay.io/ascend/vllm-ascend:v0.23.0-310p
  async: 3600
  poll: 0
  register: pull_job

- name: Wait for it, with a progress line every 15 seconds
  ascend.vllm.image_pull_wait:
    results_file: "{{ pull_job.results_file }}"
    name: quay.io/ascend/vllm-ascend:v0.23.0-310p
    timeout: 3600
    report_after: 15
  register: pulled

- name: Fail when the pull failed
  ansible.builtin.fail:
    msg: "{{ pulled.answer.msg }}"
  when: pulled.answer.failed | default(false)
'''

RETURN = r'''
answer:
  description: The job's result (the pull module's return values, or the job's failure), once the job has ended.
  returned: success
  type: dict
  sample: {changed: true, image: {Id: "sha256:329a38a86a15..."}}
finished:
  description: Whether the job has ended (false only from a run of the module itself, before the action plugin calls it again).
  returned: always
  type: bool
progress:
  description:
    - What the Engine's stream said in the last run - C(layers) (layer id to C(status), C(current), C(total) bytes),
      C(status) (the Engine's last C(Status:) or C(Digest:) line) and C(error) (why the Engine reported nothing);
      null when the job had ended before the run looked.
    - With O(archive), C(archive), C(size) (its bytes) and C(read) (the bytes sent to the Engine so far; null while no
      process has it open).
  returned: always
  type: dict
cleaned:
  description: Whether this run removed the job's results file (O(cleanup) and the job had ended).
  returned: when the run removed it
  type: bool
seconds:
  description: Seconds the whole wait took (the action plugin), or the last run (the module).
  returned: always
  type: float
'''

import os

from ansible_collections.ascend.vllm.plugins.module_utils._job_wait import job_wait_module
from ansible_collections.ascend.vllm.plugins.module_utils._image import parse
from ansible_collections.ascend.vllm.plugins.module_utils._text import read_text
from ansible_collections.ascend.vllm.plugins.module_utils.node._node_docker import DockerApi, engine_host
from ansible_collections.ascend.vllm.plugins.module_utils.node._pull_watch import (
    FileObserver, PullObserver, archive_read, job_answer, read_docker_config, registry_auth, watch_pull,
)

ARGUMENT_SPEC = dict(
    name=dict(type='str'),
    archive=dict(type='path'),
    msg=dict(type='str'),
    docker_host=dict(type='str'),
    cleanup=dict(type='bool', default=False),
)


def main():
    module = job_wait_module(ARGUMENT_SPEC, required_one_of=[('name', 'archive')],
                             mutually_exclusive=[('name', 'archive')])
    params = module.params
    if params['archive']:
        observer = FileObserver(lambda: archive_read(params['archive']))
    else:
        host = engine_host(params['docker_host'])
        registry = parse(params['name']).registry
        observer = PullObserver(DockerApi(host, timeout=max(30.0, params['report_after'] + 10)), params['name'],
                                registry_auth(registry, read_docker_config()))
    path = params['results_file']
    result = watch_pull(lambda: job_answer(read_text(path)), observer, params['report_after'])
    if result['finished'] and params['cleanup'] and not module.check_mode:
        os.unlink(path)
        result['cleaned'] = True
    module.exit_json(changed=False, **result)


if __name__ == '__main__':
    main()
