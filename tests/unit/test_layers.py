# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The two layers of the collection's Python, and what a module ships to a node.

- ``plugins/plugin_utils/``: controller-only code (request, contracts, catalogs, plan, node judgement,
  reports). Action, filter and other controller plugins import it; nothing that runs on a node does.
- ``plugins/module_utils/``: what runs on a node. AnsiballZ ships a module with every module_utils
  file it imports, so a module_utils file that imported a planner would carry it to every node.

The import graph is read from the source (every ``import`` of this collection, including imports
inside functions); the payload is what ansible-core's own AnsiballZ builder packs for each module.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLUGINS = os.path.join(ROOT, 'plugins')
PACKAGE = 'ansible_collections.ascend.vllm.'
# Lowest first: a file may import its own layer or a lower one, never a higher one.
LAYERS = {'module_utils': 0, 'modules': 1, 'plugin_utils': 2, 'action': 3, 'filter': 3, 'doc_fragments': 3}


def _sources():
    out = {}
    for directory, _dirs, files in os.walk(PLUGINS):
        for name in files:
            if name.endswith('.py'):
                path = os.path.join(directory, name)
                dotted = os.path.relpath(path, ROOT)[:-3].replace(os.sep, '.')
                out[dotted[:-len('.__init__')] if dotted.endswith('.__init__') else dotted] = path
    return out


SOURCES = _sources()


