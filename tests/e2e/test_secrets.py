"""The API key never shows: deploy, verify and teardown at -vvv with a random key.

One simulated Atlas 300I DUO node (tests/sim), the real site.yml, playbooks/verify.yml and
playbooks/teardown.yml, run at -vvv with ``vllm_serve_api_key`` (and, in the second
scenario, an instance's own ``api_key``) set to a fresh random value. Every byte of
stdout and stderr, every file the runs leave on the controller (the checkout, the
temporary directory, ~/.ansible) and on the node, and what ``docker inspect`` of the
container shows except the one place the server needs the key (Config.Env, the
environment variable VLLM_API_KEY), must not contain the key.

What this does not cover: the container's own environment is readable by whoever may
use the node's Docker socket (root and the docker group: ``docker inspect`` shows
Config.Env), and by root in /proc/PID/environ of the vLLM process; a non-root user
without Docker access sees neither (``ps`` shows the argv only, which carries no key).
The guide's own ``vllm serve ... --api-key KEY`` would put the key in that argv, readable
by every user of the node through ``ps`` and /proc/PID/cmdline; the collection never
passes it that way.
"""
import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "sim"))
import sim  # noqa: E402  pylint: disable=wrong-import-position

# ASCEND_E2E_PREFIX keeps the node apart from other runs on the same engine.
NODE = os.environ.get("SECRETS_NODE") or (
    (os.environ["ASCEND_E2E_PREFIX"] + "-" if os.environ.get("ASCEND_E2E_PREFIX") else "") + "secrets-duo")
PLAYBOOKS = ("site.yml", "playbooks/verify.yml", "playbooks/teardown.yml")
# Where Ansible (remote tmp, module files), the collection (model cache, archives) and
# logs write on the node.
NODE_PATHS = ["/root", "/home", "/tmp", "/var/tmp", "/etc", "/var/log", "/opt", "/srv", "/usr/local"]


def run(playbook, inventory, workdir):
    env = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"), ANSIBLE_FORCE_COLOR="0",
               ANSIBLE_LOCAL_TEMP=str(workdir / "ansible-local"), HOME=str(workdir / "home"))
    (workdir / "home").mkdir(exist_ok=True)
    proc = subprocess.run(
        [str(Path(sys.executable).parent / "ansible-playbook"), playbook, "-i", str(inventory), "-vvv"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=900, check=False)
    return proc


def node_files_with(key):
    """Files on the node that hold the key, under every directory Ansible, the collection or a user writes to.

    The engine's own state (/var/lib/docker, /run/containerd) holds the container's
    configuration with its Env, which the server needs; docker inspect covers it below.
    """
    proc = sim.exec_node(NODE, ["sh", "-c", "grep -rlF -- \"$1\" " + " ".join(NODE_PATHS) + " 2>/dev/null; true",
                                "grep", key], timeout=300)
    return proc.stdout.split()


def inspect_without_env(key):
    """docker inspect of every container of ours, minus Config.Env; the env entries that hold the key."""
    ids = sim.exec_node(NODE, ["docker", "ps", "-aq", "--filter", "label=ascend.vllm.managed-by=ascend.vllm"])
    shown, env_keys = [], []
    for cid in ids.stdout.split():
        info = json.loads(sim.exec_node(NODE, ["docker", "inspect", cid]).stdout)[0]
        env = info["Config"].pop("Env")
        env_keys += [item.split("=", 1)[0] for item in env if key in item]
        shown.append(json.dumps(info))
        shown.append(sim.exec_node(NODE, ["docker", "logs", cid]).stdout)
        shown.append(sim.exec_node(NODE, ["ps", "axww", "-o", "args"]).stdout)
    return "\n".join(shown), env_keys


@pytest.fixture(scope="module")
def node(tmp_path_factory):
    if not sim.docker_ok():
        pytest.skip("no Docker Engine answers")
    info = sim.up([sim.NodeSpec.parse(NODE + ":atlas_300i_duo")],
                  inventory=tmp_path_factory.mktemp("sim") / "sim.yml")
    yield info["registry"]
    sim.down([NODE])


SCENARIOS = {
    "role-variable": lambda key: {"vllm_serve_api_key": key},
    "instance-field": lambda key: {"ascend_vllm_instances": [
        {"name": "main", "chips": [0], "api_key": key},
        {"name": "other", "chips": [1], "port": 8090}], "vllm_serve_api_key": key + "-all"},
}


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_key_never_printed_or_written(node, tmp_path, scenario):
    key = "sk-" + secrets.token_hex(16)
    host = dict(ansible_connection="community.docker.docker", ansible_host="ascend-sim-" + NODE,
                ansible_python_interpreter="/usr/bin/python3", **SCENARIOS[scenario](key))
    inventory = tmp_path / "inventory.yml"
    inventory.write_text(yaml.safe_dump({"all": {
        "vars": {"image_pull_registries": [node], "vllm_serve_ready_poll_interval": 1,
                 "vllm_serve_ready_timeout": 120},
        "children": {"atlas_300i_duo": {"hosts": {NODE: host}}}}}))
    seen = {}
    for playbook in PLAYBOOKS:
        proc = run(playbook, inventory, tmp_path)
        assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
        # -vvv really was on, and the key was really used (the smoke tests authenticated).
        assert "ESTABLISH DOCKER CONNECTION" in proc.stdout
        seen[playbook] = proc.stdout + proc.stderr
        if playbook == "site.yml":
            shown, env_keys = inspect_without_env(key)
            assert set(env_keys) == {"VLLM_API_KEY"}
            assert key not in shown
            assert node_files_with(key) == []
    for playbook, output in seen.items():
        assert key not in output, "%s printed the key: ...%s..." % (
            playbook, output[max(0, output.find(key) - 600):output.find(key) + 100])
    inventory.write_text(inventory.read_text().replace(key, "removed"))
    assert sim.files_holding(key, [ROOT, tmp_path, Path(os.environ.get("HOME", "/root")) / ".ansible"]) == []
    assert node_files_with(key) == []
