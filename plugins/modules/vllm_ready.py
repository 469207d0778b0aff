#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import annotations

DOCUMENTATION = r'''
---
module: vllm_ready
short_description: Wait on the node until a vLLM container serves, and run the guide's smoke tests
version_added: 0.1.0
description:
  - Watches one container from the node it runs on, in one call, until vLLM serves or it
    is clear that it will not - a crash, a stopped container, or the timeout.
  - Every O(poll_interval) seconds it looks at the container (state, restart count, exit
    code) through the Docker Engine API, at the container's log since its start for the
    startup line O(marker), and once that line is there asks C(GET /health) for 200 and
    C(GET /v1/models) for O(served_model_name). There are no fixed sleeps; the call returns
    within one poll interval of the server being ready.
  - With O(smoke_test) it then sends the two requests of the vllm-ascend docs, "Qwen3.5-Dense"
    tutorial, section 5.1 (C(/v1/completions) at temperature 0 and C(/v1/chat/completions)
    at temperature 0.7, top_p 0.95) and returns their texts.
  - On any failure it returns the last O(log_lines) lines of the container's log and the
    first exception line of the log since the start (the cause), and fails.
  - The module only reads and asks; it never changes the container. With O(save_log_dir) it writes
    the log of a failed container to a file.
extends_documentation_fragment:
  - ascend.vllm.module
  - ansible.builtin.action_common_attributes
  - ascend.vllm.docker_engine
options:
  name:
    description: Name (or id) of the container to watch.
    type: str
    required: true
  url:
    description:
      - Base URL of the server as seen from the node, without a path,
        for example V(http://127.0.0.1:8080).
    type: str
    required: true
  served_model_name:
    description: The name C(/v1/models) must list; also the C(model) of the smoke tests.
    type: str
    required: true
  timeout:
    description:
      - Seconds of wall-clock time the whole wait may take, from the start of the call
        (the smoke tests come after it and have their own O(smoke_timeout)).
    type: float
    default: 1800
  poll_interval:
    description: Seconds between two looks at the container and the server.
    type: float
    default: 0.25
  report_after:
    description:
      - Print a progress line after this many seconds without an outcome, and then again every as many seconds.
        V(0) waits in one call and prints nothing.
      - On the node the module then returns with RV(state=waiting) (not a failure) and the newest log line in
        RV(log_tail); the module's action plugin on the controller prints the progress line (the time since the
        start, the time left, the newest log line; at every verbosity, without C(FAILED - RETRYING)) and calls it
        again, so a task sees only the outcome, never RV(state=waiting), and needs no C(until) loop.
      - With O(just_started), O(timeout) then counts from the container's start (on the node's clock), so the
        calls of one wait share it.
    type: float
    default: 0
  waited:
    description:
      - With O(report_after) and a container that was not just started (O(just_started=false)) - the seconds
        earlier calls of the same wait took (their RV(waited)), taken off O(timeout) so that the calls share it.
      - The action plugin of this module passes it; a task need not.
    type: float
    default: 0
    version_added: 0.2.0
  marker:
    description: The log line that says the API server is up.
    type: str
    default: Application startup complete.
  just_started:
    description:
      - V(true) (the container was just created or restarted) - the O(marker) must appear
        in the log since the container's start.
      - V(false) - when C(/health) answers 200 at the first look the marker is not needed;
        the startup line of a server left running by an earlier run may have rotated out
        of the log.
    type: bool
    default: true
  log_lines:
    description: How many of the container's last log lines RV(log_tail) holds on a failure.
    type: int
    default: 50
  save_log_dir:
    description:
      - On a failure, also write the container's whole log (both streams, Docker's timestamps, O(api_key) and other
        secrets redacted) to a new file C(<name>-<UTC time>.log) (mode 0600) in this directory on the node (made,
        mode 0700, when missing), before anything removes the container; RV(log_file) is its path.
      - Not in check mode. Empty or unset saves nothing.
    type: path
  smoke_test:
    description: Also send the guide's completions and chat completions requests once ready.
    type: bool
    default: false
  prompt:
    description: Prompt of both smoke tests.
    type: str
    default: The future of AI is
  max_tokens:
    description: >-
      C(max_tokens) of the completions request (the guide writes C(max_completion_tokens), which vLLM's
      C(/v1/completions) ignores).
    type: int
    default: 50
  chat_max_tokens:
    description: C(max_completion_tokens) of the chat completions request.
    type: int
    default: 1024
  reasoning:
    description:
      - With O(smoke_test), also send the guide's chat request with C(chat_template_kwargs.enable_thinking=true)
        and O(max_tokens) tokens, and check that the reasoning arrives in the message field O(reasoning_field),
        where vLLM's C(--reasoning-parser) puts it. For a server started with a reasoning parser.
    type: bool
    default: false
    version_added: 0.4.0
  reasoning_field:
    description: The message field of the reasoning; C(reasoning) in vLLM 0.23 (its C(ChatMessage)).
    type: str
    default: reasoning
    version_added: 0.4.0
  tool_call:
    description:
      - With O(smoke_test), also send a chat request with one tool (C(get_weather)) and C(tool_choice=auto), and
        check that a tool call of it comes back in C(tool_calls) with JSON object arguments. For a server started
        with C(--enable-auto-tool-choice) and a C(--tool-call-parser).
    type: bool
    default: false
    version_added: 0.4.0
  smoke_timeout:
    description: Seconds one smoke-test request may take.
    type: float
    default: 600
  api_key:
    description:
      - "API key the server requires, sent as C(Authorization: Bearer) header with every
        request to the server. Never returned or logged."
    type: str
  service:
    description:
      - O(name) is a systemd unit (the source install method, M(ascend.vllm.vllm_service)), not a container -- its
        state from C(systemctl show), its log from the journal (C(journalctl -u)); a unit systemd is about to restart
        is a crash, as a container Docker restarts is.
    type: bool
    default: false
    version_added: 0.3.0
  served_model_name_from_command:
    description:
      - Read the name to check from the container's own command line (C(--served-model-name), else its model) and
        fall back to O(served_model_name) only when the command names none. For a container put back after a failed
        change, whose command may differ from the change's.
    type: bool
    default: false
    version_added: 0.3.0
  kept:
    description:
      - The container kept while this one replaced it (C(<name>-previous)), empty when none. The action plugin then
        says in RV(after) what follows -- remove the kept one (this one serves) or put it back (this one failed).
    type: str
    default: ''
    version_added: 0.3.0
  not_started:
    description:
      - This run creates or changes the container. In check mode it did not, so there is nothing of this run to
        watch - the action plugin then returns RV(state=not_started) at once, without asking the node. Ignored
        outside check mode.
    type: bool
    default: false
    version_added: 0.3.0
  restoring:
    description:
      - This container is the kept one, just put back after its replacement failed. The action plugin then returns
        RV(restore_note), the sentence the replacement's failure message ends with.
    type: bool
    default: false
    version_added: 0.3.0
  instance:
    description:
      - The instance's name in the plan, for RV(outcome)'s message (the container's or unit's name when empty).
    type: str
    default: ''
    version_added: 0.4.0
  smoke:
    description:
      - The smoke tests' settings as one dict, as the host plan gives each instance (C(smoke)) - any of O(smoke_test),
        O(prompt), O(max_tokens), O(chat_max_tokens), O(smoke_timeout), O(reasoning), O(reasoning_field),
        O(tool_call). The action plugin spreads them into those options; an option the task also sets wins.
    type: dict
    version_added: 0.4.0
attributes:
  check_mode:
    details:
      - The module only reads, so it waits as in a normal run; a container that is not
        running is not waited for (RV(state=not_running)), as the run that would start it did not.
  diff_mode:
    details:
      - The one file it may write is the log of a container that failed (O(save_log_dir)), as the task fails; the
        failure names it (RV(log_file)).
  platform:
    details: A Linux node with Docker; the module runs there and reaches the server as the node does.
notes:
  - Needs read access to the Docker socket (root, or the C(docker) group).
  - Requests to the server never go through a proxy; the server is on the node.
seealso:
  - module: community.docker.docker_container_info
'''

