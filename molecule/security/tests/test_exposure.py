"""Exposure is a decision: check it from outside the node, as a client on the network would.

fleetsec1 keeps the default (127.0.0.1): its instances and balancer answer on the
node and refuse connections to its network address. fleetsec2 is published on
every address with an API key: 401 without it, 200 with it, at each instance and
at the balancer, from another machine. A site.yml run at -vvv prints no key; no
file the collection writes (on the controller or the nodes) and nothing docker
inspect shows of the balancer holds it.
"""
import json
import os
import re
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(os.environ.get("MOLECULE_PROJECT_DIRECTORY", Path(__file__).resolve().parents[3]))
EPHEMERAL = Path(os.environ.get("MOLECULE_EPHEMERAL_DIRECTORY", "/nonexistent"))
PORTS = {"a": 8080, "b": 8081, "balancer": 8000}
NODE_PATHS = ["/root", "/home", "/tmp", "/var/tmp", "/etc", "/var/log", "/opt", "/srv", "/usr/local"]
BODY = json.dumps({"model": "qwen3.5", "prompt": "The future of AI is", "max_tokens": 4}).encode()


def key():
    return (EPHEMERAL / "api_key").read_text().strip()


def address(node):
    """The node's address on the harness network, as a client elsewhere reaches it."""
    out = subprocess.run(["docker", "inspect", "ascend-sim-" + node], capture_output=True, text=True, check=True)
    return [n["IPAddress"] for n in json.loads(out.stdout)[0]["NetworkSettings"]["Networks"].values()][0]


def post(url, token=None):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    try:
        return urllib.request.urlopen(urllib.request.Request(url, data=BODY, headers=headers), timeout=10).status
    except urllib.error.HTTPError as err:
        return err.code


@pytest.mark.parametrize("target", sorted(PORTS))
def test_loopback_by_default(target):
    with pytest.raises(urllib.error.URLError) as refused:
        post("http://%s:%d/v1/completions" % (address("fleetsec1"), PORTS[target]))
    assert isinstance(refused.value.reason, ConnectionRefusedError)


@pytest.mark.parametrize("target", sorted(PORTS))
def test_loopback_node_serves_on_the_node(target):
    script = ("import urllib.request as u,json;print(u.urlopen(u.Request('http://127.0.0.1:%d/v1/completions',"
              "data=json.dumps({'model':'qwen3.5','prompt':'x','max_tokens':2}).encode(),"
              "headers={'Content-Type':'application/json'})).status)" % PORTS[target])
    out = subprocess.run(["docker", "exec", "ascend-sim-fleetsec1", "python3", "-c", script],
                         capture_output=True, text=True, check=True).stdout
    assert out.strip() == "200"


@pytest.mark.parametrize("target", sorted(PORTS))
def test_exposed_node_asks_for_the_key(target):
    url = "http://%s:%d/v1/completions" % (address("fleetsec2"), PORTS[target])
    assert post(url) == 401
    assert post(url, "sk-wrong") == 401
    assert post(url, key()) == 200


def _node_files_with(node, secret):
    proc = subprocess.run(["docker", "exec", "ascend-sim-" + node, "sh", "-c",
                           "grep -rlF -- \"$1\" " + " ".join(NODE_PATHS) + " 2>/dev/null; true", "grep", secret],
                          capture_output=True, text=True, timeout=300, check=True)
    return proc.stdout.split()


def test_no_key_in_output_files_or_the_balancer(tmp_path):
    secret = key()
    # Not molecule's display settings: plain, unwrapped output.
    env = dict(((name, value) for name, value in os.environ.items() if not name.startswith("ANSIBLE_")),
               ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"), ANSIBLE_FORCE_COLOR="0", ANSIBLE_NOCOLOR="1",
               COLUMNS="1000")
    run = subprocess.run([str(Path(sys.executable).parent / "ansible-playbook"), "site.yml", "-vvv",
                          "-i", os.environ["MOLECULE_INVENTORY_FILE"]],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=900, check=False)
    assert run.returncode == 0, run.stdout[-3000:]
    assert re.search(r"ESTABLISH\s+DOCKER\s+CONNECTION", run.stdout)
    output = run.stdout + run.stderr
    assert secret not in output, output[max(0, output.find(secret) - 600):output.find(secret) + 100]
    # Not even across a wrapped line.
    assert secret not in re.sub(r"\s+", "", output)
    # The summary: the exposed balancer asks for the key; nothing is exposed without one.
    flat = re.sub(r"\s+", " ", output)
    assert "balancer: qwen3.5 at http://127.0.0.1:8000 across a, b" in flat
    assert "API key required" in flat and "UNAUTHENTICATED" not in flat
    for node in ("fleetsec1", "fleetsec2"):
        assert _node_files_with(node, secret) == []
    inspect = subprocess.run(["docker", "exec", "ascend-sim-fleetsec2", "docker", "inspect", "vllm-balancer"],
                             capture_output=True, text=True, check=True).stdout
    assert secret not in inspect and "VLLM_API_KEY" not in inspect
    # The instances carry it in their environment only (what vLLM reads), never in argv.
    for name in ("vllm-ascend-a", "vllm-ascend-b"):
        info = json.loads(subprocess.run(["docker", "exec", "ascend-sim-fleetsec2", "docker", "inspect", name],
                                         capture_output=True, text=True, check=True).stdout)[0]
        env_keys = [item.split("=", 1)[0] for item in info["Config"].pop("Env") if secret in item]
        assert env_keys == ["VLLM_API_KEY"] and secret not in json.dumps(info)
    # The controller: this checkout and Ansible's own directories; the scenario's key
    # file (the stand-in for a Vault file) is the one place it may be.
    sys.path.insert(0, str(ROOT / "tests" / "sim"))
    import sim  # noqa: E402  pylint: disable=import-outside-toplevel
    assert sim.files_holding(secret, (ROOT, Path.home() / ".ansible"), skip=[EPHEMERAL / "api_key"]) == []


