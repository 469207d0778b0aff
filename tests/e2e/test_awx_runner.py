"""The workflow preflight -> deploy -> verify -> eval run the way AWX runs it: each node's job through
ansible-runner over its own private data directory, in order, the next only when the one before succeeded
(diagnose, the failure path of deploy and verify, when it failed).

What AWX (awx/main/tasks/jobs.py, RunJob; project_update.yml; models/mixins.py for surveys) does for a
launch of the "ascend.vllm workflow" (and of the "ascend.vllm deploy" template alone), done here step by
step against one simulated Atlas 300I DUO node (tests/sim), with the playbooks and plugins of this
checkout; the templates, their credentials and the workflow's nodes are read from playbooks/awx_objects.yml:

- ``project/``: the repository as its git checkout has it (tracked files and new ones git does
  not ignore; no ``.ansible`` link to the checkout, no ``.venv``).
- project sync: ``ansible-galaxy collection install -r collections/requirements.yml -p
  requirements_collections`` in the checkout, so the collection comes from
  ``collections/requirements.yml`` and community.docker from the execution environment (here the
  ``ansible`` package of the venv), never from the development setup.
- ``inventory/hosts``: the executable script AWX writes (the inventory as JSON with ``_meta``).
- ``env/extravars``: AWX's meta variables plus the survey answers, checked against the survey the
  collection itself generates (the ``ascend.vllm.awx_survey`` filter of the installed copy; the
  workflow's survey for a workflow node, whose answers and launch-time variables AWX passes to every
  node's job) with AWX's rules, survey defaults applied as AWX applies them, every string marked
  ``!unsafe`` as AWX's ``safe_dump`` marks launch-time variables.
- the credentials each template takes (awx_objects.yml): the machine credential as AWX passes it
  (``-u`` its username; no password or key here, the node is a container), and the API key
  credential: its type from ``ascend.vllm.awx_credential_types``, the extra_vars injector rendered as
  AWX renders it into a file under ``env/``, passed as ``-e @file`` in ``env/cmdline``;
  ``env/passwords`` holds the prompts AWX answers (no password to give).
- ``env/envvars``: AWX's ANSIBLE_* settings and its collections and roles paths, the synced
  ``requirements_collections`` first; ``env/settings`` AWX's runner settings.

``ansible-runner run`` then runs the template's playbook with the project as the working directory and
no ANSIBLE_CONFIG, so the project's own ansible.cfg applies as it does in AWX; the eval node's report
lands in ``eval-results/`` of that directory.
"""
import configparser
import json
import os
import re
import secrets
import shlex
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml
from jinja2.sandbox import ImmutableSandboxedEnvironment

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
sys.path.insert(0, str(ROOT / "tests" / "sim"))
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
import sim  # noqa: E402  pylint: disable=wrong-import-position
import eval_datasets  # noqa: E402  pylint: disable=wrong-import-position
from eval_site import prepare_node  # noqa: E402  pylint: disable=wrong-import-position

NODE = os.environ.get("AWX_RUNNER_NODE", "runner-awx-duo")
JOB_TIMEOUT = 900
# What an operator answers in the workflow survey (blank questions are not sent, as AWX's UI does):
# the deploy's questions, then the evaluation's (the stand-in answers 3 of 4 gsm8k questions right,
# 75.00 against the guide's 93.18 for Qwen3.5-4B: a tolerance of 25 points passes the gate).
DEPLOY_ANSWERS = {"vllm_serve_model": "Qwen/Qwen3.5-4B", "vllm_serve_tensor_parallel_size": "2",
                  "vllm_serve_max_model_len": 8192, "vllm_serve_max_num_seqs": 8, "vllm_serve_port": 8011}
EVAL_ANSWERS = {"eval_tolerance": 25.0, "eval_perf_requests": 4}
WORKFLOW_ANSWERS = dict(DEPLOY_ANSWERS, **EVAL_ANSWERS)
# Launch-time variables of the workflow (ask_variables_on_launch) for what no survey asks.
EVAL_LAUNCH_VARS = {"eval_concurrency": [1, 2], "eval_perf_input_len": 16, "eval_perf_output_len": 12,
                    "eval_batch_size": 4, "eval_run_id": "awx-workflow"}
