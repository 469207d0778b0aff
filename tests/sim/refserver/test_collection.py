"""The collection's own code against vLLM 0.23.0's own server (and the stand-in), called as the roles call it:
the readiness watch with the smoke tests and the API key (serve/_ready.py Watch, as ascend.vllm.vllm_ready runs
it), check_serving at the node read, the Prometheus targets (fleet/_metrics.py) and the evaluation client
(evaluation/_eval_client.py, as roles/eval's builtin runner calls it)."""
from __future__ import annotations

import sys
import time
import urllib.request
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

# pylint: disable=wrong-import-position
import probes  # noqa: E402
from probes import API_KEY  # noqa: E402
from ansible_collections.ascend.vllm.plugins.module_utils.serve import _ready  # noqa: E402
from ansible_collections.ascend.vllm.plugins.module_utils.evaluation import _eval_client  # noqa: E402
from ansible_collections.ascend.vllm.plugins.plugin_utils.fleet._metrics import metrics_targets  # noqa: E402

KINDS = [pytest.param("vllm", marks=pytest.mark.refserver), "standin"]


def _rfc3339(stamp):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(stamp)) + (".%09dZ" % int((stamp % 1) * 1e9))


class ProcessProbe(object):
    """Watch's probe over a server process instead of a container: ``inspect`` says what Docker's inspect
    would (running, or exited with the process's status), ``logs`` gives its output with Docker's timestamps."""

    def __init__(self, server, api_key=None):
        self.server = server
        self.http = _ready.HttpClient(server.url, _ready.bearer(api_key))

    def inspect(self):
        code = self.server.proc.poll()
        return {"State": {"Status": "running" if code is None else "exited", "Restarting": False, "ExitCode": code or 0,
                          "StartedAt": _rfc3339(self.server.started_at)},
                "RestartCount": 0, "Config": {"Tty": False}}

    def logs(self, since=None, tail=None, timestamps=False, tty=False):
        lines = [(stamp, line) for stamp, line in list(self.server.lines) if since is None or stamp > float(since)]
        if tail is not None:
            lines = lines[-tail:] if tail else []
        return "".join(("%s %s\n" % (_rfc3339(stamp), line)) if timestamps else line + "\n" for stamp, line in lines)

    def get(self, path, timeout):
        return self.http.request(path, timeout=timeout)

    def post(self, path, body, timeout):
        return self.http.request(path, body=body, timeout=timeout)


def _params(server, **over):
    """ascend.vllm.vllm_ready's options as roles/vllm_serve/tasks/ready_instance.yml passes them (defaults of
    roles/vllm_serve/defaults/main.yml; smaller token limits, the CPU is slow)."""
    params = dict(name="vllm-ascend", service=False, url=server.url, served_model_name="qwen3.5", timeout=900,
                  report_after=0, just_started=True, log_lines=50, smoke_test=True, prompt=probes.PROMPT,
                  max_tokens=probes.MAX_TOKENS, chat_max_tokens=probes.CHAT_MAX_TOKENS, smoke_timeout=600,
                  api_key=API_KEY, poll_interval=0.25)
    params.update(over)
    return params


@pytest.fixture
def server_of(shared_server):
    return shared_server


@pytest.mark.parametrize("kind", KINDS)
def test_the_readiness_watch_and_smoke_tests_pass(server_of, kind):
    server = server_of(kind)
    result = _ready.Watch(ProcessProbe(server, API_KEY), _params(server)).run()
    assert result["state"] == "ready", result
    assert result["models"] == ["qwen3.5"]
    assert isinstance(result["completion"], str) and isinstance(result["chat"], str)


@pytest.mark.parametrize("kind", KINDS)
def test_the_watch_without_the_api_key_fails_on_the_model_list(server_of, kind):
    server = server_of(kind)
    result = _ready.Watch(ProcessProbe(server, None), _params(server, api_key=None)).run()
    assert result["state"] == "request_failed" and "answered 401" in result["error"], result


@pytest.mark.parametrize("kind", KINDS)
def test_check_serving_at_the_node_read(server_of, kind):
    server = server_of(kind)
    entry = {"name": "vllm-ascend", "url": server.url, "served_model_name": "qwen3.5", "api_key": API_KEY,
             "digests": ["d1"], "smoke_test": True, "prompt": probes.PROMPT, "max_tokens": probes.MAX_TOKENS,
             "chat_max_tokens": probes.CHAT_MAX_TOKENS, "smoke_timeout": 600}
    found = {"vllm-ascend": {"running": True, "digest": "d1", "previous": False}}
    out = _ready.check_serving([entry], found, lambda _entry: ProcessProbe(server, API_KEY))
    assert out["vllm-ascend"]["state"] == "ready", out


@pytest.mark.parametrize("kind", KINDS)
def test_prometheus_scrapes_the_planned_target_without_the_key(server_of, kind):
    server = server_of(kind)
    groups = metrics_targets([{"name": "default", "port": server.port, "options": {"model": "Qwen/Qwen3.5-2B"}}],
                             "node-1", "atlas_300i_duo", "127.0.0.1")
    target = groups[0]["targets"][0]
    with urllib.request.urlopen("http://%s/metrics" % target, timeout=10) as answer:
        text = answer.read().decode()
    assert "# TYPE vllm:num_requests_running gauge" in text
    assert 'model_name="qwen3.5"' in text


@pytest.mark.parametrize("kind", KINDS)
def test_the_evaluation_client(server_of, kind):
    server = server_of(kind)
    headers = _ready.bearer(API_KEY)
    seen = _eval_client.probe("127.0.0.1", server.port, headers=headers)
    assert seen == {"up": True, "served": "qwen3.5", "model": server.argv[2], "error": None}
    target = {"host": "127.0.0.1", "port": server.port, "served": "qwen3.5", "headers": headers}
    texts, errors, _seconds = _eval_client.accuracy_replies(
        target, ["What is 1 + 1?", "Name a colour."], {"max_out_len": 8, "batch_size": 2, "timeout": 120})
    assert errors == [] and all(isinstance(text, str) for text in texts), (texts, errors)
    levels = _eval_client.performance_sweep(target, {"concurrency": [1, 2], "requests": 2, "input_len": 16,
                                                     "output_len": 8, "timeout": 120})
    for level in levels:
        assert level["errors"] == [], level
        # ignore_eos: every request gives exactly output_len tokens, counted from the stream's usage.
        assert [r["output_tokens"] for r in level["records"]] == [8] * len(level["records"]), level["records"]
        assert all(r["ttft"] is not None and r["tpot"] is not None for r in level["records"]), level["records"]
