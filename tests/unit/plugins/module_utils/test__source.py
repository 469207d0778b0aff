# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The source install method's plan: versions from the matrix, the unit's command, the node's verdict."""

import shlex

import pytest

from hypothesis import given, settings, strategies as st

from ansible_collections.ascend.vllm.plugins.module_utils import _unit
from ansible_collections.ascend.vllm.plugins.plugin_utils.serve import _source
from ansible_collections.ascend.vllm.plugins.module_utils.serve._ready import unit_command, unit_view

DEFAULTS = {'vllm_serve_source_root': '/opt/ascend-vllm', 'vllm_serve_source_wheelhouse': '/srv/wheels',
            'vllm_serve_source_python': 'python3', 'vllm_serve_source_versions': {},
            'vllm_serve_cann_root': '/usr/local/Ascend'}


def plan(tag='v0.23.0-310p', **given):
    values = dict(DEFAULTS, **given)
    return _source.install_plan(values.get, tag, lambda name: name in given)


def test_versions_come_from_the_version_matrix_of_the_image_tag():
    install = plan()
    assert install['versions'] == {'vllm': '0.23.0', 'vllm_ascend': '0.23.0'}
    assert install['requirements'] == ['vllm==0.23.0', 'vllm-ascend==0.23.0']
    assert install['venv'] == '/opt/ascend-vllm/venv/vllm-ascend-0.23.0'
    assert install['cann']['version'] == '9.1.0'
    assert install['remove'] == ['triton-ascend', 'triton']
    assert install['problems'] == []


def test_a_tag_outside_the_matrix_needs_the_versions_named():
    install = plan(tag='v0.22.0-310p')
    assert [p['variable'] for p in install['problems']] == ['vllm_serve_source_versions'] * 2
    named = plan(tag='v0.22.0-310p', vllm_serve_source_versions={'vllm': 'v0.22.0', 'vllm_ascend': '0.22.0'})
    assert named['problems'] == [] and named['versions'] == {'vllm': '0.22.0', 'vllm_ascend': '0.22.0'}
    # No matrix entry: no CANN version to hold the node to (only its presence is checked).
    assert named['cann']['version'] == ''


def test_unknown_keys_and_relative_paths_are_refused_naming_the_variable():
    install = plan(vllm_serve_source_versions={'vllm_asend': '0.23.0'}, vllm_serve_source_wheelhouse='wheels')
    variables = sorted(p['variable'] for p in install['problems'])
    assert variables == ['vllm_serve_source_versions', 'vllm_serve_source_wheelhouse']
    assert all(p['fix'] for p in install['problems'])


def test_no_wheelhouse_is_refused():
    assert [p['variable'] for p in plan(vllm_serve_source_wheelhouse='')['problems']] == ['vllm_serve_source_wheelhouse']


# Any argument vllm_config could produce, including the JSON of --additional-config and
# characters systemd treats specially ($ expands variables, % starts a specifier).
ARG = st.text(st.characters(blacklist_categories=('Cs', 'Cc')), max_size=40)


@settings(max_examples=300, deadline=None)
@given(st.lists(ARG, max_size=8))
def test_the_unit_runs_exactly_the_planned_command(args):
    install = plan()
    argv = ['vllm', 'serve'] + args
    text = _source.unit_text(install, 'vllm-ascend', argv, 'vLLM')
    assert unit_command(text) == [install['venv'] + '/bin/vllm', 'serve'] + args


def test_the_unit_starts_through_the_launcher_with_the_environment_file():
    install = plan()
    text = _source.unit_text(install, 'vllm-ascend', ['vllm', 'serve', 'Qwen/Qwen3.5-2B'], 'vLLM')
    lines = text.splitlines()
    assert 'X-Ascend-Vllm-Managed-By=ascend.vllm' in lines
    assert 'EnvironmentFile=/opt/ascend-vllm/instances/vllm-ascend.env' in lines
    # vLLM 0.23's API server exits 0 when its engine dies: only Restart=always brings it back.
    assert 'Restart=always' in lines and 'StandardOutput=journal' in lines
    exec_start = next(line for line in lines if line.startswith('ExecStart='))
    assert shlex.split(exec_start.split('=', 1)[1])[0] == '/opt/ascend-vllm/bin/ascend-vllm-launch'


