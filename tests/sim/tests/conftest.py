"""Fixtures for the simulated Atlas node harness (tests/sim)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from simtestlib import SESSION_NODES, SIMCTL, fixture_dir  # noqa: E402  (puts tests/sim on sys.path)

import sim  # noqa: E402


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: needs Docker Engine; starts simulated Atlas nodes (runs in CI)")


@pytest.fixture(scope="session")
def fixtures() -> Path:
    found = fixture_dir()
    if found is None:
        pytest.skip("npu-smi fixtures not found (set ASCEND_SIM_FIXTURES)")
    return found


@pytest.fixture(scope="session")
def nodes(tmp_path_factory):
    """The session's simulated nodes (one per platform, plus an 8-chip 300I DUO)."""
    why = sim.why_unusable()
    if why:
        pytest.skip(why)
    inv = tmp_path_factory.mktemp("sim") / "inventory.yml"
    cmd = [sys.executable, SIMCTL, "up", "--inventory", str(inv)]
    for name, spec in SESSION_NODES.items():
        cmd += ["--node", "%s:%s" % (name, spec)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    info = {"inventory": inv, "registry": None, "up_output": proc.stdout}
    for line in proc.stdout.splitlines():
        if line.startswith("registry (nodes):"):
            info["registry"] = line.split(":", 1)[1].strip()
    yield info
    subprocess.run([sys.executable, SIMCTL, "down", *SESSION_NODES], capture_output=True, text=True, timeout=300, check=False)


@pytest.fixture
def clean_node():
    """Reset a session node's NPU state and faults after a test changes them."""
    touched = []

    def _use(node):
        touched.append(node)
        return node
    yield _use
    for node in touched:
        sim.exec_node(node, ["docker", "rm", "-f", "vllm-ascend"])
        sim.set_node(node, ["reset"])
        sim.fault(node, ["clear"])
