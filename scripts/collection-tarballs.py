# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Every collection tarball an offline controller needs: ascend.vllm and its dependencies, without Galaxy.

    python3 scripts/collection-tarballs.py [--output DIR] [--also awx.awx ...]

Builds ascend.vllm from this checkout (``ansible-galaxy collection build``), then each collection it depends on
(galaxy.yml's ``dependencies``), and each of theirs (their MANIFEST.json's ``collection_info.dependencies``), from
the copy installed where this Python finds collections (the ``ansible`` package from PyPI bundles them: today
community.docker and its own dependency community.library_inventory_filtering_v1). An installed copy has no
galaxy.yml, so one is written from its MANIFEST.json before ``ansible-galaxy collection build``. ``--also`` adds a
collection that none depends on but a playbook uses (awx.awx, for playbooks/awx_objects.yml). Prints each
tarball's path; README.md "Install" says what to do with them. Needs ansible-galaxy next to this Python or on PATH.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..'))
# galaxy.yml keys ansible-galaxy reads that a MANIFEST.json's collection_info also carries.
GALAXY_KEYS = ('namespace', 'name', 'version', 'readme', 'authors', 'description', 'license', 'license_file', 'tags',
               'dependencies', 'repository', 'documentation', 'homepage', 'issues')


def galaxy():
    here = os.path.join(os.path.dirname(sys.executable), 'ansible-galaxy')
    return here if os.path.exists(here) else shutil.which('ansible-galaxy') or 'ansible-galaxy'


def installed_copy(fqcn, search=None):
    """The directory of collection ``fqcn`` (namespace.name) installed where this Python (or ``search``) finds it."""
    namespace, name = fqcn.split('.', 1)
    for base in search if search is not None else sys.path:
        path = os.path.join(base, 'ansible_collections', namespace, name)
        if os.path.isfile(os.path.join(path, 'MANIFEST.json')):
            return path
    raise SystemExit('%s is not installed where this Python finds collections: install the `ansible` package '
                     '(pip install ansible), which bundles it, and run this with its Python' % fqcn)


def galaxy_yml(manifest):
    """galaxy.yml of an installed collection, from its MANIFEST.json."""
    info = manifest['collection_info']
    out = dict((key, info[key]) for key in GALAXY_KEYS if info.get(key) not in (None, '', []))
    if out.get('license') and out.get('license_file'):
        del out['license_file']  # ansible-galaxy takes one of the two
    return out


def build(source, output):
    """Build the collection in ``source`` into ``output``; the tarball's path."""
    before = set(os.listdir(output))
    subprocess.run([galaxy(), 'collection', 'build', source, '--output-path', output, '--force'], check=True,
                   stdout=subprocess.DEVNULL)
    [built] = sorted(set(os.listdir(output)) - before) or [None]
    if built is None:  # --force rebuilt a tarball of the same name
        with open(os.path.join(source, 'galaxy.yml')) as handle:
            meta = yaml.safe_load(handle)
        built = '%s-%s-%s.tar.gz' % (meta['namespace'], meta['name'], meta['version'])
    return os.path.join(output, built)


def build_installed(fqcn, output, work, search=None):
    """(tarball, dependencies) of the installed collection ``fqcn``, built from a copy with a galaxy.yml."""
    path = installed_copy(fqcn, search)
    with open(os.path.join(path, 'MANIFEST.json')) as handle:
        manifest = json.load(handle)
    copy = os.path.join(work, fqcn)
    shutil.copytree(path, copy, ignore=shutil.ignore_patterns('__pycache__', '*.pyc', 'MANIFEST.json', 'FILES.json'))
    with open(os.path.join(copy, 'galaxy.yml'), 'w') as handle:
        yaml.safe_dump(galaxy_yml(manifest), handle, sort_keys=False)
    return build(copy, output), dict(manifest['collection_info'].get('dependencies') or {})


def tarballs(output, root=ROOT, search=None, also=()):
    """Build ascend.vllm from ``root`` and every collection it needs (and ``also``); their paths, ascend.vllm first."""
    os.makedirs(output, exist_ok=True)
    with open(os.path.join(root, 'galaxy.yml')) as handle:
        wanted = list((yaml.safe_load(handle).get('dependencies') or {})) + list(also)
    out = [build(root, output)]
    done = set()
    with tempfile.TemporaryDirectory() as work:
        while wanted:
            fqcn = wanted.pop(0)
            if fqcn in done:
                continue
            done.add(fqcn)
            tarball, deps = build_installed(fqcn, output, work, search)
            out.append(tarball)
            wanted += [dep for dep in deps if dep not in done]
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n', maxsplit=1)[0])
    parser.add_argument('--output', default='collections-offline', help='directory for the tarballs')
    parser.add_argument('--also', action='append', default=[], metavar='NAMESPACE.NAME',
                        help='another installed collection to bring, with its dependencies (awx.awx)')
    args = parser.parse_args(argv)
    for path in tarballs(os.path.abspath(args.output), also=args.also):
        print(path)


if __name__ == '__main__':
    main()
