"""Teardown leaves nothing behind. Runs last (file order): it may remove the session's nodes."""
from __future__ import annotations

import glob
import subprocess
import sys

import pytest

import sim
from simtestlib import SESSION_NODES, SIMCTL

pytestmark = pytest.mark.slow


def test_down_one_node(nodes):
    sim.up([sim.NodeSpec.parse("pt-td:atlas_200i_pro")])
    image = "%s/ascend/vllm-ascend:v0.23.0-310p" % nodes["registry"]
    run = sim.exec_node("pt-td", ["docker", "run", "-d", "--privileged", "--stop-timeout", "2", "--name", "probe", image, "sleep", "600"],
                        timeout=120)
    assert run.returncode == 0, run.stderr
    assert glob.glob("/sys/fs/cgroup/*/ascend-sim/pt-td")
    res = sim.down(["pt-td"])
    assert res["removed"] == ["pt-td"]
    flt = "label=ascend-sim.node=pt-td"
    assert sim.docker("ps", "-aq", "--filter", flt).stdout.strip() == ""
    assert sim.docker("volume", "ls", "-q", "--filter", flt).stdout.strip() == ""
    assert not glob.glob("/sys/fs/cgroup/*/ascend-sim/pt-td")
    # The other nodes, the network and the registry stay.
    assert {n["name"] for n in sim.node_containers()} >= set(SESSION_NODES)
    assert sim.gateway() and sim.registry_running()


def test_down_all_leaves_nothing(nodes):
    foreign = [n["name"] for n in sim.node_containers() if n["name"] not in SESSION_NODES]
    if foreign:
        pytest.skip("other nodes exist on this engine (%s); not removing them" % ", ".join(foreign))
    res = subprocess.run([sys.executable, SIMCTL, "down", "--all"], capture_output=True, text=True, timeout=300, check=False)
    assert res.returncode == 0, res.stdout + res.stderr
    assert sim.leftovers() == {"containers": [], "volumes": [], "networks": []}
    assert sim.registry_running() is None
    assert not sim._registry_answers(int(nodes["registry"].rsplit(":", 1)[1]))
    # Host cgroups are shared with any other engine's nodes: check this session's only.
    for name in [*SESSION_NODES, "pt-td"]:
        assert not glob.glob("/sys/fs/cgroup/*/ascend-sim/%s" % name)
