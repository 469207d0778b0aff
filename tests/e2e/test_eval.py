"""Evaluation after deploy: playbooks/eval.yml for real against the stand-in server.

Two simulated Atlas 300I DUO nodes serve Qwen/Qwen3.5-2B (the demo inventory's values;
guide reference gsm8k 77.71, textvqa 76.09). The test writes 4-question gsm8k and textvqa
sets on the controller (tests/e2e/eval_datasets.py) and tells the stand-in (answers.json on
each node) to answer three of each right, so the expected accuracy is exactly 75.00:
- bad inputs (unknown dataset, missing dataset directory, tolerance out of range, an
  instance that is down) each stop the play naming the variable, value and fix, and no
  request reaches a server (its /metrics count is unchanged);
- at eval_tolerance 5 the gate passes (floor 72.71): one run folder with results.json,
  summary.md (both hosts in one table, the reference beside each score, matching the
  JSON; textvqa sent as image and question and scored as AISBench's TEXTEvaluator does), a table and two PNG plots per instance, the AISBench model config,
  one figure comparing both hosts, and the provenance (container, image and its registry digest, argv,
  driver, hostname, as the node itself reports them; CANN and firmware "unknown" on the stand-in);
- a relative eval_report_dir lands under the directory ansible-playbook was run from;
- at eval_tolerance 2 (floor 75.71) the play fails naming host/instance, 75.00, 77.71
  and the tolerance, and the report is still written.
"""
import json
import os
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "sim"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import sim  # noqa: E402  pylint: disable=wrong-import-position
from eval_site import Site, prepare_node, served_requests  # noqa: E402  pylint: disable=wrong-import-position

PREFIX = os.environ.get("ASCEND_E2E_PREFIX", "e2e")
NODES = [PREFIX + "-eval1", PREFIX + "-eval2"]
SETTINGS = {"eval_concurrency": [1, 2, 4], "eval_perf_requests": 8, "eval_perf_input_len": 16,
            "eval_perf_output_len": 12, "eval_batch_size": 4, "eval_tolerance": 5.0}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    if not sim.docker_ok():
        pytest.skip("no Docker Engine answers")
    info = sim.up([sim.NodeSpec.parse(n + ":atlas_300i_duo") for n in NODES],
                  inventory=tmp_path_factory.mktemp("sim") / "sim.yml")
    try:
        for node in NODES:
            prepare_node(node)
        site = Site(info["registry"], tmp_path_factory.mktemp("eval"), {n: {} for n in NODES}, SETTINGS, train=False)
        deploy = site.playbook("site.yml")
        assert deploy.returncode == 0, deploy.stdout[-6000:]
        yield site
    finally:
        sim.down(NODES)


@pytest.mark.parametrize("change, words", [
    ({"eval_datasets": ["gsm8k", "mmlu"]}, ["[eval_datasets] eval_datasets: unknown dataset 'mmlu'", "use one of: gsm8k"]),
    ({"eval_dataset_dirs": {"gsm8k": "/nonexistent/gsm8k"}},
     ["[eval_dataset_dirs] eval_dataset_dirs.gsm8k=/nonexistent/gsm8k: no such directory", "test.jsonl"]),
    ({"eval_tolerance": 150}, ["[eval_tolerance] eval_tolerance=150", "from 0 to 100", "Fix: e.g. eval_tolerance: 2.0"]),
    ({"eval_instances": [{"name": "ghost", "port": 9099}]},
     ["instance ghost (port 9099) does not answer at http://127.0.0.1:9099/v1/models", "Fix: deploy it first"]),
])
def test_bad_input_stops_before_any_load(site, change, words):
    before = [served_requests(n) for n in NODES]
    proc = site.evaluate("bad", **change)
    assert proc.returncode != 0
    for word in words:
        assert word in proc.stdout, proc.stdout[-4000:]
    assert "no request was sent to any instance" in proc.stdout
    assert [served_requests(n) for n in NODES] == before
    assert not (site.reports / "bad").exists()


