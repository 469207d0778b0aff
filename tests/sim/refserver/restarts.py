"""The reference server in a container, for what brings it back when its engine dies (issue 33: "a
crash-then-restart ... shown against the real server").

vLLM 0.23.0's API server exits with status 0 when its engine core dies (test_contract.py). Two mechanisms of
the collection restart it; each is run here against the real server:

- the image install: Docker's restart policy as container_run sets it (``container_run_restart_policy``,
  default ``unless-stopped``, and ``container_run_stop_timeout``: serve/_container_run.py INPUT_OPTIONS);
  ``docker_server`` runs the reference server as that container's command.
- the source install: the systemd unit serve/_source.py ``unit_text`` writes (``Restart=always``), with the
  launcher ``launcher_text`` writes and the environment file ``_unit.env_text`` writes, on a node whose PID 1
  is systemd (tests/sim's node-systemd image, started with the flags tests/sim gives a ``systemd=1`` node);
  ``systemd_node``.

Both run the image ``ascend-sim/refserver-node`` (``image/Dockerfile``: the node-systemd image plus g++ and
libnuma1) with the cached virtual environment, the Python it was made with and the tiny model bind-mounted
read-only at their own paths: no copy of the 6 GB environment, no image pull. Needs Docker and
``tests/sim/simctl build`` (the node-systemd image). Test harness only.
"""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / ".ansible" / "collections"))

# pylint: disable=wrong-import-position
import refserver  # noqa: E402
from cpu_exceptions import cpu_exceptions  # noqa: E402
from ansible_collections.ascend.vllm.plugins.module_utils import _unit  # noqa: E402
from ansible_collections.ascend.vllm.plugins.module_utils.serve._container_run import INPUT_OPTIONS  # noqa: E402
from ansible_collections.ascend.vllm.plugins.plugin_utils.serve import _source  # noqa: E402

IMAGE_DIR = HERE / "image"
IMAGE_REPO = "ascend-sim/refserver-node"
BASE_IMAGE = "ascend-sim/node-systemd:latest"  # tests/sim/simctl build makes it
LABEL = "ascend-sim.refserver"  # not tests/sim's own label: its image pruning leaves this one alone
PORT = 8000  # inside the container; published on 127.0.0.1 at a port chosen up front
# (not Docker's pick, `-p 127.0.0.1::8000`: Docker picks another one at each restart, measured; container_run
# publishes a fixed port too)
# The container's CPU share: the host has 2 cores shared with other work.
CPUS = os.environ.get("ASCEND_SIM_REFSERVER_CPUS", "1.5")


