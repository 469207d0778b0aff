"""The release records on simulated Atlas 300I DUO nodes: the oldest and the newest record deploy, each with its
own image tag and container line; a tag without a record is refused before anything changes.

One node per case, each alone in its inventory (preflight stops every host on one host's problem). The test
images are built per record by tests/sim (sim.IMAGE_TAGS comes from plugins/plugin_utils/contracts/releases.py).
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

RELEASES = sim.RELEASES
OLDEST, NEWEST = RELEASES.names()[0], RELEASES.names()[-1]
PREFIX = os.environ.get("ASCEND_E2E_PREFIX", "releases")
NODES = {"oldest": PREFIX + "-oldest", "newest": PREFIX + "-newest", "unknown": PREFIX + "-unknown"}
RECAP = re.compile(r"^(\S+)\s+: ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)", re.M)


@pytest.fixture(scope="module")
def registry(tmp_path_factory):
    if not sim.docker_ok():
        pytest.skip("no Docker Engine answers")
    info = sim.up([sim.NodeSpec.parse("%s:atlas_300i_duo" % node) for node in NODES.values()],
                  inventory=tmp_path_factory.mktemp("sim") / "sim.yml")
    yield info["registry"]
    sim.down(list(NODES.values()))


def run_site(node, registry, workdir, extra):
    """site.yml against `node` alone with the extra host variables; (process, {host: {changed, failed}})."""
    host = dict({"ansible_connection": "community.docker.docker", "ansible_host": "ascend-sim-" + node,
                 "ansible_python_interpreter": "/usr/bin/python3"}, **extra)
    inventory = {"all": {"vars": {"image_pull_registries": [registry], "vllm_serve_ready_poll_interval": 1,
                                  "vllm_serve_ready_timeout": 120},
                         "children": {"atlas_300i_duo": {"hosts": {node: host}}}}}
    path = workdir / ("%s.yml" % node)
    path.write_text(yaml.safe_dump(inventory))
    env = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"), ANSIBLE_FORCE_COLOR="0")
    proc = subprocess.run([str(Path(sys.executable).parent / "ansible-playbook"), "site.yml", "-i", str(path)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=900, check=False)
    recap = {m.group(1): {"changed": int(m.group(3)), "failed": int(m.group(5))} for m in RECAP.finditer(proc.stdout)}
    return proc, recap


def _running(node):
    """(image, shm size in bytes, the stand-in's reported vLLM version) of the one instance container of ours."""
    names = sim.exec_node(node, ["docker", "ps", "--filter", "label=ascend.vllm.managed-by=ascend.vllm",
                                 "--format", "{{.Names}}"]).stdout.split()
    assert len(names) == 1, names
    inspected = json.loads(sim.exec_node(node, ["docker", "inspect", names[0]]).stdout)[0]
    version = sim.exec_node(node, ["docker", "exec", names[0], "vllm", "--version"]).stdout.strip()
    return inspected["Config"]["Image"], inspected["HostConfig"]["ShmSize"], version


SHM_BYTES = {"1g": 1 << 30, "10g": 10 << 30}


@pytest.mark.parametrize("which, release", [("oldest", OLDEST), ("newest", NEWEST)])
def test_a_recorded_release_deploys_with_its_own_tag_and_container_line(registry, tmp_path, which, release):
    record = RELEASES.RELEASES[release]
    node = NODES[which]
    proc, recap = run_site(node, registry, tmp_path, {"image_pull_tag": release})
    out = proc.stdout
    assert proc.returncode == 0, out[-6000:]
    assert recap[node]["failed"] == 0 and recap[node]["changed"] > 0, recap
    state = "complete" if RELEASES.complete(record) else "incomplete"
    assert "release record %s: %s (docs/versions.md)" % (release, state) in out, out[-6000:]
    image, shm, version = _running(node)
    assert image.endswith("/ascend/vllm-ascend:" + record["images"]["atlas_300i_duo"]), image
    assert shm == SHM_BYTES[record["container"]["atlas_300i_duo"]["shm_size"]]
    assert version == (record["vllm"] or record["vllm_ascend"])


def test_a_tag_without_a_record_is_refused_before_anything_changes(registry, tmp_path):
    node = NODES["unknown"]
    before = sim.exec_node(node, ["docker", "ps", "-aq"]).stdout, sim.exec_node(node, ["docker", "images", "-q"]).stdout
    proc, recap = run_site(node, registry, tmp_path, {"image_pull_tag": "v0.31.0"})
    out = proc.stdout
    assert proc.returncode != 0
    assert "image tag v0.31.0-310p has no release record" in out, out[-6000:]
    assert "image_pull_assume_release" in out
    assert "PLAY [Deploy]" not in out and recap[node]["changed"] == 0, recap
    after = sim.exec_node(node, ["docker", "ps", "-aq"]).stdout, sim.exec_node(node, ["docker", "images", "-q"]).stdout
    assert after == before
