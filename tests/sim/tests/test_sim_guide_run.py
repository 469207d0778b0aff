"""The guide's exact `docker run` per platform, on the matching simulated node."""
from __future__ import annotations

import json
import time

import pytest

import sim
from sim_guide import GUIDE_IMAGE_TAG, GUIDE_SERVE, docker_run_argv

pytestmark = pytest.mark.slow

NODE_FOR = {"atlas_300i_duo": "pt-duo4", "atlas_200i_pro": "pt-pro", "atlas_200i_pro_openeuler": "pt-oe"}

# Runs on the node: wait for /health, then the guide's completion request (section 6).
PROBE = r'''
import json, sys, time, urllib.request, urllib.error
deadline = time.time() + float(sys.argv[1])
while True:
    try:
        with urllib.request.urlopen("http://127.0.0.1:8080/health", timeout=2) as r:
            if r.status == 200:
                break
    except (urllib.error.URLError, OSError):
        pass
    if time.time() > deadline:
        print(json.dumps({"error": "not healthy"})); sys.exit(1)
    time.sleep(0.2)
req = urllib.request.Request("http://127.0.0.1:8080/v1/completions", headers={"Content-Type": "application/json"},
    data=json.dumps({"model": "qwen3.5", "prompt": "The future of AI is", "max_completion_tokens": 50,
                     "temperature": 0}).encode())
with urllib.request.urlopen(req, timeout=10) as r:
    print(json.dumps({"status": r.status, "body": json.load(r)}))
'''


def probe(node, wait=60):
    return sim.exec_node(node, ["python3", "-c", PROBE, str(wait)], timeout=wait + 30)


@pytest.mark.parametrize("platform", sorted(NODE_FOR))
def test_guide_docker_run_answers_completions(nodes, clean_node, platform):
    node = clean_node(NODE_FOR[platform])
    image = "%s/ascend/vllm-ascend:%s" % (nodes["registry"], GUIDE_IMAGE_TAG[platform])
    argv = docker_run_argv(platform, image, GUIDE_SERVE, env={"VLLM_USE_MODELSCOPE": "True"})
    run = sim.exec_node(node, argv, timeout=180)
    assert run.returncode == 0, run.stderr
    res = probe(node)
    logs = sim.exec_node(node, ["docker", "logs", "vllm-ascend"])
    assert res.returncode == 0, res.stdout + logs.stdout + logs.stderr
    out = json.loads(res.stdout)
    assert out["status"] == 200
    body = out["body"]
    assert body["model"] == "qwen3.5" and body["choices"][0]["text"].strip()
    # The guide's request asks for max_completion_tokens 50, which vLLM 0.23's /v1/completions ignores: it answers
    # its default of 16 tokens, as vLLM's own server does (tests/sim/refserver, the contract lane).
    assert body["usage"]["completion_tokens"] == 16
    assert "(APIServer pid=1) INFO:     Application startup complete." in logs.stdout

    inspect = json.loads(sim.exec_node(node, ["docker", "inspect", "vllm-ascend"], check=True).stdout)[0]
    host = inspect["HostConfig"]
    assert host["Privileged"] is (platform != "atlas_300i_duo")
    assert host["ShmSize"] == (1 if platform == "atlas_300i_duo" else 10) * 1024 ** 3
    assert host["AutoRemove"] is True
    assert host["PortBindings"] == {"8080/tcp": [{"HostIp": "", "HostPort": "8080"}]}
    devices = sorted(d["PathOnHost"] for d in host["Devices"])
    if platform == "atlas_300i_duo":
        assert devices == sorted(["/dev/davinci%d" % i for i in range(8)] +
                                 ["/dev/davinci_manager", "/dev/devmm_svm", "/dev/hisi_hdc"])
    else:
        assert devices == ["/dev/ascend_manager", "/dev/davinci0", "/dev/davinci_manager", "/dev/user_config"]
    # The container sees the driver's mounts; npu-smi inside cannot reach the (simulated) driver.
    inside = sim.exec_node(node, ["docker", "exec", "vllm-ascend", "sh", "-c",
                                  "ls /dev/davinci_manager /usr/local/Ascend/driver/lib64/libascend_hal.so"])
    assert inside.returncode == 0, inside.stderr
    stop = sim.exec_node(node, ["docker", "stop", "vllm-ascend"], timeout=60)
    assert stop.returncode == 0
    # --rm: gone once stopped. The Engine removes it after `docker stop` returns, so a loaded
    # machine may still list it for a moment (CI saw it at once after the stop).
    deadline = time.monotonic() + 30
    while sim.exec_node(node, ["docker", "inspect", "vllm-ascend"]).returncode == 0:
        assert time.monotonic() < deadline, "the --rm container is still there 30 s after docker stop"
        time.sleep(0.5)