# Answers the survey accepts and preflight refuses: the longest context the catalog allows with
# the most sequences the survey allows cannot fit in a 310P chip's memory.
TOO_BIG = {"vllm_serve_tensor_parallel_size": "1", "vllm_serve_max_num_seqs": 1024}


class SurveyError(ValueError):
    """AWX refuses the launch: an answer breaks the survey's rules."""


def _element_errors(question, answers):
    """AWX's _survey_element_validation for the question types the collection's surveys use."""
    name, kind = question["variable"], question["type"]
    if name not in answers:
        return ["%s value missing" % name] if question["required"] else []
    value = answers[name]
    if kind == "multiplechoice":
        return [] if value in question["choices"] else ["%s: %r not one of %s" % (name, value, question["choices"])]
    if kind == "integer":
        # AWX checks the exact type (a bool is refused too).
        if type(value) is not int:  # pylint: disable=unidiomatic-typecheck
            return ["%s: %r is not an integer" % (name, value)]
        size = value
    elif kind == "float":
        if type(value) not in (int, float):  # pylint: disable=unidiomatic-typecheck
            return ["%s: %r is not a number" % (name, value)]
        size = value
    elif kind in ("text", "textarea", "password"):
        if not isinstance(value, str):
            return ["%s: %r is not a string" % (name, value)]
        size = len(value)
    else:
        raise AssertionError("question type %s is not handled here" % kind)
    low, high = question.get("min"), question.get("max")
    if low not in ("", None) and size < int(low) or high not in ("", None) and size > int(high):
        return ["%s: %r outside %s..%s" % (name, value, low, high)]
    return []


def survey_extra_vars(survey, answers):
    """The job's extra variables from a survey answer, as AWX builds them at launch.

    Every default that passes the question's own rules is applied (JobTemplate's
    _update_unified_job_kwargs), then the answers, each of which must pass them.
    """
    questions = {question["variable"]: question for question in survey["spec"]}
    unknown = sorted(set(answers) - set(questions))
    errors = ["%s is not a survey question" % name for name in unknown]
    extra_vars = {}
    for name, question in questions.items():
        if question.get("default") is not None and not _element_errors(question, {name: question["default"]}):
            extra_vars[name] = question["default"]
        errors += _element_errors(question, answers)
    if errors:
        raise SurveyError("; ".join(errors))
    extra_vars.update(answers)
    return extra_vars


class _UnsafeDumper(yaml.SafeDumper):
    """AWX's SafeStringDumper: every string is tagged !unsafe, so Ansible never templates it."""

    def represent_data(self, data):
        if isinstance(data, str):
            return self.represent_scalar("!unsafe", data)
        return super().represent_data(data)


def awx_safe_dump(data):
    return "".join(yaml.dump({key: value}, Dumper=_UnsafeDumper, default_flow_style=False)
                   for key, value in data.items())


def _write(path, text, mode=0o600):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(mode)
    return path


