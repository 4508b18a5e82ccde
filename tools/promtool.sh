#!/usr/bin/env bash
# The alert rules' checks: render .build/rules/gpuops.rules.yml from the
# prometheus role's alert defaults (module_utils/monitoring/_alert_rules.py), then
# `promtool check rules` and the rule unit tests (`promtool test rules
# tests/promtool/*.yml`). promtool is the one on PATH, else the one of
# Debian's prometheus package, fetched once with `apt-get download` (no root,
# nothing but the Debian archive) into .build/promtool/. Safe to run
# repeatedly.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '[promtool] %s\n' "$*"; }
cache=.build/promtool

if command -v promtool >/dev/null 2>&1; then
  promtool=$(command -v promtool)
elif [ -x "$cache/usr/bin/promtool" ]; then
  promtool=$cache/usr/bin/promtool
else
  log "fetching Debian's prometheus package for promtool into $cache/"
  rm -rf "${cache:?}/deb" "${cache:?}/usr"
  mkdir -p "$cache/deb"
  if ! (cd "$cache/deb" && apt-get download -q prometheus); then
    # A fresh machine may have no package lists yet: as root, read them once and try again.
    if [ "$(id -u)" = 0 ] && apt-get update -q >/dev/null && (cd "$cache/deb" && apt-get download -q prometheus); then
      :
    else
      log "apt-get download prometheus failed: refresh the package lists (sudo apt-get update) or put promtool on PATH"
      exit 1
    fi
  fi
  tmp=$cache/extract.$$
  rm -rf "$tmp"
  dpkg-deb -x "$cache"/deb/prometheus_*.deb "$tmp"
  mkdir -p "$cache/usr/bin"
  mv "$tmp/usr/bin/promtool" "$cache/usr/bin/promtool.part"
  mv "$cache/usr/bin/promtool.part" "$cache/usr/bin/promtool"
  rm -rf "$tmp" "${cache:?}/deb"
  promtool=$cache/usr/bin/promtool
fi
log "$promtool: $("$promtool" --version 2>&1 | head -n 1)"

# The checkout as the installed collection gpuops.cluster (as `make venv` links it).
link=.build/collections/ansible_collections/gpuops/cluster
if [ ! -e "$link" ]; then
  mkdir -p "$(dirname "$link")"
  ln -sfn ../../../.. "$link"
fi
python=.venv/bin/python
[ -x "$python" ] || python=python3

mkdir -p .build/rules
PYTHONPATH=.build/collections "$python" tools/render-alert-rules.py \
  roles/prometheus/defaults/main/alerts.yml .build/rules/gpuops.rules.yml
"$promtool" check rules .build/rules/gpuops.rules.yml
"$promtool" test rules tests/promtool/*.yml
