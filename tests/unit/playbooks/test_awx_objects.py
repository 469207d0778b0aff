# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""playbooks/awx_objects.yml: a job template per playbook and the workflow, each survey rendered by
Ansible from the catalog and asking only what its playbook reads (checked by walking the playbooks),
credentials attached or asked at launch, and every survey answer a variable the roles read with a
type they accept. No AWX server is needed: the objects are checked as data and rendered by Ansible."""

import json
import os
import re
import subprocess
import sys

import pytest
import yaml

from ansible_collections.ascend.vllm.plugins.filter.awx_credential_types import awx_credential_types
from ansible_collections.ascend.vllm.plugins.filter.awx_survey import awx_survey
from ansible_collections.ascend.vllm.plugins.plugin_utils.request._vars import check_role_vars
from ansible_collections.ascend.vllm.plugins.plugin_utils.request._vars import role_argument_specs
from ansible_collections.ascend.vllm.plugins.plugin_utils.fleet import _awx_survey
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.models import model_names
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.platforms import profile_names

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))
PLAYBOOK = os.path.join(ROOT, 'playbooks', 'awx_objects.yml')


def _play():
    with open(PLAYBOOK) as handle:
        return yaml.safe_load(handle)[0]


def _task(module):
    return [task for task in _play()['tasks'] if module in task][0][module]


@pytest.fixture(scope='module')
def rendered():
    """The surveys as Ansible renders them from the playbook's own vars and expression."""
    play = _play()
    expression = _task('awx.awx.job_template')['survey_spec'].replace('item.kind', 'kind')
    assert 'ascend.vllm.awx_survey' in expression
    template = '{{ awx_job_templates | map(attribute="kind") | list | to_json }}|||' \
               '{%% for kind in awx_job_templates | map(attribute="kind") %%}%s{{ "\\n" }}{%% endfor %%}' \
               % expression.replace('}}', '| to_json }}')
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, 'ansible.cfg'), ANSIBLE_LOAD_CALLBACK_PLUGINS='1',
               ANSIBLE_STDOUT_CALLBACK='ansible.builtin.json')
    bindir = os.path.dirname(sys.executable)
    out = subprocess.run(
        [os.path.join(bindir, 'ansible'), 'localhost', '-m', 'ansible.builtin.debug', '-a', 'msg=' + template,
         '-e', json.dumps({'awx_job_templates': play['vars']['awx_job_templates']})],
        cwd=ROOT, env=env, capture_output=True, text=True, check=True).stdout
    msg = json.loads(out)['plays'][0]['tasks'][0]['hosts']['localhost']['msg']
    kinds, surveys = msg.split('|||')
    return dict(zip(json.loads(kinds), [json.loads(line) for line in surveys.strip().splitlines()]))


def _templates():
    return _play()['vars']['awx_job_templates']


def _walk(playbook, seen=None):
    """What a playbook reaches: the playbook files it imports and each role entry ("role/tasks_from", or
    "role/absent" for main with the role's state absent) its plays import or include, following import_playbook."""
    seen = set() if seen is None else seen
    seen.add(os.path.relpath(playbook, ROOT))
    with open(playbook) as handle:
        plays = yaml.safe_load(handle)
    for play in plays:
        if 'ansible.builtin.import_playbook' in play:
            _walk(os.path.join(os.path.dirname(playbook), play['ansible.builtin.import_playbook']), seen)
            continue
        for role in play.get('roles', []):
            seen.add('%s/main' % (role['role'] if isinstance(role, dict) else role).split('.')[-1])
        for section in ('pre_tasks', 'tasks', 'post_tasks'):
            for task in _flatten(play.get(section) or []):
                for module in ('ansible.builtin.import_role', 'ansible.builtin.include_role'):
                    if module in task:
                        args = task[module]
                        role = args['name'].split('.')[-1]
                        # main with <role>_state: absent (teardown) removes, and reads what a removal needs.
                        absent = (task.get('vars') or {}).get('%s_state' % role) == 'absent'
                        seen.add('%s/%s' % (role, 'absent' if absent else args.get('tasks_from', 'main')))
                # The action that reads every variable of every role into the host plan.
                if 'ascend.vllm.host_plan' in task:
                    seen.add('host_plan')
    return seen