def test_gate_passes_and_writes_one_report_for_both_hosts(site):
    proc = site.evaluate("pass", eval_datasets=["gsm8k", "textvqa"], eval_poll_interval=1)
    assert proc.returncode == 0, proc.stdout[-6000:]
    # The run is an async job whose progress was asked each second: each line printed names the requests done.
    lines = re.findall(r"^\[\S+\] evaluating the instances of \S+: .*$", proc.stderr, re.M)
    print("evaluation progress lines:", lines)
    assert all(re.search(r"; (newest line: (probed \d+ instance\(s\)|default: (gsm8k|textvqa) \d+/4 answered|"
                         r"default: performance at concurrency \d, \d/8 requests done)|no output yet)$", line)
               for line in lines), lines
    run = site.reports / "pass"
    raw = json.loads((run / "results.json").read_text())
    assert sorted(raw["results"]) == NODES and raw["failures"] == []
    summary = (run / "summary.md").read_text()
    for node in NODES:
        (inst,) = raw["results"][node]
        acc = inst["accuracy"]["gsm8k"]
        assert (acc["accuracy"], acc["correct"], acc["total"]) == (75.0, 3, 4)
        assert [d["pred"] for d in acc["details"]] == ["7", "36", "100", "62"]
        assert inst["model"] == "Qwen/Qwen3.5-2B" and inst["served"] == "qwen3.5"
        # The summary row beside the reference, and the floor at tolerance 5.
        assert "| %s | default | Qwen/Qwen3.5-2B | gsm8k | 75.00 | 77.71 | 72.71 | 3/4 | pass |" % node in summary
        tv = inst["accuracy"]["textvqa"]
        assert (tv["accuracy"], tv["correct"], tv["total"]) == (75.0, 3, 4)
        assert [(d["pred"], d["score"]) for d in tv["details"]] == [
            ("Stop.", 1.0), ("Coca-Cola", 1.0), ("three", 1.0), ("blue", 0.0)]
        assert "| %s | default | Qwen/Qwen3.5-2B | textvqa | 75.00 | 76.09 | 71.09 | 3/4 | pass |" % node in summary
        levels = inst["performance"]
        assert [lv["concurrency"] for lv in levels] == [1, 2, 4]
        for lv in levels:
            assert lv["failed"] == 0 and lv["requests"] == 8 and len(lv["records"]) == 8
            # 12 tokens at 2 ms each: TPOT near 2 ms, TTFT well under the whole reply.
            assert 1.5 <= lv["tpot_ms"]["p50"] <= 50 and lv["ttft_ms"]["p50"] < lv["e2el_ms"]["p50"]
            row = "| %s | default | %d | 8 (0) | %.2f | %.2f | %.2f / %.2f / %.2f | %.2f / %.2f / %.2f |" % (
                node, lv["concurrency"], lv["request_throughput"], lv["output_throughput"],
                lv["ttft_ms"]["p50"], lv["ttft_ms"]["p90"], lv["ttft_ms"]["p99"],
                lv["tpot_ms"]["p50"], lv["tpot_ms"]["p90"], lv["tpot_ms"]["p99"])
            assert row in summary and row in (run / ("%s-default.md" % node)).read_text()
        # Throughput; TTFT and TPOT side by side, each on its own axis.
        for kind, size in (("throughput", (640, 400)), ("latency", (960, 400))):
            assert png_size(run / ("%s-default-%s.png" % (node, kind))) == size
        check_provenance(node, raw["provenance"][node], summary)
        config = (run / ("%s-default-vllm_api_general_chat.py" % node)).read_text()
        for key in ('type=VLLMCustomAPIChat', 'host_ip=\'127.0.0.1\'', 'host_port=8080', "model='qwen3.5'",
                    'max_out_len=4096', 'batch_size=4', 'temperature=0.0', '"enable_thinking": False'):
            assert key in config
    # Every host of the run in one figure: throughput, TTFT and TPOT.
    assert png_size(run / "compare.png") == (1440, 450)
    assert "written %s" % raw["date"] in summary


