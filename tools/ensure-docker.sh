#!/usr/bin/env bash
# Make sure a Docker daemon answers, installing and starting Debian's docker.io
# when needed. Used by `make lab` and `make test`; safe to run repeatedly.
set -euo pipefail

log() { printf '[ensure-docker] %s\n' "$*"; }

if docker info >/dev/null 2>&1; then
  log "a Docker daemon answers"
  exit 0
fi

if ! command -v dockerd >/dev/null 2>&1; then
  log "installing Debian's docker.io"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends docker.io >/dev/null
fi

if command -v systemctl >/dev/null 2>&1 && [ "$(systemctl is-system-running 2>/dev/null || true)" != "offline" ] \
   && systemctl start docker 2>/dev/null && docker info >/dev/null 2>&1; then
  log "started docker through systemd"
  exit 0
fi

log "starting dockerd in the background (log: /var/log/gpuops-dockerd.log)"
# In a session of its own (setsid), detached from the caller's terminal and
# process group: Ctrl-C in `make test` or `make lab`, or a SIGTERM sent to
# the make's process group, must not stop the daemon and every container.
setsid dockerd </dev/null >/var/log/gpuops-dockerd.log 2>&1 &
for _ in $(seq 1 60); do
  if docker info >/dev/null 2>&1; then
    log "dockerd answers"
    exit 0
  fi
  sleep 1
done
log "dockerd did not answer within 60 s; last lines of its log:"
tail -n 20 /var/log/gpuops-dockerd.log >&2
exit 1
