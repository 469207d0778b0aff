"""Nodes for the source install method: systemd as PID 1, no Docker, a stand-in wheelhouse and CANN tree.

Real here: systemd and journald, python3 -m venv, pip (installing the stand-in wheels), the node's own Docker
Engine run by systemd, Ansible's systemd_service module over the community.docker connection.
"""
from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import sim
from simtestlib import REPO, SIMCTL

pytestmark = pytest.mark.slow

WHEELHOUSE = "/opt/ascend/wheelhouse"
NODES = {
    # 300I DUO host without containers: systemd runs dockerd too (docker=1 is the default).
    "pt-sd": "atlas_300i_duo:systemd=1,wheelhouse=%s" % WHEELHOUSE,
    # 200I Pro edge box: systemd, no Docker at all.
    "pt-sdrc": "atlas_200i_pro:systemd=1,docker=0,wheelhouse=%s" % WHEELHOUSE,
    # No systemd and no Docker: the node's setup, then nothing.
    "pt-nd": "atlas_300i_duo:docker=0",
}
CANN_ENV = ("source /usr/local/Ascend/ascend-toolkit/set_env.sh && "
            "source /usr/local/Ascend/nnal/atb/set_env.sh")
UNIT = """[Unit]
Description=vLLM from the venv (ascend-sim test)

[Service]
Environment=VLLM_SIM_LOAD_SECONDS=0
ExecStart=/bin/bash -c '%s && exec /opt/vllm/bin/vllm serve /models/q --served-model-name q --port 8000 --max-model-len 4096'
""" % CANN_ENV


@pytest.fixture(scope="module")
def source_nodes(tmp_path_factory):
    why = sim.why_unusable()
    if why:
        pytest.skip(why)
    inv = tmp_path_factory.mktemp("sim-source") / "inventory.yml"
    info = sim.up([sim.NodeSpec.parse("%s:%s" % kv) for kv in NODES.items()], inventory=inv)
    yield info
    sim.down(list(NODES))


def on(node, script, check=True, timeout=120):
    proc = sim.exec_node(node, ["bash", "-c", script], timeout=timeout)
    if check:
        assert proc.returncode == 0, "%s on %s: rc=%d\n%s%s" % (script, node, proc.returncode, proc.stdout, proc.stderr)
    return proc


def wait_for(node, script, timeout=30):
    deadline = time.time() + timeout
    while True:
        proc = on(node, script, check=False)
        if proc.returncode == 0:
            return proc
        assert time.time() < deadline, "timed out: %s on %s\n%s%s" % (script, node, proc.stdout, proc.stderr)
        time.sleep(0.3)


def ansible(info, *args):
    exe = str(Path(sys.executable).parent / "ansible")
    if not os.path.exists(exe):
        pytest.skip("ansible is not installed next to this Python")
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_STDOUT_CALLBACK="ansible.builtin.json",
               ANSIBLE_LOAD_CALLBACK_PLUGINS="1")
    proc = subprocess.run([exe, "-i", info["inventory"], *args], capture_output=True, text=True, env=env,
                          cwd=str(REPO), timeout=300, check=False)
    out = json.loads(proc.stdout[proc.stdout.index("{"):])
    return proc, {host: res for play in out["plays"] for task in play["tasks"] for host, res in task["hosts"].items()}


def test_systemd_is_pid_1_and_runs_the_engine(source_nodes):
    assert on("pt-sd", "cat /proc/1/comm").stdout.strip() == "systemd"
    assert on("pt-sd", "systemctl is-system-running").stdout.strip() == "running"
    assert on("pt-sd", "systemctl is-active docker.service containerd.service").stdout.split() == ["active", "active"]
    # The node's own setup happened before systemd took over.
    assert on("pt-sd", "ls /dev/davinci0 /dev/davinci1 /dev/davinci_manager && npu-smi info | grep -c 310P3").stdout \
        .split()[-1] == "2"
    # Its engine runs the test image's containers like any node's (runtime wrapper, devices, registry).
    image = "%s/ascend/vllm-ascend:v0.23.0-310p" % source_nodes["registry"]
    out = on("pt-sd", "docker run --rm --privileged --device /dev/davinci0 %s sh -c 'ls /dev/davinci0' && "
                      "docker info --format '{{.DefaultRuntime}}'" % image, timeout=180).stdout.split()
    assert out == ["/dev/davinci0", "ascend-sim-runc"]