def _flatten(tasks):
    for task in tasks:
        yield task
        for section in ('block', 'rescue', 'always'):
            yield from _flatten(task.get(section) or [])


def test_a_job_template_per_playbook():
    templates = _templates()
    assert [t['kind'] for t in templates] == list(_awx_survey.JOB_TEMPLATES) == [
        'preflight', 'deploy', 'verify', 'upgrade', 'eval', 'diagnose', 'teardown']
    assert [(t['kind'], t['playbook']) for t in templates] == list(_awx_survey.TEMPLATES)
    for template in templates:
        if template['kind'] == 'diagnose':
            # Written on another branch: only the template's data is checked until it lands.
            assert template['playbook'] == 'playbooks/diagnose.yml'
            continue
        assert os.path.isfile(os.path.join(ROOT, template['playbook'])), template


@pytest.mark.parametrize('kind, playbook', _awx_survey.TEMPLATES)
def test_what_each_playbook_reaches_is_declared(kind, playbook):
    """The surveys and credentials are derived from REACHES: it must be what the playbook really runs."""
    path = os.path.join(ROOT, playbook)
    if not os.path.isfile(path):
        assert kind == 'diagnose', playbook
        assert playbook in _awx_survey.REACHES[kind]
        return
    assert sorted(_walk(path)) == sorted(set(_awx_survey.REACHES[kind])), kind


@pytest.mark.parametrize('variable', sorted(_awx_survey.READ_BY))
def test_every_reader_of_a_survey_variable_really_reads_it(variable):
    """A role entry said to read a variable declares or documents it; a playbook said to read it names it."""
    for reader in _awx_survey.READ_BY[variable]:
        if reader == 'host_plan':
            # host_plan reads every option of every role's argument specs.
            paths = [os.path.join(ROOT, 'roles', role, 'meta', 'argument_specs.yml') for role in os.listdir(
                os.path.join(ROOT, 'roles'))]
        elif reader.endswith('.yml'):
            paths = [os.path.join(ROOT, reader)]
        else:
            role = reader.split('/')[0]
            paths = [os.path.join(ROOT, 'roles', role, rel) for rel in ('meta/argument_specs.yml', 'defaults/main.yml')]
        text = ''.join(open(path).read() for path in paths if os.path.isfile(path))
        assert re.search(r'\b%s\b' % variable, text), (variable, reader)


# Credential kind -> the variable it injects (None: the machine credential, for every template).
CREDENTIALS = (('machine', None), ('api_key', 'vllm_serve_api_key'), ('registry', 'image_pull_login_username'))


def template_credentials(template):
    """The credential kinds a job template needs: the machine credential, the API key when its playbook reads
    vllm_serve_api_key, the registry login when it pulls the image."""
    return [kind for kind, variable in CREDENTIALS if variable is None or _awx_survey.reads(template, variable)]


def test_credentials_are_what_each_playbook_reads():
    for template in _templates():
        assert template['credentials'] == template_credentials(template['kind']), template
    # Teardown never sends a request to vLLM: it takes no API key.
    assert template_credentials('teardown') == ['machine']
    task = _task('awx.awx.job_template')
    assert 'awx_credential_names' in task['credentials'] and 'awx_credential_names' in task['ask_credential_on_launch']


def _render(expression, extra):
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, 'ansible.cfg'), ANSIBLE_LOAD_CALLBACK_PLUGINS='1',
               ANSIBLE_STDOUT_CALLBACK='ansible.builtin.json')
    bindir = os.path.dirname(sys.executable)
    out = subprocess.run(
        [os.path.join(bindir, 'ansible'), 'localhost', '-m', 'ansible.builtin.debug', '-a', 'msg={{ (%s) | to_json }}'
         % expression, '-e', json.dumps(extra)], cwd=ROOT, env=env, capture_output=True, text=True, check=True).stdout
    return json.loads(json.loads(out)['plays'][0]['tasks'][0]['hosts']['localhost']['msg'])


