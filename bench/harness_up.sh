#!/usr/bin/env bash
# Time bringing up the simulated-node harness: one node of each platform + the local registry,
#   cold: nothing cached (after `simctl down --all`, built images removed, registry storage wiped)
#   warm: images built and pushed already (nodes and registry stopped in between)
# Targets on a 2-core machine: cold < 180 s, warm < 30 s. A measurement, not a timed test.
#
# Usage: bench/harness_up.sh [--force]
# When simulated nodes this benchmark did not start exist (someone is using the harness), it
# leaves them alone: instead of `simctl down --all` it runs with its own state directory and
# registry port (ASCEND_SIM_REGISTRY_PORT, default 5099 then). --force removes them instead.
set -euo pipefail
cd "$(dirname "$0")/.."
SIMCTL=(tests/sim/simctl)
NODES=(--node bench-duo:atlas_300i_duo --node bench-pro:atlas_200i_pro --node bench-oe:atlas_200i_pro_openeuler)
export ASCEND_SIM_QUIET=${ASCEND_SIM_QUIET:-0}

others=$(docker ps -a --filter label=ascend-sim.node --format '{{.Label "ascend-sim.node"}}' | grep -v '^bench-' || true)
mode=clean
if [ -n "$others" ] && [ "${1:-}" != "--force" ]; then
  mode=isolated
  export ASCEND_SIM_STATE_DIR
  ASCEND_SIM_STATE_DIR=$(mktemp -d /tmp/ascend-sim-bench.XXXXXX)
  export ASCEND_SIM_REGISTRY_PORT=${ASCEND_SIM_REGISTRY_PORT:-5099}
  echo "harness_up: other nodes exist ($(echo "$others" | tr '\n' ' ')); leaving them alone:" \
       "state in $ASCEND_SIM_STATE_DIR, registry on port $ASCEND_SIM_REGISTRY_PORT"
fi
STATE_DIR="${ASCEND_SIM_STATE_DIR:-${XDG_STATE_HOME:-$HOME/.local/state}/ascend-sim}"

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

echo "== cold: nodes down, ascend-sim images removed, registry storage wiped"
if [ "$mode" = clean ]; then
  "${SIMCTL[@]}" down --all >/dev/null
else
  "${SIMCTL[@]}" down bench-duo bench-pro bench-oe >/dev/null
fi
python3 -c 'import sys; sys.path.insert(0, "tests/sim"); import sim; sim.remove_images()'
"${SIMCTL[@]}" registry stop >/dev/null
rm -rf "$STATE_DIR/registry"
t0=$(now)
"${SIMCTL[@]}" up "${NODES[@]}"
t1=$(now)
cold=$(elapsed "$t0" "$t1")

echo "== warm: nodes and registry down, images and registry storage kept"
"${SIMCTL[@]}" down bench-duo bench-pro bench-oe >/dev/null
"${SIMCTL[@]}" registry stop >/dev/null
t0=$(now)
"${SIMCTL[@]}" up "${NODES[@]}"
t1=$(now)
warm=$(elapsed "$t0" "$t1")

"${SIMCTL[@]}" down bench-duo bench-pro bench-oe >/dev/null
if [ "$mode" = isolated ]; then
  "${SIMCTL[@]}" registry stop >/dev/null
  rm -rf "$ASCEND_SIM_STATE_DIR"
  docker images --format '{{.Repository}}:{{.Tag}}' | grep "^127.0.0.1:$ASCEND_SIM_REGISTRY_PORT/" \
    | xargs -r docker rmi >/dev/null
fi
echo
echo "harness up, 3 nodes + registry ($mode): cold ${cold}s (target < 180s), warm ${warm}s (target < 30s)"
