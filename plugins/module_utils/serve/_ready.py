# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Readiness of one vLLM container, watched from the node in one call.

The pure part (log parsing, classification, request bodies, messages) is plain
functions; ``watch`` is the poll loop over an injectable *probe* (the container
and the server as seen from the node), *clock* and *sleep*, so unit tests drive
it with a fake clock.  ``NodeProbe`` is the node's real probe: the container
through the collection's one Engine client (``node/_node_docker.DockerApi``, any
``docker_host`` the doc fragment promises) and its server over HTTP, standard
library only.

The exception rules of ``find_cause`` and the request bodies of the smoke tests
follow the vllm-ascend docs, "Qwen3.5-Dense" tutorial (section 5.1: the startup
line, ``/v1/completions`` and ``/v1/chat/completions`` requests).
"""

from __future__ import annotations

import contextlib
import http.client as httplib
import json
import os
import re
import time
from datetime import datetime
from typing import Any, Callable, Dict, List, Optional, Tuple
from urllib.error import HTTPError
from urllib.request import ProxyHandler, Request, build_opener

from ansible_collections.ascend.vllm.plugins.module_utils.node._node_docker import DockerApi
from ansible_collections.ascend.vllm.plugins.module_utils._labels import SPEC_LABEL
from ansible_collections.ascend.vllm.plugins.module_utils._redact import redact_text
from ansible_collections.ascend.vllm.plugins.module_utils._text import seconds_text, truncate
from ansible_collections.ascend.vllm.plugins.module_utils._unit import unit_command
from ansible_collections.ascend.vllm.plugins.module_utils.serve._words import words

# What vLLM logs once the API server listens (uvicorn).
MARKER = 'Application startup complete.'
# Seconds between two looks at the container and the server.
POLL_INTERVAL = 0.25
# What the smoke tests send, by default: the guide's prompt and its two requests' max_completion_tokens
# (vllm-ascend docs, "Qwen3.5-Dense" tutorial, 5.1), and how long each may take. The one declaration: vllm_ready's
# option defaults are these, and a test keeps the vllm_serve role's vllm_serve_smoke_* defaults equal to them.
SMOKE = {'prompt': 'The future of AI is', 'max_tokens': 50, 'chat_max_tokens': 1024, 'smoke_timeout': 600.0}
# What a smoke test of an instance may say: the above, whether it runs, and what it asks of the chat parsers.
SMOKE_KEYS = ('smoke_test', 'prompt', 'max_tokens', 'chat_max_tokens', 'smoke_timeout', 'reasoning',
              'reasoning_field', 'tool_call')
LOG_LINES = 50
CAUSE_LIMIT = 300

# "(EngineCore_DP0 pid=123) ERROR 11-30 22:13:56 [core.py:708] " before a logged line.
_PROCESS_PREFIX = re.compile(r'^\(\w+ pid=\d+\) (\w+ \d\d-\d\d [\d:]+ \[[^\]]+\] )?')
_EXCEPTION_LINE = re.compile(r'^[\w.]*(Error|Exception): ')
# vLLM's API server only points back at the engine's exception with this one.
_NOT_A_CAUSE = re.compile(r'^RuntimeError: Engine core initialization failed')
_RFC3339 = re.compile(r'^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$')


def find_cause(lines: List[str], limit: int = CAUSE_LIMIT) -> str:
    """The first exception line of the log (the root cause), or ''."""
    for line in lines:
        text = _PROCESS_PREFIX.sub('', line, count=1)
        if _EXCEPTION_LINE.match(text) and not _NOT_A_CAUSE.match(text):
            return truncate(text, limit)
    return ''


def docker_since(timestamp: str) -> str:
    """An RFC 3339 time of Docker ("2026-11-30T22:13:56.123456789Z") as the API's
    ``since`` parameter ("seconds.nanoseconds"); ValueError when it is not one."""
    found = _RFC3339.match(timestamp or '')
    if not found:
        raise ValueError('not an RFC 3339 time: %r' % (timestamp,))
    seconds = datetime.strptime(found.group(1) + found.group(3), '%Y-%m-%dT%H:%M:%S%z').timestamp()
    return '%d.%s' % (seconds, (found.group(2) or '0')[:9].ljust(9, '0'))


def split_timestamp(line: str) -> Tuple[Optional[str], str]:
    """``("seconds.nanos" or None, text)`` of a line read with ``timestamps=1``."""
    stamp, text = line.partition(' ')[0::2]
    with contextlib.suppress(ValueError):
        return docker_since(stamp), text
    return None, line


def container_view(info: Optional[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
    """What the wait needs from ``GET /containers/NAME/json`` (None: no such container)."""
    if not info:
        return None
    state = info.get('State') or {}
    return {'status': state.get('Status', ''), 'restarting': bool(state.get('Restarting')),
            'exit_code': state.get('ExitCode'), 'restart_count': int(info.get('RestartCount') or 0),
            'started_at': state.get('StartedAt', ''), 'tty': bool((info.get('Config') or {}).get('Tty'))}


def judge_container(view: Optional[Dict[str, Any]], baseline: int) -> Optional[str]:
    """``gone``, ``crashed``, ``exited``, or None while the container may still come up.

    After a crash Docker shows ``restarting`` during its back-off, or ``running``
    again with a higher restart count: both are a crash."""
    if view is None:
        return 'gone'
    if view['restarting'] or view['restart_count'] > baseline:
        return 'crashed'
    return 'exited' if view['status'] not in ('running', 'created') else None


def marker_error(state: str, view: Optional[Dict[str, Any]], baseline: int, name: str, timeout: float,
                 marker: str = MARKER, service: bool = False) -> str:
    """Why the wait for the startup line ended, in the words the role always used (a container's, or with
    ``service`` a systemd service's, serve/_words.py)."""
    said = words(service)
    if state == 'gone':
        reason = 'the %s is gone' % said['it']
    elif state == 'crashed':
        exit_part = ' (exit code %s)' % view['exit_code'] if view['restarting'] else ''
        reason = 'vLLM crashed while starting%s and %s restarted it %d time(s)' % (
            exit_part, said['restarter'], max(view['restart_count'] - baseline, 1))
    elif state == 'exited':
        reason = 'vLLM crashed while starting: the %s stopped (state %s, exit code %s)' % (
            said['served_by'], view['status'], view['exit_code'])
    else:
        reason = 'still not up after %ss' % seconds_text(timeout)
    return "vLLM in %s did not log '%s': %s" % (name, marker, reason)


def completion_body(model: str, prompt: str, max_tokens: int) -> Dict[str, Any]:
    """The guide's completions request (greedy, so the answer is repeatable), its limit as ``max_tokens``: the
    guide writes ``max_completion_tokens``, which vLLM 0.23's /v1/completions ignores (the answer then has 16
    tokens, the default; seen on vLLM 0.23.0's own server, tests/sim/refserver)."""
    return {'model': model, 'prompt': prompt, 'max_tokens': int(max_tokens), 'temperature': 0}


def chat_body(model: str, prompt: str, max_tokens: int) -> Dict[str, Any]:
    """The guide's chat completions request."""
    return {'model': model, 'messages': [{'role': 'user', 'content': prompt}],
            'max_completion_tokens': int(max_tokens), 'temperature': 0.7, 'top_p': 0.95}


# The smoke tests of the chat parsers (with --reasoning-parser, --enable-auto-tool-choice --tool-call-parser):
# a request that asks for thinking, and one with a tool it has to call.  vLLM 0.23 returns the thinking in
# the message field ``reasoning`` (vllm/entrypoints/openai/chat_completion/protocol.py ``ChatMessage``) and a
# tool call as ``tool_calls`` [{id, type: function, function: {name, arguments: JSON text}}]
# (vllm/entrypoints/openai/engine/protocol.py ``ToolCall``).
REASONING_FIELD = 'reasoning'
SMOKE_TOOL = {'type': 'function', 'function': {
    'name': 'get_weather', 'description': 'Get the current weather in a city.',
    'parameters': {'type': 'object', 'properties': {'city': {'type': 'string', 'description': 'The city name.'}},
                   'required': ['city']}}}
TOOL_PROMPT = 'What is the weather like in Paris today? Use the get_weather tool.'


def reasoning_body(model: str, prompt: str, max_tokens: int) -> Dict[str, Any]:
    """The guide's chat request that asks for thinking (the small Qwen3.5 models do not think unless asked)."""
    return dict(chat_body(model, prompt, max_tokens), chat_template_kwargs={'enable_thinking': True})


def tool_body(model: str, max_tokens: int) -> Dict[str, Any]:
    """A chat request with one tool and ``tool_choice`` auto (what the tool-call parser serves), no thinking."""
    return {'model': model, 'messages': [{'role': 'user', 'content': TOOL_PROMPT}], 'tools': [SMOKE_TOOL],
            'tool_choice': 'auto', 'max_completion_tokens': int(max_tokens), 'temperature': 0,
            'chat_template_kwargs': {'enable_thinking': False}}


def _choice(answer: Any) -> Optional[Dict[str, Any]]:
    choices = answer.get('choices') if isinstance(answer, dict) else None
    return choices[0] if choices and isinstance(choices, list) and isinstance(choices[0], dict) else None


def _message(answer: Any) -> Optional[Dict[str, Any]]:
    message = (_choice(answer) or {}).get('message')
    return message if isinstance(message, dict) else None


def reasoning_problem(answer: Any, field: str = REASONING_FIELD) -> Tuple[Optional[str], str]:
    """(problem or None, the reasoning text) of an answer to ``reasoning_body``."""
    message = _message(answer)
    text = message.get(field) if message else None
    if isinstance(text, str) and text.strip():
        return None, text
    content = (message or {}).get('content')
    hint = (' (the content holds "</think>": the server ran without --reasoning-parser)'
            if isinstance(content, str) and '</think>' in content else '')
    return ('the answer carries no reasoning in message.%s, where vLLM\'s --reasoning-parser puts the thinking%s: %s'
            % (field, hint, truncate(json.dumps(answer), 400))), ''


def tool_call_problem(answer: Any, name: str = 'get_weather') -> Tuple[Optional[str], str]:
    """(problem or None, "name(arguments)") of an answer to ``tool_body``: a tool call of ``name`` whose
    arguments are a JSON object."""
    message = _message(answer)
    calls = (message or {}).get('tool_calls')
    if not isinstance(calls, list) or not calls:
        return ('no tool call came back (message.tool_calls is empty; the model answered "%s"): the tool-call '
                'parser did not find one' % truncate(str((message or {}).get('content') or ''), 200)), ''
    call = calls[0] if isinstance(calls[0], dict) else {}
    function = call.get('function') if isinstance(call.get('function'), dict) else {}
    try:
        arguments = json.loads(function.get('arguments') or '')
    except (TypeError, ValueError):
        arguments = None
    if call.get('type') != 'function' or function.get('name') != name or not isinstance(arguments, dict):
        return ('the tool call is not a call of %s with JSON object arguments: %s'
                % (name, truncate(json.dumps(call), 400))), ''
    return None, '%s(%s)' % (name, json.dumps(arguments, sort_keys=True))


def answer_text(answer: Any, chat: bool) -> Optional[str]:
    """The first choice's text (None: the answer carries no choices). A chat answer's is its content, or its
    reasoning when the content is empty: with --reasoning-parser, vLLM 0.23 files a whole non-streamed answer
    without ``</think>`` under ``reasoning`` with the content null, unless the request sets enable_thinking false
    (vllm/reasoning/qwen3_reasoning_parser.py extract_reasoning; seen on vLLM 0.23.0's own server,
    tests/sim/refserver)."""
    choice = _choice(answer)
    if choice is None:
        return None
    if chat:
        message = choice.get('message') or {}
        return str(message.get('content') or message.get(REASONING_FIELD) or '')
    return str(choice.get('text') or '')


def model_ids(answer: Any) -> List[str]:
    data = answer.get('data') if isinstance(answer, dict) else None
    return [str(m.get('id')) for m in data or [] if isinstance(m, dict)]


def bearer(api_key: Optional[str]) -> Dict[str, str]:
    return {'Authorization': 'Bearer ' + api_key} if api_key else {}


class Watch:
    """One wait for one container; ``run()`` returns the module's result.

    ``probe`` has ``inspect()`` (the Docker inspect dict or None), ``logs(since=None,
    tail=None, timestamps=False, tty=False)`` (text), ``get(path, timeout)`` and
    ``post(path, body, timeout)`` (``(status or None, text)``).  ``clock`` is a
    monotonic clock in seconds; ``sleep`` waits.  ``params`` holds the module's options.
    """

    def __init__(self, probe: Any, params: Dict[str, Any], clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep, wall: Callable[[], float] = time.time) -> None:
        self.probe, self.params, self.clock, self.sleep, self.wall = probe, params, clock, sleep, wall
        self.start, self.baseline = clock(), 0
        self.first: Optional[Dict[str, Any]] = None
        self.view: Optional[Dict[str, Any]] = None
        self.since: Optional[str] = None
        self.marker_seen = False
        self.health: Tuple[Optional[int], str] = (None, '')
        self.marker = params.get('marker') or MARKER
        self.marker_task = "Wait for '%s' in the log of %s" % (self.marker, params['name'])

    def elapsed(self) -> float:
        return self.clock() - self.start

    def run(self) -> Dict[str, Any]:
        self.view = self.first = container_view(self.probe.inspect())
        name = self.params['name']
        said = words(self.params.get('service'))
        if self.first is None:
            return self.finish('absent', 'Check that the %s %s exists' % (said['it'], name),
                               '%s %s does not exist; run playbooks/deploy.yml (or site.yml) first' % (said['It'], name))
        if self.params.get('check_mode') and self.first['status'] != 'running':
            return self.finish('not_running', 'Check that the %s %s runs' % (said['it'], name),
                               '%s %s is %s (a real run would start it)' % (said['It'], name, self.first['status']))
        self.baseline = self.first['restart_count']
        self.since = _start_since(self.first)
        if not self.params.get('just_started', True):
            # Left running by an earlier run: it answers at once, and its startup
            # line may have rotated out of the log.
            self.health = self.probe.get('/health', 5)
            self.marker_seen = self.health[0] == 200
        return self.wait()

    def budget(self, timeout: float) -> float:
        """Seconds this call may wait. A wait split into calls that report progress
        (report_after) counts a just-started container's timeout from its start, on
        the node's clock, and any other from the seconds the earlier calls said they
        waited (``waited``), so that the calls share one timeout."""
        if not self.params.get('report_after'):
            return timeout
        before = self.waited() - self.elapsed() if self.from_start() else float(self.params.get('waited') or 0)
        return timeout - min(max(0.0, before), timeout)

    def from_start(self) -> bool:
        return bool(self.params.get('report_after') and self.params.get('just_started', True)
                    and _start_since(self.first))

    def waited(self) -> float:
        """Seconds the whole wait took so far (all its calls, see ``budget``)."""
        return (max(0.0, self.wall() - float(_start_since(self.first) or 0)) if self.from_start()
                else float(self.params.get('waited') or 0) + self.elapsed())

    def wait(self) -> Dict[str, Any]:
        timeout, poll = float(self.params['timeout']), float(self.params.get('poll_interval', POLL_INTERVAL))
        budget, report = self.budget(timeout), float(self.params.get('report_after') or 0)
        while True:
            state = judge_container(self.view, self.baseline)
            if state:
                return self.finish(state, self.marker_task, self.startup_error(state))
            if not self.marker_seen:
                self.marker_seen = self.look_for_marker()
            if self.marker_seen:
                self.health = self.probe.get('/health', max(1.0, min(5.0, timeout - self.elapsed())))
                if self.health[0] == 200:
                    return self.serve()
            left = budget - self.elapsed()
            if left <= 0:
                return self.timed_out(timeout)
            if report and self.elapsed() >= report:
                return self.finish('waiting', self.marker_task, self.startup_error('timeout'))
            self.sleep(min(poll, left, report - self.elapsed()) if report else min(poll, left))
            self.view = container_view(self.probe.inspect())

    def startup_error(self, state: str, view: Optional[Dict[str, Any]] = None) -> str:
        """``marker_error`` of this wait: why it ended before the startup line (``view``: the container now)."""
        return marker_error(state, view or self.view, self.baseline, self.params['name'], float(self.params['timeout']),
                            self.marker, self.params.get('service'))

    def look_for_marker(self) -> bool:
        """The marker in the log lines since the start; reads only what is new since the last look."""
        text = self.probe.logs(since=self.since, timestamps=True, tty=self.view['tty'])
        found = False
        for line in text.splitlines():
            stamp, body = split_timestamp(line)
            self.since = stamp or self.since
            found = found or self.marker in body
        return found

    def timed_out(self, timeout: float) -> Dict[str, Any]:
        if not self.marker_seen:
            return self.finish('timeout', self.marker_task, self.startup_error('timeout'))
        status, text = self.health
        return self.finish('timeout', 'Wait for /health to answer 200 at %s' % self.params['url'],
                           '/health answered %s, still not up after %ss' % (
                               status if status is not None else truncate(text, 200), seconds_text(timeout)))

    def serve(self) -> Dict[str, Any]:
        """The server answers /health: the model list, then the smoke tests."""
        served = self.params['served_model_name']
        status, text = self.probe.get('/v1/models', 30)
        if status != 200:
            return self.finish('request_failed', 'List the served models', _http_error('GET', '/v1/models', status, text))
        models = model_ids(_json(text))
        if served not in models:
            return self.finish('not_listed', 'Check that /v1/models lists %s' % served,
                               '/v1/models lists %s, not the served name %s' % (json.dumps(models), served),
                               models=models)
        return self.smoke(models) if self.params.get('smoke_test') else self.finish('ready', '', '', models=models)

    def smoke(self, models: List[str]) -> Dict[str, Any]:
        p, served, timeout = self.params, self.params['served_model_name'], float(self.params['smoke_timeout'])
        answers = {}
        for key, task, path, body in (
                ('completion', "Send the guide's completions request", '/v1/completions',
                 completion_body(served, p['prompt'], p['max_tokens'])),
                ('chat', "Send the guide's chat completions request", '/v1/chat/completions',
                 chat_body(served, p['prompt'], p['chat_max_tokens']))):
            status, text = self.probe.post(path, body, timeout)
            if status != 200:
                return self.finish('smoke_failed', task, _http_error('POST', path, status, text), models=models)
            answers[key] = _json(text)
        texts = {'completion': answer_text(answers['completion'], False), 'chat': answer_text(answers['chat'], True)}
        if texts['completion'] is None or texts['chat'] is None:
            return self.finish('smoke_failed', 'Check that both answers carry choices',
                               'A smoke test answered without choices: completions %s, chat %s' % (
                                   json.dumps(answers['completion']), json.dumps(answers['chat'])), models=models)
        task, error = self.smoke_chat_features(texts, timeout) or ('', '')
        return self.finish('smoke_failed' if task else 'ready', task, error, models=models, **texts)

    def smoke_chat_features(self, texts: Dict[str, Any], timeout: float) -> Optional[Tuple[str, str]]:
        """With the parsers on: a reasoning answer in the reasoning field, a tool call as a tool call.
        Fills ``texts`` (reasoning, tool_call); returns (task, error) of the first failure, or None."""
        p, served = self.params, self.params['served_model_name']
        checks = []
        if p.get('reasoning'):
            checks.append(('reasoning', 'Send a chat request that asks for thinking (chat_template_kwargs '
                           'enable_thinking true) and find the reasoning in message.%s' % (p.get('reasoning_field') or REASONING_FIELD),
                           # The thinking comes first: the completions' few tokens show it (a cut-off thinking
                           # is all reasoning, vllm/reasoning/qwen3_reasoning_parser.py), without a second long answer.
                           reasoning_body(served, p['prompt'], p['max_tokens']),
                           lambda answer: reasoning_problem(answer, p.get('reasoning_field') or REASONING_FIELD)))
        if p.get('tool_call'):
            checks.append(('tool_call', 'Send a chat request with the tool get_weather (tool_choice auto) and get '
                           'a tool call back', tool_body(served, p['chat_max_tokens']), tool_call_problem))
        for key, task, body, judge in checks:
            status, text = self.probe.post('/v1/chat/completions', body, timeout)
            if status != 200:
                return task, _http_error('POST', '/v1/chat/completions', status, text)
            problem, texts[key] = judge(_json(text))
            if problem:
                return task, problem
        return None

    def finish(self, state: str, task: str, error: str, models: Optional[List[str]] = None,
               **texts: Optional[str]) -> Dict[str, Any]:
        """The result, with the smoke tests' ``texts`` (completion, chat, reasoning, tool_call); on a failure also
        the log tail, the cause, and whether Docker restarted it."""
        result = {'state': state, 'task': task, 'error': error, 'models': models or [], 'restarts': 0,
                  'exit_code': None, 'cause': '', 'log_tail': []}
        result.update((key, texts.get(key) or '') for key in ('completion', 'chat', 'reasoning', 'tool_call'))
        if state not in ('absent', 'not_running'):
            # A server that fails a check may have crashed meanwhile: look once more.
            view = self.view if state in ('ready', 'gone', 'crashed', 'exited') else container_view(self.probe.inspect())
            if view is not None and state != 'ready' and judge_container(view, self.baseline) == 'crashed':
                if state in ('waiting', 'timeout') and task == self.marker_task:
                    # Seen only now, at the end of a wait for the startup line: say it crashed, not "not up yet".
                    result['error'] = self.startup_error('crashed', view)
                state = result['state'] = 'crashed'
            if view is not None:
                result['exit_code'] = view['exit_code']
                result['restarts'] = max(view['restart_count'] - self.baseline, 1 if state == 'crashed' else 0)
            if state == 'waiting':
                # Progress: the newest line of the log says how far the start got.
                result['log_tail'] = self.probe.logs(tail=1, tty=bool(view and view['tty'])).splitlines()[-1:]
            elif state != 'ready' and (view is not None or state == 'gone'):
                self.read_log(result, self.first and self.first['tty'])
        result['seconds'] = round(self.elapsed(), 3)
        result['waited'] = round(self.waited(), 3)
        return result

    def read_log(self, result: Dict[str, Any], tty: Optional[bool]) -> None:
        """The last lines for the user and the first exception line since the start."""
        count = int(self.params.get('log_lines', LOG_LINES))
        try:
            last = self.probe.logs(tail=max(count, 1), tty=bool(tty)).splitlines()
            since_start = self.probe.logs(since=_start_since(self.first), tty=bool(tty)).splitlines()
        except (OSError, ValueError):
            return  # the container went away meanwhile: nothing to show
        result['log_tail'] = last[-count:] if count > 0 else []
        result['cause'] = find_cause(since_start) or find_cause(last)


def save_log(probe: Any, directory: str, name: str, secrets: Any = (), when: Optional[float] = None) -> str:
    """The container's whole log (both streams, with Docker's timestamps, secrets redacted) written
    to a new file in ``directory`` (made 0700 when missing), mode 0600; its path.

    Done before a failed container is removed, so that the bug report has more than the
    last lines; OSError when the log cannot be read or written."""
    tty = bool(((probe.inspect() or {}).get('Config') or {}).get('Tty'))
    text = redact_text(probe.logs(timestamps=True, tty=tty), secrets)
    os.makedirs(directory, 0o700, exist_ok=True)
    # <container>-<UTC time>.log: one file per failure, a later one never overwrites it.
    safe = ''.join(c if c.isalnum() or c in '._-' else '_' for c in name) or 'container'
    base = os.path.join(directory, '%s-%s.log' % (safe, time.strftime('%Y%m%dT%H%M%SZ', time.gmtime(
        time.time() if when is None else when))))
    for attempt in range(100):
        path = base if not attempt else '%s-%d.log' % (base[:-len('.log')], attempt)
        with contextlib.suppress(FileExistsError):
            with open(path, 'xb', opener=lambda name, flags: os.open(name, flags, 0o600)) as handle:
                handle.write(text.encode('utf-8'))
            return path
    raise OSError('%s and 99 more of that name exist' % base)


def _start_since(view: Optional[Dict[str, Any]]) -> Optional[str]:
    """The container's (last) start as ``since``; None before its first start."""
    with contextlib.suppress(ValueError):
        if view and view['started_at'] and not view['started_at'].startswith('0001-'):
            return docker_since(view['started_at'])
    return None


def _json(text: str) -> Any:
    with contextlib.suppress(ValueError):
        return json.loads(text)
    return None


def _http_error(method: str, path: str, status: Optional[int], text: str) -> str:
    return ('%s %s failed: %s' % (method, path, truncate(text, 300)) if status is None else
            '%s %s answered %s: %s' % (method, path, status, truncate(' '.join(text.split()), 300)))


class HttpClient:
    """Requests to the server from the node; never through a proxy (the server is local)."""

    def __init__(self, base_url: str, headers: Optional[Dict[str, str]] = None) -> None:
        self.base_url, self.headers = base_url.rstrip('/'), dict(headers or {})
        self._opener = build_opener(ProxyHandler({}))

    def request(self, path: str, body: Optional[Dict[str, Any]] = None, timeout: float = 10.0) -> Tuple[Optional[int], str]:
        data = None if body is None else json.dumps(body).encode('utf-8')
        headers = dict(self.headers, **({} if body is None else {'Content-Type': 'application/json'}))
        try:
            response = self._opener.open(Request(self.base_url + path, data=data, headers=headers), timeout=timeout)
            return response.getcode(), response.read().decode('utf-8', 'replace')
        except HTTPError as exc:
            return exc.code, exc.read().decode('utf-8', 'replace')
        except (OSError, httplib.HTTPException, ValueError) as exc:
            return None, str(getattr(exc, 'reason', None) or exc)


class NodeProbe:
    """The probe ``Watch`` needs, for one container and its server."""

    def __init__(self, docker: Any, http: HttpClient, name: str) -> None:
        # docker: the node's Engine (node/_node_docker.DockerApi) or a SystemdUnit (the source install method).
        self.docker, self.http, self.name = docker, http, name

    def inspect(self) -> Optional[Dict[str, Any]]:
        return self.docker.inspect(self.name)

    def logs(self, since: Optional[str] = None, tail: Optional[int] = None, timestamps: bool = False,
             tty: bool = False) -> str:
        return self.docker.logs(self.name, since=since, tail=tail, timestamps=timestamps, tty=tty)

    def get(self, path: str, timeout: float) -> Tuple[Optional[int], str]:
        return self.http.request(path, timeout=timeout)

    def post(self, path: str, body: Dict[str, Any], timeout: float) -> Tuple[Optional[int], str]:
        return self.http.request(path, body=body, timeout=timeout)


class SystemdUnit:
    """The same two calls as ``DockerApi`` for a systemd service (the source install method): its state as
    Docker's inspect answer would say it, and its journal as the container's log. ``run`` runs a command on the
    node and returns ``(rc, stdout, stderr)`` (AnsibleModule.run_command)."""

    SHOW = ('LoadState', 'ActiveState', 'SubState', 'NRestarts', 'ExecMainStatus', 'ExecMainStartTimestamp',
            'FragmentPath')

    def __init__(self, run: Callable[..., Tuple[int, str, str]]) -> None:
        self.run = run

    def _output(self, argv: List[str], what: str) -> str:
        rc, out, err = self.run(argv)
        if rc != 0:
            raise OSError('%s failed (rc %d): %s' % (what, rc, (err or out).strip()))
        return out

    def inspect(self, name: str) -> Optional[Dict[str, Any]]:
        out = self._output(['systemctl', 'show', '--timestamp=unix', name] + ['-p' + key for key in self.SHOW],
                           'systemctl show %s' % name)
        rc, unit, _err = self.run(['systemctl', 'cat', name])
        return unit_view(dict(line.split('=', 1) for line in out.splitlines() if '=' in line),
                         unit_command(unit) if rc == 0 else [])

    def logs(self, name: str, since: Optional[str] = None, tail: Optional[int] = None, timestamps: bool = False,
             tty: bool = False) -> str:
        argv = ['journalctl', '--no-pager', '--quiet', '-u', name, '-o', 'short-iso-precise' if timestamps else 'cat']
        if since is not None:
            argv += ['--since', '@%d' % int(float(since))]
        if tail is not None:
            argv += ['-n', str(int(tail))]
        return self._output(argv, 'journalctl -u %s' % name)


def unit_view(show: Dict[str, str], command: Optional[List[str]] = None) -> Optional[Dict[str, Any]]:
    """``systemctl show`` of a unit as the part of Docker's inspect answer ``container_view`` reads (None: no such
    unit). A unit systemd is about to restart (``auto-restart``) is ``restarting``; an active one ``running``."""
    if show.get('LoadState') == 'not-found' and not show.get('FragmentPath'):
        return None
    active, sub = show.get('ActiveState', ''), show.get('SubState', '')
    status = ('restarting' if sub == 'auto-restart' else
              'running' if active in ('active', 'activating', 'reloading') else 'exited')
    started = show.get('ExecMainStartTimestamp', '')
    started_at = time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(int(started[1:]))) if started.startswith('@') else ''
    return {'State': {'Status': status, 'Restarting': status == 'restarting', 'ExitCode': show.get('ExecMainStatus'),
                      'StartedAt': started_at},
            'RestartCount': int(show.get('NRestarts') or 0), 'Config': {'Tty': False, 'Cmd': list(command or [])}}