@pytest.mark.parametrize('names, deploy, teardown', [
    ({'awx_machine_credential': 'nodes', 'awx_api_key_credential': 'key', 'awx_registry_credential': 'quay'},
     [['nodes', 'key', 'quay'], False], [['nodes'], False]),
    ({'awx_machine_credential': 'nodes', 'awx_api_key_credential': 'key', 'awx_registry_credential': ''},
     [['nodes', 'key'], True], [['nodes'], False]),
    ({'awx_machine_credential': 'nodes', 'awx_api_key_credential': '', 'awx_registry_credential': ''},
     [['nodes'], True], [['nodes'], False]),
    ({'awx_machine_credential': '', 'awx_api_key_credential': '', 'awx_registry_credential': ''},
     [[], True], [[], True]),
])
def test_credentials_attached_or_asked_on_launch(names, deploy, teardown):
    """The job template task's expressions, rendered by Ansible for the deploy template (machine, API key and
    registry) and the teardown template (machine only): [attached credentials, asked at launch]."""
    task = _task('awx.awx.job_template')
    play_vars = _play()['vars']
    extra = dict(names, awx_credential_names=play_vars['awx_credential_names'],
                 item=[t for t in _templates() if t['kind'] == 'deploy'][0])
    expression = '[%s, %s]' % (task['credentials'].strip('{} '), task['ask_credential_on_launch'].strip('{} '))
    assert _render(expression, extra) == deploy
    extra['item'] = [t for t in _templates() if t['kind'] == 'teardown'][0]
    assert _render(expression, extra) == teardown


def test_the_registry_credential_goes_to_the_templates_that_pull():
    """The templates whose playbook reaches image_pull's main entry (found by walking the playbooks) take the
    registry credential, and what its type injects is what image_pull's login task logs in with."""
    pulling = sorted(kind for kind, playbook in _awx_survey.TEMPLATES
                     if 'image_pull/main' in _walk(os.path.join(ROOT, playbook)))
    assert pulling == ['deploy', 'upgrade']
    assert sorted(t['kind'] for t in _templates() if 'registry' in t['credentials']) == pulling
    [registry] = [t for t in awx_credential_types('all') if t['name'] == 'ascend.vllm registry']
    injected = registry['injectors']['extra_vars']
    with open(os.path.join(ROOT, 'roles', 'image_pull', 'tasks', 'ensure.yml')) as handle:
        [login] = [t for t in yaml.safe_load(handle) if 'community.docker.docker_login' in t]
    args = login['community.docker.docker_login']
    assert injected['image_pull_login_username'] == '{{ username }}'
    assert injected['image_pull_login_password'] == '{{ password }}'
    assert injected['image_pull_login_registry'] == '{{ host }}'
    assert args['username'] == '{{ image_pull_login_username }}'
    assert args['password'] == '{{ image_pull_login_password }}'
    assert args['registry_url'].startswith('{{ image_pull_login_registry ')
    assert login['no_log'] is True
    # An empty registry is the first the role pulls from.
    expression = args['registry_url'].strip('{} ')
    registries = {'image_pull_registries': ['quay.io', 'm.daocloud.io/quay.io']}
    assert _render(expression, dict(registries, image_pull_login_registry='')) == 'quay.io'
    assert _render(expression, dict(registries, image_pull_login_registry='10.0.0.5:5000')) == '10.0.0.5:5000'
    assert 'image_pull_login_username | length > 0' in login['when']


def _edges(nodes):
    """{identifier: (template, {'success': [...], 'failure': [...]})} of the workflow_nodes schema."""
    graph = {}
    for node in nodes:
        related = node.get('related', {})
        assert node['unified_job_template']['type'] == 'job_template'
        assert node['unified_job_template']['name'] == '{{ awx_name }} %s' % node['identifier']
        graph[node['identifier']] = dict((kind, [n['identifier'] for n in related.get('%s_nodes' % kind, [])])
                                         for kind in ('success', 'failure'))
    return graph


