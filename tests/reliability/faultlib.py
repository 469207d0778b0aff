"""Helpers of the fault-injection suite (tests/reliability/test_faults.py).

Simulated Atlas nodes (tests/sim) named ``flt-*``, real ``ansible-playbook site.yml`` runs
against an inventory of only those nodes, probes of what is left on a node afterwards, and the
per-case result file ``tests/output/reliability/faults.json`` that ``report.py`` prints.

Result shape, shared with the bad-input suite: a JSON list of
``{"suite": ..., "case": ..., "passed": bool, "checks": {name: bool}}`` (extra keys such as
``title``, ``seconds`` and ``failures`` are informational).
"""
from __future__ import annotations

import json
import os
import re
import secrets
import signal
import subprocess
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
SIM_DIR = REPO / "tests" / "sim"
sys.path.insert(0, str(SIM_DIR))

import sim  # noqa: E402  (tests/sim is put on sys.path above)

SUITE = "faults"
OUTPUT_DIR = REPO / "tests" / "output" / "reliability"
RESULTS = OUTPUT_DIR / "faults.json"
LOG_DIR = OUTPUT_DIR / "logs"
WORK_DIR = OUTPUT_DIR / "work"

# Nodes of this suite; nothing else on the engine is touched.
PREFIX = "flt-"
NODES = {
    "flt-a": "atlas_300i_duo",            # lane A: serves; tag and preflight cases
    "flt-r": "atlas_300i_duo",            # lane R: registry cases (images come and go), start faults
    "flt-b": "atlas_200i_pro",            # lane F: fleet case, then the interrupted run
    "flt-c": "atlas_200i_pro_openeuler",  # lane F: stopped to be unreachable
    "flt-d": "atlas_300i_duo",            # lane F: fleet case, then the changed config
}

MANAGED_LABEL = "ascend.vllm.managed-by=ascend.vllm"
CONTAINER = "vllm-ascend"
PORT = 8080
MODEL = "Qwen/Qwen3.5-2B"
SERVED = "qwen3.5"
REPOSITORY = "ascend/vllm-ascend"
# Where the stand-in (like ModelScope) keeps weights: the node's /root/.cache is mounted.
MODEL_DIR = "/root/.cache/modelscope/hub/models/Qwen/Qwen3.5-2B"
MARKER = MODEL_DIR + "/.fault-suite-marker"

# Short timeouts so failures surface in seconds; every case may override.
FAST_VARS = {
    "vllm_serve_ready_poll_interval": 1,
    "vllm_serve_ready_timeout": 60,
    "vllm_serve_smoke_timeout": 60,
    "vllm_serve_log_lines": 40,
    "image_pull_retries": 2,
    "image_pull_delay": 1,
    "image_pull_poll_interval": 1,
    "image_pull_timeout": 120,
}


# --------------------------------------------------------------------------- the harness
def up(names: list[str]) -> dict:
    """Start (or keep) the named suite nodes and the shared registry."""
    specs = [sim.NodeSpec.parse("%s:%s" % (name, NODES[name])) for name in names]
    # Our own inventory is written per case; keep simctl's default one untouched.
    info = sim.up(specs, inventory=WORK_DIR / "simctl-inventory.yml")
    return info


def down(names: list[str]) -> None:
    """Remove only our nodes; the shared registry stays for the others."""
    ours = [n for n in names if n.startswith(PREFIX)]
    if ours:
        sim.down(ours, keep_registry=True)


def registry() -> str:
    """The shared registry as the nodes reach it (bridge gateway:port)."""
    info = sim.registry_running() or {}
    port = int(info.get("port") or sim.registry_port())
    return "%s:%d" % (sim.gateway() or "127.0.0.1", port)


def node_exec(node: str, *cmd: str, check: bool = False, input: str | None = None,
              timeout: float = 120) -> subprocess.CompletedProcess:
    return sim.exec_node(node, list(cmd), check=check, input=input, timeout=timeout)


def node_sh(node: str, script: str, check: bool = False, timeout: float = 120) -> subprocess.CompletedProcess:
    return node_exec(node, "sh", "-c", script, check=check, timeout=timeout)


def node_running(node: str) -> bool:
    proc = sim.docker("inspect", "--format", "{{.State.Running}}", sim.PREFIX + node, check=False)
    return proc.stdout.strip() == "true"


# ------------------------------------------------------------------------- node probes
@dataclass
class Container:
    id: str
    name: str
    status: str
    running: bool
    restarting: bool
    restart_count: int
    started_at: str
    image: str
    labels: dict


