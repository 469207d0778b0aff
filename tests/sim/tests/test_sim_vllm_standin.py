"""The stand-in `vllm` run directly on this machine (no Docker needed)."""
from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from simtestlib import SIM_DIR
from sim_guide import GUIDE_SERVE

VLLM = str(SIM_DIR / "images" / "vllm-ascend" / "vllm")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def devroot(tmp_path):
    """A fake /dev with what a TP=1 container gets on a 200I Pro."""
    dev = tmp_path / "dev"
    dev.mkdir()
    for name in ("davinci0", "davinci_manager", "ascend_manager", "user_config"):
        (dev / name).touch()
    return dev


def fake_lspci(tmp_path, accelerators):
    """An lspci that lists the 300I DUO's accelerators (EP mode) or nothing (RC mode)."""
    path = tmp_path / ("lspci-%s" % ("ep" if accelerators else "rc"))
    line = "01:00.0 Processing accelerators: Huawei Technologies Co., Ltd. Device d500 (rev 23)"
    path.write_text("#!/bin/sh\n%s\n" % ("echo '%s'" % line if accelerators else "true"))
    path.chmod(0o755)
    return str(path)


def driver_lib64(tmp_path):
    """A driver lib64 with libascend_hal.so, what the guide mounts."""
    lib = tmp_path / "driver-lib64"
    lib.mkdir(exist_ok=True)
    (lib / "libascend_hal.so").write_text("placeholder")
    return str(lib)


def run_env(tmp_path, devroot, **extra):
    env = dict(os.environ, VLLM_SIM_DEV_ROOT=str(devroot), VLLM_SIM_CACHE_ROOT=str(tmp_path / "cache"),
               VLLM_SIM_LOAD_SECONDS="0", LD_LIBRARY_PATH=driver_lib64(tmp_path),
               VLLM_SIM_LSPCI=fake_lspci(tmp_path, True))
    env.update({k: str(v) for k, v in extra.items()})
    return env


def serve_args(port, *more):
    args = list(GUIDE_SERVE[2:])
    args[args.index("--port") + 1] = str(port)
    args[args.index("--host") + 1] = "127.0.0.1"
    return [sys.executable, VLLM, "serve", *args, *more]


def http(port, path, body=None, key=None, method=None):
    headers = {"Content-Type": "application/json"}
    if key:
        headers["Authorization"] = "Bearer " + key
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


class Server:
    def __init__(self, tmp_path, devroot, *more, **env):
        self.port = free_port()
        self.log = tmp_path / ("vllm-%d.log" % self.port)
        self.proc = subprocess.Popen(serve_args(self.port, *more), stdout=open(self.log, "w"),
                                     stderr=subprocess.STDOUT, env=run_env(tmp_path, devroot, **env))

    def wait_ready(self, timeout=20):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError("vllm exited %s:\n%s" % (self.proc.returncode, self.log.read_text()))
            if "Application startup complete." in self.log.read_text():
                return self
            time.sleep(0.05)
        raise AssertionError("not ready:\n" + self.log.read_text())

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:  # a stream left open holds a graceful stop
                self.proc.kill()
                self.proc.wait(10)


@pytest.fixture
def server(tmp_path, devroot):
    started = []

    def _start(*more, **env):
        srv = Server(tmp_path, devroot, *more, **env)
        started.append(srv)
        return srv
    yield _start
    for srv in started:
        srv.stop()


def run_cli(tmp_path, devroot, args, **env):
    return subprocess.run([sys.executable, VLLM, *args], capture_output=True, text=True, timeout=30,
                          env=run_env(tmp_path, devroot, **env), check=False)


def test_unknown_flag_is_refused_like_vllm(tmp_path, devroot):
    proc = run_cli(tmp_path, devroot, ["serve", "Qwen/Qwen3.5-2B", "--max-num-seq", "4", "--no-such-flag"])
    assert proc.returncode == 2
    assert proc.stderr.startswith("usage: vllm ")
    assert proc.stderr.rstrip().endswith("vllm: error: unrecognized arguments: --max-num-seq 4 --no-such-flag")


