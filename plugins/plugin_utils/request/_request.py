# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The request: a host's variables, read once, each value with where it came from.

The ``ascend.vllm.host_plan`` action builds one ``Request`` per host from the
host's variables (inventory, ``host_vars``/``group_vars``, extra vars) over the
roles' defaults, and every later step reads values through it. Because it
remembers which variables the user set and where (``origin``), a problem can
name what the user wrote -- the variable, the instance index and the file --
instead of a role's internal name. Pure: no Ansible imports.
"""

import re

# Ansible's own variables and internals of the roles are never the user's.
_INTERNAL_RE = re.compile(r'^(ansible_|_|groups$|group_names$|hostvars$|inventory_|omit$|playbook_dir$|play_hosts$|'
                          r'role_|environment$)')
# The tag of a pinned release in an image reference (repository:v0.23.0-310p[@sha256:...]).
_RELEASE_TAG_RE = re.compile(r':v?[0-9]+[.][0-9]+[^/@]*(@|$)')


class Request:
    """The variables of one host as the roles will read them, and which of them the user set.

    ``values``: every variable by name, the roles' defaults already resolved.
    ``user_set``: the names the user set (inventory, host/group vars, extra vars).
    ``origins``: for user-set names, where the value was written (``group_vars/x.yml:3``,
    ``extra vars``), when Ansible knows it.
    """

    def __init__(self, host, values=None, user_set=(), origins=None, resolve=None, known=(), host_level=(), judge=None):
        self.host = host
        # Set on this host itself (the inventory's host entry, host_vars) rather than for a group.
        self._host_level = frozenset(host_level)
        self._values = dict(values or {})
        self._user = frozenset(user_set)
        self._origins = dict(origins or {})
        # ``resolve(name)`` reads a variable the first time it is asked for (templating is
        # paid only for what a check reads); it raises ValueError for a broken template.
        self._resolve = resolve
        self._known = frozenset(known) | frozenset(self._values) | self._user
        self._errors = {}
        # ``judge(name, value)`` reads a value as every role reads it (by its argument spec,
        # contracts/_coerce.arrived); ``written`` keeps the value as the user wrote it, for messages.
        self._judge = judge
        self._written = {}

    def __contains__(self, name):
        return name in self._known

    def __getitem__(self, name):
        if name in self._errors:
            raise ValueError(self._errors[name])
        if name not in self._values:
            if self._resolve is None or name not in self._known:
                raise KeyError(name)
            try:
                value = self._resolve(name)
            except ValueError as exc:
                self._errors[name] = str(exc)
                raise
            self._written[name] = value
            self._values[name] = value if self._judge is None else self._judge(name, value)
        return self._values[name]

    def written(self, name):
        """The value of ``name`` as the user (or a role default) wrote it, before it was read by its type."""
        value = self[name]
        return self._written.get(name, value)

    def get(self, name, default=None):
        try:
            return self[name]
        except (KeyError, ValueError):
            return default

    def is_set(self, name):
        """Whether the user set ``name`` (as opposed to a role default)."""
        return name in self._user

    def user_names(self):
        """The names the user set that could be this collection's, sorted."""
        return sorted(name for name in self._user if not _INTERNAL_RE.match(name) and name in self)

    def origin(self, name):
        """Where the user wrote ``name`` (a file and line, ``extra vars``), or '' when unknown or a default."""
        return self._origins.get(name, '') if name in self._user else ''

    def for_this_host(self, name):
        """Whether the user set ``name`` for this host alone: extra vars, host_vars or the host's inventory entry."""
        where = self.origin(name)
        return (name in self._user and name in self._host_level) or where == 'extra vars' or \
            where.startswith('host_vars/') or '/host_vars/' in where

    def first_set(self, *names):
        """The first of ``names`` the user set, else the last (the one a default stands in for)."""
        return next((name for name in names if self.is_set(name)), names[-1])

    def var_names(self):
        """The inventory variable each vllm_config option really comes from (problems name it).

        The ``ascend_vllm_*`` globals unless the role variable itself is set, and for the image
        tag the variable that holds the release tag the model's minimum is checked against.
        """
        image_pull_image = self.get('image_pull_image') or ''
        image_tag = next(name for name, holds in (
            ('vllm_serve_image', self.is_set('vllm_serve_image')),
            ('vllm_serve_image_tag', self.is_set('vllm_serve_image_tag')),
            ('image_pull_image', isinstance(image_pull_image, str) and _RELEASE_TAG_RE.search(image_pull_image)),
            ('image_pull_tag/image_pull_tag_suffix', self.is_set('image_pull_tag_suffix')),
            ('image_pull_tag', True)) if holds)
        return dict(((key, self.first_set('vllm_serve_' + key, 'ascend_vllm_' + key))
                     for key in ('platform', 'platform_overrides', 'platform_spec', 'offline')), image_tag=image_tag)


def origin_text(path, line, cwd=None):
    """``path:line`` with ``path`` relative to ``cwd`` when it lies under it."""
    if not path:
        return ''
    if cwd and path.startswith(cwd.rstrip('/') + '/'):
        path = path[len(cwd.rstrip('/')) + 1:]
    return '%s:%d' % (path, line) if line else path


def variable_of(problem):
    """The variable a problem names: its ``variable`` key, else the name before ``=``/``[`` in its message."""
    if problem.get('variable'):
        return str(problem['variable']).split('/', 1)[0]
    match = re.match(r'^([A-Za-z_][A-Za-z0-9_]*)(\[|=|\.)', str(problem.get('msg') or ''))
    return match.group(1) if match else ''


def with_origins(problems, request):
    """The problems, each naming where the user wrote its variable (``origin``) when the request knows."""
    out = []
    for problem in problems:
        where = '' if problem.get('origin') else request.origin(variable_of(problem))
        out.append(dict(problem, origin=where) if where else dict(problem))
    return out