def containers(node: str) -> list[Container]:
    """Every container of this collection on the node (label ascend.vllm.managed-by)."""
    ids = node_exec(node, "docker", "ps", "-aq", "--filter", "label=" + MANAGED_LABEL, check=True).stdout.split()
    if not ids:
        return []
    data = json.loads(node_exec(node, "docker", "inspect", *ids, check=True).stdout)
    return [Container(id=c["Id"], name=c["Name"].lstrip("/"), status=c["State"]["Status"],
                      running=c["State"]["Running"], restarting=c["State"]["Restarting"],
                      restart_count=c["RestartCount"], started_at=c["State"]["StartedAt"],
                      image=c["Config"]["Image"], labels=c["Config"]["Labels"] or {}) for c in data]


def container_named(node: str, name: str = CONTAINER) -> Container | None:
    for c in containers(node):
        if c.name == name:
            return c
    return None


def images(node: str) -> set[str]:
    """``repository:tag@id`` of every image on the node."""
    out = node_exec(node, "docker", "images", "--format", "{{.Repository}}:{{.Tag}}@{{.ID}}", check=True).stdout
    return {line.strip() for line in out.splitlines() if line.strip()}


def image_ids(node: str) -> set[str]:
    return {ref.rsplit("@", 1)[1] for ref in images(node)}


_HTTP = r"""
import json, sys, urllib.request, urllib.error
url, body = sys.argv[1], sys.argv[2]
req = urllib.request.Request(url, data=body.encode() if body else None,
                             headers={"Content-Type": "application/json"} if body else {})
try:
    with urllib.request.urlopen(req, timeout=20) as resp:
        print(resp.status); print(resp.read().decode(errors="replace"))
except urllib.error.HTTPError as exc:
    print(exc.code); print(exc.read().decode(errors="replace"))
except Exception as exc:
    print(0); print(type(exc).__name__ + ": " + str(exc))
"""


def http(node: str, path: str, port: int = PORT, body: dict | None = None) -> tuple[int, str]:
    """A request from inside the node, like the smoke tests: (status or 0, body text)."""
    proc = node_exec(node, "python3", "-c", _HTTP, "http://127.0.0.1:%d%s" % (port, path),
                     json.dumps(body) if body is not None else "", timeout=60)
    status, _sep, text = proc.stdout.partition("\n")
    try:
        return int(status.strip() or 0), text
    except ValueError:
        return 0, proc.stdout + proc.stderr


def answers(node: str, port: int = PORT, served: str = SERVED) -> bool:
    """/health is 200 and a completion comes back with choices."""
    if http(node, "/health", port)[0] != 200:
        return False
    status, text = http(node, "/v1/completions", port,
                        {"model": served, "prompt": "The future of AI is", "max_tokens": 5})
    try:
        return status == 200 and len(json.loads(text)["choices"]) > 0
    except (ValueError, KeyError, TypeError):
        return False


def wait_answers(node: str, port: int = PORT, timeout: float = 30) -> bool:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if answers(node, port):
            return True
        time.sleep(1)
    return False


# ------------------------------------------------------------------ model-file marker
def put_marker(node: str) -> str:
    """A file in the node's model cache that no run may remove; returns its content."""
    token = secrets.token_hex(8)
    node_sh(node, "mkdir -p %s && printf %s > %s" % (MODEL_DIR, token, MARKER), check=True)
    return token


def marker_intact(node: str, token: str) -> bool:
    return node_exec(node, "cat", MARKER).stdout == token


# ----------------------------------------------------------------------- node state
def clear_faults(node: str) -> None:
    """NPU state as created, no vllm fault knobs, no helper processes of ours."""
    sim.set_node(node, ["reset"])
    sim.fault(node, ["clear"])
    stop_helpers(node)


def remove_vllm(node: str) -> None:
    ids = node_exec(node, "docker", "ps", "-aq", "--filter", "label=" + MANAGED_LABEL).stdout.split()
    if ids:
        node_exec(node, "docker", "rm", "-f", *ids, check=True)


def remove_images(node: str) -> None:
    """Every vllm-ascend image on the node (so that the next deploy pulls)."""
    refs = [ref.rsplit("@", 1)[0] for ref in images(node) if ("/" + REPOSITORY + ":") in ref]
    if refs:
        node_exec(node, "docker", "rmi", "-f", *refs, check=True)


# Helper processes (flaky proxy, port holder) run on the node with a pid file each.
HELPER_DIR = "/run/flt-helpers"