def _runs(graph, start, failing=()):
    """The nodes AWX runs, in order, when the nodes in ``failing`` fail (each node: its success or failure nodes)."""
    ran, node = [], start
    while node:
        ran.append(node)
        after = graph[node]['failure' if node in failing else 'success']
        assert len(after) <= 1, (node, after)
        node = after[0] if after else None
    return ran


def test_the_workflow_runs_in_order_and_diagnoses_a_failed_deploy_or_verify():
    workflow = _task('awx.awx.workflow_job_template')
    graph = _edges(workflow['workflow_nodes'])
    assert set(graph) == set(_awx_survey.WORKFLOWS['workflow'])
    assert _runs(graph, 'preflight') == ['preflight', 'deploy', 'verify', 'eval']
    assert _runs(graph, 'preflight', failing={'deploy'}) == ['preflight', 'deploy', 'diagnose']
    assert _runs(graph, 'preflight', failing={'verify'}) == ['preflight', 'deploy', 'verify', 'diagnose']
    # A refused preflight changed nothing and said why: nothing runs after it.
    assert _runs(graph, 'preflight', failing={'preflight'}) == ['preflight']
    [diagnose] = [n for n in workflow['workflow_nodes'] if n['identifier'] == 'diagnose']
    # AWX ends a workflow successful when every failed node has a failure path: diagnose fails after collecting.
    assert diagnose['extra_data'] == {'vllm_serve_diagnose_fail': True}
    assert workflow['survey_spec'] == "{{ 'workflow' | ascend.vllm.awx_survey }}"
    assert workflow['survey_enabled'] is True and workflow['ask_variables_on_launch'] is True


def test_the_upgrade_workflow_waits_for_an_approval_before_the_upgrade():
    """The upgrade workflow's nodes (one workflow_job_template_node task per node): preflight, an approval, then the
    upgrade, verify and eval; diagnose after a failed upgrade or verify; each node created after the nodes it names."""
    nodes = _play()['vars']['awx_upgrade_workflow_nodes']
    graph = dict((n['identifier'], {'success': n.get('success_nodes', []), 'failure': n.get('failure_nodes', [])})
                 for n in nodes)
    created = [n['identifier'] for n in nodes]
    for node in nodes:
        for after in node.get('success_nodes', []) + node.get('failure_nodes', []):
            assert created.index(after) < created.index(node['identifier']), (node['identifier'], after)
    assert _runs(graph, 'preflight') == ['preflight', 'approve', 'upgrade', 'verify', 'eval']
    assert _runs(graph, 'preflight', failing={'upgrade'}) == ['preflight', 'approve', 'upgrade', 'diagnose']
    assert _runs(graph, 'preflight', failing={'verify'}) == ['preflight', 'approve', 'upgrade', 'verify', 'diagnose']
    # Denied (or expired), the approval fails and nothing after it runs.
    assert _runs(graph, 'preflight', failing={'approve'}) == ['preflight', 'approve']
    templates = dict((n['identifier'], n.get('template')) for n in nodes)
    assert templates.pop('approve') is None
    assert templates == dict((kind, kind) for kind in _awx_survey.WORKFLOWS['upgrade_workflow'])
    [approve] = [n for n in nodes if n['identifier'] == 'approve']
    assert set(approve['approval']) == {'name', 'timeout', 'description'}
    [diagnose] = [n for n in nodes if n['identifier'] == 'diagnose']
    assert diagnose['extra_data'] == {'vllm_serve_diagnose_fail': True}
    task = _task('awx.awx.workflow_job_template_node')
    assert task['approval_node'] == '{{ item.approval | default(omit) }}'
    [upgrade_workflow] = [t['awx.awx.workflow_job_template'] for t in _play()['tasks']
                          if 'awx.awx.workflow_job_template' in t][1:]
    assert upgrade_workflow['name'] == task['workflow_job_template'] == '{{ awx_name }} upgrade workflow'
    assert upgrade_workflow['survey_spec'] == "{{ 'upgrade_workflow' | ascend.vllm.awx_survey }}"