@pytest.mark.parametrize("flag", ["--speculative-config", "--compilation-config", "--additional-config"])
def test_malformed_json_option_is_refused(tmp_path, devroot, flag):
    proc = run_cli(tmp_path, devroot, ["serve", "Qwen/Qwen3.5-2B", flag, '{"method": qwen3_5_mtp}'])
    assert proc.returncode == 2
    assert "vllm serve: error: argument %s" % flag in proc.stderr
    assert "cannot be converted to" in proc.stderr


def test_snake_case_spelling_and_choices(tmp_path, devroot):
    proc = run_cli(tmp_path, devroot, ["serve", "m", "--dtype", "fp16"])
    assert proc.returncode == 2 and "argument --dtype: invalid choice: 'fp16'" in proc.stderr
    proc = run_cli(tmp_path, devroot, ["serve", "m", "--max_num_seqs", "x"])
    assert proc.returncode == 2 and "argument --max-num-seqs: invalid int value: 'x'" in proc.stderr


def test_guide_command_serves_openai_api(server):
    srv = server("--api-key", "sk-test").wait_ready()
    log = srv.log.read_text()
    pid = srv.proc.pid
    for line in ("(APIServer pid=%d) INFO:     Started server process [%d]" % (pid, pid),
                 "(APIServer pid=%d) INFO:     Waiting for application startup." % pid,
                 "(APIServer pid=%d) INFO:     Application startup complete." % pid):
        assert line in log
    assert "Available KV cache memory:" in log and "(halved for workspace)" in log
    port = srv.port
    assert http(port, "/health") == (200, "")
    assert http(port, "/v1/models")[0] == 401
    assert json.loads(http(port, "/v1/models")[1]) == {"error": "Unauthorized"}
    status, body = http(port, "/v1/models", key="sk-test")
    models = json.loads(body)
    assert status == 200 and models["object"] == "list"
    assert [(m["id"], m["max_model_len"], m["root"]) for m in models["data"]] == [("qwen3.5", 16384, "Qwen/Qwen3.5-2B")]

    # The guide's completions body asks for max_completion_tokens, which vLLM 0.23's /v1/completions ignores:
    # the answer has 16 tokens, the default (tests/sim/refserver, the contract lane). max_tokens caps it.
    guide = {"model": "qwen3.5", "prompt": "The future of AI is", "max_completion_tokens": 5, "temperature": 0}
    status, body = http(port, "/v1/completions", guide, key="sk-test")
    assert status == 200 and json.loads(body)["usage"]["completion_tokens"] == 16
    req = {"model": "qwen3.5", "prompt": "The future of AI is", "max_tokens": 5, "temperature": 0}
    status, body = http(port, "/v1/completions", req, key="sk-test")
    out = json.loads(body)
    assert status == 200 and out["object"] == "text_completion" and out["model"] == "qwen3.5"
    assert out["id"].startswith("cmpl-") and isinstance(out["created"], int)
    assert out["choices"][0]["finish_reason"] == "length"
    assert len(out["choices"][0]["text"].split()) == 5
    assert out["usage"]["completion_tokens"] == 5
    assert out["usage"]["total_tokens"] == out["usage"]["prompt_tokens"] + 5
    again = json.loads(http(port, "/v1/completions", req, key="sk-test")[1])
    assert again["choices"][0]["text"] == out["choices"][0]["text"]  # deterministic

    chat = {"model": "qwen3.5", "messages": [{"role": "user", "content": "The future of AI is"}],
            "max_completion_tokens": 1024, "temperature": 0.7, "top_p": 0.95}
    status, body = http(port, "/v1/chat/completions", chat, key="sk-test")
    out = json.loads(body)
    assert status == 200 and out["object"] == "chat.completion" and out["id"].startswith("chatcmpl-")
    msg = out["choices"][0]["message"]
    assert msg["role"] == "assistant" and msg["content"].strip()
    assert out["choices"][0]["finish_reason"] == "stop"

    status, body = http(port, "/v1/chat/completions", dict(chat, max_tokens=3, max_completion_tokens=None),
                        key="sk-test")
    assert json.loads(body)["usage"]["completion_tokens"] == 3

    status, body = http(port, "/v1/completions", dict(req, model="qwen3.5-9b"), key="sk-test")
    err = json.loads(body)["error"]
    assert status == 404 and err["type"] == "NotFoundError" and "qwen3.5-9b" in err["message"]

    status, body = http(port, "/v1/completions", dict(req, max_tokens=20000), key="sk-test")
    assert status == 400 and "maximum context length is 16384" in body

    status, metrics = http(port, "/metrics")
    assert status == 200
    assert 'vllm:num_requests_running{engine="0",model_name="qwen3.5"} 0.0' in metrics
    assert 'vllm:generation_tokens_total{engine="0",model_name="qwen3.5"} ' in metrics
    assert "vllm:prompt_tokens_total" in metrics
    # prometheus_client (vLLM's /metrics) names a counter's HELP and TYPE lines after its sample.
    assert "# TYPE vllm:prompt_tokens_total counter" in metrics and "# TYPE vllm:prompt_tokens counter" not in metrics
    # Requests finished above (the refused ones are not counted), each one observation of each histogram.
    finished = re.search(r'^vllm:request_success_total\{engine="0",model_name="qwen3.5",finished_reason="stop"\} '
                         r'(\S+)$', metrics, re.M)
    ttft = re.search(r'^vllm:time_to_first_token_seconds_count\{engine="0",model_name="qwen3.5"\} (\S+)$',
                     metrics, re.M)
    assert finished and ttft and float(ttft.group(1)) >= float(finished.group(1)) > 0
    assert 'vllm:request_time_per_output_token_seconds_bucket{engine="0",model_name="qwen3.5",le="+Inf"} ' in metrics
    assert '"POST /v1/completions HTTP/1.1" 200 OK' in srv.log.read_text()


