# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""No invented addresses: what the collection ships and tells users points only at places that exist.

The collection has no public repository, Galaxy namespace or GitHub account (README.md "Install": a
checkout or a tarball built from one). Every http(s) URL in what ships (README, galaxy.yml, docs,
roles, plugins, playbooks, inventories, meta, the changelog, the execution environment and the
collection requirements) is a loopback address, a reserved example domain (RFC 2606), a template,
or one of the external addresses below, each checked when it was added. Plugin authors name no
GitHub account.
"""

import os
import re

import pytest
import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
SCANNED = ('README.md', 'galaxy.yml', 'execution-environment.yml', 'CHANGELOG.rst', 'collections', 'docs', 'meta',
           'roles', 'plugins', 'playbooks', 'inventories', 'changelogs')
# External addresses that exist, and why they are named.
EXTERNAL = {
    'https://github.com/openai/grade-school-math': 'gsm8k, the dataset the eval role reads (its own repository)',
    'https://hf-mirror.com': 'a Hugging Face mirror, an example value of HF_ENDPOINT',
    'https://index.docker.io/v1/': "Docker Hub's key in a Docker client's config.json auths (the pull watcher reads credentials)",
    # Huawei's pages the versions matrix and the NPU Exporter docs cite: each read (title and content as
    # the docs quote them) through the stored copies of public documentation, 2026-12-01.
    'https://www.hiascend.com/document/detail/en/CANNCommunityEdition/910/softwareinst/releasenote/9.1.0/release-notes.md':
        'CANN 9.1.0 Release Notes (CANN and Ascend HDK version compatibility)',
    'https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/910/softwareinst/releasenote/9.1.0/release-notes.md':
        'CANN 9.1.0 版本说明, the same table in Chinese',
    'https://www.hiascend.com/document/detail/en/CANNCommunityEdition/910/softwareinst/releasenote/9.1.1/release-notes_en.md':
        'CANN 9.1.1 Release Notes (the 9.1.X compatibility row)',
    'https://www.hiascend.com/document/detail/en/CANNCommunityEdition/920/softwareinst/releasenote/9.2.0/release-notes.md':
        'CANN 9.2.0 Release Notes (the 9.1.X compatibility row)',
    'https://www.hiascend.com/document/detail/zh/canncommercial/latest/softwareinst/instg/instg_0005.html':
        'CANN installation guide, installing the NPU driver and firmware',
    'https://hiascend.com/document/detail/zh/mindie/100/envdeployment/instg/mindie_instg_0006.html':
        'MindIE installation guide naming the Atlas inference card driver and firmware guide',
    'https://www.hiascend.com/document/detail/en/mindcluster/730/clustersched/schedulingug/dlug_installation_004.html':
        'MindCluster 7.3.0 software dependencies',
    'https://www.hiascend.com/document/detail/en/mindcluster/730/clustersched/schedulingug/dlug_api_115.html':
        'MindCluster 7.3.0, NPU Exporter API page',
    # vllm-ascend docs/source/installation.md and Dockerfile.310p at tag v0.23.0 (read in the stored copy of the
    # repository, 2026-12-02): the source build clones these two and installs vLLM with this extra index.
    'https://prometheus.io/docs/concepts/jobs_instances': "Prometheus's own page on up, the series the monitoring files' InstanceDown alert reads",
    'https://github.com/vllm-project/vllm': 'vLLM, cloned at the release tag by vllm-ascend\'s source install',
    'https://github.com/vllm-project/vllm-ascend.git': 'vllm-ascend, cloned at the release tag (installation.md)',
    'https://download.pytorch.org/whl/cpu/': "PyTorch's CPU index, Dockerfile.310p's --extra-index for vLLM",
    # vllm-ascend .gitmodules at tag v0.23.0 (read in the stored copy of the repository): its catlass submodule.
    'https://gitcode.com/cann/catlass.git': "the catlass submodule vllm-ascend's .gitmodules names at v0.23.0",
}
LOCAL_HOSTS = ('127.0.0.1', 'localhost', '[::1]')
URL = re.compile(r'https?://[^\s)"\'<>`\]]+')


def _files():
    for entry in SCANNED:
        path = os.path.join(ROOT, entry)
        if os.path.isfile(path):
            yield entry
            continue
        for directory, dirs, files in os.walk(path):
            dirs[:] = [d for d in dirs if d != '__pycache__']
            for name in sorted(files):
                if name.endswith(('.md', '.rst', '.yml', '.yaml', '.py', '.j2', '.cfg', '.txt')):
                    yield os.path.relpath(os.path.join(directory, name), ROOT)


def _acceptable(url):
    rest = url.split('://', 1)[1]
    host = rest.split('/', 1)[0].rsplit(':', 1)[0] if not rest.startswith('[') else rest.split(']', 1)[0] + ']'
    if any(mark in url for mark in ('{', '%', '...')) or host.isupper() or host == '':
        return True  # a template or a placeholder (http://ADDRESS:PORT), not an address
    if host in LOCAL_HOSTS or re.match(r'^(.+\.)?example(\.(com|org|net))?$', host):
        return True
    return any(url == known or url.startswith(known.rstrip('/') + '/') for known in EXTERNAL)


def test_the_scan_sees_the_files_it_should():
    files = set(_files())
    assert {'README.md', 'galaxy.yml', 'docs/getting-started.md', 'docs/zh_CN/getting-started.md',
            'playbooks/awx_objects.yml', 'plugins/module_utils/evaluation/_eval.py'} <= files


@pytest.mark.parametrize('path', sorted(_files()))
def test_every_url_exists_or_is_an_example(path):
    with open(os.path.join(ROOT, path), encoding='utf-8') as handle:
        text = handle.read()
    unknown = [url.rstrip('.,;:') for url in URL.findall(text) if not _acceptable(url.rstrip('.,;:'))]
    assert unknown == [], ('%s names addresses nobody checked: %s. Use one that exists (and add it to EXTERNAL '
                           'with where it comes from), an example.com placeholder, or none' % (path, unknown))


def test_galaxy_yml_invents_no_home():
    with open(os.path.join(ROOT, 'galaxy.yml')) as handle:
        galaxy = yaml.safe_load(handle)
    for key in ('repository', 'documentation', 'homepage', 'issues'):
        assert key not in galaxy or _acceptable(galaxy[key]), (key, galaxy[key])


def test_plugin_authors_name_no_github_account():
    """ansible-test accepts `Name (@github-handle)` or `Name (!UNKNOWN)`; the project has no handle."""
    found = []
    for directory, _dirs, files in os.walk(os.path.join(ROOT, 'plugins')):
        for name in files:
            if name.endswith('.py'):
                path = os.path.join(directory, name)
                with open(path) as handle:
                    found += ['%s: %s' % (os.path.relpath(path, ROOT), line.strip())
                              for line in handle if re.search(r'\(@[\w-]+\)', line)]
    assert found == []
