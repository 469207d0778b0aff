# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""playbooks/plan.yml run for real against hosts that cannot be reached.

The hosts sit at a documentation address (RFC 5737) behind SSH: any connection attempt would end
unreachable. The plan still prints every host's instances with their exact vllm serve lines, the image
and the memory fit, and fails, after every host is shown, when a host has a problem.
"""

import json
import os
import shlex
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))
PLAYBOOK = os.path.join(os.path.dirname(sys.executable), 'ansible-playbook')
FAR = '      ansible_host: 203.0.113.1\n      ansible_connection: ssh\n      ansible_ssh_timeout: 5\n'
INVENTORY = (
    'all:\n'
    '  children:\n'
    '    atlas_300i_duo:\n'
    '      hosts:\n'
    '        duo-a:\n'
    '          ascend_vllm_instances:\n'
    '            - {name: small, model: Qwen/Qwen3.5-2B, chips: [0], port: 8080, max_model_len: 16384}\n'
    '            - {name: medium, model: Qwen/Qwen3.5-4B, chips: [1], port: 8081, max_model_len: 8192}\n'
    '  hosts:\n'
    # Platform by variable, outside the platform groups (playbooks/hosts.yml finds it).
    '    edge-a:\n'
    '      ascend_vllm_platform: atlas_200i_pro\n'
    '      vllm_serve_max_model_len: 8192\n'
    '      vllm_serve_max_num_seqs: 8\n'
    # Not the collection's: never planned.
    '    prometheus:\n'
    '  vars:\n' + FAR.replace('      ', '    '))


def _run(tmp_path, inventory, callback):
    path = tmp_path / 'inventory.yml'
    path.write_text(inventory)
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, 'ansible.cfg'), ANSIBLE_STDOUT_CALLBACK=callback,
               ANSIBLE_LOAD_CALLBACK_PLUGINS='1', ANSIBLE_NOCOLOR='1', ANSIBLE_FORCE_COLOR='0')
    return subprocess.run([PLAYBOOK, 'playbooks/plan.yml', '-i', str(path)], cwd=ROOT, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=300,
                          check=False)


def _task(report, name):
    for play in report['plays']:
        for task in play['tasks']:
            if task['task']['name'] == name:
                return task['hosts']
    raise AssertionError('no task %r in %s' % (name, [t['task']['name'] for p in report['plays'] for t in p['tasks']]))


def test_a_valid_inventory_is_planned_without_contacting_a_host(tmp_path):
    proc = _run(tmp_path, INVENTORY, 'json')
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    report = json.loads(proc.stdout)
    stats = report['stats']
    assert set(stats) >= {'duo-a', 'edge-a'} and 'prometheus' not in stats, stats
    assert all(counts['unreachable'] == 0 and counts['failures'] == 0 for counts in stats.values()), stats
    plans = _task(report, 'Plan | Plan the host and judge the plan')
    shown = _task(report, 'Plan | Show the instances, their vllm serve lines, memory, image, balancer and problems')
    assert sorted(plans) == sorted(shown) == ['duo-a', 'edge-a']
    for host, result in plans.items():
        planned = result['plan']
        lines = shown[host]['msg'].splitlines()
        commands = [shlex.split(line) for line in lines if line.strip().startswith('vllm serve ')]
        # Each instance's command as it will run: a shell gives back the plan's argv.
        assert commands == [planned['configs'][entry['name']]['argv'] for entry in planned['instances']], lines
        assert len(commands) == (2 if host == 'duo-a' else 1)
        assert any(line.startswith('image %s:' % planned['image']['candidates'][0]) for line in lines), lines
        assert sum('memory: fits:' in line for line in lines) == len(commands), lines
        assert lines[-1] == 'problems: none'


def test_a_bad_value_fails_after_every_host_is_shown_naming_the_variable_value_and_fix(tmp_path):
    bad = INVENTORY.replace('      vllm_serve_max_num_seqs: 8\n', '      vllm_serve_max_num_seqs: 8\n'
                            '      vllm_serve_dtype: bfloat16\n')
    proc = _run(tmp_path, bad, 'ansible.builtin.default')
    out = proc.stdout
    assert proc.returncode != 0, out[-4000:]
    assert 'vllm_serve_dtype="bfloat16"' in out and 'Fix: set vllm_serve_dtype: float16' in out, out[-4000:]
    # The other host is shown in full, and only the host with the problem fails, after both are shown.
    assert out.count('  vllm serve Qwen/') == 2 and out.count('  no vllm serve line (see the problems)') == 1, out
    assert 'fatal: [edge-a]' in out and 'fatal: [duo-a]' not in out, out[-4000:]
    assert out.index('ok: [duo-a] =>') < out.index('fatal: [edge-a]') and out.index('ok: [edge-a] =>') < out.index(
        'fatal: [edge-a]'), out[-4000:]
    assert 'unreachable=1' not in out and 'UNREACHABLE' not in out, out[-4000:]
