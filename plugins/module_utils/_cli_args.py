# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The ``vllm serve`` command line: managed flags, extra arguments, argv and env.

The flag order and values are those of the vllm-ascend docs, "Qwen3.5-Dense"
tutorial, section 5.1.  Private to the planner (import from ``planner``).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import posixpath
import shlex
from typing import Any, Dict, List, Optional

from ansible_collections.ascend.vllm.plugins.module_utils._coerce import compact_json, format_utilization

# Guide 5.1: "需要使用包含 "ascend_compilation_config": {"enable_npugraph_ex": false} 的
# --additional-config，因为这些平台不支持enable_npugraph_ex".
ADDITIONAL_CONFIG = {'ascend_compilation_config': {'enable_npugraph_ex': False}}
# vLLM API key env var: "args.api_key or envs.VLLM_API_KEY"
# (vllm/entrypoints/openai/api_server.py).
API_KEY_ENV = 'VLLM_API_KEY'

# Flags the planner owns; extra_args must not repeat them.  Short aliases:
# -tp is --tensor-parallel-size and -O is --compilation-config in vLLM's CLI.
MANAGED_FLAGS = (
    '--model', '--host', '--port', '--tensor-parallel-size', '--served-model-name',
    '--max-num-seqs', '--max-model-len', '--trust-remote-code', '--gpu-memory-utilization',
    '--mamba-ssm-cache-dtype', '--dtype', '--speculative-config', '--compilation-config',
    '--additional-config', '--api-key',
)
_SHORT_ALIASES = (('-tp', '--tensor-parallel-size'), ('-O', '--compilation-config'))


def _flag_name(token):
    # type: (str) -> Optional[str]
    """The managed flag an extra argument sets, or None.

    Handles "--flag value", "--flag=value", vLLM's dotted JSON keys
    ("--compilation-config.cudagraph_mode=FULL"), underscores (vLLM's parser
    turns them into dashes), "--no-" boolean negations and short aliases.
    """
    if not token.startswith('-'):
        return None
    for alias, flag in _SHORT_ALIASES:
        if token == alias or token.startswith(alias + '=') or token.startswith(alias + '.') or (
                alias == '-O' and token.startswith('-O') and not token.startswith('--')):
            return flag
    if not token.startswith('--'):
        return None
    name = token.split('=', 1)[0].split('.', 1)[0].replace('_', '-')
    if name in MANAGED_FLAGS:
        return name
    if name.startswith('--no-') and '--' + name[5:] in MANAGED_FLAGS:
        return '--' + name[5:]
    return None


def _enables_npugraph_ex(args):
    # type: (List[str]) -> bool
    for index, token in enumerate(args):
        if _flag_name(token) != '--additional-config':
            continue
        name, has_value, inline = token.partition('=')
        if '.' in name:  # --additional-config.ascend_compilation_config.enable_npugraph_ex=true
            if name.endswith('enable_npugraph_ex') or name.endswith('enable-npugraph-ex'):
                value = inline if has_value else (args[index + 1] if index + 1 < len(args) else 'true')
                if value.strip().lower() in ('true', '1', 'yes', 'on'):
                    return True
            continue
        value = inline if has_value else (args[index + 1] if index + 1 < len(args) else '')
        try:
            data = json.loads(value)
        except ValueError:
            continue
        section = data.get('ascend_compilation_config') if isinstance(data, dict) else None
        if isinstance(section, dict) and section.get('enable_npugraph_ex') is True:
            return True
    return False


def serve_argv(ctx):
    # type: (Any) -> List[str]
    """The argv in the guide's flag order (guide 5.1), from a checked request context."""
    req = ctx.req
    argv = ['vllm', 'serve', ctx.model_path,
            '--host', ctx.host,
            '--port', str(ctx.port),
            '--tensor-parallel-size', str(ctx.tp),
            '--served-model-name', ctx.name,
            '--max-num-seqs', str(ctx.seqs),
            '--max-model-len', str(ctx.length)]
    if ctx.bools['trust_remote_code']:
        argv.append('--trust-remote-code')
    argv += ['--gpu-memory-utilization', format_utilization(ctx.util),
             '--mamba-ssm-cache-dtype', req['mamba_ssm_cache_dtype'],
             '--dtype', req['dtype']]
    if ctx.k:
        argv += ['--speculative-config',
                 compact_json({'method': req['speculative_method'], 'num_speculative_tokens': ctx.k})]
    argv += ['--compilation-config', compact_json({'cudagraph_mode': ctx.mode, 'cudagraph_capture_sizes': ctx.sizes}),
             '--additional-config', compact_json(ADDITIONAL_CONFIG)]
    return argv + ctx.extra


def serve_command(ctx):
    # type: (Any) -> Dict[str, Any]
    """argv, command, env, api_key_env and settings of a request without violations."""
    argv = serve_argv(ctx)
    env = {}
    # Guide 5.1: "export VLLM_USE_MODELSCOPE=True" for a ModelScope id, not a local path.
    if ctx.bools['use_modelscope'] and not posixpath.isabs(ctx.model_path):
        env['VLLM_USE_MODELSCOPE'] = 'True'
    return {
        'argv': argv,
        'command': ' '.join(shlex.quote(arg) for arg in argv),
        'env': env,
        # The key never goes on the command line (ps, docker inspect) or into the
        # result (Ansible masks no_log values there): the container gets it as
        # this env var, which vLLM reads when --api-key is absent.
        'api_key_env': API_KEY_ENV if ctx.req['api_key'] else None,
        'settings': {
            'model': ctx.req['model'], 'model_path': ctx.model_path, 'host': ctx.host, 'port': ctx.port,
            'served_model_name': ctx.name, 'tensor_parallel_size': ctx.tp, 'max_model_len': ctx.length,
            'max_num_seqs': ctx.seqs, 'num_speculative_tokens': ctx.k, 'gpu_memory_utilization': ctx.util,
            'cudagraph_mode': ctx.mode,
        },
    }
