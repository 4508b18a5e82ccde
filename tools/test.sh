#!/usr/bin/env bash
# `make test`: every part in order, each one timed; at the end, whatever
# happened, the table of parts and of Molecule suites (tools/test-summary.py).
# Fails when a part fails, after the table.
#
#   TEST_PARTS="lint units"   only these parts (default: all)
#
# First the caches are read (tools/test-caches.sh: which are cold, printed at
# the start and in the table at the end), then the setup (venv, Docker daemon,
# apt cache). Then three things run side by side:
#   - the heavy, cold-only steps, started first, in the background: the bare
#     images; then the Slurm builds from the tarball (part slurm-packages,
#     tools/slurm-packages.sh) beside the package layers (part images-pkgs),
#     the CUDA layer and the wheelhouse (part images);
#   - the Molecule lanes (part molecule), from the end of images-pkgs on:
#     site and gpu_stack wait in their lane for the images part, and the
#     scenarios that install the built Slurm for their release's build
#     (tools/wait-slurm-packages.sh);
#   - the other parts, one after the other (lint, sanity, units, pytest,
#     rules, scale, dist-test, which waits for the images); a failed part
#     stops the parts after it, Molecule runs to its end.
# On a warm machine the heavy steps are no-ops of seconds. Each part is the
# make target of its name, but `scale`: the scale bench at a small size (make
# scale-smoke), not the full `make scale`.
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
  # The Slurm build containers (tools/slurm-packages.sh).
  docker ps -aq --filter name=gpuops-slurm-build- | xargs -r docker rm -f >/dev/null 2>&1 || true
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
cpu_pid=""
trap 'rm -f "$LOCK"; [ -z "$cpu_pid" ] || kill "$cpu_pid" 2>/dev/null || true' EXIT

run_start=$(date +%s)
rm -rf "$REPORT"
mkdir -p "$REPORT/checks"
# What an interrupted run left behind (its containers, lane networks).
clean_molecule

# One part, timed, its line appended to parts.tsv. Run in the background
# and waited for, so that a signal reaches the trap at once.
run_part() {  # name make-target...
  local name=$1 start rc=0 nice_cmd=()
  shift
  [ -z "${PART_NICE:-}" ] || nice_cmd=(nice -n "$PART_NICE")
  start=$(date +%s)
  log "part $name: start"
  "${nice_cmd[@]}" "$MAKE_CMD" --no-print-directory "$@" &
  wait $! || rc=$?
  printf '%s\t%s\t%s\n' "$name" "$(( $(date +%s) - start ))" "$rc" >>"$REPORT/parts.tsv"
  log "part $name: $([ "$rc" -eq 0 ] && echo passed || echo "FAILED (rc $rc)") in $(( $(date +%s) - start )) s"
  return "$rc"
}

failed=0
molecule_pid=""
heavy_pid=""
others=()
for part in $PARTS; do
  [ "$part" = molecule ] || others+=("$part")
done
has() { [[ " $PARTS " == *" $1 "* ]]; }

# Which caches are cold, before anything fills them: the run's kind, printed
# now and in the table at the end.
tools/test-caches.sh >"$REPORT/caches.tsv" || true
# How fast this machine is, before the run loads it (tools/machine-speed.py):
# the same commit's times differ by the machine's speed, not only by caches.
python3 tools/machine-speed.py >"$REPORT/machine.tsv" 2>/dev/null || true
python3 tools/test-summary.py --caches "$REPORT" || true
# How busy the cores are, every 30 s of the run (the summary's CPU line):
# busy all along means only less work makes the run shorter, not more lanes.
python3 tools/cpu-sampler.py "$REPORT/cpu.tsv" 30 &
cpu_pid=$!

# What every part needs, once: the venv; with containers, the Docker daemon
# and the apt cache (each a no-op when done).
setup=(venv)
if has molecule || has dist-test; then setup+=(host); fi
run_part setup "${setup[@]}" || failed=1