def test_streaming_completion(server):
    srv = server().wait_ready()
    req = urllib.request.Request("http://127.0.0.1:%d/v1/completions" % srv.port, data=json.dumps(
        {"model": "qwen3.5", "prompt": "hi", "max_tokens": 4, "stream": True}).encode())
    with urllib.request.urlopen(req, timeout=10) as resp:
        events = [ln for ln in resp.read().decode().split("\n\n") if ln]
    assert events[-1] == "data: [DONE]"
    chunks = [json.loads(e[len("data: "):]) for e in events[:-1]]
    assert len(chunks) == 4 and chunks[-1]["choices"][0]["finish_reason"] == "length"


def test_port_refused_while_loading(server):
    srv = server(VLLM_SIM_LOAD_SECONDS=3)
    time.sleep(1.0)
    with pytest.raises((ConnectionRefusedError, urllib.error.URLError)):
        http(srv.port, "/health")
    srv.wait_ready(15)
    assert http(srv.port, "/health") == (200, "")


def test_missing_davinci_manager_fails_to_start(tmp_path, devroot):
    (devroot / "davinci_manager").unlink()
    proc = run_cli(tmp_path, devroot, GUIDE_SERVE[1:])
    assert proc.returncode == 1
    assert "/dev/davinci_manager" in proc.stdout and "EngineCore failed to start" in proc.stdout
    assert "Application startup complete" not in proc.stdout


def test_fewer_chips_than_tensor_parallel_size(tmp_path, devroot):
    args = list(GUIDE_SERVE[1:])
    args[args.index("--tensor-parallel-size") + 1] = "2"
    proc = run_cli(tmp_path, devroot, args)
    assert proc.returncode == 1
    assert "World size (2) is larger than the number of available NPUs (1)" in proc.stdout


