# SPDX-License-Identifier: Apache-2.0
"""Unit tests for module_utils/serve/_ready.py: log parsing, classification, and the poll loop
driven by a fake clock and a fake node."""

import contextlib
import io
import json
import os

import pytest
from jinja2.filters import do_truncate
from jinja2 import Environment

from ansible_collections.ascend.vllm.plugins.module_utils.serve import _ready

STAND_IN = os.path.join(os.path.dirname(__file__), '..', '..', '..', 'sim', 'images', 'vllm-ascend', 'vllm')
MAMBA = 'ValueError: max_num_seqs (32) exceeds available Mamba cache blocks (16)'

# The crash output of the stand-in vllm (tests/sim/images/vllm-ascend/vllm, engine_traceback
# and api_server_failure), which copies vLLM's own.
CRASH_LOG = [
    '(APIServer pid=7) INFO 11-30 22:13:50 [api_server.py:1912] vLLM API server version 0.23.0',
    '(EngineCore_DP0 pid=180) INFO 11-30 22:13:51 [model_runner_v1.py:2683] Starting to load model Qwen/Qwen3.5-2B...',
    '(EngineCore_DP0 pid=180) ERROR 11-30 22:13:53 [core.py:708] EngineCore failed to start.',
    '(EngineCore_DP0 pid=180) ERROR 11-30 22:13:53 [core.py:708] Traceback (most recent call last):',
    '(EngineCore_DP0 pid=180) ERROR 11-30 22:13:53 [core.py:708]   File "/vllm-workspace/vllm/vllm/v1/engine/core.py",'
    ' line 699, in run_engine_core',
    '(EngineCore_DP0 pid=180) ERROR 11-30 22:13:53 [core.py:708]     engine_core = EngineCoreProc(*args, **kwargs)',
    '(EngineCore_DP0 pid=180) ERROR 11-30 22:13:53 [core.py:708] ' + MAMBA,
    '(EngineCore_DP0 pid=180) Process EngineCore_DP0:',
    'Traceback (most recent call last):',
    '  File "/vllm-workspace/vllm/vllm/v1/engine/core.py", line 699, in run_engine_core',
    MAMBA,
    '(APIServer pid=7) Traceback (most recent call last):',
    '(APIServer pid=7)     raise RuntimeError("Engine core initialization failed. "',
    "(APIServer pid=7) RuntimeError: Engine core initialization failed. See root cause above. "
    "Failed core proc(s): {'EngineCore_DP0': 1}",
]


# ------------------------------------------------------------------ cause and log text
@pytest.mark.parametrize('lines, cause', [
    (CRASH_LOG, MAMBA),
    # Only vLLM's pointer back at the engine: no cause.
    (CRASH_LOG[-1:], ''),
    # The API server's own exception, with the process prefix only.
    (['(APIServer pid=7) OSError: [Errno 98] Address already in use'], 'OSError: [Errno 98] Address already in use'),
    # A dotted exception name, no prefix at all.
    (['torch.OutOfMemoryError: NPU out of memory'], 'torch.OutOfMemoryError: NPU out of memory'),
    # The first of two wins.
    (['RuntimeError: first', 'ValueError: second'], 'RuntimeError: first'),
    # Mentioning an error is not an exception line.
    (['(APIServer pid=7) INFO 11-30 22:13:50 [x.py:1] no ValueError: here', 'Error in something'], ''),
    ([], ''),
])
def test_find_cause(lines, cause):
    assert _ready.find_cause(lines) == cause


def test_find_cause_truncates_like_the_role_did():
    line = 'RuntimeError: ' + ' '.join(['word'] * 200)
    cause = _ready.find_cause([line])
    assert cause == do_truncate(Environment(), line, 300)
    assert len(cause) <= 300 and cause.endswith('...')


@pytest.mark.parametrize('length', [5, 20, 300])
@pytest.mark.parametrize('text', ['short', 'x' * 400, 'a b ' * 120, 'word ' * 61])
def test_truncate_is_jinjas(text, length):
    assert _ready.truncate(text, length) == do_truncate(Environment(), text, length)