def start_helper(node: str, name: str, script: str, *args: str) -> int:
    """Run a Python script in the background on the node; returns its pid."""
    node_sh(node, "mkdir -p %s" % HELPER_DIR, check=True)
    path = "%s/%s.py" % (HELPER_DIR, name)
    node_exec(node, "sh", "-c", "cat > %s" % path, input=script, check=True)
    pidfile = "%s/%s.pid" % (HELPER_DIR, name)
    # One left by an interrupted session still holds its port: end it first.
    node_sh(node, "[ -f %s ] && kill \"$(cat %s)\" 2>/dev/null; rm -f %s; true" % (pidfile, pidfile, pidfile))
    time.sleep(0.2)
    errfile = "%s/%s.err" % (HELPER_DIR, name)
    sim.docker("exec", "-d", sim.PREFIX + node, "sh", "-c", 'exec python3 "$0" "$@" 2>%s' % errfile,
               path, pidfile, *args, check=True)
    deadline = time.time() + 10
    while time.time() < deadline:
        out = node_exec(node, "cat", pidfile).stdout.strip()
        if out.isdigit():
            return int(out)
        time.sleep(0.1)
    raise AssertionError("helper %s did not start on %s: %s" % (name, node, node_exec(node, "cat", errfile).stdout))


def stop_helpers(node: str) -> None:
    """Kill the helpers this suite started on the node, by their pid files."""
    node_sh(node, "for f in %s/*.pid; do [ -f \"$f\" ] && kill \"$(cat \"$f\")\" 2>/dev/null; rm -f \"$f\"; done; true"
            % HELPER_DIR)


PORT_HOLDER = r"""
import os, socket, sys, time
pidfile, port = sys.argv[1], int(sys.argv[2])
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", port))
s.listen(5)
open(pidfile, "w").write(str(os.getpid()))
while True:
    conn, _ = s.accept()
    conn.close()
"""

# Forwards 127.0.0.1:LISTEN on the node to the registry, but resets the connections of the first
# FAIL_BURSTS pull attempts. A burst is a run of connections less than GAP seconds apart, so one
# `docker pull` (ping over https, then http) counts once however many connections it opens.
FLAKY_PROXY = r"""
import os, socket, struct, sys, threading, time
pidfile, listen, target_host, target_port, fail_bursts, gap, log = sys.argv[1:8]
listen, target_port, fail_bursts, gap = int(listen), int(target_port), int(fail_bursts), float(gap)
state = {"burst": 0, "last": 0.0}
lock = threading.Lock()

def note(text):
    with open(log, "a") as fh:
        fh.write("%.3f %s\n" % (time.time(), text))

def pump(src, dst):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

def serve(conn):
    with lock:
        now = time.time()
        if state["burst"] <= fail_bursts and now - state["last"] > gap:
            state["burst"] += 1
        refuse = state["burst"] <= fail_bursts
        if refuse:
            state["last"] = now
    if refuse:
        note("reset burst=%d" % state["burst"])
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        conn.close()
        return
    note("forward")
    try:
        up = socket.create_connection((target_host, target_port), timeout=10)
    except OSError as exc:
        note("upstream error %s" % exc)
        conn.close()
        return
    threading.Thread(target=pump, args=(conn, up), daemon=True).start()
    threading.Thread(target=pump, args=(up, conn), daemon=True).start()

s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", listen))
s.listen(64)
open(pidfile, "w").write(str(os.getpid()))
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
"""


# ------------------------------------------------------------------------ ansible runs
def write_inventory(path: Path, hosts: dict[str, dict], group_vars: dict | None = None) -> Path:
    """A YAML (JSON-syntax) inventory of our nodes only; ``hosts`` maps name -> extra host vars."""
    children: dict = {}
    for name, extra in hosts.items():
        platform = NODES.get(name, extra.get("ascend_vllm_platform", "atlas_300i_duo"))
        host = {"ansible_connection": "community.docker.docker", "ansible_host": sim.PREFIX + name,
                "ansible_python_interpreter": "/usr/bin/python3"}
        host.update(extra)
        children.setdefault(platform, {"hosts": {}})["hosts"][name] = host
    data = {"all": {"vars": {"image_pull_registries": [registry()], **FAST_VARS, **(group_vars or {})},
                    "children": children}}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1) + "\n")
    return path


