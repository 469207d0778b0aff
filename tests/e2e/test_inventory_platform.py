"""A platform the collection does not build in, described only in inventory.

An Atlas 300I Pro card (one 310P3 chip per card, 21527 MB in npu-smi) on a simulated
node (tests/sim platform ``atlas_300i_pro``), the host in an inventory group
``atlas_300i_pro`` whose group_vars are inventories/examples/atlas_300i_pro's:
``ascend_vllm_platform: atlas_300i_pro`` plus ``ascend_vllm_platform_spec``
(based_on atlas_300i_duo, chips_per_card 1, chip_memory_mb 21527). The real site.yml,
no change to the collection:
- the deploy serves, with the 300I DUO's container line for chip 0 only and a memory
  plan on 21527 MB;
- a model that fits a 300I DUO chip but not 21527 MB is refused in preflight;
- a spec with a wrong value is refused in preflight, naming ascend_vllm_platform_spec,
  the value and the fix, and nothing on the node changes.
"""
import copy
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

EXAMPLE = ROOT / "inventories" / "examples" / "atlas_300i_pro"
GROUP = "atlas_300i_pro"
# ASCEND_E2E_PREFIX keeps the node apart from other runs on the same engine.
NODE = os.environ.get("ASCEND_E2E_PREFIX", "e2e") + "-pro300"
RECAP = re.compile(r"^(\S+)\s+: ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)", re.M)
CHIP_MB = 21527


class Site:
    def __init__(self, registry, workdir):
        self.registry = registry
        self.workdir = workdir
        self.group_vars = yaml.safe_load((EXAMPLE / "group_vars" / (GROUP + ".yml")).read_text())
        # The example pulls from quay.io; the simulated node pulls from the local registry.
        self.group_vars["image_pull_registries"] = [registry]

    def inventory(self, **changes):
        """Write the inventory and group_vars/atlas_300i_pro.yml (the example's, with `changes`)."""
        group_vars = copy.deepcopy(self.group_vars)
        group_vars.update(changes)
        (self.workdir / "group_vars").mkdir(exist_ok=True)
        (self.workdir / "group_vars" / (GROUP + ".yml")).write_text(yaml.safe_dump(group_vars))
        inv = {"all": {"vars": {"vllm_serve_ready_poll_interval": 1, "vllm_serve_ready_timeout": 120},
                       "children": {GROUP: {"hosts": {NODE: {
                           "ansible_connection": "community.docker.docker", "ansible_host": "ascend-sim-" + NODE,
                           "ansible_python_interpreter": "/usr/bin/python3"}}}}}}
        path = self.workdir / "inventory.yml"
        path.write_text(yaml.safe_dump(inv))
        return path

    def run(self, **changes):
        env = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"), ANSIBLE_FORCE_COLOR="0")
        proc = subprocess.run(
            [str(Path(sys.executable).parent / "ansible-playbook"), "site.yml", "-i", str(self.inventory(**changes))],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=900, check=False)
        recap = {m.group(1): {"changed": int(m.group(3)), "failed": int(m.group(5))}
                 for m in RECAP.finditer(proc.stdout)}
        return proc, recap

    @staticmethod
    def container():
        """`docker inspect` of the node's vllm container, or None."""
        res = sim.exec_node(NODE, ["docker", "ps", "-aq", "--filter", "label=ascend.vllm.managed-by=ascend.vllm"])
        ids = res.stdout.split()
        if not ids:
            return None
        assert len(ids) == 1, ids
        return json.loads(sim.exec_node(NODE, ["docker", "inspect", ids[0]]).stdout)[0]

    @classmethod
    def node_state(cls):
        """What a refused run must leave alone: the container (id, or None) and the images."""
        info = cls.container()
        images = sim.exec_node(NODE, ["docker", "images", "-q", "--no-trunc"]).stdout.split()
        return (info and info["Id"], images)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    if not sim.docker_ok():
        pytest.skip("no Docker Engine answers")
    info = sim.up([sim.NodeSpec.parse("%s:atlas_300i_pro" % NODE)],
                  inventory=tmp_path_factory.mktemp("sim") / "sim.yml")
    yield Site(info["registry"], tmp_path_factory.mktemp("e2e"))
    sim.down([NODE])


def post_completion(port, model):
    """POST /v1/completions from inside the node, as a client next to the server would."""
    script = ("import json, sys, urllib.request\n"
              "req = urllib.request.Request('http://127.0.0.1:%d/v1/completions', method='POST',\n"
              "    data=json.dumps({'model': %r, 'prompt': 'The future of AI is', 'max_tokens': 8}).encode(),\n"
              "    headers={'Content-Type': 'application/json'})\n"
              "with urllib.request.urlopen(req, timeout=30) as resp:\n"
              "    print(resp.status); print(resp.read().decode())\n" % (port, model))
    res = sim.exec_node(NODE, ["python3", "-c", script], timeout=60)
    assert res.returncode == 0, res.stdout + res.stderr
    status, body = res.stdout.split("\n", 1)
    return int(status), json.loads(body)


