"""The stand-in source repositories (standin_sources.py): cloned at a tag by the real git, built offline by the
real pip, and refusing the builds the real ones would refuse. No Docker needed (git and python3 -m venv)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

import sim
from simtestlib import SIMCTL

pytestmark = pytest.mark.skipif(not shutil.which("git"), reason="git is not installed")
# What a node's /etc/gitconfig allows (images/node-src): the catlass submodule is a local repository.
GIT = ["git", "-c", "protocol.file.allow=always", "-c", "advice.detachedHead=false"]


@pytest.fixture(scope="module")
def repos(tmp_path_factory):
    path = tmp_path_factory.mktemp("sources")
    proc = subprocess.run([sys.executable, SIMCTL, "sources", str(path)], capture_output=True, text=True, timeout=120,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    return path


def clone(repos, name, tag, dest, submodules=False):
    subprocess.run([*GIT, "clone", "-q", "--depth", "1", "--branch", tag, "file://%s/%s.git" % (repos, name),
                    str(dest)], check=True, capture_output=True, timeout=60)
    if submodules:
        subprocess.run([*GIT, "-C", str(dest), "submodule", "update", "--init", "--recursive", "-q"], check=True,
                       capture_output=True, timeout=60)
    return dest


@pytest.fixture()
def venv(tmp_path):
    path = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True, timeout=120)
    return path


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory):
    path = tmp_path_factory.mktemp("wheelhouse")
    sim.build_wheelhouse(path)
    return path


def pip_install(venv, tree, wheelhouse=None, **env):
    clean = dict((k, v) for k, v in os.environ.items()
                 if k not in ("VLLM_TARGET_DEVICE", "SOC_VERSION", "ASCEND_TOOLKIT_HOME", "ATB_HOME_PATH"))
    clean.update(env)
    links = ["--find-links", str(wheelhouse)] if wheelhouse else []
    return subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--no-index", *links, str(tree)],
                          capture_output=True, text=True, timeout=180, env=clean, check=False)


def test_the_repositories_have_both_release_tags_and_the_same_commits_every_time(repos, tmp_path):
    assert sorted(p.name for p in repos.iterdir()) == ["catlass.git", "vllm-ascend.git", "vllm.git"]
    for name in ("vllm", "vllm-ascend"):
        tags = subprocess.run(["git", "-C", str(repos / (name + ".git")), "tag"], capture_output=True, text=True,
                              check=True).stdout.split()
        assert tags == ["v0.22.0", "v0.23.0"]
    again = sim.build_sources(tmp_path / "again")
    for repo in again:
        heads = [subprocess.run(["git", "-C", str(path), "rev-parse", "v0.23.0" if "catlass" not in path.name else "HEAD"],
                                capture_output=True, text=True, check=True).stdout for path in (repo, repos / repo.name)]
        assert heads[0] == heads[1], repo.name


def test_a_tag_checks_out_its_version_and_the_submodule_comes_with_recursive_only(repos, tmp_path):
    old = clone(repos, "vllm-ascend", "v0.22.0", tmp_path / "old")
    assert json.loads((old / "ascend_sim_build" / "standin.json").read_text())["version"] == "0.22.0"
    assert not any((old / "csrc" / "third_party" / "catlass").glob("*"))
    new = clone(repos, "vllm-ascend", "v0.23.0", tmp_path / "new", submodules=True)
    assert json.loads((new / "ascend_sim_build" / "standin.json").read_text())["version"] == "0.23.0"
    assert (new / "csrc" / "third_party" / "catlass" / "include" / "catlass" / "catlass.hpp").is_file()
    # The tree packs the stand-in wheel's content, not a fork of it.
    assert (new / "ascend_sim_build" / "standin_wheels.py").read_bytes() == (sim.ROOT / "standin_wheels.py").read_bytes()


def test_vllm_builds_offline_only_for_the_empty_target(repos, venv, tmp_path):
    tree = clone(repos, "vllm", "v0.23.0", tmp_path / "vllm")
    proc = pip_install(venv, tree)
    assert proc.returncode != 0 and "VLLM_TARGET_DEVICE=cuda" in proc.stdout + proc.stderr
    proc = pip_install(venv, tree, VLLM_TARGET_DEVICE="empty")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = subprocess.run([str(venv / "bin" / "python"), "-c", "import vllm; print(vllm.__version__)"],
                         capture_output=True, text=True, check=True).stdout.strip()
    assert out == "0.23.0"


@pytest.mark.parametrize("env, words", [
    ({}, "SOC_VERSION is not set"),
    ({"SOC_VERSION": "ascend910b1"}, "SOC_VERSION=ascend910b1 does not select the 310P code"),
    ({"SOC_VERSION": "ascend310p1"}, "ASCEND_TOOLKIT_HOME=None is not a directory"),
    ({"SOC_VERSION": "ascend310p1", "ASCEND_TOOLKIT_HOME": "/"}, "ATB_HOME_PATH is not set"),
])
def test_vllm_ascend_refuses_a_build_without_the_310p_soc_or_the_cann_environment(repos, venv, tmp_path, env, words):
    tree = clone(repos, "vllm-ascend", "v0.23.0", tmp_path / "va", submodules=True)
    proc = pip_install(venv, tree, **env)
    assert proc.returncode != 0 and words in proc.stdout + proc.stderr, proc.stdout + proc.stderr


def test_vllm_ascend_needs_its_submodule_and_pulls_triton_from_the_wheelhouse(repos, venv, wheelhouse, tmp_path):
    env = {"SOC_VERSION": "ascend310p1", "ASCEND_TOOLKIT_HOME": "/", "ATB_HOME_PATH": "/"}
    bare = clone(repos, "vllm-ascend", "v0.23.0", tmp_path / "bare")
    proc = pip_install(venv, bare, wheelhouse, **env)
    assert proc.returncode != 0 and "csrc/third_party/catlass is empty" in proc.stdout + proc.stderr
    tree = clone(repos, "vllm-ascend", "v0.23.0", tmp_path / "va", submodules=True)
    proc = pip_install(venv, tree, **env)
    assert proc.returncode != 0 and "No matching distribution found" in proc.stdout + proc.stderr  # no wheelhouse
    proc = pip_install(venv, tree, wheelhouse, **env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    listed = json.loads(subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "list", "--format", "json"],
                                       capture_output=True, text=True, check=True).stdout)
    versions = dict((p["name"].lower(), p["version"]) for p in listed)
    assert versions["vllm-ascend"] == "0.23.0" and versions["triton-ascend"] == "3.2.0" and "triton" in versions