# The heavy, cold-only steps, first and in the background: the bare images
# (what the Slurm builds start from), then the Slurm builds beside the image
# layers and the wheelhouse. images.rc tells the parts waiting for them.
IMAGES_RC="$REPORT/images.rc"
PKGS_RC="$REPORT/pkgs.rc"
export GPUOPS_SLURM_PREBUILD_DIR="$PWD/.build/slurm-packages"
rm -rf "$GPUOPS_SLURM_PREBUILD_DIR"
if [ "$failed" -eq 0 ] && { has molecule || has dist-test; }; then
  (
    rc=0
    run_part images-bare bare-images || rc=$?
    sp_pid=""
    if [ "$rc" -eq 0 ] && has molecule; then
      run_part slurm-packages slurm-packages &
      sp_pid=$!
    fi
    if [ "$rc" -eq 0 ]; then run_part images-pkgs pkgs-images || rc=$?; fi
    echo "$rc" >"$PKGS_RC"
    if [ "$rc" -eq 0 ]; then run_part images images wheelhouse || rc=$?; fi
    echo "$rc" >"$IMAGES_RC"
    if [ -n "$sp_pid" ]; then wait "$sp_pid" || rc=1; fi
    exit "$rc"
  ) &
  heavy_pid=$!
fi
# Until the images part (or only its package layers: pkgs) has ended; fails when it failed.
images_ready() {
  local rc_file=$IMAGES_RC
  [ "${1:-}" != pkgs ] || rc_file=$PKGS_RC
  while [ ! -s "$rc_file" ]; do sleep 2; done
  [ "$(cat "$rc_file")" = 0 ]
}

if [ "$failed" -eq 0 ] && has molecule; then
  # Molecule's clusters spend much of their time waiting for jobs, scrapes
  # and timeouts: the other parts run beside them, one after the other.
  export GPUOPS_CHECKS_DIR="$PWD/$REPORT/checks"
  # The flows start from the package layers; site and gpu_stack wait in
  # their lanes for the rest of the images (GPUOPS_IMAGES_RC).
  export GPUOPS_IMAGES_RC="$PWD/$IMAGES_RC"
  (
    images_ready pkgs || { log "part molecule: not started, the images part failed"; exit 1; }
    run_part molecule molecule-lanes
  ) &
  molecule_pid=$!
fi
# Beside the Molecule lanes, the other parts run at a lower priority
# (TEST_OTHERS_NICE, default 5): the lanes (and on a fresh machine the image
# and Slurm builds they wait for) are the run's critical path, and the other
# parts, far shorter, fill the moments the lanes wait on their clusters
# instead of slowing the lanes while both cores are busy.
others_nice=""
if has molecule; then others_nice=${TEST_OTHERS_NICE:-5}; fi
if [ "$failed" -eq 0 ]; then
  for part in "${others[@]}"; do
    target=$part
    [ "$part" = scale ] && target=scale-smoke
    if [ "$part" = dist-test ] && ! images_ready; then
      log "part dist-test: not started, the images part failed"; failed=1; break
    fi
    PART_NICE=$others_nice run_part "$part" "$target" || { failed=1; break; }
  done
fi
if [ -n "$molecule_pid" ]; then
  wait "$molecule_pid" || failed=1
fi
if [ -n "$heavy_pid" ]; then
  wait "$heavy_pid" || failed=1
fi
# Each Molecule part (scenario) with its time, from the lanes' results.
if [[ " $PARTS " == *" molecule "* ]] && [ -f .build/molecule-logs/.results ]; then
  while read -r s rc secs; do printf 'molecule: %s\t%s\t%s\n' "$s" "$secs" "$rc"; done \
    <.build/molecule-logs/.results >>"$REPORT/parts.tsv"
fi
# The whole run's wall time: Molecule ran beside the other parts, so the
# parts' times add up to more.
echo "$(( $(date +%s) - run_start ))" >"$REPORT/wall"
kill "$cpu_pid" 2>/dev/null || true
cpu_pid=""
echo
summary
if [ "$failed" -eq 0 ]; then log "all parts passed"; else log "a part FAILED"; fi
exit "$failed"