def _stand_in_crash_output(exc_line):
    """What the stand-in vllm prints for a crash while starting (its own functions)."""
    if not os.path.isfile(STAND_IN):
        pytest.skip('the stand-in vllm is not in this tree')
    import importlib.machinery
    import importlib.util
    loader = importlib.machinery.SourceFileLoader('vllm_stand_in', STAND_IN)
    spec = importlib.util.spec_from_loader('vllm_stand_in', loader)
    stand_in = importlib.util.module_from_spec(spec)
    loader.exec_module(stand_in)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        stand_in.fail(exc_line)
    return out.getvalue().splitlines()


@pytest.mark.parametrize('exc_line', [
    MAMBA,
    'RuntimeError: NPU out of memory. Tried to allocate 1.50 GiB (NPU 0; 43.24 GiB total capacity)',
    "ValueError: World size (2) is larger than the number of available NPUs (1) in this node. If this is\n"
    "intentional and you are using:\n- ray, set '--distributed-executor-backend ray'.",
])
def test_cause_of_the_stand_ins_crash(exc_line):
    lines = _stand_in_crash_output(exc_line)
    assert any(line.startswith('(EngineCore_DP0 pid=') for line in lines)
    assert _ready.find_cause(lines) == exc_line.splitlines()[0]


def test_docker_since():
    assert _ready.docker_since('2026-11-30T22:13:56.123456789Z') == '1796076836.123456789'
    assert _ready.docker_since('2026-11-30T22:13:56Z') == '1796076836.000000000'
    assert _ready.docker_since('2026-11-30T23:13:56.5+01:00') == '1796076836.500000000'
    with pytest.raises(ValueError):
        _ready.docker_since('yesterday')


def test_split_timestamp():
    assert _ready.split_timestamp('2026-11-30T22:13:56.1Z INFO: up') == ('1796076836.100000000', 'INFO: up')
    assert _ready.split_timestamp('no stamp here') == (None, 'no stamp here')


# ------------------------------------------------------------------ classification
def view(status='running', restarting=False, restarts=0, exit_code=0):
    return {'status': status, 'restarting': restarting, 'restart_count': restarts, 'exit_code': exit_code,
            'started_at': '2026-11-30T22:00:00Z', 'tty': False}


@pytest.mark.parametrize('seen, baseline, state', [
    (view(), 0, None),
    (view('created'), 0, None),
    (view(restarts=2), 2, None),
    (view('restarting', restarting=True, restarts=0, exit_code=1), 0, 'crashed'),
    (view(restarts=1), 0, 'crashed'),
    (view('exited', exit_code=137), 0, 'exited'),
    (view('dead', exit_code=1), 0, 'exited'),
    (None, 0, 'gone'),
])
def test_judge_container(seen, baseline, state):
    assert _ready.judge_container(seen, baseline) == state


@pytest.mark.parametrize('state, seen, text', [
    ('crashed', view('restarting', restarting=True, restarts=1, exit_code=1),
     'vLLM crashed while starting (exit code 1) and Docker restarted it 1 time(s)'),
    ('crashed', view(restarts=3), 'vLLM crashed while starting and Docker restarted it 3 time(s)'),
    ('exited', view('exited', exit_code=1), 'vLLM crashed while starting: the container stopped (state exited, exit code 1)'),
    ('gone', None, 'the container is gone'),
    ('timeout', view(), 'still not up after 5s'),
])
def test_marker_error(state, seen, text):
    assert _ready.marker_error(state, seen, 0, 'vllm-ascend', 5) == (
        "vLLM in vllm-ascend did not log 'Application startup complete.': " + text)


def test_smoke_bodies_are_the_guides():
    assert _ready.completion_body('qwen3.5', 'The future of AI is', 50) == {
        'model': 'qwen3.5', 'prompt': 'The future of AI is', 'max_tokens': 50, 'temperature': 0}
    assert _ready.chat_body('qwen3.5', 'The future of AI is', 1024) == {
        'model': 'qwen3.5', 'messages': [{'role': 'user', 'content': 'The future of AI is'}],
        'max_completion_tokens': 1024, 'temperature': 0.7, 'top_p': 0.95}


# ------------------------------------------------------------------ the poll loop
class Clock(object):
    """Fake monotonic time: only sleep() moves it (plus an optional cost per probe call)."""

    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now

    def sleep(self, seconds):
        assert seconds > 0
        self.now += seconds