def test_the_launcher_sources_cann_then_the_image_bashrc_environment():
    install = plan()
    profile_env = {'LD_PRELOAD': '/usr/lib/$(uname -m)-linux-gnu/libjemalloc.so.2:', 'OMP_NUM_THREADS': '1'}
    text = _source.launcher_text(install, profile_env)
    lines = text.splitlines()
    toolkit = lines.index('. "/usr/local/Ascend/ascend-toolkit/set_env.sh"')
    nnal = lines.index('. "/usr/local/Ascend/nnal/atb/set_env.sh"')
    preload = lines.index('export LD_PRELOAD="/usr/lib/$(uname -m)-linux-gnu/libjemalloc.so.2:"')
    assert toolkit < nnal < preload and lines[-1] == 'exec "$@"'


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.from_regex(r'[A-Z_][A-Z0-9_]{0,10}', fullmatch=True), ARG, max_size=6),
       st.lists(st.integers(0, 7), max_size=4, unique=True))
def test_the_environment_file_holds_every_variable_and_the_chips(env, chips):
    out = _source.service_env({}, env, chips, '/root/.cache')
    assert out['ASCEND_RT_VISIBLE_DEVICES'] == ','.join(str(chip) for chip in chips)
    text = _unit.env_text(out)
    assert sorted(line.split('=', 1)[0] for line in text.splitlines()) == sorted(out)


def test_the_same_files_give_the_same_digest_and_any_change_another():
    one = _unit.digest('unit', 'A="1"\n', 'launcher')
    assert one == _unit.digest('unit', 'A="1"\n', 'launcher')
    assert len({one, _unit.digest('unit', 'A="2"\n', 'launcher'), _unit.digest('unit2', 'A="1"\n', 'launcher'),
                _unit.digest('unit', 'A="1"\n', 'launcher2')}) == 4


@given(st.sampled_from(['3.10.12', '3.11.2', '3.12.3']))
def test_supported_pythons(version):
    assert _source.python_ok(version)


@given(st.sampled_from(['3.9.18', '3.13.0', '2.7.18', '', 'x']))
def test_unsupported_pythons(version):
    assert not _source.python_ok(version)


def _facts(**changes):
    install = plan()
    files = {
        '/usr/local/Ascend/' + _source.TOOLKIT_INFO: {'path': '/t', 'text': 'package_name=Ascend-cann-toolkit\nversion=9.1.0\n'},
        '/usr/local/Ascend/' + _source.OPS_INFO: {'path': '/o', 'text': 'package_name=Ascend-cann-310p-ops\nversion=9.1.0\n'},
        '/usr/local/Ascend/' + _source.NNAL_INFO: {'path': '/n', 'text': '    Ascend-cann-atb : 9.1.0\n'},
    }
    facts = {'systemd': True, 'python': {'version': '3.11.2', 'venv': True},
             'venv': {'exists': False, 'packages': {}},
             'wheelhouse': {'exists': True, 'files': ['vllm-0.23.0-py3-none-any.whl',
                                                      'vllm_ascend-0.23.0-cp311-cp311-linux_aarch64.whl']},
             'files': files, 'preload': {'/usr/lib/$(uname -m)-linux-gnu/libjemalloc.so.2': {'path': '/usr/lib/x/j.so', 'exists': True}}, 'units': {}}
    facts.update(changes)
    return install, facts


def test_a_ready_node_has_no_problem():
    install, facts = _facts()
    assert _source.source_problems(install, facts, {}) == []


def test_a_local_version_of_vllm_counts_as_its_version():
    install, facts = _facts(wheelhouse={'exists': True, 'files': ['vllm-0.23.0+empty-py3-none-any.whl',
                                                                  'vllm_ascend-0.23.0-cp311-cp311-linux_aarch64.whl']})
    assert _source.source_problems(install, facts, {}) == []
    assert _source.installed_ok(install, {'vllm': '0.23.0+empty', 'vllm-ascend': '0.23.0'})