def checkout(dest):
    """The repository's files as a git checkout of this revision has them."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            check=True, capture_output=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        src = ROOT / rel
        if src.is_file() and not src.is_symlink():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            (dest / rel).write_bytes(src.read_bytes())
            (dest / rel).chmod(src.stat().st_mode & 0o777)


def awx_env(overrides=None):
    """The controller-side environment: no ANSIBLE_* of this shell (the Makefile's ANSIBLE_CONFIG included)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("ANSIBLE_")}
    env["PATH"] = str(BIN) + os.pathsep + env.get("PATH", "")
    env.update(overrides or {})
    return env


def project_sync(pdd):
    """What AWX's project update does with collections/requirements.yml (GALAXY_TASK_ENV)."""
    proc = subprocess.run([str(BIN / "ansible-galaxy"), "collection", "install", "-r", "collections/requirements.yml",
                           "-p", str(pdd / "requirements_collections")], cwd=pdd / "project",
                          env=awx_env({"ANSIBLE_FORCE_COLOR": "false"}), capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return pdd / "requirements_collections"


def awx_objects():
    """The job templates (kind, playbook, credentials) and the workflow's nodes, as playbooks/awx_objects.yml
    declares them for AWX."""
    with open(ROOT / "playbooks" / "awx_objects.yml") as handle:
        play = yaml.safe_load(handle)[0]
    templates = {t["kind"]: t for t in play["vars"]["awx_job_templates"]}
    # The site workflow (its nodes inline); the upgrade workflow's nodes are tasks of their own.
    [workflow] = [task["awx.awx.workflow_job_template"] for task in play["tasks"]
                  if "workflow_nodes" in (task.get("awx.awx.workflow_job_template") or {})]
    return templates, workflow["workflow_nodes"]


def collection_objects(pdd, collections, survey):
    """A survey (a template's or the workflow's) and the credential types, rendered by the synced copy of the
    collection (the only ascend.vllm on ANSIBLE_COLLECTIONS_PATH), as playbooks/awx_objects.yml renders them."""
    expression = ("{{ {'survey': '%s' | ascend.vllm.awx_survey,"
                  " 'credential_types': 'all' | ascend.vllm.awx_credential_types} }}" % survey)
    env = awx_env({"ANSIBLE_COLLECTIONS_PATH": str(collections), "ANSIBLE_STDOUT_CALLBACK": "ansible.builtin.json",
                   "ANSIBLE_LOAD_CALLBACK_PLUGINS": "1"})
    proc = subprocess.run([str(BIN / "ansible"), "localhost", "-m", "ansible.builtin.debug", "-a", "msg=" + expression],
                          cwd=pdd / "project", env=env, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(proc.stdout)["plays"][0]["tasks"][0]["hosts"]["localhost"]["msg"]


def inventory_script(pdd, registry):
    """inventory/hosts the way AWX writes it (RunJob.build_inventory): a script printing JSON."""
    hostvars = {NODE: {"ansible_connection": "community.docker.docker", "ansible_host": "ascend-sim-" + NODE,
                       "ansible_python_interpreter": "/usr/bin/python3",
                       "remote_tower_enabled": "true", "remote_tower_id": 1}}
    data = {"all": {"children": ["atlas_300i_duo", "ungrouped"],
                    "vars": {"image_pull_registries": [registry], "vllm_serve_ready_poll_interval": 1,
                             "vllm_serve_ready_timeout": 120}},
            "atlas_300i_duo": {"hosts": [NODE]},
            "_meta": {"hostvars": hostvars}}
    text = "#! /usr/bin/env python3\n# -*- coding: utf-8 -*-\nprint(%r)\n" % json.dumps(data)
    return _write(pdd / "inventory" / "hosts", text, stat.S_IRUSR | stat.S_IWUSR | stat.S_IXUSR)


def inject_credential(pdd, credential_type, inputs):
    """CredentialType.inject_credential for extra_vars injectors: -e @env/tmpXXXX."""
    sandbox = ImmutableSandboxedEnvironment()
    extra_vars = {name: sandbox.from_string(template).render(**inputs)
                  for name, template in credential_type["injectors"]["extra_vars"].items()}
    handle, path = tempfile.mkstemp(dir=str(pdd / "env"))
    with os.fdopen(handle, "w") as out:
        out.write(awx_safe_dump(extra_vars))
    os.chmod(path, stat.S_IRUSR)
    return ["-e", "@" + path]


def job_envvars(pdd, job_id):
    """RunJob.build_env: AWX's ANSIBLE_* settings, job ids and its content paths (synced content first).

    AWX's own callback plugin (indirect_instance_count) is left out: it ships with AWX, not with Ansible.
    """
    config = {}
    parser = configparser.ConfigParser()
    parser.read(str(pdd / "project" / "ansible.cfg"))
    if parser.has_section("defaults"):
        config = dict(parser.items("defaults"))
    env = {"ANSIBLE_HOST_KEY_CHECKING": "False", "ANSIBLE_PARAMIKO_RECORD_HOST_KEYS": "False",
           "ANSIBLE_FORCE_COLOR": "True", "ANSIBLE_INVENTORY_UNPARSED_FAILED": "True",
           "AWX_PRIVATE_DATA_DIR": str(pdd), "JOB_ID": str(job_id), "INVENTORY_ID": "1",
           "PROJECT_REVISION": "0" * 40, "ANSIBLE_RETRY_FILES_ENABLED": "False", "MAX_EVENT_RES": "700000",
           "AWX_HOST": "https://awx.example.com", "ANSIBLE_SSH_CONTROL_PATH_DIR": str(pdd / "cp"),
           "HOME": str(pdd / "home")}
    for key, setting, folder, default in (
            ("ANSIBLE_ROLES_PATH", "roles_path", "requirements_roles",
             "~/.ansible/roles:/usr/share/ansible/roles:/etc/ansible/roles"),
            ("ANSIBLE_COLLECTIONS_PATH", "collections_path", "requirements_collections",
             "~/.ansible/collections:/usr/share/ansible/collections")):
        paths = default.split(":")
        if setting in config and config[setting] not in paths:
            paths = [config[setting]] + paths
        env[key] = os.pathsep.join([str(pdd / folder)] + paths)
    (pdd / "cp").mkdir(mode=0o700, exist_ok=True)
    (pdd / "home").mkdir(mode=0o700, exist_ok=True)
    return env


# RunJob.get_password_prompts; without a machine or vault credential every answer is empty.
PASSWORD_PROMPTS = [r"Enter passphrase for .*:\s*?$", r"Bad passphrase, try again for .*:\s*?$",
                    r"sudo password.*:\s*?$", r"SUDO password.*:\s*?$", r"su password.*:\s*?$",
                    r"SU password.*:\s*?$", r"BECOME password.*:\s*?$", r"SSH password:\s*?$",
                    r"Password:\s*?$", r"Vault password:\s*?$"]


class Job:
    """One job of a template (alone, or as a workflow node): its private data directory, then ansible-runner."""

    def __init__(self, pdd, job_id, registry, template, answers, api_key, survey=None, launch_vars=None,
                 workflow=None):
        self.pdd, self.ident, self.template = pdd, str(job_id), template
        (pdd / "project").mkdir(parents=True)
        checkout(pdd / "project")
        self.collections = project_sync(pdd)
        objects = collection_objects(pdd, self.collections, survey or template["kind"])
        self.survey = objects["survey"]
        extra_vars = {"awx_job_id": job_id, "tower_job_id": job_id, "awx_job_launch_type": "manual",
                      "awx_job_template_name": "ascend.vllm %s" % template["kind"], "awx_project_revision": "0" * 40,
                      "awx_inventory_name": "ascend.vllm", "awx_user_name": "admin"}
        if workflow:
            extra_vars.update({"awx_workflow_job_id": workflow, "awx_workflow_job_name": "ascend.vllm workflow",
                               "awx_job_launch_type": "workflow"})
        extra_vars.update(survey_extra_vars(self.survey, answers))
        extra_vars.update(launch_vars or {})
        self.extra_vars = extra_vars
        _write(pdd / "env" / "extravars", awx_safe_dump(extra_vars), stat.S_IRUSR)
        args = []
        if "machine" in template["credentials"]:
            # The machine credential's username (RunJob.build_args); no password or key for a container node.
            args += ["-u", "root"]
        if "api_key" in template["credentials"]:
            [key_type] = [t for t in objects["credential_types"] if t["name"] == "ascend.vllm API key"]
            args += inject_credential(pdd, key_type, {"api_key": api_key})
        self.args = args
        _write(pdd / "env" / "cmdline", " ".join(shlex.quote(arg) for arg in args), stat.S_IRUSR)
        _write(pdd / "env" / "envvars", yaml.safe_dump(job_envvars(pdd, job_id)))
        _write(pdd / "env" / "passwords", yaml.safe_dump({prompt: "" for prompt in PASSWORD_PROMPTS}))
        _write(pdd / "env" / "settings", yaml.safe_dump({"job_timeout": JOB_TIMEOUT, "suppress_ansible_output": True,
                                                         "suppress_output_file": True}))
        inventory_script(pdd, registry)

    def run(self):
        proc = subprocess.run([str(BIN / "ansible-runner"), "run", str(self.pdd), "-p", self.template["playbook"],
                               "--ident", self.ident], cwd=str(self.pdd), env=awx_env(),
                              capture_output=True, text=True, timeout=JOB_TIMEOUT + 60, check=False)
        self.artifacts = self.pdd / "artifacts" / self.ident
        return proc

    def status(self):
        return (self.artifacts / "status").read_text().strip(), (self.artifacts / "rc").read_text().strip()

    def events(self):
        files = sorted((self.artifacts / "job_events").glob("*.json"), key=lambda p: int(p.name.split("-")[0]))
        return [json.loads(path.read_text()) for path in files]

    def transcript(self, tail=6000):
        """The job's output as AWX shows it (the events' stdout, without colours), for failure messages."""
        text = "\n".join(event.get("stdout", "") for event in self.events())
        return re.sub(r"\x1b\[[0-9;]*m", "", text)[-tail:]

    def stats(self):
        [stats] = [event["event_data"] for event in self.events() if event["event"] == "playbook_on_stats"]
        return stats


def node_state():
    """What a run could change on the node: its containers (id, state, start, command) and images."""
    ids = sim.exec_node(NODE, ["docker", "ps", "-aq", "--no-trunc"]).stdout.split()
    containers = []
    for cid in ids:
        info = json.loads(sim.exec_node(NODE, ["docker", "inspect", cid]).stdout)[0]
        containers.append((info["Id"], info["Name"], info["State"]["Status"], info["State"]["StartedAt"],
                           info["RestartCount"], info["Config"]["Cmd"]))
    images = sorted(sim.exec_node(NODE, ["docker", "images", "-q", "--no-trunc"]).stdout.split())
    return sorted(containers), images


def vllm_container():
    ids = sim.exec_node(NODE, ["docker", "ps", "-aq", "--filter", "label=ascend.vllm.managed-by=ascend.vllm"])
    [cid] = ids.stdout.split()
    return json.loads(sim.exec_node(NODE, ["docker", "inspect", cid]).stdout)[0]


def run_workflow(base, registry, key, launch_vars):
    """The workflow's nodes as AWX walks them: from its first node, each node's success nodes when its job
    succeeded, its failure nodes (diagnose) when it failed; each a job of its template with the workflow's survey
    answers, its launch variables and the node's own extra_data."""
    templates, nodes = awx_objects()
    by_id = {node["identifier"]: node for node in nodes}
    ran, node = [], nodes[0]
    while node:
        job = Job(base / node["identifier"], 41 + len(ran), registry, templates[node["identifier"]], WORKFLOW_ANSWERS,
                  key, survey="workflow", launch_vars=dict(node.get("extra_data") or {}, **launch_vars), workflow=40)
        job.proc = job.run()
        ran.append(job)
        after = node.get("related", {}).get("success_nodes" if job.status()[0] == "successful" else "failure_nodes")
        node = by_id[after[0]["identifier"]] if after else None
    return ran


@pytest.fixture(scope="module")
def jobs(tmp_path_factory):
    """The workflow launched with a survey answer, then the deploy template alone with an answer preflight refuses."""
    if not sim.docker_ok():
        pytest.fail("no Docker Engine answers: run `make setup images` first")
    info = sim.up([sim.NodeSpec.parse(NODE + ":atlas_300i_duo")], inventory=tmp_path_factory.mktemp("sim") / "sim.yml")
    try:
        prepare_node(NODE)
        data = tmp_path_factory.mktemp("data")
        launch_vars = dict(EVAL_LAUNCH_VARS,
                           eval_dataset_dirs={"gsm8k": str(eval_datasets.write_gsm8k(data / "gsm8k", train=False))})
        key = "sk-awx-" + secrets.token_hex(16)
        workflow = run_workflow(tmp_path_factory.mktemp("workflow"), info["registry"], key, launch_vars)
        deploy = {job.template["kind"]: job for job in workflow}.get("deploy")
        deploy.container = vllm_container() if deploy and deploy.status()[0] == "successful" else None
        before = node_state()
        limit = max(int(q["max"]) for q in deploy.survey["spec"] if q["variable"] == "vllm_serve_max_model_len")
        templates, _nodes = awx_objects()
        refused = Job(tmp_path_factory.mktemp("job") / "pdd", 52, info["registry"], templates["deploy"],
                      dict(TOO_BIG, vllm_serve_max_model_len=limit), key)
        refused.proc = refused.run()
        yield {"key": key, "workflow": workflow, "deploy": deploy, "refused": refused, "before": before,
               "after": node_state(), "launch_vars": launch_vars}
    finally:
        sim.down([NODE])


def test_the_workflow_runs_every_node_in_order(jobs):
    workflow = jobs["workflow"]
    for job in workflow:
        assert job.status() == ("successful", "0"), (job.template["kind"], job.transcript() + job.proc.stderr[-2000:])
    assert [job.template["kind"] for job in workflow] == ["preflight", "deploy", "verify", "eval"]
    assert [job.template["playbook"] for job in workflow] == ["playbooks/preflight.yml", "site.yml",
                                                              "playbooks/verify.yml", "playbooks/eval.yml"]
    # Each ran its own playbook: the plays AWX shows for it.
    # ("Hosts" is each playbook's controller-side host selection, playbooks/hosts.yml.)
    plays = [sorted(set(e["event_data"]["play"].split(" | ")[0] for e in job.events()
                        if e["event"] == "playbook_on_play_start") - {"Hosts"})
             for job in workflow]
    assert plays[0] == ["Preflight"] and plays[2] == ["Verify"] and plays[3] == ["Eval"], plays
    assert {"Preflight", "Deploy", "Verify", "Summary"} <= set(plays[1]), plays


def test_each_job_gets_the_credentials_its_template_takes(jobs):
    for job in jobs["workflow"]:
        assert job.args[:2] == ["-u", "root"], job.args
        # Every node of this workflow deploys or sends the API key: the credential's file, never the key itself.
        assert job.args[2] == "-e" and job.args[3].startswith("@" + str(job.pdd / "env")), job.args
        assert jobs["key"] not in " ".join(job.args)
    templates, _nodes = awx_objects()
    assert templates["teardown"]["credentials"] == ["machine"]


def test_the_eval_node_reports_where_the_job_ran(jobs):
    """eval_report_dir's default, relative: under the job's working directory (the project), with the run's
    provenance read on the node."""
    [evaluation] = [job for job in jobs["workflow"] if job.template["kind"] == "eval"]
    run = evaluation.pdd / "project" / "eval-results" / "awx-workflow"
    raw = json.loads((run / "results.json").read_text())
    (inst,) = raw["results"][NODE]
    assert inst["model"] == "Qwen/Qwen3.5-4B" and inst["port"] == 8011
    assert inst["accuracy"]["gsm8k"]["accuracy"] == 75.0 and raw["failures"] == [] and raw["tolerance"] == 25.0
    assert [lv["concurrency"] for lv in inst["performance"]] == [1, 2]
    assert all(lv["requests"] == 4 and lv["failed"] == 0 for lv in inst["performance"])
    (prov,) = raw["provenance"][NODE]["instances"]
    assert prov["container"] == jobs["deploy"].container["Name"].lstrip("/")
    assert prov["argv"] == (jobs["deploy"].container["Config"]["Entrypoint"] or []) + jobs["deploy"].container["Config"]["Cmd"]
    assert prov["digest"].startswith("sha256:") and raw["provenance"][NODE]["node"]["driver"] != "unknown"
    assert (run / "compare.png").is_file() and (run / "summary.md").is_file()
    assert jobs["key"] not in "".join(path.read_text(errors="replace") for path in run.iterdir() if path.is_file())


def test_the_deploy_job_succeeds_with_per_host_stats(jobs):
    deploy = jobs["deploy"]
    assert deploy.status() == ("successful", "0"), deploy.transcript() + deploy.proc.stderr[-2000:]
    stats = deploy.stats()
    assert stats["ok"][NODE] > 0 and stats["changed"][NODE] > 0
    for outcome in ("failures", "dark", "rescued"):
        assert stats[outcome] == {}, (outcome, stats)
    assert set(stats["ok"]) == {NODE}


def test_only_the_answered_questions_become_variables(jobs):
    """Blank questions pass nothing (AWX applies a survey default that passes its own rules)."""
    for job in jobs["workflow"]:
        answered = {name: value for name, value in job.extra_vars.items() if not name.startswith(("awx_", "tower_"))}
        assert answered == dict(WORKFLOW_ANSWERS, **jobs["launch_vars"])


def test_the_survey_answer_and_the_credential_reach_the_server(jobs):
    container = jobs["deploy"].container
    cmd = " ".join(container["Config"]["Cmd"])
    assert "Qwen3.5-4B" in cmd
    for flag, value in (("--max-model-len", "8192"), ("--max-num-seqs", "8"), ("--tensor-parallel-size", "2")):
        assert re.search(r"%s[ =]%s(\s|$)" % (flag, value), cmd), (flag, cmd)
    assert re.search(r"--port[ =]8011(\s|$)", cmd), cmd
    assert container["HostConfig"]["PortBindings"]["8011/tcp"][0]["HostPort"] == "8011"
    assert "VLLM_API_KEY=" + jobs["key"] in container["Config"]["Env"]


@pytest.mark.parametrize("answer", [{"vllm_serve_max_model_len": 10 ** 7}, {"vllm_serve_max_num_seqs": "8"},
                                    {"vllm_serve_model": "Qwen/Qwen3.5-70B"}, {"image_pull_tag": ""},
                                    {"vllm_serve_api_key": "x"}, {"eval_tolerance": "5"}, {"eval_tolerance": 101.0}])
def test_awx_refuses_an_answer_outside_the_survey(jobs, answer):
    """The launch never reaches the playbook: AWX checks answers against the generated survey."""
    with pytest.raises(SurveyError, match=next(iter(answer))):
        survey_extra_vars(jobs["deploy"].survey, answer)


def test_the_events_hold_the_smoke_tests_completion(jobs):
    ready = [event["event_data"] for event in jobs["deploy"].events()
             if event["event"] == "runner_on_ok" and event["event_data"].get("task_action") == "ascend.vllm.vllm_ready"]
    assert [data["host"] for data in ready] == [NODE]
    # The roles ran from the collection the project sync installed, not from this checkout.
    assert ready[0]["task_path"].startswith(str(jobs["deploy"].collections) + os.sep), ready[0]["task_path"]
    result = ready[0]["res"]
    assert result["state"] == "ready" and result["completion"].strip() and result["chat"].strip()
    assert result["models"] == [ready[0]["res"]["invocation"]["module_args"]["served_model_name"]]


def test_no_secret_in_the_artifacts(jobs):
    key = jobs["key"].encode()
    # Where AWX put it (the credential's extra vars file), so the search below can find it.
    assert any(key in path.read_bytes() for path in (jobs["deploy"].pdd / "env").iterdir())
    for job in jobs["workflow"] + [jobs["refused"]]:
        files = [path for path in job.artifacts.rglob("*") if path.is_file()]
        assert files, job.artifacts
        assert [str(path) for path in files if key in path.read_bytes()] == []


def test_a_refused_answer_fails_in_preflight_and_leaves_the_node_alone(jobs):
    refused = jobs["refused"]
    status, rc = refused.status()
    assert (status, rc != "0") == ("failed", True), refused.transcript()
    failed = [event["event_data"] for event in refused.events() if event["event"] == "runner_on_failed"]
    assert failed, [event["event"] for event in refused.events()]
    # One failure, in preflight's judge on the controller, naming the answer, its value and the fix.
    assert [data["play"].split(" | ")[0] for data in failed] == ["Preflight"], [(d["play"], d["task"]) for d in failed]
    message = failed[0]["res"]["msg"]
    assert "vllm_serve_max_model_len=%d" % refused.extra_vars["vllm_serve_max_model_len"] in message, message
    assert "nothing was pulled or started" in message and "Fix:" in message, message
    # The judge is the collection's host_plan action, run by the project's preflight playbook.
    assert failed[0]["task_action"] == "ascend.vllm.host_plan", failed[0]
    assert failed[0]["task_path"].split(":")[0].endswith(os.path.join("playbooks", "preflight.yml")), failed[0]
    assert refused.stats()["failures"].get(NODE) and refused.stats()["changed"] == {}, refused.stats()
    assert jobs["after"] == jobs["before"]