def _stamp(at):
    """The Docker log time of a line ``at`` seconds after the container's start."""
    return '2026-11-30T22:%02d:%012.9fZ' % divmod(at, 60)


class Node(object):
    """A fake container and server on a timeline of the fake clock (seconds after the start)."""

    def __init__(self, clock, ready_at=None, crash_at=None, exit_at=None, gone_at=None, health=200,
                 models=('qwen3.5',), log=None, cost=0.0, exists=True, status='running'):
        self.clock, self.t0, self.cost = clock, clock.now, cost
        self.ready_at, self.crash_at, self.exit_at, self.gone_at = ready_at, crash_at, exit_at, gone_at
        self.health, self.models, self.exists, self.status = health, list(models), exists, status
        self.log = list(log or [(0.0, 'Starting to load model Qwen/Qwen3.5-2B...')])
        if ready_at is not None:
            self.log.append((ready_at, '(APIServer pid=7) INFO:     Application startup complete.'))
        self.calls, self.posts = [], []

    def t(self):
        self.clock.now += self.cost
        return self.clock.now - self.t0

    def inspect(self):
        t = self.t()
        self.calls.append(('inspect', t))
        if not self.exists or (self.gone_at is not None and t >= self.gone_at):
            return None
        restarts = 1 if self.crash_at is not None and t >= self.crash_at else 0
        status = 'exited' if self.exit_at is not None and t >= self.exit_at else self.status
        return {'State': {'Status': status, 'Restarting': False, 'ExitCode': 1 if status == 'exited' else 0,
                          'StartedAt': '2026-11-30T22:00:00.000000000Z'},
                'RestartCount': restarts, 'Config': {'Tty': False}}

    def logs(self, since=None, tail=None, timestamps=False, tty=False):
        t = self.t()
        self.calls.append(('logs', t, since, tail))
        lines = [(at, text) for at, text in self.log if at <= t]
        if since is not None:
            lines = [(at, text) for at, text in lines if 1796076000.0 + at >= float(since)]
        if tail is not None:
            lines = lines[-tail:]
        return ''.join('%s%s\n' % (_stamp(at) + ' ' if timestamps else '', text) for at, text in lines)

    def up(self, t):
        return self.ready_at is not None and t >= self.ready_at and (self.crash_at is None or t < self.crash_at)

    def get(self, path, timeout):
        t = self.t()
        self.calls.append(('get', t, path))
        if not self.up(t):
            return None, '[Errno 111] Connection refused'
        if path == '/health':
            return self.health, ''
        return 200, json.dumps({'object': 'list', 'data': [{'id': m, 'object': 'model'} for m in self.models]})

    def post(self, path, body, timeout):
        self.posts.append((path, body))
        if path == '/v1/completions':
            return 200, json.dumps({'choices': [{'index': 0, 'text': ' bright.'}]})
        return 200, json.dumps({'choices': [{'index': 0, 'message': {'role': 'assistant', 'content': 'Hi.'}}]})


PARAMS = {'name': 'vllm-ascend', 'url': 'http://127.0.0.1:8080', 'served_model_name': 'qwen3.5', 'timeout': 60,
          'poll_interval': 0.25, 'marker': 'Application startup complete.', 'just_started': True, 'log_lines': 3,
          'smoke_test': False, 'prompt': 'The future of AI is', 'max_tokens': 50, 'chat_max_tokens': 1024,
          'smoke_timeout': 600, 'check_mode': False}


def watch(node, clock, **params):
    return _ready.Watch(node, dict(PARAMS, **params), clock=clock, sleep=clock.sleep).run()


@pytest.mark.parametrize('ready_at', [0.0, 0.1, 3.0, 3.01, 17.6, 59.9])
@pytest.mark.parametrize('cost', [0.0, 0.004])
def test_returns_within_one_poll_of_readiness(ready_at, cost):
    clock = Clock()
    node = Node(clock, ready_at=ready_at, cost=cost)
    result = watch(node, clock)
    assert result['state'] == 'ready', result
    assert ready_at <= result['seconds'] <= ready_at + 0.25 + 10 * cost
    assert result['models'] == ['qwen3.5'] and result['log_tail'] == [] and result['cause'] == ''