def found_serving(containers: Optional[Dict[str, Any]] = None,
                  units: Optional[Dict[str, Any]] = None) -> Dict[str, Dict[str, Any]]:
    """{container or unit name: {running, digest, previous}} from what the node read found: the containers it
    inspected (node_facts' ``containers``) or the units of the source install method (``source.units``)."""
    out = {}
    for name, seen in (containers or {}).items():
        if isinstance(seen, dict) and seen.get('exists'):
            kept = (containers or {}).get(name + '-previous') or {}
            out[name] = {'running': bool(seen.get('running')) and not seen.get('restarting'),
                         'digest': (seen.get('labels') or {}).get(SPEC_LABEL) or '', 'previous': bool(kept.get('exists'))}
    for name, unit in (units or {}).items():
        if isinstance(unit, dict) and unit.get('exists'):
            out[name] = {'running': bool(unit.get('active')) and not unit.get('restarting'),
                         'digest': unit.get('digest') or '', 'previous': bool(unit.get('previous'))}
    return out


def serving_probe(docker_host: str,
                  run: Callable[..., Tuple[int, str, str]]) -> Callable[[Dict[str, Any]], NodeProbe]:
    """``probe_for(entry)`` of ``check_serving``: the container over the Engine ``docker_host``, or with
    ``service`` the systemd unit (``run``: AnsibleModule.run_command), and its server at the entry's URL."""
    def probe_for(entry):
        source = SystemdUnit(run) if entry.get('service') else DockerApi(docker_host, 30.0)
        return NodeProbe(source, HttpClient(entry['url'], bearer(entry.get('api_key'))), entry['name'])
    return probe_for


