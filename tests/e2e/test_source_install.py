"""The source install method, end to end: vLLM as a systemd service on a node without Docker.

A simulated Atlas 300I DUO node whose PID 1 is systemd and that has no Docker Engine at all
(``systemd=1,docker=0``), with a stand-in CANN 9.1.0 tree and a wheelhouse of stand-in ``vllm``,
``vllm-ascend``, ``triton-ascend`` and ``triton`` wheels at ``/srv/wheelhouse`` (tests/sim/README.md).
pip, venv, systemd and journald are real; only what needs an NPU stands in. The stand-in vLLM
refuses to start while ``import triton`` works, as vllm-ascend does on the 310P.

The operator sets ``ascend_vllm_install_method: source`` and the wheelhouse, and runs site.yml:
preflight refuses a wheelhouse without the planned version (nothing changes), the deploy installs
the virtualenv, removes triton, writes the unit, and readiness and the guide's smoke tests pass; the
unit runs exactly the command preflight printed; a re-run changes nothing; a change that crashes is
rolled back to the unit that served; the teardown leaves no unit and no listener.
A second node (``systemd=1`` with Docker) runs two instances behind the balancer (HAProxy in a
container) and rolls a change through it.

Building from the release tags (``vllm_serve_source_build``): the first node has no git, so preflight refuses
it before anything changes; a third node (``sources=/srv/src``: the stand-in repositories of vLLM and vllm-ascend
with tags v0.22.0 and v0.23.0 and vllm-ascend's catlass submodule, git installed; tests/sim/standin_sources.py)
clones them at v0.23.0 and pip builds them offline with the wheelhouse for the dependencies. The stand-in builds
fail without ``VLLM_TARGET_DEVICE=empty``, without a 310P ``SOC_VERSION``, without the CANN environment the
launcher gives, or without the submodule, so a deploy that serves shows each was given.
"""
import json
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "sim"))
import sim  # noqa: E402  pylint: disable=wrong-import-position
from site_run import run_site  # noqa: E402  pylint: disable=wrong-import-position

PREFIX = os.environ.get("ASCEND_E2E_PREFIX", "e2e")
NODE = PREFIX + "-src"
BAL = PREFIX + "-srcbal"
GROUP = "atlas_300i_duo"
WHEELHOUSE = "/srv/wheelhouse"
VENV = "/opt/ascend-vllm/venv/vllm-ascend-0.23.0"
UNIT = "/etc/systemd/system/vllm-ascend.service"
BASE = {"ascend_vllm_install_method": "source", "vllm_serve_source_wheelhouse": WHEELHOUSE,
        "vllm_serve_ready_poll_interval": 1, "vllm_serve_ready_timeout": 120}
BUILD_NODE = PREFIX + "-srcbuild"
SOURCES = "/srv/src"
BUILD = dict(BASE, vllm_serve_source_build=True,
             vllm_serve_source_repos={"vllm": "file://%s/vllm.git" % SOURCES,
                                      "vllm_ascend": "file://%s/vllm-ascend.git" % SOURCES})


def node_sh(node, script, timeout=60):
    return sim.exec_node(node, ["bash", "-c", script], timeout=timeout)


def completion(node, port):
    """The guide's completion request from the node itself (vLLM binds the publish address, 127.0.0.1)."""
    client = ("import json, sys, urllib.request\n"
              "req = urllib.request.Request('http://127.0.0.1:%d/v1/completions', data=json.dumps({'model': "
              "'qwen3.5', 'prompt': 'The future of AI is', 'max_tokens': 8}).encode(), "
              "headers={'Content-Type': 'application/json'})\n"
              "print(json.load(urllib.request.urlopen(req, timeout=30))['choices'][0]['text'])\n" % port)
    return sim.exec_node(node, ["python3", "-c", client], timeout=60)


def printed_command(stdout):
    """The `vllm serve` line preflight showed for the instance (its debug output, read as the YAML it is)."""
    block = stdout.split("TASK [Preflight | Show what each node has", 1)[1].split("\nTASK [", 1)[0]
    lines = yaml.safe_load(block.split("=>", 1)[1])["msg"]
    found = [line.split(": ", 1)[1] for line in lines if " port 8080: vllm serve " in line]
    assert len(found) == 1, lines
    return found[0]