def test_nodes_without_docker(source_nodes):
    for node in ("pt-sdrc", "pt-nd"):
        out = on(node, "command -v docker dockerd containerd; test -e /var/run/docker.sock && echo SOCKET; "
                       "pgrep -x dockerd; dpkg -s docker.io 2>/dev/null | grep Status; true").stdout
        assert out == "", (node, out)
        assert on(node, "test -c /dev/davinci0 && test -f /usr/local/Ascend/driver/version.info").returncode == 0
    assert on("pt-sdrc", "systemctl is-system-running").stdout.strip() == "running"
    assert "docker.service" not in on("pt-sdrc", "systemctl list-unit-files --no-legend").stdout
    assert on("pt-nd", "cat /proc/1/comm").stdout.strip() == "docker-init"
    status = subprocess.run([sys.executable, SIMCTL, "status"], capture_output=True, text=True, timeout=120,
                            check=False).stdout
    lines = {line.split()[1]: line for line in status.splitlines() if line.startswith("node:")}
    assert "engine=none systemd" in lines["pt-sdrc"] and "engine=none" in lines["pt-nd"]
    assert "engine=up systemd" in lines["pt-sd"]


def test_ansible_systemd_service_on_systemd_nodes(source_nodes):
    proc, hosts = ansible(source_nodes, "pt-sd,pt-sdrc", "-m", "ansible.builtin.systemd_service",
                          "-a", "daemon_reload=true")
    assert proc.returncode == 0, proc.stdout[-3000:]
    proc, hosts = ansible(source_nodes, "pt-sd,pt-sdrc,pt-nd", "-m", "ansible.builtin.setup",
                          "-a", "filter=ansible_service_mgr")
    assert {h: r["ansible_facts"]["ansible_service_mgr"] for h, r in hosts.items()} == \
        {"pt-sd": "systemd", "pt-sdrc": "systemd", "pt-nd": "docker-init"}


def test_cann_tree_and_set_env(source_nodes):
    arch = on("pt-sd", "uname -m").stdout.strip()
    info = on("pt-sd", "cat /usr/local/Ascend/ascend-toolkit/latest/%s-linux/ascend_toolkit_install.info" % arch).stdout
    assert info.splitlines()[:2] == ["package_name=Ascend-cann-toolkit", "version=9.1.0"]
    assert "path=/usr/local/Ascend/cann-9.1.0/%s-linux" % arch in info.splitlines()
    ops = on("pt-sd", "cat /usr/local/Ascend/cann-9.1.0/%s-linux/ascend_ops_install.info" % arch).stdout
    assert ops.splitlines()[:2] == ["package_name=Ascend-cann-310p-ops", "version=9.1.0"]
    atb = on("pt-sd", "cat /usr/local/Ascend/nnal/atb/latest/version.info").stdout
    assert atb.splitlines()[0] == "    Ascend-cann-atb : 9.1.0"
    env = dict(line.split("=", 1) for line in on("pt-sd", "%s && env" % CANN_ENV).stdout.splitlines() if "=" in line)
    assert env["ASCEND_TOOLKIT_HOME"] == "/usr/local/Ascend/cann-9.1.0"
    assert env["ASCEND_OPP_PATH"] == "/usr/local/Ascend/cann-9.1.0/opp"
    assert env["ATB_HOME_PATH"] == "/usr/local/Ascend/nnal/atb/latest/atb/cxx_abi_1"
    path = env["LD_LIBRARY_PATH"].split(":")
    for folder in ("/usr/local/Ascend/driver/lib64", "/usr/local/Ascend/cann-9.1.0/lib64",
                   "/usr/local/Ascend/nnal/atb/latest/atb/cxx_abi_1/lib"):
        assert folder in path
    abi0 = on("pt-sd", "source /usr/local/Ascend/nnal/atb/set_env.sh --cxx_abi=0 && echo $ATB_HOME_PATH").stdout
    assert abi0.strip().endswith("cxx_abi_0")
    # Only where asked for: the default node kinds have none (the container method brings CANN in the image).
    assert on("pt-nd", "test -e /usr/local/Ascend/ascend-toolkit", check=False).returncode != 0


