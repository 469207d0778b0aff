"""Driver and firmware against the image's version data, on simulated Atlas 300I DUO nodes.

Two nodes, each alone in its inventory (preflight stops every host on one host's problem):
- ``versions-old`` runs driver 25.0.rc1.1 (npu-smi and version.info, as on the 300I Duo of
  vllm-ascend issue #1993), an Ascend HDK the CANN 9.1.0 release notes mark incompatible with
  CANN 9.1.X. The real site.yml is refused in preflight, naming the driver, the image, its CANN
  and the fix, and nothing on the node changes: no image pulled, no container created.
- ``versions-ok`` is the default node (driver 25.2.0, firmware 7.7.0.6.236, which the driver's
  compatible_version_fw accepts): the same site.yml deploys and serves.
"""
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

PREFIX = os.environ.get("ASCEND_E2E_PREFIX", "versions")
OLD = PREFIX + "-old"
OK = PREFIX + "-ok"
RECAP = re.compile(r"^(\S+)\s+: ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)", re.M)


@pytest.fixture(scope="module")
def registry(tmp_path_factory):
    if not sim.docker_ok():
        pytest.skip("no Docker Engine answers")
    info = sim.up([sim.NodeSpec.parse("%s:atlas_300i_duo:npu_smi_version=25.0.rc1.1" % OLD),
                   sim.NodeSpec.parse("%s:atlas_300i_duo" % OK)],
                  inventory=tmp_path_factory.mktemp("sim") / "sim.yml")
    yield info["registry"]
    sim.down([OLD, OK])


def run_site(node, registry, workdir):
    """site.yml against `node` alone; (process, {host: {changed, failed}})."""
    inventory = {"all": {"vars": {"image_pull_registries": [registry], "vllm_serve_ready_poll_interval": 1,
                                  "vllm_serve_ready_timeout": 120},
                         "children": {"atlas_300i_duo": {"hosts": {node: {
                             "ansible_connection": "community.docker.docker", "ansible_host": "ascend-sim-" + node,
                             "ansible_python_interpreter": "/usr/bin/python3"}}}}}}
    path = workdir / ("%s.yml" % node)
    path.write_text(yaml.safe_dump(inventory))
    env = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"), ANSIBLE_FORCE_COLOR="0")
    proc = subprocess.run([str(Path(sys.executable).parent / "ansible-playbook"), "site.yml", "-i", str(path)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=900, check=False)
    recap = {m.group(1): {"changed": int(m.group(3)), "failed": int(m.group(5))} for m in RECAP.finditer(proc.stdout)}
    return proc, recap


def node_state(node):
    """What a refused run must leave alone: every container and every image on the node."""
    containers = sim.exec_node(node, ["docker", "ps", "-aq", "--no-trunc"]).stdout.split()
    images = sim.exec_node(node, ["docker", "images", "-q", "--no-trunc"]).stdout.split()
    return containers, images


def test_the_nodes_show_their_driver_and_firmware(registry):
    assert "Version=25.0.rc1.1\n" in sim.exec_node(OLD, ["cat", "/usr/local/Ascend/driver/version.info"]).stdout
    board = sim.exec_node(OK, ["npu-smi", "info", "-t", "board", "-i", "2"]).stdout
    assert "\tSoftware Version               : 25.2.0\n" in board
    assert "\tFirmware Version               : 7.7.0.6.236\n" in board
    assert "\tCompatibility                  : OK\n" in board


def test_incompatible_driver_is_refused_in_preflight(registry, tmp_path):
    before = node_state(OLD)
    proc, recap = run_site(OLD, registry, tmp_path)
    out = proc.stdout
    assert proc.returncode != 0, out[-4000:]
    line = re.search(r"^- \[versions\] (driver .*)\. Fix: (.*)$", out, re.M)
    assert line, out[-6000:]
    # Both versions (the driver and the image's CANN), the image and the fix.
    assert line.group(1) == ("driver 25.0.rc1.1 does not suit image v0.23.0-310p (CANN 9.1.0): the CANN 9.1.0 release "
                             "notes mark Ascend HDK 25.0.X incompatible; vllm serve would fail at start (E30006 Failed "
                             "to verify the OPP)")
    # The fix names the HDK to install: the release paired with the image's CANN.
    assert line.group(2).startswith("install Ascend HDK 26.0.RC1 (driver and firmware of one release; the release "
                                    "paired with CANN 9.1.0) or another release the CANN 9.1.0 release notes list "
                                    "as compatible (25.2.X, "), line.group(2)
    assert "docs/versions.md" in line.group(2)
    # Refused before the image or deploy phase: nothing on the node changed.
    assert "PLAY [Deploy]" not in out
    assert recap[OLD]["changed"] == 0, recap
    assert node_state(OLD) == before
    assert not [ref for ref in sim.exec_node(OLD, ["docker", "images", "--format", "{{.Repository}}"]).stdout.split()
                if ref.endswith("/ascend/vllm-ascend")]


def test_compatible_node_still_deploys(registry, tmp_path):
    proc, recap = run_site(OK, registry, tmp_path)
    out = proc.stdout
    assert proc.returncode == 0, out[-6000:]
    assert recap[OK]["failed"] == 0 and recap[OK]["changed"] > 0, recap
    assert "[versions]" not in out
    # The node's summary line shows what was read.
    assert re.search(r"atlas_300i_duo: driver 25\.2\.0, firmware 7\.7\.0\.6\.236, npu-smi 25\.2\.0", out), out[-6000:]
    running = sim.exec_node(OK, ["docker", "ps", "--filter", "label=ascend.vllm.managed-by=ascend.vllm",
                                 "--format", "{{.Image}}"]).stdout.split()
    assert running and running[0].endswith("/ascend/vllm-ascend:v0.23.0-310p"), running
