#!/usr/bin/env bash
# Scale benchmark of the Slurm cluster model (`make scale`): for inventories
# of 1 controller + N compute nodes, with cached facts and no containers,
# run bench/scale.yml: the model computed with the Slurm play's own entry
# point, then slurm.conf and gres.conf rendered for every host with the
# role's templates. Prints, per N, the wall time, the model task's own time
# (profile_tasks), the whole entry point's and the rendering's, the largest
# resident memory (whole process tree, and the ansible-playbook main process
# alone), slurm.conf's length and the load average before and after; then
# the growth exponent of the wall time, log(t2/t1)/log(N2/N1), between
# consecutive sizes and from 64 to 1024.
#
# Targets (issue 13): the model for 1,024 nodes in <= 10 s; exponent 64 ->
# 1024 <= 1.1; memory < 2 GB at 1,024; slurm.conf <= 50 lines at every size
# for nodes of one model, whose MemTotal differs by up to SCALE_MEM_SPREAD
# (issue 29). Exits 1 when one is missed, naming each.
#
# Environment:
#   SCALE_NODES    sizes, default "8 64 512 1024"
#   SCALE_TIMEOUT  seconds one size may take (1800); a slower one is
#                  reported as "> 1800" with the task it was in, and killed
#   SCALE_MIXED=1  the nodes differ (every 64th half the memory, every 128th
#                  no GPU): several NodeName lines; slurm.conf length not judged
#   SCALE_MEM_SPREAD  percent (default 0.5): each compute node's MemTotal is
#                  up to this much lower than the server's, fixed per node
#                  name (identical servers differ by a few MB of firmware
#                  and kernel reservations); 0 for identical facts
#   SCALE_FORKS    forks (default 2 x CPUs, at least 4): with the local
#                  connection a fork only runs the controller-side action, the
#                  main process does the templating, so more forks than that
#                  only add context switches on a small machine
#   SCALE_ENTRY    the role's entry point: model (default), or config_facts
#                  for the code before the Python model (its templates' task
#                  vars are set by bench/scale.yml)
#   ANSIBLE_COLLECTIONS_PATH  where ansible_collections/gpuops/cluster is
#                  (the code under test, templates included); default
#                  .build/collections, the checkout (make venv)
#   SCALE_WORK     work directory (default .build/scale); each size keeps
#                  its inventory, fact cache, run.log and out/ in nN/
#   SCALE_RESULTS  where the results file goes (default bench/results,
#                  git-ignored; make scale-smoke keeps it under .build)
# Results: $SCALE_RESULTS/scale-<UTC time>.json.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.venv/bin:$PATH"
SIZES=${SCALE_NODES:-8 64 512 1024}
TIMEOUT=${SCALE_TIMEOUT:-1800}
ENTRY=${SCALE_ENTRY:-model}
FORKS=${SCALE_FORKS:-$(($(nproc) * 2 > 4 ? $(nproc) * 2 : 4))}
WORK=${SCALE_WORK:-.build/scale}
RESULTS=${SCALE_RESULTS:-bench/results}
SPREAD=${SCALE_MEM_SPREAD:-0.5}
COLLECTIONS=
IFS=: read -r -a search <<<"${ANSIBLE_COLLECTIONS_PATH:-$PWD/.build/collections}"
for path in "${search[@]}"; do
  if [ -d "$path/ansible_collections/gpuops/cluster" ]; then
    COLLECTIONS=$(cd "$path" && pwd)
    break
  fi
done
if [ -z "$COLLECTIONS" ]; then
  echo "scale.sh: no ansible_collections/gpuops/cluster in ${ANSIBLE_COLLECTIONS_PATH:-.build/collections} (run make venv)" >&2
  exit 2
fi
TEMPLATES="$COLLECTIONS/ansible_collections/gpuops/cluster/roles/_slurm_common/templates"
mixed=()
[ -n "${SCALE_MIXED:-}" ] && mixed=(--mixed)
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$RESULTS" "$WORK"
WORK=$(cd "$WORK" && pwd)
results="$RESULTS/scale-$STAMP.json"
log() { printf '[scale] %s\n' "$*" >&2; }
log "code under test: $COLLECTIONS (entry point $ENTRY), forks $FORKS, timeout $TIMEOUT s, $(nproc) CPUs, MemTotal spread up to $SPREAD %"

: >"$WORK/rows.jsonl"
for n in $SIZES; do
  dir="$WORK/n$n"
  rm -rf "$dir" && mkdir -p "$dir/out"
  python bench/scale_inventory.py "$dir" "$n" --collections "$COLLECTIONS" --forks "$FORKS" --mem-spread "$SPREAD" \
    "${mixed[@]}"
  log "N=$n: running (load average $(cut -d' ' -f1-3 /proc/loadavg))"
  SCALE_OUT="$dir/out" SCALE_ENTRY="$ENTRY" SCALE_TEMPLATES="$TEMPLATES" ANSIBLE_CONFIG="$dir/ansible.cfg" \
    ANSIBLE_COLLECTIONS_PATH="$COLLECTIONS" PYTHONUNBUFFERED=1 \
    python bench/scale_measure.py run "$dir" "$n" "$ENTRY" "$TIMEOUT" -- \
    ansible-playbook -i "$dir/inventory.ini" bench/scale.yml | tee -a "$WORK/rows.jsonl" >&2
done

python bench/scale_measure.py report "$results" "$WORK/rows.jsonl" "${SCALE_MIXED:-}" "$SPREAD"
