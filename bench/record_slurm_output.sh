#!/usr/bin/env bash
# Record what the Slurm exporter's commands print on a running cluster with
# many jobs queued, for bench/exporter_scrape.py and the unit tests, and time
# the real exporter there.
#   bench/record_slurm_output.sh <controller container> <output dir> [jobs (1000)] [user (alice)] [account (chem)]
# It submits one held job array of <jobs> tasks (squeue -r shows each), runs
# every command exactly as the exporter does (module_utils/monitoring/_slurm_metrics.py
# COMMANDS) inside the container, times `gpuops-slurm-exporter --once` there
# five times, and cancels the array. Used on the Molecule `monitoring` cluster
# (molecule converge -s monitoring): docker exec needs no SSH.
set -euo pipefail
ctl=$1 out=$2 jobs=${3:-1000} user=${4:-alice} account=${5:-chem}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
array=$(docker exec "$ctl" runuser -u "$user" -- sbatch --parsable --hold -A "$account" \
        --array=0-$((jobs - 1)) -o /dev/null --chdir=/tmp --wrap true)
trap 'docker exec "$ctl" scancel "$array" || true' EXIT
# Each command's argv, from the exporter's own table.
PYTHONPATH="$root/.build/collections" python3 - <<'PY' > "$out/.commands"
from ansible_collections.gpuops.cluster.plugins.module_utils.monitoring._slurm_metrics import COMMANDS, PROGRAMS
for name in sorted(COMMANDS):
    print(name + "\t" + "\t".join([PROGRAMS.get(name, name)] + COMMANDS[name]))
PY
while IFS=$'\t' read -r -a argv; do
  docker exec "$ctl" env LC_ALL=C "${argv[@]:1}" > "$out/${argv[0]}.txt"
done < "$out/.commands"
rm -f "$out/.commands"
docker exec "$ctl" sinfo --version > "$out/VERSION"
echo "jobs in squeue: $(wc -l < "$out/squeue.txt")"
for _ in 1 2 3 4 5; do
  docker exec "$ctl" bash -c 'start=$(date +%s%N); python3 -I /opt/gpuops/slurm-exporter/gpuops_slurm_exporter.py --once \
    | grep "^gpuops_slurm_scrape_duration_seconds"; end=$(date +%s%N)
    echo "whole --once run (Python start included): $(( (end - start) / 1000000 )) ms"' || true
done
