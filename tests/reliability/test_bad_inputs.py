"""The bad-input corpus (bad_inputs.yml), run for real against simulated Atlas nodes.

For every case: snapshot the node (containers with ids and states, images with ids,
volumes, networks, and every file under the paths the roles write), run the real
``ansible-playbook site.yml`` with an inventory that carries the case's host
variables, limited to that node, snapshot again, and check that

- the run failed (rc != 0);
- it failed in preflight: every task that ran belongs to the preflight play, none of
  the image/deploy task files (pull, archive, run, deploy, ready ...) ran, nothing
  reported a change, and the recap has changed=0 (read from the JSON callback);
- one line of the failure message names the variable and the offending value and, after
  its "Fix:", the fix (the house style of every preflight problem: "- [check] ... Fix: ...");
- the snapshot after is byte-for-byte the snapshot before.

The nodes (one per platform, ``bad-duo``, ``bad-pro``, ``bad-oe``) come up once per
module and deploy nothing; each node runs one case at a time, the three nodes in
parallel (``RELIABILITY_SERIAL=1`` runs one node after the other). A node whose state
changed is re-created before its next case. Results go to
tests/output/reliability/bad_inputs.json; ``tests/reliability/bad_inputs_report.py`` prints them
(``tests/reliability/report.py`` prints every reliability suite in one table).

``RELIABILITY_KEEP_NODES=1`` keeps the nodes after the run (faster iteration);
``RELIABILITY_NODE_SUFFIX=-dev`` runs on a second set of nodes (bad-duo-dev, ...),
``RELIABILITY_NODE_PREFIX=judge-`` on judge-bad-duo, ...
"""
from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
import yaml

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "tests" / "sim"))

import sim  # noqa: E402  (tests/sim on sys.path)

CORPUS = HERE / "bad_inputs.yml"
OUTPUT = REPO / "tests" / "output" / "reliability"
RESULTS = OUTPUT / "bad_inputs.json"
LOGS = OUTPUT / "logs"

# RELIABILITY_NODE_SUFFIX gives a second set of nodes (bad-duo-dev, ...) for a parallel run;
# RELIABILITY_NODE_PREFIX puts a name in front (judge-bad-duo, ...).
_PREFIX = os.environ.get("RELIABILITY_NODE_PREFIX", "")
_SUFFIX = os.environ.get("RELIABILITY_NODE_SUFFIX", "")
NODES = {
    "atlas_300i_duo": _PREFIX + "bad-duo" + _SUFFIX,
    "atlas_200i_pro": _PREFIX + "bad-pro" + _SUFFIX,
    "atlas_200i_pro_openeuler": _PREFIX + "bad-oe" + _SUFFIX,
}
# What each node carries before the corpus runs, so that "unchanged" covers more
# than an empty engine: a foreign image, a stopped foreign container, model files.
SEED_IMAGE_TAG = "v0.22.0-310p"
SEED_CONTAINER = "bad-input-sentinel"
SEED_FILE = "/root/.cache/modelscope/hub/sentinel.txt"

# Paths the roles write on a node (model cache, offline tarball directory) plus the
# simulated NPU state; a case's own path variables are added to these.
WATCHED_PATHS = ["/root/.cache", "/var/tmp/ascend-vllm", "/etc/ascend-sim"]
PATH_VARIABLES = ("vllm_serve_model_cache_dir", "image_pull_archive_dir", "vllm_serve_model_path")

PREFLIGHT_PLAY = "Preflight"
# Plays that may run before preflight stops: the controller-only host selection (playbooks/hosts.yml,
# add_host, contacts no node and changes nothing).
BEFORE_PREFLIGHT = ("Hosts",)
# Task files of the image and deploy phases: none of their tasks may run.
CHANGING_TASK_FILES = ("pull", "pull_attempt", "archive", "result", "run", "remove", "deploy",
                       "deploy_instance", "deploy_image", "deploy_source", "ready", "ready_instance", "verify", "teardown")
RUN_TIMEOUT = int(os.environ.get("RELIABILITY_RUN_TIMEOUT", "300"))


def load_cases() -> list[dict]:
    data = yaml.safe_load(CORPUS.read_text())
    return data["cases"]


CASES = load_cases()


# ------------------------------------------------------------------------ node state
SNAPSHOT_SCRIPT = r"""
set -u
echo '## containers'
docker ps -a --no-trunc --format '{{.ID}}\t{{.Names}}\t{{.Image}}\t{{.State}}\t{{.CreatedAt}}' | sort
echo '## images'
docker images -a --no-trunc --digests --format '{{.ID}}\t{{.Repository}}:{{.Tag}}\t{{.Digest}}\t{{.CreatedAt}}' | sort
echo '## volumes'
docker volume ls -q | sort
echo '## networks'
docker network ls --no-trunc --format '{{.ID}}\t{{.Name}}\t{{.Driver}}' | sort
for p in "$@"; do
  echo "## path $p"
  if [ -e "$p" ] || [ -L "$p" ]; then
    find "$p" -xdev -printf '%p\t%y\t%m\t%u:%g\t%s\t%T@\n' | sort
    find "$p" -xdev -type f -print0 | sort -z | xargs -0 -r sha256sum
  else
    echo absent
  fi
done
"""


