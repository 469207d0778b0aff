# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Progress of the long waits (an image pull, a model load), as lines an operator reads.

Pure functions and two poll loops over an injected *call* (one module run on the
node) and *show* (one printed line), so unit tests drive them without a node.
The action plugins ``image_pull_wait``, ``job_wait``, ``image_ensure`` and ``vllm_ready`` run the loops on the
controller and print through Ansible's display; the modules report one step each (the pull's layers as
module_utils/node/_pull_watch.fold_pull keeps them).
"""

from __future__ import annotations

import math
import threading
import time
from typing import Any, Callable, Dict, List, Optional

from ansible_collections.ascend.vllm.plugins.module_utils._text import truncate
from ansible_collections.ascend.vllm.plugins.module_utils.node._pull_watch import LAYER_DONE, LAYER_DOWNLOADED

# The newest log line is shown up to this many characters.
LINE_LIMIT = 200


def duration(seconds: float) -> str:
    """``45s``, ``3m05s``, ``1h02m`` (whole seconds, rounded down)."""
    seconds = max(0, int(seconds))
    if seconds < 60:
        return '%ds' % seconds
    if seconds < 3600:
        return '%dm%02ds' % (seconds // 60, seconds % 60)
    return '%dh%02dm' % (seconds // 3600, seconds % 3600 // 60)


def size(count: float) -> str:
    """Bytes in the Engine's own decimal units (``9.42 MB``, as ``docker pull`` prints ``9.42MB``)."""
    value = float(count)
    for unit in ('B', 'kB', 'MB'):
        if value < 1000:
            return ('%d %s' % (value, unit)) if unit == 'B' else ('%.3g %s' % (value, unit))
        value /= 1000.0
    return '%.3g GB' % value


def pull_summary(state: Dict[str, Any]) -> Dict[str, Any]:
    """Counts and bytes of a folded pull: layers done/all, bytes downloaded and the total when every
    layer still to download has told its size (the Engine says it once the layer's download starts)."""
    layers = list(state.get('layers', {}).values())
    fetched = [lay for lay in layers if lay['status'] != 'Already exists']
    done = sum(1 for lay in layers if lay['status'] in LAYER_DONE)
    current = sum(lay['total'] if lay['status'] in LAYER_DOWNLOADED else lay['current']
                  for lay in fetched if lay['status'] in LAYER_DOWNLOADED or lay['status'] == 'Downloading')
    known = all(lay['total'] for lay in fetched)
    total = sum(lay['total'] for lay in fetched) if known and fetched else None

    def count(*statuses):
        return sum(1 for lay in fetched if lay['status'] in statuses)

    return {'layers': len(layers), 'done': done, 'present': len(layers) - len(fetched),
            'downloading': count('Downloading', 'Retrying'), 'waiting': count('Pulling fs layer', 'Waiting'),
            'downloaded_layers': count('Verifying Checksum', 'Download complete'),
            'extracting': count('Extracting'), 'downloaded': current, 'total': total}


def _times(elapsed: float, timeout: float, spent: str = 'elapsed') -> str:
    return '%s %s, timeout in %s' % (duration(elapsed), spent, duration(max(0.0, timeout - elapsed)))


def pull_line(host: str, ref: str, progress: Optional[Dict[str, Any]], elapsed: float, timeout: float) -> str:
    """One progress line of a pull: what the Engine reports, the time spent and the time left."""
    progress = progress or {}
    summary = pull_summary(progress)
    if summary['layers']:
        what = '%d/%d layers done' % (summary['done'], summary['layers'])
        parts = ['%d %s' % (summary[key], words) for key, words in (
            ('present', 'already on the node'), ('downloading', 'downloading'), ('waiting', 'waiting'),
            ('downloaded_layers', 'downloaded'), ('extracting', 'extracting')) if summary[key]]
        if parts:
            what += ' (%s)' % ', '.join(parts)
        # The Engine tells a layer's size when its download starts (at most three at a time by default).
        if summary['total']:
            share = 100 * summary['downloaded'] // summary['total']
            what += ', %s of %s downloaded (%d%%)' % (size(summary['downloaded']), size(summary['total']), share)
        elif summary['downloaded']:
            what += ', %s downloaded' % size(summary['downloaded'])
    elif progress.get('error'):
        what = 'the Docker Engine reports no layer progress (%s)' % truncate(progress['error'], 120)
    else:
        what = 'no layer progress reported yet'
    return '[%s] pulling %s: %s; %s' % (host, ref, what, _times(elapsed, timeout))


