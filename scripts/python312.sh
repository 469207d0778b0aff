#!/usr/bin/env bash
# Print the path of a Python >= 3.12 that can create virtual environments: the
# newer ansible-core releases meta/runtime.yml claims (2.20, 2.21) need one on
# the controller. Looked for, in order:
#   1. $PY312, when set;
#   2. python3.12, python3.13, python3.14 on PATH (Debian 13 ships python3.13:
#      apt-get install python3.13-venv);
#   3. pyenv's versions (~/.pyenv/versions/3.12.* first; the image of this
#      project's machines has 3.12.1 and 3.13.0 there).
# Debian 12 has no Python 3.12 or newer: bookworm, bookworm-updates and
# bookworm-security ship 3.11 only (apt-cache policy python3.12 finds nothing),
# and uv's or pbs-installer's managed Pythons are downloaded from GitHub, which a
# machine that reaches only PyPI and Debian cannot do. Without any of the three
# the lanes that need it (make sanity-newer, units-newer, molecule-newer) stop
# here, saying so.
set -euo pipefail
ok() {
  "$1" -c 'import sys, ensurepip, venv; sys.exit(sys.version_info < (3, 12))' 2>/dev/null
}
if [ -n "${PY312:-}" ]; then
  # An explicit choice is used or refused, never silently replaced.
  if ok "$PY312"; then echo "$PY312"; exit 0; fi
  echo "PY312=$PY312 is not a Python >= 3.12 with venv and ensurepip." >&2
  exit 1
fi
candidates=()
for name in python3.12 python3.13 python3.14; do
  p=$(command -v "$name" 2>/dev/null || true)
  # pyenv's shims answer on PATH for versions that are not selected: take the real binary below.
  case "$p" in */.pyenv/shims/*) p= ;; esac
  [ -n "$p" ] && candidates+=("$p")
done
pyenv_root=${PYENV_ROOT:-$HOME/.pyenv}
# The oldest minor release first (3.12, the floor ansible-core 2.20 sets), its newest patch first.
for minor in 12 13 14 15; do
  for dir in $(printf '%s\n' "$pyenv_root"/versions/3."$minor".* | sort -t. -k3,3nr); do
    [[ $dir =~ /3\.$minor\.[0-9]+$ ]] && candidates+=("$dir/bin/python3")
  done
done
for p in "${candidates[@]}"; do
  if [ -x "$p" ] && ok "$p"; then
    echo "$p"
    exit 0
  fi
done
cat >&2 <<'EOF'
No Python >= 3.12 found (tried $PY312, python3.14/3.13/3.12 on PATH, ~/.pyenv/versions/3.12+).
ansible-core 2.20 and 2.21 need one on the controller. Debian 12 ships Python 3.11 only.
Fix: on Debian 13, apt-get install python3.13-venv; with pyenv, pyenv install 3.12;
or point PY312 at any Python >= 3.12 (make sanity-newer PY312=/path/to/python3.12).
EOF
exit 1
