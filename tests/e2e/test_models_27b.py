"""Qwen3.5-27B and Qwen3.6-27B (W8A8) on a simulated Atlas 300I DUO node with two cards.

vllm-ascend docs, "Qwen3.5-27B & Qwen3.6-27B" tutorial (branch releases/v0.23.0, the line of
the pinned image v0.23.0-310p), section 5.1, tab "Atlas 300I DUO". The real site.yml, with
only what an operator types (the model, the TP size, the length):
- Qwen3.6-27B-w8a8 at TP 4 runs the tutorial's command (plus the --quantization ascend its
  prose asks for; host and port are the container's), on chips 0-3 of two cards, and answers;
- Qwen3.5-27B-w8a8 at TP 2 with the values of vllm-ascend's weekly 300I DUO CI replaces it
  and answers on chips 0-1;
- TP 1 is refused in preflight, naming the variable, and the node is left alone.
"""
import json
import os
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "sim"))
import sim  # noqa: E402  pylint: disable=wrong-import-position
from site_run import managed_container, run_site  # noqa: E402  pylint: disable=wrong-import-position

NODE = os.environ.get("ASCEND_E2E_PREFIX", "e2e") + "-duo27b"
GROUP = "atlas_300i_duo"


def tutorial_argv(model, served):
    """The tutorial's 300I DUO command, JSON written compactly, served on the container's 0.0.0.0:8080."""
    return [
        "vllm", "serve", model,
        "--host", "0.0.0.0",
        "--port", "8080",
        "--tensor-parallel-size", "4",
        "--served-model-name", served,
        "--max-num-seqs", "128",
        "--max-model-len", "16384",
        "--trust-remote-code",
        "--gpu-memory-utilization", "0.90",
        "--mamba-ssm-cache-dtype", "float16",
        "--dtype", "float16",
        "--quantization", "ascend",
        "--speculative-config", '{"method":"qwen3_5_mtp","num_speculative_tokens":1}',
        "--compilation-config", '{"cudagraph_mode":"FULL_DECODE_ONLY","cudagraph_capture_sizes":[2,8]}',
        "--additional-config", '{"ascend_compilation_config":{"enable_npugraph_ex":false}}',
        # Not in the tutorial's command: the parsers of the Qwen3.5/3.6 model cards, on by default.
        "--reasoning-parser", "qwen3", "--enable-auto-tool-choice", "--tool-call-parser", "qwen3_coder",
    ]


class Site:
    def __init__(self, registry, workdir):
        self.registry = registry
        self.workdir = workdir

    def run(self, **group_vars):
        base = {"image_pull_registries": [self.registry], "vllm_serve_ready_poll_interval": 1,
                "vllm_serve_ready_timeout": 120}
        base.update(group_vars)
        return run_site(self.workdir, NODE, GROUP, base)

    @staticmethod
    def container():
        return managed_container(NODE)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    if not sim.docker_ok():
        pytest.skip("no Docker Engine answers")
    info = sim.up([sim.NodeSpec.parse("%s:atlas_300i_duo:cards=2" % NODE)],
                  inventory=tmp_path_factory.mktemp("sim") / "sim.yml")
    yield Site(info["registry"], tmp_path_factory.mktemp("e2e"))
    sim.down([NODE])


def completion(served):
    script = ("import json, urllib.request\n"
              "req = urllib.request.Request('http://127.0.0.1:8080/v1/completions', method='POST',\n"
              "    data=json.dumps({'model': %r, 'prompt': 'The future of AI is', 'max_tokens': 8}).encode(),\n"
              "    headers={'Content-Type': 'application/json'})\n"
              "with urllib.request.urlopen(req, timeout=30) as resp:\n"
              "    print(resp.status); print(resp.read().decode())\n" % served)
    res = sim.exec_node(NODE, ["python3", "-c", script], timeout=60)
    assert res.returncode == 0, res.stdout + res.stderr
    status, body = res.stdout.split("\n", 1)
    return int(status), json.loads(body)


def chips(info):
    return [d["PathOnHost"] for d in info["HostConfig"]["Devices"] if re.match(r"/dev/davinci\d+$", d["PathOnHost"])]


def test_qwen36_27b_at_tp4_runs_the_tutorial_command_across_two_cards(site):
    smi = sim.exec_node(NODE, ["npu-smi", "info"]).stdout
    assert smi.count("310P3") == 4, smi
    proc, recap = site.run(vllm_serve_model="Eco-Tech/Qwen3.6-27B-w8a8", vllm_serve_tensor_parallel_size=4,
                           vllm_serve_max_model_len=16384)
    assert proc.returncode == 0, proc.stdout[-6000:]
    assert recap[NODE]["failed"] == 0 and recap[NODE]["changed"] > 0, recap
    info = site.container()
    assert info["State"]["Running"], info["State"]
    assert info["Config"]["Cmd"] == tutorial_argv("Eco-Tech/Qwen3.6-27B-w8a8", "qwen3.6")
    assert chips(info) == ["/dev/davinci0", "/dev/davinci1", "/dev/davinci2", "/dev/davinci3"]
    status, body = completion("qwen3.6")
    assert status == 200 and body["choices"][0]["text"], body
    assert re.search(r"Eco-Tech/Qwen3\.6-27B-w8a8 as qwen3\.6 in \S+ on chips 0,1,2,3,\s+port 8080: ready",
                     proc.stdout), proc.stdout[-3000:]


def test_qwen35_27b_at_tp2_with_the_ci_values_replaces_it(site):
    # vllm-ascend weekly CI (main): Qwen3.6-27B-W8A8-310P-300I-DUO.yaml runs TP 2, 16 sequences,
    # 20480 tokens, 0.80 and capture sizes [8,16] without MTP; here with the Qwen3.5 checkpoint.
    proc, recap = site.run(vllm_serve_model="Eco-Tech/Qwen3.5-27B-w8a8-mtp", vllm_serve_tensor_parallel_size=2,
                           vllm_serve_max_model_len=20480, vllm_serve_max_num_seqs=16,
                           vllm_serve_gpu_memory_utilization=0.8, vllm_serve_num_speculative_tokens=0,
                           vllm_serve_cudagraph_batch_sizes=[8, 16])
    assert proc.returncode == 0, proc.stdout[-6000:]
    info = site.container()
    cmd = info["Config"]["Cmd"]
    assert cmd[:3] == ["vllm", "serve", "Eco-Tech/Qwen3.5-27B-w8a8-mtp"]
    assert cmd[cmd.index("--tensor-parallel-size") + 1] == "2"
    assert cmd[cmd.index("--quantization") + 1] == "ascend"
    assert json.loads(cmd[cmd.index("--compilation-config") + 1])["cudagraph_capture_sizes"] == [8, 16]
    assert "--speculative-config" not in cmd
    assert chips(info) == ["/dev/davinci0", "/dev/davinci1"]
    status, body = completion("qwen3.5")
    assert status == 200 and body["choices"][0]["text"], body


def test_tp1_is_refused_before_any_change(site):
    before = site.container()["Id"]
    proc, recap = site.run(vllm_serve_model="Eco-Tech/Qwen3.6-27B-w8a8", vllm_serve_tensor_parallel_size=1,
                           vllm_serve_max_model_len=16384)
    assert proc.returncode != 0
    assert re.search(r"vllm_serve_tensor_parallel_size=1: TP 1 is not supported for Eco-Tech/Qwen3\.6-27B-w8a8 "
                     r"on atlas_300i_duo; allowed: \[2, 4\]", proc.stdout), proc.stdout[-4000:]
    assert recap[NODE]["changed"] == 0, recap
    assert site.container()["Id"] == before
