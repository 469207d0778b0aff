"""Preflight refuses a node that lacks what runs on it, before anything changes (one simulated Atlas 300I DUO).

- The node's Python cannot import ``requests`` (Debian's python3-requests hidden on the node: its package
  directory renamed), which community.docker's modules need there: site.yml stops in preflight, naming
  python3-requests and the interpreter, and the node is byte-for-byte what it was in Docker's eyes (no image
  pulled, no container).
- The node has the image already (policy not_present, so it runs as it is), but built for linux/arm64 while the
  node is x86_64 (the image's own config rewritten with ``docker save`` / ``docker load``): site.yml stops in
  preflight with the ``docker pull --platform linux/amd64`` fix, and no container is made.
The node is this module's own (``ASCEND_E2E_PREFIX``, default ``prereq``) and is removed at the end.
"""
import io
import json
import os
import re
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "sim"))
import sim  # noqa: E402  pylint: disable=wrong-import-position

NODE = os.environ.get("ASCEND_E2E_PREFIX", "prereq") + "-duo"
RECAP = re.compile(r"^%s\s+: ok=\d+\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)" % re.escape(NODE), re.M)
REQUESTS = "/usr/lib/python3/dist-packages/requests"
HIDDEN = REQUESTS + ".hidden-by-test"
MANAGED = "label=ascend.vllm.managed-by=ascend.vllm"


@pytest.fixture(scope="module")
def node(tmp_path_factory):
    if not sim.docker_ok():
        pytest.skip("no Docker Engine answers")
    info = sim.up([sim.NodeSpec.parse(NODE + ":atlas_300i_duo")], inventory=tmp_path_factory.mktemp("sim") / "sim.yml")
    yield info["registry"]
    sim.down([NODE], keep_registry=True)