def png_size(path):
    """(width, height) of a PNG file."""
    import matplotlib.image  # pylint: disable=import-outside-toplevel
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", path
    height, width = matplotlib.image.imread(str(path)).shape[:2]
    return width, height


def check_provenance(node, prov, summary):
    """What the report says ran is what the node says: its container, image digest, driver and hostname."""
    ids = sim.exec_node(node, ["docker", "ps", "-q", "--no-trunc", "--filter", "label=ascend.vllm.managed-by=ascend.vllm"])
    [info] = json.loads(sim.exec_node(node, ["docker", "inspect"] + ids.stdout.split()).stdout)
    [image] = json.loads(sim.exec_node(node, ["docker", "image", "inspect", info["Image"]]).stdout)
    driver = sim.exec_node(node, ["cat", "/usr/local/Ascend/driver/version.info"]).stdout
    hostname = sim.exec_node(node, ["hostname"]).stdout.strip()
    (inst,) = prov["instances"]
    assert prov["node"] == {"hostname": hostname, "driver": driver.split("Version=", 1)[1].split()[0],
                            "firmware": "unknown"}, prov
    assert inst["container"] == info["Name"].lstrip("/") and inst["image"] == info["Config"]["Image"]
    assert inst["image_id"] == info["Image"] and "vllm-ascend" in inst["image"]
    # Pulled from the registry: the digest is the registry's, as the node's engine records it.
    assert inst["digest"].startswith("sha256:") and any(d.endswith("@" + inst["digest"]) for d in image["RepoDigests"])
    assert inst["argv"] == (info["Config"]["Entrypoint"] or []) + info["Config"]["Cmd"]
    assert "serve" in inst["argv"]
    # The stand-in image has no CANN version file: said, not left out.
    assert inst["cann"] == "unknown"
    assert "| %s | %s | default | %s | %s | %s | unknown | unknown |" % (
        node, hostname, inst["image"], inst["digest"], prov["node"]["driver"]) in summary


def test_a_relative_report_dir_lands_where_the_command_ran(site, tmp_path):
    """The README's promise: eval-results/<run>/ under the directory ansible-playbook was run from."""
    proc = site.evaluate("here", cwd=tmp_path, eval_report_dir="rel-reports", eval_performance=False)
    assert proc.returncode == 0, proc.stdout[-4000:]
    assert (tmp_path / "rel-reports" / "here" / "summary.md").is_file()
    assert not (ROOT / "playbooks" / "rel-reports").exists()
    assert "Report: %s" % (tmp_path / "rel-reports" / "here") in proc.stdout


def test_a_long_run_prints_its_progress(site):
    """300 requests at concurrency 1 (about 30 ms each) outlast a progress interval of 1 s: each line says how many of
    the level's requests are done."""
    proc = site.evaluate("progress", eval_datasets=["gsm8k"], eval_concurrency=[1], eval_perf_requests=300,
                         eval_poll_interval=1)
    assert proc.returncode == 0, proc.stdout[-4000:]
    lines = re.findall(r"^\[(\S+)\] evaluating the instances of \1: \d+s elapsed, timeout in \S+; newest line: "
                       r"default: performance at concurrency 1, (\d+)/300 requests done$", proc.stderr, re.M)
    print("evaluation progress lines:", lines)
    assert sorted(set(host for host, _done in lines)) == NODES, proc.stderr[-3000:]


def test_gate_fails_at_a_stricter_tolerance_and_names_it(site):
    proc = site.evaluate("strict", eval_tolerance=2.0, eval_performance=False)
    assert proc.returncode != 0
    for node in NODES:
        assert ("%s/default: gsm8k accuracy 75.00 is below the reference 77.71 by more than eval_tolerance=2.0 "
                "(floor 75.71)" % node) in proc.stdout, proc.stdout[-4000:]
    raw = json.loads((site.reports / "strict" / "results.json").read_text())
    assert sorted(f["host"] for f in raw["failures"]) == NODES
    assert "| FAIL |" in (site.reports / "strict" / "summary.md").read_text()
