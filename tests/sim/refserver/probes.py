"""One table of probes: what the collection sends to a vLLM server and reads back.

Each probe returns an *observation*: the observables the collection relies on, normalised so that two
servers that behave alike give equal observations (no ids, times, or generated text). The contract test
(test_contract.py) runs every probe against vLLM 0.23.0's own server (the reference server) and against
the stand-in ``vllm`` of the test image, and asserts the observations are equal and as the collection
expects. Test harness only.
"""
from __future__ import annotations

import http.client
import json
import os
import re
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

import yaml

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
sys.path.insert(0, str(REPO / ".ansible" / "collections"))

# pylint: disable=wrong-import-position
from ansible_collections.ascend.vllm.plugins.module_utils.serve import _ready  # noqa: E402

MONITORING = REPO / "roles" / "vllm_serve" / "files" / "monitoring" / "metric-sources.yml"
# The instance's API key in the lane (vllm_serve_api_key; the plan passes it as VLLM_API_KEY).
API_KEY = "contract-lane-key"
# What the roles send (roles/vllm_serve/defaults/main.yml: the guide's prompt; token limits small here so
# the CPU answers quickly; the limits are what is compared, not the text).
PROMPT = "The future of AI is"
MAX_TOKENS = 5
CHAT_MAX_TOKENS = 7
# vLLM's default max_tokens of a completions request that sets none (OpenAI's default, 16).
COMPLETIONS_DEFAULT_TOKENS = 16


class Answer(object):
    def __init__(self, status: Optional[int], headers: Dict[str, str], body: bytes, error: str = "") -> None:
        self.status, self.headers, self.body, self.error = status, headers, body, error

    def json(self) -> Any:
        try:
            return json.loads(self.body or b"null")
        except ValueError:
            return None

    def events(self) -> List[Any]:
        """The ``data:`` payloads of an SSE answer, ``[DONE]`` as the string."""
        out = []
        for line in self.body.decode("utf-8", "replace").splitlines():
            if line.startswith("data: "):
                data = line[len("data: "):]
                out.append(data if data == "[DONE]" else json.loads(data))
        return out


def request(server, method: str, path: str, body: Any = None, key: Optional[str] = "planned",
            timeout: float = 120.0) -> Answer:
    """One HTTP request to ``server`` (with the instance's API key unless ``key`` is None or another)."""
    headers = {}
    token = server.api_key if key == "planned" else key
    if token:
        headers["Authorization"] = "Bearer " + token
    data = None
    if body is not None:
        data = json.dumps(body)
        headers["Content-Type"] = "application/json"
    try:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=timeout)
        conn.request(method, path, data, headers)
        resp = conn.getresponse()
        raw = resp.read()
        conn.close()
    except (OSError, http.client.HTTPException) as exc:
        return Answer(None, {}, b"", "%s: %s" % (type(exc).__name__, exc))
    return Answer(resp.status, {k.lower(): v for k, v in resp.getheaders()}, raw)


def _keys(value: Any) -> List[str]:
    return sorted(value) if isinstance(value, dict) else []


def _error_shape(answer: Answer) -> Dict[str, Any]:
    body = answer.json()
    error = body.get("error") if isinstance(body, dict) else None
    return {"status": answer.status, "error": sorted(error) if isinstance(error, dict) else type(error).__name__}


# ------------------------------------------------------------------------------------ the probes
def startup_log(server) -> Dict[str, Any]:
    """The readiness watch (serve/_ready.py MARKER) waits for uvicorn's line; the role's docs quote the
    other two (README "readiness")."""
    text = server.log()
    return {line: line in text for line in
            ("Started server process", "Waiting for application startup.", _ready.MARKER)}


def health(server) -> Dict[str, Any]:
    """/health: the watch, the balancer's health check (HAProxy), check_serving. Open with --api-key."""
    answer = request(server, "GET", "/health", key=None)
    return {"status": answer.status, "empty_body": answer.body == b""}


def health_check_http10(server) -> Dict[str, Any]:
    """The balancer's health check: HAProxy's ``option httpchk GET /health`` sends an HTTP/1.0 request with no
    Host header (roles/balancer/templates/haproxy.cfg.j2, ``http-check expect status 200``)."""
    import socket  # pylint: disable=import-outside-toplevel
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(b"GET /health HTTP/1.0\r\n\r\n")
        data = b""
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    status_line = data.split(b"\r\n", 1)[0].decode("latin-1")
    # Read to the end: a server that keeps an HTTP/1.0 connection open fails here (socket timeout).
    return {"status": int(status_line.split()[1]) if len(status_line.split()) > 1 else None}