def load_line(host: str, archive: str, progress: Optional[Dict[str, Any]], elapsed: float, timeout: float) -> str:
    """One progress line of a `docker load`: how much of the archive the Engine has been sent, the time spent
    and the time left (``progress``: node/_pull_watch.archive_read)."""
    what = _archive_read(progress, 'the archive is not being read (not opened yet, or sent whole while the Docker Engine '
                         'registers its layers)', 'all %s sent; the Docker Engine registers its layers', ' to the Docker Engine')
    return '[%s] loading %s: %s; %s' % (host, archive, what, _times(elapsed, timeout))


def copy_line(host: str, source: str, dest: str, progress: Optional[Dict[str, Any]], elapsed: float) -> str:
    """One progress line of the archive's copy from the controller to the node: how much of it the connection has
    read (``progress``: node/_pull_watch.archive_read of the controller's own processes) and the time spent."""
    what = _archive_read(progress, 'no process has the archive open at an offset (the connection has not opened it yet, '
                         'or copies it without reading it in order)', 'all %s read; the node writes the last of it', '')
    return '[%s] copying %s to the node as %s: %s; %s elapsed' % (host, source, dest, what, duration(elapsed))


def _archive_read(progress: Optional[Dict[str, Any]], unread: str, whole: str, where: str) -> str:
    """How much of an archive was sent (``progress``: node/_pull_watch.archive_read): ``unread`` while nothing has
    it open, ``whole`` (with the size) once all of it was read."""
    total, read = (progress or {}).get('size'), (progress or {}).get('read')
    if read is None:
        return unread
    if total and read >= total:
        return whole % size(total)
    if total:
        return '%s of %s sent%s (%d%%)' % (size(read), size(total), where, 100 * read // total)
    return '%s sent%s' % (size(read), where)


def while_running(work: Callable[[], Any], look: Callable[[], Optional[Dict[str, Any]]],
                  show: Callable[[Optional[Dict[str, Any]], float], None], every: float,
                  clock: Callable[[], float] = time.monotonic) -> Any:
    """Run ``work()`` (a step that cannot report by itself, such as a file transfer over the connection) in this
    thread while a second thread calls ``show(look(), elapsed)`` every ``every`` seconds; ``work``'s value, or its
    exception. No line is begun once ``work`` has returned; a look that fails costs its line, never the work."""
    stop = threading.Event()
    start = clock()

    def report() -> None:
        while not stop.wait(max(float(every), 0.001)):
            try:
                progress = look()
            except (OSError, ValueError):
                progress = None
            if not stop.is_set():
                show(progress, clock() - start)

    thread = threading.Thread(target=report, name='progress', daemon=True)
    thread.start()
    try:
        return work()
    finally:
        stop.set()
        thread.join()


def job_line(host: str, what: str, progress: Optional[Dict[str, Any]], elapsed: float, timeout: float) -> str:
    """One progress line of a long job on the node (a build, an evaluation): the time spent and left, and the newest
    line of its log (``progress``: node/_pull_watch.newest_line)."""
    line = '[%s] %s: %s' % (host, what, _times(elapsed, timeout))
    newest = ' '.join(str((progress or {}).get('newest') or '').split())
    return line + ('; newest line: %s' % truncate(newest, LINE_LIMIT) if newest else '; no output yet')


def ready_line(host: str, name: str, waited: float, timeout: float, newest: Optional[List[str]],
               hide_log: bool = False) -> str:
    """One progress line of a model load: the time since the start, the time left, the newest log line."""
    line = '[%s] %s is starting: %s' % (host, name, _times(waited, timeout, 'since its start'))
    if hide_log:
        return line + ' (log line hidden by no_log)'
    text = ' '.join((newest or [''])[-1].split())
    return line + ('; newest log line: %s' % truncate(text, LINE_LIMIT) if text else '; no log line yet')


def max_calls(timeout: float, every: float) -> int:
    """A bound on the calls of one wait: the node ends it at the timeout; this only stops a runaway loop."""
    return int(math.ceil(float(timeout) / max(float(every), 0.001))) + 2


def wait_ready(call: Callable[[float], Dict[str, Any]], show: Callable[[Dict[str, Any]], None], timeout: float,
               every: float) -> Dict[str, Any]:
    """Run ``call(waited)`` (one vllm_ready module run, returning after ``every`` seconds at most)
    until its state is not ``waiting``, calling ``show(result)`` after each ``waiting``.

    ``waited`` is what the previous call said the whole wait took so far, so every call shares
    one timeout.  Returns the last result; a wait still ``waiting`` after ``max_calls`` is a timeout.
    """
    waited: float = 0.0
    result: Dict[str, Any] = {}
    for _call in range(max_calls(timeout, every)):
        result = call(waited)
        if result.get('state') != 'waiting':
            return result
        waited = float(result.get('waited') or waited)
        show(result)
    result = dict(result, state='timeout', failed=True)
    result['msg'] = '%s: %s' % (result.get('task', ''), result.get('error', ''))
    return result


def wait_options(args, defaults=(('timeout', 3600), ('report_after', 15))):
    """(``{option: seconds}``, None) of a waiting action's ``timeout`` and ``report_after``, or (None, the failure
    result) when one is not a number of seconds more than 0: the one reading of both for every waiting action."""
    numbers = {}
    for option, default in defaults:
        try:
            numbers[option] = float(args.get(option, default))
        except (TypeError, ValueError):
            numbers[option] = 0.0
        if numbers[option] <= 0:
            return None, {'failed': True, 'changed': False,
                          'msg': '%s=%s: must be a number of seconds more than 0' % (option, args.get(option))}
    return numbers, None


def wait_pull(call: Callable[[float], Dict[str, Any]], show: Callable[[Dict[str, Any], float], None],
              clock: Callable[[], float], timeout: float, every: float) -> Dict[str, Any]:
    """Run ``call(seconds)`` (one image_pull_wait module run, returning within ``seconds``) until it
    says ``finished``, calling ``show(result, elapsed)`` after each unfinished one.

    Returns ``{'finished': True, 'answer': ...}`` with the background job's result, or
    ``{'finished': False, ...}`` once ``timeout`` seconds (the controller's clock) have passed.
    """
    start = clock()
    result: Dict[str, Any] = {'finished': False}
    progress: Optional[Dict[str, Any]] = None
    while True:
        left = timeout - (clock() - start)
        if left <= 0:
            return dict(result, finished=False)
        result = call(min(float(every), left))
        if result.get('finished') or result.get('failed'):
            return result
        progress = merge_progress(progress, result.get('progress'))
        if clock() - start < timeout:
            show(dict(result, progress=progress), clock() - start)


def merge_progress(before: Optional[Dict[str, Any]], now: Optional[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
    """The newest pull state, with the layer sizes learned earlier: a stream that joins a pull after a
    layer's download says only ``Download complete`` for it, without its size."""
    if not now:
        return before
    layers = dict((before or {}).get('layers') or {})
    for layer, info in (now.get('layers') or {}).items():
        known = layers.get(layer, {})
        info = dict(info, total=info.get('total') or known.get('total') or 0)
        if info['status'] == 'Already exists' and known.get('status', 'Already exists') != 'Already exists':
            # Downloaded by this pull and registered since: a new stream calls it present.
            info['status'] = 'Pull complete'
        layers[layer] = info
    return dict(now, layers=layers)