@pytest.mark.parametrize("node", ["fleetsec1", "fleetsec2"])
def test_instances_get_only_their_chips_and_read_only_driver_files(node):
    """Atlas 300I DUO: not privileged, its own chip's device plus the manager devices, driver files read-only."""
    sys.path.insert(0, str(ROOT / ".ansible" / "collections"))
    from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.platforms import get_profile  # pylint: disable=import-outside-toplevel
    profile = get_profile("atlas_300i_duo")
    cache = os.path.normpath(profile["model_cache_mount"]["target"])
    for name, chip in (("vllm-ascend-a", 0), ("vllm-ascend-b", 1)):
        info = json.loads(subprocess.run(["docker", "exec", "ascend-sim-" + node, "docker", "inspect", name],
                                         capture_output=True, text=True, check=True).stdout)[0]
        hc = info["HostConfig"]
        assert hc["Privileged"] is False
        assert {d["PathOnHost"] for d in hc["Devices"]} == (
            {profile["chip_device_template"].format(index=chip)} | set(profile["manager_devices"]))
        writable = [m["Destination"] for m in info["Mounts"] if m["RW"]]
        assert writable == [cache], writable


def test_zz_balancer_serves_tls_with_the_operators_certificate(tmp_path):
    """TLS on the loopback node's balancer: a certificate made here, passed like a Vault file of extra vars."""
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=fleetsec1",
                    "-keyout", str(tmp_path / "tls.key"), "-out", str(tmp_path / "tls.crt")],
                   capture_output=True, check=True)
    extra = tmp_path / "tls.yml"
    extra.write_text(json.dumps({"balancer_tls_certificate": (tmp_path / "tls.crt").read_text(),
                                 "balancer_tls_key": (tmp_path / "tls.key").read_text()}))
    env = dict(((name, value) for name, value in os.environ.items() if not name.startswith("ANSIBLE_")),
               ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"), ANSIBLE_NOCOLOR="1")
    run = subprocess.run([str(Path(sys.executable).parent / "ansible-playbook"), "playbooks/deploy.yml",
                          "--tags", "balancer", "--limit", "fleetsec1", "-e", "@" + str(extra),
                          "-i", os.environ["MOLECULE_INVENTORY_FILE"]],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode == 0, run.stdout[-3000:]
    assert "BEGIN PRIVATE KEY" not in run.stdout
    script = ("import ssl,json,urllib.request as u;c=ssl.create_default_context(cafile='/tmp/fleet-tls.crt');"
              "c.check_hostname=False;print(u.urlopen(u.Request('https://127.0.0.1:8000/v1/completions',"
              "data=json.dumps({'model':'qwen3.5','prompt':'x','max_tokens':2}).encode(),"
              "headers={'Content-Type':'application/json'}),context=c,timeout=10).status)")
    subprocess.run(["docker", "cp", str(tmp_path / "tls.crt"), "ascend-sim-fleetsec1:/tmp/fleet-tls.crt"], check=True)
    try:
        out = subprocess.run(["docker", "exec", "ascend-sim-fleetsec1", "python3", "-c", script],
                             capture_output=True, text=True, check=False)
    finally:
        subprocess.run(["docker", "exec", "ascend-sim-fleetsec1", "rm", "-f", "/tmp/fleet-tls.crt"], check=True)
    assert out.stdout.strip() == "200", out.stderr[-2000:]
    pem = subprocess.run(["docker", "exec", "ascend-sim-fleetsec1", "stat", "-c", "%a %U",
                          "/etc/ascend-vllm/balancer/tls.pem"], capture_output=True, text=True, check=True)
    assert pem.stdout.split() == ["400", "root"]