def metrics_open(server) -> Dict[str, Any]:
    """/metrics: Prometheus scrapes it without the API key (fleet/_metrics.py targets)."""
    answer = request(server, "GET", "/metrics", key=None)
    return {"status": answer.status, "text": answer.headers.get("content-type", "").startswith("text/plain")}


def unauthorized(server) -> Dict[str, Any]:
    """The API key: /v1 without it, or with a wrong one, is 401 (the roles' API-key checks)."""
    return {"models_no_key": _error_shape(request(server, "GET", "/v1/models", key=None)),
            "models_wrong_key": _error_shape(request(server, "GET", "/v1/models", key="wrong")),
            "completions_no_key": request(server, "POST", "/v1/completions",
                                          {"model": "qwen3.5", "prompt": PROMPT}, key=None).status}


def models(server) -> Dict[str, Any]:
    """/v1/models: the watch checks the served name (model_ids), the evaluation client reads id and root."""
    answer = request(server, "GET", "/v1/models")
    body = answer.json() or {}
    data = body.get("data") or [{}]
    return {"status": answer.status, "object": body.get("object"), "ids": _ready.model_ids(body),
            "root_is_model_path": data[0].get("root") == server.argv[2],
            "max_model_len": data[0].get("max_model_len"), "owned_by": data[0].get("owned_by")}


def _usage_shape(body: Dict[str, Any]) -> Dict[str, Any]:
    usage = body.get("usage") or {}
    return {"keys": sorted(k for k in usage if usage[k] is not None),
            "adds_up": usage.get("total_tokens") == usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0)}


def completions_guide_body(server) -> Dict[str, Any]:
    """The guide's completions request as the guide writes it (max_completion_tokens): vLLM 0.23's
    /v1/completions does not read that field, so the answer has the default 16 tokens."""
    body = {"model": "qwen3.5", "prompt": PROMPT, "max_completion_tokens": MAX_TOKENS, "temperature": 0}
    answer = request(server, "POST", "/v1/completions", body)
    data = answer.json() or {}
    return {"status": answer.status, "completion_tokens": (data.get("usage") or {}).get("completion_tokens"),
            "finish_reason": ((data.get("choices") or [{}])[0]).get("finish_reason")}


def completions_smoke(server) -> Dict[str, Any]:
    """The smoke test's completions request (serve/_ready.py completion_body): its limit is obeyed."""
    answer = request(server, "POST", "/v1/completions", _ready.completion_body("qwen3.5", PROMPT, MAX_TOKENS))
    data = answer.json() or {}
    choice = (data.get("choices") or [{}])[0]
    return {"status": answer.status, "object": data.get("object"),
            "text_is_str": isinstance(_ready.answer_text(data, False), str),
            "completion_tokens": (data.get("usage") or {}).get("completion_tokens"),
            "finish_reason": choice.get("finish_reason"), "usage": _usage_shape(data),
            "choice_keys": [k for k in ("index", "text", "finish_reason", "logprobs") if k in choice]}


def chat_smoke(server) -> Dict[str, Any]:
    """The smoke test's chat request (serve/_ready.py chat_body: the guide's, max_completion_tokens)."""
    answer = request(server, "POST", "/v1/chat/completions", _ready.chat_body("qwen3.5", PROMPT, CHAT_MAX_TOKENS))
    data = answer.json() or {}
    choice = (data.get("choices") or [{}])[0]
    tokens = (data.get("usage") or {}).get("completion_tokens")
    return {"status": answer.status, "object": data.get("object"),
            "role": (choice.get("message") or {}).get("role"),
            "text_is_str": isinstance(_ready.answer_text(data, True), str),
            "within_limit": isinstance(tokens, int) and 1 <= tokens <= CHAT_MAX_TOKENS,
            "finish_reason_known": choice.get("finish_reason") in ("stop", "length"), "usage": _usage_shape(data)}


def _stream_shape(answer: Answer, chat: bool) -> Dict[str, Any]:
    events = answer.events()
    chunks = [e for e in events if isinstance(e, dict)]
    with_choices = [c for c in chunks if c.get("choices")]
    usage = [c for c in chunks if c.get("usage") and not c.get("choices")]
    first = (with_choices[0]["choices"][0] if with_choices else {})
    return {"status": answer.status, "sse": answer.headers.get("content-type", "").startswith("text/event-stream"),
            "done_last": bool(events) and events[-1] == "[DONE]",
            "object": sorted(set(c.get("object") for c in chunks)),
            "first_role": (first.get("delta") or {}).get("role") if chat else None,
            "finish_reason_once": sum(1 for c in with_choices if c["choices"][0].get("finish_reason")) == 1,
            "usage_chunk_last": bool(usage) and chunks[-1] is usage[-1]}


