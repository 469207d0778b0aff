"""Chat and agent features through the smoke tests, on a simulated Atlas 300I DUO.

The real site.yml with the collection's defaults: the instance serves with the parsers of the
Qwen3.5 model cards (--reasoning-parser qwen3 --enable-auto-tool-choice --tool-call-parser
qwen3_coder), and its smoke tests get a reasoning answer in message.reasoning and a tool call
back from the test image's stand-in vllm (which answers as vLLM 0.23.0 does). A second run asks
for a tool-call parser vLLM 0.23.0 does not have: preflight refuses it with the variable, the value
and the fix, and the node keeps its container.
"""
import os
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
sys.path.insert(0, str(ROOT / "tests" / "sim"))
import sim  # noqa: E402  pylint: disable=wrong-import-position
from site_run import managed_container, run_site  # noqa: E402  pylint: disable=wrong-import-position

NODE = (os.environ["ASCEND_E2E_PREFIX"] + "-" if os.environ.get("ASCEND_E2E_PREFIX") else "") + "chat-duo"
PARSERS = ["--reasoning-parser", "qwen3", "--enable-auto-tool-choice", "--tool-call-parser", "qwen3_coder"]


@pytest.fixture(scope="module")
def registry(tmp_path_factory):
    if not sim.docker_ok():
        pytest.skip("no Docker Engine answers")
    info = sim.up([sim.NodeSpec.parse(NODE + ":atlas_300i_duo")], inventory=tmp_path_factory.mktemp("sim") / "sim.yml")
    yield info["registry"]
    sim.down([NODE])


def group_vars(registry, **more):
    return dict({"image_pull_registries": [registry], "vllm_serve_ready_poll_interval": 1,
                 "vllm_serve_ready_timeout": 120}, **more)


def test_the_smoke_tests_get_reasoning_and_a_tool_call(registry, tmp_path):
    proc, recap = run_site(tmp_path, NODE, "atlas_300i_duo", group_vars(registry))
    out = proc.stdout
    assert proc.returncode == 0, out[-6000:] + proc.stderr[-2000:]
    assert recap[NODE]["failed"] == 0, recap
    cmd = managed_container(NODE)["Config"]["Cmd"]
    assert cmd[-5:] == PARSERS, cmd
    # What the deploy's readiness check printed: the guide's two answers, then the parsers' two.
    assert re.search(r"^ +- 'reasoning: +\S", out, re.M), out[-6000:]
    assert "- 'tool call: get_weather({\"city\": \"Paris\"})'" in out, out[-6000:]


def test_a_parser_vllm_does_not_have_is_refused_in_preflight(registry, tmp_path):
    before = managed_container(NODE)
    proc, recap = run_site(tmp_path, NODE, "atlas_300i_duo",
                           group_vars(registry, vllm_serve_tool_call_parser="qwen3_codr"))
    out = proc.stdout
    assert proc.returncode != 0, out[-4000:]
    assert '- [config] vllm_serve_tool_call_parser="qwen3_codr": vLLM 0.23.0 (in image v0.23.0-310p)' in out, out[-6000:]
    assert "has no tool-call parser named qwen3_codr (did you mean qwen3_coder" in out, out[-6000:]
    assert "set vllm_serve_tool_call_parser to auto" in out, out[-6000:]
    assert "PLAY [Deploy]" not in out
    assert recap[NODE]["changed"] == 0, recap
    assert managed_container(NODE)["Id"] == before["Id"]
