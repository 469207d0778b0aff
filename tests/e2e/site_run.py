"""Run the real site.yml against one simulated node, as an operator would (shared by e2e modules).

``run_site`` writes an inventory with the node in ``group`` and ``group_vars`` as that group's
variables, runs ``ansible-playbook site.yml`` and returns the process and the play recap per host.
``managed_container`` is ``docker inspect`` of the node's one container the collection manages.
"""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "sim"))
import sim  # noqa: E402  pylint: disable=wrong-import-position

RECAP = re.compile(r"^(\S+)\s+: ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)", re.M)


def run_site(workdir, node, group, group_vars, *extra):
    inv = {"all": {"children": {group: {"vars": group_vars, "hosts": {node: {
        "ansible_connection": "community.docker.docker", "ansible_host": "ascend-sim-" + node,
        "ansible_python_interpreter": "/usr/bin/python3"}}}}}}
    path = Path(workdir) / "inventory.yml"
    path.write_text(yaml.safe_dump(inv))
    env = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"), ANSIBLE_FORCE_COLOR="0")
    proc = subprocess.run(
        [str(Path(sys.executable).parent / "ansible-playbook"), "site.yml", "-i", str(path), *extra],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=900, check=False)
    recap = {m.group(1): {"changed": int(m.group(3)), "failed": int(m.group(5))} for m in RECAP.finditer(proc.stdout)}
    return proc, recap


def managed_container(node):
    """`docker inspect` of the node's container managed by the collection, or None."""
    ids = sim.exec_node(node, ["docker", "ps", "-aq", "--filter",
                               "label=ascend.vllm.managed-by=ascend.vllm"]).stdout.split()
    if not ids:
        return None
    assert len(ids) == 1, ids
    return json.loads(sim.exec_node(node, ["docker", "inspect", ids[0]]).stdout)[0]