def test_each_missing_piece_is_one_problem_with_its_fix():
    install, facts = _facts(systemd=False, python={'version': '3.9.2', 'venv': True},
                            wheelhouse={'exists': True, 'files': ['vllm-0.23.0-py3-none-any.whl']},
                            preload={'/usr/lib/$(uname -m)/libjemalloc.so.2': {'path': '/usr/lib/x/libjemalloc.so.2', 'exists': False}})
    facts['files']['/usr/local/Ascend/' + _source.NNAL_INFO] = {'path': None, 'text': None}
    facts['files']['/usr/local/Ascend/' + _source.TOOLKIT_INFO]['text'] = 'version=8.5.0\n'
    problems = _source.source_problems(install, facts, {})
    messages = ' | '.join(p['msg'] for p in problems)
    assert len(problems) == 6, messages
    assert 'systemd' in messages and 'Python 3.9.2' in messages and 'vllm-ascend==0.23.0' in messages
    assert 'NNAL' in messages and 'version 8.5.0' in messages and 'libjemalloc' in messages
    assert all(p['check'] == 'source' and p['fix'] for p in problems)


def test_an_installed_venv_needs_no_wheelhouse():
    install, facts = _facts(wheelhouse={'exists': False, 'files': []},
                            venv={'exists': True, 'packages': {'vllm': '0.23.0+empty', 'vllm-ascend': '0.23.0'}})
    assert _source.source_problems(install, facts, {}) == []


def test_a_balancer_needs_docker_and_a_foreign_unit_is_not_replaced():
    install, facts = _facts(units={'vllm-ascend.service': {'exists': True, 'managed': False}})
    services = {'default': {'name': 'vllm-ascend.service'}}
    problems = _source.source_problems(install, facts, services, needs_docker=True,
                                       docker={'reachable': False, 'error': 'no socket'})
    assert [p.get('variable') for p in problems] == [None, 'balancer_enabled']


def test_record_versions_in_both_formats():
    assert _source.record_version('package_name=Ascend-cann-toolkit\nversion="9.1.0"\narch=aarch64\n') == '9.1.0'
    assert _source.record_version('    Ascend-cann-atb : 9.1.0\n    Ascend-cann-atb Version : 9.1.0.B010\n') == '9.1.0'
    assert _source.record_version('nothing') is None


def test_systemctl_show_reads_like_docker_inspect():
    running = unit_view({'LoadState': 'loaded', 'ActiveState': 'active', 'SubState': 'running', 'NRestarts': '0',
                         'ExecMainStatus': '0', 'ExecMainStartTimestamp': '@1764680000'}, ['/v/bin/vllm', 'serve'])
    assert running['State']['Status'] == 'running' and running['State']['StartedAt'] == '2025-12-02T12:53:20Z'
    assert running['Config']['Cmd'] == ['/v/bin/vllm', 'serve']
    crashed = unit_view({'LoadState': 'loaded', 'ActiveState': 'activating', 'SubState': 'auto-restart',
                         'NRestarts': '2', 'ExecMainStatus': '1'})
    assert crashed['State']['Restarting'] and crashed['RestartCount'] == 2
    assert unit_view({'LoadState': 'not-found', 'FragmentPath': ''}) is None
    stopped = unit_view({'LoadState': 'loaded', 'ActiveState': 'failed', 'SubState': 'failed'})
    assert stopped['State']['Status'] == 'exited'


# ------------------------------------------------------------------ vllm_serve_source_build
def test_building_from_the_tags_plans_the_public_repositories_their_tags_and_the_310p_build():
    install = plan(vllm_serve_source_build=True, vllm_serve_source_wheelhouse='')
    assert install['problems'] == [] and install['pip_args'] == []
    vllm, ascend = install['build']['vllm'], install['build']['vllm_ascend']
    assert vllm == {'repo': 'https://github.com/vllm-project/vllm', 'tag': 'v0.23.0',
                    'dir': '/opt/ascend-vllm/src/vllm-0.23.0', 'submodules': False,
                    'env': {'VLLM_TARGET_DEVICE': 'empty'},
                    'command': ['/opt/ascend-vllm/venv/vllm-ascend-0.23.0/bin/python', '-m', 'pip', 'install',
                                '/opt/ascend-vllm/src/vllm-0.23.0']}
    assert ascend['repo'] == 'https://github.com/vllm-project/vllm-ascend.git' and ascend['tag'] == 'v0.23.0'
    assert ascend['dir'] == '/opt/ascend-vllm/src/vllm-ascend-0.23.0' and ascend['submodules'] is True
    assert ascend['env'] == {'SOC_VERSION': 'ascend310p1'}
    # pip runs through the launcher (the CANN environment), a regular install of the checkout.
    assert ascend['command'] == ['/opt/ascend-vllm/bin/ascend-vllm-launch',
                                 '/opt/ascend-vllm/venv/vllm-ascend-0.23.0/bin/python', '-m', 'pip', 'install',
                                 '/opt/ascend-vllm/src/vllm-ascend-0.23.0']
    assert '-e' not in ascend['command']


