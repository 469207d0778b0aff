"""What an operator relies on when re-running site.yml over a fleet.

Two simulated nodes (tests/sim), the real site.yml, real recaps:
- a second run with nothing changed reports 0 changed on every host;
- a node rebooted with its service running serves again without a re-run;
- changing only one host's model re-creates only that host's container;
- a configuration the module rejects on one host stops the run before any
  image is pulled or container touched on ANY host;
- a run whose plan has fewer instances removes the containers of ours it no longer has (named in
  the summary, and shown first by --check) and touches nothing that is not ours.
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

NODES = {"e2e-duo": "atlas_300i_duo", "e2e-pro": "atlas_200i_pro"}
RECAP = re.compile(r"^(\S+)\s+: ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)", re.M)


class Fleet:
    def __init__(self, registry, workdir):
        self.registry = registry
        self.workdir = workdir
        # A simulated 200I Pro shares this machine's memory (RC mode): a 12 GiB
        # chip keeps the host-memory preflight check independent of the load.
        self.host_vars = {"e2e-duo": {}, "e2e-pro": {"vllm_serve_chip_memory_mb": 12288}}

    def inventory(self):
        groups = {}
        for name, platform in NODES.items():
            groups.setdefault(platform, {"hosts": {}})["hosts"][name] = dict(
                ansible_connection="community.docker.docker", ansible_host="ascend-sim-" + name,
                ansible_python_interpreter="/usr/bin/python3", **self.host_vars[name])
        inv = {"all": {"vars": {"image_pull_registries": [self.registry],
                                "vllm_serve_ready_poll_interval": 1,
                                "vllm_serve_ready_timeout": 120},
                       "children": groups}}
        path = self.workdir / "inventory.yml"
        path.write_text(yaml.safe_dump(inv))
        return path

    def run(self, *extra):
        env = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"), ANSIBLE_FORCE_COLOR="0")
        proc = subprocess.run(
            [str(Path(sys.executable).parent / "ansible-playbook"), "site.yml", "-i", str(self.inventory())]
            + list(extra),
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=900, check=False)
        # The nodes only: localhost runs the controller-side host selection (playbooks/hosts.yml).
        recap = {m.group(1): {"changed": int(m.group(3)), "failed": int(m.group(5))}
                 for m in RECAP.finditer(proc.stdout) if m.group(1) != "localhost"}
        return proc, recap

    @staticmethod
    def container(node):
        """(id, command) of the node's vllm container, or None."""
        res = sim.exec_node(node, ["docker", "ps", "-aq", "--filter", "label=ascend.vllm.managed-by=ascend.vllm"])
        ids = res.stdout.split()
        if not ids:
            return None
        assert len(ids) == 1, ids
        info = json.loads(sim.exec_node(node, ["docker", "inspect", ids[0]]).stdout)[0]
        return info["Id"], info["Config"]["Cmd"]

    @staticmethod
    def requests(node):
        """How many completions and chat completions requests the node's vllm container answered."""
        log = sim.exec_node(node, ["sh", "-c", "docker logs vllm-ascend 2>&1"]).stdout
        return len(re.findall(r'"POST /v1/(?:chat/)?completions HTTP', log))

    @staticmethod
    def images(node):
        return sim.exec_node(node, ["docker", "images", "-q", "--no-trunc"]).stdout.split()


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    if not sim.docker_ok():
        pytest.skip("no Docker Engine answers")
    info = sim.up([sim.NodeSpec.parse("%s:%s" % item) for item in NODES.items()],
                  inventory=tmp_path_factory.mktemp("sim") / "sim.yml")
    yield Fleet(info["registry"], tmp_path_factory.mktemp("e2e"))
    sim.down(list(NODES))


def test_rerun_with_no_change_reports_zero_changed(fleet):
    first, recap = fleet.run()
    assert first.returncode == 0, first.stdout[-4000:]
    assert all(r["changed"] > 0 for r in recap.values()), recap
    asked = {node: fleet.requests(node) for node in NODES}
    again, recap = fleet.run()
    assert again.returncode == 0, again.stdout[-4000:]
    assert recap == {name: {"changed": 0, "failed": 0} for name in NODES}
    # Each instance was still checked, in the node read's round trip: its server answered /health and
    # /v1/models; a read sends no inference request, and the deploy did not wait for it again.
    for node in NODES:
        assert fleet.requests(node) == asked[node], (node, fleet.requests(node), asked[node])
    text = re.sub(r"\s+", " ", again.stdout)
    assert text.count("default (vllm-ascend) serves as planned: /health and /v1/models answered") == len(NODES), \
        again.stdout[-4000:]
    assert "ready_instance | Wait for" not in again.stdout


COMPLETION = r"""
import json, sys, time, urllib.request
deadline = time.time() + float(sys.argv[1])
while True:
    try:
        models = json.load(urllib.request.urlopen("http://127.0.0.1:8080/v1/models", timeout=5))
        body = json.dumps({"model": models["data"][0]["id"], "prompt": "The future of AI is",
                           "max_tokens": 8}).encode()
        request = urllib.request.Request("http://127.0.0.1:8080/v1/completions", body,
                                         {"Content-Type": "application/json"})
        print(json.load(urllib.request.urlopen(request, timeout=30))["choices"][0]["text"])
        break
    except OSError as exc:
        if time.time() > deadline:
            sys.exit("no completion after %s s: %s" % (sys.argv[1], exc))
        time.sleep(0.5)
"""