EXAMPLES = r'''
- name: Wait for the server and run the guide's smoke tests
  ascend.vllm.vllm_ready:
    name: vllm-ascend
    url: http://127.0.0.1:8080
    served_model_name: qwen3.5
    timeout: 1800
    smoke_test: true
  register: ready

- name: Show the answer
  ansible.builtin.debug:
    msg: "{{ ready.completion }}"

- name: Tell a crash from a slow start, without failing the play here
  ascend.vllm.vllm_ready:
    name: vllm-ascend
    url: http://127.0.0.1:8080
    served_model_name: qwen3.5
    timeout: 600
    api_key: "{{ vault_vllm_api_key }}"
  register: ready
  failed_when: false

- name: Print the log lines of a crash
  ansible.builtin.debug:
    msg: "{{ ready.log_tail }}"
  when: ready.state == 'crashed'
'''

RETURN = r'''
state:
  description:
    - V(ready) - the server serves (and the smoke tests passed, with O(smoke_test)).
    - V(crashed) - Docker restarted the container (or is about to) - vLLM died while starting.
    - V(exited) - the container stopped and was not restarted.
    - V(gone) - the container was removed during the wait. V(absent) - it did not exist at all.
    - V(not_running) - check mode only - the container is not running.
    - V(not_started) - check mode only, with O(not_started) - the run would create or change the container.
    - V(timeout) - no startup line, or no 200 from C(/health), within O(timeout).
    - V(not_listed) - C(/v1/models) does not list O(served_model_name).
    - V(request_failed) - C(/v1/models) failed. V(smoke_failed) - a smoke test failed.
    - V(waiting) - with O(report_after), from the module on the node only (the action plugin calls it again) - no
      outcome yet. RV(error) then says what a timeout
      would say.
  returned: always
  type: str
  sample: ready
task:
  description: What was being done when the wait ended without success; empty when ready.
  returned: always
  type: str
  sample: Wait for 'Application startup complete.' in the log of vllm-ascend
error:
  description: Why it failed, in one line; empty when ready.
  returned: always
  type: str
  sample: >-
    vLLM in vllm-ascend did not log 'Application startup complete.': vLLM crashed while
    starting and Docker restarted it 1 time(s)
restarts:
  description: How often Docker restarted the container during the wait.
  returned: always
  type: int
  sample: 0
exit_code:
  description: The container's last exit code (null when it did not exist).
  returned: always
  type: int
  sample: 1
cause:
  description:
    - "The first exception line of the log since the start, without vLLM's process and
      logger prefix, not vLLM's own C(RuntimeError: Engine core initialization failed),
      at most about 300 characters; empty when ready or when there is none."
  returned: always
  type: str
  sample: 'ValueError: max_num_seqs (32) exceeds available Mamba cache blocks (16)'
log_tail:
  description: The container's last O(log_lines) log lines on a failure; empty when ready.
  returned: always
  type: list
  elements: str
waited:
  description:
    - Seconds the whole wait took so far - since the container's start with O(report_after) and O(just_started),
      else O(waited) plus this call's seconds.
  returned: always
  type: float
  sample: 95.5
  version_added: 0.2.0
log_file:
  description: The file on the node the whole log of the failed container was saved to (O(save_log_dir)); empty when
    none was saved.
  returned: always
  type: str
  sample: /var/log/ascend-vllm/vllm-ascend-20261201T171500Z.log
log_file_error:
  description: Why the log could not be saved (O(save_log_dir)); empty otherwise.
  returned: always
  type: str
seconds:
  description: Wall-clock seconds the call took.
  returned: always
  type: float
  sample: 41.27
models:
  description: The model ids C(/v1/models) listed.
  returned: always
  type: list
  elements: str
  sample: [qwen3.5]
completion:
  description: Text of the completions smoke test (empty without O(smoke_test)).
  returned: always
  type: str
chat:
  description: Text of the chat completions smoke test (empty without O(smoke_test)).
  returned: always
  type: str
reasoning:
  description: The reasoning of the thinking request (empty without O(reasoning)).
  returned: always
  type: str
  version_added: 0.4.0
tool_call:
  description: The tool call that came back, as C(name(arguments)) (empty without O(tool_call)).
  returned: always
  type: str
  sample: 'get_weather({"city": "Paris"})'
  version_added: 0.4.0
served_model_name:
  description: The name that was checked (O(served_model_name), or the container's own with
    O(served_model_name_from_command)).
  returned: always
  type: str
  version_added: 0.3.0
reason:
  description:
    - From the action plugin, on a failure - RV(error), a hint to raise the timeout on a timeout, and the cause
      found in the log; empty when ready.
  returned: always
  type: str
  version_added: 0.3.0
log_note:
  description:
    - From the action plugin - the sentence that says where the whole log of the failed container was saved on
      the node (or why it could not be); empty otherwise.
  returned: always
  type: str
  version_added: 0.3.0
after:
  description:
    - From the action plugin, with O(kept) - V(drop) (this container serves - remove the kept one), V(restore) (it
      failed - put the kept one back) or V(none) (nothing kept, or check mode).
  returned: always
  type: str
  version_added: 0.3.0
restore_note:
  description:
    - From the action plugin, with O(restoring) - whether the container put back serves again, as the sentence the
      failed replacement's message ends with.
  returned: with O(restoring)
  type: str
  version_added: 0.3.0
outcome:
  description:
    - From the action plugin, what the state means for the run - C(skip) (check mode, the container of this run is
      not there yet), C(failed) (anything but V(ready) otherwise), C(crashed) (it crashed while starting and is not
      being replaced by a kept one - stop it, or its restart policy reloads the weights again and again), and
      C(message), the failure's message (empty when it serves).
  returned: always
  type: dict
  version_added: 0.4.0
'''

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.ascend.vllm.plugins.module_utils.node._node_docker import engine_host
from ansible_collections.ascend.vllm.plugins.module_utils.serve._keep import served_model_name
from ansible_collections.ascend.vllm.plugins.module_utils.serve._ready import (
    MARKER, POLL_INTERVAL, SMOKE, Watch, save_log, serving_probe,
)

