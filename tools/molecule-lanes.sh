#!/usr/bin/env bash
# Every Molecule scenario (`make molecule`), in lanes that run side by side.
#
# The layout (docs/testing.md): two shared clusters built from the bare
# images with check, converge and idempotence, each running every read-only
# suite (site: Debian 12, the whole site.yml; slurm_trixie: Debian 13, the
# Slurm part), gpu_stack (the GPU software, installed from the bare image),
# and the flows that change or break a cluster, each on its own cluster from
# the package layer image (safety, health, day2, maintenance, topology, ha). A scenario spends part of its time waiting (jobs, scrapes,
# timeouts), so two lanes on two cores finish well before one. Each lane has
# its own docker network and subnet (gpuops-lane-N, 172.31.241+N.0/24:
# GPUOPS_MOLECULE_NETWORK / GPUOPS_MOLECULE_NET, read by the molecule.yml
# files; apart from a cluster `make cluster` keeps and from the lab) and its own HOME
# (Molecule installs a copy of the collection into ~/.ansible there). Every
# scenario's containers have names of their own, so any two can run at once.
#
# MOLECULE_SCENARIOS: the scenarios to run (all by default), in their lane
# order; MOLECULE_LANES=1 runs them one after the other. The two shared
# clusters (site, slurm_trixie) come first in their lanes. The other order
# (the flows first, so that on a fresh machine the Slurm builds are done
# before site and slurm_trixie need them) was measured no better: 66:55 on a
# fresh machine against about 63 minutes this way, and a warm run projected
# at 47 minutes (docs/testing.md, runs 2 to 5). On a fresh machine the shared
# clusters wait for their release's Slurm build (tools/slurm-packages.sh,
# started first) where they need it.
# GPUOPS_IMAGES_RC (set by make test, which builds the images beside the
# lanes): a file that holds the images part's exit code once it has ended;
# the scenarios that need the CUDA layer or the wheelhouse (site, gpu_stack)
# wait for it, the flows start from the package layers at once.
# Each scenario's output goes to .build/molecule-logs/<scenario>.log and is
# printed whole when the scenario ends; the script fails when any failed.
set -euo pipefail
cd "$(dirname "$0")/.."

LANES=${MOLECULE_LANES:-2}
SCENARIOS=${MOLECULE_SCENARIOS:-site slurm_trixie gpu_stack health safety maintenance topology day2 ha}
# Lane of each scenario, balanced on their measured run times with two lanes
# side by side and the other parts of make test beside them on a 2-core
# machine (seconds, 2026-11-28, clean clone of c0d26d2, the code of 3f3e15b, see
# docs/testing.md): site 1404, maintenance 193, health 206, day2 99 |
# slurm_trixie 1059 (with its upgrade to Slurm 26.05.3 built from source),
# gpu_stack 118, safety 299, topology 153, ha 391 (stopped 20 s early by a failed check). gpu_stack then moved to
# lane 0, the shorter one. In the full run of 5cacda3 (2026-11-30, 73:15): lane 0 ended at 72:06 (site 45:11,
# gpu_stack 3:15, health 5:58, maintenance 6:54, day2 10:48), lane 1 at 68:39 (slurm_trixie 40:55, safety 7:52,
# topology 9:10, ha 10:42); day2's node image then grew by about 2 minutes (the whole compute stack), and
# gpu_stack went back to lane 1.
declare -A LANE_OF=(
  [site]=0 [health]=0 [maintenance]=0 [day2]=0
  [slurm_trixie]=1 [gpu_stack]=1 [safety]=1 [topology]=1 [ha]=1
)
LOGS=.build/molecule-logs
# What each scenario checked (tests/callback_plugins/gpuops_checks.py), for
# the table at the end of make test.
CHECKS=${GPUOPS_CHECKS_DIR:-$PWD/.build/test-report/checks}
mkdir -p "$LOGS" "$CHECKS"

log() { printf '[molecule-lanes] %s\n' "$*"; }

