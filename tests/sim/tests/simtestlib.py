"""Shared constants and helpers of the harness tests (tests/sim/tests)."""
from __future__ import annotations

import os
import sys
from pathlib import Path

SIM_DIR = Path(__file__).resolve().parents[1]
REPO = SIM_DIR.parents[1]
sys.path.insert(0, str(SIM_DIR))

SIMCTL = str(SIM_DIR / "simctl.py")

# Nodes of this test session (names prefixed so they never clash with a developer's nodes).
SESSION_NODES = {
    "pt-duo4": "atlas_300i_duo:cards=4",   # 8 chips: every --device of the guide's 300I DUO line
    "pt-duo": "atlas_300i_duo",            # the default node: npu-smi equals fixture 02
    "pt-pro": "atlas_200i_pro",
    "pt-oe": "atlas_200i_pro_openeuler",
}


def fixture_dir() -> Path | None:
    candidates = [os.environ.get("ASCEND_SIM_FIXTURES", ""),
                  str(REPO.parent / "shared" / "fixtures" / "npu-smi"),
                  # The repository's own verbatim copy (checked against shared/ by the unit tests).
                  str(REPO / "tests" / "integration" / "targets" / "npu_facts" / "files"),
                  str(REPO / "tests" / "unit" / "fixtures" / "npu-smi"),
                  str(REPO / "tests" / "fixtures" / "npu-smi")]
    for cand in candidates:
        if cand and (Path(cand) / "02_npu-smi-info_300IDuo-96G_1card_2chips_idle_25.2.0.txt").exists():
            return Path(cand)
    return None


def fixture_text(directory: Path, prefix: str) -> str:
    (match,) = sorted(directory.glob(prefix + "*"))
    return match.read_text()
