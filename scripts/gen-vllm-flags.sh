#!/usr/bin/env bash
# The vllm serve flag table of each vLLM version given (default: every committed table) from
# vLLM's own parser: scripts/gen-vllm-flags.py VERSION [--check] [--torch REQ] [--fresh].
# Uses $PYTHON (default python3) outside the virtualenv; the virtualenv is cached in
# ~/.cache/ascend-vllm-flags/<version>.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
py=${PYTHON:-python3}
versions=() opts=()
for arg in "$@"; do
  case $arg in -*) opts+=("$arg") ;; *) versions+=("$arg") ;; esac
done
if [ ${#versions[@]} -eq 0 ]; then
  for f in "$root"/plugins/plugin_utils/contracts/vllm_flags/*.json; do
    versions+=("$(basename "$f" .json)")
  done
fi
for v in "${versions[@]}"; do
  "$py" "$root/scripts/gen-vllm-flags.py" "$v" ${opts[@]+"${opts[@]}"}
done