def test_reads_only_new_log_lines():
    clock = Clock()
    node = Node(clock, ready_at=2.0, log=[(at / 2.0, 'loading step %d' % at) for at in range(4)])
    watch(node, clock)
    sinces = [float(call[2]) for call in node.calls if call[0] == 'logs']
    assert sinces[0] == 1796076000.0  # the container's start
    assert sinces == sorted(sinces) and sinces[-1] == 1796076001.5  # the newest line read so far


def test_no_fixed_sleep_when_ready_at_once():
    clock = Clock()
    assert watch(Node(clock, ready_at=0.0), clock)['seconds'] == 0.0


def test_crash_is_seen_at_once_with_the_cause_and_the_log_tail():
    clock = Clock()
    log = [(0.0, 'Starting to load model Qwen/Qwen3.5-2B...')] + [(2.0, line) for line in CRASH_LOG]
    result = watch(Node(clock, crash_at=2.0, log=log), clock)
    assert result['state'] == 'crashed' and result['restarts'] == 1
    assert 2.0 <= result['seconds'] <= 2.25
    assert result['cause'] == MAMBA
    assert result['log_tail'] == CRASH_LOG[-3:]
    assert result['task'] == "Wait for 'Application startup complete.' in the log of vllm-ascend"
    assert result['error'].endswith('vLLM crashed while starting and Docker restarted it 1 time(s)')


def test_exited():
    clock = Clock()
    result = watch(Node(clock, exit_at=1.0), clock)
    assert (result['state'], result['exit_code']) == ('exited', 1)
    assert 'the container stopped (state exited, exit code 1)' in result['error']


def test_gone():
    clock = Clock()
    result = watch(Node(clock, gone_at=1.0), clock)
    assert result['state'] == 'gone' and result['error'].endswith('the container is gone')


def test_absent():
    clock = Clock()
    result = watch(Node(clock, exists=False), clock)
    assert result['state'] == 'absent' and 'run playbooks/deploy.yml (or site.yml) first' in result['error']


def test_timeout_is_wall_clock():
    clock = Clock()
    node = Node(clock, cost=0.1)  # each look costs time; the wait still ends at the timeout
    result = watch(node, clock, timeout=5)
    assert result['state'] == 'timeout'
    assert 5.0 <= result['seconds'] <= 5.0 + 0.5
    assert result['error'] == "vLLM in vllm-ascend did not log 'Application startup complete.': still not up after 5s"
    assert result['log_tail'] == ['Starting to load model Qwen/Qwen3.5-2B...']


def test_health_never_200_after_the_marker():
    clock = Clock()
    result = watch(Node(clock, ready_at=1.0, health=503), clock, timeout=4)
    assert result['state'] == 'timeout' and result['task'] == 'Wait for /health to answer 200 at http://127.0.0.1:8080'
    assert result['error'] == '/health answered 503, still not up after 4s'


def test_served_name_not_listed():
    clock = Clock()
    result = watch(Node(clock, ready_at=0.0, models=['other']), clock)
    assert result['state'] == 'not_listed' and result['models'] == ['other']
    assert result['error'] == '/v1/models lists ["other"], not the served name qwen3.5'


def test_left_running_needs_no_marker():
    clock = Clock()
    node = Node(clock, ready_at=0.0, log=[(0.0, 'older lines only')])
    node.log = [(0.0, 'older lines only')]  # the startup line rotated out of the log
    result = watch(node, clock, just_started=False)
    assert result['state'] == 'ready' and not [c for c in node.calls if c[0] == 'logs']


def test_just_started_needs_the_marker():
    clock = Clock()
    node = Node(clock, ready_at=0.0)
    node.log = [(0.0, 'older lines only')]
    assert watch(node, clock, timeout=2)['state'] == 'timeout'


def test_check_mode_does_not_wait_for_a_stopped_container():
    clock = Clock()
    result = watch(Node(clock, status='exited'), clock, check_mode=True)
    assert result['state'] == 'not_running' and result['seconds'] == 0.0


