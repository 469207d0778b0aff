#!/usr/bin/env bash
# Run ansible-test on a copy of this checkout laid out as
# <cache>/ansible_collections/ascend/vllm (ansible-test needs that path; the
# copy lives outside this git work tree, else ansible-test asks git which
# files exist and finds the copy ignored). Only files git would commit are copied. Usage: scripts/ansible-test.sh sanity ...
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# ansible-test downloads get-pip from a host we cannot reach: seed its cache.
cache=~/.ansible/test/cache
mkdir -p "$cache"
for v in 24_2 25_2 25_3; do
  cmp -s scripts/get_pip_offline.py "$cache/get_pip_$v.py" || cp scripts/get_pip_offline.py "$cache/get_pip_$v.py"
done
base=${XDG_CACHE_HOME:-$HOME/.cache}/ascend-vllm-test/$(printf '%s' "$root" | sha256sum | cut -c1-12)
dest=$base/ansible_collections/ascend/vllm
# A fresh copy each run, keeping ansible-test's own output cache.
mkdir -p "$base/keep"
[ -d "$dest/tests/output" ] && rm -rf "$base/keep/output" && mv "$dest/tests/output" "$base/keep/"
rm -rf "$dest" && mkdir -p "$dest"
git ls-files -co --exclude-standard -z | rsync -a --from0 --files-from=- ./ "$dest/"
[ -d "$base/keep/output" ] && mkdir -p "$dest/tests" && mv "$base/keep/output" "$dest/tests/output"
cd "$dest"
# ANSIBLE_TEST picks another ansible-core (make sanity-newer).
exec "${ANSIBLE_TEST:-$root/.venv/bin/ansible-test}" "$@"