def test_diagnose_fails_after_collecting_when_asked():
    """What the diagnose node's extra_data sets is a vllm_serve option, and the diagnose entry's last task fails on it."""
    specs = role_argument_specs(os.path.join(ROOT, 'roles'))
    assert check_role_vars({'vllm_serve_diagnose_fail': True}, specs) == []
    with open(os.path.join(ROOT, 'roles', 'vllm_serve', 'tasks', 'diagnose.yml')) as handle:
        tasks = yaml.safe_load(handle)
    assert 'ansible.builtin.fail' in tasks[-1] and tasks[-1]['when'] == 'vllm_serve_diagnose_fail | bool'
    assert any('ascend.vllm.diagnose_bundle' in task for task in tasks[:-1])


def test_the_inventory_is_sourced_from_an_inventory_of_the_project():
    """The inventory source names a file of this repository that Ansible reads into the collection's platform
    groups, with the group_vars beside it."""
    task = _task('awx.awx.inventory_source')
    play_vars = _play()['vars']
    assert task['source'] == 'scm' and task['source_project'] == '{{ awx_name }}'
    assert task['source_path'] == '{{ awx_inventory_source_path }}'
    assert task['inventory'] == '{{ awx_name }}' and task['update_on_launch'] is True
    path = play_vars['awx_inventory_source_path']
    assert os.path.isfile(os.path.join(ROOT, path)), path
    out = subprocess.run([os.path.join(os.path.dirname(sys.executable), 'ansible-inventory'), '-i', path, '--list'],
                         cwd=ROOT, env=dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, 'ansible.cfg')),
                         capture_output=True, text=True, check=True).stdout
    inventory = json.loads(out)
    groups = set(inventory['all']['children'])
    assert groups & set(profile_names()), groups
    hostvars = inventory['_meta']['hostvars']
    assert hostvars
    # group_vars/<platform>.yml beside the file reach the hosts.
    group_vars = os.path.join(ROOT, os.path.dirname(path), 'group_vars')
    assert os.path.isdir(group_vars)
    with open(os.path.join(group_vars, sorted(os.listdir(group_vars))[0])) as handle:
        some = sorted(yaml.safe_load(handle))[0]
    assert all(some in host for host in hostvars.values()), some


def test_every_template_takes_variables_inventory_and_limit_at_launch():
    task = _task('awx.awx.job_template')
    for prompt in ('ask_variables_on_launch', 'ask_inventory_on_launch', 'ask_limit_on_launch'):
        assert task[prompt] is True, prompt
    for workflow in [t['awx.awx.workflow_job_template'] for t in _play()['tasks'] if 'awx.awx.workflow_job_template' in t]:
        for prompt in ('ask_variables_on_launch', 'ask_inventory_on_launch', 'ask_limit_on_launch'):
            assert workflow[prompt] is True, (workflow['name'], prompt)


def test_the_evaluation_takes_its_datasets_at_launch(rendered):
    """No survey asks for the datasets (a list and a dict): launch-time extra variables carry them, and what a user
    gives there is what the eval role accepts."""
    asked = [q['variable'] for q in rendered['eval']['spec']]
    assert 'eval_datasets' not in asked and 'eval_dataset_dirs' not in asked
    specs = role_argument_specs(os.path.join(ROOT, 'roles'))
    launch = {'eval_datasets': ['gsm8k', 'textvqa'],
              'eval_dataset_dirs': {'gsm8k': '/data/gsm8k', 'textvqa': '/data/textvqa'}}
    assert check_role_vars(launch, specs) == []


