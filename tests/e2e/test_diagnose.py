"""Diagnostics: playbooks/diagnose.yml and the saved log of a failed container.

One simulated Atlas 300I DUO node (tests/sim), the real site.yml and diagnose.yml, with an API
key and a token in the containers' environment:
- diagnose.yml writes ONE archive on the controller, in the directory asked for, named on its last
  line; it holds the node's npu-smi output byte for byte, the board query of every NPU id, the
  driver's version.info, the host plan with the instance's argv, docker inspect and the log lines of
  our container, and neither secret anywhere (in the archive or in Ansible's output);
- a change whose container crashes on start fails the run with a message naming the file on the
  node where its whole log was saved (more lines than the message shows, secrets removed, mode 0600),
  although the container itself is removed when the kept one is restored; the next diagnose.yml
  carries that file.
"""
import json
import os
import re
import secrets
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "sim"))
import sim  # noqa: E402  pylint: disable=wrong-import-position

# ASCEND_E2E_PREFIX keeps the nodes apart from other runs on the same engine.
_PREFIX = os.environ["ASCEND_E2E_PREFIX"] + "-" if os.environ.get("ASCEND_E2E_PREFIX") else ""
NODE = _PREFIX + "diag-duo"
GONE = _PREFIX + "diag-gone"
NAME = "vllm-ascend"
CRASH = "RuntimeError: diag-test refuses to start"
API_KEY = "sk-diag-" + secrets.token_hex(12)
TOKEN = "hf_" + secrets.token_hex(12)
ARCHIVE_LINE = re.compile(r"Diagnostics of 1 host\(s\) \((\d+) files, secrets\s+removed\): (\S+\.tar\.gz)")
SAVED = re.compile(r"Its whole log is saved on %s at (/var/log/ascend-vllm/%s-\d{8}T\d{6}Z(?:-\d+)?\.log)\." % (NODE, NAME))


class Node:
    def __init__(self, registry, workdir):
        self.registry = registry
        self.workdir = workdir
        self.host_vars = {"vllm_serve_api_key": API_KEY, "vllm_serve_env": {"HF_TOKEN": TOKEN}}

    def inventory(self, gone=False):
        host = dict(ansible_connection="community.docker.docker", ansible_host="ascend-sim-" + NODE,
                    ansible_python_interpreter="/usr/bin/python3", **self.host_vars)
        inv = {"all": {"vars": {"image_pull_registries": [self.registry],
                                "vllm_serve_ready_poll_interval": 1,
                                "vllm_serve_ready_timeout": 60,
                                "vllm_serve_log_lines": 5},
                       "children": {"atlas_300i_duo": {"hosts": {NODE: host}}}}}
        if gone:
            # A node that does not answer (no such container): left out of the archive, and named.
            inv["all"]["children"]["atlas_200i_pro"] = {"hosts": {GONE: dict(
                ansible_connection="community.docker.docker", ansible_host="ascend-sim-" + GONE)}}
        path = self.workdir / "inventory.yml"
        path.write_text(yaml.safe_dump(inv))
        return path

    def playbook(self, name, *args, gone=False):
        env = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"), ANSIBLE_FORCE_COLOR="0")
        return subprocess.run(
            [str(Path(sys.executable).parent / "ansible-playbook"), name, "-i", str(self.inventory(gone)), *args],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=900, check=False)

    def diagnose(self, outdir, gone=False):
        proc = self.playbook("playbooks/diagnose.yml", "-e", "vllm_serve_diagnose_dir=%s" % outdir, gone=gone)
        # A host that does not answer fails the run (exit 4 for SSH's "unreachable", 2 for the docker
        # connection's "no such container"); the others' archive is written all the same.
        assert proc.returncode in ((2, 4) if gone else (0,)), proc.stdout[-4000:] + proc.stderr[-2000:]
        assert API_KEY not in proc.stdout + proc.stderr and TOKEN not in proc.stdout + proc.stderr
        found = ARCHIVE_LINE.search(proc.stdout)
        assert found, proc.stdout[-3000:]
        path = Path(found.group(2))
        assert path.parent == outdir and path.is_file()
        # ONE archive: the hosts' own archives and the staging directory are gone.
        assert list(outdir.iterdir()) == [path]
        with tarfile.open(path) as tar:
            files = {m.name.split("/", 1)[1]: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}
        assert len(files) == int(found.group(1))
        return files


