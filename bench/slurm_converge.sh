#!/usr/bin/env bash
# Benchmark of the Slurm part on the container lab (1 controller + 2 compute
# nodes, fresh containers, warm apt cache). Not a timed test: it prints and
# saves figures to compare with the floor.
#
#   floor        a plain shell loop that installs the same packages on the
#                same fresh containers in parallel (apt-get update + install)
#   first        ansible-playbook playbooks/package_proxy.yml playbooks/slurm.yml
#                -i inventory/lab on fresh containers (the GPU stack has its
#                own figures: molecule/gpu_stack)
#   rerun        the same again (must report changed=0)
#   check        the same with --check (must report changed=0)
#
# Output: bench/results/slurm-<UTC timestamp>.json, and a summary on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.venv/bin:$PATH" ANSIBLE_CONFIG="$PWD/ansible.cfg"
mkdir -p bench/results
out="bench/results/slurm-$(date -u +%Y%m%dT%H%M%SZ).json"
log() { printf '[bench] %s\n' "$*" >&2; }

PROXY='Acquire::http::Proxy "http://172.31.250.1:3142";'
CTL_PKGS="slurmctld slurm-client munge libpmix2"
NODE_PKGS="slurmd slurm-client munge libpmix2"

now() { date +%s.%N; }
elapsed() { python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 2))" "$1" "$2"; }

fresh_lab() { tools/lab.sh down >/dev/null; tools/lab.sh up >/dev/null; }

# Sum of ok+changed+skipped+failed over the PLAY RECAP lines, and changed.
recap() {  # file -> "tasks changed"
  python3 - "$1" <<'PY'
import re, sys
tasks = changed = 0
for line in open(sys.argv[1]):
    m = re.search(r"ok=(\d+)\s+changed=(\d+)\s+unreachable=\d+\s+failed=(\d+)\s+skipped=(\d+)", line)
    if m:
        ok, ch, failed, skipped = map(int, m.groups())
        tasks += ok + ch + failed + skipped
        changed += ch
print(tasks, changed)
PY
}

run_play() {  # name extra-args... -> sets secs, tasks, changed
  local name=$1; shift
  local t0 t1
  t0=$(now)
  ansible-playbook playbooks/package_proxy.yml playbooks/slurm.yml -i inventory/lab "$@" >"bench/results/last-$name.log" 2>&1
  t1=$(now)
  secs=$(elapsed "$t0" "$t1")
  read -r tasks changed < <(recap "bench/results/last-$name.log")
  log "$name: ${secs}s, ${tasks} task results, changed=${changed}"
}

log "floor: shell loop, same packages, same fresh containers, in parallel"
fresh_lab
t0=$(now)
pids=()
for c in lab-ctl lab-gpu01 lab-gpu02; do
  pkgs=$NODE_PKGS; [ "$c" = lab-ctl ] && pkgs=$CTL_PKGS
  docker exec "$c" sh -c "echo '$PROXY' > /etc/apt/apt.conf.d/01proxy && apt-get update -qq && \
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $pkgs >/dev/null" &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
floor=$(elapsed "$t0" "$(now)")
log "floor: ${floor}s"

fresh_lab
run_play first;  first=$secs;  first_tasks=$tasks;  first_changed=$changed
run_play rerun;  rerun=$secs;  rerun_tasks=$tasks;  rerun_changed=$changed
run_play check --check; check=$secs; check_tasks=$tasks; check_changed=$changed

python3 - "$out" <<PY
import json, sys
r = {
  "lab": "1 controller + 2 compute (Debian 12 containers)",
  "floor_s": $floor,
  "first_converge_s": $first, "first_converge_tasks": $first_tasks, "first_converge_changed": $first_changed,
  "rerun_s": $rerun, "rerun_tasks": $rerun_tasks, "rerun_changed": $rerun_changed,
  "check_s": $check, "check_tasks": $check_tasks, "check_changed": $check_changed,
}
r["first_over_floor"] = round(r["first_converge_s"] / r["floor_s"], 2)
for k in ("first_converge", "rerun", "check"):
    r[k + "_tasks_per_s"] = round(r[k + "_tasks"] / r[k + "_s"], 1)
json.dump(r, open(sys.argv[1], "w"), indent=2)
print(json.dumps(r, indent=2))
PY
log "saved $out"
[ "$rerun_changed" -eq 0 ] && [ "$check_changed" -eq 0 ] || { log "re-run or --check reported changes"; exit 1; }