def test_venv_from_the_wheelhouse_as_a_systemd_service(source_nodes):
    node = "pt-sd"
    on(node, "python3 -m venv /opt/vllm && /opt/vllm/bin/pip install -q --no-index --find-links %s "
             "vllm==0.23.0 vllm-ascend==0.23.0 && mkdir -p /models/q && echo '{}' > /models/q/config.json" % WHEELHOUSE,
       timeout=300)
    listed = on(node, "/opt/vllm/bin/pip list --format json").stdout
    names = {p["name"].lower().replace("_", "-"): p["version"] for p in json.loads(listed)}
    assert names["triton-ascend"] == names["triton"] == "3.2.0" and names["vllm-ascend"] == "0.23.0"
    on(node, "cat > /etc/systemd/system/vllm-sim.service <<'EOF'\n%sEOF\nsystemctl daemon-reload" % UNIT)

    # triton still installed: the service fails like on a 310P.
    on(node, "systemctl start vllm-sim.service")
    wait_for(node, "systemctl is-failed vllm-sim.service")
    journal = on(node, "journalctl -u vllm-sim.service --no-pager").stdout
    assert "bishengir-compile: for the --target option: Cannot find option named 'Ascend310P3'!" in journal

    # The tutorial's step, then a restart through Ansible: it serves.
    on(node, "/opt/vllm/bin/pip uninstall -y triton-ascend triton")
    proc, hosts = ansible(source_nodes, node, "-m", "ansible.builtin.systemd_service",
                          "-a", "name=vllm-sim.service state=restarted")
    assert proc.returncode == 0 and hosts[node]["changed"], proc.stdout[-3000:]
    fetch = "python3 -c 'import urllib.request,sys; print(urllib.request.urlopen(\"http://127.0.0.1:8000%s\").read().decode())'"
    wait_for(node, fetch % "/health")
    assert json.loads(on(node, fetch % "/version").stdout) == {"version": "0.23.0"}
    assert [m["id"] for m in json.loads(on(node, fetch % "/v1/models").stdout)["data"]] == ["q"]
    journal = on(node, "journalctl -u vllm-sim.service --no-pager").stdout
    assert "Application startup complete." in journal and "vLLM API server version 0.23.0" in journal
    on(node, "systemctl stop vllm-sim.service")

    # Run directly: without the CANN environment torch_npu finds no driver; ASCEND_RT_VISIBLE_DEVICES narrows.
    run = "VLLM_SIM_LOAD_SECONDS=0 VLLM_SIM_DIE_AFTER=0 VLLM_SIM_DIE_EXIT=1 /opt/vllm/bin/vllm serve /models/q --port 8001 "
    bare = on(node, "env -u LD_LIBRARY_PATH " + run, check=False)
    assert bare.returncode == 1 and "ImportError: libascend_hal.so: cannot open shared object file" in bare.stderr
    one = on(node, "%s && ASCEND_RT_VISIBLE_DEVICES=1 %s -tp 2" % (CANN_ENV, run), check=False)
    assert "World size (2) is larger than the number of available NPUs (1)" in one.stdout
    both = on(node, "%s && ASCEND_RT_VISIBLE_DEVICES=0,1 %s -tp 2" % (CANN_ENV, run), check=False)
    assert "Application startup complete." in both.stdout
    bad = on(node, "%s && ASCEND_RT_VISIBLE_DEVICES=2 %s" % (CANN_ENV, run), check=False)
    assert "set ASCEND_RT_VISIBLE_DEVICES:2 error, input data rang[0-2)" in bad.stdout

    # The other version from the same wheelhouse.
    on(node, "/opt/vllm/bin/pip install -q --no-index --find-links %s vllm==0.22.0 vllm-ascend==0.22.0" % WHEELHOUSE)
    assert on(node, "/opt/vllm/bin/vllm --version").stdout.strip() == "0.22.0"


def test_rc_node_serves_from_the_venv_with_the_driver_daemons(source_nodes):
    node = "pt-sdrc"
    on(node, "python3 -m venv /opt/vllm && /opt/vllm/bin/pip install -q --no-index --find-links %s "
             "vllm==0.23.0 vllm-ascend==0.23.0 && /opt/vllm/bin/pip uninstall -q -y triton-ascend triton && "
             "mkdir -p /models/q && echo '{}' > /models/q/config.json" % WHEELHOUSE, timeout=300)
    assert on(node, "systemctl is-active ascend-sim-slogd.service ascend-sim-dmp-daemon.service").stdout.split() == \
        ["active", "active"]
    run = ("%s && VLLM_SIM_LOAD_SECONDS=0 VLLM_SIM_DIE_AFTER=0 VLLM_SIM_DIE_EXIT=1 "
           "/opt/vllm/bin/vllm serve /models/q --port 8001" % CANN_ENV)
    # RC mode: lspci lists no accelerators; the board libraries come through /etc/ld.so.conf.d/mind_so.conf.
    assert "Application startup complete." in on(node, run, check=False).stdout
    on(node, "systemctl stop ascend-sim-dmp-daemon.service")
    try:
        res = on(node, run, check=False)
        assert res.returncode == 1 and "error code is 207004" in res.stdout
    finally:
        on(node, "systemctl start ascend-sim-dmp-daemon.service")


def test_down_removes_a_systemd_node_and_its_cgroups(source_nodes):
    cid = sim.docker("inspect", "--format", "{{.Id}}", "ascend-sim-pt-sd").stdout.strip()
    assert glob.glob("/sys/fs/cgroup/*/docker/%s" % cid)
    sim.down(["pt-sd"])
    assert sim.docker("ps", "-aq", "--filter", "label=ascend-sim.node=pt-sd").stdout.strip() == ""
    assert sim.docker("volume", "ls", "-q", "--filter", "label=ascend-sim.node=pt-sd").stdout.strip() == ""
    # The node's engine and systemd made cgroups below the node's own; none is left.
    assert not glob.glob("/sys/fs/cgroup/*/docker/%s" % cid)