def main_pid(node, unit="vllm-ascend.service"):
    return int(node_sh(node, "systemctl show -p MainPID --value %s" % unit).stdout.strip() or 0)


@pytest.fixture(scope="module")
def node(tmp_path_factory):
    if not sim.docker_ok():
        pytest.skip("no Docker Engine answers")
    sim.up([sim.NodeSpec.parse("%s:atlas_300i_duo:systemd=1,docker=0,wheelhouse=%s" % (NODE, WHEELHOUSE))],
           inventory=tmp_path_factory.mktemp("sim") / "sim.yml")
    yield tmp_path_factory.mktemp("e2e")
    sim.down([NODE])


def test_the_node_has_systemd_and_no_docker(node):
    assert node_sh(NODE, "systemctl is-system-running").stdout.strip() == "running"
    assert node_sh(NODE, "command -v docker || test -S /var/run/docker.sock").returncode != 0


def test_a_wheelhouse_without_the_planned_version_is_refused_before_anything_changes(node):
    proc, recap = run_site(node, NODE, GROUP, dict(BASE, vllm_serve_source_versions={"vllm_ascend": "0.24.0",
                                                                                     "vllm": "0.24.0"}))
    assert proc.returncode != 0
    assert re.search(r"the wheelhouse /srv/wheelhouse has no wheel of vllm-ascend==0\.24\.0", proc.stdout), \
        proc.stdout[-4000:]
    assert "PLAY [Deploy" not in proc.stdout and recap[NODE]["changed"] == 0
    assert node_sh(NODE, "test -e /opt/ascend-vllm || test -e %s" % UNIT).returncode != 0


def test_building_from_the_tags_on_a_node_without_git_is_refused_before_anything_changes(node):
    proc, recap = run_site(node, NODE, GROUP, BUILD)
    assert proc.returncode != 0
    text = re.sub(r"\s+", " ", proc.stdout)
    assert "git is not on the node (no git on PATH)" in text, proc.stdout[-4000:]
    assert "PLAY [Deploy" not in proc.stdout and recap[NODE]["changed"] == 0
    assert node_sh(NODE, "test -e /opt/ascend-vllm || test -e %s" % UNIT).returncode != 0


def test_the_deploy_installs_the_virtualenv_and_serves_as_a_unit(node):
    proc, recap = run_site(node, NODE, GROUP, BASE)
    assert proc.returncode == 0, proc.stdout[-6000:]
    assert recap[NODE]["failed"] == 0
    assert "completions: The future of AI is" in proc.stdout
    assert "install | Install vLLM and vllm-ascend" in proc.stdout
    assert node_sh(NODE, "systemctl is-active vllm-ascend.service").stdout.strip() == "active"
    assert node_sh(NODE, "systemctl is-enabled vllm-ascend.service").stdout.strip() == "enabled"
    # The guide's step: triton-ascend and triton removed; pip show names the installed version.
    listed = node_sh(NODE, "%s/bin/python -m pip list --format=json" % VENV).stdout
    names = dict((p["name"].lower(), p["version"]) for p in json.loads(listed))
    assert names["vllm"] == "0.23.0" and names["vllm-ascend"] == "0.23.0"
    assert "triton" not in names and "triton-ascend" not in names
    # Secrets and settings live in a file only root reads.
    mode = node_sh(NODE, "stat -c %a /opt/ascend-vllm/instances/vllm-ascend.env").stdout.strip()
    assert mode == "600"
    res = completion(NODE, 8080)
    assert res.returncode == 0 and res.stdout.strip(), res.stderr


def test_the_unit_runs_exactly_the_command_preflight_printed(node):
    proc, _recap = run_site(node, NODE, GROUP, BASE)
    assert proc.returncode == 0, proc.stdout[-6000:]
    planned = shlex.split(printed_command(proc.stdout))
    cmdline = node_sh(NODE, "cat /proc/%d/cmdline" % main_pid(NODE)).stdout.split("\0")[:-1]
    # The launcher execs vLLM's console script: python, the script, then vllm's own argv.
    assert cmdline[1] == VENV + "/bin/vllm"
    assert cmdline[2:] == planned[1:]
    assert "--additional-config" in cmdline
    # The environment the image would give: CANN's set_env.sh, then the image's .bashrc lines.
    environ = dict(item.split("=", 1) for item in
                   node_sh(NODE, "cat /proc/%d/environ" % main_pid(NODE)).stdout.split("\0") if "=" in item)
    assert environ["ASCEND_TOOLKIT_HOME"].startswith("/usr/local/Ascend/")
    assert environ["LD_LIBRARY_PATH"].startswith("/usr/local/Ascend/driver/lib64:/usr/lib64:")
    assert environ["LD_PRELOAD"] == "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2:"
    assert environ["TASK_QUEUE_ENABLE"] == "1" and environ["ASCEND_RT_VISIBLE_DEVICES"] == "0"


