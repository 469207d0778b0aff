"""Simulated Atlas nodes for tests: images, local registry, nodes, inventory, teardown.

The logic behind ``tests/sim/simctl``; pytest fixtures and molecule playbooks use the same
functions. Python stdlib plus the ``docker`` CLI. Test harness only, never shipped.

Every object this module creates carries the label ``ascend-sim=1`` so that ``down(all_=True)``
can find and remove it. See tests/sim/README.md.
"""
from __future__ import annotations

import concurrent.futures
import contextlib
import fcntl
import hashlib
import importlib.machinery
import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent
IMAGES = ROOT / "images"
# The nodes, their network and the registry port belong to the machine's Docker Engine,
# not to one checkout: so does the state that tracks them (registry pid and storage,
# inventory, lock). A second checkout (a CI clone next to a working tree) then finds
# and reuses the registry the first one started, and its runs wait on the same lock.
STATE_DIR = Path(os.environ.get("ASCEND_SIM_STATE_DIR")
                 or Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state") / "ascend-sim")
LABEL = "ascend-sim"
NETWORK = "ascend-sim"
PREFIX = "ascend-sim-"
# atlas_300i_pro (one 310P3 chip per card) is the harness's only platform that the collection
# does not build in: an inventory describes it (ascend_vllm_platform_spec, see README.md).
PLATFORMS = ("atlas_300i_duo", "atlas_300i_pro", "atlas_200i_pro", "atlas_200i_pro_openeuler")
SUITE = "bookworm"
DEFAULT_REGISTRY_PORT = 5000

# Tags pushed to the local registry: tag -> what the stand-in reports.
IMAGE_REPO = "ascend/vllm-ascend"


def _load_releases():
    """The collection's release records (plugins/plugin_utils/contracts/releases.py, over data/releases.yml; PyYAML
    only), through the collection link scripts/setup-venv.sh makes (.ansible/collections, as tests/unit uses)."""
    collections = str(ROOT.parents[1] / ".ansible" / "collections")
    if collections not in sys.path:
        sys.path.insert(0, collections)
    from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts import releases
    return releases


RELEASES = _load_releases()


def release_tags() -> dict:
    """One test image per image tag of every release record: the vLLM version it reports (the record's; its
    vllm-ascend version where the record's vLLM was not read), its OS, its release and the image's own
    environment (the record's container env)."""
    out = {}
    for name in RELEASES.names():
        record = RELEASES.RELEASES[name]
        for platform, tag in record["images"].items():
            needs = (record.get("container") or {}).get(platform) or {}
            out[tag] = {"version": record.get("vllm") or record["vllm_ascend"],
                        "os": "openeuler" if tag.endswith("-openeuler") else "debian",
                        "release": name, "env": dict(needs.get("env") or {})}
    return out


# The image environment the test image's Dockerfile sets (images/vllm-ascend/Dockerfile, vllm-ascend's ENV line).
TEST_IMAGE_ENV = {"SOC_VERSION": "ascend310p1", "TASK_QUEUE_ENABLE": "1", "OMP_NUM_THREADS": "1"}


def _env_diff(spec: dict) -> dict:
    """What a release's image environment sets differently from the test image's."""
    return dict((key, value) for key, value in (spec.get("env") or {}).items() if TEST_IMAGE_ENV.get(key) != value)


IMAGE_TAGS = dict(release_tags(), **{
    # Not a record: a pre-0.23 image that, like the real one, refuses Qwen3.5 (model minimum tests).
    "v0.22.0-310p": {"version": "0.22.0", "os": "debian", "release": "", "env": {}},
})
# The balancer's proxy (roles/balancer): Debian's HAProxy under the official image's name.
HAPROXY_REPO = "library/haproxy"
HAPROXY_TAG = "2.6"

_print_lock = threading.Lock()
_state_lock = threading.RLock()
_state_depth = 0


@contextlib.contextmanager
def state_lock():
    """Serialise build/up/down between simctl processes sharing this state directory."""
    global _state_depth
    with _state_lock:
        if _state_depth:
            _state_depth += 1
            try:
                yield
            finally:
                _state_depth -= 1
            return
        STATE_DIR.mkdir(parents=True, exist_ok=True)
        with open(STATE_DIR / "lock", "w") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            _state_depth = 1
            try:
                yield
            finally:
                _state_depth = 0
                fcntl.flock(fh, fcntl.LOCK_UN)


class SimError(RuntimeError):
    """A harness step failed; the message says which and why."""


def files_holding(text: str, roots, skip=()) -> list[str]:
    """Regular files under ``roots`` (not in .git or .venv, not symlinks, not in ``skip``) that hold ``text``.

    For the secret tests: where on the controller a key was written. os.walk passes over a
    directory that vanishes while it looks (another ansible-playbook's ~/.ansible/tmp/ansible-local-*);
    Path.rglob raises there.
    """
    skipped = {str(path) for path in skip}
    hits = []
    for root in roots:
        for folder, dirs, files in os.walk(str(root)):
            dirs[:] = [name for name in dirs if name not in (".venv", ".git")]
            for name in files:
                path = Path(folder) / name
                if str(path) in skipped or path.is_symlink() or not path.is_file():
                    continue
                try:
                    if text.encode() in path.read_bytes():
                        hits.append(str(path))
                except OSError:
                    continue
    return hits


def say(msg: str) -> None:
    if os.environ.get("ASCEND_SIM_QUIET") != "1":
        with _print_lock:
            sys.stderr.write("simctl: %s\n" % msg)
            sys.stderr.flush()


# ----------------------------------------------------------------------------- docker CLI
def docker(*args: str, check: bool = True, input: str | bytes | None = None,
           timeout: float | None = None, capture: bool = True) -> subprocess.CompletedProcess:
    cmd = ["docker", *args]
    text = not isinstance(input, bytes)
    try:
        proc = subprocess.run(cmd, input=input, timeout=timeout, text=text,
                              stdout=subprocess.PIPE if capture else None,
                              stderr=subprocess.PIPE if capture else None, check=False)
    except FileNotFoundError as exc:
        raise SimError("the docker CLI is not installed (run scripts/ensure-system.sh)") from exc
    if check and proc.returncode != 0:
        err = (proc.stderr or "").strip() if capture else ""
        raise SimError("docker %s failed (rc=%d): %s" % (" ".join(args[:3]), proc.returncode, err))
    return proc


def docker_ok() -> bool:
    try:
        return docker("version", "--format", "{{.Server.Version}}", check=False, timeout=20).returncode == 0
    except (SimError, subprocess.TimeoutExpired):
        return False


def why_unusable() -> str | None:
    """Why the harness cannot run on this machine (for a test suite to skip with), or None."""
    for tool in ("docker", "docker-registry"):
        if not shutil.which(tool):
            return "%s is not installed (scripts/ensure-system.sh installs it)" % tool
    if not docker_ok():
        return "no Docker Engine answers (scripts/ensure-system.sh starts one)"
    return None


def image_exists(ref: str) -> bool:
    return docker("image", "inspect", "--format", "{{.Id}}", ref, check=False).returncode == 0


def _lines(text: str) -> list[str]:
    return [line for line in (text or "").splitlines() if line.strip()]


# ------------------------------------------------------------------------ node-side tool
def node_tool():
    """The node-side ``ascend-sim`` script as a module (platform profiles, state logic)."""
    path = str(IMAGES / "node" / "ascend-sim")
    loader = importlib.machinery.SourceFileLoader("ascend_sim_node", path)
    spec = importlib.util.spec_from_loader("ascend_sim_node", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def npu_smi_tool():
    """The ``npu-smi`` stand-in as a module (``render_info(state)``)."""
    path = str(IMAGES / "node" / "npu-smi")
    loader = importlib.machinery.SourceFileLoader("ascend_sim_npu_smi", path)
    spec = importlib.util.spec_from_loader("ascend_sim_npu_smi", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


# --------------------------------------------------------------------------------- images
def mirror() -> str:
    if os.environ.get("ASCEND_SIM_MIRROR"):
        return os.environ["ASCEND_SIM_MIRROR"]
    sources = Path("/etc/apt/sources.list.d/debian.sources")
    if sources.exists():
        for line in sources.read_text().splitlines():
            if line.startswith("URIs:"):
                return line.split(":", 1)[1].split()[0]
    return "http://deb.debian.org/debian"


def _packages(path: Path) -> list[str]:
    return [ln.strip() for ln in path.read_text().splitlines() if ln.strip() and not ln.startswith("#")]


MMDEBSTRAP_OPTS = [
    "--variant=minbase",
    "--aptopt=Acquire::Check-Valid-Until \"false\"",
    # Docs, manuals and translations are dead weight in test images.
    "--dpkgopt=path-exclude=/usr/share/doc/*",
    "--dpkgopt=path-exclude=/usr/share/man/*",
    "--dpkgopt=path-exclude=/usr/share/info/*",
    "--dpkgopt=path-exclude=/usr/share/locale/*",
    "--dpkgopt=path-include=/usr/share/locale/locale.alias",
]


def _hash(*parts: bytes | str) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode() if isinstance(part, str) else part)
        h.update(b"\0")
    return h.hexdigest()[:16]


def _dir_hash(path: Path, *extra: str) -> str:
    parts: list[bytes | str] = list(extra)
    for f in sorted(p for p in path.rglob("*") if p.is_file()):
        parts += [str(f.relative_to(path)), oct(f.stat().st_mode & 0o777), f.read_bytes()]
    return _hash(*parts)


# Node options the harness itself acts on (not the simulated NPU's): ipv6=1, systemd=1 (systemd is
# PID 1), docker=0 (no Docker Engine on the node), wheelhouse=PATH (a stand-in wheelhouse copied
# there), cann=VERSION|0 (the stand-in CANN tree; default 9.1.0 on systemd nodes), sources=PATH (the
# stand-in source repositories of vLLM and vllm-ascend there, and git on the node). README.md.
HARNESS_OPTIONS = ("ipv6", "systemd", "docker", "wheelhouse", "cann", "sources")
DEFAULT_CANN = "9.1.0"
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


@dataclass
class Images:
    base: str
    node: str
    vllm: str
    variants: dict = field(default_factory=dict)  # registry tag -> local image ref
    haproxy: str = ""
    node_systemd: str = ""  # the node image plus systemd, venv and pip (node option systemd=1)
    node_src: str = ""  # the node-systemd image plus git (node option sources=PATH)


def image_refs() -> Images:
    """Image names for the current build inputs (nothing is built)."""
    base_pkgs = _packages(IMAGES / "base.packages")
    bh = _hash("base", SUITE, mirror(), " ".join(base_pkgs), " ".join(MMDEBSTRAP_OPTS))
    nh = _dir_hash(IMAGES / "node", bh)
    sh = _dir_hash(IMAGES / "node-systemd", nh)
    xh = _dir_hash(IMAGES / "node-src", sh)
    vh = _dir_hash(IMAGES / "vllm-ascend", bh)
    # A variant whose environment differs from the test image's carries it in its name (a record that
    # changes it builds its test image again); the others keep the name, and the image, they always had.
    variants = {tag: "ascend-sim/vllm-ascend:%s-%s" % (_hash(vh, json.dumps(_env_diff(spec), sort_keys=True))
                                                       if _env_diff(spec) else vh, tag)
                for tag, spec in IMAGE_TAGS.items()}
    hh = _hash("haproxy", SUITE, mirror(), " ".join(_packages(IMAGES / "haproxy.packages")),
               " ".join(MMDEBSTRAP_OPTS), " ".join(HAPROXY_CHANGES))
    return Images("ascend-sim/base:" + bh, "ascend-sim/node:" + nh, "ascend-sim/vllm-ascend:" + vh, variants,
                  "ascend-sim/haproxy:" + hh, "ascend-sim/node-systemd:" + sh, "ascend-sim/node-src:" + xh)


def _alias_latest(ref: str) -> None:
    docker("tag", ref, ref.split(":", 1)[0] + ":latest")


# The official image's command and config path, so the role runs either image alike.
HAPROXY_CHANGES = ['CMD ["haproxy", "-W", "-db", "-f", "/usr/local/etc/haproxy/haproxy.cfg"]']


def _build_base(ref: str, packages: str = "base.packages", changes: tuple = ('CMD ["/bin/bash"]',)) -> None:
    if image_exists(ref):
        return
    if not shutil.which("mmdebstrap"):
        raise SimError("mmdebstrap is not installed (run scripts/ensure-system.sh)")
    pkgs = _packages(IMAGES / packages)
    say("building %s with mmdebstrap (%s)" % (ref, mirror()))
    cmd = ["mmdebstrap", *MMDEBSTRAP_OPTS, "--include=" + ",".join(pkgs), SUITE, "-",
           "deb %s %s main" % (mirror(), SUITE)]
    log = STATE_DIR / ("mmdebstrap-%s.log" % packages.split(".")[0] if packages != "base.packages" else "mmdebstrap.log")
    STATE_DIR.mkdir(parents=True, exist_ok=True)
    with open(log, "wb") as logf:
        mm = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=logf)
        imp = subprocess.run(["docker", "import", *[arg for change in changes for arg in ("--change", change)],
                              "--change", "LABEL %s=1" % LABEL, "-", ref],
                             stdin=mm.stdout, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=False)
        mm.stdout.close()
        rc = mm.wait()
    if rc != 0 or imp.returncode != 0:
        tail = log.read_text(errors="replace").splitlines()[-15:]
        raise SimError("base image build failed (mmdebstrap rc=%d, import rc=%d): %s\n%s"
                       % (rc, imp.returncode, imp.stderr.strip(), "\n".join(tail)))


def _build_dockerfile(ref: str, context: Path, base: str) -> None:
    if image_exists(ref):
        return
    say("building %s" % ref)
    proc = docker("build", "-q", "--build-arg", "BASE=" + base, "--label", "%s=1" % LABEL,
                  "-t", ref, str(context), check=False)
    if proc.returncode != 0:
        raise SimError("building %s failed:\n%s" % (ref, (proc.stderr or proc.stdout)[-3000:]))


def _build_variant(ref: str, vllm_ref: str, tag: str, spec: dict) -> None:
    if image_exists(ref):
        return
    lines = ["FROM " + vllm_ref,
             "ENV VLLM_SIM_VERSION=%s VLLM_SIM_IMAGE_TAG=%s" % (spec["version"], tag),
             "LABEL %s=1 org.opencontainers.image.version=%s" % (LABEL, tag)]
    if _env_diff(spec):
        # The release's own image environment (Dockerfile.310p ENV, as its record gives it).
        lines.append("ENV " + " ".join("%s=%s" % item for item in sorted(_env_diff(spec).items())))
    if spec["os"] == "openeuler":
        lines.append("RUN rm -f /etc/os-release && printf '%s' > /etc/os-release"
                     % 'NAME="openEuler"\\nVERSION="22.03 (LTS-SP4)"\\nID="openEuler"\\nVERSION_ID="22.03"\\n'
                       'PRETTY_NAME="openEuler 22.03 (LTS-SP4)"\\n')
        # Dockerfile.310p.openEuler preloads jemalloc from /usr/lib64 (docs/image-contract.md).
        lines.append("RUN sed -i 's#/usr/lib/[^ ]*-linux-gnu/libjemalloc.so.2#/usr/lib64/libjemalloc.so.2#' "
                     "/root/.bashrc")
    proc = docker("build", "-q", "-t", ref, "-", input="\n".join(lines) + "\n", check=False)
    if proc.returncode != 0:
        raise SimError("building %s failed: %s" % (ref, proc.stderr))


def build(force: bool = False, systemd: bool = True, sources: bool | None = None) -> Images:
    """Build (or find cached) images; a second build with unchanged inputs takes seconds.

    ``systemd=False`` leaves out the systemd node image (``up`` builds it only when a node asks for it);
    ``sources`` (default: as ``systemd``) the node-src image on top of it (a node with ``sources=PATH``).
    """
    with state_lock():
        return _build(force, systemd, systemd if sources is None else sources)


def _build(force: bool, systemd: bool = True, sources: bool = False) -> Images:
    refs = image_refs()
    if force:
        for ref in [*refs.variants.values(), refs.vllm, refs.node_src, refs.node_systemd, refs.node, refs.base,
                    refs.haproxy]:
            docker("rmi", "-f", ref, check=False)
    _build_base(refs.base)
    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        futs = [pool.submit(_build_dockerfile, refs.node, IMAGES / "node", refs.base),
                pool.submit(_build_dockerfile, refs.vllm, IMAGES / "vllm-ascend", refs.base),
                pool.submit(_build_base, refs.haproxy, "haproxy.packages", tuple(HAPROXY_CHANGES))]
        for fut in futs:
            fut.result()
    for tag, spec in IMAGE_TAGS.items():
        _build_variant(refs.variants[tag], refs.vllm, tag, spec)
    if systemd or sources:
        _build_dockerfile(refs.node_systemd, IMAGES / "node-systemd", refs.node)
    if sources:
        _build_dockerfile(refs.node_src, IMAGES / "node-src", refs.node_systemd)
    for ref in ((refs.base, refs.node, refs.vllm, refs.haproxy) + ((refs.node_systemd,) if systemd or sources else ())
                + ((refs.node_src,) if sources else ())):
        _alias_latest(ref)
    _prune_stale(refs)
    return refs


def _prune_stale(refs: Images) -> None:
    """Drop images of earlier build inputs; images a container still uses stay."""
    keep = {refs.base, refs.node, refs.vllm, refs.haproxy, refs.node_systemd, refs.node_src, *refs.variants.values()}
    out = docker("images", "--format", "{{.Repository}}:{{.Tag}}", check=False).stdout
    stale = [r for r in _lines(out) if r.split(":", 1)[0] in ("ascend-sim/base", "ascend-sim/node",
                                                              "ascend-sim/node-systemd", "ascend-sim/node-src",
                                                              "ascend-sim/vllm-ascend", "ascend-sim/haproxy")
             and r not in keep and not r.endswith(":latest")]
    for ref in stale:
        docker("rmi", ref, check=False)
    docker("image", "prune", "-f", "--filter", "label=%s=1" % LABEL, check=False)


def remove_images() -> None:
    """Remove every ascend-sim/* image (for cold benchmarks)."""
    out = docker("images", "--format", "{{.Repository}}:{{.Tag}}", check=False).stdout
    refs = [r for r in _lines(out) if r.startswith("ascend-sim/") or "/ascend/vllm-ascend:" in r]
    if refs:
        docker("rmi", "-f", *refs, check=False)
    docker("image", "prune", "-f", "--filter", "label=%s=1" % LABEL, check=False)


# ------------------------------------------------------------------- wheelhouse and sources
# Two stand-ins a node of the source install method is given (node options wheelhouse=PATH and
# sources=PATH): built once per set of inputs under the state directory, then copied in.
def _harness_module(name: str):
    """tests/sim/<name>.py as a module (whatever sys.path holds)."""
    loader = importlib.machinery.SourceFileLoader("ascend_sim_" + name, str(ROOT / (name + ".py")))
    spec = importlib.util.spec_from_loader("ascend_sim_" + name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def standin_wheels():
    """tests/sim/standin_wheels.py as a module."""
    return _harness_module("standin_wheels")


def standin_sources():
    """tests/sim/standin_sources.py as a module."""
    return _harness_module("standin_sources")


def build_wheelhouse(directory: str | Path) -> list[Path]:
    """Write the stand-in wheelhouse (vllm and vllm-ascend 0.22.0 / 0.23.0, triton-ascend, triton 3.2.0)
    into ``directory``; see standin_wheels.py. Returns the wheels' paths."""
    return standin_wheels().build_wheelhouse(directory)


def build_sources(directory: str | Path) -> list[Path]:
    """Write the stand-in source repositories (vllm.git, vllm-ascend.git, catlass.git; tags v0.22.0 and
    v0.23.0) into ``directory``; see standin_sources.py. Returns their paths."""
    return standin_sources().build_sources(directory)


def _built_once(kind: str, inputs_hash: str, build) -> Path:
    """``build(directory)``'s output for these inputs, made once under STATE_DIR/<kind>/<hash> (older ones go)."""
    target = STATE_DIR / kind / inputs_hash
    if (target / ".complete").exists():
        return target
    with state_lock():
        if not (target / ".complete").exists():
            tmp = target.with_name(target.name + ".tmp")
            shutil.rmtree(tmp, ignore_errors=True)
            build(tmp)
            (tmp / ".complete").write_text("")
            shutil.rmtree(target, ignore_errors=True)
            os.replace(tmp, target)
            for old in target.parent.iterdir():
                if old != target:
                    shutil.rmtree(old, ignore_errors=True)
    return target


def build_wheelhouse_cached() -> Path:
    """The stand-in wheelhouse for the current inputs, built once under the state directory."""
    return _built_once("wheelhouse", standin_wheels().inputs_hash(), build_wheelhouse)


def build_sources_cached() -> Path:
    """The stand-in source repositories for the current inputs, built once under the state directory."""
    return _built_once("sources", standin_sources().inputs_hash(), build_sources)


def _copy_into(node: str, path: str, entries: list[Path]) -> None:
    """Put ``entries`` (files or directories) into the directory ``path`` on a node (a created or running
    container). Docker's untar makes missing parents (0755) and leaves existing ones as they are."""
    import io  # pylint: disable=import-outside-toplevel
    import tarfile  # pylint: disable=import-outside-toplevel
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        parts = Path(path.strip("/")).parts
        info = tarfile.TarInfo("/".join(parts))
        info.type, info.mode = tarfile.DIRTYPE, 0o755
        tar.addfile(info)
        for entry in entries:
            tar.add(str(entry), arcname="/".join(parts + (entry.name,)))
    docker("cp", "-", "%s:/" % _container(node), input=buf.getvalue())


def copy_wheelhouse(node: str, path: str) -> None:
    """Put the stand-in wheelhouse at ``path`` on a node."""
    _copy_into(node, path, sorted(build_wheelhouse_cached().glob("*.whl")))


def copy_sources(node: str, path: str) -> None:
    """Put the stand-in source repositories at ``path`` on a node."""
    _copy_into(node, path, sorted(build_sources_cached().glob("*.git")))


# ------------------------------------------------------------------------------- network
def ensure_network() -> str:
    """Create the nodes' bridge network if needed; return its gateway address."""
    if docker("network", "inspect", NETWORK, check=False).returncode != 0:
        docker("network", "create", "--driver", "bridge", "--label", "%s=1" % LABEL, NETWORK, check=False)
    gw = gateway()
    if not gw:
        raise SimError("network %s has no IPv4 gateway" % NETWORK)
    return gw


def gateway() -> str | None:
    proc = docker("network", "inspect", "--format", "{{range .IPAM.Config}}{{.Gateway}} {{end}}", NETWORK,
                  check=False)
    if proc.returncode != 0:
        return None
    for addr in proc.stdout.split():
        if re.fullmatch(r"\d+\.\d+\.\d+\.\d+", addr):
            return addr
    return None


# ------------------------------------------------------------------------------ registry
def registry_info() -> dict:
    try:
        return json.loads((STATE_DIR / "registry.json").read_text())
    except (OSError, ValueError):
        return {}


def _pid_is_our_registry(pid: int) -> bool:
    try:
        cmdline = Path("/proc/%d/cmdline" % pid).read_bytes().split(b"\0")
    except OSError:
        return False
    return any(b"docker-registry" in part for part in cmdline) and \
        any(str(STATE_DIR / "registry.yml").encode() == part for part in cmdline)


def _registry_answers(port: int, host: str = "127.0.0.1") -> bool:
    try:
        with urllib.request.urlopen("http://%s:%d/v2/" % (host, port), timeout=2) as resp:
            return resp.status == 200
    except (urllib.error.URLError, OSError):
        return False


def registry_running() -> dict | None:
    info = registry_info()
    pid = info.get("pid")
    if pid and _pid_is_our_registry(int(pid)):
        return info
    return None


def registry_port() -> int:
    return int(os.environ.get("ASCEND_SIM_REGISTRY_PORT", DEFAULT_REGISTRY_PORT))


def start_registry(port: int | None = None) -> dict:
    """Run Debian's docker-registry in the background (idempotent); return its info."""
    port = port or registry_port()
    info = registry_running()
    if info and int(info["port"]) == port:
        if not _registry_answers(port):
            _wait(lambda: _registry_answers(port), 15, "registry on port %d" % port)
        return info
    if info:
        say("registry runs on port %s, restarting it on %d" % (info["port"], port))
        stop_registry()
    if _registry_answers(port):
        raise SimError("port %d already serves a registry that simctl did not start; set "
                       "ASCEND_SIM_REGISTRY_PORT or --registry-port to another port" % port)
    binary = shutil.which("docker-registry")
    if not binary:
        raise SimError("docker-registry is not installed (run scripts/ensure-system.sh)")
    STATE_DIR.mkdir(parents=True, exist_ok=True)
    storage = STATE_DIR / "registry"
    storage.mkdir(exist_ok=True)
    config = STATE_DIR / "registry.yml"
    # Bound on all addresses: the host engine pushes to 127.0.0.1 and the nodes' engines pull
    # from the bridge gateway; both must reach the same process.
    bind = os.environ.get("ASCEND_SIM_REGISTRY_BIND", "0.0.0.0")
    config.write_text(
        "version: 0.1\nlog:\n  level: info\n  accesslog:\n    disabled: true\n"
        "storage:\n  filesystem:\n    rootdirectory: %s\n  delete:\n    enabled: true\n"
        "http:\n  addr: %s:%d\n" % (storage, bind, port))
    log = open(STATE_DIR / "registry.log", "ab")
    proc = subprocess.Popen([binary, "serve", str(config)], stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True, close_fds=True)
    log.close()
    info = {"pid": proc.pid, "port": port, "storage": str(storage), "config": str(config)}
    (STATE_DIR / "registry.json").write_text(json.dumps(info) + "\n")
    (STATE_DIR / "registry.pid").write_text("%d\n" % proc.pid)

    def ready():
        if proc.poll() is not None:
            raise SimError("docker-registry exited (rc=%s); see %s" % (proc.returncode, STATE_DIR / "registry.log"))
        return _registry_answers(port)
    _wait(ready, 20, "registry on 127.0.0.1:%d" % port)
    say("registry serving on 127.0.0.1:%d (pid %d)" % (port, proc.pid))
    return info


def stop_registry() -> bool:
    info = registry_running()
    stopped = False
    if info:
        pid = int(info["pid"])
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        deadline = time.time() + 10
        while time.time() < deadline and _pid_is_our_registry(pid):
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass
            time.sleep(0.1)
        if _pid_is_our_registry(pid):
            os.kill(pid, signal.SIGKILL)
        stopped = True
        say("registry stopped")
    for name in ("registry.json", "registry.pid"):
        try:
            (STATE_DIR / name).unlink()
        except FileNotFoundError:
            pass
    return stopped


def _registry_digest(port: int, repo: str, tag: str) -> str | None:
    req = urllib.request.Request("http://127.0.0.1:%d/v2/%s/manifests/%s" % (port, repo, tag), method="HEAD",
                                 headers={"Accept": "application/vnd.docker.distribution.manifest.v2+json"})
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.headers.get("Docker-Content-Digest")
    except (urllib.error.URLError, OSError):
        return None


def push_images(refs: Images, port: int) -> None:
    """Push the test images under the real vllm-ascend (and haproxy) names (skips what is already there)."""
    pushes = [(IMAGE_REPO, tag, local) for tag, local in refs.variants.items()]
    pushes += [(HAPROXY_REPO, HAPROXY_TAG, refs.haproxy)] if refs.haproxy else []
    for repo, tag, local in pushes:
        remote = "127.0.0.1:%d/%s:%s" % (port, repo, tag)
        have = _registry_digest(port, repo, tag)
        digests = docker("image", "inspect", "--format", "{{json .RepoDigests}}", local).stdout
        if have and ("127.0.0.1:%d/%s@%s" % (port, repo, have)) in digests:
            continue
        say("pushing %s" % remote)
        docker("tag", local, remote)
        proc = docker("push", remote, check=False)
        if proc.returncode != 0:
            raise SimError("push of %s failed: %s" % (remote, proc.stderr or proc.stdout))


# --------------------------------------------------------------------------------- nodes
@dataclass
class NodeSpec:
    name: str
    platform: str
    options: dict = field(default_factory=dict)

    @property
    def container(self) -> str:
        return PREFIX + self.name

    @property
    def volume(self) -> str:
        return PREFIX + self.name + "-docker"

    def options_text(self) -> str:
        return ",".join("%s=%s" % kv for kv in self.options.items())

    def npu_options(self) -> dict:
        """The options of the simulated NPU state (the node tool's); the harness's own are left out."""
        return {key: value for key, value in self.options.items() if key not in HARNESS_OPTIONS}

    def _bool(self, key: str, default: bool) -> bool:
        value = str(self.options.get(key, "")).strip().lower()
        if value == "":
            return default
        if value in _TRUE:
            return True
        if value in _FALSE:
            return False
        raise SimError("node %s: option %s takes 1 or 0, not %r" % (self.name, key, self.options[key]))

    @property
    def systemd(self) -> bool:
        """systemd=1: systemd is PID 1 of the node container (default 0: ascend-sim init, then dockerd)."""
        return self._bool("systemd", False)

    @property
    def docker(self) -> bool:
        """docker=0: no Docker Engine on the node (its packages purged at start). Default 1."""
        return self._bool("docker", True)

    @property
    def wheelhouse(self) -> str | None:
        """wheelhouse=PATH: where on the node the stand-in wheelhouse is copied (absolute path)."""
        return self.options.get("wheelhouse") or None

    @property
    def sources(self) -> str | None:
        """sources=PATH: where on the node the stand-in source repositories are copied (absolute path); the
        node then runs the node-src image (git). Needs systemd=1."""
        return self.options.get("sources") or None

    @property
    def cann(self) -> str | None:
        """The stand-in CANN version to install on the node (cann=VERSION; cann=0 none), or None.

        Default: 9.1.0 on systemd nodes, none elsewhere (the container method brings CANN in the image)."""
        value = str(self.options.get("cann", DEFAULT_CANN if self.systemd else "0")).strip()
        return None if value.lower() in _FALSE + ("", "none") else value

    def init_env(self) -> list:
        """Environment for `ascend-sim init` of the harness's own options (none for a default node)."""
        env = []
        if self.systemd:
            env += ["-e", "ASCEND_SIM_SYSTEMD=1"]
        if not self.docker:
            env += ["-e", "ASCEND_SIM_DOCKER=0"]
        if self.cann:
            env += ["-e", "ASCEND_SIM_CANN=" + self.cann]
        return env

    def docker_run_options(self) -> list:
        """`docker run` flags of the harness's own options: ipv6=1 gives the node IPv6 (loopback ::1 and
        Docker's default link-local address), which the sandbox's default (disable_ipv6=1) withholds."""
        if str(self.options.get("ipv6", "")).lower() in ("1", "true", "yes"):
            return ["--sysctl", "net.ipv6.conf.all.disable_ipv6=0", "--sysctl", "net.ipv6.conf.default.disable_ipv6=0",
                    "--sysctl", "net.ipv6.conf.lo.disable_ipv6=0"]
        return []

    @classmethod
    def parse(cls, text: str) -> "NodeSpec":
        """``NAME:PLATFORM[:k=v,k=v]`` (e.g. ``n1:atlas_300i_duo:cards=2,npu_ids=3/8``)."""
        parts = text.split(":", 2)
        if len(parts) < 2:
            raise SimError("node spec %r: expected NAME:PLATFORM[:key=value,...]" % text)
        name, platform = parts[0], parts[1]
        opts = {}
        if len(parts) == 3 and parts[2]:
            for word in parts[2].split(","):
                key, sep, value = word.partition("=")
                if not sep:
                    raise SimError("node spec %r: option %r is not key=value" % (text, word))
                opts[key.strip()] = value.strip()
        spec = cls(name, platform, opts)
        spec.validate()
        return spec

    def validate(self) -> None:
        if not re.fullmatch(r"[a-z0-9][a-z0-9_.-]{0,40}", self.name):
            raise SimError("node name %r: use lowercase letters, digits, '.', '_' or '-'" % self.name)
        if self.platform not in PLATFORMS:
            raise SimError("node %s: unknown platform %r (one of %s)" % (self.name, self.platform, ", ".join(PLATFORMS)))
        try:
            node_tool().default_state(self.platform, self.npu_options())
        except SystemExit as exc:
            raise SimError("node %s: %s" % (self.name, exc)) from None
        self.systemd, self.docker  # noqa: B018 - raise on a bad value now, not at start
        if self.wheelhouse is not None and not self.wheelhouse.startswith("/"):
            raise SimError("node %s: wheelhouse=%s is not an absolute path" % (self.name, self.wheelhouse))
        if self.sources is not None and not self.sources.startswith("/"):
            raise SimError("node %s: sources=%s is not an absolute path" % (self.name, self.sources))
        if self.sources and not self.systemd:
            raise SimError("node %s: sources=%s needs systemd=1 (the source install method's node)"
                           % (self.name, self.sources))
        if self.cann and not re.fullmatch(r"\d+\.\d+\.\d+(\.\w+)*", self.cann):
            raise SimError("node %s: cann=%s: give a version like 9.1.0, or 0 for none" % (self.name, self.cann))


def node_containers(all_states: bool = True) -> list[dict]:
    """Harness node containers: [{name, container, platform, state, options}]."""
    args = ["ps", "--filter", "label=%s.node" % LABEL, "--format",
            '{{.Names}}\t{{.Label "ascend-sim.node"}}\t{{.Label "ascend-sim.platform"}}\t{{.State}}'
            '\t{{.Label "ascend-sim.options"}}']
    if all_states:
        args.insert(1, "-a")
    out = docker(*args).stdout
    nodes = []
    for line in _lines(out):
        cname, name, platform, state, options = (line.split("\t") + ["", "", "", "", ""])[:5]
        nodes.append({"name": name, "container": cname, "platform": platform, "state": state, "options": options})
    return sorted(nodes, key=lambda n: n["name"])


def _spec_of(node: dict) -> "NodeSpec":
    """The NodeSpec a running node was created with (from its labels)."""
    spec = NodeSpec(node["name"], node["platform"], {})
    for word in [w for w in (node.get("options") or "").split(",") if w]:
        key, _sep, value = word.partition("=")
        spec.options[key] = value
    return spec


def _container(node: str) -> str:
    return node if node.startswith(PREFIX) else PREFIX + node


def engine_ready(node: str) -> bool:
    proc = docker("exec", _container(node), "docker", "version", "--format", "{{.Server.Version}}",
                  check=False, timeout=20)
    return proc.returncode == 0


def node_ready(node: str, systemd: bool = False, engine: bool = True) -> bool:
    """Whether a node is up: systemd running (systemd=1), the setup done (docker=0), the engine answering."""
    cname = _container(node)
    if systemd:
        proc = docker("exec", cname, "systemctl", "is-system-running", check=False, timeout=20)
        state = proc.stdout.strip()
        if state in ("degraded", "maintenance"):
            failed = docker("exec", cname, "systemctl", "--failed", "--no-legend", "--plain", check=False).stdout
            raise SimError("node %s: systemd is %s; failed units:\n%s" % (cname[len(PREFIX):], state, failed))
        if state != "running":
            return False
    elif not engine:
        return docker("exec", cname, "test", "-f", "/etc/ascend-sim/ready", check=False, timeout=20).returncode == 0
    return engine_ready(cname) if engine else True


def _what(spec: "NodeSpec") -> str:
    parts = (["systemd"] if spec.systemd else []) + (["the Docker Engine"] if spec.docker else [])
    return "%s of node %s" % (" and ".join(parts) or "the setup", spec.name)


def _wait(pred, timeout: float, what: str, interval: float = 0.25) -> None:
    deadline = time.time() + timeout
    while True:
        if pred():
            return
        if time.time() > deadline:
            raise SimError("timed out after %ds waiting for %s" % (timeout, what))
        time.sleep(interval)


def start_node(spec: NodeSpec, node_image: str, registry: str, recreate: bool = False,
               timeout: float = 120) -> None:
    cname = spec.container
    inspect = docker("inspect", "--format", '{{.State.Running}}\t{{index .Config.Labels "ascend-sim.platform"}}'
                     '\t{{index .Config.Labels "ascend-sim.options"}}\t{{.Config.Image}}', cname, check=False)
    if inspect.returncode == 0:
        running, platform, opts, image = (inspect.stdout.strip().split("\t") + ["", "", "", ""])[:4]
        same = platform == spec.platform and opts == spec.options_text() and image == node_image
        if recreate or not same:
            if not same and not recreate:
                say("node %s changed (platform, options or image); recreating it" % spec.name)
            remove_node(spec.name)
        else:
            if running != "true":
                docker("start", cname)
            _wait(lambda: node_ready(cname, spec.systemd, spec.docker), timeout, _what(spec), 0.5)
            return
    if spec.docker:
        docker("volume", "create", "--label", "%s=1" % LABEL, "--label", "%s.node=%s" % (LABEL, spec.name),
               spec.volume)
    say("starting node %s (%s%s)" % (spec.name, spec.platform, ", " + spec.options_text() if spec.options else ""))
    if spec.systemd:
        # systemd is PID 1 (no --init) in the node's own cgroup namespace; `ascend-sim init` mounts
        # the node's cgroup subtree read-write, then execs /sbin/init. Tmpfs /run as systemd expects.
        pid1, mounts = ["--cgroupns", "private"], ["--tmpfs", "/run", "--tmpfs", "/run/lock"]
    else:
        pid1, mounts = ["--init", "--cgroupns", "host"], ["-v", "/sys/fs/cgroup:/sys/fs/cgroup:rw"]
    argv = ["--name", cname, "--hostname", spec.name,
            "--label", "%s=1" % LABEL, "--label", "%s.node=%s" % (LABEL, spec.name),
            "--label", "%s.platform=%s" % (LABEL, spec.platform),
            "--label", "%s.options=%s" % (LABEL, spec.options_text()),
            "--network", NETWORK, *pid1,
            # `--privileged` cannot work in this sandbox (no CAP_SYS_RESOURCE): the flags that do.
            "--cap-add", "ALL", "--cap-drop", "SYS_RESOURCE",
            "--security-opt", "seccomp=unconfined", "--security-opt", "apparmor=unconfined",
            "--device-cgroup-rule", "a *:* rwm",
            *mounts,
            *spec.docker_run_options(),
            *(["-v", "%s:/var/lib/docker" % spec.volume] if spec.docker else []),
            "-e", "ASCEND_SIM_NODE=" + spec.name, "-e", "ASCEND_SIM_PLATFORM=" + spec.platform,
            "-e", "ASCEND_SIM_OPTIONS=" + ",".join("%s=%s" % kv for kv in spec.npu_options().items()), "-e", "ASCEND_SIM_REGISTRIES=" + registry,
            *spec.init_env(),
            node_image]
    if spec.wheelhouse or spec.sources:
        # There before the node's first process runs: created, filled, then started.
        docker("create", *argv)
        if spec.wheelhouse:
            copy_wheelhouse(cname, spec.wheelhouse)
        if spec.sources:
            copy_sources(cname, spec.sources)
        docker("start", cname)
    else:
        docker("run", "-d", *argv)

    def ready():
        state = docker("inspect", "--format", "{{.State.Status}}", cname, check=False).stdout.strip()
        if state in ("exited", "dead"):
            logs = docker("logs", "--tail", "30", cname, check=False)
            raise SimError("node %s exited while starting:\n%s%s" % (spec.name, logs.stdout, logs.stderr))
        return node_ready(cname, spec.systemd, spec.docker)
    _wait(ready, timeout, _what(spec), 0.5)


def reboot_node(name: str, timeout: float = 120) -> None:
    """Reboot a node as a power cycle of a real host would: every process stops (the node's engine stops its
    containers), what a reboot clears is cleared (/tmp; /run is a fresh tmpfs on systemd nodes), the node starts
    again through its own init (device nodes, driver files, engine or systemd), and nobody re-runs anything.
    The node's disk (its container layer, /var/lib/docker) stays, as a disk does."""
    cname = _container(name)
    docker("exec", cname, "sh", "-c", "find /tmp -mindepth 1 -delete", check=False)
    docker("stop", "--time", "20", cname)
    labels = docker("inspect", "--format", '{{index .Config.Labels "ascend-sim.options"}}', cname).stdout.strip()
    spec = NodeSpec.parse("%s:%s%s" % (name, docker("inspect", "--format",
                                                    '{{index .Config.Labels "ascend-sim.platform"}}', cname)
                                       .stdout.strip(), ":" + labels if labels else ""))
    docker("start", cname)
    _wait(lambda: node_ready(cname, spec.systemd, spec.docker), timeout, _what(spec), 0.5)


def _cleanup_cgroups(node: str) -> None:
    # The nodes' engines put their containers under /ascend-sim/<node> in the host's cgroup v1
    # hierarchies; remove those (empty) directories once the node is gone.
    root = Path("/sys/fs/cgroup")
    if not root.is_dir():
        return
    for ctrl in root.iterdir():
        base = ctrl / "ascend-sim"
        target = base / node
        if not target.is_dir():
            continue
        for dirpath, _dirs, _files in sorted(os.walk(target), key=lambda t: -len(t[0])):
            try:
                os.rmdir(dirpath)
            except OSError:
                pass
        try:
            os.rmdir(base)
        except OSError:
            pass


def remove_node(name: str) -> None:
    cname = _container(name)
    node = cname[len(PREFIX):]
    if docker("inspect", cname, check=False).returncode == 0:
        # Stop first: the node's dockerd then stops its containers and cleans up after them.
        docker("stop", "-t", "20", cname, check=False, timeout=60)
        docker("rm", "-f", "-v", cname, check=False)
    vols = _lines(docker("volume", "ls", "-q", "--filter", "label=%s.node=%s" % (LABEL, node)).stdout)
    if vols:
        docker("volume", "rm", "-f", *vols, check=False)
    _cleanup_cgroups(node)
    say("node %s removed" % node)


# ----------------------------------------------------------------------------- inventory
def inventory_text(nodes: list[dict], registry: str) -> str:
    lines = ["# Written by tests/sim/simctl: simulated Atlas nodes (test harness only).",
             "all:", "  vars:", "    ascend_sim: true",
             '    image_pull_registries: ["%s"]' % registry,
             # The balancer role's HAProxy image is in the same registry.
             '    balancer_registries: ["%s"]' % registry, "  children:"]
    for platform in PLATFORMS:
        members = [n for n in nodes if n["platform"] == platform]
        lines.append("    %s:" % platform)
        if not members:
            lines.append("      hosts: {}")
            continue
        lines.append("      hosts:")
        for n in members:
            lines += ["        %s:" % n["name"],
                      "          ansible_connection: community.docker.docker",
                      "          ansible_host: %s" % n["container"],
                      "          ansible_python_interpreter: /usr/bin/python3"]
    return "\n".join(lines) + "\n"


def default_inventory_path() -> Path:
    return STATE_DIR / "inventory.yml"


def write_inventory(path: str | Path | None = None) -> Path:
    info = registry_running() or {}
    port = int(info.get("port") or registry_port())
    gw = gateway() or "127.0.0.1"
    nodes = [n for n in node_containers() if n["state"] == "running"]
    target = Path(path) if path else default_inventory_path()
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(inventory_text(nodes, "%s:%d" % (gw, port)))
    if path and Path(path).resolve() != default_inventory_path().resolve():
        default_inventory_path().parent.mkdir(parents=True, exist_ok=True)
        default_inventory_path().write_text(target.read_text())
    return target


# ----------------------------------------------------------------------------------- API
def up(specs: list[NodeSpec], inventory: str | Path | None = None, port: int | None = None,
       recreate: bool = False) -> dict:
    """Registry + images + nodes (in parallel) + inventory. Idempotent."""
    with state_lock():
        return _up(specs, inventory, port, recreate)


def _up(specs, inventory, port, recreate) -> dict:
    if not docker_ok():
        raise SimError("no Docker Engine answers (run scripts/ensure-system.sh)")
    names = [s.name for s in specs]
    if len(set(names)) != len(names):
        raise SimError("node names repeat: %s" % ", ".join(names))
    port = port or registry_port()
    t0 = time.time()
    gw = ensure_network()
    registry_info_ = start_registry(port)
    refs = build(systemd=any(s.systemd for s in specs), sources=any(s.sources for s in specs))
    if any(s.wheelhouse for s in specs):
        build_wheelhouse_cached()
    if any(s.sources for s in specs):
        build_sources_cached()
    registry = "%s:%d" % (gw, port)
    with concurrent.futures.ThreadPoolExecutor(max(1, len(specs)) + 1) as pool:
        push = pool.submit(push_images, refs, port)
        futs = {pool.submit(start_node, s, refs.node_src if s.sources else refs.node_systemd if s.systemd else refs.node,
                            registry, recreate): s
                for s in specs}
        errors = []
        for fut, spec in futs.items():
            try:
                fut.result()
            except SimError as exc:
                errors.append(str(exc))
        push.result()
    if errors:
        raise SimError("\n".join(errors))
    inv = write_inventory(inventory)
    say("up: %d node(s) ready in %.1fs; inventory %s" % (len(specs), time.time() - t0, inv))
    return {"registry": registry, "registry_local": "127.0.0.1:%d" % port, "gateway": gw,
            "inventory": str(inv), "nodes": [s.container for s in specs], "images": refs,
            "registry_pid": registry_info_.get("pid")}


def exec_node(node: str, cmd: list[str], check: bool = False, input: str | None = None,
              timeout: float | None = None) -> subprocess.CompletedProcess:
    """Run a command on a node (captured)."""
    args = ["exec"] + (["-i"] if input is not None else []) + [_container(node), *cmd]
    return docker(*args, check=check, input=input, timeout=timeout)


def set_node(node: str, pairs: list[str]) -> str:
    proc = exec_node(node, ["ascend-sim", "set", *pairs])
    if proc.returncode != 0:
        raise SimError((proc.stderr or proc.stdout).strip() or "ascend-sim set failed")
    return proc.stdout


def fault(node: str, pairs: list[str]) -> str:
    proc = exec_node(node, ["ascend-sim", "fault", *pairs])
    if proc.returncode != 0:
        raise SimError((proc.stderr or proc.stdout).strip() or "ascend-sim fault failed")
    return proc.stdout


def node_state(node: str) -> dict:
    return json.loads(exec_node(node, ["ascend-sim", "show"], check=True).stdout)


def status() -> dict:
    info = registry_running()
    nodes = node_containers()
    for n in nodes:
        spec = _spec_of(n)
        n["systemd"] = spec.systemd
        # None: the node has no engine (docker=0).
        n["engine"] = (n["state"] == "running" and engine_ready(n["container"])) if spec.docker else None
    return {"registry": info and {**info, "answers": _registry_answers(int(info["port"]))},
            "network": NETWORK if gateway() else None, "gateway": gateway(), "nodes": nodes,
            "inventory": str(default_inventory_path()) if default_inventory_path().exists() else None}


def leftovers() -> dict:
    """Everything labelled ascend-sim that still exists (containers, volumes, networks)."""
    flt = "label=%s" % LABEL
    return {
        "containers": _lines(docker("ps", "-aq", "--filter", flt).stdout),
        "volumes": _lines(docker("volume", "ls", "-q", "--filter", flt).stdout),
        "networks": _lines(docker("network", "ls", "-q", "--filter", flt).stdout),
    }


def down(nodes: list[str] | None = None, all_: bool = False, keep_registry: bool = False) -> dict:
    """Remove nodes (all with ``all_``); the network and registry go once no node remains."""
    with state_lock():
        return _down(nodes, all_, keep_registry)


def _down(nodes, all_, keep_registry) -> dict:
    if all_ or not nodes:
        targets = [n["name"] for n in node_containers()]
    else:
        targets = [n[len(PREFIX):] if n.startswith(PREFIX) else n for n in nodes]
    with concurrent.futures.ThreadPoolExecutor(max(1, len(targets))) as pool:
        list(pool.map(remove_node, targets))
    remaining = node_containers()
    if not remaining:
        if all_:
            left = leftovers()
            if left["containers"]:
                docker("rm", "-f", "-v", *left["containers"], check=False)
            if left["volumes"]:
                docker("volume", "rm", "-f", *left["volumes"], check=False)
        for net in _lines(docker("network", "ls", "-q", "--filter", "label=%s" % LABEL).stdout):
            docker("network", "rm", net, check=False)
        if not keep_registry:
            stop_registry()
        if default_inventory_path().exists():
            default_inventory_path().unlink()
    else:
        write_inventory()
    return {"removed": targets, "remaining": [n["name"] for n in remaining], "leftovers": leftovers()}
