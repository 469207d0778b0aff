# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Run a module's main() in-process with given arguments (shared by the module unit tests)."""

import contextlib
import json

import pytest
from ansible.module_utils import basic
from ansible.module_utils.common.text.converters import to_bytes


@contextlib.contextmanager
def set_module_args(args):
    """ansible-core >= 2.19 reads module args through patch_module_args; older cores through _ANSIBLE_ARGS."""
    try:
        from ansible.module_utils.testing import patch_module_args
    except ImportError:  # ansible-core < 2.19
        payload = to_bytes(json.dumps({'ANSIBLE_MODULE_ARGS': args}))
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(basic, '_ANSIBLE_ARGS', payload)
            yield
    else:
        with patch_module_args(args):
            yield


class ExitJson(Exception):
    """What AnsibleModule.exit_json raises under patch_exit_fail; args[0] is the result."""


class FailJson(Exception):
    """What AnsibleModule.fail_json raises under patch_exit_fail; args[0] is the result with msg and failed."""


def _exit_json(self, **kwargs):  # pylint: disable=unused-argument
    kwargs.setdefault('changed', False)
    raise ExitJson(kwargs)


def _fail_json(self, msg, **kwargs):  # pylint: disable=unused-argument
    raise FailJson(dict(kwargs, msg=msg, failed=True))


@pytest.fixture(autouse=True)
def patch_exit_fail(monkeypatch):
    """Autouse in every test module that imports it: exit_json / fail_json raise instead of exiting."""
    monkeypatch.setattr(basic.AnsibleModule, 'exit_json', _exit_json)
    monkeypatch.setattr(basic.AnsibleModule, 'fail_json', _fail_json)


def _no_node_contact(*args, **kwargs):
    raise AssertionError('a controller-only action contacted the node')


def run_controller_action(action_class, name, args, check_mode=False, task_vars=None, loader=None, templar=None):
    """A controller-only action plugin as the task executor runs it, over a connection that fails on any use."""
    from unittest import mock
    task = mock.MagicMock()
    task.args = dict(args)
    task.action = name
    task.async_val = 0
    task.check_mode = check_mode
    connection = mock.MagicMock()
    connection._shell.tmpdir = None
    for method in ('_connect', 'exec_command', 'put_file', 'fetch_file'):
        getattr(connection, method).side_effect = _no_node_contact
    action = action_class(task, connection, mock.MagicMock(), loader=loader, templar=templar, shared_loader_obj=None)
    result = action.run(task_vars=dict(task_vars or {}))
    assert not connection.method_calls, connection.method_calls
    return result
