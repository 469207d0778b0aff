"""What both evaluation e2e tests share: the inventory and playbook runs of a simulated site,
the stand-in's scripted answers and token timing, and its served-request count.

test_eval.py (builtin runner, two nodes) and test_eval_aisbench.py (AISBench, one node) put
tests/sim and tests/e2e on sys.path before importing this module.
"""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

import sim
import eval_datasets

ROOT = Path(__file__).resolve().parents[2]


def served_requests(node):
    """vllm:request_success_total summed over finish reasons, from the node's server."""
    res = sim.exec_node(node, ["python3", "-c", "import urllib.request;print(urllib.request.urlopen("
                                                "'http://127.0.0.1:8080/metrics', timeout=10).read().decode())"])
    assert res.returncode == 0, res.stderr
    return sum(float(m) for m in re.findall(r"^vllm:request_success_total\{[^}]*\} (\S+)$", res.stdout, re.M))


def prepare_node(node):
    """Token timing for the sweep (read at start), and the scripted replies (read per request)."""
    sim.fault(node, ["token_delay=0.002"])
    sim.exec_node(node, ["sh", "-c", "mkdir -p /root/.cache/vllm-sim && cat > /root/.cache/vllm-sim/answers.json"],
                  input=json.dumps(eval_datasets.answers()), check=True)


class Site:
    """The datasets on the controller and an inventory of the demo's 300I DUO values for ``hosts``
    ({node: extra host variables})."""

    def __init__(self, registry, workdir, hosts, settings, train=True, timeout=900):
        self.workdir = workdir
        self.settings = settings
        self.timeout = timeout
        self.dataset = eval_datasets.write_gsm8k(workdir / "gsm8k", train=train)
        self.textvqa = eval_datasets.write_textvqa(workdir / "textvqa")
        self.reports = workdir / "reports"
        group_vars = yaml.safe_load((ROOT / "inventories" / "demo" / "group_vars" / "atlas_300i_duo.yml").read_text())
        group_vars["image_pull_registries"] = [registry]
        host_vars = {n: dict({"ansible_connection": "community.docker.docker", "ansible_host": "ascend-sim-" + n,
                              "ansible_python_interpreter": "/usr/bin/python3"}, **extra) for n, extra in hosts.items()}
        inv = {"all": {"vars": {"vllm_serve_ready_poll_interval": 1, "vllm_serve_ready_timeout": 120},
                       "children": {"atlas_300i_duo": {"hosts": host_vars, "vars": group_vars}}}}
        self.inventory = workdir / "inventory.yml"
        self.inventory.write_text(yaml.safe_dump(inv))

    def playbook(self, path, extra=None, cwd=ROOT):
        """ansible-playbook ``path`` (relative to the repository) run from ``cwd``."""
        env = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"), ANSIBLE_FORCE_COLOR="0")
        cmd = [str(Path(sys.executable).parent / "ansible-playbook"), str(ROOT / path), "-i", str(self.inventory)]
        if extra is not None:
            cmd += ["-e", json.dumps(extra)]
        return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=self.timeout,
                              check=False)

    def evaluate(self, run_id, cwd=ROOT, **changes):
        extra = dict(self.settings, eval_dataset_dirs={"gsm8k": str(self.dataset), "textvqa": str(self.textvqa)},
                     eval_report_dir=str(self.reports), eval_run_id=run_id)
        extra.update(changes)
        return self.playbook("playbooks/eval.yml", extra, cwd=cwd)
