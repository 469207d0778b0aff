#!/usr/bin/env bash
# Install AISBench (ais-bench-benchmark, pinned) once per machine into a cached
# virtual environment outside the checkout, keyed by its version:
#   ${XDG_CACHE_HOME:-~/.cache}/ascend-vllm/aisbench-<version>
# The eval role's AISBench runner (eval_runner: aisbench) uses it on the controller.
# Idempotent: a ready environment (marker file, ais_bench imports) is reused in a second.
#
# torch is installed first as the CPU-only build (AISBench's service mode sends HTTP
# requests and never runs a model): from the PyTorch CPU index when it answers, else
# from pip's configured indexes/find-links. That keeps the environment near 2 GB
# instead of 6.7 GB with the CUDA wheels PyPI's torch pulls in.
set -euo pipefail
version=${AISBENCH_VERSION:-3.1.20260630}
torch_version=${AISBENCH_TORCH:-2.13.0}
cpu_index=${AISBENCH_TORCH_INDEX:-https://download.pytorch.org/whl/cpu}
venv=${ASCEND_VLLM_AISBENCH_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/ascend-vllm/aisbench-$version}
py=${PYTHON:-python3.11}
marker=$venv/.ascend-vllm-ready

check() {
  "$venv/bin/python" -c 'import ais_bench.benchmark.datasets, ais_bench.benchmark.summarizers' >/dev/null 2>&1 &&
    "$venv/bin/ais_bench" --help >/dev/null 2>&1
}

if [ -f "$marker" ] && [ "$(cat "$marker")" = "$version" ] && check; then
  echo "AISBench $version: cached in $venv"
  exit 0
fi

start=$(date +%s)
echo "AISBench $version: installing into $venv (once per machine)"
rm -rf "$venv"
mkdir -p "$(dirname "$venv")"
"$py" -m venv "$venv"
pip=("$venv/bin/pip" install -q --disable-pip-version-check)
if curl -fsS -m 15 -o /dev/null "$cpu_index/torch/" 2>/dev/null; then
  "${pip[@]}" --index-url "$cpu_index" "torch==$torch_version+cpu"
elif ! "${pip[@]}" --no-index "torch==$torch_version+cpu" 2>/dev/null &&
     ! "${pip[@]}" "torch==$torch_version+cpu"; then
  echo "AISBench: no CPU-only torch $torch_version: $cpu_index does not answer and pip's indexes have no" \
       "torch==$torch_version+cpu. Put the wheel in a find-links directory (pip config) or set" \
       "AISBENCH_TORCH_INDEX to a mirror of the PyTorch CPU index, then run again." >&2
  rm -rf "$venv"
  exit 1
fi
# ais-bench-benchmark pins numpy<2, which pyarrow >= 20 cannot import with, and its
# mmengine config loader needs pkg_resources (setuptools < 81).
"${pip[@]}" "ais-bench-benchmark==$version" "pyarrow<20" "setuptools<81" "torch==$torch_version+cpu"
if ! check; then
  echo "AISBench $version: installed, but ais_bench does not import; see: $venv/bin/ais_bench --help" >&2
  exit 1
fi
echo "$version" > "$marker"
echo "AISBench $version: ready in $venv ($(( $(date +%s) - start )) s, $(du -sh "$venv" | cut -f1))"
