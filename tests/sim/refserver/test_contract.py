"""The contract: every probe of probes.PROBES gives the same observation on vLLM 0.23.0's own server (the
reference server, CPU build) and on the test image's stand-in, and that observation is what the collection
relies on (EXPECTED). The stand-in's side runs in `make sim` (seconds, no Docker); both sides in `make
contract` (tests/sim/README.md, "Contract lane")."""
from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import probes  # noqa: E402

_TOKENS = ["completion_tokens", "prompt_tokens", "total_tokens"]
_METRIC_LABELS = ["engine", "model_name"]
_STREAM = {"status": 200, "sse": True, "done_last": True, "finish_reason_once": True, "usage_chunk_last": True}
EXPECTED = {
    "startup_log": {"Started server process": True, "Waiting for application startup.": True,
                    "Application startup complete.": True},
    "health": {"status": 200, "empty_body": True},
    "health_check_http10": {"status": 200},
    "metrics_open": {"status": 200, "text": True},
    "unauthorized": {"models_no_key": {"status": 401, "error": "str"},
                     "models_wrong_key": {"status": 401, "error": "str"}, "completions_no_key": 401},
    "models": {"status": 200, "object": "list", "ids": ["qwen3.5"], "root_is_model_path": True,
               "max_model_len": 16384, "owned_by": "vllm"},
    # vLLM 0.23's /v1/completions does not read max_completion_tokens: OpenAI's default of 16 applies.
    "completions_guide_body": {"status": 200, "completion_tokens": probes.COMPLETIONS_DEFAULT_TOKENS,
                               "finish_reason": "length"},
    "completions_smoke": {"status": 200, "object": "text_completion", "text_is_str": True,
                          "completion_tokens": probes.MAX_TOKENS, "finish_reason": "length",
                          "usage": {"keys": _TOKENS, "adds_up": True},
                          "choice_keys": ["index", "text", "finish_reason", "logprobs"]},
    "chat_smoke": {"status": 200, "object": "chat.completion", "role": "assistant", "text_is_str": True,
                   "within_limit": True, "finish_reason_known": True, "usage": {"keys": _TOKENS, "adds_up": True}},
    "completions_stream": dict(_STREAM, object=["text_completion"], first_role=None),
    "chat_stream": dict(_STREAM, object=["chat.completion.chunk"], first_role="assistant"),
    "unknown_model": {"status": 404, "error": ["code", "message", "param", "type"]},
    "metrics_families": {name: {"type": "%s%s %s" % (name, "_total" if kind == "counter" else "", kind),
                                "labels": _METRIC_LABELS} for name, kind in (
        ("vllm:generation_tokens", "counter"), ("vllm:kv_cache_usage_perc", "gauge"),
        ("vllm:num_requests_running", "gauge"), ("vllm:num_requests_waiting", "gauge"),
        ("vllm:prompt_tokens", "counter"), ("vllm:request_time_per_output_token_seconds", "histogram"),
        ("vllm:time_to_first_token_seconds", "histogram"))},
    # The chat parsers (planned by default). The guide's chat request: vLLM 0.23 files the whole non-streamed
    # answer under reasoning, content null (no </think> in it, enable_thinking not false).
    "chat_with_parsers": {"message_keys": ["annotations", "audio", "content", "function_call", "reasoning", "refusal",
                                           "role", "tool_calls"], "reasoning": "str", "content": "NoneType",
                          "tool_calls": []},
    "reasoning_smoke": {"status": 200, "problem": None, "reasoning": "str", "no_reasoning_content": True},
    "reasoning_stream": {"status": 200, "delta_fields": ["reasoning", "role"]},
    "tool_call_auto": {"status": 200, "tool_calls": "list", "shapes_ok": True, "finish_reason_says_so": True},
    "tool_call_named": {"status": 200, "calls": 1, "content": "", "shape": {
        "keys": ["function", "id", "type"], "type": "function", "function_keys": ["arguments", "name"],
        "id_prefix": "chatcmpl-tool-"}},
}
# What SIGTERM with a request in flight and a dead engine look like (measured on the reference server).
EXPECTED_SIGTERM = {"new_connections_refused": True, "generation_completed": False, "exit_status": 0,
                    "exited_within_10s_of_close": True}