def ansible_env(pipelining: bool = True) -> dict:
    env = dict(os.environ)
    env["PATH"] = "%s:%s" % (REPO / ".venv" / "bin", env.get("PATH", ""))
    env["ANSIBLE_CONFIG"] = str(REPO / "ansible.cfg")
    env["ANSIBLE_NOCOLOR"] = "1"
    env["ANSIBLE_FORCE_COLOR"] = "0"
    # The docker connection spends most of a run copying modules; pipelining halves it.
    env["ANSIBLE_PIPELINING"] = "True" if pipelining else "False"
    env.pop("ANSIBLE_STDOUT_CALLBACK", None)
    return env


@dataclass
class Run:
    rc: int
    output: str
    seconds: float
    log: Path
    killed: bool = False
    recap: dict = field(default_factory=dict)

    def host(self, name: str) -> dict:
        return self.recap.get(name, {})


_RECAP = re.compile(r"^(\S+)\s+:\s+ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)\s+"
                    r"skipped=(\d+)\s+rescued=(\d+)\s+ignored=(\d+)", re.M)


def parse_recap(output: str) -> dict:
    recap = {}
    for m in _RECAP.finditer(output.split("PLAY RECAP", 1)[-1]):
        keys = ("ok", "changed", "unreachable", "failed", "skipped", "rescued", "ignored")
        recap[m.group(1)] = dict(zip(keys, map(int, m.groups()[1:])))
    return recap


def _argv(inventory: Path, extra_vars: dict | None, log: Path) -> list[str]:
    argv = [str(REPO / ".venv" / "bin" / "ansible-playbook"), str(REPO / "site.yml"), "-i", str(inventory)]
    if extra_vars:
        ev = log.with_suffix(".vars.json")
        ev.write_text(json.dumps(extra_vars))
        argv += ["-e", "@" + str(ev)]
    return argv


_log_lock = threading.Lock()


def _log_path(case: str) -> Path:
    with _log_lock:
        LOG_DIR.mkdir(parents=True, exist_ok=True)
        n = 1
        while (LOG_DIR / ("%s-%d.log" % (case, n))).exists():
            n += 1
        path = LOG_DIR / ("%s-%d.log" % (case, n))
        path.touch()
        return path


def site(case: str, inventory: Path, extra_vars: dict | None = None, timeout: float = 420,
         pipelining: bool = True) -> Run:
    """``ansible-playbook site.yml -i INVENTORY`` to the end; output kept in tests/output."""
    log = _log_path(case)
    t0 = time.time()
    with open(log, "w") as fh:
        proc = subprocess.run(_argv(inventory, extra_vars, log), cwd=REPO, env=ansible_env(pipelining),
                              stdout=fh, stderr=subprocess.STDOUT, timeout=timeout, check=False)
    output = log.read_text(errors="replace")
    return Run(proc.returncode, output, time.time() - t0, log, recap=parse_recap(output))


def site_killed(case: str, inventory: Path, until: str, extra_vars: dict | None = None,
                timeout: float = 300) -> Run:
    """Start site.yml and SIGKILL it (its whole process group) once ``until`` shows in its output."""
    log = _log_path(case)
    t0 = time.time()
    with open(log, "w") as fh:
        proc = subprocess.Popen(_argv(inventory, extra_vars, log), cwd=REPO, env=ansible_env(),
                                stdout=fh, stderr=subprocess.STDOUT, start_new_session=True)
    killed = False
    try:
        deadline = time.time() + timeout
        while time.time() < deadline and proc.poll() is None:
            if until in log.read_text(errors="replace"):
                os.killpg(proc.pid, signal.SIGKILL)
                killed = True
                break
            time.sleep(0.2)
    finally:
        if proc.poll() is None and not killed:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    output = log.read_text(errors="replace")
    return Run(proc.returncode, output, time.time() - t0, log, killed=killed, recap=parse_recap(output))


def section(output: str, task: str, lines: int = 60) -> str:
    """The output of the first task whose header contains ``task`` (for messages on failure)."""
    idx = output.find(task)
    if idx < 0:
        return ""
    return "\n".join(output[idx:].splitlines()[:lines])


def unfold(text: str) -> str:
    """Undo the YAML callback's line folding so that phrases can be searched for."""
    return re.sub(r"\s+", " ", text)


# ----------------------------------------------------------------------------- results
STANDARD_CHECKS = ("message", "evidence", "state", "kept")


