#!/usr/bin/env bash
# The system side of the toolchain: Debian's docker.io, docker-registry,
# mmdebstrap (simulated-node images), iptables, rsync, shellcheck (sanity), haproxy and
# prometheus (promtool: the unit tests of the shipped dashboard and alert rules)
# when missing, and a Docker Engine answering on /var/run/docker.sock (dockerd
# started in the background when it is not running). Idempotent; needs root.
set -euo pipefail
need=()
command -v dockerd >/dev/null 2>&1 || need+=(docker.io)
command -v docker-registry >/dev/null 2>&1 || need+=(docker-registry)
command -v mmdebstrap >/dev/null 2>&1 || need+=(mmdebstrap)
command -v iptables >/dev/null 2>&1 || need+=(iptables)
command -v rsync >/dev/null 2>&1 || need+=(rsync)
command -v shellcheck >/dev/null 2>&1 || need+=(shellcheck)
command -v haproxy >/dev/null 2>&1 || need+=(haproxy)
command -v promtool >/dev/null 2>&1 || need+=(prometheus)
if [ ${#need[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need[@]}"
fi
if ! docker info >/dev/null 2>&1; then
  mkdir -p /var/log
  # dockerd outlives this script: it must not inherit our descriptors beyond stdio, or a lock the
  # caller holds (flock /tmp/ascend-docker.lock make images) stays held for as long as dockerd runs.
  (
    for path in /proc/"$BASHPID"/fd/*; do
      fd=${path##*/}
      if [ "$fd" -gt 2 ]; then eval "exec $fd>&-" 2>/dev/null; fi
    done
    exec setsid nohup dockerd >/var/log/dockerd.log 2>&1
  ) &
  for _ in $(seq 1 60); do
    docker info >/dev/null 2>&1 && break
    sleep 1
  done
  docker info >/dev/null 2>&1 || { echo "dockerd did not start; last log lines:" >&2; tail -n 30 /var/log/dockerd.log >&2; exit 1; }
fi