def test_smoke_tests_send_the_guides_requests():
    clock = Clock()
    node = Node(clock, ready_at=1.0)
    result = watch(node, clock, smoke_test=True)
    assert result['state'] == 'ready' and (result['completion'], result['chat']) == (' bright.', 'Hi.')
    assert node.posts == [
        ('/v1/completions', {'model': 'qwen3.5', 'prompt': 'The future of AI is', 'max_tokens': 50,
                             'temperature': 0}),
        ('/v1/chat/completions', {'model': 'qwen3.5', 'messages': [{'role': 'user', 'content': 'The future of AI is'}],
                                  'max_completion_tokens': 1024, 'temperature': 0.7, 'top_p': 0.95})]


def test_smoke_test_without_choices():
    clock = Clock()
    node = Node(clock, ready_at=0.0)
    node.post = lambda path, body, timeout: (200, '{"object": "error"}')
    result = watch(node, clock, smoke_test=True)
    assert result['state'] == 'smoke_failed' and result['error'].startswith('A smoke test answered without choices')


def test_smoke_test_http_error_after_a_crash_is_a_crash():
    clock = Clock()
    node = Node(clock, ready_at=0.0)

    def post(path, body, timeout):
        node.crash_at = node.t()  # the engine died under the request; Docker restarts it
        return 500, 'Internal Server Error'
    node.post = post
    result = watch(node, clock, smoke_test=True)
    assert result['state'] == 'crashed' and result['restarts'] == 1
    assert result['task'] == "Send the guide's completions request"
    assert result['error'] == 'POST /v1/completions answered 500: Internal Server Error'


# ------------------------------------------------------------------ the chat parsers' smoke tests
# Answers shaped as vLLM 0.23's (ChatMessage: reasoning, tool_calls [{id, type, function {name, arguments}}]).
THINKING = {'choices': [{'index': 0, 'message': {'role': 'assistant', 'content': 'AI will help.', 'tool_calls': [],
                                                 'reasoning': 'The user asks about AI.'}}]}
TOOL_CALL = {'choices': [{'index': 0, 'finish_reason': 'tool_calls', 'message': {
    'role': 'assistant', 'content': None, 'reasoning': None, 'tool_calls': [
        {'id': 'chatcmpl-tool-0123456789abcdef', 'type': 'function',
         'function': {'name': 'get_weather', 'arguments': '{"city": "Paris"}'}}]}}]}


def chat_node(clock, reasoning_answer=None, tool_answer=None):
    reasoning_answer, tool_answer = reasoning_answer or THINKING, tool_answer or TOOL_CALL
    node = Node(clock, ready_at=0.0)
    plain = node.post

    def post(path, body, timeout):
        if 'tools' in body:
            node.posts.append((path, body))
            return 200, json.dumps(tool_answer)
        if (body.get('chat_template_kwargs') or {}).get('enable_thinking'):
            node.posts.append((path, body))
            return 200, json.dumps(reasoning_answer)
        return plain(path, body, timeout)
    node.post = post
    return node


def test_with_the_parsers_on_the_smoke_tests_ask_for_thinking_and_a_tool_call():
    clock = Clock()
    node = chat_node(clock)
    result = watch(node, clock, smoke_test=True, reasoning=True, tool_call=True)
    assert result['state'] == 'ready', result
    assert result['reasoning'] == 'The user asks about AI.'
    assert result['tool_call'] == 'get_weather({"city": "Paris"})'
    thinking, tools = node.posts[2][1], node.posts[3][1]
    assert thinking['chat_template_kwargs'] == {'enable_thinking': True}
    assert thinking['max_completion_tokens'] == 50 and tools['max_completion_tokens'] == 1024
    assert thinking['messages'] == [{'role': 'user', 'content': 'The future of AI is'}]
    assert tools['tool_choice'] == 'auto' and tools['tools'][0]['function']['name'] == 'get_weather'
    assert tools['chat_template_kwargs'] == {'enable_thinking': False}


def test_without_the_parsers_only_the_guides_two_requests_are_sent():
    clock = Clock()
    node = chat_node(clock)
    result = watch(node, clock, smoke_test=True)
    assert result['state'] == 'ready' and len(node.posts) == 2
    assert (result['reasoning'], result['tool_call']) == ('', '')


