"""Rolling upgrade (issue 12 item 2) on three simulated Atlas 300I DUO nodes, the real playbooks.

upg1 and upg2 each serve one model from two instances (one per chip) behind the host's
balancer; upg3 serves it from a single instance (no balancer). While a client on each of
upg1 and upg2 keeps sending completions to its own balancer (127.0.0.1:8000 on the node,
bounded in count and time):
- the fleet first runs the oldest release record's image (contracts/releases.py), then
  playbooks/upgrade.yml moves it to the newest record's image (its own tag, container line and
  environment; an environment variable changes too): 0 failed requests, every instance on the
  new image and spec, nothing kept behind; upg3 says it could not upgrade without downtime and
  how long the gap was;
- then a spec whose vLLM crashes on start: the first instance is rolled back (the same
  container serves again), the run fails naming it and the cause, 0 failed requests, and
  nothing else (the other instance of upg1, upg2, upg3) was touched.
"""
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "sim"))
import sim  # noqa: E402  pylint: disable=wrong-import-position

# ASCEND_E2E_PREFIX keeps the nodes apart from other runs on the same engine.
BASE = (os.environ["ASCEND_E2E_PREFIX"] + "-" if os.environ.get("ASCEND_E2E_PREFIX") else "") + "upg"
PAIRS = [BASE + "1", BASE + "2"]
SINGLE = BASE + "3"
NODES = PAIRS + [SINGLE]
MANAGED = "label=ascend.vllm.managed-by=ascend.vllm"
# The upgrade across releases: from the oldest record to the newest (both built as test images by tests/sim).
OLDEST, NEWEST = sim.RELEASES.names()[0], sim.RELEASES.names()[-1]
CRASH = "RuntimeError: rolling-test refuses to start"
STOP = "/tmp/upg-client-stop"
# Two threads of completions to the balancer until STOP exists (at most SECONDS, at most
# COUNT requests); prints {status or error name: count}.
CLIENT = r'''
import json, os, sys, threading, time, urllib.request as u, urllib.error as e
url, count, seconds, stop_file = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
body = json.dumps({"model": "qwen3.5", "prompt": "The future of AI is", "max_tokens": 4}).encode()
codes, lock, end, sent = {}, threading.Lock(), time.time() + seconds, [0]
def one():
    try:
        return str(u.urlopen(u.Request(url, data=body, headers={"Content-Type": "application/json"}), timeout=60).status)
    except e.HTTPError as err:
        return str(err.code)
    except Exception as err:
        return type(err).__name__
def loop():
    while time.time() < end and not os.path.exists(stop_file):
        with lock:
            if sent[0] >= count:
                return
            sent[0] += 1
        code = one()
        with lock:
            codes[code] = codes.get(code, 0) + 1
        time.sleep(0.05)
threads = [threading.Thread(target=loop) for _ in range(2)]
[t.start() for t in threads]
[t.join() for t in threads]
print(json.dumps(codes))
'''


class Fleet:
    def __init__(self, registry, workdir):
        self.registry = registry
        self.workdir = workdir
        self.env = {}
        self.tag = OLDEST

    def inventory(self):
        hosts = {}
        for node in NODES:
            hosts[node] = dict(ansible_connection="community.docker.docker", ansible_host="ascend-sim-" + node,
                               ansible_python_interpreter="/usr/bin/python3", vllm_serve_env=dict(self.env))
            if node in PAIRS:
                hosts[node]["ascend_vllm_instances"] = [{"name": "a"}, {"name": "b"}]
        inv = {"all": {"vars": {"image_pull_registries": [self.registry], "balancer_registries": [self.registry],
                                "image_pull_tag": self.tag,
                                "vllm_serve_ready_poll_interval": 1, "vllm_serve_ready_timeout": 90},
                       "children": {"atlas_300i_duo": {"hosts": hosts}}}}
        path = self.workdir / "inventory.yml"
        path.write_text(yaml.safe_dump(inv))
        return path

    def playbook(self, name):
        """The run, its output with the callback's line wrapping undone (messages are matched whole)."""
        env = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"), ANSIBLE_FORCE_COLOR="0")
        proc = subprocess.run(
            [str(Path(sys.executable).parent / "ansible-playbook"), name, "-i", str(self.inventory())],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200, check=False)
        (self.workdir / (Path(name).stem + ".log")).write_text(proc.stdout)
        proc.stdout = " ".join(proc.stdout.split())
        return proc

    @staticmethod
    def containers(node):
        """{name: (id, state, env)} of every container of ours on the node."""
        return dict((name, found[:3]) for name, found in Fleet.inspected(node).items())

    @staticmethod
    def inspected(node):
        """{name: (id, state, env, image)} of every container of ours on the node."""
        out = {}
        for cid in sim.exec_node(node, ["docker", "ps", "-aq", "--filter", MANAGED]).stdout.split():
            info = json.loads(sim.exec_node(node, ["docker", "inspect", cid]).stdout)[0]
            out[info["Name"].lstrip("/")] = (info["Id"], info["State"]["Status"], sorted(info["Config"]["Env"] or []),
                                             info["Config"]["Image"])
        return out


