"""One deploy end to end against vLLM 0.23.0's own server (issue 33): the real site.yml, with the platform's
defaults, on a simulated Atlas 300I DUO node whose serving container runs the reference server.

The release: the test image's v0.23.0-310p with image/Dockerfile's toolchain layer and release/Dockerfile's
`vllm` (the planned argv changed only by cpu_exceptions.py), pushed to the harness registry under a path of its
own (``<registry>/ascend-sim-refserver/ascend/vllm-ascend:v0.23.0-310p``: the shared test image's tag stays
as it is), so the inventory sets only ``image_pull_registries``, like a mirror. The node holds the cached
environment, its Python and the model read-only under /root/.cache, which the collection mounts into the
container as the model cache; ``vllm_serve_model_path`` names the model there. The collection's code is
unchanged. Part of `make contract`; tests/sim/README.md, "Contract lane"."""
from __future__ import annotations

import dataclasses
import json
import os
import re
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1] / "e2e"))

# pylint: disable=wrong-import-position
import refserver  # noqa: E402
import restarts  # noqa: E402
from site_run import managed_container, run_site, sim  # noqa: E402

pytestmark = pytest.mark.refserver

NODE = (os.environ["ASCEND_E2E_PREFIX"] + "-" if os.environ.get("ASCEND_E2E_PREFIX") else "") + "refdeploy-duo"
RELEASE = "v0.23.0-310p"  # the recorded release the platform's default tag names
REGISTRY_PATH = "ascend-sim-refserver"
PYTHON_ON_NODE = "/root/.cache/ascend-sim/refserver-python"
# A progress line of the readiness watch (module_utils/_progress.py ready_line).
PROGRESS = re.compile(r"^\[%s\] vllm-ascend is starting: .*; newest log line: (.*)$" % re.escape(NODE), re.M)


@dataclasses.dataclass
class ReferenceNode(sim.NodeSpec):
    """A simulated node that also holds read-only bind mounts (``-v`` words) from this machine."""
    mounts: tuple = ()

    def docker_run_options(self) -> list:
        return super().docker_run_options() + list(self.mounts)


def release_image(registry_local: str) -> str:
    """Build the release image (once per inputs) and push it; its name in the harness registry."""
    venv = refserver.venv()
    tools = restarts.node_image(base=sim.image_refs().variants[RELEASE], repo="ascend-sim/refserver-tools")
    local = restarts.node_image(
        base=tools, repo="ascend-sim/refserver-release", dockerfile=HERE / "release" / "Dockerfile",
        build_args=("VENV=%s" % venv, "PYTHON_HOME=%s" % restarts.python_home(venv),
                    "PYTHON_ON_NODE=" + PYTHON_ON_NODE),
        files=(HERE / "release" / "vllm", HERE / "cpu_exceptions.py"))
    remote = "%s/%s/ascend/vllm-ascend:%s" % (registry_local, REGISTRY_PATH, RELEASE)
    restarts.docker("tag", local, remote)
    restarts.docker("push", remote, locked=True)
    return remote


@pytest.fixture(scope="module")
def deployed(tmp_path_factory):
    """The node (fresh), the release pushed, and the group variables of the inventory."""
    why = sim.why_unusable() or ("" if sim.image_exists(sim.image_refs().variants[RELEASE])
                                 else "the test images are not built (tests/sim/simctl build)")
    if why:
        pytest.skip("the deploy needs the simulated nodes: %s" % why)
    venv, model = refserver.venv(), refserver.model()
    mounts = []
    for source, target in ((venv, venv), (model, model), (restarts.python_home(venv), PYTHON_ON_NODE)):
        mounts += ["-v", "%s:%s:ro" % (source, target)]
    spec = ReferenceNode(NODE, "atlas_300i_duo", {}, tuple(mounts))
    spec.validate()
    info = sim.up([spec], inventory=tmp_path_factory.mktemp("sim") / "sim.yml", recreate=True)
    try:
        release_image(info["registry_local"])
        # Only what this harness needs: its registry (as a mirror path) and the model's directory. The poll
        # interval only makes the progress lines come more often than every 30 s (the start takes 40 to 200 s).
        yield {"image_pull_registries": ["%s/%s" % (info["registry"], REGISTRY_PATH)],
               "vllm_serve_model_path": str(model), "vllm_serve_ready_poll_interval": 5}
    finally:
        sim.down([NODE])


def _words(line: str) -> str:
    return " ".join(line.split())