def snapshot(node: str, paths: list[str]) -> str:
    proc = sim.exec_node(node, ["sh", "-c", SNAPSHOT_SCRIPT, "snapshot", *paths], timeout=60)
    if proc.returncode != 0:
        raise RuntimeError("snapshot of %s failed: %s" % (node, proc.stderr))
    return proc.stdout


def diff(before: str, after: str) -> list[str]:
    old, new = before.splitlines(), after.splitlines()
    return (["- " + line for line in old if line not in new]
            + ["+ " + line for line in new if line not in old])


def seed(node: str) -> None:
    """Give a fresh node a foreign image, a stopped container and a file in the model cache."""
    registry = "%s:%d" % (sim.gateway(), sim.registry_port())
    image = "%s/%s:%s" % (registry, sim.IMAGE_REPO, SEED_IMAGE_TAG)
    script = (
        "set -e; docker image inspect {img} >/dev/null 2>&1 || docker pull -q {img} >/dev/null; "
        "docker inspect {ctr} >/dev/null 2>&1 || docker create --name {ctr} {img} true >/dev/null; "
        "mkdir -p $(dirname {f}); [ -f {f} ] || echo 'weights of an earlier download' > {f}"
    ).format(img=image, ctr=SEED_CONTAINER, f=SEED_FILE)
    proc = sim.exec_node(node, ["sh", "-c", script], timeout=300)
    if proc.returncode != 0:
        raise RuntimeError("seeding %s failed: %s%s" % (node, proc.stdout, proc.stderr))


def bring_up(nodes: list[str], recreate: bool = False) -> dict:
    specs = [sim.NodeSpec(name, platform) for platform, name in NODES.items() if name in nodes]
    info = sim.up(specs, inventory=Path(tempfile.gettempdir()) / "bad-inputs-sim.yml", recreate=recreate)
    for name in nodes:
        seed(name)
    return info


# ------------------------------------------------------------------------- one case
def inventory(case: dict, node: str, platform: str, registry: str) -> dict:
    host = {
        "ansible_connection": "community.docker.docker",
        "ansible_host": sim.PREFIX + node,
        "ansible_python_interpreter": "/usr/bin/python3",
    }
    host.update(case.get("vars") or {})
    group = case.get("group", platform)
    inv = {"all": {"vars": {"image_pull_registries": [registry]}}}
    if group == "ungrouped":
        inv["all"]["hosts"] = {node: host}
    else:
        inv["all"]["children"] = {group: {"hosts": {node: host}}}
    return inv


def run_playbook(inv_path: Path, node: str, log_base: Path) -> dict:
    env = dict(os.environ)
    env.update({
        "ANSIBLE_CONFIG": str(REPO / "ansible.cfg"),
        "ANSIBLE_STDOUT_CALLBACK": "ansible.posix.json",
        "ANSIBLE_PIPELINING": "1",
        "ANSIBLE_NOCOLOR": "1",
        "ANSIBLE_RETRY_FILES_ENABLED": "0",
        "PATH": "%s:%s" % (REPO / ".venv" / "bin", env.get("PATH", "")),
    })
    cmd = [str(REPO / ".venv" / "bin" / "ansible-playbook"), "site.yml", "-i", str(inv_path), "--limit", node]
    start = time.time()
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=RUN_TIMEOUT)
        timed_out = False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        timed_out = True
    log_base.with_suffix(".json").write_text(out)
    log_base.with_suffix(".stderr").write_text(err)
    return {"rc": proc.returncode, "stdout": out, "stderr": err, "timed_out": timed_out,
            "seconds": round(time.time() - start, 1), "cmd": " ".join(cmd)}


def parse_json_output(text: str) -> dict | None:
    start = text.find("{")
    if start < 0:
        return None
    try:
        return json.loads(text[start:])
    except ValueError:
        return None


def _result_messages(result: dict) -> list[str]:
    msgs = []
    if result.get("msg"):
        msgs.append(str(result["msg"]))
    for err in result.get("argument_errors") or []:
        msgs.append(str(err))
    for sub in result.get("results") or []:
        if isinstance(sub, dict) and sub.get("failed") and sub.get("msg"):
            msgs.append(str(sub["msg"]))
    return msgs