def test_surveys_rendered_by_ansible_hold_the_catalog(rendered):
    assert sorted(rendered) == sorted(_awx_survey.JOB_TEMPLATES)
    for kind, survey in rendered.items():
        questions = dict((q['variable'], q) for q in survey['spec'])
        assert questions['ascend_vllm_platform']['choices'] == profile_names(), kind
        if 'vllm_serve_model' in questions:
            assert questions['vllm_serve_model']['choices'] == model_names(), kind
        assert survey == awx_survey(kind)


def test_each_survey_asks_only_what_its_playbook_reads(rendered):
    asked = dict((kind, [q['variable'] for q in survey['spec']]) for kind, survey in rendered.items())
    plan = ['ascend_vllm_platform', 'vllm_serve_model', 'vllm_serve_tensor_parallel_size', 'vllm_serve_max_model_len',
            'vllm_serve_max_num_seqs', 'image_pull_tag', 'vllm_serve_port']
    assert asked['preflight'] == asked['deploy'] == asked['upgrade'] == plan
    assert asked['verify'] == ['ascend_vllm_platform', 'vllm_serve_model', 'vllm_serve_port']
    assert asked['eval'] == ['ascend_vllm_platform', 'vllm_serve_model', 'vllm_serve_port', 'eval_limit',
                             'eval_tolerance', 'eval_perf_requests']
    assert asked['teardown'] == ['ascend_vllm_platform', 'image_pull_tag', 'ascend_vllm_teardown_remove_image']
    workflow = [q['variable'] for q in awx_survey('workflow')['spec']]
    assert workflow == plan + ['eval_limit', 'eval_tolerance', 'eval_perf_requests']


def test_survey_answers_pass_the_variable_check(rendered):
    """AWX passes multiple-choice answers as strings and integers as numbers."""
    specs = role_argument_specs(os.path.join(ROOT, 'roles'))
    for question in [q for kind in sorted(rendered) for q in rendered[kind]['spec']]:
        if question['type'] == 'multiplechoice':
            answers = question['choices']
        elif question['type'] == 'integer':
            answers = [question['min'], question['max']]
        elif question['type'] == 'float':
            answers = [float(question['min']), float(question['max'])]
        else:
            answers = ['v0.23.0']
        for answer in answers:
            assert check_role_vars({question['variable']: answer}, specs) == [], (question['variable'], answer)


def test_credential_types_inject_variables_the_roles_accept():
    specs = role_argument_specs(os.path.join(ROOT, 'roles'))
    task = [t for t in _play()['tasks'] if 'awx.awx.credential_type' in t][0]
    assert 'ascend.vllm.awx_credential_types' in task['loop']
    types = awx_credential_types('all')
    assert [t['name'] for t in types] == ['ascend.vllm API key', 'ascend.vllm registry']
    injected = {}
    for kind in types:
        fields = set(field['id'] for field in kind['inputs']['fields'])
        for name, value in kind['injectors']['extra_vars'].items():
            # AWX renders these at launch from the credential's own fields.
            assert value.strip('{} ') in fields, (name, value)
            injected[name] = value
    assert injected['vllm_serve_api_key'] == '{{ api_key }}'
    assert check_role_vars(dict((name, 'x') for name in injected), specs) == []


def _awx_collection_installed():
    import ansible_collections  # pylint: disable=import-outside-toplevel
    return any(os.path.isfile(os.path.join(base, 'awx', 'awx', 'MANIFEST.json')) for base in ansible_collections.__path__)