def test_a_wheelhouse_given_with_the_build_is_where_every_dependency_comes_from():
    install = plan(vllm_serve_source_build=True,
                   vllm_serve_source_repos={'vllm_ascend': 'file:///srv/src/vllm-ascend.git'},
                   vllm_serve_source_versions={'vllm': '0.22.0', 'vllm_ascend': '0.22.0'})
    assert install['pip_args'] == ['--no-index', '--find-links', '/srv/wheels']
    assert install['build']['vllm_ascend']['command'][-4:] == ['--no-index', '--find-links', '/srv/wheels',
                                                               '/opt/ascend-vllm/src/vllm-ascend-0.22.0']
    assert install['build']['vllm']['command'][-4:] == ['--no-index', '--find-links', '/srv/wheels',
                                                        '/opt/ascend-vllm/src/vllm-0.22.0']
    assert install['build']['vllm_ascend']['repo'] == 'file:///srv/src/vllm-ascend.git'
    assert install['build']['vllm']['repo'] == 'https://github.com/vllm-project/vllm'
    assert install['build']['vllm']['tag'] == 'v0.22.0'


def test_without_the_build_nothing_is_cloned_and_the_wheelhouse_stays_needed():
    assert plan()['build'] == {}
    assert [p['variable'] for p in plan(vllm_serve_source_build=False, vllm_serve_source_wheelhouse='')['problems']] \
        == ['vllm_serve_source_wheelhouse']


@pytest.mark.parametrize('repos, words', [
    ({'vllm-ascend': 'https://example.com/a.git'}, 'unknown keys vllm-ascend'),
    ({'vllm': ''}, 'vllm_serve_source_repos.vllm=""'),
    ({'vllm_ascend': 'mirrors/vllm-ascend.git'}, 'vllm_serve_source_repos.vllm_ascend="mirrors/vllm-ascend.git"'),
    ({'vllm': './vllm'}, 'vllm_serve_source_repos.vllm="./vllm"'),
    ({'vllm': 42}, 'vllm_serve_source_repos.vllm=42'),
])
def test_a_bad_repository_is_one_problem_naming_the_variable_its_value_and_the_fix(repos, words):
    problems = plan(vllm_serve_source_build=True, vllm_serve_source_repos=repos)['problems']
    assert len(problems) == 1, problems
    assert problems[0]['variable'] == 'vllm_serve_source_repos' and words in problems[0]['msg'], problems
    assert problems[0]['fix']


@pytest.mark.parametrize('repo', ['https://github.com/vllm-project/vllm', 'ssh://git@git.example.com/v.git',
                                  'git@git.example.com:mirror/vllm.git', 'git.example.com:mirror/vllm.git',
                                  'file:///srv/src/vllm.git', '/srv/src/vllm.git'])
def test_repositories_git_clones_are_accepted(repo):
    assert plan(vllm_serve_source_build=True, vllm_serve_source_repos={'vllm': repo})['problems'] == []


def test_repositories_without_the_build_have_no_effect_and_say_so():
    problems = plan(vllm_serve_source_repos={'vllm': 'https://git.example.com/vllm.git'})['problems']
    assert [p['variable'] for p in problems] == ['vllm_serve_source_repos']
    assert 'has no effect' in problems[0]['msg'] and 'vllm_serve_source_build: true' in problems[0]['fix']


def _build_facts(**changes):
    install, facts = _facts(**changes)
    return _source.install_plan(dict(DEFAULTS, vllm_serve_source_build=True).get, 'v0.23.0-310p',
                                lambda name: False), facts


