"""Deploy-time benchmark on simulated Atlas nodes (tests/sim): one command, medians, both sides in one run.

    .venv/bin/python bench/deploy_bench.py [--runs 5] [--json tests/output/bench/deploy.json] [--tree DIR]
                                           [--load-seconds 1]

--tree measures the site.yml of another checkout of this repository (e.g. an older commit in
a `git worktree`, linked as the collection with scripts/setup-venv.sh) against the same naive
playbook, nodes and harness.

What it measures (every figure a median over --runs, the two sides of a ratio alternating
in the same loop so that machine load hits both alike):
- first deploy: `site.yml` on one node whose vLLM container is absent (the image is on the
  node), vs the naive three-task playbook bench/naive.yml (docker_container, wait, one request);
- first deploy with a pull: the same with the image removed from the node first, so that both
  pull it from the harness's registry (the naive playbook with docker_container's pull: missing);
- re-run: `site.yml` again with nothing changed, vs the first deploy;
- readiness noticed: from the stand-in's "Application startup complete." line to the play's
  first request for /v1/models (both from the container's log, Docker's timestamps);
- contact: bench/contact.yml (ansible-playbook and one ping of the node, the least a re-run that
  checks the node can cost) vs the first deploy, and the re-run vs it;
- rejection: `site.yml -e vllm_serve_dtype=bfloat16` vs an empty run (bench/empty.yml: a play
  with no task, ansible-playbook's own cost) and vs a first deploy; once more against an
  inventory whose host does not exist, to show whether the rejection contacted the host (it
  would end unreachable instead of naming the setting);
- fleet: a first deploy on 4 nodes vs 1 node, with the controller's CPU seconds (children
  of this process) and the nodes' CPU seconds (their cgroups, engines and containers).
A measurement, not a test: it prints the table and writes the JSON; docs/performance.md
quotes it.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "sim"))
import sim  # noqa: E402  pylint: disable=wrong-import-position

NODES = ["bench-n1", "bench-n2", "bench-n3", "bench-n4"]
PLAYBOOK = str(Path(sys.executable).parent / "ansible-playbook")
MARKER = "Application startup complete."


def inventory(path: Path, nodes: list[str], registry: str, exists: bool = True) -> Path:
    hosts = {}
    for name in nodes:
        hosts[name] = {"ansible_connection": "community.docker.docker",
                       "ansible_host": ("ascend-sim-" + name) if exists else "ascend-sim-bench-absent",
                       "ansible_python_interpreter": "/usr/bin/python3"}
    doc = {"all": {"vars": {"image_pull_registries": [registry], "vllm_serve_ready_timeout": 300},
                   "children": {"atlas_300i_duo": {"hosts": hosts}}}}
    path.write_text(yaml.safe_dump(doc))
    return path


TREE = ROOT  # the checkout whose site.yml is measured (--tree)


def run(playbook: str, inv: Path, *extra: str) -> dict:
    cwd = ROOT if playbook.startswith("bench/") else TREE
    env = dict(os.environ, ANSIBLE_CONFIG=str(cwd / "ansible.cfg"), ANSIBLE_FORCE_COLOR="0")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    proc = subprocess.run([PLAYBOOK, playbook, "-i", str(inv), *extra], cwd=cwd, env=env,
                          capture_output=True, text=True, check=False)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"rc": proc.returncode, "wall": wall, "cpu": cpu, "stdout": proc.stdout, "stderr": proc.stderr}


def remove_containers(nodes: list[str]) -> None:
    for name in nodes:
        sim.exec_node(name, ["sh", "-c", "docker rm -f $(docker ps -aq) >/dev/null 2>&1 || true"], check=True)


def remove_image(node: str) -> None:
    """The vllm-ascend image gone from the node, so that the next deploy pulls it (from the harness's registry)."""
    sim.exec_node(node, ["sh", "-c", "docker images --format '{{.Repository}}:{{.Tag}}' | grep vllm-ascend "
                                     "| xargs -r docker rmi -f >/dev/null"], check=True)


def node_cpu_seconds(nodes: list[str]) -> float:
    """CPU time of the nodes' containers and of the containers their engines run (cgroup v1 cpuacct)."""
    total = 0
    for name in nodes:
        cid = sim.docker("inspect", "--format", "{{.Id}}", "ascend-sim-" + name).stdout.strip()
        for rel in ("docker/" + cid, "ascend-sim/" + name):
            usage = Path("/sys/fs/cgroup/cpuacct") / rel / "cpuacct.usage"
            if usage.exists():
                total += int(usage.read_text().strip())
    return total / 1e9


def ready_latency(node: str) -> float | None:
    """Seconds from the server's "Application startup complete." to the play's first
    request for /v1/models (the first thing it asks once it knows the server is up), both
    read from the container's log with Docker's own timestamps."""
    logs = sim.exec_node(node, ["docker", "logs", "-t", "vllm-ascend"], check=True)
    marked = asked = None
    for line in (logs.stdout + logs.stderr).splitlines():
        stamp = line.split(" ", 1)[0]
        if marked is None and MARKER in line:
            marked = stamp
        elif marked is not None and "GET /v1/models" in line:
            asked = stamp
            break
    if not (marked and asked):
        return None

    def when(text: str) -> dt.datetime:
        return dt.datetime.fromisoformat(text[:26].rstrip("Z") + "+00:00")
    return (when(asked) - when(marked)).total_seconds()


def check(result: dict, what: str) -> None:
    if result["rc"] != 0:
        tail = (result["stdout"] + result["stderr"])[-3000:]
        raise SystemExit("bench: %s failed (rc %d):\n%s" % (what, result["rc"], tail))


def med(values: list[float]) -> float:
    return round(statistics.median(values), 2)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", default=str(ROOT / "tests" / "output" / "bench" / "deploy.json"))
    parser.add_argument("--tree", default=str(ROOT), help="checkout whose site.yml is measured")
    parser.add_argument("--load-seconds", type=float, default=1.0,
                        help="seconds the stand-in vllm 'loads weights' (harness default 1; a real model takes minutes)")
    args = parser.parse_args()
    global TREE  # pylint: disable=global-statement
    TREE = Path(args.tree).resolve()

    up = sim.up([sim.NodeSpec.parse("%s:atlas_300i_duo" % name) for name in NODES])
    registry = up["registry"]
    for name in NODES:
        sim.fault(name, ["clear"] if args.load_seconds == 1.0 else ["load_seconds=%g" % args.load_seconds])
    work = Path(tempfile.mkdtemp(prefix="deploy-bench-"))
    one = inventory(work / "one.yml", NODES[:1], registry)
    four = inventory(work / "four.yml", NODES, registry)
    absent = inventory(work / "absent.yml", NODES[:1], registry, exists=False)

    # Warm-up: the image on every node, the collection's caches on the controller.
    check(run("site.yml", four), "warm-up deploy")
    samples: dict[str, list[float]] = {k: [] for k in (
        "naive", "first", "pull_naive", "pull_first", "rerun", "ready", "reject", "empty", "contact", "fleet4", "fleet1",
        "fleet4_ctl_cpu", "fleet4_node_cpu", "fleet1_ctl_cpu", "fleet1_node_cpu")}
    node = NODES[0]
    for i in range(args.runs):
        print("bench: round %d/%d" % (i + 1, args.runs), flush=True)
        remove_containers([node])
        naive = run("bench/naive.yml", one)
        check(naive, "naive playbook")
        samples["naive"].append(naive["wall"])
        remove_containers([node])
        first = run("site.yml", one)
        check(first, "first deploy")
        samples["first"].append(first["wall"])
        latency = ready_latency(node)
        if latency is not None:
            samples["ready"].append(latency)
        # A first deploy that pulls the image, against the naive playbook pulling it too (pull: missing).
        for label, playbook in (("pull_naive", "bench/naive.yml"), ("pull_first", "site.yml")):
            remove_containers([node])
            remove_image(node)
            pulled = run(playbook, one)
            check(pulled, label)
            samples[label].append(pulled["wall"])
        rerun = run("site.yml", one)
        check(rerun, "re-run")
        samples["rerun"].append(rerun["wall"])
        reject = run("site.yml", one, "-e", "vllm_serve_dtype=bfloat16")
        if reject["rc"] == 0 or "vllm_serve_dtype" not in reject["stdout"] + reject["stderr"]:
            raise SystemExit("bench: the rejection did not name vllm_serve_dtype:\n"
                             + (reject["stdout"] + reject["stderr"])[-3000:])
        samples["reject"].append(reject["wall"])
        empty = run("bench/empty.yml", one)
        check(empty, "empty run")
        samples["empty"].append(empty["wall"])
        contact = run("bench/contact.yml", one)
        check(contact, "contact run")
        samples["contact"].append(contact["wall"])
        for label, nodes, inv in (("fleet4", NODES, four), ("fleet1", NODES[:1], one)):
            remove_containers(nodes)
            cpu0 = node_cpu_seconds(nodes)
            fleet = run("site.yml", inv)
            check(fleet, label)
            samples[label].append(fleet["wall"])
            samples[label + "_ctl_cpu"].append(fleet["cpu"])
            samples[label + "_node_cpu"].append(node_cpu_seconds(nodes) - cpu0)

    # The same rejection against a host that does not exist: a run that contacted it would
    # end unreachable instead of naming the setting.
    blind = run("site.yml", absent, "-e", "vllm_serve_dtype=bfloat16")
    text = blind["stdout"] + blind["stderr"]
    contacted = "unreachable=1" in text or "vllm_serve_dtype" not in text
    m = {k: med(v) if v else None for k, v in samples.items()}
    table = [
        ("first deploy / naive playbook", m["first"], m["naive"], round(m["first"] / m["naive"], 2), "<= 1.5"),
        ("first deploy with a pull / naive playbook with a pull", m["pull_first"], m["pull_naive"],
         round(m["pull_first"] / m["pull_naive"], 2), "<= 1.3"),
        ("no-change re-run / first deploy", m["rerun"], m["first"], round(m["rerun"] / m["first"], 2), "<= 0.3"),
        ("one contact (ping) / first deploy", m["contact"], m["first"], round(m["contact"] / m["first"], 2), "-"),
        ("no-change re-run / one contact (ping)", m["rerun"], m["contact"], round(m["rerun"] / m["contact"], 2), "-"),
        ("rejection (bfloat16) / an empty run", m["reject"], m["empty"], round(m["reject"] / m["empty"], 2), "<= 2"),
        ("rejection (bfloat16) / first deploy", m["reject"], m["first"], round(m["reject"] / m["first"], 2), "-"),
        ("readiness noticed after the server is ready (s)", m["ready"], None, None, "<= 1"),
        ("4 nodes / 1 node (first deploy)", m["fleet4"], m["fleet1"], round(m["fleet4"] / m["fleet1"], 2), "<= 1.6"),
    ]
    print("\n| measure | value (s) | against (s) | ratio | target |\n|---|---|---|---|---|")
    for row in table:
        print("| %s | %s | %s | %s | %s |" % tuple("-" if v is None else v for v in row))
    print("\nrejection contacted the host: %s" % ("yes" if contacted else "no"))
    print("\n| fleet | wall (s) | controller CPU (s) | nodes CPU (s) |\n|---|---|---|---|")
    for label in ("fleet1", "fleet4"):
        print("| %s | %s | %s | %s |" % (label, m[label], m[label + "_ctl_cpu"], m[label + "_node_cpu"]))
    out_path = Path(args.json)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(json.dumps({"runs": args.runs, "tree": str(TREE), "load_seconds": args.load_seconds, "medians": m, "samples": samples,
                                    "rejection_contacted_host": contacted,
                                    "machine": {"cpus": os.cpu_count()}}, indent=2))
    print("\nbench: samples in %s; remove the nodes with: tests/sim/simctl down %s" % (out_path, " ".join(NODES)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
