#!/usr/bin/env bash
# Start apt-cacher-ng on the host so that image builds and the containers'
# apt runs share one package cache. The containers reach it through the lab
# network's gateway (see tools/lab.env). Safe to run repeatedly.
set -euo pipefail

log() { printf '[apt-cache] %s\n' "$*"; }
port=3142

if curl -fsS -o /dev/null "http://127.0.0.1:${port}/acng-report.html" 2>/dev/null; then
  log "apt-cacher-ng answers on :${port}"
  exit 0
fi

if ! command -v apt-cacher-ng >/dev/null 2>&1; then
  log "installing apt-cacher-ng"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends apt-cacher-ng curl >/dev/null
fi

# Its default Debian backend list does not resolve here: use the archive the
# host itself uses.
mirror=$(grep -rhE '^[[:space:]]*(URIs:|deb )' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null \
         | grep -oE 'https?://[^ ]+/debian/?' | grep -v security | head -n 1 || true)
mirror=${GPUOPS_DEBIAN_MIRROR:-${mirror:-http://deb.debian.org/debian}}
echo "${mirror%/}/" > /etc/apt-cacher-ng/backends_debian
log "Debian backend: ${mirror%/}/"

mkdir -p /var/cache/apt-cacher-ng /var/log/apt-cacher-ng /run/apt-cacher-ng
chown -R apt-cacher-ng:apt-cacher-ng /var/cache/apt-cacher-ng /var/log/apt-cacher-ng /run/apt-cacher-ng 2>/dev/null || true
if command -v systemctl >/dev/null 2>&1 && [ "$(systemctl is-system-running 2>/dev/null || true)" != "offline" ] \
   && systemctl restart apt-cacher-ng 2>/dev/null; then
  :
else
  pkill -x apt-cacher-ng 2>/dev/null || true
  /usr/sbin/apt-cacher-ng -c /etc/apt-cacher-ng ForeGround=0 BindAddress=0.0.0.0 Port="${port}" \
    PidFile=/run/apt-cacher-ng/pid
fi
for _ in $(seq 1 30); do
  if curl -fsS -o /dev/null "http://127.0.0.1:${port}/acng-report.html" 2>/dev/null; then
    log "apt-cacher-ng answers on :${port}"
    exit 0
  fi
  sleep 1
done
log "apt-cacher-ng did not start"
exit 1
