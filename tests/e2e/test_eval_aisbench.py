"""Evaluation with the AISBench runner: playbooks/eval.yml with eval_runner=aisbench, for real.

AISBench (ais-bench-benchmark 3.1.20260630) runs on the controller from the cached environment
`make aisbench` installs once per machine (the Makefile's e2e target does it first) against the
stand-in server of one simulated Atlas 300I DUO node serving Qwen/Qwen3.5-2B (guide reference
gsm8k 77.71, textvqa 76.09), at the node's address on the simulated network. The test writes
4-question gsm8k and textvqa sets in AISBench's layouts (gsm8k: test.jsonl and the train.jsonl its
loader also opens; textvqa: questions, annotations, PNG images) and tells the stand-in to answer
three of each right, so AISBench's own scores are exactly 75.00:
- bad inputs (no AISBench installation, a gsm8k directory without train.jsonl) stop the play
  naming the variable, its value and the fix (the install command), before any request;
- at eval_tolerance 5 the gate passes: results.json holds AISBench's score and per-question
  verdicts, the performance levels from its perf mode, the table matches the JSON, two PNG plots,
  and AISBench's own run folders (configs with the guide's VLLMCustomAPIChat keys) are kept;
- at eval_tolerance 2 the play fails naming host/instance, 75.00, 77.71 and the tolerance.
"""
import json
import os
import secrets
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "sim"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import sim  # noqa: E402  pylint: disable=wrong-import-position
import eval_site  # noqa: E402  pylint: disable=wrong-import-position

PREFIX = os.environ.get("ASCEND_E2E_PREFIX", "e2e")
NODE = PREFIX + "-evalais"
API_KEY = secrets.token_hex(16)
VENV = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ascend-vllm" / "aisbench-3.1.20260630"
SETTINGS = {"eval_runner": "aisbench", "eval_concurrency": [1, 4], "eval_perf_requests": 8,
            "eval_perf_input_len": 16, "eval_perf_output_len": 12, "eval_batch_size": 4, "eval_tolerance": 5.0}


def served_requests():
    return eval_site.served_requests(NODE)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    if not sim.docker_ok():
        pytest.skip("no Docker Engine answers")
    assert (VENV / "bin" / "ais_bench").exists(), "AISBench is not installed in %s: run make aisbench" % VENV
    info = sim.up([sim.NodeSpec.parse(NODE + ":atlas_300i_duo")], inventory=tmp_path_factory.mktemp("sim") / "sim.yml")
    try:
        eval_site.prepare_node(NODE)
        address = sim.docker("inspect", "-f", "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}",
                             "ascend-sim-" + NODE).stdout.strip()
        # AISBench runs on the controller: the service is published on the node's address,
        # which takes an API key (loopback is the default).
        hosts = {NODE: {"eval_aisbench_host": address, "vllm_serve_publish_address": "0.0.0.0",
                        "vllm_serve_api_key": API_KEY}}
        site = eval_site.Site(info["registry"], tmp_path_factory.mktemp("evalais"), hosts, SETTINGS, timeout=1200)
        site.address = address
        deploy = site.playbook("site.yml")
        assert deploy.returncode == 0, deploy.stdout[-6000:]
        yield site
    finally:
        sim.down([NODE])


@pytest.mark.parametrize("change, words", [
    ({"eval_aisbench_venv": "/nonexistent/aisbench"},
     ["[eval_aisbench_venv] eval_aisbench_venv=/nonexistent/aisbench: AISBench 3.1.20260630 is not installed there",
      "Fix: run on the controller: make aisbench"]),
    ("no-train", ["[eval_dataset_dirs] eval_dataset_dirs.gsm8k=", "AISBench needs train.jsonl and test.jsonl there, "
                  "missing: train.jsonl"]),
])
def test_bad_input_stops_before_any_load(site, tmp_path, change, words):
    if change == "no-train":
        (tmp_path / "test.jsonl").write_text((site.dataset / "test.jsonl").read_text())
        change = {"eval_dataset_dirs": {"gsm8k": str(tmp_path)}, "eval_datasets": ["gsm8k"]}
    before = served_requests()
    proc = site.evaluate("bad", **change)
    assert proc.returncode != 0
    for word in words:
        assert word in proc.stdout, proc.stdout[-4000:]
    assert "no request was sent to any instance" in proc.stdout
    assert served_requests() == before
    assert not (site.reports / "bad").exists()