def completions_stream(server) -> Dict[str, Any]:
    body = dict(_ready.completion_body("qwen3.5", PROMPT, MAX_TOKENS), stream=True,
                stream_options={"include_usage": True})
    return _stream_shape(request(server, "POST", "/v1/completions", body), False)


def chat_stream(server) -> Dict[str, Any]:
    """The evaluation client's request (evaluation/_eval_client.py chat_body: streamed, with usage)."""
    sys.path.insert(0, str(REPO / ".ansible" / "collections"))
    from ansible_collections.ascend.vllm.plugins.module_utils.evaluation import _eval_client  # noqa: E402
    body = _eval_client.chat_body("qwen3.5", PROMPT, CHAT_MAX_TOKENS)
    return _stream_shape(request(server, "POST", "/v1/chat/completions", body), True)


def unknown_model(server) -> Dict[str, Any]:
    """A request for a name the server does not serve (a balancer or client misconfigured)."""
    return _error_shape(request(server, "POST", "/v1/completions", {"model": "nope", "prompt": PROMPT}))


def metrics_families(server) -> Dict[str, Any]:
    """/metrics: every vLLM family metric-sources.yml lists for the dashboard and alerts, with its type and
    the labels (model_name, engine) the queries group by, after the requests above."""
    sources = yaml.safe_load(MONITORING.read_text())
    wanted = {name: sources["vllm_0_23_0"][name] for name, entry in sources["metrics"].items()
              if entry.get("exporter") == "vllm"}
    text = request(server, "GET", "/metrics", key=None).body.decode("utf-8", "replace")
    types_ = dict(re.findall(r"^# TYPE (\S+) (\S+)$", text, re.M))
    out = {}
    for name, kind in sorted(wanted.items()):
        sample = name + {"gauge": "", "counter": "_total", "histogram": "_count"}[kind]
        labels = re.findall(r"^%s\{([^}]*)\}" % re.escape(sample), text, re.M)
        names = sorted(set(re.findall(r"(\w+)=", labels[0]))) if labels else []
        # The TYPE line as written: prometheus_client names a counter's after its sample (X_total).
        typed = [t for t in (name, name + "_total") if t in types_]
        out[name] = {"type": " ".join([typed[0], types_[typed[0]]]) if typed else None,
                     "labels": [n for n in names if n in ("model_name", "engine")]}
    return out


# ---------------------------------------------------------------------- the chat parsers (planned by default)
# The plan passes --reasoning-parser qwen3 --enable-auto-tool-choice --tool-call-parser qwen3_coder
# (contracts/chat_parsers.py); the smoke tests read message.reasoning and message.tool_calls (serve/_ready.py).
# A tiny random model neither thinks nor calls tools by itself: these probes observe the contract (field names,
# types, shapes, status codes), not what a real model would say.
def _message_of(answer: Answer) -> Dict[str, Any]:
    body = answer.json()
    choices = body.get("choices") if isinstance(body, dict) else None
    choice = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else {}
    message = choice.get("message")
    return dict(message, _finish_reason=choice.get("finish_reason")) if isinstance(message, dict) else {}


def _type(value: Any) -> str:
    return type(value).__name__


def _call_shape(call: Any) -> Dict[str, Any]:
    """A tool call as vLLM's ToolCall serialises it: id, type "function", function {name, arguments (JSON text)}."""
    call = call if isinstance(call, dict) else {}
    function = call.get("function") if isinstance(call.get("function"), dict) else {}
    try:
        arguments = json.loads(function.get("arguments"))
    except (TypeError, ValueError):
        arguments = None
    return {"keys": sorted(call), "type": call.get("type"), "function_keys": sorted(function),
            "id_prefix": str(call.get("id") or "").split("-tool-", maxsplit=1)[0] + "-tool-",
            "arguments": _type(arguments)}