def test_crash_knob_from_env(tmp_path, devroot):
    proc = run_cli(tmp_path, devroot, GUIDE_SERVE[1:], VLLM_SIM_CRASH="mamba")
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert "Traceback (most recent call last):" in lines
    assert "ValueError: max_num_seqs (32) exceeds available Mamba cache blocks (16)" in lines
    assert "RuntimeError: Engine core initialization failed" in lines[-1]


def test_faults_file_and_crash_count(tmp_path, devroot):
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "faults.json").write_text(json.dumps({"mamba_cache_blocks": 8, "crash": "oom", "crash_count": 1}))
    first = run_cli(tmp_path, devroot, GUIDE_SERVE[1:])
    assert first.returncode == 1 and "RuntimeError: NPU out of memory" in first.stdout
    # The crash was for the first start only; the Mamba block limit still holds.
    second = run_cli(tmp_path, devroot, GUIDE_SERVE[1:])
    assert second.returncode == 1
    assert "ValueError: max_num_seqs (32) exceeds available Mamba cache blocks (8)" in second.stdout
    args = list(GUIDE_SERVE[1:])
    args[args.index("--max-num-seqs") + 1] = "8"
    args[args.index("--port") + 1] = str(free_port())
    with subprocess.Popen([sys.executable, VLLM, *args], stdout=subprocess.PIPE, text=True,
                          env=run_env(tmp_path, devroot)) as proc:
        for line in proc.stdout:
            if "Application startup complete." in line:
                break
        proc.terminate()
        proc.wait(10)


def test_engine_death_ends_the_api_server_with_status_0(server):
    # As vLLM 0.23.0's own server does (tests/sim/refserver): no request needed, exit status 0.
    srv = server(VLLM_SIM_DIE_AFTER="0.5").wait_ready()
    srv.proc.wait(10)
    assert srv.proc.returncode == 0
    out = srv.log.read_text()
    assert "AsyncLLM output_handler failed." in out and "EngineDeadError: EngineCore encountered an issue." in out
    assert out.rstrip().endswith("Finished server process [%d]" % srv.proc.pid)


def test_old_image_refuses_qwen3_5(tmp_path, devroot):
    proc = run_cli(tmp_path, devroot, GUIDE_SERVE[1:], VLLM_SIM_VERSION="0.22.0")
    assert proc.returncode == 1
    assert "Model architectures ['Qwen3_5ForConditionalGeneration'] are not supported" in proc.stdout


def test_uvicorn_log_level_warning_hides_startup_lines(server):
    srv = server("--uvicorn-log-level", "warning")
    deadline = time.time() + 15
    while time.time() < deadline:
        try:
            if http(srv.port, "/health")[0] == 200:
                break
        except (urllib.error.URLError, OSError):
            time.sleep(0.1)
    log = srv.log.read_text()
    assert "Starting vLLM API server 0 on http://127.0.0.1:%d" % srv.port in log
    assert "Application startup complete." not in log and '"GET /health HTTP/1.1"' not in log


# ------------------------------------------------------------------ the image's process contract
def rc_proc_root(tmp_path, daemons):
    """A fake /proc with the given daemon command lines (what the image's entrypoint starts in RC mode)."""
    root = tmp_path / "proc"
    root.mkdir()
    for pid, argv in enumerate(daemons, start=100):
        (root / str(pid)).mkdir()
        (root / str(pid) / "cmdline").write_bytes(b"\0".join(a.encode() for a in argv) + b"\0")
    return str(root)


def board_lib64(tmp_path):
    lib = tmp_path / "usr-lib64"
    lib.mkdir()
    (lib / "libstackcore.so").write_text("placeholder")
    return str(lib)


TORCH_NPU_ERROR = ("RuntimeError: Failed to load the backend extension: torch_npu. You can disable extension "
                   "auto-loading with TORCH_DEVICE_BACKEND_AUTOLOAD=0.")


def test_driver_lib64_not_on_library_path_fails_like_torch_npu(tmp_path, devroot):
    proc = run_cli(tmp_path, devroot, GUIDE_SERVE[1:], LD_LIBRARY_PATH="/usr/local/lib")
    assert proc.returncode == 1
    assert "ImportError: libascend_hal.so: cannot open shared object file: No such file or directory" in proc.stderr
    assert TORCH_NPU_ERROR in proc.stderr
    assert "Automatically detected platform npu" not in proc.stdout


