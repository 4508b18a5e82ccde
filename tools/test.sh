#!/usr/bin/env bash
# `make test`: every part in order, each one timed; at the end, whatever
# happened, the table of parts and of Molecule suites (tools/test-summary.py).
# Fails when a part fails, after the table.
#
#   TEST_PARTS="lint units"   only these parts (default: all)
#
# First the setup (venv, Docker daemon, apt cache, images, wheelhouse); then
# the Molecule lanes start in the background and the other parts run one
# after the other beside them (lint, sanity, units, pytest, rules, scale,
# dist-test); a failed part stops the parts after it, Molecule runs to its end.
# Each part is the make target of its name, but `scale`: the scale bench at
# a small size (make scale-smoke), not the full `make scale`.
#
# Interrupted (Ctrl-C, or SIGTERM to the process group): the parts stop, the
# Molecule containers of this run are removed, and the Docker daemon and a
# running lab are left alone (tools/ensure-docker.sh starts dockerd in a
# session of its own). A later `make test` starts clean: each scenario
# begins with destroy, and leftovers of an interrupted run are removed here.
set -euo pipefail
cd "$(dirname "$0")/.."

PARTS=${TEST_PARTS:-lint sanity units pytest rules scale dist-test molecule}
REPORT=.build/test-report
MAKE_CMD=${MAKE:-make}

log() { printf '[make test] %s\n' "$*"; }

# Containers and networks the Molecule lanes made (tools/molecule-lanes.sh:
# networks gpuops-lane-N); a cluster `make cluster` keeps and the lab are
# on other networks and are not touched.
# shellcheck disable=SC2329  # called from the trap and below
clean_molecule() {
  local net
  docker info >/dev/null 2>&1 || return 0
  for net in $(docker network ls --format '{{.Name}}' --filter name=gpuops-lane-); do
    docker ps -aq --filter network="$net" | xargs -r docker rm -f >/dev/null 2>&1 || true
    docker network rm "$net" >/dev/null 2>&1 || true
  done
}

# shellcheck disable=SC2329  # called from the trap and below
summary() {
  python3 tools/test-summary.py "$REPORT" || true
}

# Every process below this script (the part's make, molecule, ansible).
# shellcheck disable=SC2329  # called from the trap
descendants() {
  local child
  for child in $(ps -o pid= --ppid "$1" 2>/dev/null); do
    descendants "$child"
    echo "$child"
  done
}

# shellcheck disable=SC2329  # the INT and TERM trap
interrupted() {
  trap '' INT TERM
  log "interrupted: stopping the parts and removing this run's Molecule containers"
  # Ctrl-C already reached the whole foreground process group; a SIGTERM
  # sent to this script alone did not, so stop what runs below it. dockerd
  # runs in a session of its own (setsid): it and a running lab go on.
  descendants $$ | xargs -r kill -TERM 2>/dev/null || true
  wait 2>/dev/null || true
  clean_molecule
  summary
  exit 130
}
trap interrupted INT TERM

# One run at a time: a second one would remove this one's Molecule
# containers (clean_molecule) and its report. The pid file names the run.
mkdir -p .build
LOCK=.build/test.pid
other=$(cat "$LOCK" 2>/dev/null || true)
if [ -n "$other" ] && [ "$other" != "$$" ] && kill -0 "$other" 2>/dev/null \
   && tr '\0' ' ' <"/proc/$other/cmdline" 2>/dev/null | grep -q 'tools/test.sh'; then
  log "another make test runs (pid $other): wait for it, or stop it (kill -INT $other), then start again"
  exit 2
fi
echo $$ >"$LOCK"
trap 'rm -f "$LOCK"' EXIT

run_start=$(date +%s)
rm -rf "$REPORT"
mkdir -p "$REPORT/checks"
# What an interrupted run left behind (its containers, lane networks).
clean_molecule

# One part, timed, its line appended to parts.tsv. Run in the background
# and waited for, so that a signal reaches the trap at once.
run_part() {  # name make-target...
  local name=$1 start rc=0
  shift
  start=$(date +%s)
  log "part $name: start"
  "$MAKE_CMD" --no-print-directory "$@" &
  wait $! || rc=$?
  printf '%s\t%s\t%s\n' "$name" "$(( $(date +%s) - start ))" "$rc" >>"$REPORT/parts.tsv"
  log "part $name: $([ "$rc" -eq 0 ] && echo passed || echo "FAILED (rc $rc)") in $(( $(date +%s) - start )) s"
  return "$rc"
}

failed=0
molecule_pid=""
others=()
for part in $PARTS; do
  [ "$part" = molecule ] || others+=("$part")
done
# What every part needs, once: the venv, the Docker daemon, the apt cache,
# the images and the torch wheelhouse (each a no-op when done).
setup=(venv)
if [[ " $PARTS " == *" molecule "* || " $PARTS " == *" dist-test "* ]]; then setup+=(images wheelhouse); fi
run_part setup "${setup[@]}" || failed=1
if [ "$failed" -eq 0 ] && [[ " $PARTS " == *" molecule "* ]]; then
  # Molecule's clusters spend much of their time waiting for jobs, scrapes
  # and timeouts: the other parts run beside them, one after the other.
  export GPUOPS_CHECKS_DIR="$PWD/$REPORT/checks"
  run_part molecule molecule &
  molecule_pid=$!
fi
if [ "$failed" -eq 0 ]; then
  for part in "${others[@]}"; do
    target=$part
    [ "$part" = scale ] && target=scale-smoke
    run_part "$part" "$target" || { failed=1; break; }
  done
fi
if [ -n "$molecule_pid" ]; then
  wait "$molecule_pid" || failed=1
fi
# Each Molecule part (scenario) with its time, from the lanes' results.
if [[ " $PARTS " == *" molecule "* ]] && [ -f .build/molecule-logs/.results ]; then
  while read -r s rc secs; do printf 'molecule: %s\t%s\t%s\n' "$s" "$secs" "$rc"; done \
    <.build/molecule-logs/.results >>"$REPORT/parts.tsv"
fi
# The whole run's wall time: Molecule ran beside the other parts, so the
# parts' times add up to more.
echo "$(( $(date +%s) - run_start ))" >"$REPORT/wall"
echo
summary
if [ "$failed" -eq 0 ]; then log "all parts passed"; else log "a part FAILED"; fi
exit "$failed"
