"""IPv6 publish addresses and an inventory that also holds other services, on one simulated node.

- The node has IPv6 (``ipv6=1``: loopback ::1 and a link-local address). ``site.yml`` publishes
  the instance on ``::1``, then on ``::`` (every IPv6 address of the node): each deploy passes,
  Docker maps the port on that address, and a completion answers at ``[::1]``.
- The inventory also holds a Prometheus server and a jump host (addresses nobody answers at):
  the collection's plays never target them, so the run neither waits for nor reports them.
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

NODE = os.environ.get("ASCEND_E2E_PREFIX", "e2e") + "-v6"
RECAP = re.compile(r"^(\S+)\s+: ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)", re.M)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    if not sim.docker_ok():
        pytest.skip("no Docker Engine answers")
    info = sim.up([sim.NodeSpec.parse("%s:atlas_300i_duo:ipv6=1" % NODE)],
                  inventory=tmp_path_factory.mktemp("sim") / "sim.yml")
    yield {"registry": info["registry"], "dir": tmp_path_factory.mktemp("e2e")}
    sim.down([NODE])


def run(site, **host_vars):
    node = {"ansible_connection": "community.docker.docker", "ansible_host": "ascend-sim-" + NODE,
            "ansible_python_interpreter": "/usr/bin/python3"}
    node.update(host_vars)
    inventory = {"all": {
        "vars": {"image_pull_registries": [site["registry"]], "vllm_serve_ready_poll_interval": 1,
                 "vllm_serve_ready_timeout": 180},
        "children": {
            "atlas_300i_duo": {"hosts": {NODE: node}},
            # Other services of the same site, as the metrics docs suggest: never contacted.
            "prometheus": {"hosts": {"prom-01": {"ansible_host": "192.0.2.99", "ansible_user": "root"}}},
            "jump": {"hosts": {"bastion": {"ansible_host": "192.0.2.98"}}},
        }}}
    path = site["dir"] / "inventory.yml"
    path.write_text(yaml.safe_dump(inventory))
    env = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"), ANSIBLE_FORCE_COLOR="0")
    proc = subprocess.run([str(Path(sys.executable).parent / "ansible-playbook"), "site.yml", "-i", str(path)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=900, check=False)
    recap = {m.group(1): int(m.group(5)) for m in RECAP.finditer(proc.stdout)}
    return proc, recap


def published():
    ids = sim.exec_node(NODE, ["docker", "ps", "-q", "--filter", "label=ascend.vllm.managed-by=ascend.vllm"]).stdout
    info = json.loads(sim.exec_node(NODE, ["docker", "inspect"] + ids.split()).stdout)
    return info[0]["HostConfig"]["PortBindings"]["8080/tcp"]


def completion_at(host):
    script = ("import json, urllib.request\n"
              "req = urllib.request.Request('http://%s:8080/v1/completions', method='POST',\n"
              "    data=json.dumps({'model': 'qwen3.5', 'prompt': 'The future of AI is', 'max_tokens': 8}).encode(),\n"
              "    headers={'Content-Type': 'application/json'})\n"
              "print(urllib.request.urlopen(req, timeout=30).status)\n" % host)
    return sim.exec_node(NODE, ["python3", "-c", script], timeout=60)


@pytest.mark.parametrize("address, extra", [
    ("::1", {}),
    ("::", {"vllm_serve_allow_unauthenticated": True}),
])
def test_an_ipv6_publish_address_deploys_and_answers(site, address, extra):
    proc, recap = run(site, vllm_serve_publish_address=address, **extra)
    assert proc.returncode == 0 and recap.get(NODE) == 0, proc.stdout[-5000:]
    assert published() == [{"HostIp": address, "HostPort": "8080"}]
    answer = completion_at("[::1]")
    assert answer.returncode == 0 and answer.stdout.strip() == "200", answer.stdout + answer.stderr
    # Only the collection's host is in the run: the other services are neither contacted nor listed.
    assert set(recap) <= {NODE, "localhost"}, recap
    assert "prom-01" not in proc.stdout and "bastion" not in proc.stdout