def flag(cmd, name):
    return cmd[cmd.index(name) + 1]


def test_inventory_defined_platform_deploys_the_300i_duo_line_for_one_chip(site):
    # The node really is a single-chip card: npu-smi shows one 310P3 with 21527 MB.
    smi = sim.exec_node(NODE, ["npu-smi", "info"]).stdout
    assert smi.count("310P3") == 1 and "/ %d " % CHIP_MB in smi

    proc, recap = site.run()
    assert proc.returncode == 0, proc.stdout[-6000:]
    assert recap[NODE]["failed"] == 0 and recap[NODE]["changed"] > 0, recap

    info = site.container()
    assert info is not None and info["State"]["Running"], info and info["State"]
    host = info["HostConfig"]
    # The guide's 300I DUO line, narrowed to the card's one chip.
    assert [d["PathOnHost"] for d in host["Devices"]] == [
        "/dev/davinci0", "/dev/davinci_manager", "/dev/devmm_svm", "/dev/hisi_hdc"]
    assert [d["PathInContainer"] for d in host["Devices"]] == [d["PathOnHost"] for d in host["Devices"]]
    mounts = [(m["Source"], m["Target"], m.get("ReadOnly", False)) for m in host["Mounts"]]
    assert mounts == [
        ("/usr/local/dcmi", "/usr/local/dcmi", True),
        ("/usr/local/bin/npu-smi", "/usr/local/bin/npu-smi", True),
        ("/usr/local/Ascend/driver/lib64/", "/usr/local/Ascend/driver/lib64/", True),
        ("/usr/local/Ascend/driver/version.info", "/usr/local/Ascend/driver/version.info", True),
        ("/etc/ascend_install.info", "/etc/ascend_install.info", True),
        ("/root/.cache", "/root/.cache", False)]
    assert host["ShmSize"] == 1024 ** 3
    assert host["Privileged"] is False
    assert info["Config"]["Image"].endswith("/ascend/vllm-ascend:v0.23.0-310p")
    assert info["Config"]["Labels"]["ascend.vllm.platform"] == GROUP

    cmd = info["Config"]["Cmd"]
    assert cmd[:3] == ["vllm", "serve", "Qwen/Qwen3.5-2B"], cmd
    assert flag(cmd, "--tensor-parallel-size") == "1"
    # The server sized its KV cache on the chip it was given: 21527 MB (the stand-in's
    # estimate of vllm-ascend's figure: utilisation x chip memory - weights - 1.2 GiB, halved).
    util = float(flag(cmd, "--gpu-memory-utilization"))
    logs = sim.exec_node(NODE, ["docker", "logs", info["Id"]]).stdout
    kv = re.search(r"Available KV cache memory: ([\d.]+) GiB \(halved for workspace\)", logs)
    assert kv, logs[-3000:]
    weights_gib = 2 * 2e9 / 2 ** 30
    assert kv.group(1) == "%.2f" % ((CHIP_MB / 1024.0 * util - weights_gib - 1.2) / 2)

    status, body = post_completion(8080, "qwen3.5")
    assert status == 200 and body["choices"] and body["choices"][0]["text"], body
    assert re.search(r"default: Qwen/Qwen3\.5-2B as qwen3\.5 in \S+ on chips 0, port 8080: ready", proc.stdout), \
        proc.stdout[-3000:]


def test_memory_plan_is_made_for_21527_mb(site):
    before = site.node_state()
    # 9B in FP16 at TP 1 fits a 300I DUO chip (44280 MB), not this card's 21527 MB.
    proc, recap = site.run(vllm_serve_model="Qwen/Qwen3.5-9B")
    assert proc.returncode != 0
    assert "vllm_serve_max_model_len" in proc.stdout, proc.stdout[-4000:]
    assert "Qwen/Qwen3.5-9B at TP 1 does not fit %d MiB x 0.90" % CHIP_MB in proc.stdout, proc.stdout[-4000:]
    assert recap[NODE]["changed"] == 0, recap
    assert site.node_state() == before


def test_wrong_platform_spec_is_refused_in_preflight(site):
    before = site.node_state()
    spec = dict(site.group_vars["ascend_vllm_platform_spec"], chips_per_card="1")
    proc, recap = site.run(ascend_vllm_platform_spec=spec)
    assert proc.returncode != 0
    out = proc.stdout
    # One preflight problem names the variable the user typed, its value, what is wrong
    # with it and the fix.
    line = re.search(r'^- \[platform\] ascend_vllm_platform_spec=(\{.*?\}): (.*)\. Fix: (.*)$', out, re.M)
    assert line, out[-4000:]
    assert json.loads(line.group(1)) == spec
    assert "chips_per_card" in line.group(2) and "int" in line.group(2), line.group(0)
    assert "ascend_vllm_platform_spec" in line.group(3) and "based_on" in line.group(3), line.group(0)
    # Refused before the image or deploy phase: nothing on the node changed.
    assert "PLAY [Deploy]" not in out
    assert recap[NODE]["changed"] == 0, recap
    assert site.node_state() == before
