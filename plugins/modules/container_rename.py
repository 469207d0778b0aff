#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import annotations

DOCUMENTATION = r'''
---
module: container_rename
short_description: Rename a Docker container (what C(docker rename) does), idempotently
version_added: 0.2.0
description:
  - Renames the container O(name) to O(new_name) through the Docker Engine API
    (C(POST /containers/{name}/rename)). The container keeps its id, image, settings,
    logs and state; only the name changes. community.docker has no module for this.
  - Idempotent - when O(name) is gone and O(new_name) exists the rename is taken as done
    (C(changed=false)).
  - Fails, changing nothing, when both names exist (O(new_name) is taken), when neither
    exists, or with O(managed_only) when O(name) was not created by ascend.vllm.
  - The C(ascend.vllm.container_run) role uses it to keep a serving container under
    C(<name>-previous) while its replacement starts, and to put it back.
extends_documentation_fragment:
  - ascend.vllm.module
  - ansible.builtin.action_common_attributes
  - ascend.vllm.docker_engine
options:
  name:
    description: Current name (or id) of the container.
    type: str
    required: true
  new_name:
    description: The name to give it.
    type: str
    required: true
  managed_only:
    description:
      - Only rename a container that carries the label C(ascend.vllm.managed-by=ascend.vllm)
        (one C(ascend.vllm.container_run) created).
    type: bool
    default: true
notes:
  - Needs access to the Docker socket (root, or the C(docker) group).
  - A running container can be renamed; the roles stop it first so that its port and chips are free.
seealso:
  - module: community.docker.docker_container
'''

EXAMPLES = r'''
- name: Keep the serving container under another name while its replacement starts
  ascend.vllm.container_rename:
    name: vllm-ascend
    new_name: vllm-ascend-previous

- name: Put it back
  ascend.vllm.container_rename:
    name: vllm-ascend-previous
    new_name: vllm-ascend
'''

RETURN = r'''
id:
  description: Id of the renamed container.
  returned: success
  type: str
  sample: 3f1c0b7e9a2d4c5e8f6a7b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e
name:
  description: The container's name afterwards (O(new_name)).
  returned: success
  type: str
  sample: vllm-ascend-previous
'''

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.ascend.vllm.plugins.module_utils.node._node_docker import (
    DockerApi, DockerError, engine_host, inspect_raw, rename_container,
)
from ansible_collections.ascend.vllm.plugins.module_utils._labels import MANAGED_LABEL, MANAGED_VALUE

ARGUMENT_SPEC = dict(
    name=dict(type='str', required=True),
    new_name=dict(type='str', required=True),
    managed_only=dict(type='bool', default=True),
    docker_host=dict(type='str'),
)


def plan_rename(source, target, params):
    """(changed, error) from the inspect results of both names (None: no such container)."""
    name, new_name = params['name'], params['new_name']
    if source is None and target is not None:
        return False, None
    if source is None:
        return False, 'no container %s (nor %s) on the node' % (name, new_name)
    if target is not None:
        return False, ('cannot rename %s to %s: a container of that name exists (%s); remove it first '
                       '(`docker rm -f %s`)' % (name, new_name, (target.get('State') or {}).get('Status', '?'), new_name))
    labels = (source.get('Config') or {}).get('Labels') or {}
    if params['managed_only'] and labels.get(MANAGED_LABEL) != MANAGED_VALUE:
        return False, ('%s was not created by ascend.vllm (no %s=%s label); not renamed'
                       % (name, MANAGED_LABEL, MANAGED_VALUE))
    return True, None


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    params = module.params
    name, new_name = params['name'], params['new_name']
    if name == new_name:
        module.fail_json(msg='name and new_name are both %s' % name)
    api = DockerApi(engine_host(params['docker_host']))
    try:
        source, target = inspect_raw(api, name), inspect_raw(api, new_name)
        changed, error = plan_rename(source, target, params)
        if error:
            module.fail_json(msg=error)
        if changed and not module.check_mode:
            rename_container(api, name, new_name)
    except DockerError as exc:
        module.fail_json(msg='renaming %s to %s failed: %s' % (name, new_name, exc))
    found = source if source is not None else target
    module.exit_json(changed=changed, id=found.get('Id'), name=new_name)


if __name__ == '__main__':
    main()
