"""Keep the last good service: a changed container that fails brings the previous one back.

One simulated Atlas 300I DUO node (tests/sim), the real site.yml and teardown.yml:
- a change that makes vLLM crash on start (the stand-in's VLLM_SIM_CRASH, set through
  vllm_serve_env) fails the run naming the cause with the new container's log lines,
  and afterwards the node answers /v1/models and a completion exactly as before, from
  the same container (id, image) and nothing else of ours runs or is left;
- a change that works is applied and the kept container is gone (check mode first changes nothing);
- a kept container left by an interrupted run is removed once the next run's
  container serves, and teardown removes one too.
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

# ASCEND_E2E_PREFIX keeps the node apart from other runs on the same engine.
NODE = (os.environ["ASCEND_E2E_PREFIX"] + "-" if os.environ.get("ASCEND_E2E_PREFIX") else "") + "keep-duo"
NAME = "vllm-ascend"
PREVIOUS = NAME + "-previous"
MANAGED = "label=ascend.vllm.managed-by=ascend.vllm"
CRASH = "RuntimeError: keep-test refuses to start"
RECAP = re.compile(r"^%s\s+: ok=\d+\s+changed=(\d+)\s+unreachable=\d+\s+failed=(\d+)" % NODE, re.M)


class Node:
    def __init__(self, registry, workdir):
        self.registry = registry
        self.workdir = workdir
        self.host_vars = {}

    def inventory(self):
        host = dict(ansible_connection="community.docker.docker", ansible_host="ascend-sim-" + NODE,
                    ansible_python_interpreter="/usr/bin/python3", **self.host_vars)
        inv = {"all": {"vars": {"image_pull_registries": [self.registry],
                                "vllm_serve_ready_poll_interval": 1,
                                "vllm_serve_ready_timeout": 60},
                       "children": {"atlas_300i_duo": {"hosts": {NODE: host}}}}}
        path = self.workdir / "inventory.yml"
        path.write_text(yaml.safe_dump(inv))
        return path

    def playbook(self, name="site.yml", *args):
        env = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"), ANSIBLE_FORCE_COLOR="0")
        return subprocess.run(
            [str(Path(sys.executable).parent / "ansible-playbook"), name, "-i", str(self.inventory()), *args],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=900, check=False)

    @staticmethod
    def containers():
        """{name: (id, image id, state, command)} of every container of ours on the node."""
        ids = sim.exec_node(NODE, ["docker", "ps", "-aq", "--filter", MANAGED]).stdout.split()
        out = {}
        for cid in ids:
            info = json.loads(sim.exec_node(NODE, ["docker", "inspect", cid]).stdout)[0]
            out[info["Name"].lstrip("/")] = (info["Id"], info["Image"], info["State"]["Status"], info["Config"]["Cmd"])
        return out

    @staticmethod
    def running():
        return sim.exec_node(NODE, ["docker", "ps", "-q"]).stdout.split()

    @staticmethod
    def ask(path, body=None):
        """The JSON answer of the server on the node (as a client on the node sees it)."""
        code = ("import json,sys,urllib.request;"
                "body=sys.argv[2].encode() if sys.argv[2] else None;"
                "req=urllib.request.Request('http://127.0.0.1:8080'+sys.argv[1],data=body,"
                "headers={'Content-Type':'application/json'});"
                "print(urllib.request.urlopen(req,timeout=30).read().decode())")
        res = sim.exec_node(NODE, ["python3", "-c", code, path, json.dumps(body) if body else ""])
        assert res.returncode == 0, res.stderr
        return json.loads(res.stdout)

    def answers(self):
        models = self.ask("/v1/models")
        served = [m["id"] for m in models["data"]]
        completion = self.ask("/v1/completions", {"model": served[0], "prompt": "The future of AI is",
                                                  "max_tokens": 20, "temperature": 0})
        return served, completion["choices"][0]["text"]


@pytest.fixture(scope="module")
def node(tmp_path_factory):
    if not sim.docker_ok():
        pytest.skip("no Docker Engine answers")
    info = sim.up([sim.NodeSpec.parse(NODE + ":atlas_300i_duo")], inventory=tmp_path_factory.mktemp("sim") / "sim.yml")
    yield Node(info["registry"], tmp_path_factory.mktemp("keep"))
    sim.down([NODE])


def test_a_failed_change_brings_the_previous_container_back(node):
    first = node.playbook()
    assert first.returncode == 0, first.stdout[-4000:]
    before = node.containers()
    assert list(before) == [NAME] and before[NAME][2] == "running", before
    answers = node.answers()
    # Nothing changed: nothing is kept, replaced or even touched (the check-mode probe answers for the real call).
    again = node.playbook()
    assert again.returncode == 0 and RECAP.search(again.stdout).groups() == ("0", "0"), again.stdout[-3000:]
    assert node.containers() == before

    # A change that re-creates the container with a vLLM that crashes on start.
    node.host_vars["vllm_serve_env"] = {"VLLM_SIM_CRASH": CRASH}
    failed = node.playbook()
    out = failed.stdout
    assert failed.returncode != 0
    # The cause, from the new container's own log lines (shown), and what happened.
    assert out.count(CRASH) >= 2, out[-6000:]
    assert "Show the last log lines of the container" in out
    assert "Instance default (vllm-ascend, http://127.0.0.1:8080) on %s did not take the change" % NODE in out
    assert "The changed container's last 50 log lines are shown above" in out
    assert "It was removed and the previous container was restored: it serves again" in out
    # Exactly as before: the same container (id, image, command), the same answers, nothing else.
    after = node.containers()
    assert after == before, (before, after)
    assert node.running() == [before[NAME][0][:12]]
    assert node.answers() == answers


def test_a_change_that_works_is_applied_and_the_kept_container_removed(node):
    before = node.containers()
    node.host_vars["vllm_serve_env"] = {"KEEP_TEST": "1"}
    node.host_vars["vllm_serve_served_model_name"] = "qwen-kept"
    # Check mode reports the change and keeps, replaces and removes nothing.
    check = node.playbook("site.yml", "--check")
    assert check.returncode == 0, check.stdout[-4000:]
    assert node.containers() == before
    proc = node.playbook()
    assert proc.returncode == 0, proc.stdout[-4000:]
    after = node.containers()
    assert list(after) == [NAME] and after[NAME][2] == "running", after
    assert after[NAME][0] != before[NAME][0]
    assert "qwen-kept" in after[NAME][3]
    assert node.answers()[0] == ["qwen-kept"]


def test_a_failed_change_of_the_served_name_restores_the_old_name(node):
    before, answers = node.containers(), node.answers()
    node.host_vars["vllm_serve_served_model_name"] = "qwen-never"
    node.host_vars["vllm_serve_env"] = {"VLLM_SIM_CRASH": CRASH}
    proc = node.playbook()
    assert proc.returncode != 0 and "the previous container was restored: it serves again" in proc.stdout
    assert node.containers() == before
    assert node.answers() == answers == (["qwen-kept"], answers[1])


def test_a_kept_container_left_by_an_interrupted_run_is_removed_once_the_next_one_serves(node):
    node.host_vars.pop("vllm_serve_env")
    # An interrupted run: the serving container stopped and renamed, nothing in its place.
    assert sim.exec_node(NODE, ["docker", "stop", NAME]).returncode == 0
    assert sim.exec_node(NODE, ["docker", "rename", NAME, PREVIOUS]).returncode == 0
    kept = node.containers()[PREVIOUS][0]
    proc = node.playbook()
    assert proc.returncode == 0, proc.stdout[-4000:]
    after = node.containers()
    assert list(after) == [NAME] and after[NAME][2] == "running" and after[NAME][0] != kept, after


def test_teardown_removes_a_kept_container(node):
    assert sim.exec_node(NODE, ["docker", "stop", NAME]).returncode == 0
    assert sim.exec_node(NODE, ["docker", "rename", NAME, PREVIOUS]).returncode == 0
    proc = node.playbook("playbooks/teardown.yml")
    assert proc.returncode == 0, proc.stdout[-4000:]
    assert node.containers() == {}