def analyse(run: dict, node: str) -> dict:
    data = parse_json_output(run["stdout"])
    tasks, failed, messages = [], [], []
    stats = {}
    if data:
        stats = (data.get("stats") or {}).get(node, {})
        for play in data.get("plays", []):
            play_name = play["play"]["name"]
            for task in play.get("tasks", []):
                result = task.get("hosts", {}).get(node)
                if result is None:
                    continue
                status = ("failed" if result.get("failed") else "skipped" if result.get("skipped")
                          else "unreachable" if result.get("unreachable") else "ok")
                entry = {"play": play_name, "task": task["task"]["name"], "status": status,
                         "changed": bool(result.get("changed"))}
                tasks.append(entry)
                if status in ("failed", "unreachable") and not result.get("ignore_errors"):
                    failed.append(entry)
                    messages += _result_messages(result)
    # Errors that never reach a task result (syntax, undefined variables in play
    # keywords) only show on stderr.
    if not messages and run["stderr"].strip():
        messages.append(run["stderr"].strip())
    ran_changing = [t for t in tasks if t["status"] != "skipped"
                    and t["task"].split(" : ", 1)[-1].split(" | ", 1)[0].strip() in CHANGING_TASK_FILES]
    outside = [t for t in tasks if t["status"] != "skipped" and not t["play"].startswith(PREFLIGHT_PLAY)
               and not (t["play"].startswith(BEFORE_PREFLIGHT) and not t["changed"])]
    changed = [t for t in tasks if t["changed"]]
    in_preflight = bool(
        data and run["rc"] != 0 and not run["timed_out"] and failed
        and all(t["play"].startswith(PREFLIGHT_PLAY) for t in failed)
        and not ran_changing and not outside and not changed and stats.get("changed", 0) == 0)
    return {"tasks_run": len([t for t in tasks if t["status"] != "skipped"]),
            "failed_tasks": ["%s / %s" % (t["play"], t["task"]) for t in failed],
            "outside_preflight": ["%s / %s" % (t["play"], t["task"]) for t in outside + ran_changing][:20],
            "changed_tasks": [t["task"] for t in changed], "recap": stats,
            "caught_in_preflight": in_preflight, "message": "\n".join(messages)}


def message_line(message: str, expect: dict) -> str | None:
    """The first line naming the variable and the value, with the fix word after its "Fix:"."""
    variable, value, fix = str(expect["variable"]), str(expect["value"]), str(expect["fix"]).lower()
    for line in message.splitlines():
        head, sep, tail = line.partition("Fix:")
        if sep and variable in line and value in line and fix in tail.lower():
            return line.strip()
    return None


def run_case(case: dict, node: str, platform: str, registry: str, workdir: Path) -> dict:
    paths = list(WATCHED_PATHS)
    for name in PATH_VARIABLES:
        value = (case.get("vars") or {}).get(name)
        if isinstance(value, str) and value.startswith("/") and value not in paths:
            paths.append(value)
    inv_path = workdir / ("%s.yml" % case["id"])
    inv_path.write_text(yaml.safe_dump(inventory(case, node, platform, registry), sort_keys=False))
    before = snapshot(node, paths)
    run = run_playbook(inv_path, node, LOGS / case["id"])
    after = snapshot(node, paths)
    found = analyse(run, node)
    line = message_line(found["message"], case["expect"])
    changes = diff(before, after)
    return {
        "id": case["id"], "category": case.get("category", ""), "what": case.get("what", ""),
        "node": node, "platform": platform, "expect": case["expect"],
        "rc": run["rc"], "timed_out": run["timed_out"], "seconds": run["seconds"],
        "failed": run["rc"] != 0,
        "caught_in_preflight": found["caught_in_preflight"],
        "message_complete": line is not None,
        "message_line": line,
        "state_preserved": before == after,
        "state_diff": changes[:40],
        "failed_tasks": found["failed_tasks"], "outside_preflight": found["outside_preflight"],
        "changed_tasks": found["changed_tasks"], "recap": found["recap"], "tasks_run": found["tasks_run"],
        "message": found["message"][:4000],
        "inventory": inv_path.read_text(),
    }


# ----------------------------------------------------------------------- the runner
def _selected(session) -> list[dict]:
    wanted = set()
    for item in session.items:
        callspec = getattr(item, "callspec", None)
        if callspec and "case" in callspec.params and item.module.__name__ == __name__:
            wanted.add(callspec.params["case"]["id"])
    return [c for c in CASES if c["id"] in wanted] or list(CASES)


@pytest.fixture(scope="module")
def nodes():
    why = sim.why_unusable()
    if why:
        pytest.skip(why)
    # Fresh nodes: a run that was interrupted may have left something behind.
    info = bring_up(list(NODES.values()), recreate=os.environ.get("RELIABILITY_KEEP_NODES") != "1")
    yield info
    if os.environ.get("RELIABILITY_KEEP_NODES") != "1":
        sim.down(list(NODES.values()))


