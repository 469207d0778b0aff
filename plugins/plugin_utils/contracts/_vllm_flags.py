# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The flags ``vllm serve`` of vLLM 0.23 accepts, as data: name, whether it takes a value, aliases.

Source: vLLM's own argument definitions -- ``EngineArgs.add_cli_args`` and
``AsyncEngineArgs.add_cli_args`` (vllm/engine/arg_utils.py), ``FrontendArgs`` /
``BaseFrontendArgs`` and ``make_arg_parser`` (vllm/entrypoints/openai/cli_args.py).
The upstream tag v0.23.0 is not in the reference store; this list was read from the
nearest stored copy, the fork Chloe-orz/vllm-23.0 (arg_utils.py at 11c169e3,
cli_args.py at a47d5482), leaving out the flags that fork adds for its own "LWD"
edge-cloud mode (--edge-npu-count, --cloud-npu-count, --role-registry, --edge-id,
--cloud-id, --api-server-rpc-port, --api-server-attach).  Written out by hand from
the argument definitions; nothing of vLLM is imported or copied.

How vLLM builds the parser (``get_kwargs``) decides the kind of each flag:

- ``switch``: a bool field, ``argparse.BooleanOptionalAction``: ``--x`` and ``--no-x``, no value;
- ``flag``: ``store_true``: ``--x`` only, no value;
- ``value``: exactly one value (``--x V`` or ``--x=V``);
- ``json``: one value, a JSON object, or its keys one by one (``--x.key=V``);
- ``values``: one or more values (``nargs='+'``: list and set fields);
- ``optional``: a value or none (``nargs='?'``: ``--hf-token``).