def test_rc_mode_needs_usr_lib64_on_library_path(tmp_path, devroot):
    daemons = rc_proc_root(tmp_path, [["/bin/sh", "/var/slogd", "-d"], ["/bin/sh", "/var/dmp_daemon", "-I"]])
    proc = run_cli(tmp_path, devroot, GUIDE_SERVE[1:], VLLM_SIM_LSPCI=fake_lspci(tmp_path, False),
                   VLLM_SIM_PROC_ROOT=daemons)
    assert proc.returncode == 1
    assert "ImportError: libstackcore.so: cannot open shared object file" in proc.stderr
    assert TORCH_NPU_ERROR in proc.stderr


def test_rc_mode_without_the_daemons_fails_at_device_init(tmp_path, devroot):
    path = driver_lib64(tmp_path) + ":" + board_lib64(tmp_path)
    proc = run_cli(tmp_path, devroot, GUIDE_SERVE[1:], VLLM_SIM_LSPCI=fake_lspci(tmp_path, False),
                   LD_LIBRARY_PATH=path, VLLM_SIM_PROC_ROOT=rc_proc_root(tmp_path, [["/bin/sh", "/var/slogd", "-d"]]))
    assert proc.returncode == 1
    assert "aclrtGetDeviceCount(&device_count), error code is 207004" in proc.stdout
    assert "no /var/dmp_daemon process" in proc.stderr
    assert "Application startup complete" not in proc.stdout


def test_rc_mode_with_libraries_and_daemons_serves(server, tmp_path):
    path = driver_lib64(tmp_path) + ":" + board_lib64(tmp_path)
    daemons = rc_proc_root(tmp_path, [["/lib/ld-linux-aarch64.so.1", "/var/slogd", "-d"],
                                      ["/var/dmp_daemon", "-I", "-M", "-U", "8087"]])
    srv = server(VLLM_SIM_LSPCI=fake_lspci(tmp_path, False), LD_LIBRARY_PATH=path, VLLM_SIM_PROC_ROOT=daemons)
    srv.wait_ready(15)
    assert http(srv.port, "/health") == (200, "")


def test_a_local_model_directory_needs_its_config_json(tmp_path, devroot):
    weights = tmp_path / "models" / "Qwen3.5-2B"
    weights.mkdir(parents=True)
    args = list(GUIDE_SERVE[1:])
    args[args.index("serve") + 1] = str(weights)
    proc = run_cli(tmp_path, devroot, args)
    assert proc.returncode == 1
    assert "%s does not appear to have a file named config.json" % weights in proc.stdout
    assert "Application startup complete" not in proc.stdout


def test_the_hub_switched_off_finds_a_model_id_only_in_the_cache(tmp_path, devroot, server):
    home = tmp_path / "hf"
    proc = run_cli(tmp_path, devroot, GUIDE_SERVE[1:], HF_HUB_OFFLINE="1", HF_HOME=str(home))
    assert proc.returncode == 1
    assert "couldn't find them in the cached files" in proc.stdout
    snapshot = home / "hub" / "models--Qwen--Qwen3.5-2B" / "snapshots" / "abc123"
    snapshot.mkdir(parents=True)
    (snapshot / "config.json").write_text("{}")
    server(HF_HUB_OFFLINE="1", HF_HOME=str(home)).wait_ready()


# ---------------------------------------------------------------------------- chat parsers (reasoning, tool calls)
PARSERS = ("--reasoning-parser", "qwen3", "--enable-auto-tool-choice", "--tool-call-parser", "qwen3_coder")
TOOL = {"type": "function", "function": {"name": "get_weather", "description": "Weather in a city.",
                                         "parameters": {"type": "object", "required": ["city"],
                                                        "properties": {"city": {"type": "string"}}}}}