@pytest.fixture(scope="module")
def results(request, nodes, tmp_path_factory):
    cases = _selected(request.session)
    LOGS.mkdir(parents=True, exist_ok=True)
    workdir = tmp_path_factory.mktemp("bad-inputs")
    registry = nodes["registry"]
    serial = os.environ.get("RELIABILITY_SERIAL") == "1"
    # Cases pinned to a platform first, so no node idles at the end waiting for them.
    pending = sorted(cases, key=lambda c: c.get("platform", "any") == "any")
    lock = threading.Lock()
    out: dict[str, dict] = {}
    node_list = list(NODES.items())
    global_before = {name: snapshot(name, WATCHED_PATHS) for _platform, name in node_list}

    def take(platform: str, any_node: bool) -> dict | None:
        with lock:
            for index, case in enumerate(pending):
                wanted = case.get("platform", "any")
                if wanted == platform or (wanted == "any" and any_node):
                    return pending.pop(index)
        return None

    def worker(platform: str, name: str, errors: queue.Queue) -> None:
        while True:
            case = take(platform, True)
            if case is None:
                return
            try:
                result = run_case(case, name, platform, registry, workdir)
            except Exception as exc:  # noqa: BLE001 - recorded as the case's failure
                result = {"id": case["id"], "category": case.get("category", ""), "what": case.get("what", ""),
                          "node": name, "platform": platform, "expect": case["expect"], "error": repr(exc),
                          "failed": False, "caught_in_preflight": False, "message_complete": False,
                          "state_preserved": False, "seconds": 0}
            with lock:
                out[case["id"]] = result
            if not result.get("state_preserved"):
                # Put the node back to its seeded state for the next case.
                try:
                    bring_up([name], recreate=True)
                except Exception as exc:  # noqa: BLE001
                    errors.put("re-creating %s failed: %r" % (name, exc))
                    return

    errors: queue.Queue = queue.Queue()
    start = time.time()
    threads = [threading.Thread(target=worker, args=(platform, name, errors), daemon=True)
               for platform, name in node_list]
    for thread in threads:
        thread.start()
        if serial:
            thread.join()
    for thread in threads:
        thread.join()
    wall = time.time() - start
    global_after = {name: snapshot(name, WATCHED_PATHS) for _platform, name in node_list}
    ordered = [out[c["id"]] for c in cases if c["id"] in out]
    summary = {
        "cases": len(ordered),
        "failed": sum(1 for r in ordered if r.get("failed")),
        "caught_in_preflight": sum(1 for r in ordered if r.get("caught_in_preflight")),
        "message_complete": sum(1 for r in ordered if r.get("message_complete")),
        "state_preserved": sum(1 for r in ordered if r.get("state_preserved")),
        "passed": sum(1 for r in ordered if r.get("failed") and r.get("caught_in_preflight")
                      and r.get("message_complete") and r.get("state_preserved")),
        "wall_seconds": round(wall, 1),
        "parallel_nodes": 1 if serial else len(node_list),
        "nodes": {name: platform for platform, name in node_list},
        "nodes_unchanged_overall": {name: global_before[name] == global_after[name] for name in global_before},
        "errors": list(errors.queue),
    }
    OUTPUT.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"summary": summary, "results": ordered}, indent=2) + "\n")
    return {"by_id": out, "summary": summary}


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_bad_input(case, results):
    result = results["by_id"].get(case["id"])
    assert result is not None, "case did not run: %s" % results["summary"]["errors"]
    assert "error" not in result, result.get("error")
    where = "(log: %s)" % (LOGS / (case["id"] + ".json"))
    assert result["failed"], "the play succeeded: the bad input was not caught %s" % where
    assert result["caught_in_preflight"], (
        "not stopped in preflight: failed tasks %s, ran outside preflight %s, changed %s, recap %s %s"
        % (result["failed_tasks"], result["outside_preflight"], result["changed_tasks"], result["recap"], where))
    assert result["message_complete"], (
        "no message line names %s, %r and the fix %r; message was:\n%s"
        % (case["expect"]["variable"], case["expect"]["value"], case["expect"]["fix"], result["message"]))
    assert result["state_preserved"], "the node changed:\n%s" % "\n".join(result["state_diff"])


def test_nodes_unchanged_overall(results):
    """Every node ends the corpus in the state it started in (seeded, nothing deployed)."""
    summary = results["summary"]
    assert not summary["errors"], summary["errors"]
    changed = [name for name, same in summary["nodes_unchanged_overall"].items() if not same]
    assert not changed, "nodes changed over the run: %s" % changed
