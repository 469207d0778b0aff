# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Progress lines of the long waits and the poll loops of their action plugins (plugin_utils/report/_progress.py)."""

import threading

import pytest

from ansible_collections.ascend.vllm.plugins.module_utils.node._pull_watch import fold_pull
from ansible_collections.ascend.vllm.plugins.plugin_utils.report import _progress as p

# The stream of Docker Engine 20.10 pulling an image of three layers, one already on the node
# (lines captured from POST /images/create on this machine, progress bars left out).
STREAM = [
    {'status': 'Pulling from progress-exp/big', 'id': '1'},
    {'status': 'Already exists', 'progressDetail': {}, 'id': '196a46c92645'},
    {'status': 'Pulling fs layer', 'progressDetail': {}, 'id': 'fdd49f53429b'},
    {'status': 'Pulling fs layer', 'progressDetail': {}, 'id': '1365bd735e9f'},
    {'status': 'Downloading', 'progressDetail': {'current': 9420380, 'total': 40012404}, 'id': '1365bd735e9f'},
    {'status': 'Downloading', 'progressDetail': {'current': 9191004, 'total': 60018521}, 'id': 'fdd49f53429b'},
]
FINISH = [
    {'status': 'Verifying Checksum', 'progressDetail': {}, 'id': '1365bd735e9f'},
    {'status': 'Download complete', 'progressDetail': {}, 'id': '1365bd735e9f'},
    {'status': 'Extracting', 'progressDetail': {'current': 32768, 'total': 40012404}, 'id': '1365bd735e9f'},
    {'status': 'Pull complete', 'progressDetail': {}, 'id': '1365bd735e9f'},
    {'status': 'Digest: sha256:ae4e0761a92bfc51a2b64f28055d42a7ea368ccb3b593f57a6701ca9f025d78f'},
]


@pytest.mark.parametrize('seconds, text', [
    (0, '0s'), (-3, '0s'), (45.9, '45s'), (60, '1m00s'), (185, '3m05s'), (3599, '59m59s'), (3720, '1h02m'),
])
def test_duration(seconds, text):
    assert p.duration(seconds) == text


@pytest.mark.parametrize('count, text', [
    (0, '0 B'), (999, '999 B'), (9420380, '9.42 MB'), (100031000, '100 MB'), (4.8e9, '4.8 GB'), (12.5e12, '1.25e+04 GB'),
])
def test_size(count, text):
    assert p.size(count) == text


def test_fold_keeps_the_newest_status_per_layer_and_ignores_the_tag_line():
    state = fold_pull(STREAM)
    assert sorted(state['layers']) == ['1365bd735e9f', '196a46c92645', 'fdd49f53429b']
    assert state['layers']['1365bd735e9f'] == {'status': 'Downloading', 'current': 9420380, 'total': 40012404}
    state = fold_pull(FINISH, state['layers'])
    assert state['layers']['1365bd735e9f'] == {'status': 'Pull complete', 'current': 0, 'total': 40012404}
    assert state['status'].startswith('Digest: sha256:ae4e')


def test_summary_and_line_while_downloading():
    summary = p.pull_summary(fold_pull(STREAM))
    assert summary == {'layers': 3, 'done': 1, 'present': 1, 'downloading': 2, 'waiting': 0, 'downloaded_layers': 0,
                       'extracting': 0, 'downloaded': 18611384, 'total': 100030925}
    line = p.pull_line('n1', 'reg:5000/ascend/vllm-ascend:v0.23.0-310p', fold_pull(STREAM), 95, 3600)
    assert line == ('[n1] pulling reg:5000/ascend/vllm-ascend:v0.23.0-310p: 1/3 layers done (1 already on the node, '
                    '2 downloading), 18.6 MB of 100 MB downloaded (18%); 1m35s elapsed, timeout in 58m25s')


def test_line_without_every_size_gives_the_bytes_only():
    state = fold_pull(STREAM[:5])  # fdd49f53429b has not started: its size is not known yet
    assert p.pull_summary(state)['total'] is None
    assert ('1/3 layers done (1 already on the node, 1 downloading, 1 waiting), 9.42 MB downloaded;'
            in p.pull_line('n1', 'x', state, 5, 60))