def test_a_re_run_changes_nothing(node):
    before = main_pid(NODE)
    proc, recap = run_site(node, NODE, GROUP, BASE)
    assert proc.returncode == 0, proc.stdout[-6000:]
    assert recap[NODE]["changed"] == 0, proc.stdout[-6000:]
    assert main_pid(NODE) == before
    # The unit was checked in the node read's round trip (/health and /v1/models: a read sends no inference
    # request), not waited for again.
    assert ("default (vllm-ascend.service) serves as planned: /health and /v1/models answered"
            in re.sub(r"\s+", " ", proc.stdout)), proc.stdout[-6000:]
    assert "ready_instance | Wait for" not in proc.stdout
    # Preflight found the versions installed (and no triton): pip is not run again.
    assert "install | Install vLLM and vllm-ascend" not in proc.stdout


def test_check_diff_shows_the_unit_a_change_would_write_and_changes_nothing(node):
    """--check --diff: vllm_service shows the unit file before and after (the new --max-model-len), the unit and its
    files stay as they are."""
    before = node_sh(NODE, "cat %s" % UNIT).stdout
    pid = main_pid(NODE)
    run_site(node, NODE, GROUP, BASE)  # writes the inventory of BASE
    env = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"), ANSIBLE_FORCE_COLOR="0")
    proc = subprocess.run([str(Path(sys.executable).parent / "ansible-playbook"), "ascend.vllm.site", "-i",
                           str(node / "inventory.yml"), "--check", "--diff", "-e", "vllm_serve_max_model_len=4096"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=900, check=False)
    out = proc.stdout
    assert "--- before: %s" % UNIT in out and "+++ after: %s" % UNIT in out, out[-6000:]
    # systemd's quoting of each ExecStart word (plan/serve/_source.py).
    assert re.search(r'^\+ExecStart=.*"--max-model-len" "4096"', out, re.M), out[-6000:]
    assert re.search(r'^-ExecStart=.*"--max-model-len" "16384"', out, re.M), out[-6000:]
    # Only the secrets are hidden: the unit's own figures print as they are.
    assert re.search(r"^ RestartSec=\d+$", out, re.M) and "********" not in out.split("--- before: %s" % UNIT)[1].split(
        "--- before:")[0], out[-6000:]
    assert node_sh(NODE, "cat %s" % UNIT).stdout == before and main_pid(NODE) == pid


def test_a_change_that_crashes_is_rolled_back_to_the_unit_that_served(node):
    before = node_sh(NODE, "cat %s" % UNIT).stdout
    proc, _recap = run_site(node, NODE, GROUP, dict(BASE, vllm_serve_max_model_len=4096,
                                                    vllm_serve_env={"VLLM_SIM_CRASH": "oom"}))
    assert proc.returncode != 0
    text = re.sub(r"\s+", " ", proc.stdout)
    assert "RuntimeError: NPU out of memory" in text
    assert "the previous service was restored: it serves again" in text, text[-3000:]
    assert node_sh(NODE, "cat %s" % UNIT).stdout == before
    assert node_sh(NODE, "test -e %s.previous" % UNIT).returncode != 0
    assert completion(NODE, 8080).returncode == 0


def test_the_teardown_removes_the_service(node):
    env = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"))
    proc = subprocess.run([str(Path(sys.executable).parent / "ansible-playbook"), "playbooks/teardown.yml", "-i",
                           str(node / "inventory.yml")], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=600, check=False)
    assert proc.returncode == 0, proc.stdout[-4000:]
    assert node_sh(NODE, "test -e %s || ls /opt/ascend-vllm/instances/*.env" % UNIT).returncode != 0
    assert completion(NODE, 8080).returncode != 0
    # The virtualenv stays for the next deploy.
    assert node_sh(NODE, "test -x %s/bin/vllm" % VENV).returncode == 0


@pytest.fixture(scope="module")
def balanced(tmp_path_factory):
    if not sim.docker_ok():
        pytest.skip("no Docker Engine answers")
    info = sim.up([sim.NodeSpec.parse("%s:atlas_300i_duo:systemd=1,wheelhouse=%s" % (BAL, WHEELHOUSE))],
                  inventory=tmp_path_factory.mktemp("sim") / "sim.yml")
    # HAProxy's image comes from the harness's registry (Docker Hub is out of reach).
    yield tmp_path_factory.mktemp("e2e"), [info["registry"]]
    sim.down([BAL])


def test_two_services_behind_the_balancer_roll_a_change(balanced):
    balanced, registries = balanced
    settings = dict(BASE, ascend_vllm_instances=[{"name": "a"}, {"name": "b"}], balancer_registries=registries)
    proc, _recap = run_site(balanced, BAL, GROUP, settings)
    assert proc.returncode == 0, proc.stdout[-6000:]
    assert completion(BAL, 8000).returncode == 0
    for unit in ("vllm-ascend-a.service", "vllm-ascend-b.service"):
        assert node_sh(BAL, "systemctl is-active %s" % unit).stdout.strip() == "active", unit
    proc, _recap = run_site(balanced, BAL, GROUP, dict(settings, vllm_serve_max_model_len=8192))
    assert proc.returncode == 0, proc.stdout[-6000:]
    assert len(re.findall(r"upgraded; back in the balancer", proc.stdout)) == 2, proc.stdout[-6000:]
    assert completion(BAL, 8000).returncode == 0
    assert '"--max-model-len" "8192"' in node_sh(BAL, "cat /etc/systemd/system/vllm-ascend-a.service").stdout


def test_a_rebooted_node_serves_its_units_again_without_a_re_run(balanced):
    """What the units need at start lives where a reboot keeps it (unit, environment file, launcher, virtualenv):
    after a power cycle, systemd starts both instances and the balancer's container comes back, nobody re-runs."""
    sim.reboot_node(BAL)
    deadline = time.time() + 90
    while completion(BAL, 8000).returncode != 0:
        assert time.time() < deadline, node_sh(BAL, "systemctl status --no-pager 'vllm-ascend-*'").stdout[-3000:]
        time.sleep(1)
    for unit in ("vllm-ascend-a.service", "vllm-ascend-b.service"):
        assert node_sh(BAL, "systemctl is-active %s" % unit).stdout.strip() == "active", unit


def test_a_plan_with_the_image_method_one_instance_and_no_balancer_removes_the_units_and_the_balancer(balanced):
    """The plan is the node's desired state: switching a host of two units behind a balancer to the image install
    method with one instance leaves nothing of ours that the plan does not want -- --check names the removals first
    and changes nothing, then the run removes both units and their files, and the node serves from the container."""
    balanced, registries = balanced
    settings = {"image_pull_registries": registries, "vllm_serve_ready_poll_interval": 1,
                "vllm_serve_ready_timeout": 120}
    check, _recap = run_site(balanced, BAL, GROUP, settings, "--check")
    assert check.returncode == 0, check.stdout[-6000:]
    text = re.sub(r"\s+", " ", check.stdout)
    assert "would remove: vllm-ascend-a.service, vllm-ascend-b.service (ours, no longer in the plan)" in text, \
        check.stdout[-6000:]
    assert node_sh(BAL, "systemctl is-active vllm-ascend-a.service").stdout.strip() == "active"
    proc, _recap = run_site(balanced, BAL, GROUP, settings)
    assert proc.returncode == 0, proc.stdout[-6000:]
    text = re.sub(r"\s+", " ", proc.stdout)
    assert "removed: vllm-ascend-a.service, vllm-ascend-b.service (ours, no longer in the plan)" in text, \
        proc.stdout[-6000:]
    assert node_sh(BAL, "ls /etc/systemd/system/vllm-ascend* /opt/ascend-vllm/instances/*.env").stdout.strip() == ""
    ours = sim.exec_node(BAL, ["docker", "ps", "--format", "{{.Names}}", "--filter",
                               "label=ascend.vllm.managed-by=ascend.vllm"]).stdout.split()
    assert ours == ["vllm-ascend"], ours
    assert completion(BAL, 8080).returncode == 0


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    if not sim.docker_ok():
        pytest.skip("no Docker Engine answers")
    sim.up([sim.NodeSpec.parse("%s:atlas_300i_duo:systemd=1,docker=0,wheelhouse=%s,sources=%s"
                               % (BUILD_NODE, WHEELHOUSE, SOURCES))],
           inventory=tmp_path_factory.mktemp("sim") / "sim.yml")
    yield tmp_path_factory.mktemp("e2e")
    sim.down([BUILD_NODE])


def test_the_deploy_builds_vllm_and_vllm_ascend_from_the_release_tags_and_serves(built):
    proc, recap = run_site(built, BUILD_NODE, GROUP, dict(BUILD, vllm_serve_ready_poll_interval=1))
    assert proc.returncode == 0, proc.stdout[-6000:]
    assert recap[BUILD_NODE]["failed"] == 0
    # The vllm-ascend build is an async job whose log was asked each second: each line names its newest output line.
    lines = re.findall(r"^\[%s\] building vllm-ascend 0\.23\.0: .*$" % BUILD_NODE, proc.stderr, re.M)
    print("build progress lines:", lines)
    # The stand-in builds take 3 s each (tests/sim/standin_sources.py): at least one line each.
    assert lines and all(re.search(r"\d+s elapsed, timeout in \S+; (newest line: .+|no output yet)$", line) for line in lines)
    # So is vLLM's install from its checkout, with its own log.
    installs = re.findall(r"^\[%s\] installing vLLM 0\.23\.0 from its checkout: .*$" % BUILD_NODE, proc.stderr, re.M)
    print("vLLM install progress lines:", installs)
    assert installs and all(re.search(r"\d+s elapsed, timeout in \S+; (newest line: .+|no output yet)$", line) for line in installs)
    assert "Successfully installed" in node_sh(BUILD_NODE, "cat /opt/ascend-vllm/vllm-build.log").stdout
    assert ("vLLM 0.23.0 and vllm-ascend 0.23.0: built from file:///srv/src/vllm.git v0.23.0 and "
            "file:///srv/src/vllm-ascend.git v0.23.0 into %s, dependencies from the wheelhouse %s" % (VENV, WHEELHOUSE)
            in re.sub(r"\s+", " ", proc.stdout)), proc.stdout[-6000:]
    assert "completions: The future of AI is" in proc.stdout
    # The checkouts are the release tags; vllm-ascend's with its submodule.
    for tree in ("vllm-0.23.0", "vllm-ascend-0.23.0"):
        assert node_sh(BUILD_NODE, "git -C /opt/ascend-vllm/src/%s describe --tags" % tree).stdout.strip() == "v0.23.0"
    assert node_sh(BUILD_NODE, "test -s /opt/ascend-vllm/src/vllm-ascend-0.23.0/csrc/third_party/catlass/include/"
                               "catlass/catlass.hpp").returncode == 0
    # pip show names the planned versions; triton-ascend (a dependency of vllm-ascend) and triton are gone.
    listed = node_sh(BUILD_NODE, "%s/bin/python -m pip list --format=json" % VENV).stdout
    names = dict((p["name"].lower(), p["version"]) for p in json.loads(listed))
    assert names["vllm"] == "0.23.0" and names["vllm-ascend"] == "0.23.0"
    assert "triton" not in names and "triton-ascend" not in names
    # Installed from the checkouts (pip's direct_url.json), not editable, and not the wheelhouse's wheels of the
    # same versions.
    for dist, tree in (("vllm", "vllm-0.23.0"), ("vllm_ascend", "vllm-ascend-0.23.0")):
        origin = json.loads(node_sh(BUILD_NODE, "cat %s/lib/python3*/site-packages/%s-0.23.0.dist-info/direct_url.json"
                                    % (VENV, dist)).stdout)
        assert origin["url"] == "file:///opt/ascend-vllm/src/" + tree and not origin["dir_info"].get("editable")
    res = completion(BUILD_NODE, 8080)
    assert res.returncode == 0 and res.stdout.strip(), res.stderr
