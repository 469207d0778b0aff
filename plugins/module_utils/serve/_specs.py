# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The options of the controller-side actions whose module file only holds their documentation.

One spec each, read by the action plugin (plugins/action/NAME.py, which checks its task's
arguments with it) and by the module stub (plugins/modules/NAME.py, whose AnsibleModule
declares it, so that sanity checks the documentation against it).
"""

from __future__ import annotations

SERVE_SUMMARY = {
    'instances': {'type': 'list', 'elements': 'dict', 'required': True},
    'status': {'type': 'dict', 'default': {}},
    'exposure': {'type': 'dict', 'default': {}},
    'balancer': {'type': 'dict', 'default': {}},
    'left_out': {'type': 'list', 'elements': 'str', 'default': []},
    'removed': {'type': 'list', 'elements': 'str', 'default': []},
}

CONTAINERS_ABSENT = {
    'names': {'type': 'list', 'elements': 'str', 'default': []},
    'all_managed': {'type': 'bool', 'default': False},
    'stop_timeout': {'type': 'int', 'default': 30},
    'wait': {'type': 'float', 'default': 60},
    'npu_smi_path': {'type': 'path'},
    'docker_host': {'type': 'str'},
}

UPGRADE_STEP = {
    'name': {'type': 'str', 'required': True},
    'status': {'type': 'dict', 'default': {}},
    'drained': {'type': 'dict', 'default': {}},
    'stopped_at': {'type': 'float'},
    'restored': {'type': 'dict'},
    'left': {'type': 'list', 'elements': 'str', 'default': []},
    'error': {'type': 'str', 'default': ''},
    'socket': {'type': 'str', 'default': ''},
    'backend': {'type': 'str', 'default': ''},
    'server': {'type': 'str', 'default': ''},
    'service': {'type': 'bool', 'default': False},
}

INSTANCE_STATE = {
    'state': {'type': 'str', 'required': True, 'choices': ['stopped', 'dropped', 'restored', 'absent']},
    'service': {'type': 'bool', 'default': False},
    'name': {'type': 'str'},
    'names': {'type': 'list', 'elements': 'str', 'default': []},
    'all_managed': {'type': 'bool', 'default': False},
    'stop_timeout': {'type': 'int'},
    'wait': {'type': 'float'},
}
# Every step but `absent` (O(names)) is one instance's.
INSTANCE_STATE_REQUIRED_IF = [('state', state, ('name',)) for state in ('stopped', 'dropped', 'restored')]