# Failures whose container (and so log) may still be there to save.
SAVED_STATES = ('crashed', 'exited', 'timeout', 'not_listed', 'request_failed', 'smoke_failed')

ARGUMENT_SPEC = dict(
    name=dict(type='str', required=True),
    url=dict(type='str', required=True),
    served_model_name=dict(type='str', required=True),
    timeout=dict(type='float', default=1800),
    poll_interval=dict(type='float', default=POLL_INTERVAL),
    report_after=dict(type='float', default=0),
    waited=dict(type='float', default=0),
    marker=dict(type='str', default=MARKER),
    just_started=dict(type='bool', default=True),
    log_lines=dict(type='int', default=50),
    save_log_dir=dict(type='path'),
    smoke_test=dict(type='bool', default=False),
    prompt=dict(type='str', default=SMOKE['prompt']),
    max_tokens=dict(type='int', default=SMOKE['max_tokens'], no_log=False),
    chat_max_tokens=dict(type='int', default=SMOKE['chat_max_tokens'], no_log=False),
    smoke_timeout=dict(type='float', default=SMOKE['smoke_timeout']),
    reasoning=dict(type='bool', default=False),
    reasoning_field=dict(type='str', default='reasoning'),
    tool_call=dict(type='bool', default=False),
    api_key=dict(type='str', no_log=True),
    docker_host=dict(type='str'),
    service=dict(type='bool', default=False),
    served_model_name_from_command=dict(type='bool', default=False),
    # The action plugin's (it removes them before the module runs): accepted here for the documentation's sake.
    kept=dict(type='str', default=''),
    restoring=dict(type='bool', default=False),
    smoke=dict(type='dict'),
    instance=dict(type='str', default=''),
    not_started=dict(type='bool', default=False),
)