def _imports(dotted, path):
    """The collection's files that ``path`` imports (a ``from package import name`` of a submodule counts as it)."""
    with open(path, encoding='utf-8') as handle:
        tree = ast.parse(handle.read(), path)
    found = set()
    package = dotted if path.endswith('__init__.py') else dotted.rpartition('.')[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ''
            if node.level:
                parts = package.split('.')
                base = '.'.join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
            elif base.startswith(PACKAGE):
                base = base[len(PACKAGE):]
            else:
                continue
            for alias in node.names:
                if '%s.%s' % (base, alias.name) in SOURCES:
                    found.add('%s.%s' % (base, alias.name))
                elif base in SOURCES:
                    found.add(base)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(PACKAGE) and alias.name[len(PACKAGE):] in SOURCES:
                    found.add(alias.name[len(PACKAGE):])
    return found - {dotted}


GRAPH = {dotted: _imports(dotted, path) for dotted, path in SOURCES.items()}


def _layer(dotted):
    return dotted.split('.')[1]


def _package(dotted):
    """plugins.module_utils.serve._ready -> plugins.module_utils.serve; a top-level file is its own package."""
    parts = dotted.split('.')
    return '.'.join(parts[:3]) if len(parts) > 3 or dotted in SOURCES and SOURCES[dotted].endswith('__init__.py') \
        else dotted


def _cycles(graph):
    """Strongly connected components with more than one member (Tarjan), each sorted."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(graph.get(node, ())):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return out


def test_the_graph_is_read():
    """The reader finds what the files import (a failure here would make every other check vacuous)."""
    assert 'plugins.plugin_utils.contracts._container_spec' in GRAPH['plugins.plugin_utils.serve._container_run']
    assert 'plugins.plugin_utils.plan._host' in GRAPH['plugins.plugin_utils.plan._node']
    assert 'plugins.module_utils.serve._haproxy' in GRAPH['plugins.modules.balancer_server']
    assert set(_layer(name) for name in GRAPH) <= set(LAYERS), set(_layer(name) for name in GRAPH)


def test_no_import_goes_up_a_layer():
    upward = sorted('%s -> %s' % (name, target) for name, targets in GRAPH.items() for target in targets
                    if LAYERS[_layer(target)] > LAYERS[_layer(name)])
    assert upward == [], 'imports from a lower layer to a higher one:\n' + '\n'.join(upward)


def test_no_file_imports_itself_through_others():
    assert _cycles(GRAPH) == []


def test_no_two_packages_import_each_other():
    packages = {}
    for name, targets in GRAPH.items():
        packages.setdefault(_package(name), set()).update(_package(target) for target in targets)
    for name in packages:
        packages[name].discard(name)
    assert _cycles(packages) == []


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({'a': {'b'}, 'b': {'c'}, 'c': {'a'}, 'd': {'a'}}) == [['a', 'b', 'c']]


def test_module_utils_holds_only_what_a_module_uses():
    """Every module_utils file is shipped by some module (else it is controller code in the node's layer)."""
    shipped = set()
    todo = [name for name in GRAPH if _layer(name) == 'modules']
    while todo:
        for target in GRAPH[todo.pop()]:
            if target not in shipped:
                shipped.add(target)
                todo.append(target)
    unused = sorted(name for name in GRAPH if _layer(name) == 'module_utils' and name not in shipped
                    and not SOURCES[name].endswith('__init__.py'))
    assert unused == [], 'module_utils files no module runs (move them to plugin_utils):\n' + '\n'.join(unused)


# ------------------------------------------------------------------------------------------ the payload

# Run in a process of its own: the plugin loader it initialises is global to the process.
_PAYLOAD_SCRIPT = r"""
import base64, io, json, os, re, sys, zipfile
root = sys.argv[1]
from ansible.plugins.loader import init_plugin_loader
init_plugin_loader([os.path.join(root, '.ansible', 'collections')])
from ansible.executor import module_common
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar
out = {}
for name in sys.argv[2:]:
    built = module_common.modify_module(
        module_name='ascend.vllm.' + name, module_path=os.path.join(root, 'plugins', 'modules', name + '.py'),
        module_args={}, templar=Templar(loader=DataLoader()), task_vars={'ansible_python_interpreter': '/usr/bin/python3'})
    data = built.b_module_data if hasattr(built, 'b_module_data') else built[0]
    match = re.search(rb"zip_data='([A-Za-z0-9+/=]+)'", data)
    if not match:
        out[name] = None
        continue
    archive = zipfile.ZipFile(io.BytesIO(base64.b64decode(match.group(1))))
    prefix = 'ansible_collections/ascend/vllm/'
    out[name] = {m[len(prefix):]: archive.read(m).count(b'\n') for m in archive.namelist() if m.startswith(prefix)}
print(json.dumps(out))
"""
_PAYLOADS = {}


def _payload(name):
    """The collection files ansible-core's AnsiballZ builder packs for module ``name``: {path: lines}."""
    if not _PAYLOADS:
        proc = subprocess.run([sys.executable, '-c', _PAYLOAD_SCRIPT, ROOT] + MODULES, capture_output=True, text=True,
                              check=False, timeout=300)
        assert proc.returncode == 0, proc.stderr
        _PAYLOADS.update(json.loads(proc.stdout))
    return _PAYLOADS[name]


def _just_docs(name):
    with open(os.path.join(PLUGINS, 'modules', name + '.py'), encoding='utf-8') as handle:
        tree = ast.parse(handle.read())
    return all(isinstance(node, (ast.Assign, ast.Expr)) or isinstance(node, ast.ImportFrom) and node.module == '__future__'
               for node in tree.body)


MODULES = sorted(name[:-3] for name in os.listdir(os.path.join(PLUGINS, 'modules')) if name.endswith('.py'))


@pytest.mark.parametrize('name', MODULES)
def test_a_module_ships_no_controller_code(name):
    if _just_docs(name):
        pytest.skip('%s is documentation only: it runs as its action plugin, on the controller' % name)
    payload = _payload(name)
    assert payload is not None, 'AnsiballZ built no payload for %s' % name
    controller = sorted(path for path in payload if path.startswith('plugins/plugin_utils/'))
    assert controller == [], '%s ships controller code: %s' % (name, controller)
    # The payload is the module_utils the module imports, nothing else of the collection.
    expected = set()
    todo = ['plugins.modules.' + name]
    while todo:
        for target in GRAPH[todo.pop()]:
            path = os.path.relpath(SOURCES[target], ROOT).replace(os.sep, '/')
            if path not in expected:
                expected.add(path)
                todo.append(target)
    shipped = set(path for path in payload if not path.endswith('__init__.py') or path in expected)
    assert shipped == expected, (sorted(shipped - expected), sorted(expected - shipped))
    assert all(path.startswith('plugins/module_utils/') for path in shipped), sorted(shipped)


def test_the_balancer_module_ships_the_haproxy_reader_alone():
    """The module that drains a server carries HAProxy's stat reader, not the rolling planner (it carried
    14 files and about 2,700 lines before the layers were split)."""
    payload = _payload('balancer_server')
    code = sorted(path for path in payload if not path.endswith('__init__.py'))
    assert code == ['plugins/module_utils/serve/_haproxy.py'], code