@pytest.mark.parametrize('answer, says', [
    # vLLM without --reasoning-parser: the thinking stays in the content.
    ({'choices': [{'message': {'role': 'assistant', 'content': 'Hmm.</think>\n\nAI will help.', 'reasoning': None}}]},
     'the server ran without --reasoning-parser'),
    # Another field name than the one asked for (vLLM 0.8's docs name it reasoning_content).
    ({'choices': [{'message': {'role': 'assistant', 'content': 'AI.', 'reasoning_content': 'thinking'}}]},
     'no reasoning in message.reasoning'),
    ({'choices': [{'message': {'role': 'assistant', 'content': 'AI.', 'reasoning': '  '}}]},
     'no reasoning in message.reasoning'),
])
def test_a_reasoning_answer_not_in_the_reasoning_field_fails(answer, says):
    clock = Clock()
    result = watch(chat_node(clock, reasoning_answer=answer), clock, smoke_test=True, reasoning=True)
    assert result['state'] == 'smoke_failed' and says in result['error'], result['error']
    assert 'enable_thinking true' in result['task']


def test_the_reasoning_field_is_a_parameter():
    clock = Clock()
    answer = {'choices': [{'message': {'role': 'assistant', 'content': 'AI.', 'reasoning_content': 'thinking'}}]}
    result = watch(chat_node(clock, reasoning_answer=answer), clock, smoke_test=True, reasoning=True,
                   reasoning_field='reasoning_content')
    assert result['state'] == 'ready' and result['reasoning'] == 'thinking'


def _tool_answer(message):
    return {'choices': [{'index': 0, 'message': dict({'role': 'assistant', 'content': None}, **message)}]}


@pytest.mark.parametrize('answer, says', [
    (_tool_answer({'content': '<tool_call>\n<function=get_weather>', 'tool_calls': []}), 'no tool call came back'),
    (_tool_answer({'content': 'It is sunny.'}), 'no tool call came back'),
    (_tool_answer({'tool_calls': [{'type': 'function', 'function': {'name': 'get_time', 'arguments': '{}'}}]}),
     'not a call of get_weather'),
    (_tool_answer({'tool_calls': [{'type': 'function', 'function': {'name': 'get_weather', 'arguments': 'Paris'}}]}),
     'not a call of get_weather with JSON object arguments'),
    (_tool_answer({'tool_calls': [{'type': 'function', 'function': {'name': 'get_weather', 'arguments': '"Paris"'}}]}),
     'JSON object arguments'),
])
def test_a_tool_call_not_returned_as_a_tool_call_fails(answer, says):
    clock = Clock()
    result = watch(chat_node(clock, tool_answer=answer), clock, smoke_test=True, tool_call=True)
    assert result['state'] == 'smoke_failed' and says in result['error'], result['error']
    assert result['task'].startswith('Send a chat request with the tool get_weather')


def test_vllms_400_for_auto_tool_choice_without_the_flag_is_reported():
    clock = Clock()
    node = chat_node(clock)
    error = {'error': {'message': '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
                       'type': 'BadRequestError', 'param': None, 'code': 400}}
    plain = node.post
    node.post = lambda path, body, timeout: (400, json.dumps(error)) if 'tools' in body else plain(path, body, timeout)
    result = watch(node, clock, smoke_test=True, tool_call=True)
    assert result['state'] == 'smoke_failed'
    assert result['error'].startswith('POST /v1/chat/completions answered 400')
    assert 'tool choice requires --enable-auto-tool-choice and --tool-call-parser' in result['error']


def test_bearer():
    assert _ready.bearer('sk-1') == {'Authorization': 'Bearer sk-1'}
    assert _ready.bearer(None) == {} and _ready.bearer('') == {}


# ------------------------------------------------- progress: report_after and one shared timeout
STARTED = 1796076000.0  # the fake container's StartedAt


def watch_at(node, clock, age, **params):
    """A watch whose node clock says the container started ``age`` seconds before the call."""
    t0 = clock.now
    return _ready.Watch(node, dict(PARAMS, **params), clock=clock, sleep=clock.sleep,
                        wall=lambda: STARTED + age + (clock.now - t0)).run()


