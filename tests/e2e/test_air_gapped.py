"""An air-gapped site, end to end: the node reaches no registry and no model hub.

A simulated Atlas 300I DUO node is cut off from every network (``docker network disconnect``;
Ansible still reaches it through ``docker exec``, as it would through a jump host or a console).
What the operator prepares, as docs/air-gapped.md tells them:
- the image as a ``docker save`` tarball on the controller (``image_pull_archive``), saved under
  the name a connected machine pulled it by (``quay.io/ascend/vllm-ascend:v0.23.0-310p``);
- the weights pre-staged on the node in the layout vLLM loads from a directory (``config.json``,
  tokenizer files, ``*.safetensors``), named by ``vllm_serve_model_path``;
- ``ascend_vllm_offline: true``.
Then the real site.yml loads the image, runs the container with the hub switched off
(``HF_HUB_OFFLINE=1``; the stand-in vLLM, like transformers, then finds the model only on disk),
and readiness and the guide's smoke tests pass. Before that, preflight refuses the same site with a
model id (on the controller) and without the tarball (once the node is read), naming the variable,
and changes nothing.
"""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "sim"))
import sim  # noqa: E402  pylint: disable=wrong-import-position
from site_run import managed_container, run_site  # noqa: E402  pylint: disable=wrong-import-position

NODE = os.environ.get("ASCEND_E2E_PREFIX", "e2e") + "-airgap"
GROUP = "atlas_300i_duo"
# The name a connected machine pulls the image by (the collection's default registry).
PUBLIC_REF = "quay.io/ascend/vllm-ascend:v0.23.0-310p"
WEIGHTS = "/data/models/Qwen3.5-2B"


class Site:
    def __init__(self, registry, workdir, archive):
        self.registry = registry
        self.workdir = workdir
        self.archive = archive

    def run(self, **changes):
        group_vars = {"ascend_vllm_offline": True, "image_pull_archive": str(self.archive),
                      "vllm_serve_model_path": WEIGHTS, "vllm_serve_model_roots": ["/data/models"],
                      "vllm_serve_ready_poll_interval": 1, "vllm_serve_ready_timeout": 120}
        group_vars.update(changes)
        group_vars = {key: value for key, value in group_vars.items() if value is not None}
        return run_site(self.workdir, NODE, GROUP, group_vars)


def node_images():
    return sorted(sim.exec_node(NODE, ["docker", "images", "--format", "{{.Repository}}:{{.Tag}}"]).stdout.split())


def stage_weights():
    """A model directory as vLLM loads one: config.json, tokenizer files and the safetensors."""
    config = {"architectures": ["Qwen3_5ForConditionalGeneration"], "model_type": "qwen3_5",
              "text_config": {"num_hidden_layers": 24, "hidden_size": 2048}}
    script = ("import json, os, sys\n"
              "d = sys.argv[1]\nos.makedirs(d, exist_ok=True)\n"
              "open(os.path.join(d, 'config.json'), 'w').write(sys.argv[2])\n"
              "for name in ('tokenizer.json', 'tokenizer_config.json', 'model.safetensors'):\n"
              "    open(os.path.join(d, name), 'w').write('{}')\n")
    res = sim.exec_node(NODE, ["python3", "-c", script, WEIGHTS, json.dumps(config)])
    assert res.returncode == 0, res.stderr


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    if not sim.docker_ok():
        pytest.skip("no Docker Engine answers")
    info = sim.up([sim.NodeSpec.parse("%s:atlas_300i_duo" % NODE)],
                  inventory=tmp_path_factory.mktemp("sim") / "sim.yml")
    registry = info["registry"]
    workdir = tmp_path_factory.mktemp("e2e")
    # The tarball a connected machine makes: docker pull, docker save (here from the local registry's copy).
    archive = workdir / "vllm-ascend-v0.23.0-310p.tar"
    local_ref = "%s/ascend/vllm-ascend:v0.23.0-310p" % info["registry_local"]
    for cmd in (["docker", "pull", "-q", local_ref], ["docker", "tag", local_ref, PUBLIC_REF],
                ["docker", "save", "-o", str(archive), PUBLIC_REF], ["docker", "rmi", PUBLIC_REF]):
        res = subprocess.run(cmd, capture_output=True, text=True, check=False)
        assert res.returncode == 0, (cmd, res.stderr)
    stage_weights()
    # No network at all from here on: no registry, no hub.
    res = subprocess.run(["docker", "network", "disconnect", sim.NETWORK, "ascend-sim-" + NODE],
                         capture_output=True, text=True, check=False)
    assert res.returncode == 0, res.stderr
    yield Site(registry, workdir, archive)
    sim.down([NODE])