@pytest.mark.parametrize('extra', [{}, {'awx_scm_url': '  '}], ids=['unset', 'blank'])
def test_the_project_url_is_required(extra, tmp_path):
    """No invented default: without awx_scm_url the play stops at its first task, naming the variable and the fix."""
    if not _awx_collection_installed():
        pytest.skip('awx.awx is not installed (the ansible package of ansible-core 2.21 no longer bundles it)')
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, 'ansible.cfg'), ANSIBLE_NOCOLOR='1',
               CONTROLLER_HOST='https://127.0.0.1:9', ANSIBLE_LOCAL_TEMP=str(tmp_path))
    proc = subprocess.run([os.path.join(os.path.dirname(sys.executable), 'ansible-playbook'), PLAYBOOK,
                           '-e', json.dumps(extra)], cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 2, out
    assert "AWX | Check that the project's git URL is given" in out
    assert 'the project needs the git URL' in out and 'Fix: -e awx_scm_url=GIT_URL' in out, out
    assert 'AWX | Create the project' not in out


# --- every task against the argument spec of its awx.awx module --------------------------------------------------

def _awx_modules():
    """The awx.awx modules package, or a skip: the ansible package of ansible-core 2.20/2.21 bundles no awx.awx."""
    return pytest.importorskip('ansible_collections.awx.awx.plugins.modules',
                               reason='awx.awx is not installed (the units-newer venvs have no awx.awx)')


class _Captured(Exception):
    """Raised by the patched ControllerAPIModule once a module's main() has built its argument spec."""


def _awx_spec(module, monkeypatch):
    """(argument_spec, keyword arguments) exactly as the module's main() passes them to ControllerAPIModule, with the
    connection options every controller module takes (ControllerModule.AUTH_ARGSPEC)."""
    _awx_modules()
    import importlib  # pylint: disable=import-outside-toplevel
    code = importlib.import_module('ansible_collections.awx.awx.plugins.modules.%s' % module)
    captured = {}

    def record(_self, argument_spec=None, **kwargs):
        captured.update(kwargs, argument_spec=argument_spec)
        raise _Captured()

    monkeypatch.setattr(code.ControllerAPIModule, '__init__', record)
    with pytest.raises(_Captured):
        code.main()
    spec = dict(code.ControllerAPIModule.AUTH_ARGSPEC)
    spec.update(captured.pop('argument_spec'))
    keys = ('mutually_exclusive', 'required_together', 'required_one_of', 'required_if', 'required_by')
    return spec, dict((key, captured[key]) for key in keys if captured.get(key))


def _doc_options(module):
    """The module's DOCUMENTATION options, for the suboptions of a dict or list of dicts its code leaves unchecked
    (workflow_nodes, approval_node)."""
    import importlib  # pylint: disable=import-outside-toplevel
    code = importlib.import_module('ansible_collections.awx.awx.plugins.modules.%s' % module)
    return yaml.safe_load(code.DOCUMENTATION)['options']


def _spec_from_doc(options):
    """An argument spec from documented options: type, elements, choices, required, aliases and suboptions."""
    spec = {}
    for name, doc in options.items():
        entry = dict((key, doc[key]) for key in ('type', 'elements', 'choices', 'required', 'aliases') if key in doc)
        if doc.get('suboptions'):
            entry['options'] = _spec_from_doc(doc['suboptions'])
        spec[name] = entry
    return spec


_SCM_URL = 'https://git.example.invalid/ascend-vllm.git'
# An argument the refusal test removes from a shipped call.
_DROP = object()


@pytest.fixture(scope='module')
def awx_calls(tmp_path_factory):
    """Every awx.awx call of playbooks/awx_objects.yml with its arguments as Ansible renders them (loops, omit,
    filters), one (task name, module, arguments) per loop item: the play's tasks with each module call replaced by a
    debug of its arguments, run by ansible-playbook with the play's own vars and the required awx_scm_url."""
    play = _play()
    tasks = []
    for task in play['tasks']:
        modules = [key for key in task if key.startswith('awx.awx.')]
        if not modules:
            continue
        debug = dict((key, task[key]) for key in ('name', 'loop', 'loop_control', 'when') if key in task)
        debug['ansible.builtin.debug'] = {'msg': {'module': modules[0], 'args': task[modules[0]]}}
        tasks.append(debug)
    path = tmp_path_factory.mktemp('awx') / 'calls.yml'
    path.write_text(yaml.safe_dump([{'name': play['name'], 'hosts': 'localhost', 'connection': 'local',
                                     'gather_facts': False, 'vars': play['vars'], 'tasks': tasks}]))
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, 'ansible.cfg'), ANSIBLE_LOAD_CALLBACK_PLUGINS='1',
               ANSIBLE_STDOUT_CALLBACK='ansible.builtin.json')
    out = subprocess.run([os.path.join(os.path.dirname(sys.executable), 'ansible-playbook'), str(path),
                          '-e', json.dumps({'awx_scm_url': _SCM_URL})],
                         cwd=ROOT, env=env, capture_output=True, text=True, check=True).stdout
    calls = []
    for task in json.loads(out)['plays'][0]['tasks']:
        result = task['hosts']['localhost']
        for item in result.get('results', [result]):
            if item.get('skipped'):
                continue
            calls.append((task['task']['name'], item['msg']['module'], item['msg']['args']))
    return calls