def chat(port, **fields):
    body = dict({"model": "qwen3.5", "messages": [{"role": "user", "content": "What is the weather in Paris?"}],
                 "max_completion_tokens": 64}, **fields)
    status, text = http(port, "/v1/chat/completions", body)
    return status, json.loads(text)


def test_with_a_reasoning_parser_the_thinking_is_in_the_reasoning_field(server):
    port = server(*PARSERS).wait_ready().port
    status, out = chat(port, chat_template_kwargs={"enable_thinking": True})
    message = out["choices"][0]["message"]
    assert status == 200 and message["reasoning"] and message["content"]
    assert "reasoning_content" not in message and "</think>" not in message["content"]
    # The evaluation's enable_thinking false: no reasoning, the whole answer in the content.
    status, out = chat(port, chat_template_kwargs={"enable_thinking": False})
    message = out["choices"][0]["message"]
    assert status == 200 and message["reasoning"] is None and message["content"]


def test_with_a_reasoning_parser_a_plain_answer_is_all_reasoning_unless_streamed(server):
    """vLLM 0.23 parses a non-streamed answer by its text alone: no </think>, enable_thinking not false, so all of
    it is reasoning, content null (seen on vLLM's own server, tests/sim/refserver chat_with_parsers)."""
    port = server(*PARSERS).wait_ready().port
    status, out = chat(port)
    message = out["choices"][0]["message"]
    assert status == 200 and message["content"] is None and message["reasoning"]
    status, text = http(port, "/v1/chat/completions", {"model": "qwen3.5", "stream": True,
                                                       "messages": [{"role": "user", "content": "Hi?"}]})
    deltas = [json.loads(line[6:])["choices"][0]["delta"] for line in text.splitlines() if line.startswith("data: {")
              and json.loads(line[6:])["choices"]]
    assert status == 200 and any(d.get("content") for d in deltas) and not any(d.get("reasoning") for d in deltas)


def test_a_named_tool_choice_has_an_empty_content_and_stops(server):
    port = server(*PARSERS).wait_ready().port
    status, out = chat(port, tools=[TOOL], tool_choice={"type": "function", "function": {"name": "get_weather"}},
                       chat_template_kwargs={"enable_thinking": False})
    choice = out["choices"][0]
    assert status == 200 and choice["finish_reason"] == "stop" and choice["message"]["content"] == ""
    assert choice["message"]["tool_calls"][0]["function"]["name"] == "get_weather"


def test_without_a_reasoning_parser_the_thinking_stays_in_the_content(server):
    port = server().wait_ready().port
    status, out = chat(port, chat_template_kwargs={"enable_thinking": True})
    message = out["choices"][0]["message"]
    assert status == 200 and message["reasoning"] is None and "\n</think>\n\n" in message["content"]