def test_line_counts_extracting_layers():
    state = fold_pull(STREAM + FINISH[:3])
    assert ' (1 already on the node, 1 downloading, 1 extracting), ' in p.pull_line('n1', 'x', state, 5, 60)
    state = fold_pull(STREAM + FINISH[:2])
    assert ' (1 already on the node, 1 downloading, 1 downloaded), ' in p.pull_line('n1', 'x', state, 5, 60)


def test_merge_keeps_a_layer_this_pull_downloaded_as_done():
    before = fold_pull(STREAM + FINISH[:3])
    # A later stream: the layer is registered now, and the other one's size is not repeated.
    now = fold_pull([{'status': 'Already exists', 'id': '1365bd735e9f'},
                     {'status': 'Download complete', 'id': 'fdd49f53429b'}])
    merged = p.merge_progress(before, now)
    assert merged['layers']['1365bd735e9f'] == {'status': 'Pull complete', 'current': 0, 'total': 40012404}
    assert merged['layers']['fdd49f53429b']['total'] == 60018521
    assert merged['layers']['196a46c92645']['status'] == 'Already exists'
    assert p.pull_summary(merged)['downloaded'] == 100030925
    assert p.merge_progress(before, None) is before


@pytest.mark.parametrize('progress, words', [
    (None, 'no layer progress reported yet'),
    ({'layers': {}, 'status': '', 'error': 'HTTP 401: unauthorized: authentication required'},
     'the Docker Engine reports no layer progress (HTTP 401: unauthorized: authentication required)'),
])
def test_line_without_layers_still_gives_the_time(progress, words):
    assert p.pull_line('n1', 'x', progress, 30, 60) == '[n1] pulling x: %s; 30s elapsed, timeout in 30s' % words


def test_ready_line():
    line = p.ready_line('n1', 'vllm-ascend', 65.4, 1800, ['a', '(APIServer pid=7) INFO  Loading   weights took 3.2 s\n'])
    assert line == ('[n1] vllm-ascend is starting: 1m05s since its start, timeout in 28m54s; '
                    'newest log line: (APIServer pid=7) INFO Loading weights took 3.2 s')
    assert p.ready_line('n1', 'c', 5, 60, []).endswith('timeout in 55s; no log line yet')
    assert p.ready_line('n1', 'c', 5, 60, ['secret'], hide_log=True).endswith('(log line hidden by no_log)')
    assert len(p.ready_line('n1', 'c', 5, 60, ['word ' * 200])) < 300


# ------------------------------------------------------------------ the poll loops
class Clock(object):
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_wait_ready_shows_each_waiting_result_and_passes_waited_on():
    answers = [{'state': 'waiting', 'waited': 30.0, 'log_tail': ['loading']},
               {'state': 'waiting', 'waited': 60.5, 'log_tail': ['still loading']},
               {'state': 'ready', 'waited': 70.0}]
    calls, shown = [], []

    def call(waited):
        calls.append(waited)
        return answers[len(calls) - 1]
    result = p.wait_ready(call, shown.append, 1800, 30)
    assert result == {'state': 'ready', 'waited': 70.0}
    assert calls == [0.0, 30.0, 60.5]
    assert [r['log_tail'] for r in shown] == [['loading'], ['still loading']]


def test_wait_ready_returns_a_failure_at_once():
    shown = []
    result = p.wait_ready(lambda waited: {'state': 'crashed', 'failed': True}, shown.append, 60, 5)
    assert result['state'] == 'crashed' and not shown


def test_wait_ready_stops_a_runaway_wait_as_a_timeout():
    calls = []

    def call(waited):
        calls.append(waited)
        return {'state': 'waiting', 'waited': 0, 'task': 'Wait for x', 'error': 'still not up after 60s'}
    result = p.wait_ready(call, lambda r: None, 60, 30)
    assert len(calls) == p.max_calls(60, 30) == 4
    assert result['state'] == 'timeout' and result['failed'] and result['msg'] == 'Wait for x: still not up after 60s'