def test_report_after_returns_waiting_with_the_newest_log_line():
    clock = Clock()
    node = Node(clock, log=[(0.0, 'Starting to load model'), (1.0, 'Loading weights took 1.00 seconds')])
    result = watch_at(node, clock, 0.0, report_after=2, timeout=60)
    assert result['state'] == 'waiting'
    assert 2.0 <= result['seconds'] <= 2.25
    assert result['log_tail'] == ['Loading weights took 1.00 seconds']
    # What a timeout would say, should the retries run out.
    assert result['error'].endswith('still not up after 60s')


def test_report_after_still_sees_readiness_within_one_poll():
    clock = Clock()
    result = watch_at(Node(clock, ready_at=1.1), clock, 0.0, report_after=2)
    assert result['state'] == 'ready' and 1.1 <= result['seconds'] <= 1.35


def test_the_calls_of_one_wait_share_the_timeout_from_the_containers_start():
    clock = Clock()
    result = watch_at(Node(clock), clock, 58.0, report_after=30, timeout=60)
    assert result['state'] == 'timeout'
    assert 2.0 <= result['seconds'] <= 2.25
    assert result['error'].endswith('still not up after 60s')


def test_a_container_left_running_gets_the_whole_timeout_per_call():
    clock = Clock()
    node = Node(clock, ready_at=500.0)
    result = watch_at(node, clock, 400.0, report_after=30, timeout=60, just_started=False)
    assert result['state'] == 'waiting' and 30.0 <= result['seconds'] <= 30.25


def test_without_report_after_the_start_time_does_not_count():
    clock = Clock()
    result = watch_at(Node(clock, ready_at=3.0), clock, 1000.0, timeout=60)
    assert result['state'] == 'ready'


def test_waited_counts_from_the_containers_start_and_is_returned():
    clock = Clock()
    result = watch_at(Node(clock), clock, 40.0, report_after=5, timeout=60)
    assert result['state'] == 'waiting'
    assert 45.0 <= result['waited'] <= 45.25


def test_a_container_left_running_shares_the_timeout_through_waited():
    clock = Clock()
    node = Node(clock, ready_at=500.0)
    result = watch_at(node, clock, 400.0, report_after=30, timeout=60, just_started=False, waited=50)
    # 10 s were left of the 60: a timeout after them, not another 30 s call.
    assert result['state'] == 'timeout' and 10.0 <= result['seconds'] <= 10.25
    assert 60.0 <= result['waited'] <= 60.25
    assert result['error'].endswith('still not up after 60s')


def test_without_report_after_waited_is_the_calls_own_time():
    clock = Clock()
    result = watch_at(Node(clock, ready_at=3.0), clock, 1000.0, timeout=60)
    assert result['state'] == 'ready' and 3.0 <= result['waited'] <= 3.25


# ------------------------------------------------------------------ at the node read (node_facts' serving)
SERVING = {'name': 'vllm-ascend', 'digests': ['d1', 'd2'], 'url': 'http://127.0.0.1:8080',
           'served_model_name': 'qwen3.5', 'smoke_test': True, 'prompt': 'The future of AI is', 'max_tokens': 50,
           'chat_max_tokens': 1024, 'smoke_timeout': 600}
LABEL = 'ascend.vllm.spec'


def _found(digest='d2', running=True, restarting=False, previous=False):
    containers = {'vllm-ascend': {'exists': True, 'running': running, 'restarting': restarting,
                                  'labels': {LABEL: digest}}}
    if previous:
        containers['vllm-ascend-previous'] = {'exists': True, 'running': False, 'labels': {}}
    return _ready.found_serving(containers)


def test_an_instance_serving_as_planned_is_read_and_sent_no_inference_request():
    """A read is a read: whatever the entry says, /health and /v1/models only (GET), no POST."""
    node = Node(Clock(), ready_at=0.0)
    out = _ready.check_serving([dict(SERVING, smoke_test=True)], _found(), lambda entry: node)
    assert out == {'vllm-ascend': {'state': 'ready', 'task': '', 'error': '', 'models': ['qwen3.5'], 'digest': 'd2'}}
    assert node.posts == []


@pytest.mark.parametrize('found', [
    _found(digest='other'),          # another spec: the deploy replaces it
    _found(digest=''),               # not ours, or made before the digest label
    _found(running=False),           # stopped: the deploy starts it
    _found(restarting=True),         # crash-looping
    _found(previous=True),           # a replacement left half-done: it rolls
    {},                              # no such container
])
def test_an_instance_the_deploy_will_touch_is_not_asked(found):
    node = Node(Clock(), ready_at=0.0)
    assert _ready.check_serving([SERVING], found, lambda entry: node) == {}
    assert node.calls == [] and node.posts == []


