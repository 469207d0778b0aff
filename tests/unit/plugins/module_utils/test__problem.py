# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""One shape and one renderer of problems, whichever phase found them."""

from __future__ import annotations

from hypothesis import given, strategies as st

from ansible_collections.ascend.vllm.plugins.module_utils._problem import line, problem, report

_text = st.text(st.characters(blacklist_categories=('Cs', 'Cc')), min_size=1, max_size=30)


def test_a_problem_carries_what_is_known():
    assert problem('ports', 'port 8080 is taken', 'free it') == {'check': 'ports', 'msg': 'port 8080 is taken',
                                                                 'fix': 'free it'}
    assert problem('ports', 'm', 'f', variable='vllm_serve_port', origin='hosts.yml:3') == {
        'check': 'ports', 'msg': 'm', 'fix': 'f', 'variable': 'vllm_serve_port', 'origin': 'hosts.yml:3'}


@given(st.sampled_from(['preflight', 'image', 'evaluation']), _text, st.lists(st.tuples(_text, _text, _text), max_size=4),
       st.sampled_from(['', 'nothing was pulled']))
def test_the_report_counts_names_the_host_and_lists_every_problem_with_its_fix(kind, host, items, then):
    problems = [problem(check, msg, fix) for check, msg, fix in items]
    text = report(kind, host, problems, then)
    lines = text.split('\n')
    assert text.endswith('\n') and lines[-1] == ''
    assert lines[0] == '%d %s problem(s) on %s%s:' % (len(problems), kind, host, '; ' + then if then else '')
    assert lines[1:-1] == [line(item) for item in problems]
    for item, shown in zip(problems, lines[1:-1]):
        assert shown.startswith('- [%s] ' % item['check']) and shown.endswith('. Fix: %s' % item['fix'])


def test_the_msgs_own_stop_is_not_doubled_and_the_origin_is_named():
    assert line(problem('image', 'a=1 is bad.', 'set a')) == '- [image] a=1 is bad. Fix: set a'
    assert line(problem('image', 'a=1 is bad. ', 'set a', origin='group_vars/x.yml:4')) == \
        '- [image] a=1 is bad. Fix: set a (set in group_vars/x.yml:4)'