def test_wait_pull_until_the_job_ends():
    clock = Clock()
    runs = [{'finished': False, 'progress': fold_pull(STREAM)},
            {'finished': False, 'progress': fold_pull([{'status': 'Download complete', 'id': '1365bd735e9f'}])},
            {'finished': True, 'answer': {'changed': True}}]
    asked, shown = [], []

    def call(seconds):
        asked.append(seconds)
        clock.now += seconds
        return runs[len(asked) - 1]
    result = p.wait_pull(call, lambda r, e: shown.append((r, e)), clock, 3600, 15)
    assert result == {'finished': True, 'answer': {'changed': True}}
    assert asked == [15, 15, 15] and [e for r, e in shown] == [15, 30]
    # The second stream joined after 1365bd735e9f's download: its size comes from the first.
    assert shown[1][0]['progress']['layers']['1365bd735e9f'] == {'status': 'Download complete', 'current': 0,
                                                                 'total': 40012404}


def test_wait_pull_gives_up_at_the_timeout_and_asks_only_for_the_time_left():
    clock = Clock()
    asked, shown = [], []

    def call(seconds):
        asked.append(seconds)
        clock.now += seconds
        return {'finished': False, 'progress': None}
    result = p.wait_pull(call, lambda r, e: shown.append(e), clock, 40, 15)
    assert asked == [15, 15, 10] and shown == [15, 30]
    assert result['finished'] is False


def test_wait_pull_returns_a_failed_run():
    result = p.wait_pull(lambda s: {'failed': True, 'msg': 'boom'}, None, Clock(), 60, 15)
    assert result == {'failed': True, 'msg': 'boom'}


@pytest.mark.parametrize('progress, words', [
    ({'size': 8000000000, 'read': 2000000000}, '2 GB of 8 GB sent (25%)'),
    ({'size': 8000000000, 'read': 8000000000}, 'all 8 GB read; the node writes the last of it'),
    ({'size': None, 'read': 5000}, '5 kB sent'),
    ({'size': 8000000000, 'read': None}, 'no process has the archive open at an offset'),
    (None, 'no process has the archive open at an offset'),
])
def test_copy_line(progress, words):
    line = p.copy_line('n1', '/srv/a.tar', '/var/tmp/a.tar', progress, 75)
    assert line.startswith('[n1] copying /srv/a.tar to the node as /var/tmp/a.tar: ' + words)
    assert line.endswith('; 1m15s elapsed')


def test_while_running_shows_lines_only_while_the_work_runs_and_returns_its_value():
    shown, looks = [], iter(range(1000))
    gate = threading.Event()

    def work():
        # Runs until two lines have been shown.
        while len(shown) < 2:
            gate.wait(0.01)
        return 'done'

    assert p.while_running(work, lambda: {'read': next(looks)}, lambda got, elapsed: shown.append((got, elapsed)),
                           0.02) == 'done'
    count = len(shown)
    gate.wait(0.1)
    assert count == len(shown) and count >= 2
    assert [got['read'] for got, _elapsed in shown] == list(range(count))
    assert all(elapsed > 0 for _got, elapsed in shown)


def test_while_running_passes_the_work_s_failure_on_and_a_failed_look_costs_only_its_line():
    shown = []

    def look():
        raise OSError('gone')

    def work():
        while not shown:
            threading.Event().wait(0.01)
        raise RuntimeError('transfer failed')

    with pytest.raises(RuntimeError, match='transfer failed'):
        p.while_running(work, look, lambda got, elapsed: shown.append(got), 0.02)
    assert shown[0] is None


@pytest.mark.parametrize('args, numbers, msg', [
    ({}, {'timeout': 3600.0, 'report_after': 15.0}, None),
    ({'timeout': '90', 'report_after': 2}, {'timeout': 90.0, 'report_after': 2.0}, None),
    ({'timeout': 0}, None, 'timeout=0: must be a number of seconds more than 0'),
    ({'report_after': 'soon'}, None, 'report_after=soon: must be a number of seconds more than 0'),
])
def test_the_waiting_actions_read_their_seconds_once(args, numbers, msg):
    found, refused = p.wait_options(args)
    assert found == numbers and (refused or {}).get('msg') == msg