``value/int``, ``value/float`` and ``value/hint`` mark the flags whose value vLLM converts
with ``int``, ``float`` or its ``human_readable_int`` (``8k``, ``8K``): the common numeric
ones an operator sets, not every numeric flag.
"""

from __future__ import annotations

SOURCE = ('vLLM 0.23 vllm/engine/arg_utils.py + vllm/entrypoints/openai/cli_args.py '
          '(read from the stored fork Chloe-orz/vllm-23.0; upstream v0.23.0 is not stored)')

# One line per flag: "name kind [short alias ...]".
_TABLE = '''
model value
runner value
convert value
tokenizer value
tokenizer-mode value
trust-remote-code switch
dtype value
seed value/int
hf-config-path value
allowed-local-media-path value
allowed-media-domains values
revision value
code-revision value
tokenizer-revision value
max-model-len value
quantization value -q
quantization-config json
allow-deprecated-quantization switch
enforce-eager switch
enable-return-routed-experts switch
max-logprobs value/int
logprobs-mode value
use-fp64-gumbel switch
disable-sliding-window switch
disable-cascade-attn switch
skip-tokenizer-init switch
enable-prompt-embeds switch
served-model-name values
config-format value
hf-token optional
hf-overrides json
pooler-config json
generation-config value
override-generation-config json
enable-sleep-mode switch
enable-cumem-allocator switch
model-impl value
override-attention-dtype value
logits-processors values
io-processor-plugin value
renderer-num-workers value/int
load-format value
download-dir value
safetensors-load-strategy value
safetensors-prefetch-num-threads value
safetensors-prefetch-block-size value/hint
model-loader-extra-config json
ignore-patterns values
use-tqdm-on-load switch
pt-load-map-location value
attention-backend value
mamba-backend value
enable-mamba-cache-stochastic-rounding switch
mamba-cache-philox-rounds value
reasoning-parser value
reasoning-parser-plugin value
distributed-executor-backend value
pipeline-parallel-size value/int -pp
master-addr value
master-port value/int
nnodes value -n
node-rank value -r
distributed-timeout-seconds value
cpu-distributed-timeout-seconds value
numa-bind switch
numa-bind-nodes values
numa-bind-cpus values
tensor-parallel-size value -tp
decode-context-parallel-size value -dcp
dcp-comm-backend value
dcp-kv-cache-interleave-size value
cp-kv-cache-interleave-size value
prefill-context-parallel-size value -pcp
data-parallel-size value/int -dp
data-parallel-rank value -dpn
data-parallel-start-rank value -dpr
data-parallel-size-local value -dpl
data-parallel-address value -dpa
data-parallel-rpc-port value -dpp
data-parallel-backend value -dpb
data-parallel-hybrid-lb switch -dph
data-parallel-external-lb switch -dpe
data-parallel-multi-port-external-lb flag -dpm
enable-expert-parallel switch -ep
enable-ep-weight-filter switch
all2all-backend value
enable-dbo switch
ubatch-size value/int
enable-elastic-ep switch
dbo-decode-token-threshold value
dbo-prefill-token-threshold value
disable-nccl-for-dp-synchronization switch
enable-eplb switch
eplb-config json
expert-placement-strategy value
max-parallel-loading-workers value/int
ray-workers-use-nsight switch
disable-custom-all-reduce switch
worker-cls value
worker-extension-cls value
block-size value/int
gpu-memory-utilization value
kv-cache-memory-bytes value/hint
kv-cache-dtype value
num-gpu-blocks-override value/int
enable-prefix-caching switch
prefix-caching-hash-algo value
calculate-kv-scales switch
kv-cache-dtype-skip-layers values
kv-sharing-fast-prefill switch
mamba-cache-dtype value
mamba-ssm-cache-dtype value
mamba-block-size value/int
mamba-cache-mode value
kv-offloading-size value/float
kv-offloading-backend value
offload-backend value
cpu-offload-gb value/float
cpu-offload-params values
offload-group-size value
offload-num-in-group value
offload-prefetch-step value
offload-params values
language-model-only switch
limit-mm-per-prompt json
enable-mm-embeds switch
media-io-kwargs json
mm-processor-kwargs json
mm-processor-cache-gb value/float
mm-processor-cache-type value
mm-shm-cache-max-object-size-mb value
mm-encoder-only switch
mm-encoder-tp-mode value
mm-encoder-attn-backend value
mm-encoder-attn-dtype value
mm-encoder-fp8-scale-path value
mm-encoder-fp8-scale-save-path value
mm-encoder-fp8-scale-save-margin value
interleave-mm-strings switch
skip-mm-profiling switch
video-pruning-rate value/float
mm-tensor-ipc value
enable-lora switch
max-loras value/int
max-lora-rank value/int
lora-dtype value
enable-tower-connector-lora switch
max-cpu-loras value/int
fully-sharded-loras switch
lora-target-modules values
default-mm-loras json
specialize-active-lora switch
enable-mixed-moe-lora-format switch
show-hidden-metrics-for-version value
otlp-traces-endpoint value
collect-detailed-traces values
kv-cache-metrics switch
kv-cache-metrics-sample value/float
cudagraph-metrics switch
enable-layerwise-nvtx-tracing switch
enable-mfu-metrics switch
enable-logging-iteration-details switch
max-num-batched-tokens value/hint
max-num-seqs value
max-num-partial-prefills value/int
max-long-partial-prefills value/int
long-prefill-token-threshold value/int
scheduling-policy value
enable-chunked-prefill switch
disable-chunked-mm-input switch
scheduler-cls value
scheduler-reserve-full-isl switch
disable-hybrid-kv-cache-manager switch
async-scheduling switch
stream-interval value/int
cudagraph-capture-sizes values
max-cudagraph-capture-size value
ir-op-priority json
enable-flashinfer-autotune switch
moe-backend value
linear-backend value
speculative-config json -sc
spec-method value
spec-model value
spec-tokens value
kv-transfer-config json
kv-events-config json
ec-transfer-config json
compilation-config json -cc -O
attention-config json -ac
reasoning-config json
kernel-config json
additional-config json
structured-outputs-config json
profiler-config json
optimization-level value
performance-mode value
weight-transfer-config json
disable-log-stats flag
aggregate-engine-logging flag
fail-on-environ-validation switch
shutdown-timeout value/int
gdn-prefill-backend value
enable-log-requests switch
headless flag
api-server-count value/int -asc
config value
grpc flag
lora-modules values
chat-template value
chat-template-content-format value
trust-request-chat-template switch
default-chat-template-kwargs value
response-role value
return-tokens-as-token-ids switch
enable-auto-tool-choice switch
exclude-tools-when-tool-choice-none switch
tool-call-parser value
tool-parser-plugin value
tool-server value
log-config-file value
max-log-len value/int
enable-prompt-tokens-details switch
enable-server-load-tracking switch
enable-force-include-usage switch
enable-tokenizer-info-endpoint switch
enable-log-outputs switch
enable-log-deltas switch
log-error-stack switch
tokens-only switch
fingerprint-mode value
fingerprint-value value
host value
port value
data-parallel-supervisor-port value
dp-supervisor-probe-interval-s value
dp-supervisor-probe-timeout-s value
dp-supervisor-probe-failure-threshold value
uds value
uvicorn-log-level value
disable-uvicorn-access-log switch
disable-access-log-for-endpoints value
allow-credentials switch
allowed-origins value
allowed-methods value
allowed-headers value
api-key values
ssl-keyfile value
ssl-certfile value
ssl-ca-certs value
enable-ssl-refresh switch
ssl-cert-reqs value
ssl-ciphers value
root-path value
middleware value
enable-request-id-headers switch
disable-fastapi-docs switch
h11-max-incomplete-event-size value
h11-max-header-count value
enable-offline-docs switch
enable-flash-late-interaction switch
help flag -h
'''

KINDS = ('switch', 'flag', 'value', 'json', 'values', 'optional')


VALUE_TYPES = ('int', 'float', 'hint')


def _parse(table):
    flags, aliases, types = {}, {}, {}
    for line in table.strip().splitlines():
        words = line.split()
        name, (kind, _sep, value_type) = '--' + words[0], words[1].partition('/')
        if kind not in KINDS or (value_type and value_type not in VALUE_TYPES):
            raise ValueError('unknown flag kind %r of %s' % (words[1], name))
        flags[name] = kind
        if value_type:
            types[name] = value_type
        for alias in words[2:]:
            aliases[alias] = name
    return flags, aliases, types


# {"--flag": kind}, {"-alias": "--flag"} and {"--flag": value type}.
FLAGS, ALIASES, VALUE_TYPE = _parse(_TABLE)

# Flags vLLM accepts that would undo what the planner sets or keep the server
# from serving the managed port: {flag: why}.
CONFLICTS = {
    '--cudagraph-capture-sizes': 'it replaces the capture sizes the module computes from '
                                 'cudagraph_batch_sizes (guide 5.1)',
    '--max-cudagraph-capture-size': 'it caps the capture sizes the module computes from cudagraph_batch_sizes',
    '--spec-method': 'vLLM refuses it next to the --speculative-config the module passes ("mutually exclusive")',
    '--spec-model': 'vLLM refuses it next to the --speculative-config the module passes ("mutually exclusive")',
    '--spec-tokens': 'vLLM refuses it next to the --speculative-config the module passes ("mutually exclusive")',
    '--uds': 'vLLM then listens on a Unix socket and ignores --host and --port: nothing answers on the port',
    '--headless': 'no API server starts: nothing answers on the port',
    '--grpc': 'vLLM then serves gRPC instead of the OpenAI HTTP API the readiness check and clients use',
    '--config': 'a YAML file of options inside the container cannot be checked here',
    '--help': 'vllm serve prints its help and exits, so the container stops at once',
}

# Flags vLLM accepts that vllm-ascend does not support on 310P: {flag: why, with its source}.
_TP_ONLY = ('these devices run tensor parallelism only (vllm-ascend docs, "Qwen3.5-Dense" tutorial, '
            'parallelism note: the TP scenario only); use vllm_serve_tensor_parallel_size')
UNSUPPORTED_ON_310P = {
    '--kv-transfer-config': 'vllm-ascend\'s 310P model runner stops at start with "KV cache transfer is not supported '
                            'for 310P." (vllm_ascend/_310p/model_runner_310p.py, v0.23.0)',
    '--pipeline-parallel-size': _TP_ONLY,
    '--data-parallel-size': _TP_ONLY,
    '--decode-context-parallel-size': _TP_ONLY,
    '--prefill-context-parallel-size': _TP_ONLY,
    '--enable-expert-parallel': _TP_ONLY,
}
