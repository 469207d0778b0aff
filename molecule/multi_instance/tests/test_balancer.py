"""Verify the balancer the way an operator would, from the node itself.

Four instances of one model (one per chip of a 2-card Atlas 300I DUO) behind the
host's HAProxy: requests spread over all four (each instance's own counter,
vllm:request_success_total of the stand-in's /metrics), an instance that stops is
marked down by the health check and no request fails, reloads drop no request, a
configuration HAProxy rejects never replaces the running one, the Prometheus
targets file lists every instance and the balancer, and teardown removes this
host's targets only.
"""
import json
import os
import re
import subprocess
import sys
import time

ROOT = os.environ.get("MOLECULE_PROJECT_DIRECTORY", os.path.join(os.path.dirname(__file__), "..", "..", ".."))
BALANCER = "vllm-balancer"
INSTANCES = {"a": 8080, "b": 8081, "c": 8082, "d": 8083}
URL = "http://127.0.0.1:8000/v1/completions"
SD_FILE = os.path.join(os.environ.get("MOLECULE_EPHEMERAL_DIRECTORY", "/nonexistent"), "file_sd.json")

# Sends COUNT completions (or keeps sending for SECONDS) and prints the status counts;
# with a command, runs it in between (a reload, a stop).
CLIENT = r'''
import json, subprocess, sys, threading, time, urllib.request as u, urllib.error as e
url, count, seconds, cmd = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), json.loads(sys.argv[4])
body = json.dumps({"model": "qwen3.5", "prompt": "The future of AI is", "max_tokens": 4}).encode()
codes, stop = {}, time.time() + seconds
def one():
    try:
        r = u.urlopen(u.Request(url, data=body, headers={"Content-Type": "application/json"}), timeout=30)
        return str(r.status)
    except e.HTTPError as err:
        return str(err.code)
    except Exception as err:
        return type(err).__name__
def loop():
    n = 0
    while n < count or time.time() < stop:
        code = one(); codes[code] = codes.get(code, 0) + 1; n += 1
t = threading.Thread(target=loop); t.start()
for c in cmd:
    time.sleep(0.4); subprocess.run(c, check=True, capture_output=True)
t.join()
print(json.dumps(codes))
'''


def _send(host, count, seconds=0.0, commands=()):
    out = host.check_output("python3 -c %s %s %s %s %s", CLIENT, URL, str(count), str(seconds),
                            json.dumps(list(commands)))
    return json.loads(out)


def _served(host, names=tuple(INSTANCES)):
    """vllm:request_success_total of the instances, from their own /metrics."""
    counts = {}
    for name in names:
        port = INSTANCES[name]
        text = host.check_output("python3 -c %s", "import urllib.request as u;print(u.urlopen("
                                 "'http://127.0.0.1:%d/metrics',timeout=10).read().decode())" % port)
        counts[name] = sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
                           if line.startswith("vllm:request_success_total"))
    return counts


def _wait_log(host, pattern, timeout=20):
    end = time.time() + timeout
    while time.time() < end:
        log = host.run("docker logs %s", BALANCER)
        if re.search(pattern, log.stdout + log.stderr):
            return True
        time.sleep(0.3)
    return False


def test_balancer_runs_unprivileged_on_the_host_network(host):
    info = json.loads(host.check_output("docker inspect %s", BALANCER))[0]
    hc = info["HostConfig"]
    assert info["State"]["Running"]
    assert hc["NetworkMode"] == "host" and hc["Privileged"] is False
    assert hc["CapDrop"] == ["ALL"] and hc["ReadonlyRootfs"] is True
    assert hc["Devices"] in (None, [])
    # The configuration read-only; the admin socket's directory (drains in a rolling upgrade) writable.
    assert sorted((m["Destination"], m["RW"]) for m in info["Mounts"]) == [
        ("/run/haproxy", True), ("/usr/local/etc/haproxy", False)]
    assert info["Config"]["Image"].endswith("library/haproxy:2.6")
    assert info["Config"]["Labels"]["ascend.vllm.managed-by"] == "ascend.vllm"