def chat_with_parsers(server) -> Dict[str, Any]:
    """The guide's chat request (no chat_template_kwargs) with the reasoning parser on: vLLM 0.23's non-streamed
    answer runs the parser on the output alone (vllm/parser/abstract_parser.py parse; qwen3_reasoning_parser.py
    extract_reasoning): an output without </think>, with enable_thinking not false, is all reasoning."""
    message = _message_of(request(server, "POST", "/v1/chat/completions",
                                  _ready.chat_body("qwen3.5", PROMPT, CHAT_MAX_TOKENS)))
    return {"message_keys": sorted(k for k in message if not k.startswith("_")),
            "reasoning": _type(message.get("reasoning")), "content": _type(message.get("content")),
            "tool_calls": message.get("tool_calls")}


def reasoning_smoke(server) -> Dict[str, Any]:
    """The smoke test's reasoning request (serve/_ready.py reasoning_body: enable_thinking true) and its check."""
    answer = request(server, "POST", "/v1/chat/completions", _ready.reasoning_body("qwen3.5", PROMPT, MAX_TOKENS))
    problem, _text = _ready.reasoning_problem(answer.json())
    message = _message_of(answer)
    return {"status": answer.status, "problem": problem, "reasoning": _type(message.get("reasoning")),
            "no_reasoning_content": "reasoning_content" not in message}


def reasoning_stream(server) -> Dict[str, Any]:
    """The reasoning request streamed: the delta fields that carry text."""
    body = dict(_ready.reasoning_body("qwen3.5", PROMPT, MAX_TOKENS), stream=True)
    answer = request(server, "POST", "/v1/chat/completions", body)
    keys = set()
    for event in answer.events():
        for choice in (event.get("choices") or []) if isinstance(event, dict) else []:
            delta = choice.get("delta") or {}
            keys.update(k for k, v in delta.items() if v not in (None, "", []))
    return {"status": answer.status, "delta_fields": sorted(keys & {"reasoning", "reasoning_content", "role"})}


def tool_call_auto(server) -> Dict[str, Any]:
    """The smoke test's tool request (serve/_ready.py tool_body: tool_choice auto, the qwen3_coder parser): a list
    of calls (empty when the model writes none), each a ToolCall, finish_reason "tool_calls" exactly when a call
    came back (vLLM: auto_tools_called)."""
    answer = request(server, "POST", "/v1/chat/completions", _ready.tool_body("qwen3.5", CHAT_MAX_TOKENS))
    message = _message_of(answer)
    calls = message.get("tool_calls")
    return {"status": answer.status, "tool_calls": _type(calls),
            "shapes_ok": all(_call_shape(c)["keys"] == ["function", "id", "type"] for c in calls or []),
            "finish_reason_says_so": (message.get("_finish_reason") == "tool_calls") == bool(calls)}


# A tool whose arguments have one possible value: a named tool choice makes vLLM write them under a JSON-schema
# grammar (structured outputs), so even a random model returns a call. Its arguments are not complete on the
# reference server: the grammar allows free whitespace and the random model writes newlines to the token limit
# (measured; a request cannot turn that off: ``structured_outputs`` without a constraint is a 400), so only the
# call's shape is compared.
FORCED_TOOL = {"type": "function", "function": {
    "name": "get_weather", "description": "Get the current weather in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string", "enum": ["Paris"]}},
                   "required": ["city"], "additionalProperties": False}}}


def tool_call_named(server) -> Dict[str, Any]:
    """A named tool choice: vLLM 0.23 returns the call with content "" (not null), the call's id
    ``chatcmpl-tool-...``; its arguments JSON text (a complete object on the stand-in only, see above)."""
    body = {"model": "qwen3.5", "messages": [{"role": "user", "content": _ready.TOOL_PROMPT}], "tools": [FORCED_TOOL],
            "tool_choice": {"type": "function", "function": {"name": "get_weather"}}, "max_completion_tokens": 64,
            "temperature": 0, "chat_template_kwargs": {"enable_thinking": False}}
    answer = request(server, "POST", "/v1/chat/completions", body)
    message = _message_of(answer)
    calls = message.get("tool_calls") or []
    shape = _call_shape(calls[0]) if calls else {}
    shape.pop("arguments", None)
    return {"status": answer.status, "calls": len(calls), "shape": shape, "content": message.get("content")}


# name -> (function, what of the collection relies on it)
PROBES: Dict[str, Callable[[Any], Dict[str, Any]]] = {
    "startup_log": startup_log,
    "health": health,
    "health_check_http10": health_check_http10,
    "metrics_open": metrics_open,
    "unauthorized": unauthorized,
    "models": models,
    "completions_guide_body": completions_guide_body,
    "completions_smoke": completions_smoke,
    "chat_smoke": chat_smoke,
    "completions_stream": completions_stream,
    "chat_stream": chat_stream,
    "unknown_model": unknown_model,
    "metrics_families": metrics_families,
    "chat_with_parsers": chat_with_parsers,
    "reasoning_smoke": reasoning_smoke,
    "reasoning_stream": reasoning_stream,
    "tool_call_auto": tool_call_auto,
    "tool_call_named": tool_call_named,
}


