#!/usr/bin/env bash
# The main job on a machine without Ascend hardware: bring up one simulated
# Atlas 300I DUO node and the local registry (tests/sim), deploy with the
# user's own command, then ask the deployed service for a completion.
# On real hardware skip the first step and point -i at your inventory.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH="$root/.venv/bin:$PATH"
export ANSIBLE_CONFIG="$root/ansible.cfg"

echo "==> Simulated Atlas 300I DUO node 'atlas-demo' and the local registry"
tests/sim/simctl up --node atlas-demo:atlas_300i_duo

echo "==> ansible-playbook ascend.vllm.site -i inventories/demo"
ansible-playbook ascend.vllm.site -i inventories/demo

# The guide's request, its limit sent as max_tokens: vLLM 0.23's /v1/completions ignores the guide's
# max_completion_tokens (16 tokens, the default; seen on vLLM's own server, tests/sim/refserver).
echo "==> A completion from the deployed service (the guide's request)"
reply=$(ANSIBLE_LOAD_CALLBACK_PLUGINS=true ANSIBLE_STDOUT_CALLBACK=ansible.posix.json \
  ansible atlas-demo -i inventories/demo -m ansible.builtin.uri -a '{
  "url": "http://127.0.0.1:8080/v1/completions", "method": "POST", "body_format": "json",
  "body": {"model": "qwen3.5", "prompt": "The future of AI is",
           "max_tokens": 50, "temperature": 0}}')
python3 -c '
import json, sys
reply = json.load(sys.stdin)["plays"][0]["tasks"][0]["hosts"]["atlas-demo"]
print("HTTP", reply["status"], "completion:", reply["json"]["choices"][0]["text"])
' <<<"$reply"
echo "==> Done. Remove the simulated node with: make demo-down"
