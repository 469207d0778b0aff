"""Fault knobs of the stand-in vllm, set on a node and seen through the guide's docker run."""
from __future__ import annotations

import json
import time

import pytest

import sim
from sim_guide import GUIDE_SERVE, docker_run_argv

pytestmark = pytest.mark.slow

NODE = "pt-pro"
PLATFORM = "atlas_200i_pro"


def image(nodes, tag="v0.23.0-310p"):
    return "%s/ascend/vllm-ascend:%s" % (nodes["registry"], tag)


def run(node, argv):
    return sim.exec_node(node, argv, timeout=180)


def wait_exit(node, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        state = json.loads(sim.exec_node(node, ["docker", "inspect", "--format", "{{json .State}}", "vllm-ascend"],
                                         check=True).stdout)
        if not state["Running"]:
            return state["ExitCode"]
        time.sleep(0.3)
    raise AssertionError("vllm-ascend still running")


def logs(node):
    res = sim.exec_node(node, ["docker", "logs", "vllm-ascend"])
    return res.stdout + res.stderr


def health(node):
    code = ("import urllib.request, urllib.error\n"
            "try:\n    print(urllib.request.urlopen('http://127.0.0.1:8080/health', timeout=2).status)\n"
            "except urllib.error.HTTPError as e:\n    print(e.code)\n"
            "except Exception as e:\n    print(type(e).__name__)\n")
    return sim.exec_node(node, ["python3", "-c", code], check=True).stdout.strip()


def test_crash_during_start_from_node_faults_file(nodes, clean_node):
    node = clean_node(NODE)
    sim.fault(node, ["crash=mamba"])
    assert run(node, docker_run_argv(PLATFORM, image(nodes), GUIDE_SERVE, keep=True)).returncode == 0
    assert wait_exit(node) == 1
    out = logs(node)
    assert "Traceback (most recent call last):" in out
    assert "ValueError: max_num_seqs (32) exceeds available Mamba cache blocks (16)" in out
    assert "Application startup complete" not in out


def test_slow_load_refuses_then_serves(nodes, clean_node):
    node = clean_node(NODE)
    sim.fault(node, ["load_seconds=6"])
    assert run(node, docker_run_argv(PLATFORM, image(nodes), GUIDE_SERVE, keep=True)).returncode == 0
    first = health(node)
    assert first in ("ConnectionResetError", "RemoteDisconnected", "URLError", "ConnectionRefusedError"), first
    deadline = time.time() + 30
    while health(node) != "200":
        assert time.time() < deadline, logs(node)
        time.sleep(0.5)


def test_engine_death_after_ready(nodes, clean_node):
    node = clean_node(NODE)
    sim.fault(node, ["die_after=1"])
    assert run(node, docker_run_argv(PLATFORM, image(nodes), GUIDE_SERVE, keep=True)).returncode == 0
    deadline = time.time() + 30
    while "Application startup complete." not in logs(node):
        assert time.time() < deadline
        time.sleep(0.3)
    # As vLLM 0.23.0's own server (tests/sim/refserver): the API server exits at once, with status 0.
    assert wait_exit(node, timeout=30) == 0
    assert "EngineDeadError: EngineCore encountered an issue." in logs(node)


@pytest.mark.parametrize("policy,restarted", [("unless-stopped", True), ("on-failure", False)])
def test_engine_death_and_the_restart_policy(nodes, clean_node, policy, restarted):
    """The engine dies, vLLM exits 0: the collection's default policy (container_run_restart_policy:
    unless-stopped) brings it back; on-failure does not."""
    node = clean_node(NODE)
    sim.fault(node, ["die_after=1"])
    argv = docker_run_argv(PLATFORM, image(nodes), GUIDE_SERVE, keep=True)
    argv[2:2] = ["--restart", policy]
    assert run(node, argv).returncode == 0
    deadline = time.time() + 45
    count = 0
    while time.time() < deadline:
        info = json.loads(sim.exec_node(node, ["docker", "inspect", "--format", "{{json .}}", "vllm-ascend"],
                                        check=True).stdout)
        count = info["RestartCount"]
        if count >= 1 or (not restarted and info["State"]["Status"] == "exited"):
            break
        time.sleep(0.5)
    if restarted:
        assert count >= 1, logs(node)
    else:
        assert count == 0 and info["State"]["ExitCode"] == 0, info["State"]


def test_device_not_passed_to_the_container(nodes, clean_node):
    # The 300I DUO line is not privileged, so the container gets only the devices it names.
    # (A privileged container sees every device of the node, as on real hosts.)
    node = clean_node("pt-duo4")
    argv = docker_run_argv("atlas_300i_duo", image(nodes), GUIDE_SERVE, keep=True)
    at = argv.index("/dev/davinci_manager")
    del argv[at - 1:at + 1]
    assert run(node, argv).returncode == 0
    assert wait_exit(node) == 1
    out = logs(node)
    assert "/dev/davinci_manager is missing" in out and "EngineCore failed to start" in out


def test_missing_chip_device_on_the_node(nodes, clean_node):
    # Privileged (200I Pro): the container starts with the node's devices, vllm finds no chip.
    node = clean_node(NODE)
    sim.set_node(node, ["chip=0", "device=missing"])
    assert run(node, docker_run_argv(PLATFORM, image(nodes), GUIDE_SERVE, keep=True)).returncode == 0
    assert wait_exit(node) == 1
    assert "no /dev/davinci[0-9]* chip device is present" in logs(node)
    # Not privileged (300I DUO): Docker itself refuses the --device it cannot find.
    duo = clean_node("pt-duo4")
    sim.set_node(duo, ["chip=7", "device=missing"])
    res = run(duo, docker_run_argv("atlas_300i_duo", image(nodes), GUIDE_SERVE, keep=True))
    assert res.returncode != 0 and "/dev/davinci7" in res.stderr


def test_old_image_cannot_serve_qwen3_5(nodes, clean_node):
    node = clean_node(NODE)
    assert run(node, docker_run_argv(PLATFORM, image(nodes, "v0.22.0-310p"), GUIDE_SERVE, keep=True)).returncode == 0
    assert wait_exit(node) == 1
    assert "Qwen3_5ForConditionalGeneration'] are not supported" in logs(node)