def test_the_node_reaches_no_registry(site):
    probe = ("import urllib.request\n"
             "urllib.request.urlopen('http://%s/v2/', timeout=5)\n" % site.registry)
    res = sim.exec_node(NODE, ["python3", "-c", probe], timeout=30)
    assert res.returncode != 0 and ("unreachable" in res.stderr or "timed out" in res.stderr
                                    or "Errno" in res.stderr), res.stderr
    assert not any("vllm-ascend" in image for image in node_images())


def test_a_model_id_is_refused_on_the_controller(site):
    before = node_images()
    proc, recap = site.run(vllm_serve_model_path=None)
    assert proc.returncode != 0
    assert re.search(r'vllm_serve_model_path="Qwen/Qwen3\.5-2B": ascend_vllm_offline is true: the node reaches no '
                     r"model hub", proc.stdout), proc.stdout[-5000:]
    assert "PLAY [Deploy" not in proc.stdout
    assert recap[NODE]["changed"] == 0, recap
    assert node_images() == before


def test_no_tarball_is_refused_once_the_node_is_read(site):
    before = node_images()
    proc, recap = site.run(image_pull_archive=None)
    assert proc.returncode != 0
    assert re.search(r"ascend_vllm_offline=true: the image \S+vllm-ascend:v0\.23\.0-310p is not on the node, and "
                     r"with no registry in reach nothing can pull it", proc.stdout), proc.stdout[-5000:]
    assert "docker save" in proc.stdout
    assert "PLAY [Deploy" not in proc.stdout
    assert recap[NODE]["changed"] == 0, recap
    assert node_images() == before


def test_the_site_deploys_from_the_tarball_and_the_staged_weights(site):
    proc, recap = site.run(image_pull_poll_interval=1)
    assert proc.returncode == 0, proc.stdout[-6000:]
    # docker load ran as a job whose progress was asked each second: any line printed names the bytes sent.
    lines = re.findall(r"^\[%s\] loading /var/tmp/ascend-vllm/%s: .*$" % (NODE, re.escape(site.archive.name)),
                       proc.stderr, re.M)
    print("load progress lines:", lines)
    assert all(re.search(r": (\S+ \S+ of \S+ \S+ sent to the Docker Engine \(\d+%\)|all \S+ \S+ sent; the Docker "
                         r"Engine registers its layers|the archive is not being read)", line) for line in lines), lines
    # Its copy from the controller was watched each second: any line printed names the bytes read so far.
    copies = re.findall(r"^\[%s\] copying %s to the node as /var/tmp/ascend-vllm/%s: .*$"
                        % (NODE, re.escape(str(site.archive)), re.escape(site.archive.name)), proc.stderr, re.M)
    print("copy progress lines:", copies)
    assert all(re.search(r": (\S+ \S+ of \S+ \S+ sent \(\d+%\)|all \S+ \S+ read; the node writes the last of it|no "
                         r"process has the archive open at an offset .*); \d+s elapsed$", line) for line in copies), copies
    assert recap[NODE]["failed"] == 0, recap
    assert "image %s: loaded from %s" % (PUBLIC_REF, site.archive) in proc.stdout, proc.stdout[-6000:]
    assert PUBLIC_REF in node_images()
    info = managed_container(NODE)
    assert info["State"]["Running"]
    assert info["Config"]["Image"] == PUBLIC_REF
    assert info["Config"]["Cmd"][:3] == ["vllm", "serve", WEIGHTS]
    env = dict(item.split("=", 1) for item in info["Config"]["Env"])
    assert env.get("HF_HUB_OFFLINE") == "1" and "VLLM_USE_MODELSCOPE" not in env
    mounts = {(m["Source"], m["Target"], m.get("ReadOnly", False)) for m in info["HostConfig"]["Mounts"]}
    assert ("/data/models", "/data/models", True) in mounts or (WEIGHTS, WEIGHTS, True) in mounts, mounts
    # Readiness and the guide's two smoke tests passed: the summary says so, and it answers.
    assert re.search(r"default: Qwen/Qwen3\.5-2B as qwen3\.5 in vllm-ascend on chips 0,\s+port 8080: ready",
                     proc.stdout), proc.stdout[-3000:]
    script = ("import json, urllib.request\n"
              "req = urllib.request.Request('http://127.0.0.1:8080/v1/completions', method='POST',\n"
              "    data=json.dumps({'model': 'qwen3.5', 'prompt': 'The future of AI is', 'max_tokens': 8}).encode(),\n"
              "    headers={'Content-Type': 'application/json'})\n"
              "print(urllib.request.urlopen(req, timeout=30).status)\n")
    res = sim.exec_node(NODE, ["python3", "-c", script], timeout=60)
    assert res.stdout.strip() == "200", res.stdout + res.stderr


def test_a_rerun_changes_nothing_and_pulls_nothing(site):
    proc, recap = site.run()
    assert proc.returncode == 0, proc.stdout[-6000:]
    assert recap[NODE]["changed"] == 0, recap
