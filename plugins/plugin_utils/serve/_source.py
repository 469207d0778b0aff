# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The source install method: vLLM and vllm-ascend in a virtualenv on the node, ``vllm serve`` as a systemd service.

vllm-ascend docs, "Qwen3.5-Dense" tutorial, section 4.2 (source install): instead of the image,
install vllm-ascend from source; on the Atlas 300I DUO and the Atlas 200I Pro remove
``triton-ascend`` and ``triton`` (``pip uninstall -y triton-ascend triton``) to avoid dependency
conflicts, and check the install with ``pip show vllm-ascend``, whose version must be the one
installed.

Pure functions over plain data: ``install_plan`` (the virtualenv, what pip installs and removes,
the CANN checks), ``service_plan`` (one instance's unit, environment file and launcher) and the
texts the node module writes. The versions are the version matrix's for the pinned image tag
(contracts/versions.py), so both methods run the same vLLM and vllm-ascend; the environment is
the image's (the CANN ``set_env.sh`` scripts its ENTRYPOINT sources, then the profile's
``environment``: what the image's ``.bashrc`` adds, platforms.py). What the node itself needs of a
unit (its marker, its environment file's text, its digest) is module_utils/_unit.py.
"""

import json
import posixpath
import re
from functools import partial

from ansible_collections.ascend.vllm.plugins.module_utils._problem import problem
from ansible_collections.ascend.vllm.plugins.module_utils._unit import MANAGED_KEY, MANAGED_VALUE, digest, env_text
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.versions import entry_for

SOURCE = 'source'
# The guide's step after the install (section 4.2): these two are removed, in this order.
REMOVE = ['triton-ascend', 'triton']
# What sources the toolkit's environment in the CANN base image (reference: the image's process contract).
SET_ENV = ('ascend-toolkit/set_env.sh', 'nnal/atb/set_env.sh')
# vllm-ascend installation docs: Python >= 3.10, < 3.13 (versions.py, [INST]).
PYTHON_RANGE = ((3, 10), (3, 13))
# vllm_serve_source_build: the repositories vllm-ascend's installation docs at v0.23.0 ("Build from source",
# docs/source/installation.md) clone at the release tag, each overridable in vllm_serve_source_repos.
REPOS = {'vllm': 'https://github.com/vllm-project/vllm',
         'vllm_ascend': 'https://github.com/vllm-project/vllm-ascend.git'}
# What each build is run with. vLLM: installation.md at v0.23.0, "VLLM_TARGET_DEVICE=empty pip install -e ."
# (vllm-ascend brings the device code). vllm-ascend: installation.md, "Atlas 300I DUO: export
# SOC_VERSION=ascend310p1" where npu-smi is unavailable to ask; Dockerfile.310p at v0.23.0 always builds with
# ARG SOC_VERSION="ascend310p1", which this follows (setup.py's soc_to_device then selects the _310P code).
BUILD_ENV = {'vllm': {'VLLM_TARGET_DEVICE': 'empty'}, 'vllm_ascend': {'SOC_VERSION': 'ascend310p1'}}
# A problem of the source install method.
_p = partial(problem, 'source')
# A repository git can clone wherever the node is: a URL with a scheme, scp-like [user@]host:path (git-clone(1),
# "GIT URLS": no slash before the first colon), or an absolute path on the node.
_REPO_RE = re.compile(r'^(?:[A-Za-z][A-Za-z0-9+.-]*://\S+|(?:[^/\s:@]+@)?[^/\s:@]+:\S+|/\S*)$')


def unit_name(container_name):
    """The systemd unit of an instance: its container name, so both methods name an instance alike."""
    return '%s.service' % container_name


def env_file(root, container_name):
    return posixpath.join(root, 'instances', container_name + '.env')


def launcher_path(root):
    return posixpath.join(root, 'bin', 'ascend-vllm-launch')


def wheel_prefix(requirement):
    """``vllm-ascend==0.23.0`` -> ``vllm_ascend-0.23.0-`` (a wheel's file name, PEP 427 name escaping)."""
    name, _sep, version = requirement.partition('==')
    return '%s-%s-' % (re.sub(r'[-_.]+', '_', name).lower(), version)


def install_plan(request_get, image_tag, is_set):
    """The install of a host with ``vllm_serve_install_method: source``, and its problems.

    ``request_get(name)`` reads a variable as the role would, ``is_set(name)`` says whether the user set it.
    """
    prefix = 'vllm_serve_source_'
    problems = []
    entry = entry_for(image_tag) or {}
    versions = dict(request_get(prefix + 'versions') or {})
    # v0.23.0 -> 0.23.0: a git tag as pip writes the version.
    wanted = dict((key, re.sub('^[vV]', '', str(versions.get(key) or entry.get(key) or ''))) for key in ('vllm', 'vllm_ascend'))
    unknown = sorted(set(versions) - set(wanted))
    if unknown:
        problems.append(_p('%sversions has unknown keys %s' % (prefix, ', '.join(unknown)),
                           'give only vllm and vllm_ascend, e.g. {vllm: "0.23.0", vllm_ascend: "0.23.0"}', prefix + 'versions'))
    for key, value in sorted(wanted.items()):
        if not value:
            problems.append(_p('no %s version is known for image tag %s: the version matrix (docs/versions.md) has '
                               'no entry for it' % (key, image_tag or '(none)'),
                               'set vllm_serve_image_tag (image_pull_tag) to a tag of the matrix, or set %sversions.%s'
                               % (prefix, key), prefix + 'versions'))
        elif not re.match(r'^[0-9][0-9A-Za-z.+!-]*$', value):
            problems.append(_p('%sversions.%s=%s is not a version pip understands' % (prefix, key, json.dumps(value)),
                               'give the version as pip shows it, e.g. 0.23.0', prefix + 'versions'))
    root = request_get(prefix + 'root') or '/opt/ascend-vllm'
    wheelhouse = request_get(prefix + 'wheelhouse') or ''
    build = bool(request_get(prefix + 'build'))
    cann_root = request_get('vllm_serve_cann_root') or '/usr/local/Ascend'
    checked = [(prefix + 'root', root), ('vllm_serve_cann_root', cann_root)]
    if wheelhouse or not build:
        # Building from the tags, the wheelhouse is optional (dependencies from the node's package index).
        checked.insert(1, (prefix + 'wheelhouse', wheelhouse))
    for name, value in checked:
        if not isinstance(value, str) or not value.startswith('/'):
            fix = ('put the wheels of vLLM, vllm-ascend and their dependencies in a directory on the node and name '
                   'it here (docs/source-install.md)' if name.endswith('wheelhouse') else 'give an absolute path')
            problems.append(_p('%s=%s is not an absolute path on the node' % (name, json.dumps(value)), fix, name))
    requirements = ['vllm==%s' % wanted['vllm'], 'vllm-ascend==%s' % wanted['vllm_ascend']]
    venv = posixpath.join(str(root), 'venv', 'vllm-ascend-%s' % wanted['vllm_ascend'])
    repos = request_get(prefix + 'repos') or {}
    problems += repo_problems(repos, build, is_set(prefix + 'repos'))
    pip_args = ['--no-index', '--find-links', wheelhouse] if wheelhouse else []
    return {
        'method': SOURCE,
        'root': root,
        'venv': venv,
        'python': request_get(prefix + 'python') or 'python3',
        'wheelhouse': wheelhouse,
        'versions': wanted,
        'requirements': requirements,
        'wheels': [wheel_prefix(req) for req in requirements],
        'remove': list(REMOVE),
        'cann': {'root': cann_root, 'version': entry.get('cann') or '',
                 'set_env': [posixpath.join(str(cann_root), path) for path in SET_ENV]},
        'launcher': launcher_path(str(root)),
        'build': build_plan(repos, wanted, str(root), venv, launcher_path(str(root)), pip_args) if build else {},
        'pip_args': pip_args,
        'problems': problems,
    }


def repo_problems(repos, build, is_set):
    """vllm_serve_source_repos: only the keys vllm and vllm_ascend, each a repository git can clone; set without
    vllm_serve_source_build it has no effect (reported, never ignored)."""
    name = 'vllm_serve_source_repos'
    if not isinstance(repos, dict):
        return [_p('%s=%s is not a dict' % (name, json.dumps(repos)), 'give {vllm: URL, vllm_ascend: URL}, each key optional',
                   name)]
    out = []
    if repos and is_set and not build:
        out.append(_p('%s=%s has no effect: vllm_serve_source_build is false, so nothing is cloned'
                      % (name, json.dumps(repos, sort_keys=True)),
                      'set vllm_serve_source_build: true to build from the release tags, or remove %s' % name, name))
    unknown = sorted(set(repos) - set(REPOS))
    if unknown:
        out.append(_p('%s has unknown keys %s' % (name, ', '.join(str(key) for key in unknown)),
                      'give only vllm and vllm_ascend, e.g. {vllm_ascend: "https://git.example.com/vllm-ascend.git"}', name))
    for key in sorted(set(repos) & set(REPOS)):
        if not isinstance(repos[key], str) or not _REPO_RE.match(repos[key]):
            out.append(_p('%s.%s=%s is not a repository git can clone from the node (empty or a relative path)'
                          % (name, key, json.dumps(repos[key])),
                          'give a URL (https://..., ssh://..., file:///...), user@host:path, or an absolute path on the '
                          'node; leave the key out for %s' % REPOS[key], name))
    return out


def build_plan(repos, versions, root, venv, launcher, pip_args):
    """What vllm_serve_source_build clones and installs: per repository its URL, tag (``v`` + the version, the
    release tags installation.md clones), checkout directory and build environment; vllm-ascend with its
    submodules (installation.md: ``git submodule update --init --recursive``; csrc/third_party/catlass) and the
    command that installs it through the launcher (the CANN environment: Dockerfile.310p sources
    ascend-toolkit/set_env.sh and nnal/atb/set_env.sh before it builds vllm-ascend)."""
    out = {}
    for key, dist in (('vllm', 'vllm'), ('vllm_ascend', 'vllm-ascend')):
        version = versions[key]
        out[key] = {'repo': repos.get(key) or REPOS[key], 'tag': 'v%s' % version,
                    'dir': posixpath.join(root, 'src', '%s-%s' % (dist, version)),
                    'submodules': key == 'vllm_ascend', 'env': dict(BUILD_ENV[key])}
    # Not editable (installation.md's -e): the virtualenv then holds everything, vllm-ascend's compiled
    # operators included, and does not depend on the checkout staying where it is.
    pip = [posixpath.join(venv, 'bin', 'python'), '-m', 'pip', 'install'] + list(pip_args)
    out['vllm_ascend']['command'] = [launcher] + pip + [out['vllm_ascend']['dir']]
    # vLLM without the launcher (VLLM_TARGET_DEVICE=empty needs no CANN), as ansible.builtin.pip would run it; a
    # command so that it can run in the background with its output in a log (job_wait shows the newest line).
    out['vllm']['command'] = pip + [out['vllm']['dir']]
    return out


def with_launcher(install, configs):
    """The install plan with the launcher's text (``launcher_text``): the one text both the install (which runs
    vllm-ascend's build through it) and every instance's service use."""
    return dict(install, launcher_text=launcher_text(install, configured_profile(configs).get('environment')))


def configured_profile(configs):
    """The platform profile the host's instances run with (the first vllm_config result's), {} without one."""
    return next((config['profile'] for config in (configs or {}).values() if isinstance(config, dict)
                 and config.get('profile')), None) or {}


def _shell_word(value):
    """A double-quoted shell word that keeps ``${NAME}`` and ``$(uname -m)`` live (the profile's values are
    written as the image's .bashrc lines are) and nothing else special."""
    return '"%s"' % str(value).replace('\\', '\\\\').replace('"', '\\"').replace('`', '\\`')


def launcher_text(install, profile_env):
    """The launcher every unit starts through: the CANN environment the image's ENTRYPOINT sources, then the
    profile's (the image's .bashrc additions, built on what set_env.sh gave, as in the image), then the command."""
    lines = ['#!/bin/sh',
             '# Written by ascend.vllm (vllm_serve_install_method: source). The environment the vllm-ascend image',
             '# gives vllm serve: the CANN set_env.sh scripts its ENTRYPOINT sources, then what its .bashrc adds.',
             'set -e']
    lines += ['. %s' % _shell_word(path) for path in install['cann']['set_env']]
    lines += ['export %s=%s' % (key, _shell_word(profile_env[key])) for key in sorted(profile_env or {})]
    lines.append('exec "$@"')
    return '\n'.join(lines) + '\n'


def _unit_word(value):
    """One ExecStart argument, quoted for systemd (systemd.service(5), "Command lines"): double quotes, with
    backslash, double quote, ``$`` (variable expansion) and ``%`` (specifiers) escaped."""
    return '"%s"' % str(value).replace('\\', '\\\\').replace('"', '\\"').replace('$', '$$').replace('%', '%%')


def unit_text(install, name, argv, description):
    """The systemd unit of one instance: ``vllm serve`` from the virtualenv, through the launcher, its
    environment from the instance's file, restarted whenever it exits (Restart=always: when its engine dies, vLLM
    0.23's API server exits with status 0, which Restart=on-failure would leave down; seen on vLLM 0.23.0's own
    server, tests/sim/refserver), its output in the journal. ``systemctl stop`` still stops it."""
    command = [install['launcher'], posixpath.join(install['venv'], 'bin', 'vllm')] + [str(arg) for arg in argv[1:]]
    return '\n'.join([
        '[Unit]',
        'Description=%s' % description.replace('%', '%%'),
        'After=network-online.target',
        'Wants=network-online.target',
        '%s=%s' % (MANAGED_KEY, MANAGED_VALUE),
        '',
        '[Service]',
        'Type=simple',
        'EnvironmentFile=%s' % env_file(install['root'], name),
        'ExecStart=%s' % ' '.join(_unit_word(arg) for arg in command),
        'Restart=always',
        'RestartSec=10',
        'StandardOutput=journal',
        'StandardError=journal',
        'SyslogIdentifier=%s' % name,
        # vLLM needs the time to write its last lines and free the chip.
        'TimeoutStopSec=60',
        'KillSignal=SIGINT',
        '',
        '[Install]',
        'WantedBy=multi-user.target',
        '',
    ])


def env_problems(name, env):
    """Environment values the unit's EnvironmentFile cannot hold (a newline)."""
    return [_p('instance %s: the environment variable %s has a line break, which a systemd EnvironmentFile cannot '
               'hold' % (name, key), 'remove the line break, or use vllm_serve_install_method: image', 'vllm_serve_env')
            for key in sorted(env or {}) if '\n' in str(env[key]) or '\r' in str(env[key])]


def service_env(command_env, env, chips, cache_dir):
    """The instance's own environment: vllm_config's, the user's (secrets as the plan's markers until the
    role reads them), the chips it may use (``ASCEND_RT_VISIBLE_DEVICES``: the container path hands
    them over as devices instead) and the model cache (the container mounts it at /root/.cache)."""
    out = dict((str(key), str(value)) for given in (command_env, env) for key, value in (given or {}).items())
    out['ASCEND_RT_VISIBLE_DEVICES'] = ','.join(str(chip) for chip in chips or [])
    if cache_dir and posixpath.normpath(str(cache_dir)) != '/root/.cache':
        out.setdefault('XDG_CACHE_HOME', str(cache_dir))
        out.setdefault('HF_HOME', posixpath.join(str(cache_dir), 'huggingface'))
        out.setdefault('MODELSCOPE_CACHE', posixpath.join(str(cache_dir), 'modelscope'))
    return out


def service_plan(entry, config, install, host):
    """One instance's ``ascend.vllm.vllm_service`` arguments: its unit, launcher and environment (secrets
    as markers: the role reads them, ``instance_secrets``), and the digest of what the service would run."""
    name = entry['container_name']
    env = service_env(config.get('env'), entry.get('env'), entry.get('chips'), host.get('model_cache_dir'))
    unit = unit_text(install, name, list(config.get('argv') or []), 'vLLM %s (ascend.vllm instance %s)' % (
        (config.get('settings') or {}).get('model', ''), entry['name']))
    return {
        'name': unit_name(name),
        'unit': unit,
        'env_file': env_file(install['root'], name),
        'env': env,
        'launcher': install['launcher'],
        'launcher_text': install['launcher_text'],
        'keep_previous': bool(host.get('keep_previous')),
        'no_log': bool(entry.get('api_key_var')) or bool(entry.get('hidden_env')),
        'digest': digest(unit, env_text(env), install['launcher_text']),
    }


def python_ok(version):
    """Whether a Python ``X.Y[.Z]`` is in the range vllm-ascend supports."""
    match = re.match(r'^(\d+)\.(\d+)', str(version or ''))
    return bool(match) and PYTHON_RANGE[0] <= (int(match.group(1)), int(match.group(2))) < PYTHON_RANGE[1]


# ------------------------------------------------------------------ the node read and its judgement
# CANN's own records (vllm-ascend collect_env.py at v0.23.0 reads the toolkit's; Huawei's CANN install guide
# "File Paths" names ascend_toolkit_install.info and the ops package's ascend_ops_install.info beside it):
# key=value lines, "version=9.1.0". NNAL: nnal/atb/latest/version.info, "Ascend-cann-atb : 9.1.0".
TOOLKIT_INFO = 'ascend-toolkit/latest/*-linux/ascend_toolkit_install.info'
OPS_INFO = 'ascend-toolkit/latest/*-linux/ascend_ops_install.info'
NNAL_INFO = 'nnal/atb/latest/version.info'
CANN_PARTS = (('toolkit', TOOLKIT_INFO, 'the CANN toolkit (Ascend-cann-toolkit)'),
              ('ops', OPS_INFO, 'the CANN 310P operator package (Ascend-cann-310p-ops)'),
              ('nnal', NNAL_INFO, 'NNAL (Ascend-cann-nnal, libatb.so)'))
# The image installs libjemalloc2 (vllm-ascend Dockerfile.310p) for its LD_PRELOAD; on the node it is a package.
JEMALLOC_FIX = 'install jemalloc on the node (Ubuntu/Debian: apt-get install libjemalloc2; openEuler: dnf install jemalloc)'


def cann_files(install):
    """{part: file pattern} of the CANN records to read on the node."""
    return dict((part, posixpath.join(install['cann']['root'], pattern)) for part, pattern, _what in CANN_PARTS)


def source_query(install, services, preload):
    """node_facts' ``source`` argument: what the install and the instances' units need read."""
    return {
        'python': install['python'], 'venv': install['venv'], 'wheelhouse': install['wheelhouse'],
        'files': sorted(cann_files(install).values()), 'preload': list(preload),
        # Building from the tags clones with git (ansible.builtin.git runs the node's git).
        'git': bool(install.get('build')),
        'units': [{'name': service['name'], 'env_file': service['env_file'], 'launcher': service['launcher']}
                  for service in services.values()],
    }


def preload_paths(profile_env):
    """The libraries the profile preloads (``LD_PRELOAD``), ``$(uname -m)`` left for the node to fill in."""
    return [path for path in str((profile_env or {}).get('LD_PRELOAD') or '').split(':') if path]


def record_version(text):
    """The version a CANN record states: ``version=9.1.0`` (install.info) or ``Ascend-cann-atb : 9.1.0``."""
    for line in (text or '').splitlines():
        match = re.match(r'^\s*(?:version|Ascend-cann-atb)\s*[=:]\s*"?([^"\s]+)"?\s*$', line)
        if match:
            return match.group(1)
    return None


def public(version):
    """A version without its local part: ``0.23.0+empty`` -> ``0.23.0`` (vLLM built with
    VLLM_TARGET_DEVICE=empty; vllm-ascend's own CI strips it the same way)."""
    return str(version or '').split('+', 1)[0]


def installed_ok(install, packages):
    """Whether the virtualenv already holds the planned versions (then no wheel is needed)."""
    packages = packages or {}
    return (public(packages.get('vllm')) == install['versions']['vllm']
            and public(packages.get('vllm-ascend')) == install['versions']['vllm_ascend'])


def source_problems(install, facts, services, needs_docker=False, docker=None):
    """Every problem of the node for the source install method, with its fix."""
    facts = facts or {}
    out = []
    if not facts.get('systemd'):
        out.append(_p('systemd is not the init system of the node (no /run/systemd/system): the source install '
                      'method runs each instance as a systemd service',
                      'use vllm_serve_install_method: image on this node, or a node booted with systemd'))
    python = facts.get('python') or {}
    if not python.get('version'):
        out.append(_p('%s cannot be run on the node: %s' % (install['python'], python.get('error') or 'not found'),
                      'install Python 3.10, 3.11 or 3.12 on the node, or set vllm_serve_source_python to one',
                      'vllm_serve_source_python'))
    elif not python_ok(python['version']):
        out.append(_p('%s is Python %s; vllm-ascend supports Python >= 3.10, < 3.13' % (
            install['python'], python['version']), 'set vllm_serve_source_python to a Python 3.10-3.12 interpreter '
            'of the node', 'vllm_serve_source_python'))
    elif not python.get('venv') and not (facts.get('venv') or {}).get('exists'):
        out.append(_p('%s has no venv module: the virtualenv %s cannot be made' % (install['python'], install['venv']),
                      'install it on the node (Ubuntu/Debian: apt-get install python3-venv)', 'vllm_serve_source_python'))
    out += _wheel_problems(install, facts)
    if install.get('build') and not installed_ok(install, (facts.get('venv') or {}).get('packages')) \
            and not (facts.get('git') or {}).get('path'):
        out.append(_p('git is not on the node (%s): vllm_serve_source_build clones vLLM and vllm-ascend at their release '
                      'tags with it (ansible.builtin.git)' % ((facts.get('git') or {}).get('error') or 'not found on PATH'),
                      'install git on the node (Ubuntu/Debian: apt-get install git; openEuler: dnf install git), or set '
                      'vllm_serve_source_build: false and give a wheelhouse with both wheels', 'vllm_serve_source_build'))
    out += _cann_problems(install, facts.get('files') or {})
    for pattern in sorted(facts.get('preload') or {}):
        found = facts['preload'][pattern] or {}
        if not found.get('exists'):
            out.append(_p('%s is missing: the vllm-ascend image preloads it (LD_PRELOAD) for vLLM'
                          % (found.get('path') or pattern), JEMALLOC_FIX))
    for service in services.values():
        unit = ((facts.get('units') or {}).get(service['name'])) or {}
        if unit.get('exists') and not unit.get('managed'):
            out.append(_p('/etc/systemd/system/%s is on the node and was not written by ascend.vllm; the deploy would '
                          'replace it' % service['name'],
                          'give the instance another container_name, or remove that unit if it may go'))
    if needs_docker and not (docker or {}).get('reachable'):
        out.append(_p('the host runs a load balancer (HAProxy in a container), and the node has no Docker Engine '
                      'answering: %s' % ((docker or {}).get('error') or 'unknown error'),
                      'install Docker Engine on the node for the balancer, or set balancer_enabled: false',
                      'balancer_enabled'))
    return out


def _wheel_problems(install, facts):
    # No wheelhouse named: install_plan reports it when one is needed.
    if installed_ok(install, (facts.get('venv') or {}).get('packages')) or not install['wheelhouse']:
        return []
    house = facts.get('wheelhouse') or {}
    if not house.get('exists'):
        return [_p('vllm_serve_source_wheelhouse=%s is not a directory on the node' % json.dumps(install['wheelhouse']),
                   'copy the wheelhouse (docs/source-install.md says how to build it) to the node, or correct the path',
                   'vllm_serve_source_wheelhouse')]
    if install.get('build'):
        return []  # built from the tags: the wheelhouse holds the dependencies, not vLLM and vllm-ascend
    files = [name.lower() for name in house.get('files') or []]
    return [_p('the wheelhouse %s has no wheel of %s (%s*.whl)' % (install['wheelhouse'], requirement, prefix),
               'build it as docs/source-install.md says (vllm-ascend for the 310P: SOC_VERSION=ascend310p1) '
               'and put it there, or set vllm_serve_source_versions to the versions the wheelhouse has',
               'vllm_serve_source_wheelhouse')
            for requirement, prefix in zip(install['requirements'], install['wheels'])
            if not any(name.startswith((prefix, prefix[:-1] + '+')) for name in files)]


def _cann_problems(install, files):
    out = []
    wanted = install['cann'].get('version') or ''
    for part, pattern, what in CANN_PARTS:
        path = posixpath.join(install['cann']['root'], pattern)
        found = files.get(path)
        if not isinstance(found, dict) or found.get('text') is None:
            out.append(_p('%s is not installed under %s (no %s)' % (what, install['cann']['root'], path),
                          'install CANN %s (toolkit, 310P ops, NNAL) on the node as the CANN installation guide says; '
                          'the collection checks CANN, it does not install it' % (wanted or ''),
                          'vllm_serve_cann_root'))
            continue
        version = record_version(found['text'])
        if wanted and public(version) != wanted:
            out.append(_p('%s is version %s (%s); vLLM %s with vllm-ascend %s needs CANN %s (version matrix, '
                          'docs/versions.md)' % (what, version or 'unknown', found.get('path') or path,
                                                 install['versions']['vllm'], install['versions']['vllm_ascend'], wanted),
                          'install CANN %s on the node' % wanted))
    return out
