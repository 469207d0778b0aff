# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Every plugin's DOCUMENTATION, EXAMPLES and RETURN parse as YAML.

ansible-test's validate-modules checks modules only; a filter whose RETURN does not
parse still loads, and only ansible-doc and the docs build notice.
"""

import ast
import os

import pytest
import yaml

PLUGINS = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'plugins')
FILES = sorted(os.path.join(root, name) for root, _dirs, names in os.walk(PLUGINS)
               for name in names if name.endswith('.py') and not {'module_utils', 'plugin_utils'} & set(root.split(os.sep)))


def _blocks(path):
    with open(path) as handle:
        tree = ast.parse(handle.read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if node.targets[0].id in ('DOCUMENTATION', 'EXAMPLES', 'RETURN') and isinstance(node.value, ast.Constant):
                yield node.targets[0].id, node.value.value


@pytest.mark.parametrize('path', FILES, ids=lambda p: os.path.relpath(p, PLUGINS))
def test_doc_blocks_are_yaml(path):
    found = dict(_blocks(path))
    if os.path.basename(os.path.dirname(path)) in ('modules', 'filter', 'lookup', 'action') and \
            not path.endswith(os.path.join('action', os.path.basename(path))):
        assert 'DOCUMENTATION' in found, 'no DOCUMENTATION in %s' % path
    for name, text in found.items():
        yaml.safe_load(text)