class Case:
    """Soft checks of one case; the fixture writes them to faults.json whatever happens."""

    def __init__(self, case: str, title: str):
        self.case = case
        self.title = title
        self.checks: dict[str, bool] = {}
        self.failures: list[str] = []
        self.finished = False
        self.t0 = time.time()
        self.runs: list[str] = []

    def check(self, name: str, ok, detail: str = "") -> bool:
        ok = bool(ok)
        self.checks[name] = self.checks.get(name, True) and ok
        if not ok:
            self.failures.append("%s: %s" % (name, detail or "failed"))
        return ok

    def run(self, run: Run) -> Run:
        self.runs.append("%s (rc=%d, %.0fs)" % (run.log.relative_to(REPO), run.rc, run.seconds))
        return run

    def finish(self) -> None:
        """Assert every check (all are recorded first, so the report has each one)."""
        assert self.finished and not self.failures, \
            "\n".join(self.failures or ["did not finish"]) + "\nlogs: " + ", ".join(self.runs)

    @property
    def passed(self) -> bool:
        return self.finished and not self.failures

    def result(self) -> dict:
        checks = {name: self.checks.get(name, False) for name in STANDARD_CHECKS}
        checks.update(self.checks)
        return {"suite": SUITE, "case": self.case, "title": self.title, "passed": self.passed,
                "checks": checks, "seconds": round(time.time() - self.t0, 1),
                "failures": self.failures, "logs": self.runs}


_record_lock = threading.Lock()


def record(result: dict) -> None:
    """Replace this case's entry in faults.json (other cases' entries stay)."""
    with _record_lock:
        _record(result)


def _record(result: dict) -> None:
    OUTPUT_DIR.mkdir(parents=True, exist_ok=True)
    try:
        entries = json.loads(RESULTS.read_text())
    except (OSError, ValueError):
        entries = []
    entries = [e for e in entries if not (e.get("suite") == result["suite"] and e.get("case") == result["case"])]
    entries.append(result)
    order = {name: i for i, name in enumerate(CASE_ORDER)}
    entries.sort(key=lambda e: order.get(e.get("case"), len(order)))
    RESULTS.write_text(json.dumps(entries, indent=1) + "\n")


CASE_ORDER = [
    "registry_first_down", "registry_all_down", "registry_flaky", "image_tag_missing",
    "crash_on_start", "readiness_timeout", "port_taken", "balancer_port_taken", "balancer_dir_is_file",
    "chip_busy", "chip_unhealthy",
    "driver_missing", "npu_smi_missing", "node_unreachable", "interrupted_run", "changed_config_crash",
]


# ------------------------------------------------------------------------------ lanes
class Lanes:
    """Runs the selected scenarios, one thread per lane (lanes use disjoint nodes).

    A scenario is ``fn(rec: Case)``; each lane runs its scenarios in order. The tests wait
    for their scenario's ``Case`` and assert it, so pytest still reports one test per case.
    """

    def __init__(self, lanes: list[list[tuple[str, object]]], selected: set[str]):
        self.cases: dict[str, Case] = {}
        self.done: dict[str, threading.Event] = {}
        self.threads = []
        for lane in lanes:
            todo = [(name, fn) for name, fn in lane if name in selected]
            for name, _spec in todo:
                self.done[name] = threading.Event()
            if todo:
                thread = threading.Thread(target=self._run, args=(todo,), daemon=True)
                self.threads.append(thread)
        self.t0 = time.time()
        for thread in self.threads:
            thread.start()

    def _run(self, todo) -> None:
        for name, fn in todo:
            doc = (getattr(fn, "__doc__", None) or "").strip().splitlines()
            rec = Case(name, doc[0] if doc else name)
            try:
                fn(rec)
                rec.finished = True
            except Exception:  # noqa: BLE001 - recorded as the case's failure
                rec.failures.append("error: " + traceback.format_exc(limit=6))
            record(rec.result())
            self.cases[name] = rec
            self.done[name].set()

    def wait(self, name: str, timeout: float = 1800) -> Case:
        if name not in self.done:
            pytest.skip("scenario %s is not in any lane" % name)
        assert self.done[name].wait(timeout), "scenario %s did not finish in %ds" % (name, timeout)
        return self.cases[name]


# ------------------------------------------------------------------------------ fixtures
@pytest.fixture(scope="session")
def flt_nodes():
    """All suite nodes up for the session; removed (only ours) at the end."""
    why = sim.why_unusable()
    if why:
        pytest.skip(why)
    WORK_DIR.mkdir(parents=True, exist_ok=True)
    names = list(NODES)
    up(names)
    yield names
    if os.environ.get("FLT_KEEP_NODES") != "1":
        down(names)
