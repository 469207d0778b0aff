"""Long waits read as progress at default verbosity (issue 19, item 4).

One simulated Atlas 300I DUO node (tests/sim) and the real site.yml, at default verbosity:
- the image comes through a slowed copy of the local registry (a TCP proxy on the bridge
  gateway that sends at most RATE bytes a second per connection), so the pull takes several
  seconds: the run prints pull lines with the layers and bytes the node's Docker Engine
  reports, the time spent and the time left;
- the stand-in vllm loads for LOAD seconds (fault knob load_seconds): the run prints lines
  with the time since the container's start, the time left and the newest log line;
- and never "FAILED - RETRYING", the wording of the until/retries loops these lines replace.
"""
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "sim"))
import sim  # noqa: E402  pylint: disable=wrong-import-position

NODE = "progress-duo"
LOAD = 20
RATE = 6_000_000


class SlowProxy:
    """host:port -> the registry, the registry's answers sent at most RATE bytes/s per connection."""

    def __init__(self, host, target_port):
        self.target = ("127.0.0.1", target_port)
        self.server = socket.create_server((host, 0))
        self.port = self.server.getsockname()[1]
        self.done = False
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while not self.done:
            try:
                client, _addr = self.server.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            threading.Thread(target=self.copy, args=(client, upstream, 0), daemon=True).start()
            threading.Thread(target=self.copy, args=(upstream, client, RATE), daemon=True).start()

    @staticmethod
    def copy(source, sink, rate):
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                sink.sendall(data)
                if rate:
                    time.sleep(len(data) / rate)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self):
        self.done = True
        self.server.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    if not sim.docker_ok():
        pytest.skip("no Docker Engine answers")
    info = sim.up([sim.NodeSpec.parse(NODE + ":atlas_300i_duo")], inventory=tmp_path_factory.mktemp("sim") / "sim.yml")
    proxy = SlowProxy(info["gateway"], int(info["registry_local"].rsplit(":", 1)[1]))
    slow = "%s:%d" % (info["gateway"], proxy.port)
    # The node's engine pulls over plain HTTP only from the registries it is told are insecure.
    config = json.loads(sim.exec_node(NODE, ["cat", "/etc/docker/daemon.json"], check=True).stdout)
    config["insecure-registries"] = sorted(set(config.get("insecure-registries", []) + [slow]))
    sim.exec_node(NODE, ["sh", "-c", "cat > /etc/docker/daemon.json && kill -HUP $(pidof dockerd)"],
                  check=True, input=json.dumps(config))
    sim.fault(NODE, ["load_seconds=%d" % LOAD])
    workdir = tmp_path_factory.mktemp("progress")
    yield {"registry": slow, "workdir": workdir}
    proxy.close()
    sim.down([NODE])


def test_default_output_reads_as_progress(site):
    host = {"ansible_connection": "community.docker.docker", "ansible_host": "ascend-sim-" + NODE,
            "ansible_python_interpreter": "/usr/bin/python3"}
    inv = {"all": {"vars": {"image_pull_registries": [site["registry"]], "image_pull_poll_interval": 1,
                            "vllm_serve_ready_poll_interval": 2, "vllm_serve_ready_timeout": 120},
                   "children": {"atlas_300i_duo": {"hosts": {NODE: host}}}}}
    path = site["workdir"] / "inventory.yml"
    path.write_text(yaml.safe_dump(inv))
    env = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"), ANSIBLE_FORCE_COLOR="0")
    start = time.monotonic()
    proc = subprocess.run([str(Path(sys.executable).parent / "ansible-playbook"), "site.yml", "-i", str(path)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=900, check=False)
    seconds = time.monotonic() - start
    out = proc.stdout + proc.stderr
    (site["workdir"] / "site.log").write_text(out)
    assert proc.returncode == 0, out[-5000:]
    assert "FAILED - RETRYING" not in out

    ref = re.escape("%s/ascend/vllm-ascend:v0.23.0-310p" % site["registry"])
    pulls = re.findall(r"^\[%s\] pulling %s: (\d+)/(\d+) layers done( \([^)]*\))?(?:, ([\d.]+) ([kMG]?B)(?: of [^;]*)? "
                       r"downloaded[^;]*)?; (\d+)s elapsed, timeout in 59m\d\ds$" % (NODE, ref), proc.stderr, re.M)
    assert len(pulls) >= 2, out[-5000:]
    # The Engine's figures: layer counts, and bytes that only grow; the time spent only grows.
    units = {"B": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9}
    got = [float(p[3]) * units[p[4]] for p in pulls if p[3]]
    assert len(got) >= 2 and got == sorted(got) and got[-1] > got[0], pulls
    assert all(int(p[1]) > 0 for p in pulls) and any("downloading" in p[2] for p in pulls), pulls
    assert [int(p[5]) for p in pulls] == sorted(int(p[5]) for p in pulls)

    loads = re.findall(r"^\[%s\] vllm-ascend is starting: (\d+)s since its start, timeout in 1m\d\ds; "
                       r"newest log line: (.+)$" % NODE, proc.stderr, re.M)
    assert len(loads) >= 2, out[-5000:]
    assert all(int(a) <= int(b) for (a, _x), (b, _y) in zip(loads, loads[1:])), loads
    # The stand-in's real startup lines, e.g. "Starting to load model ..." while it loads.
    assert all(line.strip() for _s, line in loads)
    print("site.yml took %.1f s; %d pull lines, %d load lines" % (seconds, len(pulls), len(loads)))
    print("\n".join(line for line in proc.stderr.splitlines() if line.startswith("[" + NODE)))