def command_served_name(probe, default):
    """The name the container's own command line serves (its Config.Cmd), else ``default``."""
    try:
        inspect = probe.inspect() or {}
    except (IOError, OSError, ValueError):
        return default
    return served_model_name((inspect.get('Config') or {}).get('Cmd') or [], default) or default


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    params = dict(module.params, check_mode=module.check_mode)
    for option in ('timeout', 'poll_interval', 'smoke_timeout'):
        if params[option] <= 0:
            module.fail_json(msg='%s=%s: must be more than 0' % (option, params[option]))
    if params['log_lines'] < 0:
        module.fail_json(msg='log_lines=%d: must be 0 or more' % params['log_lines'])
    # The source install method: a systemd unit, its journal as the log.
    probe = serving_probe(engine_host(params['docker_host']), module.run_command)(params)
    try:
        if params['served_model_name_from_command']:
            params['served_model_name'] = command_served_name(probe, params['served_model_name'])
        result = Watch(probe, params).run()
    except (IOError, OSError, ValueError) as exc:
        module.fail_json(msg='Watching %s through %s failed: %s' % (
            params['name'], 'systemd' if params['service'] else 'the Docker API at ' + engine_host(params['docker_host']), exc))
    result.update(log_file='', log_file_error='', served_model_name=params['served_model_name'])
    if result['state'] in SAVED_STATES and params['save_log_dir'] and not module.check_mode:
        try:
            result['log_file'] = save_log(probe, params['save_log_dir'], params['name'], [params['api_key']])
        except (IOError, OSError, ValueError) as exc:
            result['log_file_error'] = 'saving the log to %s failed: %s' % (params['save_log_dir'], exc)
    if result['state'] not in ('ready', 'waiting'):
        module.fail_json(msg='%s: %s' % (result['task'], result['error']), changed=False, **result)
    module.exit_json(changed=False, **result)


if __name__ == '__main__':
    main()
