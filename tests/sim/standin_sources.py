"""Stand-in source repositories of vLLM and vllm-ascend, as local bare git repositories (test harness only).

``vllm_serve_source_build`` clones vLLM and vllm-ascend at their release tags and pip-installs each checkout, as
vllm-ascend's installation docs at v0.23.0 describe ("Build from source": ``git clone --depth 1 --branch
v0.23.0 ...``, ``VLLM_TARGET_DEVICE=empty pip install -e .``, ``git submodule update --init --recursive``) and its
``Dockerfile.310p`` does (``SOC_VERSION="ascend310p1"``, both CANN ``set_env.sh`` sourced first). These
repositories let a simulated node do that offline:

- ``vllm.git`` and ``vllm-ascend.git``: tags ``v0.22.0`` and ``v0.23.0``, one commit each; ``vllm-ascend.git`` has
  the submodule ``csrc/third_party/catlass`` (``catlass.git``, URL ``../catlass.git``, relative to the clone's
  origin), where the real one has its catlass submodule.
- Each tree is a PEP 517 project whose build backend (``ascend_sim_build/backend.py``, stdlib only, no build
  dependency, so pip builds it offline even with build isolation) writes the stand-in wheel of
  ``standin_wheels.py`` (copied into the tree byte for byte with the stand-in server it packs: the same package
  content as the stand-in wheelhouse, not a fork) after the checks the real builds make:

  - vLLM: fails unless ``VLLM_TARGET_DEVICE=empty`` (the real default target, CUDA, fails without CUDA);
  - vllm-ascend: fails without ``SOC_VERSION``, or with one that vllm-ascend's ``setup.py`` ``soc_to_device`` does
    not map to ``_310P`` (the stand-in builds only the 310P package), without ``ASCEND_TOOLKIT_HOME`` (given by
    ``ascend-toolkit/set_env.sh``) or ``ATB_HOME_PATH`` (``nnal/atb/set_env.sh``), or without the catlass
    submodule checked out (``csrc/build_aclnn.sh`` needs it for the 310P operators).

  The wheels are ``py3-none-any`` and carry the stand-ins' metadata, so vllm-ascend still requires
  ``triton-ascend`` (from the wheelhouse) and the guide's removal of triton matters.

Commits have fixed authors and dates, so a build gives the same commit ids every time. Needs git on the machine
that writes them; the node needs git to clone them (image ``ascend-sim/node-src``).
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
WHEELS = ROOT / "standin_wheels.py"
SERVER = ROOT / "images" / "vllm-ascend" / "vllm"
VERSIONS = ("0.22.0", "0.23.0")
CATLASS = "csrc/third_party/catlass"
REPOS = ("vllm", "vllm-ascend", "catlass")

PYPROJECT = """\
# ascend-sim stand-in (tests/sim/standin_sources.py): a PEP 517 project with an in-tree backend and no build
# dependency, so pip builds it offline.
[build-system]
requires = []
build-backend = "backend"
backend-path = ["ascend_sim_build"]
"""

BACKEND = '''"""PEP 517 backend of the ascend-sim stand-in source tree (tests/sim/standin_sources.py; test harness only).

