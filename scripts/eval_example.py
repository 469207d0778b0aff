"""Make the example report of docs/evaluation.md: playbooks/eval.yml for real, against the STAND-IN server.

Two simulated Atlas 300I DUO nodes (tests/sim) are deployed with site.yml from the demo inventory's values
(Qwen/Qwen3.5-2B), the second node's stand-in answering tokens twice as slowly as the first, so that the
comparison figure has two different lines. The stand-in answers three of the four scripted gsm8k questions
right (tests/e2e/eval_datasets.py). Nothing in the report measures an NPU: it shows the report's shape.

    .venv/bin/python scripts/eval_example.py docs/evaluation-example

Needs the simulated-node images (make images). Removes its nodes at the end.
"""
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "sim"))
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
import sim  # noqa: E402  pylint: disable=wrong-import-position
from eval_site import Site, prepare_node  # noqa: E402  pylint: disable=wrong-import-position

PREFIX = os.environ.get("ASCEND_EXAMPLE_PREFIX", "example")
NODES = {PREFIX + "-atlas-a": 0.002, PREFIX + "-atlas-b": 0.004}
SETTINGS = {"eval_concurrency": [1, 2, 4, 8, 16], "eval_perf_requests": 32, "eval_perf_input_len": 128,
            "eval_perf_output_len": 64, "eval_batch_size": 4, "eval_tolerance": 5.0}
# The files docs/evaluation.md shows (summary.md kept as summary.txt: docs/ holds only translated pages).
KEPT = {"summary.md": "summary.txt", "compare.png": "compare.png"}
KEPT.update(("%s-default-%s.png" % (node, kind),) * 2 for node in NODES for kind in ("throughput", "latency"))


def main(dest):
    dest = Path(dest).resolve()
    work = Path(tempfile.mkdtemp(prefix="eval-example-"))
    info = sim.up([sim.NodeSpec.parse(node + ":atlas_300i_duo") for node in NODES], inventory=work / "sim.yml")
    try:
        for node, delay in NODES.items():
            prepare_node(node)
            # Read by the stand-in when it starts: before the deploy.
            sim.fault(node, ["token_delay=%s" % delay])
        site = Site(info["registry"], work, {node: {} for node in NODES}, SETTINGS, train=False)
        deploy = site.playbook("site.yml")
        if deploy.returncode != 0:
            sys.exit(deploy.stdout[-6000:])
        run = site.evaluate("stand-in-example", eval_datasets=["gsm8k"])
        if run.returncode != 0:
            sys.exit(run.stdout[-6000:])
        dest.mkdir(parents=True, exist_ok=True)
        for name, kept in KEPT.items():
            shutil.copy(site.reports / "stand-in-example" / name, dest / kept)
        print("copied %s from %s" % (", ".join(sorted(KEPT)), site.reports / "stand-in-example"))
    finally:
        sim.down(list(NODES))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "docs/evaluation-example")