def check_serving(entries: List[Dict[str, Any]], found: Dict[str, Dict[str, Any]],
                  probe_for: Callable[[Dict[str, Any]], Any]) -> Dict[str, Dict[str, Any]]:
    """Readiness, at the node read, of each instance already serving as the plan asks: ``GET /health`` and
    ``GET /v1/models`` only.  A read sends no inference request; the smoke tests are the phases' that start or
    verify a service.

    ``entries``: node_facts' ``serving`` (each with the ``digests`` the plan may ask for); ``found``: what
    ``found_serving`` made of the same read; ``probe_for(entry)``: its probe (``serving_probe``). Only a
    container (or unit) that runs, carries one of the digests and has no kept ``-previous`` is asked, at once
    (no wait: one that does not answer now is the deploy's to wait for). {name: {digest, state, task, error,
    models}} of those asked; the controller counts a ``ready`` only for an instance the plan
    leaves as it is (plan/_node.py).
    """
    out = {}
    for entry in entries:
        seen = found.get(entry['name']) or {}
        if not (seen.get('running') and seen.get('digest') in (entry.get('digests') or []) and not seen.get('previous')):
            continue
        params = dict(entry, just_started=False, timeout=0.01, poll_interval=POLL_INTERVAL, report_after=0,
                      log_lines=0, marker=MARKER, smoke_test=False)
        try:
            result = Watch(probe_for(entry), params).run()
        except (OSError, ValueError) as exc:
            result = {'state': 'error', 'task': 'Check %s' % entry['name'], 'error': str(exc)}
        out[entry['name']] = dict({key: result.get(key) for key in ('state', 'task', 'error', 'models')},
                                  digest=seen['digest'])
    return out
