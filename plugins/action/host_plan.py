# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""host_plan: read a host's variables once into a request and return its whole plan, on the controller.

The documentation is the module's (plugins/modules/host_plan.py). The request
(plugin_utils/request) holds every variable of the collection's roles as the
roles would read it -- the user's values over the roles' defaults -- and
remembers which the user set and where; the plan (plugin_utils/plan) is built
and judged from it in one step. No node is contacted.
"""

from __future__ import annotations

import os

# ansible-core tags values loaded from files with where they were written (diagnostics only).
from ansible._internal._datatag._tags import Origin
from ansible.errors import AnsibleError
from ansible.module_utils.common.text.converters import to_text
from ansible.module_utils.parsing.convert_bool import boolean
from ansible.plugins.action import ActionBase
from ansible.plugins.loader import vars_loader

from ansible_collections.ascend.vllm.plugins.modules.host_plan import ARGUMENT_SPEC
from ansible_collections.ascend.vllm.plugins.plugin_utils.plan._host import host_plan
from ansible_collections.ascend.vllm.plugins.plugin_utils.judge._node_read import NodeReadError, read_node, run_module
from ansible_collections.ascend.vllm.plugins.plugin_utils.plan._node import node_plan, node_query, npu_settings
from ansible_collections.ascend.vllm.plugins.plugin_utils.report._plan import plan_lines
from ansible_collections.ascend.vllm.plugins.plugin_utils.request._request import Request, origin_text
from ansible_collections.ascend.vllm.plugins.plugin_utils.request._vars import judged, role_argument_specs, value_specs

ROLES_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), 'roles')
_CACHE = {}


def _roles(loader):
    """(argument specs, raw defaults) of the collection's roles, read once per controller process.

    The defaults are loaded as Ansible loads a role's: their templates are trusted, and
    templated against the host's variables when read, as the roles would read them.
    """
    if 'roles' not in _CACHE:
        specs = role_argument_specs(ROLES_DIR)
        defaults = {}
        for role in sorted(specs):
            path = os.path.join(ROLES_DIR, role, 'defaults', 'main.yml')
            if os.path.isfile(path):
                defaults.update(loader.load_from_file(path, trusted_as_template=True) or {})
        _CACHE['roles'] = (specs, defaults)
        _CACHE['value_specs'] = value_specs(specs)
    return _CACHE['roles']


def role_value_specs():
    """{variable: argument spec} of the roles, read once per controller process (eval_plan's too)."""
    if 'value_specs' not in _CACHE:
        _CACHE['value_specs'] = value_specs(role_argument_specs(ROLES_DIR))
    return _CACHE['value_specs']


def variable_names(specs, defaults):
    """Every variable the roles read: their defaults and the options of every entry point."""
    names = set(defaults)
    for document in specs.values():
        for entry in (document.get('argument_specs') or {}).values():
            names.update((entry or {}).get('options') or {})
    return names


def _origin(value, name, extra_vars):
    if name in extra_vars:
        return 'extra vars'
    tag = Origin.get_tag(value)
    if tag is None or not (tag.path or tag.description):
        return ''
    return origin_text(tag.path, tag.line_num, os.getcwd()) if tag.path else to_text(tag.description)


def read_request(task_vars, templar, loader, names):
    """The Request of the task's host: ``names`` (and every variable the user set) as the roles read them."""
    host = task_vars['inventory_hostname']
    hostvars = task_vars['hostvars']
    raw = hostvars.raw_get(host)
    _specs, defaults = _roles(loader)
    layered = dict(defaults, **task_vars)
    user = set(raw) | set(name for name in task_vars if name not in defaults and name not in raw)
    manager = getattr(hostvars, '_variable_manager', None)
    extra_vars = getattr(manager, 'extra_vars', None) or {}
    env = templar.copy_with_new_env(available_variables=layered)

    by_spec = role_value_specs()

    def resolve(name):
        try:
            return env.template(layered[name])
        except AnsibleError as exc:
            raise ValueError(to_text(exc))

    origins = dict((name, _origin(raw[name], name, extra_vars)) for name in raw if not name.startswith('ansible_'))
    # The variables of the host's own inventory entry and host_vars (not its groups'), for the rules on
    # host-only settings: a bool or null carries no Origin tag to tell where it was written.
    inventory = getattr(hostvars, '_inventory', None)
    entry = inventory.get_host(host) if inventory is not None else None
    host_level = set(entry.vars) if entry is not None else set()
    host_level |= _host_vars_names(loader, inventory, entry)
    # Each value read as every role reads it (one coercion: "8080" from -e is the port 8080, "false" is False),
    # so the plan judges, and holds, the value the roles use; problems name the value as written.
    return Request(host, user_set=user, origins=origins, resolve=resolve,
                   judge=lambda name, value: judged(name, value, by_spec),
                   known=set(name for name in names if name in layered) | user, host_level=host_level)


def _host_vars_names(loader, inventory, entry):
    """Names the host's host_vars set, read by Ansible's own host_group_vars plugin next to each inventory
    source and the playbook, as ``ansible-playbook`` reads them."""
    if entry is None or inventory is None:
        return set()
    plugin = vars_loader.get('ansible.builtin.host_group_vars')
    paths = set()
    for source in getattr(inventory, '_sources', None) or []:
        source = to_text(source)
        paths.add(source if os.path.isdir(source) else os.path.dirname(source))
    if loader.get_basedir():
        paths.add(to_text(loader.get_basedir()))
    names = set()
    for path in sorted(paths):
        try:
            names.update(plugin.get_vars(loader, path, [entry]) or {})
        except AnsibleError:
            continue
    return names


class ActionModule(ActionBase):
    """The request and the plan of the task's host."""

    _requires_connection = False
    _VALID_ARGS = frozenset(ARGUMENT_SPEC)

    def _read_node(self, request, planned, settings, task_vars):
        """What the roles' gather step reads, in one phase: node_facts for this plan, the opt-in page-cache
        drop and the memory read after it (RC mode; plugin_utils/judge/_node_read.py, as node_facts with
        ``checks`` does), and the registry's answers for the digest pins."""
        host = task_vars.get('inventory_hostname')

        def execute(name, args):
            return self._execute_module(module_name=name, module_args=args, task_vars=task_vars)

        node, drop, memory_again = read_node(
            execute, node_query(request, planned, settings), settings,
            boolean(request.get('npu_check_drop_page_cache') or False, strict=False), self._task.check_mode, host)
        registry = None
        pins = (planned.get('image') or {}).get('pins') or []
        if pins and not boolean(request.get('vllm_serve_offline') or False, strict=False):
            registry = run_module(execute, 'ascend.vllm.node_facts',
                                  {'gather': ['manifests'], 'manifests': [pin['ref'] for pin in pins]}, host)
        return node, drop, memory_again, registry

    def run(self, tmp=None, task_vars=None):
        super().run(tmp, task_vars)
        args = self._task.args
        given = args.get('given')
        given = given['plan'] if (isinstance(given, dict) and isinstance(given.get('plan'), dict)
                                  and not any(given.get(key) for key in ('failed', 'skipped', 'unreachable'))) else None
        reading = boolean(args.get('read_node', False), strict=False)
        if given is not None and not (reading and given.get('stage') == 'plan' and not given.get('problems')):
            # This run's plan (preflight's, judged against the node): kept, not made again.
            return {'changed': False, 'plan': given, 'problems': list(given.get('problems') or []), 'given': True}
        specs, defaults = _roles(self._loader)
        request = read_request(task_vars, self._templar, self._loader, variable_names(specs, defaults))
        out = {'changed': False}
        try:
            # A plan of this run not yet judged against the node (preflight's first play) is the one the node judges.
            planned = given if given is not None else host_plan(request, specs, os.path.isfile,
                                                                args.get('chip_figures'))
            read = (args.get('node'), args.get('drop'), args.get('memory_again'), args.get('registry'))
            # Each value of the plan is computed once a run: the node read and the node's judgement share these.
            settings = None if planned['problems'] else npu_settings(request, planned)
            if reading and not planned['problems']:
                read = self._read_node(request, planned, settings, task_vars)
                out.update(node=read[0], changed=bool(read[1] and read[1].get('changed')))
            if read[0] is not None and not planned['problems']:
                planned = node_plan(request, planned, *read, settings=settings)
        except (ValueError, NodeReadError) as exc:
            failed = {'failed': True, 'changed': False, 'msg': 'host_plan could not plan %s: %s' % (request.host, exc)}
            if getattr(exc, 'unreachable', False):
                failed['unreachable'] = True
            return failed
        if planned.get('stage') != 'node':
            # What playbooks/plan.yml prints: the plan as the controller sees it, the node not read.
            planned = dict(planned, lines=plan_lines(planned, request.get))
        out.update(plan=planned, problems=planned['problems'])
        if planned['problems'] and boolean(self._task.args.get('fail_on_problems', True), strict=False):
            # The report says it all; the half-built plan would only bury it.
            out.pop('plan')
            return dict(out, failed=True, msg=planned['report'])
        return out