def _served_by_vllm(proc) -> dict:
    """The managed container ran vLLM 0.23.0's own server, and the readiness watch read its log while it
    started; ``docker inspect`` of the container."""
    container = managed_container(NODE)
    assert container["Config"]["Image"].endswith("/%s/ascend/vllm-ascend:%s" % (REGISTRY_PATH, RELEASE)), container
    log = sim.exec_node(NODE, ["docker", "logs", container["Name"].lstrip("/")], check=True)
    lines = (log.stdout + log.stderr).splitlines()
    # Its banner, the CPU exceptions the image's `vllm` applied, uvicorn's start line.
    assert any(re.search(r"\(APIServer pid=\d+\) INFO .*version 0\.23\.0$", line) for line in lines), lines[:40]
    assert "ascend-sim refserver: --dtype float16 -> bfloat16" in lines, lines[:10]
    assert any(line.endswith("Application startup complete.") for line in lines), lines[-40:]
    # The watch's progress lines quote lines of that log.
    quoted = [text.rstrip(".\u2026 ") for text in PROGRESS.findall(proc.stderr)]
    words = [_words(line) for line in lines]
    assert any("pid=" in q and any(w.startswith(q) for w in words) for q in quoted), (quoted, proc.stderr[-3000:])
    return container


def test_the_default_deploy_stops_at_the_tool_call_smoke_test(deployed, tmp_path):
    """The platform's defaults turn both chat parsers on, and the smoke tests then ask the model for a tool call:
    the lane's tiny random model never writes one (`<tool_call>` text that qwen3_coder parses), so the deploy
    fails there, after the completion, the chat and the reasoning answers passed, and says so."""
    proc, recap = run_site(tmp_path, NODE, "atlas_300i_duo", deployed)
    assert proc.returncode != 0 and recap[NODE]["failed"] == 1, (recap, proc.stdout[-6000:])
    assert "Send a chat request with the tool get_weather (tool_choice auto) and get a tool call back: no tool call " \
        "came back" in proc.stdout, proc.stdout[-6000:]
    _served_by_vllm(proc)


def test_site_deploys_the_real_server_and_a_rerun_changes_nothing(deployed, tmp_path):
    """The same deploy with the tool-call smoke test off (vllm_serve_smoke_tool_call: false; it needs a model that
    calls tools) and both parsers still on: the play succeeds, the smoke tests' completion, chat and reasoning
    answers came from vLLM, the published port answers, and a second run changes nothing."""
    group_vars = dict(deployed, vllm_serve_smoke_tool_call=False)
    # A first deploy: the container the test above left (its argv is this one's: both parsers on) goes, or this
    # run would find it serving as planned and start nothing.
    left = managed_container(NODE)
    if left:
        sim.exec_node(NODE, ["docker", "rm", "-f", left["Name"].lstrip("/")], check=True)
    (tmp_path / "first").mkdir()
    proc, recap = run_site(tmp_path / "first", NODE, "atlas_300i_duo", group_vars)
    out = proc.stdout
    assert proc.returncode == 0, out[-6000:] + proc.stderr[-3000:]
    assert recap[NODE]["failed"] == 0 and recap[NODE]["changed"] > 0, recap
    container = _served_by_vllm(proc)
    assert "--reasoning-parser" in container["Config"]["Cmd"], container["Config"]["Cmd"]
    assert "--tool-call-parser" in container["Config"]["Cmd"], container["Config"]["Cmd"]
    # The smoke tests' answers as the deploy shows them (the reasoning parser files the random model's whole
    # answer under reasoning: there is no </think> in it).
    for label in ("completions: The future of AI is", "chat: ", "reasoning: "):
        assert label in out, (label, out[-6000:])

    # A completion over the published port (127.0.0.1:8080 on the node, the role's defaults).
    body = json.dumps({"model": "qwen3.5", "prompt": "The future of AI is", "max_tokens": 16})
    answer = sim.exec_node(NODE, ["python3", "-c", "import sys, urllib.request as u; print(u.urlopen(u.Request("
                                  "'http://127.0.0.1:8080/v1/completions', data=sys.argv[1].encode(), headers="
                                  "{'Content-Type': 'application/json'}), timeout=120).read().decode())", body],
                           check=True)
    text = json.loads(answer.stdout)["choices"][0]["text"]
    assert isinstance(text, str) and text.strip(), answer.stdout

    (tmp_path / "again").mkdir()
    proc, recap = run_site(tmp_path / "again", NODE, "atlas_300i_duo", group_vars)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-3000:]
    assert recap[NODE] == {"changed": 0, "failed": 0}, (recap, proc.stdout[-6000:])
    assert managed_container(NODE)["Id"] == container["Id"]