EXPECTED_ENGINE_DEATH = {"exit_status": 0, "exited_within_15s": True, "cause_found": True}


def test_the_table_and_the_expectations_name_the_same_probes():
    assert list(EXPECTED) == list(probes.PROBES)


@pytest.fixture(scope="module")
def observed(shared_server):
    cache = {}

    def observe(kind):
        if kind not in cache:
            server = shared_server(kind)
            cache[kind] = {name: probe(server) for name, probe in probes.PROBES.items()}
        return cache[kind]
    return observe


@pytest.mark.parametrize("name", list(probes.PROBES))
def test_the_standin_answers_as_vllm_does(observed, name):
    assert observed("standin")[name] == EXPECTED[name]


@pytest.mark.refserver
@pytest.mark.parametrize("name", list(probes.PROBES))
def test_vllm_answers_as_the_collection_expects(observed, name):
    assert observed("vllm")[name] == EXPECTED[name]


def _engine_pid(server):
    """vLLM's engine core: the API server's child whose process title is VLLM::EngineCore."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == server.proc.pid and b"EngineCore" in cmdline:
            return int(entry.name)
    raise AssertionError("no EngineCore child of %d" % server.proc.pid)


@pytest.mark.parametrize("kind", [pytest.param("vllm", marks=pytest.mark.refserver), "standin"])
def test_sigterm_with_a_request_in_flight(start_server, shared_server, kind):
    # The reference server's start takes minutes, so this ends the session's one (after the probes, in file
    # order). The stand-in streams a token every 0.1 s here (VLLM_SIM_TOKEN_DELAY): still running at SIGTERM.
    server = start_server(kind, extra_env={"VLLM_SIM_TOKEN_DELAY": "0.1"}) if kind == "standin" \
        else shared_server(kind)
    assert probes.sigterm_in_flight(server) == EXPECTED_SIGTERM


@pytest.mark.parametrize("kind", [pytest.param("vllm", marks=pytest.mark.refserver), "standin"])
def test_the_api_server_exits_when_the_engine_dies(start_server, kind):
    if kind == "vllm":
        server = start_server(kind)

        def kill_engine():
            os.kill(_engine_pid(server), signal.SIGKILL)
    else:
        # The stand-in's engine dies on its own (VLLM_SIM_DIE_AFTER seconds after startup completed).
        server = start_server(kind, extra_env={"VLLM_SIM_DIE_AFTER": "3"})

        def kill_engine():
            time.sleep(3)
    assert probes.engine_death(server, kill_engine) == EXPECTED_ENGINE_DEATH


# vLLM's 400 for tool_choice auto on a server started without the tool-call parser (the plan with
# vllm_serve_reasoning_parser / vllm_serve_tool_call_parser none): entrypoints/serve/render/serving.py.
NO_PARSERS = {"vllm_serve_reasoning_parser": "none", "vllm_serve_tool_call_parser": "none"}
EXPECTED_TOOL_AUTO_WITHOUT_PARSERS = {
    "status": 400, "keys": ["code", "message", "param", "type"], "type": "BadRequestError", "param": None,
    "code": 400, "message": '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'}


@pytest.mark.parametrize("kind", [pytest.param("vllm", marks=pytest.mark.refserver), "standin"])
def test_tool_choice_auto_without_the_parsers_is_vllms_400(start_server, kind):
    server = start_server(kind, plan_extra=NO_PARSERS)
    assert not {"--enable-auto-tool-choice", "--tool-call-parser", "--reasoning-parser"} & set(server.argv)
    assert probes.tool_auto_without_parsers(server) == EXPECTED_TOOL_AUTO_WITHOUT_PARSERS
    server.stop()
