# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The container_run role's inputs, the argument spec of ascend.vllm.container_ensure (its module file declares it,
its action plugin checks a task's arguments with it). What the action does with them is the controller's:
plugin_utils/serve/_container_run.py.
"""

from __future__ import annotations

STATES = ('started', 'stopped', 'absent', 'restored')

# The role's variables (roles/container_run/meta/argument_specs.yml), one suboption each of the
# action's ``inputs``; tests/unit/plugins/action/test_container_ensure.py keeps the two in step.
# The cache directory is a node path: ``str``, not ``path`` (which expands ~ on the controller).
INPUT_OPTIONS = {
    'container_run_name': {'type': 'str', 'default': 'vllm-ascend'},
    'container_run_state': {'type': 'str', 'default': 'started', 'choices': list(STATES)},
    'container_run_image': {'type': 'str', 'default': ''},
    'container_run_pull': {'type': 'str', 'default': 'missing', 'choices': ['missing', 'never', 'always']},
    'container_run_command': {'type': 'list', 'elements': 'str', 'default': []},
    'container_run_command_env': {'type': 'dict', 'default': {}},
    'container_run_env': {'type': 'dict', 'default': {}},
    'container_run_profile': {'type': 'dict', 'default': {}},
    'container_run_chips': {'type': 'list', 'elements': 'int', 'default': [0]},
    'container_run_port': {'type': 'int', 'default': 8080},
    'container_run_publish_address': {'type': 'str', 'default': ''},
    'container_run_model_cache_dir': {'type': 'str', 'default': '/root/.cache'},
    'container_run_extra_mounts': {'type': 'list', 'elements': 'dict', 'default': []},
    'container_run_restart_policy': {'type': 'str', 'default': 'unless-stopped',
                                     'choices': ['no', 'on-failure', 'always', 'unless-stopped']},
    'container_run_stop_timeout': {'type': 'int', 'default': 30},
    'container_run_log_max_size': {'type': 'str', 'default': '100m'},
    'container_run_log_max_file': {'type': 'int', 'default': 3},
    'container_run_instance': {'type': 'str', 'default': 'default'},
    'container_run_model': {'type': 'str', 'default': ''},
    'container_run_platform': {'type': 'str', 'default': ''},
    'container_run_labels': {'type': 'dict', 'default': {}},
    'container_run_drain': {'type': 'dict', 'default': {}},
    'container_run_keep_previous': {'type': 'bool', 'default': False},
    'container_run_recreate': {'type': 'bool', 'default': False},
    'container_run_no_log': {'type': 'bool', 'default': False},
    'container_run_cache_dir_exists': {'type': 'bool'},
    'container_run_existing': {'type': 'dict'},
    'container_run_existing_previous': {'type': 'dict'},
    'container_run_image_config': {'type': 'dict'},
}

ARGUMENT_SPEC = {'inputs': {'type': 'dict', 'required': True, 'options': INPUT_OPTIONS}}
