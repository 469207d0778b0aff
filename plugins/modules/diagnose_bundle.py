#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection

from __future__ import annotations

DOCUMENTATION = r'''
---
module: diagnose_bundle
short_description: One archive of the diagnostics archives of several hosts
version_added: 0.3.0
description:
  - Writes one gzip'd tar archive (mode 0600) in O(dest) named O(name)C(.tar.gz) holding, under O(name)C(/HOST/),
    the members of each host's archive from M(ascend.vllm.diagnose_collect), plus O(name)C(/hosts.json) naming the
    hosts collected and those in O(missing) with why.
  - Runs where the archives are - the controller in C(playbooks/diagnose.yml) (C(delegate_to) V(localhost)).
extends_documentation_fragment:
  - ascend.vllm.module
  - ansible.builtin.action_common_attributes
options:
  archives:
    description: Host name to the path of its archive.
    type: dict
    required: true
  missing:
    description: Host name to why its archive is not there (unreachable, the collection failed).
    type: dict
    default: {}
  dest:
    description: Directory to write the archive in; empty is the current directory (where ansible-playbook ran).
    type: path
    default: ''
  name:
    description: File name without C(.tar.gz), also the top directory inside; empty is C(ascend-vllm-diagnose-<UTC time>).
    type: str
    default: ''
  remove_sources:
    description: Remove the hosts' archives once bundled.
    type: bool
    default: true
attributes:
  check_mode:
    details: The archive is the module's output; it is written in check mode too.
  diff_mode:
    support: partial
    details:
      - The archive written shows as created (or replaced), and each host's archive removed (O(remove_sources)) as
        removed, each as its list of members with their sizes, not their bytes.
seealso:
  - module: ascend.vllm.diagnose_collect
'''

EXAMPLES = r'''
- name: Bundle every host's diagnostics into one archive
  ascend.vllm.diagnose_bundle:
    archives: {duo1: /tmp/diag/duo1.tar.gz, pro1: /tmp/diag/pro1.tar.gz}
    missing: {pro2: unreachable}
  delegate_to: localhost
  run_once: true
  register: bundle
'''

RETURN = r'''
path:
  description: The archive written.
  returned: success
  type: str
  sample: /home/ops/ascend-vllm-diagnose-20261201T171500Z.tar.gz
files:
  description: Number of files in it.
  returned: success
  type: int
  sample: 42
diff:
  description: With C(--diff), per archive written or removed, its path (C(before_header), C(after_header);
    C((absent)) when it did not or does not exist) and its members, one C(NAME (N bytes)) line each, before and after.
  returned: in diff mode
  type: list
  elements: dict
  version_added: 0.4.0
'''

import os
import tarfile
import time

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.ascend.vllm.plugins.module_utils._diff import add, listing
from ansible_collections.ascend.vllm.plugins.module_utils.serve._diagnose import (
    archive_shown, bundle, bundle_name, write_archive)

ARGUMENT_SPEC = dict(
    archives=dict(type='dict', required=True),
    missing=dict(type='dict', default={}),
    dest=dict(type='path', default=''),
    name=dict(type='str', default=''),
    remove_sources=dict(type='bool', default=True),
)


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    params = module.params
    name = params['name'] or bundle_name(time.time())
    if '/' in name or name in ('.', '..'):
        module.fail_json(msg='name=%s: must be a file name without a directory' % name)
    path = os.path.join(os.path.abspath(params['dest'] or os.getcwd()), name + '.tar.gz')
    archives = dict((str(host), str(source)) for host, source in params['archives'].items())
    result = {}
    try:
        files = bundle(archives, dict((str(h), str(w)) for h, w in (params['missing'] or {}).items()))
        before = archive_shown(path) if module._diff else None  # pylint: disable=protected-access
        write_archive(path, name, files)
    except (IOError, OSError, ValueError, tarfile.TarError) as exc:
        module.fail_json(msg='Bundling the diagnostics into %s failed: %s' % (path, exc))
    add(result, module._diff, path, before, listing(dict(('%s/%s' % (name, member), data)  # pylint: disable=protected-access
                                                         for member, data in files.items())))
    if params['remove_sources']:
        for source in archives.values():
            add(result, module._diff, source, archive_shown(source) if module._diff else None, None)  # pylint: disable=protected-access
            os.remove(source)
    module.exit_json(changed=True, path=path, files=len(files), **result)


if __name__ == '__main__':
    main()