@contextlib.contextmanager
def docker_lock():
    """The lock every agent's Docker work on this machine takes (/tmp/ascend-docker.lock), held only while a
    container or image is made or removed: a server's start and the test's waiting run outside it."""
    with open(os.environ.get("ASCEND_SIM_DOCKER_LOCK", "/tmp/ascend-docker.lock"), "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def docker(*args: str, check: bool = True, timeout: float = 600, locked: bool = False) -> subprocess.CompletedProcess:
    if locked:
        with docker_lock():
            return docker(*args, check=check, timeout=timeout)
    proc = subprocess.run(["docker", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=timeout, check=False)
    if check and proc.returncode != 0:
        raise RuntimeError("docker %s: %s" % (" ".join(args[:3]), (proc.stderr or proc.stdout).strip()[-2000:]))
    return proc


def docker_available() -> str:
    """Why these tests cannot run here ('' when they can)."""
    try:
        if docker("info", "--format", "{{.ServerVersion}}", check=False, timeout=30).returncode != 0:
            return "no Docker Engine answers"
    except (OSError, subprocess.TimeoutExpired) as exc:
        return "docker: %s" % exc
    if docker("image", "inspect", BASE_IMAGE, check=False).returncode != 0:
        return "%s is not built (tests/sim/simctl build)" % BASE_IMAGE
    return ""


def node_image(base: str = BASE_IMAGE, repo: str = IMAGE_REPO, dockerfile: Path = IMAGE_DIR / "Dockerfile",
               build_args: Tuple[str, ...] = (), files: Tuple[Path, ...] = ()) -> str:
    """``<repo>:<hash of its inputs>``: ``dockerfile`` (context: this directory) built ``FROM`` ``base`` once;
    by default ``ascend-sim/refserver-node`` (image/Dockerfile over node-systemd). ``files``: the context's
    files the Dockerfile copies."""
    base_id = docker("image", "inspect", "--format", "{{.Id}}", base).stdout.strip()
    digest = hashlib.sha256("\0".join((dockerfile.read_text(), base_id) + tuple(build_args)).encode())
    for path in files:
        digest.update(path.read_bytes())
    ref = "%s:%s" % (repo, digest.hexdigest()[:16])
    if docker("image", "inspect", ref, check=False).returncode != 0:
        args = [word for arg in ("BASE=" + base,) + tuple(build_args) for word in ("--build-arg", arg)]
        docker("build", "-q", *args, "--label", LABEL + "=1", "-t", ref, "-f", str(dockerfile), str(HERE),
               timeout=1800, locked=True)
    return ref


def python_home(venv: Path) -> Path:
    """The installation of the Python the venv was made with (pyvenv.cfg ``home`` is its bin directory)."""
    for line in (venv / "pyvenv.cfg").read_text().splitlines():
        key, _sep, value = line.partition("=")
        if key.strip() == "home":
            return Path(value.strip()).parent
    raise RuntimeError("%s/pyvenv.cfg names no home" % venv)


def mounts(venv: Path, model: Path) -> List[str]:
    out: List[str] = []
    for path in (venv, python_home(venv), model):
        out += ["-v", "%s:%s:ro" % (path, path)]
    return out


def container_policy() -> Dict[str, Any]:
    """The restart policy and stop timeout container_run gives the container by default."""
    return {"restart_policy": INPUT_OPTIONS["container_run_restart_policy"]["default"],
            "stop_timeout": INPUT_OPTIONS["container_run_stop_timeout"]["default"]}


def planned(api_key: str, model: Path) -> Dict[str, Any]:
    """The planned argv and environment for one instance on port PORT, with the CPU exceptions applied."""
    plan = refserver.planned_instance(str(model), PORT, api_key)
    argv, env, _changes = cpu_exceptions(plan["argv"], plan["env"])
    env = dict(env, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", VLLM_NO_USAGE_STATS="1", DO_NOT_TRACK="1")
    env[plan["api_key_env"]] = api_key
    return {"argv": argv, "env": env}


class Container(object):
    """A container running the reference server (the command itself, or systemd and a unit)."""

    def __init__(self, name: str, port: int) -> None:
        self.name, self.port = name, port

    def inspect(self) -> Dict[str, Any]:
        return json.loads(docker("inspect", self.name).stdout)[0]

    def health(self, timeout: float = 3) -> Optional[int]:
        try:
            with urllib.request.urlopen("http://127.0.0.1:%d/health" % self.port, timeout=timeout) as answer:
                return answer.status
        except OSError:
            return None

    def processes(self) -> List[Dict[str, Any]]:
        """``ps`` inside the container: pid, parent pid and the command line (vLLM sets process titles)."""
        out = docker("exec", self.name, "ps", "-eo", "pid=,ppid=,args=").stdout
        rows = []
        for line in out.splitlines():
            parts = line.split(None, 2)
            if len(parts) == 3:
                rows.append({"pid": int(parts[0]), "ppid": int(parts[1]), "args": parts[2]})
        return rows

    def engine_core(self) -> Dict[str, Any]:
        """The engine core process: the one whose title is ``VLLM::EngineCore``."""
        found = [p for p in self.processes() if p["args"].startswith("VLLM::EngineCore")]
        if not found:
            raise AssertionError("no VLLM::EngineCore in %s: %s" % (self.name, self.processes()))
        return found[0]

    def kill(self, pid: int) -> None:
        docker("exec", self.name, "kill", "-KILL", str(pid))

    def logs(self) -> str:
        proc = docker("logs", self.name, check=False)
        return proc.stdout + proc.stderr

    def remove(self) -> None:
        docker("rm", "-f", "-v", self.name, check=False, locked=True)


def wait_for(pred, timeout: float, what: str, interval: float = 1.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = pred()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError("timed out after %ds waiting for %s" % (timeout, what))


def docker_server(name: str, api_key: str) -> Container:
    """The reference server as the container's command, with container_run's restart policy and stop
    timeout, its port published on 127.0.0.1."""
    venv, model = refserver.venv(), refserver.model()
    plan = planned(api_key, model)
    policy = container_policy()
    env: List[str] = []
    for key, value in sorted(plan["env"].items()):
        env += ["-e", "%s=%s" % (key, value)]
    image, port = node_image(), refserver.free_port()
    docker("rm", "-f", name, check=False, locked=True)
    docker("run", "-d", "--name", name, "--label", LABEL + "=1",
           "--restart", policy["restart_policy"], "--stop-timeout", str(policy["stop_timeout"]),
           "--cpus", CPUS, "-p", "127.0.0.1:%d:%d" % (port, PORT), *mounts(venv, model), *env,
           "--entrypoint", str(venv / "bin" / "vllm"), image, *plan["argv"][1:], locked=True)
    container = Container(name, port)
    return container


# How tests/sim starts a systemd=1 node (sim.py start_node): systemd as PID 1 in a private cgroup namespace,
# `ascend-sim init` first, the capabilities that work in this sandbox, tmpfs /run.
SYSTEMD_NODE_FLAGS = ["--cgroupns", "private", "--tmpfs", "/run", "--tmpfs", "/run/lock",
                      "--cap-add", "ALL", "--cap-drop", "SYS_RESOURCE",
                      "--security-opt", "seccomp=unconfined", "--security-opt", "apparmor=unconfined",
                      "--device-cgroup-rule", "a *:* rwm",
                      "-e", "ASCEND_SIM_SYSTEMD=1", "-e", "ASCEND_SIM_DOCKER=0", "-e", "ASCEND_SIM_CANN=0"]
SOURCE_ROOT = "/opt/ascend-vllm"  # vllm_serve_source_root's stand-in here


def source_install(venv: Path) -> Dict[str, Any]:
    """The source install's paths as serve/_source.py's functions use them, with the cached venv as the
    install's virtual environment and no CANN (the CPU build needs none)."""
    install = {"root": SOURCE_ROOT, "venv": str(venv), "launcher": _source.launcher_path(SOURCE_ROOT),
               "cann": {"set_env": []}}
    return _source.with_launcher(install, {})


def unit_files(name: str, api_key: str) -> Dict[str, Any]:
    """The unit, launcher and environment file the source install writes for one instance ``name``."""
    venv, model = refserver.venv(), refserver.model()
    plan = planned(api_key, model)
    install = source_install(venv)
    unit = _source.unit_text(install, name, plan["argv"], "vLLM reference server (contract lane)")
    return {"unit_name": _source.unit_name(name), "unit": unit,
            "launcher": install["launcher"], "launcher_text": install["launcher_text"],
            "env_file": _source.env_file(SOURCE_ROOT, name), "env_text": _unit.env_text(plan["env"])}


def write_file(container: str, path: str, text: str, mode: str = "0644") -> None:
    proc = subprocess.run(["docker", "exec", "-i", container, "sh", "-c",
                           'mkdir -p "$(dirname "$1")" && cat > "$1" && chmod %s "$1"' % mode, "sh", path],
                          input=text, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    if proc.returncode != 0:
        raise RuntimeError("writing %s in %s: %s" % (path, container, proc.stderr))


def systemd_node(name: str) -> Container:
    """A systemd node (tests/sim's systemd=1 flags) with the venv, its Python and the model mounted."""
    venv, model = refserver.venv(), refserver.model()
    image, port = node_image(), refserver.free_port()
    docker("rm", "-f", name, check=False, locked=True)
    docker("run", "-d", "--name", name, "--hostname", name, "--label", LABEL + "=1", *SYSTEMD_NODE_FLAGS,
           "--cpus", CPUS, "-p", "127.0.0.1:%d:%d" % (port, PORT), *mounts(venv, model), image, locked=True)
    container = Container(name, port)

    def running():
        state = docker("exec", name, "systemctl", "is-system-running", check=False).stdout.strip()
        return state in ("running", "degraded")
    wait_for(running, 120, "systemd in %s" % name)
    return container


def install_unit(container: Container, files: Dict[str, Any]) -> None:
    write_file(container.name, files["launcher"], files["launcher_text"], "0755")
    write_file(container.name, files["env_file"], files["env_text"], "0600")
    write_file(container.name, "/etc/systemd/system/" + files["unit_name"], files["unit"])
    docker("exec", container.name, "systemctl", "daemon-reload")
    docker("exec", container.name, "systemctl", "start", files["unit_name"])


def unit_show(container: Container, unit: str) -> Dict[str, str]:
    out = docker("exec", container.name, "systemctl", "show", unit, "-p",
                 "ActiveState,SubState,NRestarts,ExecMainPID,ExecMainStatus,ExecMainCode,Restart,Result").stdout
    return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)


def journal(container: Container, unit: str) -> str:
    return docker("exec", container.name, "journalctl", "-u", unit, "--no-pager", "-o", "cat", check=False).stdout
