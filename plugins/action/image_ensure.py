# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""image_ensure: pull an image from the first candidate reference that gives it, in one task.

The documentation is the module's (plugins/modules/image_ensure.py). Each attempt is
community.docker's docker_image_pull started as a background job on the node, waited for by
ascend.vllm.image_pull_wait (a progress line every ``report_after`` seconds), its job files
cleaned up after. A reference a registry answered "not found" for is not asked again; the
others are retried ``retries`` times, ``delay`` seconds apart. The result is returned, never
set as a fact: the caller registers it under its own name.
"""

from __future__ import annotations

import math
import os
import time

from ansible.module_utils.common.text.converters import to_text
from ansible.module_utils.parsing.convert_bool import boolean
from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._image_ref import (
    classify_failure, failure_message, problem_report, resolve)
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.platforms import profile_verdict
from ansible_collections.ascend.vllm.plugins.module_utils._text import seconds_text
from ansible_collections.ascend.vllm.plugins.plugin_utils.report._progress import (
    copy_line, load_line, pull_line, while_running)
from ansible_collections.ascend.vllm.plugins.module_utils._diff import change, file_size
from ansible_collections.ascend.vllm.plugins.module_utils.node._node_docker import inspect_config
from ansible_collections.ascend.vllm.plugins.module_utils.node._pull_watch import archive_read
from ansible_collections.ascend.vllm.plugins.modules.image_ensure import ARGUMENT_SPEC
from ansible_collections.ascend.vllm.plugins.plugin_utils._follow import follow
from ansible_collections.ascend.vllm.plugins.plugin_utils._controller_action import task_args

display = Display()

# What --diff shows of the tarball on the node: its size (the bytes of an image are no text to read).
ARCHIVE_SHOWN = '<docker save archive, %d bytes>\n'


def settings(args):
    """(the attempts' settings, None) or (None, message), from arguments task_args checked against
    ARGUMENT_SPEC (types, choices and defaults): what is left are the bounds."""
    candidates = args['candidates']
    if not candidates or not all(candidates):
        return None, 'candidates=%r: give the image references to try, in order (a non-empty list)' % (candidates,)
    for name, least in (('retries', 1), ('delay', 0), ('timeout', 1), ('report_after', 1)):
        if args[name] < least:
            return None, '%s=%r: must be a number >= %s' % (name, args[name], least)
    return dict((name, args[name]) for name in ('candidates', 'policy', 'retries', 'delay', 'timeout', 'report_after')), None


class ActionModule(ActionBase):
    """Try each candidate, each up to ``retries`` times, until one is pulled."""

    def _module(self, name, args, task_vars):
        return self._execute_module(module_name=name, module_args=args, task_vars=task_vars)

    def _background(self, module, args, timeout, task_vars):
        """Start ``module`` as an async job on the node (its limit: ``timeout``)."""
        saved = self._task.async_val
        self._task.async_val = int(math.ceil(timeout))
        try:
            return self._execute_module(module_name=module, task_vars=task_vars, module_args=args, wrap_async=True)
        finally:
            self._task.async_val = saved

    def _copy(self, source, path, conf, task_vars):
        """The archive from the controller to ``path`` on the node, a progress line every ``report_after`` seconds.

        The connection copies it in one call that says nothing while it runs (ssh's sftp or scp, community.docker's
        ``docker exec ... dd``, all reading the file from an open descriptor); that descriptor's offset in the
        controller's /proc is how much has been sent (the read offset docker load's progress uses on the node).
        The local connection copies with sendfile at explicit offsets, which leave the descriptor's at 0: there the
        copy's own size (the node is this machine) is how much has been sent.
        """
        local = getattr(self._connection, 'transport', None) in ('local', 'ansible.builtin.local', 'ansible.legacy.local')

        def look():
            progress = archive_read(source)
            written = file_size(path) if local else None
            return dict(progress, read=written) if written is not None else progress

        def show(progress, elapsed):
            display.display(copy_line(task_vars.get('inventory_hostname', '?'), source, path, progress, elapsed), stderr=True)

        return while_running(lambda: self._transfer_file(source, path), look, show, conf['report_after'])

    def _cleanup(self, job, task_vars):
        jid = job.get('ansible_job_id')
        if not jid:
            return
        async_dir = self._remote_expand_user(self.get_shell_option('async_dir', default='~/.ansible_async'))
        self._module('ansible.legacy.async_status', {'jid': jid, 'mode': 'cleanup', '_async_dir': async_dir}, task_vars)

    def _attempt(self, ref, conf, task_vars):
        """The pull's own result (docker_image_pull's return values, or its failure)."""
        args = {'name': ref, 'pull': conf['policy']}
        if self._task.check_mode:
            # docker_image_pull only asks the Engine in check mode: nothing to wait for.
            return self._module('community.docker.docker_image_pull', args, task_vars)
        job = self._background('community.docker.docker_image_pull', args, conf['timeout'], task_vars)
        return self._watch(job, {'name': ref}, pull_line, ref, conf, task_vars,
                           ('the pull of %s' % ref, 'the pull job of %s' % ref))

    def _watch(self, job, wait_args, line, name, conf, task_vars, what):
        """The background job's own result, a progress line (``line``) every ``report_after`` seconds while
        ascend.vllm.image_pull_wait follows it; ``what``: how the messages name the job and its result."""
        if job.get('failed') or not job.get('results_file'):
            return job
        host = task_vars.get('inventory_hostname', '?')

        def call(seconds):
            return self._module('ascend.vllm.image_pull_wait', dict(
                wait_args, results_file=job['results_file'], timeout=conf['timeout'], report_after=seconds,
                cleanup=True), task_vars)

        waited = {}
        try:
            waited = follow(call, lambda progress, elapsed: line(host, name, progress, elapsed, conf['timeout']),
                            conf['timeout'], conf['report_after'])
        finally:
            # The wait that saw the job end removed its results file: no further module run for that.
            if not waited.get('cleaned'):
                self._cleanup(job, task_vars)
        if waited.get('failed'):
            return waited
        if not waited.get('finished'):
            return {'failed': True, 'msg': '%s did not end within image_pull_timeout (%s s)'
                                           % (what[0], seconds_text(conf['timeout']))}
        return waited.get('answer') or {'failed': True, 'msg': '%s left no result' % what[1]}

    def _present(self, candidates, task_vars):
        """The first candidate the node has (docker_image_info), or None."""
        found = self._module('community.docker.docker_image_info', {'name': candidates}, task_vars)
        names = set(name for image in found.get('images') or []
                    for name in (image.get('RepoTags') or []) + (image.get('RepoDigests') or []))
        return next((ref for ref in candidates if ref in names), None)

    def _load(self, conf, task_vars):
        """``docker load`` of the tarball (copied from the controller first unless it is on the node)."""
        args = self._task.args
        archive = to_text(args['archive'])
        on_node = boolean(args.get('archive_on_node') or False, strict=False)
        path = archive if on_node else '%s/%s' % (to_text(args.get('archive_dir') or '/var/tmp').rstrip('/'),
                                                  os.path.basename(archive))
        shown = self._archive_diff(archive, path, on_node, task_vars)
        if self._task.check_mode:
            return dict(shown, changed=True, ref=conf['candidates'][0], id=None, loaded=[],
                        msg='would load %s' % archive)
        if not on_node:
            made = self._module('ansible.legacy.file',
                                {'path': os.path.dirname(path), 'state': 'directory', 'mode': '0750'}, task_vars)
            if made.get('failed'):
                return made
            self._copy(self._find_needle('files', archive), path, conf, task_vars)
            self._module('ansible.legacy.file', {'path': path, 'mode': '0640'}, task_vars)
        # docker_image_load as an async job, a progress line (how much of the archive the Engine has been sent)
        # every report_after seconds.
        job = self._background('community.docker.docker_image_load', {'path': path}, conf['timeout'], task_vars)
        loaded = self._watch(job, {'archive': path}, load_line, path, conf, task_vars,
                             ('docker load of %s' % path, 'the load job of %s' % path))
        if not on_node and boolean(args.get('archive_cleanup', True), strict=False):
            self._module('ansible.legacy.file', {'path': path, 'state': 'absent'}, task_vars)
        if loaded.get('failed'):
            return dict(loaded, msg='docker load of %s on the node failed: %s' % (path, loaded.get('msg')))
        names = loaded.get('image_names') or []
        # Prefer the name the registries would give; else the tarball's own first name.
        ref = next((name for name in conf['candidates'] if name in names), None)
        ref = ref or next((name for name in names if not name.startswith('sha256:')), None) or conf['candidates'][0]
        return dict(shown, changed=bool(loaded.get('changed')), ref=ref, id=None, loaded=names)

    def _archive_diff(self, archive, path, on_node, task_vars):
        """With --diff, ``{'diff': [...]}`` for the tarball copied to the node: created (or replaced) at ``path``, or
        nothing left there with archive_cleanup; shown by its size, not its bytes. ``{}`` otherwise."""
        if on_node or not self._task.diff:
            return {}
        found = self._module('ansible.legacy.stat', {'path': path, 'get_checksum': False}, task_vars).get('stat') or {}
        before = ARCHIVE_SHOWN % found['size'] if found.get('exists') and found.get('isreg') else None
        cleanup = boolean(self._task.args.get('archive_cleanup', True), strict=False)
        after = None if cleanup else ARCHIVE_SHOWN % os.path.getsize(self._find_needle('files', archive))
        entry = change(path, before, after)
        return {'diff': [entry]} if entry else {}

    def run(self, tmp=None, task_vars=None):
        super().run(tmp, task_vars)
        checked, failed = task_args(self, ARGUMENT_SPEC)
        if failed:
            return failed
        if self._task.args.get('candidates') is None and self._task.args.get('inputs') is not None:
            return self._from_inputs(checked.validated_parameters, task_vars)
        conf, problem = settings(checked.validated_parameters)
        if problem:
            return {'failed': True, 'changed': False, 'msg': problem}
        return self._ensure(conf, task_vars)

    def _suffix(self, task_vars):
        """The image tag suffix: the platform profile's, None when image_pull_tag_suffix is set; a ValueError
        (the message that stops the run) without a profile."""
        args = self._task.args
        if (args.get('inputs') or {}).get('image_pull_tag_suffix') is not None:
            return None
        verdict = profile_verdict(args.get('platform') or '', args.get('platform_overrides') or {},
                                  args.get('platform_spec') or None)
        if verdict['profile'] is None:
            problem = verdict['problems'][0]
            raise ValueError('No platform profile for %s, so no image tag suffix: [platform] %s. Fix: %s.'
                             % (task_vars.get('inventory_hostname', '?'), problem['msg'], problem['fix']))
        return verdict['profile'].get('image_tag_suffix') or ''

    def _node_images(self, task_vars):
        """The images on the node: ``node_images`` when the caller read them, else one docker_host_info.
        A node without a working Engine only has none here (preflight reports the Engine)."""
        given = self._task.args.get('node_images')
        if given is not None:
            return given
        listed = self._module('community.docker.docker_host_info', {'images': True}, task_vars)
        return [] if listed.get('failed') else listed.get('images') or []

    def _archive_isreg(self, inputs, task_vars):
        """Whether the tarball said to be on the node is a file there (None when none is said to be)."""
        on_node = boolean(inputs.get('image_pull_archive_on_node') or False, strict=False)
        if not (inputs.get('image_pull_archive') and on_node):
            return None
        found = self._module('ansible.legacy.stat', {'path': to_text(inputs['image_pull_archive'])}, task_vars)
        return bool((found.get('stat') or {}).get('isreg'))

    def _from_inputs(self, args, task_vars):
        """The image_pull role's whole phase: judge the inputs, look at the node, then pull, load or remove."""
        inputs = dict(args.get('inputs') or {})
        host = task_vars.get('inventory_hostname', '?')
        try:
            resolved = resolve(inputs, self._suffix(task_vars), os.path.isfile, self._node_images(task_vars),
                               self._archive_isreg(inputs, task_vars))
        except ValueError as exc:
            return {'failed': True, 'changed': False, 'msg': str(exc), 'stage': 'inputs'}
        found = resolved['found']
        out = {'changed': False, 'ref': found['ref'], 'id': found.get('id'), 'present': bool(found['present']),
               'refs': list(found.get('refs') or []), 'candidates': resolved['candidates'],
               'image_tag': resolved['image_tag'], 'problems': resolved['problems'], 'needed': resolved['needed'],
               'errors': [], 'stage': 'resolved', 'config': None}
        state = args.get('state') or 'present'
        if state == 'absent':
            return self._remove(out, task_vars)
        if state == 'resolved':
            return out
        if resolved['problems']:
            return dict(out, failed=True, stage='inputs', msg=problem_report(host, resolved['problems']))
        if resolved['done']:
            return out
        conf, problem = settings(dict(args, candidates=resolved['candidates'], image_tag=resolved['image_tag']))
        if problem:
            return dict(out, failed=True, stage='inputs', msg=problem)
        got = self._ensure(conf, task_vars)
        out.update((key, got[key]) for key in ('changed', 'errors', 'seconds', 'loaded', 'msg', 'diff', 'config')
                   if key in got)
        if got.get('failed'):
            return dict(out, failed=True, stage='load' if args.get('archive') else 'pull')
        out.update(ref=got['ref'] or out['ref'], id=got.get('id') or out['id'], stage='ensured')
        if args.get('archive') and not self._task.check_mode and out['ref'] not in (got.get('loaded') or []) \
                and not self._present([out['ref']], task_vars):
            return dict(out, failed=True, stage='load', msg=(
                '%s is not on %s after the load. Fix: check the tarball\'s image names (docker load -i prints them) '
                'against image_pull_candidates (%s), or set image_pull_image to the name it contains.'
                % (out['ref'], host, ', '.join(resolved['candidates']))))
        return out

    def _remove(self, out, task_vars):
        """Every name of the image the node has (a loaded tarball, a mirror's name): docker_image_remove each."""
        removed = []
        for ref in out['refs']:
            gone = self._module('community.docker.docker_image_remove', {'name': ref}, task_vars)
            if gone.get('failed'):
                return dict(out, failed=True, stage='remove', removed=removed,
                            msg='Could not remove %s from %s: %s' % (ref, task_vars.get('inventory_hostname', '?'),
                                                                     gone.get('msg')))
            if gone.get('changed'):
                removed.append(ref)
        return dict(out, changed=bool(removed), removed=removed, stage='removed')

    def _ensure(self, conf, task_vars):
        """Load the tarball, or try each candidate up to ``retries`` times until one is pulled."""
        errors = []
        start = time.monotonic()
        if self._task.args.get('archive'):
            present = self._present(conf['candidates'], task_vars) if conf['policy'] == 'not_present' else None
            if present:
                return {'changed': False, 'ref': present, 'id': None, 'errors': [], 'loaded': [],
                        'seconds': round(time.monotonic() - start, 3)}
            return dict(self._load(conf, task_vars), errors=[], seconds=round(time.monotonic() - start, 3))
        for ref in conf['candidates']:
            for attempt in range(1, conf['retries'] + 1):
                host = task_vars.get('inventory_hostname', '?')
                # One line per attempt, and one per failure with the Engine's words, at every verbosity.
                display.display('%s: Pull %s (attempt %d/%d)' % (host, ref, attempt, conf['retries']), stderr=True)
                answer = self._attempt(ref, conf, task_vars)
                if not answer.get('failed'):
                    image = answer.get('image') or {}
                    # The pulled image's own configuration, so that container_run need not read it again.
                    config = dict(inspect_config(image), image=ref) if image.get('Id') else None
                    return {'changed': bool(answer.get('changed')), 'ref': ref, 'id': image.get('Id'),
                            'config': config, 'errors': errors, 'seconds': round(time.monotonic() - start, 3)}
                msg = to_text(answer.get('msg', 'failed'))
                display.display('%s: Pull %s (attempt %d/%d) failed: %s' % (
                    host, ref, attempt, conf['retries'], ' '.join(msg.split())[:400]), stderr=True)
                errors.append(dict(classify_failure(msg), ref=ref, attempt=attempt))
                if errors[-1]['missing']:
                    # "Not found" is the registry's final answer: asking again only costs the delays.
                    break
                if attempt < conf['retries']:
                    time.sleep(conf['delay'])
        msg = failure_message(task_vars.get('inventory_hostname', '?'), conf['candidates'], errors,
                              self._task.args.get('inputs') or {}, self._task.args.get('image_tag') or '')
        return {'failed': True, 'changed': False, 'msg': msg, 'errors': errors, 'ref': None, 'id': None,
                'seconds': round(time.monotonic() - start, 3)}
