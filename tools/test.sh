#!/usr/bin/env bash
# `make test`: every part in order, each one timed; at the end, whatever
# happened, the table of parts and of Molecule suites (tools/test-summary.py).
# Fails when a part fails, after the table.
#
#   TEST_PARTS="lint units"   only these parts (default: all, in this order)
#
# Interrupted (Ctrl-C, or SIGTERM to the process group): the parts stop, the
# Molecule containers of this run are removed, and the Docker daemon and a
# running lab are left alone (tools/ensure-docker.sh starts dockerd in a
# session of its own). A later `make test` starts clean: each scenario
# begins with destroy, and leftovers of an interrupted run are removed here.
set -euo pipefail
cd "$(dirname "$0")/.."

PARTS=${TEST_PARTS:-lint sanity units pytest rules dist-test molecule}
REPORT=.build/test-report
MAKE_CMD=${MAKE:-make}

log() { printf '[make test] %s\n' "$*"; }

# Containers and networks a Molecule run made (the docker driver labels its
# containers owner=molecule); the lab's (label gpuops.lab) are not touched.
clean_molecule() {
  if docker info >/dev/null 2>&1; then
    docker ps -aq --filter label=owner=molecule | xargs -r docker rm -f >/dev/null 2>&1 || true
    docker network ls -q --filter name=gpuops-molecule | xargs -r docker network rm >/dev/null 2>&1 || true
  fi
}

summary() {
  python3 tools/test-summary.py "$REPORT" || true
}

# Every process below this script (the part's make, molecule, ansible).
descendants() {
  local pid child
  for child in $(ps -o pid= --ppid "$1" 2>/dev/null); do
    descendants "$child"
    echo "$child"
  done
}

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

rm -rf "$REPORT"
mkdir -p "$REPORT/checks"
# What an interrupted run left behind (its containers, lane networks).
clean_molecule

failed=0
for part in $PARTS; do
  start=$(date +%s)
  rc=0
  log "part $part"
  # In the background and waited for, so that a signal reaches the trap at once.
  if [ "$part" = molecule ]; then
    GPUOPS_CHECKS_DIR="$PWD/$REPORT/checks" "$MAKE_CMD" --no-print-directory molecule &
  else
    "$MAKE_CMD" --no-print-directory "$part" &
  fi
  wait $! || rc=$?
  printf '%s\t%s\t%s\n' "$part" "$(( $(date +%s) - start ))" "$rc" >>"$REPORT/parts.tsv"
  if [ "$rc" -ne 0 ]; then failed=1; break; fi
done
# Each Molecule part (scenario) with its time, from the lanes' results.
if [[ " $PARTS " == *" molecule "* ]] && [ -f .build/molecule-logs/.results ]; then
  while read -r s rc secs; do printf 'molecule: %s\t%s\t%s\n' "$s" "$secs" "$rc"; done \
    <.build/molecule-logs/.results >>"$REPORT/parts.tsv"
fi
echo
summary
[ "$failed" -eq 0 ] && log "all parts passed" || log "a part FAILED"
exit "$failed"