def test_with_a_tool_call_parser_a_tool_call_comes_back_shaped_as_vllms(server):
    port = server(*PARSERS).wait_ready().port
    status, out = chat(port, tools=[TOOL], tool_choice="auto", chat_template_kwargs={"enable_thinking": False})
    choice = out["choices"][0]
    assert status == 200 and choice["finish_reason"] == "tool_calls"
    assert choice["message"]["content"] is None and choice["message"]["reasoning"] is None
    (call,) = choice["message"]["tool_calls"]
    assert re.match(r"^chatcmpl-tool-[0-9a-f]{16}$", call["id"]) and call["type"] == "function"
    assert call["function"] == {"name": "get_weather", "arguments": '{"city": "Paris"}'}
    # tools without tool_choice: vLLM takes auto.
    status, out = chat(port, tools=[TOOL])
    assert status == 200 and out["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "get_weather"


def test_a_streamed_answer_carries_reasoning_and_tool_call_deltas(server):
    port = server(*PARSERS).wait_ready().port
    body = {"model": "qwen3.5", "messages": [{"role": "user", "content": "Weather in Paris?"}], "stream": True,
            "tools": [TOOL], "chat_template_kwargs": {"enable_thinking": True}}
    status, text = http(port, "/v1/chat/completions", body)
    deltas = [json.loads(line[6:])["choices"][0]["delta"] for line in text.splitlines()
              if line.startswith("data: {")]
    assert status == 200 and deltas[0]["role"] == "assistant"
    assert any("reasoning" in d for d in deltas) and deltas[-1]["tool_calls"][0]["function"]["name"] == "get_weather"


@pytest.mark.parametrize("flags, message", [
    ((), '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'),
    (("--tool-call-parser", "qwen3_coder"), '"auto" tool choice requires --enable-auto-tool-choice and '
                                            '--tool-call-parser to be set'),
])
def test_auto_tool_choice_without_the_flags_is_vllms_400(server, flags, message):
    port = server(*flags).wait_ready().port
    status, out = chat(port, tools=[TOOL], tool_choice="auto")
    assert status == 400 and out["error"] == {"message": message, "type": "BadRequestError", "param": None,
                                              "code": 400}


def test_required_tool_choice_without_a_parser_and_tool_choice_without_tools(server):
    port = server().wait_ready().port
    status, out = chat(port, tools=[TOOL], tool_choice="required")
    assert status == 400 and out["error"]["message"] == 'tool_choice="required" requires --tool-call-parser to be set'
    status, out = chat(port, tool_choice="auto")
    assert status == 400 and out["error"]["message"] == "When using `tool_choice`, `tools` must be set."


def test_auto_tool_choice_without_a_parser_stops_at_start(tmp_path, devroot):
    proc = run_cli(tmp_path, devroot, serve_args(free_port(), "--enable-auto-tool-choice")[2:])
    assert proc.returncode == 1
    assert proc.stdout.rstrip().endswith("TypeError: Error: --enable-auto-tool-choice requires --tool-call-parser")
    assert "Application startup complete." not in proc.stdout


def test_an_unknown_tool_call_parser_stops_at_start_like_vllm(tmp_path, devroot):
    proc = run_cli(tmp_path, devroot, serve_args(free_port(), "--enable-auto-tool-choice", "--tool-call-parser",
                                                 "qwen3_codr")[2:])
    assert proc.returncode == 1
    last = proc.stdout.rstrip().splitlines()[-1]
    assert "KeyError: 'invalid tool call parser: qwen3_codr (chose from { apertus," in last
    assert "vLLM API server version" in proc.stdout and "Starting to load model" not in proc.stdout


def test_an_unknown_reasoning_parser_ends_the_engine_after_the_model_loaded(tmp_path, devroot):
    """vLLM 0.23's validate_api_server_args does not see --reasoning-parser yet; the engine looks it up last."""
    proc = run_cli(tmp_path, devroot, serve_args(free_port(), "--reasoning-parser", "qwen35")[2:])
    assert proc.returncode == 1
    out = proc.stdout
    assert "Available KV cache memory:" in out and "Application startup complete." not in out
    assert ("KeyError: \"Reasoning parser 'qwen35' not found. Available parsers: cohere_command3, cohere_command4,"
            in out)


def test_sigterm_waits_for_an_open_stream_then_exits_0(server):
    """As vLLM 0.23.0's own server can (tests/sim/refserver): new connections are refused, the stream gets no
    more tokens, and the process exits with status 0 once the client closes it."""
    srv = server(VLLM_SIM_TOKEN_DELAY="0.1").wait_ready()
    sock = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
    body = json.dumps({"model": "qwen3.5", "prompt": "hi", "max_tokens": 40, "stream": True}).encode()
    sock.sendall(b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    seen = b""
    while b"data: " not in seen:
        chunk = sock.recv(65536)
        assert chunk, seen
        seen += chunk
    srv.proc.terminate()
    with pytest.raises(subprocess.TimeoutExpired):
        srv.proc.wait(2)
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", srv.port), timeout=2).close()
    sock.close()
    assert srv.proc.wait(10) == 0
    out = srv.log.read_text()
    assert "Waiting for connections to close." in out and "Finished server process [%d]" % srv.proc.pid in out
