"""The guide's docker run lines as the harness keeps them (no Docker needed)."""
from __future__ import annotations

import re

import pytest

from simtestlib import REPO
from sim_guide import GUIDE_DOCKER_RUN, docker_run_argv, guide_flags

SEED = REPO.parent / "shared" / "seed" / "000_de1b8cca3feb25fe.txt"


def test_copies_match_the_guide():
    if not SEED.exists():
        pytest.skip("deployment guide not present")
    blocks = re.findall(r"^docker run --rm \\\n.*?-it \$IMAGE bash$", SEED.read_text(), re.S | re.M)
    assert blocks == [GUIDE_DOCKER_RUN[p] for p in ("atlas_300i_duo", "atlas_200i_pro", "atlas_200i_pro_openeuler")]


def test_flags_parse():
    duo = guide_flags("atlas_300i_duo")
    assert duo.count("--device") == 11 and "--privileged" not in duo and "--shm-size=1g" in duo
    pro = guide_flags("atlas_200i_pro")
    assert "--privileged" in pro and "--shm-size=10g" in pro
    argv = docker_run_argv("atlas_200i_pro_openeuler", "reg:5000/ascend/vllm-ascend:v0.23.0-310p-openeuler",
                           ["vllm", "serve", "m"], keep=True, env={"A": "1"})
    assert argv[:2] == ["docker", "run"] and "--rm" not in argv
    # The guide types the command into the image's interactive bash (which reads ~/.bashrc).
    assert argv[-7:] == ["-e", "A=1", "-d", "reg:5000/ascend/vllm-ascend:v0.23.0-310p-openeuler",
                         "bash", "-ic", "exec vllm serve m"]
