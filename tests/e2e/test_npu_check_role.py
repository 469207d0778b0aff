"""The npu_check role alone, as a user runs it in a playbook of their own, on a simulated Atlas 300I DUO node.

A tiny playbook applies ``ascend.vllm.npu_check`` to the node, then a second play reads the
role's outputs (``npu_check_result``, ``npu_check_problems``) as a later play of the user's would,
and writes them to a file on the controller for these tests:
- the default node (driver 25.2.0, two healthy chips, Docker Engine) passes: the role shows the
  node's line, changes nothing, and the later play sees npu_check_result (driver, chips, the
  extra paths asked for) - in check mode too, since the read runs in check mode;
- the same node with a chip in Alarm and a driver minimum above its driver fails once, naming
  both problems with their fixes; with ``npu_check_fail: false`` it does not fail and the later
  play sees both problems in npu_check_problems.
The node is this module's own (``ASCEND_E2E_PREFIX``, default ``npuchk``) and is removed at the end.
"""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "sim"))
import sim  # noqa: E402  pylint: disable=wrong-import-position

NODE = os.environ.get("ASCEND_E2E_PREFIX", "npuchk") + "-duo"
RECAP = re.compile(r"^(\S+)\s+: ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)", re.M)
MISSING = "/opt/npuchk-not-here"

PLAYBOOK = """
- name: Check the node
  hosts: atlas_300i_duo
  gather_facts: false
  roles:
    - role: ascend.vllm.npu_check

- name: A later play reads what npu_check found
  hosts: atlas_300i_duo
  gather_facts: false
  tasks:
    - name: Write npu_check_result and npu_check_problems on the controller
      ansible.builtin.copy:
        content: "{{ {'result': npu_check_result, 'problems': npu_check_problems} | to_json }}"
        dest: "{{ npu_check_test_out }}"
        mode: '0600'
      delegate_to: localhost
      check_mode: false
      # Test plumbing: the recap's changed count is the role's alone.
      changed_when: false
"""


@pytest.fixture(scope="module")
def node():
    if not sim.docker_ok():
        pytest.skip("no Docker Engine answers")
    sim.up([sim.NodeSpec.parse("%s:atlas_300i_duo" % NODE)])
    yield NODE
    # Only this node: the registry and the network stay for the other nodes on the engine.
    sim.down([NODE], keep_registry=True)


def run_role(workdir, check=False, **role_vars):
    """The playbook against the node alone: (process, recap of the node, what the later play read or None)."""
    out = workdir / "npu_check.json"
    if out.exists():
        out.unlink()
    inventory = {"all": {"children": {"atlas_300i_duo": {
        "vars": dict({"npu_check_image_tag": "v0.23.0-310p", "npu_check_paths": ["/usr/local/Ascend/driver", MISSING],
                      "npu_check_test_out": str(out)}, **role_vars),
        "hosts": {NODE: {"ansible_connection": "community.docker.docker", "ansible_host": "ascend-sim-" + NODE,
                         "ansible_python_interpreter": "/usr/bin/python3"}}}}}}
    (workdir / "inventory.yml").write_text(yaml.safe_dump(inventory))
    (workdir / "playbook.yml").write_text(PLAYBOOK)
    env = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"), ANSIBLE_FORCE_COLOR="0")
    argv = [str(Path(sys.executable).parent / "ansible-playbook"), str(workdir / "playbook.yml"),
            "-i", str(workdir / "inventory.yml")] + (["--check"] if check else [])
    proc = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    recap = {m.group(1): {"changed": int(m.group(3)), "unreachable": int(m.group(4)), "failed": int(m.group(5))}
             for m in RECAP.finditer(proc.stdout)}
    read = json.loads(out.read_text()) if out.exists() else None
    return proc, recap.get(NODE), read


@pytest.mark.parametrize("check", [False, True], ids=["run", "check-mode"])
def test_a_ready_node_passes_and_later_plays_see_the_result(node, tmp_path, check):
    proc, recap, read = run_role(tmp_path, check=check)
    out = proc.stdout
    assert proc.returncode == 0, out[-6000:]
    assert recap == {"changed": 0, "unreachable": 0, "failed": 0}, recap
    # The line the role shows for the node (the callback folds it: compared with the spaces joined).
    assert re.search(r"atlas_300i_duo: driver 25\.2\.0, firmware 7\.7\.0\.6\.236, npu-smi 25\.2\.0, 2 chip\(s\), "
                     r"Docker \S+, free chip memory per instance \(MB\) \{\}, 0 problem\(s\)", " ".join(out.split())), \
        out[-6000:]
    assert "preflight problem(s)" not in out
    assert "DEPRECATION WARNING" not in out + proc.stderr, (out + proc.stderr)[-4000:]
    assert read is not None, out[-6000:]
    assert read["problems"] == []
    result = read["result"]
    assert result["platform"] == "atlas_300i_duo" and result["driver_version"] == "25.2.0"
    assert result["chip_count"] == 2 and result["rc_mode"] is False
    assert result["versions"]["cann"] == "9.1.0" and result["firmware_versions"] == {"2": "7.7.0.6.236"}
    assert result["paths"] == {"/usr/local/Ascend/driver": {"exists": True, "isdir": True, "isreg": False},
                               MISSING: {"exists": False, "isdir": False, "isreg": False}}


def test_a_node_with_problems_fails_naming_each_with_its_fix(node, tmp_path):
    sim.set_node(NODE, ["chip=1", "health=Alarm"])
    try:
        proc, recap, read = run_role(tmp_path, npu_check_driver_min_version="26.0.0")
        out = proc.stdout
        assert proc.returncode != 0, out[-6000:]
        assert recap["failed"] == 1 and recap["changed"] == 0 and recap["unreachable"] == 0, recap
        # One failure, listing every problem with its fix; the later play never runs.
        assert "2 preflight problem(s) on %s:" % NODE in out, out[-6000:]
        assert re.search(r"^\s*- \[driver\] driver 25\.2\.0 is older than 26\.0\.0\. Fix: upgrade the Ascend driver "
                         r"and firmware to 26\.0\.0 or newer$", out, re.M), out[-6000:]
        chip = re.search(r"^\s*- \[chips\] (.*)\. Fix: (.+)$", out, re.M)
        assert chip and "Alarm" in chip.group(1), out[-6000:]
        assert read is None

        # npu_check_fail: false (as a caller that reports the problems itself): no failure, the problems handed on.
        proc, recap, read = run_role(tmp_path, npu_check_driver_min_version="26.0.0", npu_check_fail=False)
        assert proc.returncode == 0, proc.stdout[-6000:]
        assert recap["failed"] == 0, recap
        assert [problem["check"] for problem in read["problems"]] == ["driver", "chips"], read["problems"]
        assert all(problem["fix"] for problem in read["problems"])
        assert read["result"]["chip_count"] == 2
    finally:
        sim.set_node(NODE, ["reset"])
