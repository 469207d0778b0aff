#!/usr/bin/env bash
# Usage: scripts/core-venv.sh CORE   (an ansible-core release meta/runtime.yml claims, e.g. 2.21.5)
# Create .venv-core/CORE (once; again when the pins change) with a Python >= 3.12
# (scripts/python312.sh) and print its path: ansible-core CORE and the `ansible`
# package of the same release line (its bundled collections: community.docker,
# ansible.posix), plus the test tools of requirements-dev.txt at the same pins
# (pytest, matplotlib, molecule, molecule-plugins, pytest-testinfra, docker, requests, promql-parser).
# Lanes that run at the same time share one venv per release: the creation holds a lock.
set -euo pipefail
core=${1:?usage: scripts/core-venv.sh CORE}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# The `ansible` package whose ansible-core requirement admits CORE (its METADATA:
# ansible 13.8.0 requires ansible-core~=2.20.7, ansible 14.5.0 ansible-core~=2.21.5).
case "$core" in
  2.20.*) bundle=13.8.0 ;;
  2.21.*) bundle=14.5.0 ;;
  *) echo "scripts/core-venv.sh: no ansible package known for ansible-core $core: add it here" >&2; exit 2 ;;
esac
tools=$(grep -E '^(pytest|pytest-testinfra|hypothesis|molecule|molecule-plugins\[docker\]|matplotlib|docker|requests|promql-parser)(==[^ ]+)?$' \
  requirements-dev.txt)
want=$(printf 'ansible==%s ansible-core==%s %s' "$bundle" "$core" "$(echo "$tools" | tr '\n' ' ')")
venv=$root/.venv-core/$core
mkdir -p "$root/.venv-core"
exec 9>"$root/.venv-core/$core.lock"
flock 9
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$venv/.pins" 2>/dev/null)" != "$want" ]; then
  py=$(scripts/python312.sh)
  rm -rf "$venv"
  echo "core-venv: creating $venv with $py ($want)" >&2
  "$py" -m venv "$venv"
  log=$root/.venv-core/$core.log
  # shellcheck disable=SC2086 # one argument per requirement
  if ! { "$venv/bin/pip" install -q --upgrade pip && "$venv/bin/pip" install -q $want; } >"$log" 2>&1; then
    tail -20 "$log" >&2
    echo "core-venv: pip failed (whole log: $log)" >&2
    exit 1
  fi
  echo "$want" > "$venv/.pins"
fi
echo "$venv"
