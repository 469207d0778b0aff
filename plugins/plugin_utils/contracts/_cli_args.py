# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The ``vllm serve`` command line: managed flags, extra arguments, argv and env.

The flag order and values are those of the vllm-ascend docs, "Qwen3.5-Dense"
tutorial, section 5.1.  Private to the planner.
"""

from __future__ import annotations

import json
import posixpath
import re
import shlex
from typing import Any, Dict, List, Optional, Tuple

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._coerce import compact_json, format_utilization, parse_human_int
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._vllm_flags import (
    CONFLICTS, UNSUPPORTED_ON_310P, FlagTable, flags_for)
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.platforms import did_you_mean

# Guide 5.1: "需要使用包含 "ascend_compilation_config": {"enable_npugraph_ex": false} 的
# --additional-config，因为这些平台不支持enable_npugraph_ex".
ADDITIONAL_CONFIG = {'ascend_compilation_config': {'enable_npugraph_ex': False}}
# vLLM API key env var: "args.api_key or envs.VLLM_API_KEY"
# (vllm/entrypoints/openai/api_server.py).
API_KEY_ENV = 'VLLM_API_KEY'

# Flags the planner owns; extra_args must not repeat them.
MANAGED_FLAGS = (
    '--model', '--host', '--port', '--tensor-parallel-size', '--served-model-name',
    '--max-num-seqs', '--max-model-len', '--trust-remote-code', '--gpu-memory-utilization',
    '--mamba-ssm-cache-dtype', '--dtype', '--speculative-config', '--compilation-config',
    '--additional-config', '--api-key', '--quantization',
)


def _flag_name(token: str, table: Optional[FlagTable] = None) -> Optional[str]:
    """The managed flag an extra argument sets, or None (aliases: ``table``'s, default vLLM's).

    Handles "--flag value", "--flag=value", vLLM's dotted JSON keys
    ("--compilation-config.cudagraph_mode=FULL"), underscores (vLLM's parser
    turns them into dashes), "--no-" boolean negations and short aliases
    (-tp is --tensor-parallel-size; -O3 and -O.key=v are --compilation-config).
    """
    if token.startswith('-O') and not token.startswith('--'):
        return '--compilation-config'
    flag, _negated = _known_flag(token, table or flags_for())
    return flag if flag in MANAGED_FLAGS else None


# argparse reads "-1" / "-0.5" as a value, not as an option (vLLM has no numeric options).
_NEGATIVE_NUMBER_RE = re.compile(r'^-[0-9]+$|^-[0-9]*\.[0-9]+$')
# En dash, em dash, minus sign, full-width hyphen: what autocorrect or an input method makes of "--".
_DASHES = (u'\u2013', u'\u2014', u'\u2212', u'\uff0d')


def split_extra_args(items: List[str]) -> Tuple[List[str], List[Tuple[int, str, str]]]:
    """The argv words of extra_args, and the items that could not be split.

    An item that starts with "-" and holds spaces ("--enforce-eager --seed 1", copied
    from a shell line of the guide) is split as a shell would; "--flag=value with
    spaces" and every item that does not start with "-" (a JSON value, a template)
    stay one word.  Returns (words, [(index, item, why)]).
    """
    words: List[str] = []
    bad: List[Tuple[int, str, str]] = []
    for index, item in enumerate(items):
        if not (item.startswith('-') and re.search(r'\s', item)):
            words.append(item)
            continue
        try:
            parts = shlex.split(item)
        except ValueError as exc:
            bad.append((index, item, 'it cannot be split like a shell line (%s)' % exc))
            continue
        first = item.split(None, 1)[0]
        if '=' in first and not any(part.startswith('-') for part in parts[1:]):
            words.append(item)  # --flag=value with spaces: one word
        else:
            words.extend(parts)
    return words, bad


def _is_value(word: str) -> bool:
    return not word.startswith('-') or _NEGATIVE_NUMBER_RE.match(word) is not None


def _known_flag(word: str, table: FlagTable) -> Tuple[Optional[str], bool]:
    """(the vLLM flag a word names, whether it is a --no- negation), or (None, False)."""
    name = word.split('=', 1)[0]
    if not name.startswith('--'):
        return table.aliases.get(name.split('.', 1)[0]), False
    name = name.split('.', 1)[0].replace('_', '-')
    if name in table.flags:
        return name, False
    if name.startswith('--no-') and table.flags.get('--' + name[5:]) == 'switch':
        return '--' + name[5:], True
    return None, False


# {value type: (what a value must be, the name of vLLM's conversion, the conversion)}.
_VALUE_TYPES = {
    'int': ('an integer', 'int', int),
    'float': ('a number', 'float', float),
    'hint': ('an integer or a size such as 8192, 8k or 8K', 'human_readable_int', parse_human_int),
}


def _value_problem(flag: str, value: str, table: FlagTable) -> Optional[Tuple[str, str]]:
    """(problem, fix) when vLLM's conversion of this flag's value would fail, else None."""
    kind = table.value_type.get(flag)
    try:
        # vLLM's optional_type reads "" and "None" as None.
        converted = (None if flag in table.nullable and value in ('', 'None')
                     else _VALUE_TYPES[kind][2](value) if kind in _VALUE_TYPES else value)
    except ValueError:
        what, convert, _convert = _VALUE_TYPES[kind]
        return ('%s takes %s, not %r (vLLM stops with "argument %s: invalid %s value")' % (flag, what, value, flag,
                                                                                           convert),
                'give %s %s, e.g. %s' % (flag, what, '8192' if kind == 'hint' else '1'))
    choices = table.choices.get(flag)
    if choices is not None and converted not in choices:
        shown = ', '.join(str(choice) for choice in choices if choice != 'None')
        return ('%s takes one of %s, not %r (vLLM %s stops with "argument %s: invalid choice")'
                % (flag, shown, value, table.version, flag),
                'give %s one of: %s' % (flag, shown))
    return None


def _flag_problem(word: str, flag: str, negated: bool, following: List[str],
                  table: FlagTable) -> Tuple[Optional[str], str, int]:
    """(what is wrong with one flag word or None, the fix, how many following words it takes)."""
    kind = table.flags[flag]
    name, has_inline, inline = word.partition('=')
    dotted = '.' in name.lstrip('-')
    values = _values_after(kind, following)
    if dotted and kind != 'json':
        return ('%s takes no JSON keys (only the JSON options such as --compilation-config do)' % flag,
                'write it as %s VALUE' % flag, 0)
    if kind in ('switch', 'flag') or negated:
        if has_inline:
            return ('%s takes no value (vLLM stops with "ignored explicit argument %r")' % (flag, inline),
                    'write %s alone%s' % (name, ', or --no-%s to turn it off' % flag[2:] if kind == 'switch' else ''), 0)
        return None, '', 0
    if has_inline:
        if not inline.strip() and flag not in table.nullable:
            return '%s has an empty value after "="' % flag, 'give %s a value: %s=VALUE' % (flag, name), 0
        bad = _value_problem(flag, inline, table)
        return (bad[0], bad[1], 0) if bad else (None, '', 0)
    if kind == 'optional':
        return None, '', min(values, 1)
    if values == 0:
        return ('%s is missing its value (vLLM stops with "expected %s argument")'
                % (flag, 'at least one' if kind == 'values' else 'one'),
                'put the value right after %s, as its own item or as %s=VALUE' % (name, name), 0)
    for value in following[:values]:
        bad = _value_problem(flag, value, table)
        if bad:
            return bad[0], bad[1], values
    return None, '', values


def _values_after(kind: str, following: List[str]) -> int:
    """How many of the following words a flag of this kind takes as its values."""
    if kind in ('switch', 'flag'):
        return 0
    count = 0
    while count < len(following) and _is_value(following[count]) and (count == 0 or kind == 'values'):
        count += 1
    return count


def _word_problem(word: str, following: List[str], table: FlagTable) -> Tuple[Optional[Tuple[str, str]], int]:
    """((problem, fix) or None, how many following words the flag takes) for one flag word."""
    flag, negated = _known_flag(word, table)
    if flag is None:
        name = word.split('=', 1)[0].split('.', 1)[0]
        shown = name.replace('_', '-') if name.startswith('--') else name
        return (('%s is not a vllm serve flag of vLLM %s (vLLM stops with "unrecognized arguments")%s'
                 % (name, table.version, did_you_mean(shown, sorted(table.flags))),
                 'correct or remove it; `vllm serve --help=all` in the image lists the flags'), 0)
    if flag in CONFLICTS:
        return ('%s conflicts with what the module manages: %s' % (flag, CONFLICTS[flag]), 'remove it'), 0
    problem, fix, taken = _flag_problem(word, flag, negated, following, table)
    if flag in UNSUPPORTED_ON_310P and not negated:
        return ('%s is not supported on 310P: %s' % (word.split('=', 1)[0], UNSUPPORTED_ON_310P[flag]),
                'remove it and its value' if taken else 'remove it'), taken
    return ((problem, fix) if problem else None), taken


def extra_arg_problems(words: List[str], table: Optional[FlagTable] = None) -> List[Tuple[str, str, str]]:
    """[(word, problem, fix)] for argv words the ``vllm serve`` parser of ``table``'s vLLM would refuse.

    ``table`` is ``_vllm_flags.flags_for(version)`` of the vLLM inside the image (default:
    ``_vllm_flags.DEFAULT_VERSION``).  Managed flags are left to the caller (``_flag_name``);
    flags that undo a managed setting (``CONFLICTS``) are reported here.
    """
    table = table or flags_for()
    out: List[Tuple[str, str, str]] = []
    index: int = 0
    last: Optional[str] = None
    while index < len(words):
        word = words[index]
        index += 1
        managed = _flag_name(word, table)
        if managed:
            inline = '=' in word or (word.startswith('-O') and len(word) > 2)
            index += 0 if inline else _values_after(table.flags.get(managed, 'value'), words[index:])
            last = None
            continue
        if word[:1] in _DASHES:
            out.append((word, '%r starts with %r, a dash a word processor or spreadsheet put there; vLLM flags '
                              'start with two ASCII hyphens (vLLM stops with "unrecognized arguments")' % (word, word[0]),
                        'retype it as --%s' % word.lstrip(''.join(_DASHES) + '-')))
            continue
        if _is_value(word):
            if last:
                out.append((word, '%s takes no value, so %r after it is left over (vLLM stops with '
                                  '"unrecognized arguments")' % (last, word),
                            'remove %r, or use a flag that takes it' % word))
            else:
                out.append((word, '%r is not a flag and follows no flag that takes a value (vLLM stops with '
                                  '"unrecognized arguments")' % word,
                            'remove it, or put the flag it belongs to before it'))
            continue
        found, taken = _word_problem(word, words[index:], table)
        if found:
            out.append((word,) + found)
        flag, negated = _known_flag(word, table)
        last = word.split('=', 1)[0] if (flag and not found and (negated or table.flags[flag] in ('switch', 'flag'))
                                         and '=' not in word) else None
        index += taken
    return out


def _value(words: List[str], index: int, default: str = '') -> str:
    """The value of the flag word ``words[index]``: after its "=", else the next word, else ``default``."""
    _name, has_value, inline = words[index].partition('=')
    return inline if has_value else (words[index + 1] if index + 1 < len(words) else default)


# {flag: (what parser_flags reports it as, what it says; None: the flag's value)}.
_PARSER_WORDS = {'--reasoning-parser': ('reasoning', None), '--tool-call-parser': ('tool_call', None),
                 '--enable-auto-tool-choice': ('auto_tool_choice', True),
                 '--no-enable-auto-tool-choice': ('auto_tool_choice', False)}


def parser_flags(words: List[str]) -> Dict[str, Any]:
    """What argv words say about the chat parsers: {'reasoning': name or None, 'tool_call': name or None,
    'auto_tool_choice': True, False or None (not given)}; the last word wins, as in vLLM's argparse.

    ``--flag value``, ``--flag=value`` and underscores (vLLM's parser turns them into dashes)."""
    found: Dict[str, Any] = {'reasoning': None, 'tool_call': None, 'auto_tool_choice': None}
    for index, word in enumerate(words):
        key, said = _PARSER_WORDS.get(word.split('=', 1)[0].replace('_', '-'), (None, None))
        if key and word.startswith('--'):
            found[key] = _value(words, index) if said is None else said
    return found


def _enables_npugraph_ex(args: List[str]) -> bool:
    for index, token in enumerate(args):
        if _flag_name(token) != '--additional-config':
            continue
        name = token.split('=', 1)[0]
        if '.' in name:  # --additional-config.ascend_compilation_config.enable_npugraph_ex=true
            if (name.endswith(('enable_npugraph_ex', 'enable-npugraph-ex'))
                    and _value(args, index, 'true').strip().lower() in ('true', '1', 'yes', 'on')):
                return True
            continue
        try:
            data = json.loads(_value(args, index))
        except ValueError:
            continue
        section = data.get('ascend_compilation_config') if isinstance(data, dict) else None
        if isinstance(section, dict) and section.get('enable_npugraph_ex') is True:
            return True
    return False


def serve_argv(ctx: Any) -> List[str]:
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
    if ctx.quant:
        # "The quantized versions need to start with the --quantization ascend parameter"
        # (vllm-ascend docs, "Qwen3.5-27B & Qwen3.6-27B" tutorial, section 5.1).
        argv += ['--quantization', ctx.quant]
    if ctx.k:
        argv += ['--speculative-config',
                 compact_json({'method': req['speculative_method'], 'num_speculative_tokens': ctx.k})]
    argv += ['--compilation-config', compact_json({'cudagraph_mode': ctx.mode, 'cudagraph_capture_sizes': ctx.sizes}),
             '--additional-config', compact_json(ADDITIONAL_CONFIG)]
    # Not in the guide's command: the parsers the model's own documentation passes (models.py [QCARD]),
    # unless the options turn them off or extra_args names them itself (_rules.rule_chat_parsers).
    chat = ctx.chat or {}
    if chat.get('emit_reasoning'):
        argv += ['--reasoning-parser', chat['reasoning']]
    if chat.get('emit_auto_tool_choice'):
        argv.append('--enable-auto-tool-choice')
    if chat.get('emit_tool_call'):
        argv += ['--tool-call-parser', chat['tool_call']]
    return argv + ctx.extra


def serve_command(ctx: Any) -> Dict[str, Any]:
    """argv, command, env, api_key_env and settings of a request without violations."""
    argv = serve_argv(ctx)
    env = {}
    # Guide 5.1: "export VLLM_USE_MODELSCOPE=True" for a ModelScope id, not a local path.
    if ctx.bools['use_modelscope'] and not posixpath.isabs(ctx.model_path):
        env['VLLM_USE_MODELSCOPE'] = 'True'
    if ctx.bools['offline']:
        # huggingface_hub reads HF_HUB_OFFLINE at import (huggingface_hub.constants); vLLM's weight
        # download and transformers' is_offline_mode() then look at local files only.
        env['HF_HUB_OFFLINE'] = '1'
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
            # What the server runs with, from the whole argv (extra_args included): the smoke tests ask for a
            # reasoning answer and a tool call when these are set.
            'reasoning_parser': (ctx.chat or {}).get('reasoning'),
            'tool_call_parser': (ctx.chat or {}).get('tool_call'),
            'reasoning_field': (ctx.chat or {}).get('reasoning_field'),
        },
    }