def test_a_build_needs_no_wheel_of_vllm_but_git_on_the_node():
    install, facts = _build_facts(wheelhouse={'exists': True, 'files': ['triton-3.2.0-py3-none-any.whl']},
                                  git={'path': '/usr/bin/git', 'version': '2.39.5'})
    assert _source.source_problems(install, facts, {}) == []
    assert _source.source_query(install, {}, [])['git'] is True
    install, facts = _build_facts(git={'path': None, 'version': None, 'error': 'no git on PATH'})
    problems = _source.source_problems(install, facts, {})
    assert [p['variable'] for p in problems] == ['vllm_serve_source_build'], problems
    assert 'git is not on the node (no git on PATH)' in problems[0]['msg']
    assert 'apt-get install git' in problems[0]['fix']


def test_a_build_with_a_wheelhouse_that_is_not_there_is_refused():
    install, facts = _build_facts(wheelhouse={'exists': False, 'files': []}, git={'path': '/usr/bin/git'})
    assert [p['variable'] for p in _source.source_problems(install, facts, {})] == ['vllm_serve_source_wheelhouse']


def test_an_installed_venv_needs_neither_git_nor_a_wheelhouse():
    install, facts = _build_facts(wheelhouse={'exists': False, 'files': []}, git={'path': None},
                                  venv={'exists': True, 'packages': {'vllm': '0.23.0+empty', 'vllm-ascend': '0.23.0'}})
    assert _source.source_problems(install, facts, {}) == []


def test_the_install_and_every_service_share_one_launcher_text():
    install = plan()
    configs = {'a': {'profile': {'environment': {'OMP_NUM_THREADS': '1'}}, 'argv': ['vllm', 'serve', 'm']}}
    install = _source.with_launcher(install, configs)
    assert 'export OMP_NUM_THREADS="1"' in install['launcher_text'].splitlines()
    service = _source.service_plan({'container_name': 'vllm-ascend', 'name': 'a', 'chips': [0]}, configs['a'],
                                   install, {})
    assert service['launcher_text'] == install['launcher_text'] and service['launcher'] == install['launcher']


def test_the_node_read_looks_for_git_only_when_asked(tmp_path, monkeypatch):
    from ansible_collections.ascend.vllm.plugins.module_utils.node._node_source import gather_source
    calls = []

    def run(argv):
        calls.append(argv)
        return (0, 'git version 2.39.5\n', '') if argv[-1] == '--version' and argv[0].endswith('git') else (1, '', 'no')
    monkeypatch.setenv('PATH', str(tmp_path))
    assert 'git' not in gather_source({'python': 'python3'}, run)
    assert gather_source({'git': True}, run)['git'] == {'path': None, 'version': None, 'error': 'no git on PATH'}
    git = tmp_path / 'git'
    git.write_text('#!/bin/sh\n')
    git.chmod(0o755)
    assert gather_source({'git': True}, run)['git'] == {'path': str(git), 'version': '2.39.5'}
    assert [str(git), '--version'] in calls


def test_a_service_is_spoken_of_as_a_service():
    """The readiness check, keep-last-good and the rolling upgrade name systemd and the service (serve/_words.py)."""
    from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._keep import restore_note
    from ansible_collections.ascend.vllm.plugins.module_utils.serve._ready import marker_error
    from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._rolling import upgrade_outcome
    crashed = {'restarting': True, 'exit_code': 1, 'restart_count': 1, 'status': 'restarting'}
    assert 'and systemd restarted it 1 time(s)' in marker_error('crashed', crashed, 0, 'u.service', 60, service=True)
    assert 'the unit is gone' in marker_error('gone', None, 0, 'u.service', 60, service=True)
    note = restore_note('restore', {'state': 'ready'}, service=True)
    assert 'the previous service was restored: it serves again (same unit, virtualenv and settings' in note
    out = upgrade_outcome({'state': 'failed', 'container': 'u.service', 'error': 'x'}, {}, restored={'state': 'ready'},
                          host='h', service=True)
    assert 'Rolled back: the previous service serves again.' in out['msg']
    assert 'container' not in marker_error('crashed', crashed, 0, 'u', 60, service=True) + note + out['msg']