lane_scenarios() {
  local lane=$1 s out=()
  for s in $SCENARIOS; do
    if [ "$LANES" -le 1 ] || [ "$(( ${LANE_OF[$s]:-0} % LANES ))" -eq "$lane" ]; then out+=("$s"); fi
  done
  echo "${out[@]:-}"
}

run_lane() {
  local lane=$1 s start rc
  # Every lane has a HOME of its own, the first too: make test's lint (beside
  # the lanes) removes the collection copy Molecule would keep in ~/.ansible.
  local home="$PWD/.build/molecule-home-$lane"
  mkdir -p "$home"
  # pip's settings (where the CPU build of torch is found) stay those of the user.
  if [ -f "$HOME/.config/pip/pip.conf" ] && [ -z "${PIP_CONFIG_FILE:-}" ]; then
    export PIP_CONFIG_FILE="$HOME/.config/pip/pip.conf"
  fi
  for s in $(lane_scenarios "$lane"); do
    if [ -n "${GPUOPS_IMAGES_RC:-}" ] && [[ " site gpu_stack " == *" $s "* ]]; then
      while [ ! -s "$GPUOPS_IMAGES_RC" ]; do sleep 2; done
      if [ "$(cat "$GPUOPS_IMAGES_RC")" != 0 ]; then
        log "lane $lane: $s not started: the images part failed"
        printf '%s %s %s\n' "$s" 1 0 >>"$LOGS/.results"
        return 1
      fi
    fi
    start=$(date +%s)
    rm -f "$CHECKS/$s.jsonl"
    rc=0
    HOME="$home" GPUOPS_CHECKS_OUT="$CHECKS/$s.jsonl" GPUOPS_MOLECULE_NETWORK="gpuops-lane-$lane" \
      GPUOPS_MOLECULE_NET="172.31.$(( 241 + lane ))" \
      molecule test -s "$s" >"$LOGS/$s.log" 2>&1 || rc=$?
    # One scenario's output at a time, whole, so the lanes do not interleave.
    (flock 9; cat "$LOGS/$s.log"; log "lane $lane: $s $([ "$rc" -eq 0 ] && echo passed || echo FAILED) in $(( $(date +%s) - start )) s") 9>"$LOGS/.print.lock"
    printf '%s %s %s\n' "$s" "$rc" "$(( $(date +%s) - start ))" >>"$LOGS/.results"
    [ "$rc" -eq 0 ] || return "$rc"
  done
}

start=$(date +%s)
: >"$LOGS/.results"
pids=()
for (( lane = 0; lane < LANES; lane++ )); do
  [ -n "$(lane_scenarios "$lane")" ] || continue
  run_lane "$lane" &
  pids+=($!)
done
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
log "all lanes done in $(( $(date +%s) - start )) s"
# The end of the output is what a CI summary shows: each scenario's result,
# then where a failed one failed (its first failed task and the lines above).
while read -r s rc secs; do
  log "$s: $([ "$rc" -eq 0 ] && echo passed || echo "FAILED (rc $rc)") in $secs s"
done <"$LOGS/.results"
while read -r s rc secs; do
  [ "$rc" -ne 0 ] || continue
  log "$s failed; the full log is $LOGS/$s.log. Where it failed:"
  # The last failed task that was not ignored, and Molecule's own complaint.
  sed -e 's/\x1b\[[0-9;]*m//g' -e 's/^ *│ \{0,1\}//' "$LOGS/$s.log" | awk '
    /^\.\.\.ignoring/ { held = ""; inmsg = 0; next }
    /^TASK \[/ { task = $0; next }
    /^(fatal|failed): / { held = task "\n" $0; n = 1; inmsg = 1; next }
    inmsg && /^$/ { inmsg = 0 }
    inmsg && n < 30 { held = held "\n" $0; n++; next }
    held != "" && !inmsg { last = held; held = "" }
    /CRITICAL/ { crit = substr($0, 1, 300) }
    END { if (held != "") last = held; print last; if (crit != "") print crit }' || true
done <"$LOGS/.results"
exit "$failed"