class Clients:
    """One bounded client per balancer, started before and stopped after a run."""

    def __init__(self, seconds=900, count=20000):
        for node in PAIRS:
            sim.exec_node(node, ["rm", "-f", STOP])
        self.procs = {node: subprocess.Popen(
            ["docker", "exec", "ascend-sim-" + node, "python3", "-c", CLIENT, "http://127.0.0.1:8000/v1/completions",
             str(count), str(seconds), STOP], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for node in PAIRS}
        time.sleep(2)

    def stop(self):
        time.sleep(2)
        for node in PAIRS:
            sim.exec_node(node, ["touch", STOP])
        counts = {}
        for node, proc in self.procs.items():
            out, err = proc.communicate(timeout=120)
            assert proc.returncode == 0, err
            counts[node] = json.loads(out)
        print("requests per node (status: count):", json.dumps(counts, sort_keys=True))
        return counts


def _failed(counts):
    return {node: {code: n for code, n in codes.items() if code != "200"} for node, codes in counts.items()}


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    if not sim.docker_ok():
        pytest.skip("no Docker Engine answers")
    info = sim.up([sim.NodeSpec.parse(node + ":atlas_300i_duo") for node in NODES],
                  inventory=tmp_path_factory.mktemp("sim") / "sim.yml")
    fleet = Fleet(info["registry"], tmp_path_factory.mktemp("upgrade"))
    first = fleet.playbook("site.yml")
    assert first.returncode == 0, first.stdout[-5000:]
    yield fleet
    sim.down(NODES)


def test_an_upgrade_drops_no_request_and_puts_every_instance_on_the_new_spec(fleet):
    before = {node: fleet.containers(node) for node in NODES}
    for node in NODES:
        assert all(image.endswith(":%s-310p" % OLDEST) for name, (_i, _s, _e, image) in fleet.inspected(node).items()
                   if name != "vllm-balancer"), (node, fleet.inspected(node))
    fleet.env = {"UPGRADE_TEST": "2"}
    fleet.tag = NEWEST
    clients = Clients()
    proc = fleet.playbook("playbooks/upgrade.yml")
    counts = clients.stop()
    assert proc.returncode == 0, proc.stdout[-6000:]
    assert _failed(counts) == {node: {} for node in PAIRS}, counts
    assert all(counts[node].get("200", 0) >= 20 for node in PAIRS), counts
    for node in NODES:
        after = fleet.containers(node)
        assert sorted(after) == sorted(before[node]), (node, after)
        for name, (cid, state, env) in after.items():
            if name == "vllm-balancer":
                assert state == "running" and cid == before[node][name][0], (node, "the balancer stays")
                continue
            assert state == "running" and "UPGRADE_TEST=2" in env and cid != before[node][name][0], (node, name)
            assert fleet.inspected(node)[name][3].endswith(":%s-310p" % NEWEST), (node, name, "on the newest release")
    for node in PAIRS:
        assert "vllm-ascend-a on %s upgraded; back in the balancer" % node in proc.stdout
        assert "vllm-ascend-b on %s upgraded; back in the balancer" % node in proc.stdout
    gap = re.search(r"vllm-ascend on %s cannot be upgraded without downtime \((.*?)\): it did not serve for up to "
                    r"([0-9.]+) s" % SINGLE, proc.stdout)
    assert gap, proc.stdout[-6000:]
    print("single-instance gap on %s: %s s (%s)" % (SINGLE, gap.group(2), gap.group(1)))
    # Host by host: upg1 was done before upg2 began.
    first, second = PAIRS
    assert (proc.stdout.index("vllm-ascend-b on %s upgraded" % first)
            < proc.stdout.index("vllm-ascend-a on %s upgraded" % second)
            < proc.stdout.index("vllm-ascend-b on %s upgraded" % second))


def test_a_crashing_spec_is_rolled_back_with_no_failed_request_and_nothing_else_touched(fleet):
    before = {node: fleet.containers(node) for node in NODES}
    fleet.env = {"UPGRADE_TEST": "3", "VLLM_SIM_CRASH": CRASH}
    clients = Clients()
    proc = fleet.playbook("playbooks/upgrade.yml")
    counts = clients.stop()
    out = proc.stdout
    assert proc.returncode != 0
    assert _failed(counts) == {node: {} for node in PAIRS}, counts
    assert all(counts[node].get("200", 0) >= 10 for node in PAIRS), counts
    assert out.count(CRASH) >= 2, out[-6000:]
    assert "Show the last log lines of the container" in out
    assert re.search(r"Rolling upgrade stopped at vllm-ascend-a on %s: .*%s" % (PAIRS[0], re.escape(CRASH)), out), \
        out[-6000:]
    assert ("Rolled back: the previous container serves again and is back in the balancer. "
            "Not upgraded (untouched): b and the hosts after %s." % PAIRS[0]) in out
    # The same containers everywhere (the restored one too): nothing else was touched.
    assert {node: fleet.containers(node) for node in NODES} == before
    # Still answering through the balancer after the run.
    again = Clients(seconds=5, count=20)
    counts = again.stop()
    assert _failed(counts) == {node: {} for node in PAIRS} and all(counts[n].get("200") for n in PAIRS), counts
