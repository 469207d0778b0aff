# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""plan_lines: the plan of a host as ``playbooks/plan.yml`` prints it, from the plan the action builds.

What an operator reads before a deploy: the command of each instance exactly as it will run (a
shell gives back the plan's argv), the image, the memory fit, the balancer, every problem naming
the variable, its value and the fix.
"""

import os
import shlex

import pytest
from hypothesis import HealthCheck, given, settings

from ansible.parsing.dataloader import DataLoader

from test__host import EXAMPLES, PLATFORM, VALID, read_request_for  # noqa: E402  (installs Ansible's collection finder first)

# pylint: disable=wrong-import-position
from ansible_collections.ascend.vllm.plugins.action.host_plan import _roles  # noqa: E402
from ansible_collections.ascend.vllm.plugins.plugin_utils.plan._host import host_plan  # noqa: E402
from ansible_collections.ascend.vllm.plugins.plugin_utils.report._plan import plan_lines  # noqa: E402


def planned_lines(user, groups=('atlas_300i_duo',)):
    request = read_request_for(user, groups)
    planned = host_plan(request, _roles(DataLoader())[0], os.path.isfile)
    return planned, plan_lines(planned, request.get)


def _commands(lines):
    return [shlex.split(line) for line in lines if line.strip().startswith('vllm serve ')]


@settings(max_examples=EXAMPLES // 4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PLATFORM, VALID)
def test_each_instance_shows_the_command_it_runs_and_every_problem(platform, user):
    planned, lines = planned_lines(user, groups=(platform,))
    ok = [name for name, config in sorted(planned['configs'].items()) if config['ok']]
    # Copied into a shell, each printed line is the instance's argv, word for word.
    assert _commands(lines) == [planned['configs'][name]['argv'] for name in ok]
    assert sum(line.startswith('instance ') for line in lines) == len(planned['instances'])
    assert any(line.startswith('image %s:' % planned['image']['candidates'][0]) for line in lines), lines
    fits = [config['memory']['fits'] for config in planned['configs'].values() if config['memory']]
    assert sum('memory: fits:' in line for line in lines) == fits.count(True)
    assert sum('memory: does NOT fit:' in line for line in lines) == fits.count(False)
    if planned['problems']:
        assert lines[-len(planned['problems']) - 1].startswith('%d problem(s)' % len(planned['problems']))
        for problem, line in zip(planned['problems'], lines[-len(planned['problems']):]):
            assert problem['fix'] in line, (problem, line)
    else:
        assert lines[-1] == 'problems: none'


def test_the_guides_deployment_shows_its_image_memory_and_no_balancer():
    planned, lines = planned_lines({})
    memory = planned['configs']['default']['memory']
    assert lines[0].startswith('platform atlas_300i_duo: ')
    assert 'the node is not read' in lines[0]
    assert lines[1].startswith('image %s: pulled unless the node has it' % planned['image']['candidates'][0])
    (memory_line,) = [line for line in lines if 'memory:' in line]
    assert 'max_num_seqs %d at this max_model_len' % memory['max_num_seqs_fit'] in memory_line
    assert 'max_model_len %d at this max_num_seqs' % memory['max_model_len_fit'] in memory_line
    assert 'balancer: off: no model is served by more than one instance' in lines
    assert lines[-1] == 'problems: none'


def test_a_bad_value_is_named_with_its_value_and_fix_and_no_command_is_shown():
    planned, lines = planned_lines({'vllm_serve_dtype': 'bfloat16'})
    assert _commands(lines) == []
    assert '  no vllm serve line (see the problems)' in lines
    (problem,) = [line for line in lines if line.startswith('- [')]
    assert 'vllm_serve_dtype="bfloat16"' in problem and 'Fix: set vllm_serve_dtype: float16' in problem
    assert planned['problems'] and lines[-2] == '1 problem(s); a deploy would stop at preflight:'


def test_a_misspelt_variable_shows_the_problems_alone():
    planned, lines = planned_lines({'vlm_serve_port': 9000})
    assert planned['stage'] == 'variables'
    assert lines[0].startswith('%d problem(s)' % len(planned['problems']))
    assert any('rename it to vllm_serve_port' in line for line in lines[1:]), lines


def test_a_model_that_does_not_fit_says_so_with_the_largest_settings_that_fit():
    planned, lines = planned_lines({'vllm_serve_max_num_seqs': 4096})
    memory = planned['configs']['default']['memory']
    assert memory['fits'] is False
    (memory_line,) = [line for line in lines if 'memory:' in line]
    assert memory_line.startswith('  memory: does NOT fit: ')
    assert 'max_num_seqs %d at this max_model_len' % memory['max_num_seqs_fit'] in memory_line
    assert any('vllm_serve_max_num_seqs' in line and 'Fix:' in line for line in lines), lines


def test_instances_of_one_model_show_the_balancer_in_front():
    instances = [{'name': 'a', 'chips': [0], 'port': 8080}, {'name': 'b', 'chips': [1], 'port': 8081}]
    planned, lines = planned_lines({'vllm_serve_instances': instances})
    (frontend,) = planned['balancer']['frontends']
    (line,) = [line for line in lines if line.startswith('balancer: ')]
    assert line.startswith('balancer: %s at http://%s:%s across a, b' % (
        frontend['served'], planned['balancer']['reach'], frontend['port']))
    assert len(_commands(lines)) == 2


@pytest.mark.parametrize('user, words', [
    ({'image_pull_policy': 'always'}, 'pulled again on every run (image_pull_policy: always)'),
    ({'image_pull_archive': '/srv/images/vllm-ascend.tar'}, 'loaded from /srv/images/vllm-ascend.tar'),
])
def test_the_image_line_says_how_the_image_arrives(user, words):
    planned, lines = planned_lines(user)
    (line,) = [line for line in lines if line.startswith('image ')]
    assert line.startswith('image %s: ' % planned['image']['candidates'][0]) and words in line, line


def test_the_release_record_and_what_it_leaves_unchecked_are_shown():
    _plan, lines = planned_lines({})
    assert 'release record v0.23.0: complete (docs/versions.md)' in lines
    _plan, lines = planned_lines({'image_pull_tag': 'v0.30.0'})
    head = lines.index('release record v0.30.0: incomplete (docs/versions.md)')
    unchecked = [line for line in lines[head + 1:] if line.startswith('  not checked: ')]
    assert any(line.startswith('  not checked: hdk (') for line in unchecked), lines
    _plan, lines = planned_lines({'image_pull_tag': 'v0.31.0', 'image_pull_assume_release': 'v0.23.0'})
    head = lines.index('release record v0.23.0: assumed (image_pull_assume_release) (docs/versions.md)')
    assert lines[head + 1].startswith('  not checked: image v0.31.0-310p has no release record')
