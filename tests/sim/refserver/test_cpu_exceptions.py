"""cpu_exceptions: the reference server's only change to the planned argv (no venv, no server needed)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cpu_exceptions import cpu_exceptions  # noqa: E402
import refserver  # noqa: E402

GUIDE_TAIL = ["--mamba-ssm-cache-dtype", "float16", "--dtype", "float16", "--speculative-config",
              '{"method":"qwen3_5_mtp","num_speculative_tokens":1}']


def _planned():
    return refserver.planned_instance("/root/.cache/ascend-sim/refserver/model-x", 18080, api_key="k")


def test_the_planned_argv_changes_only_in_the_three_npu_flags():
    planned = _planned()
    argv, env, changes = cpu_exceptions(planned["argv"], planned["env"])
    removed = [w for w in planned["argv"] if w not in argv]
    # Exactly the guide's NPU-only flags go (with their values), float16 becomes bfloat16 in place.
    assert removed == ["--mamba-ssm-cache-dtype", "float16", "float16", "--speculative-config",
                       '{"method":"qwen3_5_mtp","num_speculative_tokens":1}'], removed
    assert argv[argv.index("--dtype") + 1] == "bfloat16"
    kept = [w for w in planned["argv"] if w not in removed]
    assert [w for w in argv if w != "bfloat16"] == kept
    assert env == dict(planned["env"], VLLM_CPU_KVCACHE_SPACE="1")
    assert len(changes) == 4, changes


@pytest.mark.parametrize("tail", [
    ["--dtype=float16", "--mamba_ssm_cache_dtype=float16", "--speculative-config={}"],
    ["--dtype", "float16", "--mamba-ssm-cache-dtype", "float16"],
])
def test_inline_and_snake_case_spellings_are_changed_too(tail):
    argv, _env, _changes = cpu_exceptions(["vllm", "serve", "/m", "--port", "1"] + tail, {})
    assert argv == ["vllm", "serve", "/m", "--port", "1", "--dtype", "bfloat16"], argv


def test_an_argv_without_the_npu_flags_is_left_as_it_is():
    argv = ["vllm", "serve", "/m", "--dtype", "bfloat16", "--max-model-len", "4096"]
    assert cpu_exceptions(argv, {"A": "b"})[0] == argv


def test_anything_but_vllm_serve_is_refused():
    with pytest.raises(ValueError, match="not a `vllm serve` argv"):
        cpu_exceptions(["python", "-m", "vllm"], {})


def test_the_model_spec_is_qwen35_2b_shrunk_and_deterministic():
    spec = refserver.model_spec()
    assert spec == refserver.model_spec()
    text = spec["config"]["text_config"]
    assert spec["config"]["architectures"] == ["Qwen3_5ForConditionalGeneration"]
    assert text["layer_types"] == ["linear_attention"] * 3 + ["full_attention"]
    assert text["mtp_num_hidden_layers"] == 1 and spec["config"]["vision_config"]["depth"] == 1
    assert text["num_attention_heads"] % text["num_key_value_heads"] == 0
    rope = text["rope_parameters"]
    assert sum(rope["mrope_section"]) * 2 == int(text["head_dim"] * rope["partial_rotary_factor"])
    assert len(spec["special_tokens"]) + 256 <= text["vocab_size"]
    json.dumps(spec)