def node_text(*cmd):
    res = sim.exec_node(NODE, list(cmd))
    assert res.returncode == 0, res.stderr
    return res.stdout


@pytest.fixture(scope="module")
def node(tmp_path_factory):
    if not sim.docker_ok():
        pytest.skip("no Docker Engine answers")
    info = sim.up([sim.NodeSpec.parse(NODE + ":atlas_300i_duo")], inventory=tmp_path_factory.mktemp("sim") / "sim.yml")
    node = Node(info["registry"], tmp_path_factory.mktemp("diag"))
    proc = node.playbook("site.yml")
    assert proc.returncode == 0, proc.stdout[-4000:]
    yield node
    sim.down([NODE])


def no_secret_in(files):
    leaks = sorted(name for name, data in files.items() if API_KEY.encode() in data or TOKEN.encode() in data)
    assert not leaks, leaks


def test_one_archive_with_the_node_the_plan_and_our_container_without_secrets(node, tmp_path):
    files = node.diagnose(tmp_path, gone=True)
    no_secret_in(files)
    host = "%s/" % NODE
    # npu-smi as the node prints it, and the board query of each NPU id it lists (NPU 2 on this node).
    assert files[host + "npu-smi/info.txt"].decode() == node_text("npu-smi", "info")
    assert files[host + "npu-smi/board-2.txt"].decode() == node_text("npu-smi", "info", "-t", "board", "-i", "2")
    assert files[host + "driver/version.info"].decode() == node_text("cat", "/usr/local/Ascend/driver/version.info")
    summary = json.loads(files[host + "summary.json"])
    assert summary["npu_ids"] == [2] and summary["containers"] == [NAME]
    assert summary["driver_version"] == node_text("sh", "-c", "sed -n 's/^Version=//p' "
                                                  "/usr/local/Ascend/driver/version.info").strip()
    # The plan the collection computes: the instance and its vllm serve command.
    plan = json.loads(files[host + "plan.json"])
    assert [i["name"] for i in plan["instances"]] == ["default"]
    assert "--served-model-name" in plan["configs"]["default"]["argv"]
    # docker inspect of the container, its environment redacted; its log lines.
    inspect = json.loads(files[host + "docker/%s.inspect.json" % NAME])
    env = dict(e.split("=", 1) for e in inspect["Config"]["Env"])
    assert env["VLLM_API_KEY"] == "<redacted>" and env["HF_TOKEN"] == "<redacted>"
    assert inspect["Config"]["Labels"]["ascend.vllm.managed-by"] == "ascend.vllm"
    assert "Application startup complete." in files[host + "logs/%s.log" % NAME].decode()
    assert json.loads(files["hosts.json"]) == {
        "collected": [NODE], "missing": {GONE: "unreachable, or a task failed before its archive was fetched"}}
    assert not [name for name in files if name.startswith(GONE + "/")]
    # What could not be read is listed, not a failure (the stand-in has no /var/log/npu).
    manifest = json.loads(files[host + "manifest.json"])
    assert {"file": None, "source": "/var/log/npu", "absent": True} in manifest


def test_a_failed_container_leaves_its_whole_log_where_the_message_says(node, tmp_path):
    node.host_vars["vllm_serve_env"] = {"HF_TOKEN": TOKEN, "VLLM_SIM_CRASH": CRASH}
    proc = node.playbook("site.yml")
    assert proc.returncode != 0
    assert API_KEY not in proc.stdout and TOKEN not in proc.stdout
    found = SAVED.search(" ".join(proc.stdout.split()))
    assert found, proc.stdout[-5000:]
    path = found.group(1)
    # The failed container is gone (the kept one was restored), its log is not.
    assert "It was removed and the previous container was restored" in proc.stdout
    saved = node_text("cat", path)
    assert CRASH in saved
    # The whole log, not the 5 lines the message shows: from vLLM's first line on, with Docker's timestamps.
    lines = saved.splitlines()
    assert len(lines) > 5 and "vLLM API server version" in saved
    assert re.match(r"^\d{4}-\d\d-\d\dT", lines[0]), lines[0]
    assert API_KEY not in saved and TOKEN not in saved
    assert node_text("stat", "-c", "%a", path).strip() == "600"
    # The next diagnose carries it.
    files = node.diagnose(tmp_path)
    no_secret_in(files)
    assert files["%s/files%s" % (NODE, path)].decode() == saved
