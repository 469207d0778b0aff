# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The eval_plan action: the eval role's variables judged and its datasets read on the controller, no node contacted.

The action is run as the task executor runs it, with the eval role's defaults (loaded as Ansible loads a
role's: their templates trusted) under the host's variables, and a connection that fails on any use; and
once through ``ansible`` against a host that cannot be reached.
"""

import json
import os
import subprocess
import sys

import pytest
import yaml

from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

from ansible_collections.ascend.vllm.plugins.action.eval_plan import ActionModule
from ansible_collections.ascend.vllm.plugins.module_utils.evaluation._eval_aisbench import AISBENCH_VERSION, READY_MARKER
from ansible_collections.ascend.vllm.plugins.plugin_utils.evaluation._eval_inputs import eval_inputs
from moduleargs import run_controller_action  # noqa: E402 pylint: disable=wrong-import-position

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..', '..'))
DEFAULTS = os.path.join(ROOT, 'roles', 'eval', 'defaults', 'main.yml')
QUESTIONS = [('Two plus two?', '4'), ('Three times three?', '9'), ('Ten minus one?', '9')]


def _gsm8k(path):
    path.mkdir(parents=True)
    (path / 'test.jsonl').write_text(''.join(json.dumps({'question': q, 'answer': 'Work.\n#### %s' % a}) + '\n'
                                             for q, a in QUESTIONS))
    return str(path)


def task_vars_for(user):
    """What the task executor hands the action for a task of the eval role: the role's defaults under the host's
    variables (``user``, whose strings are trusted templates as the inventory's are)."""
    loader = DataLoader()
    out = dict(loader.load_from_file(DEFAULTS, trusted_as_template=True))
    out.update({name: trust_as_template(value) if isinstance(value, str) else value for name, value in user.items()})
    out.setdefault('inventory_hostname', 'n1')
    return out


def run_action(user, check_mode=False, args=None):
    loader = DataLoader()
    return run_controller_action(ActionModule, 'ascend.vllm.eval_plan', args or {}, check_mode=check_mode,
                                 task_vars=task_vars_for(user), loader=loader, templar=Templar(loader=loader))


@pytest.mark.parametrize('user, words', [
    ({'eval_tolerance': 150, 'eval_dataset_dirs': {'gsm8k': 'G'}},
     ['[eval_tolerance] eval_tolerance=150', 'from 0 to 100', 'Fix: e.g. eval_tolerance: 2.0']),
    ({'eval_datasets': ['gsm8k', 'mmlu'], 'eval_dataset_dirs': {'gsm8k': 'G'}},
     ["[eval_datasets] eval_datasets: unknown dataset 'mmlu'", 'use one of: gsm8k']),
    ({'eval_dataset_dirs': {'gsm8k': '/nonexistent/gsm8k'}},
     ['[eval_dataset_dirs] eval_dataset_dirs.gsm8k=/nonexistent/gsm8k: no such directory', 'test.jsonl']),
], ids=['tolerance', 'unknown dataset', 'missing directory'])
def test_problems_fail_with_the_message(tmp_path, user, words):
    dirs = user.get('eval_dataset_dirs') or {}
    if dirs.get('gsm8k') == 'G':
        user = dict(user, eval_dataset_dirs={'gsm8k': _gsm8k(tmp_path / 'g')})
    result = run_action(user)
    assert result['failed'] is True and result['changed'] is False
    assert result['msg'].startswith('1 evaluation problem(s) on n1; no request was sent to any instance:\n')
    for word in words:
        assert word in result['msg'], result['msg']
    assert len(result['problems']) == 1 and result['problems'][0]['check'] in result['msg']
    assert 'datasets' not in result and 'report_dir' not in result


def test_every_problem_is_reported_at_once():
    result = run_action({'eval_tolerance': -1, 'eval_concurrency': [0], 'eval_report_dir': ''})
    checks = [p['check'] for p in result['problems']]
    assert result['failed'] is True and result['msg'].startswith('%d evaluation problem(s) on n1' % len(checks))
    assert {'eval_tolerance', 'eval_concurrency', 'eval_dataset_dirs', 'eval_report_dir'} <= set(checks)
    assert all('[%s]' % check in result['msg'] for check in checks)


def test_the_result_has_the_datasets_read_on_the_controller(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run_action({'eval_dataset_dirs': {'gsm8k': _gsm8k(tmp_path / 'g')}, 'eval_limit': 2})
    assert 'failed' not in result and result['changed'] is False
    assert result['problems'] == []
    assert result['datasets'] == {'gsm8k': [{'question': 'Two plus two?', 'answer': '4'},
                                            {'question': 'Three times three?', 'answer': '9'}]}
    assert result['report_dir'] == str(tmp_path / 'eval-results')
    assert result['aisbench_dirs'] == {}
    assert 'message' not in result


def test_the_aisbench_runner_gets_its_venv_and_absolute_dirs(tmp_path, monkeypatch):
    """What run_aisbench.yml reads of the result: the venv and each dataset's directory, nothing read for the node."""
    venv = tmp_path / 'venv'
    (venv / 'bin').mkdir(parents=True)
    (venv / 'bin' / 'ais_bench').write_text('')
    (venv / READY_MARKER).write_text(AISBENCH_VERSION)
    gsm8k = _gsm8k(tmp_path / 'data' / 'g')
    (tmp_path / 'data' / 'g' / 'train.jsonl').write_text((tmp_path / 'data' / 'g' / 'test.jsonl').read_text())
    monkeypatch.chdir(tmp_path / 'data')
    result = run_action({'eval_runner': 'aisbench', 'eval_aisbench_venv': str(venv), 'eval_dataset_dirs': {'gsm8k': 'g'}})
    assert result['problems'] == [] and result['datasets'] == {}
    assert result['aisbench_venv'] == str(venv) and result['aisbench_dirs'] == {'gsm8k': gsm8k}


def test_variables_are_templated_with_the_hosts_variables(tmp_path):
    """Inventory values that are templates (and the role's own templated defaults) are read as the role reads them."""
    _gsm8k(tmp_path / 'data' / 'gsm8k')
    user = {'data_root': str(tmp_path / 'data'), 'eval_dataset_dirs': {'gsm8k': trust_as_template('{{ data_root }}/gsm8k')},
            'eval_limit': '{{ 1 + 2 }}', 'eval_report_dir': '{{ data_root }}/reports', 'vllm_serve_api_key': 'k'}
    result = run_action(user)
    assert result['problems'] == [] and len(result['datasets']['gsm8k']) == 3
    assert result['report_dir'] == str(tmp_path / 'data' / 'reports')
    bad = run_action(dict(user, eval_limit='{{ 1 + 2 }}', eval_tolerance='{{ 200 }}'))
    assert '[eval_tolerance] eval_tolerance=200' in bad['msg']


def test_an_undefined_variable_in_an_eval_variable_names_it():
    result = run_action({'eval_report_dir': '{{ nowhere_defined }}/reports'})
    assert result['failed'] is True
    assert result['msg'].startswith('eval_plan could not read eval_report_dir on n1: ')
    assert 'nowhere_defined' in result['msg']


@pytest.mark.parametrize('ok', [True, False], ids=['no problem', 'problems'])
def test_check_mode_gives_the_same_result(tmp_path, ok):
    user = {'eval_dataset_dirs': {'gsm8k': _gsm8k(tmp_path / 'g') if ok else '/nope'}}
    checked = run_action(user, check_mode=True)
    assert checked == run_action(user)
    assert ('failed' in checked) is not ok


def test_the_result_is_what_eval_inputs_returns(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    user = {'eval_dataset_dirs': {'gsm8k': _gsm8k(tmp_path / 'g')}}
    direct = eval_inputs(dict((k, v) for k, v in task_vars_for(user).items() if k.startswith('eval_')
                              and '{{' not in str(v)), 'n1')
    direct.pop('message')
    result = run_action(user)
    # The judged values the role's later tasks read (__eval_settings), the secret left out.
    settings = result.pop('settings')
    assert result == dict(direct, changed=False)
    assert settings['eval_accuracy'] is True and settings['eval_concurrency'] == [1, 4, 16]
    assert 'eval_api_key' not in settings


@pytest.mark.parametrize('form', ['native', '-e key=value'])
def test_a_value_reads_the_same_however_it_arrives(tmp_path, monkeypatch, form):
    """-e eval_accuracy=false is false, -e eval_batch_size=8 is 8 (as preflight's request reads them): before, the
    eval role refused "8" that preflight accepted, and ran the accuracy gate with eval_accuracy=false."""
    monkeypatch.chdir(tmp_path)
    native = {'eval_accuracy': False, 'eval_batch_size': 8, 'eval_tolerance': 2.5, 'eval_perf_requests': 4,
              'eval_limit': 3, 'eval_performance': True}
    user = native if form == 'native' else dict((name, str(value).lower() if isinstance(value, bool) else str(value))
                                                for name, value in native.items())
    result = run_action(user)
    assert 'failed' not in result and result['problems'] == [], result
    assert dict((name, result['settings'][name]) for name in native) == native
    assert result['datasets'] == {}


def test_options_are_refused_like_a_module():
    result = run_action({}, args={'datasets': ['gsm8k']})
    assert result['failed'] is True
    assert result['msg'] == 'Unsupported parameters for (ascend.vllm.eval_plan) module: datasets. Supported parameters include: .'


def test_runs_for_a_host_that_cannot_be_reached(tmp_path):
    """ansible -m ascend.vllm.eval_plan against an SSH host at a documentation address (RFC 5737): no connection."""
    ansible = os.path.join(os.path.dirname(sys.executable), 'ansible')
    inventory = tmp_path / 'inventory.yml'
    inventory.write_text('all:\n  hosts:\n    far:\n      ansible_host: 203.0.113.1\n'
                         '      ansible_connection: ssh\n      ansible_ssh_timeout: 5\n')
    # No role here: the role's defaults (without its templated ones) come as extra vars.
    with open(DEFAULTS) as handle:
        settings = dict((k, v) for k, v in yaml.safe_load(handle).items() if '{{' not in str(v))
    settings.update(eval_report_dir=str(tmp_path / 'reports'), eval_dataset_dirs={'gsm8k': _gsm8k(tmp_path / 'g')})
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, 'ansible.cfg'), ANSIBLE_STDOUT_CALLBACK='json',
               ANSIBLE_LOAD_CALLBACK_PLUGINS='1', ANSIBLE_NOCOLOR='1')

    def run(extra, *options):
        proc = subprocess.run([ansible, 'far', '-i', str(inventory), '-m', 'ascend.vllm.eval_plan', '-e',
                               json.dumps(extra)] + list(options), cwd=ROOT, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True, timeout=120, check=False)
        (task,) = json.loads(proc.stdout)['plays'][0]['tasks']
        return proc, task['hosts']['far']

    proc, host = run(settings, '--check')
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert host.get('unreachable') is not True
    assert [item['answer'] for item in host['datasets']['gsm8k']] == ['4', '9', '9']
    proc, host = run(dict(settings, eval_tolerance=150))
    assert proc.returncode != 0 and host.get('unreachable') is not True
    assert host['msg'].startswith('1 evaluation problem(s) on far; no request was sent to any instance:')
    assert '[eval_tolerance] eval_tolerance=150' in host['msg']