def site(registry, workdir, **host_vars):
    host = dict(ansible_connection="community.docker.docker", ansible_host="ascend-sim-" + NODE,
                ansible_python_interpreter="/usr/bin/python3", **host_vars)
    inventory = {"all": {"vars": {"image_pull_registries": [registry]},
                         "children": {"atlas_300i_duo": {"hosts": {NODE: host}}}}}
    path = workdir / "inventory.yml"
    path.write_text(yaml.safe_dump(inventory))
    env = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"), ANSIBLE_FORCE_COLOR="0")
    proc = subprocess.run([str(Path(sys.executable).parent / "ansible-playbook"), "site.yml", "-i", str(path)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=900, check=False)
    recap = RECAP.search(proc.stdout)
    return proc, recap and tuple(int(n) for n in recap.groups())


def docker_state():
    """What Docker on the node holds: every image and every container, by id."""
    images = sim.exec_node(NODE, ["docker", "images", "-aq", "--no-trunc"]).stdout.split()
    containers = sim.exec_node(NODE, ["docker", "ps", "-aq", "--no-trunc"]).stdout.split()
    return sorted(images), sorted(containers)


def test_a_node_whose_python_lacks_requests_is_refused_before_any_change(node, tmp_path):
    moved = sim.exec_node(NODE, ["mv", REQUESTS, HIDDEN])
    assert moved.returncode == 0, moved.stderr
    try:
        # The node really lacks it now (as a node without python3-requests does).
        assert sim.exec_node(NODE, ["python3", "-c", "import requests"]).returncode != 0
        before = docker_state()
        proc, recap = site(node, tmp_path)
        out = " ".join(proc.stdout.split())
        assert proc.returncode != 0, proc.stdout[-6000:]
        assert recap == (0, 0, 1), (recap, proc.stdout[-6000:])
        assert re.search(r"- \[python\] the Python that runs the modules on the node \(/usr/bin/python3 [0-9.]+\) "
                         r"cannot import requests \(ModuleNotFoundError: No module named 'requests'\)", out), \
            proc.stdout[-6000:]
        assert "install python3-requests on the node (Ubuntu/Debian: apt-get install python3-requests; " \
               "openEuler: dnf install python3-requests)" in out, proc.stdout[-6000:]
        # Stopped in preflight: no image pulled, no container made.
        assert "TASK [ascend.vllm.image_pull" not in proc.stdout
        assert docker_state() == before
    finally:
        sim.exec_node(NODE, ["mv", HIDDEN, REQUESTS])
    assert sim.exec_node(NODE, ["python3", "-c", "import requests"]).returncode == 0


def _as_arm64(archive: bytes) -> bytes:
    """A `docker save` archive whose image config says linux/arm64 (the layers untouched)."""
    out = io.BytesIO()
    with tarfile.open(fileobj=io.BytesIO(archive)) as src, tarfile.open(fileobj=out, mode="w") as dst:
        [manifest] = json.load(src.extractfile("manifest.json"))
        for member in src.getmembers():
            data = src.extractfile(member).read() if member.isfile() else None
            if member.name == manifest["Config"]:
                config = json.loads(data)
                config["architecture"] = "arm64"
                data = json.dumps(config).encode()
                member.size = len(data)
            dst.addfile(member, io.BytesIO(data) if data is not None else None)
    return out.getvalue()


def test_an_image_present_for_another_architecture_is_refused_before_any_change(node, tmp_path):
    ref = "%s/ascend/vllm-ascend:v0.23.0-310p" % node
    assert sim.exec_node(NODE, ["docker", "pull", ref], timeout=600).returncode == 0
    saved = subprocess.run(["docker", "exec", "ascend-sim-" + NODE, "docker", "save", ref],
                           capture_output=True, check=True, timeout=600).stdout
    subprocess.run(["docker", "exec", "-i", "ascend-sim-" + NODE, "docker", "load"], input=_as_arm64(saved),
                   capture_output=True, check=True, timeout=600)
    try:
        arch = sim.exec_node(NODE, ["docker", "image", "inspect", "-f", "{{.Architecture}}", ref]).stdout.strip()
        assert arch == "arm64" and sim.exec_node(NODE, ["uname", "-m"]).stdout.strip() == "x86_64"
        before = docker_state()
        proc, recap = site(node, tmp_path, image_pull_policy="not_present")
        out = " ".join(proc.stdout.split())
        assert proc.returncode != 0 and recap == (0, 0, 1), (recap, proc.stdout[-6000:])
        assert ("image %s on the node is linux/arm64, the node is x86_64 (linux/amd64): its containers cannot run "
                "there" % ref) in out, proc.stdout[-6000:]
        assert "docker pull --platform linux/amd64 %s" % ref in out, proc.stdout[-6000:]
        assert docker_state() == before
        assert sim.exec_node(NODE, ["docker", "ps", "-aq", "--filter", MANAGED]).stdout.split() == []
    finally:
        sim.exec_node(NODE, ["docker", "rmi", "-f", ref])


def test_an_archive_saved_for_another_architecture_is_refused_before_it_is_copied(node, tmp_path):
    """The air-gapped page's trap: `docker save` on a machine of another architecture than the nodes'."""
    ref = "%s/ascend/vllm-ascend:v0.23.0-310p" % node
    saved = subprocess.run(["docker", "exec", "ascend-sim-" + NODE, "sh", "-c",
                            "docker pull -q %s >/dev/null && docker save %s" % (ref, ref)],
                           capture_output=True, check=True, timeout=600).stdout
    archive = tmp_path / "vllm-ascend-v0.23.0-310p.tar"
    archive.write_bytes(_as_arm64(saved))
    sim.exec_node(NODE, ["docker", "rmi", "-f", ref])
    before = docker_state()
    proc, recap = site(node, tmp_path, image_pull_archive=str(archive))
    out = " ".join(proc.stdout.split())
    assert proc.returncode != 0 and recap == (0, 0, 1), (recap, proc.stdout[-6000:])
    assert ('image_pull_archive="%s" holds %s (linux/arm64), the node is x86_64 (linux/amd64): loaded, its containers '
            'cannot run there' % (archive, ref)) in out, proc.stdout[-6000:]
    assert "docker pull --platform linux/amd64 %s" % ref in out
    # Refused before the copy: nothing on the node.
    assert docker_state() == before
    assert sim.exec_node(NODE, ["ls", "/var/tmp/ascend-vllm"]).stdout.strip() == ""