def test_requests_spread_over_every_instance(host):
    before = _served(host)
    codes = _send(host, 80)
    after = _served(host)
    assert codes == {"200": 80}
    spread = dict((name, after[name] - before[name]) for name in INSTANCES)
    assert sum(spread.values()) == 80
    assert all(count >= 10 for count in spread.values()), spread


def test_a_stopped_instance_is_marked_down_and_no_request_fails(host):
    try:
        host.check_output("docker stop -t 1 vllm-ascend-d")
        assert _wait_log(host, r"Server qwen3\.5/d is DOWN")
        before = _served(host, "abc")
        codes = _send(host, 60)
        after = _served(host, "abc")
        assert codes == {"200": 60}
        # All 60 went to the three that run.
        assert sum(after[name] - before[name] for name in "abc") == 60
    finally:
        host.check_output("docker start vllm-ascend-d")
    assert _wait_log(host, r"Server qwen3\.5/d is UP", timeout=60)


def test_reloads_drop_no_request(host):
    reload_cmd = ["docker", "kill", "--signal", "USR2", BALANCER]
    codes = _send(host, 0, seconds=3.0, commands=[reload_cmd] * 3)
    assert set(codes) == {"200"} and codes["200"] > 20, codes
    log = host.run("docker logs %s", BALANCER)
    assert (log.stdout + log.stderr).count("Reloading HAProxy") >= 3


def _playbook(playbook, *args):
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_FORCE_COLOR="0")
    return subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), playbook,
                           "-i", os.environ["MOLECULE_INVENTORY_FILE"], *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)


# PEM-shaped, so the collection's contract lets it through; HAProxy cannot load it. (A value
# outside a range the contracts know, such as balancer_health_interval=0, never gets this far.)
BAD_TLS = {"balancer_tls_certificate": "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
           "balancer_tls_key": "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"}


def test_a_configuration_haproxy_rejects_never_replaces_the_running_one(host):
    cfg = "/etc/ascend-vllm/balancer/haproxy.cfg"
    before = host.check_output("sha256sum %s", cfg)
    run = _playbook("playbooks/deploy.yml", "-e", json.dumps(BAD_TLS))
    assert run.returncode != 0
    assert "unable to load certificate" in run.stdout, run.stdout[-3000:]
    assert host.check_output("sha256sum %s", cfg) == before
    assert _send(host, 8) == {"200": 8}


def test_prometheus_targets_list_every_instance_and_the_balancer(host):
    with open(SD_FILE, encoding="utf-8") as handle:
        groups = json.load(handle)
    ours = [g for g in groups if g["labels"]["host"] == "fleetmi"]
    assert sorted((g["labels"]["component"], g["labels"]["instance"], g["targets"][0]) for g in ours) == [
        ("balancer", BALANCER, "127.0.0.1:8404")] + [("vllm", name, "127.0.0.1:%d" % port)
                                                     for name, port in sorted(INSTANCES.items())]
    assert all(g["labels"]["platform"] == "atlas_300i_duo" and g["labels"]["model"] == "Qwen/Qwen3.5-2B"
               for g in ours)
    # Each target answers /metrics on the node.
    for group in ours:
        host.check_output("python3 -c %s", "import urllib.request as u;u.urlopen('http://%s/metrics',timeout=10)"
                          % group["targets"][0])


def test_zz_teardown_removes_this_hosts_targets_and_the_balancer(host):
    with open(SD_FILE, encoding="utf-8") as handle:
        groups = [g for g in json.load(handle) if g["labels"]["host"] != "elsewhere"]
    other = {"targets": ["10.9.9.9:8080"], "labels": {"host": "elsewhere", "instance": "x", "component": "vllm"}}
    with open(SD_FILE, "w", encoding="utf-8") as handle:
        json.dump(groups + [other], handle)
    run = _playbook("playbooks/teardown.yml")
    assert run.returncode == 0, run.stdout[-3000:]
    with open(SD_FILE, encoding="utf-8") as handle:
        assert json.load(handle) == [other]
    assert host.run("docker inspect %s", BALANCER).rc != 0
    assert not host.file("/etc/ascend-vllm/balancer").exists
