#!/usr/bin/env bash
# Create .venv with the pinned toolchain and link this checkout as the
# ascend.vllm collection (ansible.cfg points collections_path there).
# Idempotent: re-running with nothing changed takes a second.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
py=${PYTHON:-python3}
stamp=.venv/.requirements.sha
want=$(sha256sum requirements-dev.txt | cut -d' ' -f1)
if [ ! -x .venv/bin/python ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  "$py" -m venv .venv
  .venv/bin/pip install -q --upgrade pip
  .venv/bin/pip install -q -r requirements-dev.txt
  echo "$want" > "$stamp"
fi
link=.ansible/collections/ansible_collections/ascend/vllm
mkdir -p "$(dirname "$link")"
if [ "$(readlink "$link" 2>/dev/null)" != "$root" ]; then
  rm -rf "$link"
  ln -s "$root" "$link"
fi