def tool_auto_without_parsers(server) -> Dict[str, Any]:
    """tool_choice auto on a server started without --enable-auto-tool-choice (vllm_serve_tool_call_parser: none):
    vLLM's 400 (entrypoints/serve/render/serving.py)."""
    answer = request(server, "POST", "/v1/chat/completions", _ready.tool_body("qwen3.5", CHAT_MAX_TOKENS))
    body = answer.json()
    error = body.get("error") if isinstance(body, dict) else None
    error = error if isinstance(error, dict) else {}
    return {"status": answer.status, "keys": sorted(error), "message": error.get("message"),
            "type": error.get("type"), "param": error.get("param"), "code": error.get("code")}


# ------------------------------------------------------------------------- probes that end a server
def sigterm_in_flight(server, stream_tokens: int = 2000) -> Dict[str, Any]:
    """``docker stop`` (SIGTERM to the server) while a client reads a stream: whether the server still takes
    connections, whether it exits while the stream is open, how the stream ends, and the exit status once the
    client closes its connection."""
    import socket  # pylint: disable=import-outside-toplevel
    result: Dict[str, Any] = {"events": []}
    body = {"model": "qwen3.5", "prompt": PROMPT, "max_tokens": stream_tokens, "ignore_eos": True,
            "stream": True}
    first = threading.Event()
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=300)
    conn.connect()
    sock = conn.sock  # kept: http.client lets go of it when the answer says "connection: close"

    def stream():
        headers = {"Content-Type": "application/json"}
        if server.api_key:
            headers["Authorization"] = "Bearer " + server.api_key
        try:
            conn.request("POST", "/v1/completions", json.dumps(body), headers)
            resp = conn.getresponse()
            for raw in resp:
                line = raw.strip()
                if line.startswith(b"data: "):
                    result["events"].append(line[6:])
                    first.set()
        except (OSError, ValueError, http.client.HTTPException) as exc:
            result["client_error"] = type(exc).__name__
        first.set()

    thread = threading.Thread(target=stream, daemon=True)
    thread.start()
    first.wait(120)
    os.kill(server.proc.pid, 15)
    server.wait_exit(8)  # it may exit at once, or wait for the stream to close (see below)
    refused = request(server, "GET", "/health", key=None, timeout=5).status is None
    # The client gives up: it closes its end of the stream.
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    sock.close()
    started = time.monotonic()
    code = server.wait_exit(30)
    thread.join(10)
    finished = False
    reasons = []
    for event in result["events"]:
        try:
            chunk = json.loads(event)
        except ValueError:
            continue
        # An aborted request may end with finish_reason "abort" (vLLM): only stop / length is a completed one.
        reasons += [c.get("finish_reason") for c in (chunk.get("choices") or []) if isinstance(c, dict)
                    and c.get("finish_reason")] if isinstance(chunk, dict) else []
        finished = finished or any(c.get("finish_reason") in ("stop", "length") for c in (chunk.get("choices") or [])
                                   if isinstance(chunk, dict) and isinstance(c, dict))
    last = (result["events"] or [b""])[-1][:200]
    print("SIGTERM probe: %d events, finish reasons %s, last %r" % (len(result["events"]), reasons, last))
    # Not compared, racy on vLLM 0.23.0's side (both seen): the stream gets an error event and [DONE] and the
    # server exits at once, or uvicorn logs "Waiting for connections to close." and holds the exit until the
    # client closes the stream (a client holding it holds `docker stop` until Docker's stop timeout).
    return {"new_connections_refused": refused, "generation_completed": finished,
            "exit_status": code,
            "exited_within_10s_of_close": code is not None and time.monotonic() - started < 10}


def engine_death(server, kill_engine: Callable[[], None]) -> Dict[str, Any]:
    """The engine dies (``kill_engine``): what /health says meanwhile, then the API server's exit status."""
    kill_engine()
    started = time.monotonic()
    code = server.wait_exit(60)
    return {"exit_status": code, "exited_within_15s": code is not None and time.monotonic() - started < 15,
            "cause_found": bool(_ready.find_cause(server.log().splitlines()))}