def test_a_rebooted_node_serves_again_without_a_rerun(fleet):
    """What a service needs at start lives where a reboot keeps it: after a power cycle (every process stopped,
    /tmp cleared, the node's own init starting devices and the engine), each node answers a completion again with
    nobody running anything, from the same container."""
    before = {node: fleet.container(node) for node in NODES}
    for node in NODES:
        sim.reboot_node(node)
    for node in NODES:
        answer = sim.exec_node(node, ["python3", "-c", COMPLETION, "90"], check=False)
        assert answer.returncode == 0 and answer.stdout.strip(), (node, answer.stdout, answer.stderr)
    assert {node: fleet.container(node) for node in NODES} == before


def test_model_change_recreates_only_that_hosts_container(fleet):
    before = {node: fleet.container(node) for node in NODES}
    fleet.host_vars["e2e-duo"]["vllm_serve_model"] = "Qwen/Qwen3.5-4B"
    proc, recap = fleet.run()
    assert proc.returncode == 0, proc.stdout[-4000:]
    after = {node: fleet.container(node) for node in NODES}
    assert after["e2e-duo"][0] != before["e2e-duo"][0]
    assert after["e2e-duo"][1][2] == "Qwen/Qwen3.5-4B"
    assert after["e2e-pro"] == before["e2e-pro"]
    assert recap["e2e-pro"]["changed"] == 0 and recap["e2e-duo"]["changed"] > 0


def test_rejected_config_on_one_host_stops_every_host(fleet):
    before = {node: (fleet.container(node), fleet.images(node)) for node in NODES}
    # A change that would re-create e2e-duo's container, and a rule broken on e2e-pro.
    fleet.host_vars["e2e-duo"]["vllm_serve_model"] = "Qwen/Qwen3.5-2B"
    fleet.host_vars["e2e-pro"]["vllm_serve_dtype"] = "bfloat16"
    proc, recap = fleet.run()
    assert proc.returncode != 0
    assert "vllm_serve_dtype" in proc.stdout and "bfloat16" in proc.stdout and "float16" in proc.stdout
    assert all(r["changed"] == 0 for r in recap.values()), recap
    assert {node: (fleet.container(node), fleet.images(node)) for node in NODES} == before
    # Fixing the rule lets the pending change through.
    del fleet.host_vars["e2e-pro"]["vllm_serve_dtype"]
    proc, recap = fleet.run()
    assert proc.returncode == 0, proc.stdout[-4000:]
    assert fleet.container("e2e-duo")[1][2] == "Qwen/Qwen3.5-2B"


def _running(node):
    """Names of the node's running containers, ours (the collection's label) and the others."""
    ours = sim.exec_node(node, ["docker", "ps", "--format", "{{.Names}}",
                                "--filter", "label=ascend.vllm.managed-by=ascend.vllm"]).stdout.split()
    every = sim.exec_node(node, ["docker", "ps", "--format", "{{.Names}}"]).stdout.split()
    return sorted(ours), sorted(set(every) - set(ours))


def test_a_smaller_plan_removes_what_is_ours_and_no_longer_planned(fleet):
    node = "e2e-duo"
    two = [{"name": "a", "chips": [0], "port": 8080}, {"name": "b", "chips": [1], "port": 8081}]
    fleet.host_vars[node]["ascend_vllm_instances"] = two
    # Two instances of one model would get a load balancer, whose image this fleet's registry does not hold.
    fleet.host_vars[node]["balancer_enabled"] = False
    # Not ours: a container of the operator's own, which no run may touch.
    sim.exec_node(node, ["docker", "run", "-d", "--name", "operators-own", "--entrypoint", "sleep",
                         sim.exec_node(node, ["docker", "images", "--format", "{{.Repository}}:{{.Tag}}"])
                         .stdout.split()[0], "infinity"])
    try:
        proc, _recap = fleet.run()
        assert proc.returncode == 0, proc.stdout[-4000:]
        assert _running(node) == (["vllm-ascend-a", "vllm-ascend-b"], ["operators-own"])
        fleet.host_vars[node]["ascend_vllm_instances"] = two[:1] + [dict(two[1], name="c")]
        # --check shows the removal first and changes nothing.
        check, _recap = fleet.run("--check")
        assert check.returncode == 0, check.stdout[-4000:]
        text = re.sub(r"\s+", " ", check.stdout)
        assert "would remove: vllm-ascend-b (ours, no longer in the plan)" in text, check.stdout[-4000:]
        assert _running(node) == (["vllm-ascend-a", "vllm-ascend-b"], ["operators-own"])
        # The real run: b goes, before c takes its chip and port; a stays; the operator's container stays.
        proc, recap = fleet.run()
        assert proc.returncode == 0, proc.stdout[-4000:]
        text = re.sub(r"\s+", " ", proc.stdout)
        assert "removed: vllm-ascend-b (ours, no longer in the plan)" in text, proc.stdout[-4000:]
        assert _running(node) == (["vllm-ascend-a", "vllm-ascend-c"], ["operators-own"])
        assert recap[node]["failed"] == 0 and recap["e2e-pro"]["changed"] == 0, recap
    finally:
        del fleet.host_vars[node]["ascend_vllm_instances"]
        del fleet.host_vars[node]["balancer_enabled"]
        sim.exec_node(node, ["docker", "rm", "-f", "operators-own"])
