# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""container_ensure: the container_run role's container in one task.

The documentation is the module's (plugins/modules/container_ensure.py). The inputs are
checked on the controller first (the labels, what a started container needs, the spec);
then, for ``started``, in order: the model cache directory, the image's own env, the
existing container, the container kept as ``<name>-previous``, the keep decision
(serve/_keep.py keep_plan), the check-mode probe, the drain, the stop, the rename, the
real docker_container call, and on a refusal the kept container back under its name.
Every step is a module run on the node (community.docker's, ansible.builtin's or this
collection's) through ``_execute_module``. Nothing returned or shown carries a value of the
environment's secrets: results are redacted, messages masked. The role's outputs are
returned as ``outputs``; the role sets them as its facts (a module's ansible_facts read
as top-level variables are deprecated from ansible-core 2.20 on).
"""

from __future__ import annotations

import time

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

from ansible_collections.ascend.vllm.plugins.module_utils._redact import secret_values
from ansible_collections.ascend.vllm.plugins.module_utils.serve._container_run import ARGUMENT_SPEC
from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._container_run import (
    clean, docker_args, given_image_facts, image_facts, input_problem, mask, refusal, restarting)
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._container_spec import container_spec
from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._instances import plain
from ansible_collections.ascend.vllm.plugins.module_utils.serve._keep import previous_name
from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._keep import keep_plan

display = Display()

DOCKER = 'community.docker.docker_container'
INFO = 'community.docker.docker_container_info'
RENAME = 'ascend.vllm.container_rename'
# Only the state changes: with nothing to compare, docker_container would otherwise judge the
# container against its image alone (e.g. the environment) and re-create it.
ONLY_STATE = {'*': 'ignore'}


class _Failed(Exception):
    """A step failed: its arguments are the stage it failed in and the message (masked when returned)."""


class _Run:
    """One run: the modules called, in order (``steps``), and whether any changed the node."""

    def __init__(self, action, inputs, task_vars):
        self.action, self.inputs, self.task_vars = action, inputs, task_vars
        self.name = inputs['container_run_name']
        self.check_mode = bool(action._task.check_mode)
        self.host = task_vars.get('inventory_hostname', '?')
        self.steps = []
        self.changed = False
        self.facts = {}
        # The keep plan, once the keep decision starts: shown by a failure as by a success.
        self.shown = {}
        # Known before the spec is built: what a message must not show of the environment.
        env = dict(inputs.get('container_run_command_env') or {}, **(inputs.get('container_run_env') or {}))
        self.secrets = secret_values(env)

    def call(self, step, module, args, probe=False, hidden=False):
        """The module's result. ``probe``: in check mode whatever the task's mode (changes nothing);
        ``hidden``: its arguments carry the environment, the node does not log them (no_log)."""
        task = self.action._task
        saved = task.check_mode, task.no_log
        task.check_mode = True if probe else saved[0]
        task.no_log = True if hidden else saved[1]
        try:
            result = self.action._execute_module(module_name=module, module_args=args, task_vars=self.task_vars)
        finally:
            task.check_mode, task.no_log = saved
        result = result if isinstance(result, dict) else {}
        self.steps.append(step)
        self.changed = self.changed or (bool(result.get('changed')) and not probe and not result.get('failed'))
        found = result.get('ansible_facts') or {}
        self.facts.update((key, value) for key, value in found.items() if key.startswith('discovered_interpreter_'))
        return result

    def need(self, stage, step, module, args, what):
        """call(); a failure raises _Failed(stage, '<what>: <the module's message>')."""
        result = self.call(step, module, args)
        if result.get('failed'):
            raise _Failed(stage, '%s: %s' % (what, result.get('msg', 'no message')))
        return result

    def fail(self, stage, msg):
        return dict(self.shown, failed=True, changed=self.changed, stage=stage, steps=list(self.steps),
                    msg=mask(msg, self.secrets))

    def done(self, stage, **extra):
        out = dict(self.shown, changed=self.changed, stage=stage, steps=list(self.steps), **extra)
        if self.facts:
            # Interpreter discovery, as a module run directly would hand it back.
            out['ansible_facts'] = dict(self.facts)
        return out

    def say(self, line):
        display.display('%s: %s' % (self.host, line), stderr=True)


class ActionModule(ActionBase):
    """The container of one instance: started (created, updated, kept and replaced), stopped, absent or restored."""

    def run(self, tmp=None, task_vars=None):
        super().run(tmp, task_vars)
        try:
            try:
                _checked, args = self.validate_argument_spec(ARGUMENT_SPEC)
            except AnsibleActionFail as exc:
                raw = self._task.args.get('inputs') if isinstance(self._task.args.get('inputs'), dict) else {}
                env = [raw.get(name) for name in ('container_run_command_env', 'container_run_env')]
                secrets = [value for mapping in env for value in secret_values(mapping)]
                return {'failed': True, 'changed': False, 'stage': 'inputs', 'steps': [], 'msg': mask(exc, secrets)}
            run = _Run(self, plain(args['inputs']), task_vars)
            state = run.inputs['container_run_state']
            try:
                if state == 'started':
                    return self._started(run)
                if state == 'restored':
                    problem = self._restore(run)
                    return run.fail('restore', problem) if problem else run.done('restored')
                return self._stop_or_remove(run, state)
            except _Failed as exc:
                return run.fail(*exc.args)
        finally:
            self._remove_tmp_path(self._connection._shell.tmpdir)

    def _stop_or_remove(self, run, state):
        """``stopped``: only the state changes (the spec, logs and exit code stay); ``absent``: removed."""
        args = {'name': run.name, 'state': state, 'stop_timeout': run.inputs['container_run_stop_timeout']}
        if state == 'stopped':
            args['comparisons'] = dict(ONLY_STATE)
        # docker_container returns the container's inspect output, environment (an API key) included: not returned.
        run.need(state, 'stop' if state == 'stopped' else 'remove', DOCKER, args,
                 'docker_container could not make the container %s %s' % (run.name, state))
        return run.done(state)

    def _restore(self, run):
        """The kept ``<name>-previous`` back under its name and started (id, image and settings as it served);
        the container in its place is removed first. The failure's message, '' when it serves again."""
        name, kept = run.name, previous_name(run.name)
        try:
            run.need('restore', 'restore:remove', DOCKER, {
                'name': name, 'state': 'absent', 'stop_timeout': run.inputs['container_run_stop_timeout']},
                'could not remove the container %s' % name)
            run.need('restore', 'restore:rename', RENAME, {'name': kept, 'new_name': name},
                     'could not rename %s back to %s' % (kept, name))
            run.need('restore', 'restore:start', DOCKER,
                     {'name': name, 'state': 'started', 'comparisons': dict(ONLY_STATE)}, 'could not start %s' % name)
        except _Failed as exc:
            return exc.args[1]
        run.say('%s: the previous container serves again under its name' % name)
        return ''

    def _cache_dir(self, run):
        """The model cache directory, only created when missing: an existing one keeps its owner and mode."""
        path, exists = run.inputs['container_run_model_cache_dir'], run.inputs['container_run_cache_dir_exists']
        if exists is None:
            found = run.need('cache_dir', 'cache_dir:stat', 'ansible.legacy.stat', {'path': path},
                             'could not look for the model cache directory %s' % path)
            exists = bool((found.get('stat') or {}).get('exists'))
        if not exists:
            run.need('cache_dir', 'cache_dir:create', 'ansible.legacy.file',
                     {'path': path, 'state': 'directory', 'mode': '0750'},
                     'could not create the model cache directory %s' % path)

    def _look(self, run):
        """(spec, the existing container as preflight or docker_container_info saw it).

        The image's own ENV (Config.Env) is read first: the profile's environment builds on it the way the
        image's .bashrc does ("${LD_LIBRARY_PATH}", docs/image-contract.md); container_run_image_config spares
        the look when a preflight read it of the same image."""
        inputs = run.inputs
        env, arch = given_image_facts(inputs) or image_facts(run.need(
            'look', 'image_info', 'community.docker.docker_image_info', {'name': inputs['container_run_image']},
            'could not read the image %s' % inputs['container_run_image']))
        spec = container_spec(inputs['container_run_profile'],
                              dict(inputs, container_run_image_env=env, container_run_image_arch=arch))
        run.secrets = sorted(set(run.secrets) | set(spec['secret_values']))
        current = inputs['container_run_existing']
        if current is None:
            # Its inspect output holds the container's environment (an API key): read here, never returned.
            current = run.need('look', 'container_info', INFO, {'name': run.name},
                               'could not look at the container %s' % run.name)
        return spec, current

    def _started(self, run):
        """Create or update the container, keeping the serving one when the new spec replaces it."""
        problem = input_problem(run.inputs)
        if problem:
            raise _Failed('inputs', problem)
        self._cache_dir(run)
        spec, current = self._look(run)
        args = docker_args(run.inputs, spec, restarting(run.inputs['container_run_existing'], current))
        outputs = {'container_run_previous': '', 'container_run_drained': {}, 'container_run_stopped_at': None}
        run.shown['keep'] = None
        plan, probe = self._keep(run, current, args, outputs)
        unchanged = probe is not None and plan['unchanged']
        # When the probe found nothing to do, the real call would not either.
        result = probe if unchanged else run.call('container', DOCKER, args, hidden=True)
        if result.get('failed'):
            restored = self._restore(run) if outputs['container_run_previous'] else None
            raise _Failed('container', refusal(run.name, result, run.secrets, restored))
        outputs['container_run_result'] = clean(result, run.secrets)
        out = run.done('started', outputs=outputs)
        if 'diff' in result and not unchanged:
            out['diff'] = clean({'diff': result['diff']}, run.secrets)['diff']
        return out

    def _keep(self, run, current, args, outputs):
        """(keep plan, the probe's result or None); the plan is shown as ``keep`` as soon as it is known.

        Only a running container of ours that the new spec re-creates (the probe: the same docker_container
        call in check mode) is kept: drained from the balancer, stopped (its port and chips are free) and
        renamed to ``<name>-previous``; its id, image, settings and logs stay. A ``<name>-previous`` already
        there (an interrupted run) is the container to come back to. Check mode keeps nothing."""
        inputs = run.inputs
        if not inputs['container_run_keep_previous'] or run.check_mode:
            why = 'check mode keeps nothing' if inputs['container_run_keep_previous'] else None
            plan = keep_plan(current, None, False, None, inputs['container_run_instance'])
            run.shown['keep'] = dict(plan, why=why) if why else plan
            return run.shown['keep'], None
        found = inputs['container_run_existing_previous']
        if found is None:
            found = run.need('look', 'previous_info', INFO, {'name': previous_name(run.name)},
                             'could not look at %s' % previous_name(run.name))
        plan = run.shown['keep'] = keep_plan(current, found, True, None, inputs['container_run_instance'])
        probe = None
        if plan['probe']:
            probe = run.call('probe', DOCKER, args, probe=True, hidden=True)
            if probe.get('failed'):
                raise _Failed('probe', refusal(run.name, probe, run.secrets))
            plan = run.shown['keep'] = keep_plan(current, found, True, probe, inputs['container_run_instance'])
        if plan['keep']:
            self._put_aside(run, outputs)
        outputs['container_run_previous'] = previous_name(run.name) if plan['kept'] else ''
        return plan, probe

    def _put_aside(self, run, outputs):
        """Drain (when asked), stop and rename the serving container."""
        inputs, kept = run.inputs, previous_name(run.name)
        drain = inputs['container_run_drain'] or {}
        if drain:
            args = dict((key, drain[key]) for key in ('socket', 'backend', 'server', 'timeout') if drain.get(key) is not None)
            drained = run.need('drain', 'drain', 'ascend.vllm.balancer_server', dict(args, state='drained'),
                               'could not drain %s from the load balancer' % run.name)
            outputs['container_run_drained'] = clean(drained, run.secrets)
        outputs['container_run_stopped_at'] = time.time()
        run.need('stop', 'stop', DOCKER, {'name': run.name, 'state': 'stopped', 'comparisons': dict(ONLY_STATE),
                                          'stop_timeout': inputs['container_run_stop_timeout']},
                 'could not stop %s to keep it' % run.name)
        run.need('rename', 'rename', RENAME, {'name': run.name, 'new_name': kept},
                 'could not rename %s to %s' % (run.name, kept))
        run.say('%s: the new spec replaces the serving container; it is kept stopped as %s' % (run.name, kept))