def test_gate_passes_with_aisbench_scores_and_perf(site):
    proc = site.evaluate("pass", eval_datasets=["gsm8k", "textvqa"])
    assert proc.returncode == 0, proc.stdout[-6000:]
    run = site.reports / "pass"
    raw = json.loads((run / "results.json").read_text())
    assert list(raw["results"]) == [NODE] and raw["failures"] == []
    (inst,) = raw["results"][NODE]
    acc = inst["accuracy"]["gsm8k"]
    assert (acc["accuracy"], acc["correct"], acc["total"]) == (75.0, 3, 4)
    assert [(d["pred"], d["answer"], d["correct"]) for d in acc["details"]] == [
        ("7", "7", True), ("36", "36", True), ("100", "100", True), ("62", "120", False)]
    tv = inst["accuracy"]["textvqa"]
    assert (tv["accuracy"], tv["correct"], tv["total"]) == (75.0, 3, 4)
    assert [d["pred"].strip() for d in tv["details"]] == ["Stop.", "Coca-Cola", "three", "blue"]
    summary = (run / "summary.md").read_text()
    assert "| %s | default | Qwen/Qwen3.5-2B | gsm8k | 75.00 | 77.71 | 72.71 | 3/4 | pass |" % NODE in summary
    assert "| %s | default | Qwen/Qwen3.5-2B | textvqa | 75.00 | 76.09 | 71.09 | 3/4 | pass |" % NODE in summary
    levels = inst["performance"]
    assert [lv["concurrency"] for lv in levels] == [1, 4]
    for lv in levels:
        assert (lv["requests"], lv["failed"]) == (8, 0)
        # 12 tokens at 2 ms each from the stand-in: AISBench's TPOT near 2 ms, TTFT under the whole reply.
        assert 1.0 <= lv["tpot_ms"]["p50"] <= 50 and lv["ttft_ms"]["p50"] < lv["e2el_ms"]["p50"]
        assert lv["output_throughput"] > 0 and lv["request_throughput"] > 0
        row = "| %s | default | %d | 8 (0) | %.2f | %.2f | %.2f / %.2f / %.2f | %.2f / %.2f / %.2f |" % (
            NODE, lv["concurrency"], lv["request_throughput"], lv["output_throughput"],
            lv["ttft_ms"]["p50"], lv["ttft_ms"]["p90"], lv["ttft_ms"]["p99"],
            lv["tpot_ms"]["p50"], lv["tpot_ms"]["p90"], lv["tpot_ms"]["p99"])
        assert row in summary and row in (run / ("%s-default.md" % NODE)).read_text()
        # AISBench's own perf results stay next to the report.
        assert (Path(lv["aisbench_dir"]) / "perf.csv").is_file()
    # The latency figure puts TTFT and TPOT side by side, each on its own axis (wider).
    for kind, size in (("throughput", (640, 400)), ("latency", (960, 400))):
        png = run / ("%s-default-%s.png" % (NODE, kind))
        import matplotlib.image  # pylint: disable=import-outside-toplevel
        height, width = matplotlib.image.imread(str(png)).shape[:2]
        assert (width, height) == size, kind
    # The config the runner wrote (the guide's VLLMCustomAPIChat block) and the one AISBench ran (its dump).
    aisbench_run = Path(inst["aisbench"]["accuracy"])
    written = (aisbench_run.parent.parent / "accuracy.py").read_text()
    for key in ("type=VLLMCustomAPIChat", "host_ip='%s'" % site.address, "host_port=8080", "model='qwen3.5'",
                "max_out_len=4096", "batch_size=4", "temperature=0.0", '"enable_thinking": False'):
        assert key in written, written
    (used,) = list((aisbench_run / "configs").glob("*.py"))
    assert "path='%s'" % site.dataset in used.read_text()


def test_gate_fails_at_a_stricter_tolerance_and_names_it(site):
    proc = site.evaluate("strict", eval_tolerance=2.0, eval_performance=False, eval_datasets=["gsm8k"])
    assert proc.returncode != 0
    assert ("%s/default: gsm8k accuracy 75.00 is below the reference 77.71 by more than eval_tolerance=2.0 "
            "(floor 75.71)" % NODE) in proc.stdout, proc.stdout[-4000:]
    raw = json.loads((site.reports / "strict" / "results.json").read_text())
    assert [f["host"] for f in raw["failures"]] == [NODE]
    assert "| FAIL |" in (site.reports / "strict" / "summary.md").read_text()
