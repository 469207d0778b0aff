# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""vllm_serve's metrics entry point under --diff: the file_sd target file before and after, as a user runs it.

The file is written by ansible.builtin.copy (on vllm_serve_metrics_file_host), whose own diff shows the merge:
another host's group kept, this play's host's instance added. The host is planned on the controller only
(ansible_connection local; the metrics tasks read and write the file on localhost).
"""

import json
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))
PLAYBOOK = os.path.join(os.path.dirname(sys.executable), 'ansible-playbook')
OTHER = [{'targets': ['10.9.9.9:8080'], 'labels': {'ascend_vllm_host': 'other'}}]


def _run(tmp_path, *options):
    (tmp_path / 'hosts.yml').write_text(
        'all:\n  children:\n    atlas_300i_duo:\n      hosts:\n        duo1:\n'
        '          ansible_connection: local\n          ansible_python_interpreter: %s\n'
        '          ansible_host: 10.0.0.11\n' % sys.executable)
    (tmp_path / 'play.yml').write_text(
        '- name: Metrics\n  hosts: atlas_300i_duo\n  gather_facts: false\n  vars:\n'
        '    vllm_serve_metrics_file: %s\n    vllm_serve_metrics_file_host: localhost\n  tasks:\n'
        '    - name: Metrics\n      ansible.builtin.import_role:\n        name: ascend.vllm.vllm_serve\n'
        '        tasks_from: metrics\n' % (tmp_path / 'targets.json'))
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, 'ansible.cfg'), ANSIBLE_NOCOLOR='1',
               ANSIBLE_FORCE_COLOR='0')
    return subprocess.run([PLAYBOOK, '-i', str(tmp_path / 'hosts.yml'), str(tmp_path / 'play.yml')] + list(options),
                          cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=300, check=False)


def test_check_diff_shows_the_target_file_merge_and_a_run_then_has_nothing_to_show(tmp_path):
    targets = tmp_path / 'targets.json'
    targets.write_text(json.dumps(OTHER) + '\n')
    check = _run(tmp_path, '--check', '--diff')
    assert check.returncode == 0, check.stdout[-4000:]
    shown = check.stdout.split('Write the target groups of the play', 1)[1].split('PLAY RECAP', 1)[0]
    assert '--- before: %s' % targets in shown and '+++ after: %s' % targets in shown
    assert '-[{"targets": ["10.9.9.9:8080"], "labels": {"ascend_vllm_host": "other"}}]' in shown
    assert '+            "127.0.0.1:8080"' in shown and '+            "10.9.9.9:8080"' in shown
    assert json.loads(targets.read_text()) == OTHER  # --check changed nothing
    done = _run(tmp_path, '--diff')
    assert done.returncode == 0, done.stdout[-4000:]
    written = json.loads(targets.read_text())
    assert written[0] == OTHER[0] and written[1]['targets'] == ['127.0.0.1:8080']
    again = _run(tmp_path, '--check', '--diff')
    assert again.returncode == 0 and '+++ after' not in again.stdout and 'changed=0' in again.stdout, again.stdout