def _problems(module, args, monkeypatch):
    """What the module's own argument spec says about the arguments, nested documented suboptions included."""
    from ansible.module_utils.common.arg_spec import ArgumentSpecValidator  # pylint: disable=import-outside-toplevel
    name = module.split('.')[-1]
    spec, rules = _awx_spec(name, monkeypatch)
    errors = [str(error) for error in ArgumentSpecValidator(spec, **rules).validate(args).errors]
    docs = _doc_options(name)
    for option, value in args.items():
        if spec.get(option, {}).get('options') or not docs.get(option, {}).get('suboptions'):
            continue
        sub = _spec_from_doc(docs[option]['suboptions'])
        for element in (value if isinstance(value, list) else [value]):
            errors += ['%s: %s' % (option, error) for error in ArgumentSpecValidator(sub).validate(element).errors]
    return errors


def test_every_awx_module_call_is_rendered(awx_calls):
    """The fixture saw every module call of the play, each loop item once."""
    modules = [module for _name, module, _args in awx_calls]
    kinds = len(_templates())
    assert modules == (['awx.awx.project', 'awx.awx.inventory', 'awx.awx.inventory_source']
                       + ['awx.awx.credential_type'] * len(awx_credential_types('all'))
                       + ['awx.awx.job_template'] * kinds
                       + ['awx.awx.workflow_job_template'] * 2
                       + ['awx.awx.workflow_job_template_node'] * len(_play()['vars']['awx_upgrade_workflow_nodes']))


def test_every_awx_task_passes_its_module_argument_spec(awx_calls, monkeypatch):
    """awx.awx's own argument specs (the installed 24.6.1): names, types, choices, required options, mutually
    exclusive ones, and the documented suboptions of the workflow nodes and the approval node."""
    for name, module, args in awx_calls:
        assert _problems(module, args, monkeypatch) == [], (name, args.get('name') or args.get('identifier'))


@pytest.mark.parametrize('module, change, expected', [
    ('awx.awx.inventory_source', {'source': 'git'}, 'value of source must be one of'),
    ('awx.awx.job_template', {'ask_variables_on_launch': 'sometimes'}, 'ask_variables_on_launch'),
    ('awx.awx.job_template', {'ask_prompts_on_launch': True}, 'ask_prompts_on_launch'),
    ('awx.awx.workflow_job_template_node', {'unified_job_template': 'ascend.vllm upgrade'}, 'mutually exclusive'),
    ('awx.awx.workflow_job_template_node', {'approval_node': {'timeout': 60}}, 'approval_node: missing required'),
    ('awx.awx.workflow_job_template', {'workflow_nodes': [{'identifier': 'x', 'related': {'succes_nodes': []}}]},
     'succes_nodes'),
    ('awx.awx.job_template', {'name': _DROP}, 'missing required arguments: name'),
])
def test_the_argument_spec_check_refuses_what_awx_would(awx_calls, monkeypatch, module, change, expected):
    """The same check on a shipped call with one mistake AWX's module would refuse: it reports it."""
    calls = [args for _name, called, args in awx_calls if called == module]
    base = [args for args in calls if 'approval_node' in args] if module.endswith('_node') else calls
    args = dict((key, value) for key, value in dict(base[0], **change).items() if value is not _DROP)
    problems = _problems(module, args, monkeypatch)
    assert any(expected in problem for problem in problems), problems