Checks what the real build needs, then writes the stand-in wheel (standin_wheels.py beside this file).
"""
import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TREE = HERE.parent
sys.path.insert(0, str(HERE))
import standin_wheels  # noqa: E402

# vllm-ascend setup.py at v0.23.0, soc_to_device: the SOC_VERSION values that select the 310P code (_310P).
SOC_310P = ("310p", "ascend310p1", "ascend310p3", "ascend310p5", "ascend310p7", "ascend310p3vir01",
            "ascend310p3vir02", "ascend310p3vir04", "ascend310p3vir08")
CATLASS = "%(catlass)s"
BUILD_SECONDS = 3


def _project():
    return json.loads((HERE / "standin.json").read_text())


def _fail(text):
    raise RuntimeError("ascend-sim stand-in build of %%s: %%s" %% (_project()["name"], text))


def _check():
    project = _project()
    env = os.environ
    if project["name"] == "vllm":
        target = env.get("VLLM_TARGET_DEVICE", "cuda")
        if target != "empty":
            _fail("VLLM_TARGET_DEVICE=%%s: the %%s kernels need a toolkit this machine does not have; vllm-ascend's "
                  "installation docs build vLLM with VLLM_TARGET_DEVICE=empty" %% (target, target.upper()))
        return
    soc = env.get("SOC_VERSION")
    if not soc:
        _fail("SOC_VERSION is not set and npu-smi is not asked: set it (installation.md, Atlas 300I DUO: "
              "export SOC_VERSION=ascend310p1)")
    if soc not in SOC_310P:
        _fail("SOC_VERSION=%%s does not select the 310P code (setup.py soc_to_device): this stand-in builds only "
              "the 310P package" %% soc)
    home = env.get("ASCEND_TOOLKIT_HOME")
    if not home or not os.path.isdir(home):
        _fail("ASCEND_TOOLKIT_HOME=%%r is not a directory: source /usr/local/Ascend/ascend-toolkit/set_env.sh "
              "first" %% home)
    if not env.get("ATB_HOME_PATH"):
        _fail("ATB_HOME_PATH is not set: source /usr/local/Ascend/nnal/atb/set_env.sh first")
    if not any((TREE / CATLASS).glob("include/*")):
        _fail("%%s is empty: run git submodule update --init --recursive" %% CATLASS)


def get_requires_for_build_wheel(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    _check()
    project = _project()
    # The real builds take minutes and print little; a few seconds with a line before them let a test see the
    # progress lines (job_wait, one a second) that the operator sees.
    print("ascend-sim stand-in: building %%s %%s" %% (project["name"], project["version"]), flush=True)
    time.sleep(BUILD_SECONDS)
    write = standin_wheels.vllm_wheel if project["name"] == "vllm" else standin_wheels.vllm_ascend_wheel
    return write(Path(wheel_directory), project["version"]).name
''' % {"catlass": CATLASS}


def inputs_hash() -> str:
    """What the repositories are built from: this file, standin_wheels.py and the stand-in server."""
    h = hashlib.sha256()
    for path in (Path(__file__).resolve(), WHEELS, SERVER):
        h.update(path.read_bytes())
        h.update(b"\0")
    return h.hexdigest()[:16]


def _git(cwd: Path, *args: str, date: str = "2026-01-01T00:00:00Z") -> str:
    env = dict(os.environ, GIT_AUTHOR_NAME="ascend-sim", GIT_AUTHOR_EMAIL="ascend-sim@example.com",
               GIT_COMMITTER_NAME="ascend-sim", GIT_COMMITTER_EMAIL="ascend-sim@example.com",
               GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date, GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    proc = subprocess.run(["git", *args], cwd=str(cwd), env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError("git %s failed in %s: %s" % (" ".join(args), cwd, proc.stderr.strip()))
    return proc.stdout.strip()


def _init(work: Path) -> None:
    work.mkdir(parents=True)
    _git(work, "init", "-q", "-b", "main")


def _tree(work: Path, name: str, version: str) -> None:
    build = work / "ascend_sim_build"
    (build / "images" / "vllm-ascend").mkdir(parents=True, exist_ok=True)
    (work / "pyproject.toml").write_text(PYPROJECT)
    (build / "backend.py").write_text(BACKEND)
    shutil.copyfile(WHEELS, build / "standin_wheels.py")
    shutil.copyfile(SERVER, build / "images" / "vllm-ascend" / "vllm")
    (build / "standin.json").write_text(json.dumps({"name": name, "version": version}, indent=1) + "\n")
    (work / "README.md").write_text("ascend-sim stand-in source tree of %s %s (test harness only)\n" % (name, version))


def build_sources(directory) -> list:
    """Write ``vllm.git``, ``vllm-ascend.git`` and ``catlass.git`` (bare) into ``directory``; return their paths."""
    directory = Path(directory).resolve()
    directory.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="ascend-sim-sources-") as tmp:
        tmp = Path(tmp)
        catlass = tmp / "catlass"
        _init(catlass)
        (catlass / "include" / "catlass").mkdir(parents=True)
        (catlass / "include" / "catlass" / "catlass.hpp").write_text("// ascend-sim stand-in of catlass\n")
        _git(catlass, "add", "-A")
        _git(catlass, "commit", "-q", "-m", "catlass (ascend-sim stand-in)")
        catlass_commit = _git(catlass, "rev-parse", "HEAD")
        for name in ("vllm", "vllm-ascend"):
            work = tmp / name
            _init(work)
            for index, version in enumerate(VERSIONS):
                _tree(work, name, version)
                # Named, not -A: -A would drop the submodule, whose directory is empty here.
                _git(work, "add", "--", "pyproject.toml", "README.md", "ascend_sim_build")
                if name == "vllm-ascend" and index == 0:
                    # The submodule as `git submodule add ../catlass.git csrc/third_party/catlass` records it.
                    (work / ".gitmodules").write_text('[submodule "%s"]\n\tpath = %s\n\turl = ../catlass.git\n'
                                                      % (CATLASS, CATLASS))
                    _git(work, "add", ".gitmodules")
                    _git(work, "update-index", "--add", "--cacheinfo", "160000,%s,%s" % (catlass_commit, CATLASS))
                _git(work, "commit", "-q", "-m", "%s %s (ascend-sim stand-in)" % (name, version),
                     date="2026-01-%02dT00:00:00Z" % (index + 1))
                _git(work, "tag", "v" + version)
        out = []
        for name in REPOS:
            target = directory / (name + ".git")
            shutil.rmtree(target, ignore_errors=True)
            _git(directory, "clone", "-q", "--bare", str(tmp / name), str(target))
            out.append(target)
    return out
