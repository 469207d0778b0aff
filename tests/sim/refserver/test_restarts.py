"""A crash, then the restart, against vLLM 0.23.0's own server (issue 33, "Done when"): the engine core is
killed inside the container, the API server exits with status 0, and the mechanism the collection relies on
brings the server back: Docker's restart policy as container_run sets it (image install), systemd's
``Restart=always`` in the unit the source install writes. Part of `make contract` (Docker, the cached venv and
``tests/sim/simctl build``'s node-systemd image); tests/sim/README.md, "Contract lane"."""
from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

# pylint: disable=wrong-import-position
import restarts  # noqa: E402
from conftest import START_TIMEOUT  # noqa: E402
from probes import API_KEY  # noqa: E402
from ansible_collections.ascend.vllm.plugins.module_utils.serve import _ready  # noqa: E402

pytestmark = pytest.mark.refserver


@pytest.fixture(scope="module", autouse=True)
def _docker():
    why = restarts.docker_available()
    if why:
        pytest.skip("the restart tests need Docker: %s" % why)


def _healthy(container):
    return container.health() == 200


def _die_exit_codes(name, since, until):
    """Docker's ``die`` events of the container between the two times: each exit status."""
    out = restarts.docker("events", "--since", "%.3f" % since, "--until", "%.3f" % until, "--filter",
                          "container=" + name, "--filter", "event=die", "--format",
                          "{{.Actor.Attributes.exitCode}}").stdout
    return [int(code) for code in out.split()]


def test_docker_restarts_the_real_server_after_its_engine_dies():
    policy = restarts.container_policy()
    assert policy["restart_policy"] == "unless-stopped"
    container = restarts.docker_server("ascend-sim-refserver-docker", API_KEY)
    try:
        restarts.wait_for(lambda: _healthy(container), START_TIMEOUT, "/health 200 (first start)")
        before = container.inspect()
        assert before["HostConfig"]["RestartPolicy"]["Name"] == "unless-stopped"
        assert before["RestartCount"] == 0
        engine = container.engine_core()
        assert engine["ppid"] == 1, engine  # the API server is the container's command: PID 1
        killed_at = time.time()
        container.kill(engine["pid"])
        restarts.wait_for(lambda: container.inspect()["RestartCount"] >= 1, 120, "Docker's restart")
        down_log = container.logs()
        restarts.wait_for(lambda: _healthy(container), START_TIMEOUT, "/health 200 (after the restart)")
        after = container.inspect()
        print("docker restart: back %.0f s after the kill; %s" % (time.time() - killed_at, after["State"]))
        assert _die_exit_codes(container.name, killed_at - 1, time.time()) == [0]
        assert after["RestartCount"] == 1 and after["State"]["Running"]
        assert _ready.find_cause(down_log.splitlines()), down_log[-3000:]
        assert container.engine_core()["pid"] != engine["pid"] or after["State"]["StartedAt"] != \
            before["State"]["StartedAt"]
    finally:
        container.remove()


def test_systemd_restarts_the_real_server_after_its_engine_dies():
    node = restarts.systemd_node("ascend-sim-refserver-systemd")
    try:
        files = restarts.unit_files("vllm-ascend", API_KEY)
        assert "\nRestart=always\n" in files["unit"]
        unit = files["unit_name"]
        restarts.install_unit(node, files)
        restarts.wait_for(lambda: _healthy(node) or restarts.unit_show(node, unit)["ActiveState"] == "failed",
                          START_TIMEOUT, "/health 200 (first start)")
        before = restarts.unit_show(node, unit)
        assert before["ActiveState"] == "active" and before["NRestarts"] == "0", before
        engine = node.engine_core()
        assert engine["ppid"] == int(before["ExecMainPID"]), (engine, before)
        killed_at = time.time()
        node.kill(engine["pid"])
        restarts.wait_for(lambda: restarts.unit_show(node, unit)["NRestarts"] != "0", 120, "systemd's restart")
        restarts.wait_for(lambda: _healthy(node), START_TIMEOUT, "/health 200 (after the restart)")
        after = restarts.unit_show(node, unit)
        text = restarts.journal(node, unit)
        print("systemd restart: back %.0f s after the kill; %s" % (time.time() - killed_at, after))
        assert after["NRestarts"] == "1" and after["ActiveState"] == "active", after
        assert after["ExecMainPID"] != before["ExecMainPID"]
        # systemd's record of the exit: status 0 is "Deactivated successfully", a failure would say "status=".
        assert re.search(r"Deactivated successfully|status=0/SUCCESS", text), text[-3000:]
        assert "restart counter is at 1" in text, text[-3000:]
        assert _ready.find_cause(text.splitlines()), text[-3000:]
    finally:
        node.remove()