def test_an_instance_that_does_not_answer_now_is_left_to_the_deploy_without_a_wait():
    clock = Clock()
    node = Node(clock, ready_at=None)
    out = _ready.check_serving([SERVING], _found(), lambda entry: node)
    assert out['vllm-ascend']['state'] != 'ready' and node.posts == []


def test_a_probe_that_cannot_be_made_is_an_answer_not_a_failure():
    def broken(entry):
        raise ValueError('docker_host=tcp://x: only a unix:// socket is supported')
    out = _ready.check_serving([SERVING], _found(), broken)
    assert out['vllm-ascend']['state'] == 'error' and 'unix://' in out['vllm-ascend']['error']


def test_units_of_the_source_install_method_are_found_like_containers():
    units = {'vllm-ascend.service': {'exists': True, 'active': True, 'restarting': False, 'previous': False,
                                     'digest': 'd1'},
             'other.service': {'exists': False}}
    assert _ready.found_serving(units=units) == {
        'vllm-ascend.service': {'running': True, 'digest': 'd1', 'previous': False}}


# ------------------------------------------------------------------ smoke-test settings: one declaration
def test_the_roles_smoke_defaults_are_the_modules():
    """vllm_ready's option defaults are _ready.SMOKE; the vllm_serve role's defaults must say the same."""
    import yaml  # pylint: disable=import-outside-toplevel
    from ansible_collections.ascend.vllm.plugins.modules import vllm_ready  # pylint: disable=import-outside-toplevel
    path = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', 'roles', 'vllm_serve', 'defaults', 'main.yml')
    with open(path) as handle:
        defaults = yaml.safe_load(handle)
    # vllm_serve_smoke_prompt, _max_tokens, _chat_max_tokens, _timeout (600 == 600.0).
    assert dict((key, defaults['vllm_serve_smoke_' + key.replace('smoke_', '')]) for key in _ready.SMOKE) == _ready.SMOKE
    assert dict((key, vllm_ready.ARGUMENT_SPEC[key]['default']) for key in _ready.SMOKE) == _ready.SMOKE
    assert set(_ready.SMOKE) | {'smoke_test', 'reasoning', 'reasoning_field', 'tool_call'} == set(_ready.SMOKE_KEYS)
    assert set(_ready.SMOKE_KEYS) <= set(vllm_ready.ARGUMENT_SPEC)


@pytest.mark.parametrize('crash_at', [1.9, 2.0, 2.005, 2.009, 2.011, 2.015])
def test_a_crash_seen_only_when_a_report_is_due_is_a_crash_in_words_too(crash_at):
    """Under load the crash may show only at the last look of a wait that reports progress (report_after), after
    the loop's own look: the state is crashed, and so is the error -- not "still not up"."""
    clock = Clock()
    node = Node(clock, crash_at=crash_at, cost=0.004)
    result = watch_at(node, clock, 0.0, report_after=2, timeout=60)
    if result['state'] == 'waiting':
        return  # the crash came after the last look: the next call sees it
    assert result['state'] == 'crashed', result
    assert 'vLLM crashed while starting' in result['error'] and 'still not up' not in result['error'], result


@pytest.mark.parametrize('message, text', [
    ({'role': 'assistant', 'content': 'Hi.', 'reasoning': None}, 'Hi.'),
    # --reasoning-parser on vLLM 0.23, a non-streamed answer without </think>: all of it is reasoning.
    ({'role': 'assistant', 'content': None, 'reasoning': 'Hi.'}, 'Hi.'),
    ({'role': 'assistant', 'content': 'Hi.', 'reasoning': 'thought'}, 'Hi.'),
    ({'role': 'assistant', 'content': None, 'reasoning': None}, ''),
])
def test_a_chat_answers_text_is_its_content_else_its_reasoning(message, text):
    assert _ready.answer_text({'choices': [{'index': 0, 'message': message}]}, True) == text
    assert _ready.answer_text({'choices': [{'index': 0, 'text': 'x', 'message': message}]}, False) == 'x'
