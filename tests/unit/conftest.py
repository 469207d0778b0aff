# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Make ``ansible_collections.ascend.vllm`` importable under plain pytest.

ansible-test runs unit tests from inside an ``ansible_collections/ascend/vllm``
tree; a plain ``pytest tests/unit`` from the repository root instead relies on
the link ``.ansible/collections/ansible_collections/ascend/vllm`` -> repository
root that ``make setup`` creates (the same path ansible.cfg gives Ansible).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import sys

_REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_COLLECTIONS = os.path.join(_REPO_ROOT, '.ansible', 'collections')

if os.path.isdir(os.path.join(_COLLECTIONS, 'ansible_collections')) and _COLLECTIONS not in sys.path:
    sys.path.insert(0, _COLLECTIONS)
