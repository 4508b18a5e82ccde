#!/usr/bin/env bash
# Converge benchmark of the container lab (`make bench`): for a lab of 1
# controller + N compute nodes (N from BENCH_NODES, default "2 8"), on fresh
# Debian 12 containers with a warm apt cache:
#
#   first   ansible-playbook site.yml -i <lab inventory of N nodes>
#   rerun   the same again: must report changed=0
#   check   the same with --check: must report changed=0
#   floor   a plain shell loop that makes the same package installs on fresh
#           containers, all containers in parallel: apt-get update, then
#           apt-get install of exactly the packages the converge added to each
#           container (dpkg-query after `first`, minus the base image), then
#           on nodes that got the PyTorch venv, pip install of torch from the
#           same wheelhouse. No configuration, no services: the time the
#           package work alone takes, what Ansible's orchestration is compared with.
#
# BENCH_PHASES (default "converge floor"): "floor" alone reruns the floor from
# the package lists the last converge of that size recorded in .build/bench.
#
# Each run is wall time and tasks per second (task results in the PLAY RECAP
# lines divided by the wall time). Figures go to
# bench/results/lab-<UTC time>.json, one object per node count, and a summary
# to stdout. Not a timed test: nothing here fails on slowness, only on a
# re-run or --check that reports changes.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.venv/bin:$PATH" ANSIBLE_CONFIG="$PWD/ansible.cfg"
NODE_COUNTS=${BENCH_NODES:-2 8}
PHASES=${BENCH_PHASES:-converge floor}
IMAGE=${GPUOPS_LAB_IMAGE:-gpuops-lab:bookworm}
PROXY='Acquire::http::Proxy "http://172.31.250.1:3142";'
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
WORK=.build/bench
mkdir -p bench/results "$WORK"
out="bench/results/lab-$STAMP.json"
log() { printf '[bench] %s\n' "$*" >&2; }
now() { date +%s.%N; }
elapsed() { python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 1))" "$1" "$2"; }

inventory() {  # N -> path of an inventory of the lab with N compute nodes
  local n=$1 dir="$WORK/inventory-$1"
  mkdir -p "$dir"
  ln -sfn "$PWD/inventory/lab/group_vars" "$dir/group_vars"
  {
    echo "---"
    echo "# Written by bench/lab_converge.sh: the lab with $n compute nodes."
    echo "all:"
    echo "  children:"
    echo "    slurm_controller:"
    echo "      hosts:"
    echo "        lab-ctl:"
    echo "    slurm_compute:"
    echo "      hosts:"
    for i in $(seq 1 "$n"); do printf '        lab-gpu%02d:\n' "$i"; done
  } >"$dir/hosts.yml"
  echo "$dir"
}

containers() { echo lab-ctl; for i in $(seq 1 "$1"); do printf 'lab-gpu%02d\n' "$i"; done; }

fresh_lab() {  # N inventory
  tools/lab.sh down >/dev/null
  GPUOPS_LAB_NODES=$1 GPUOPS_LAB_INVENTORY=$2 tools/lab.sh up >"$WORK/lab-up.log" 2>&1 \
    || { cat "$WORK/lab-up.log" >&2; exit 1; }
}

recap() {  # log -> "tasks changed failed"
  python3 - "$1" <<'PY'
import re, sys
tasks = changed = failed = 0
for line in open(sys.argv[1]):
    m = re.search(r"ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)\s+skipped=(\d+)", line)
    if m:
        ok, ch, unreachable, fl, skipped = map(int, m.groups())
        tasks += ok + ch + fl + skipped
        changed += ch
        failed += fl + unreachable
print(tasks, changed, failed)
PY
}

run_play() {  # N inventory name [args...] -> prints "secs tasks changed"
  local n=$1 inv=$2 name=$3; shift 3
  local logf="bench/results/last-$n-$name.log" t0 t1 secs tasks changed failed
  t0=$(now)
  ansible-playbook site.yml -i "$inv" "$@" >"$logf" 2>&1 || { tail -30 "$logf" >&2; log "$name failed, see $logf"; exit 1; }
  t1=$(now)
  secs=$(elapsed "$t0" "$t1")
  read -r tasks changed failed < <(recap "$logf")
  log "N=$n $name: ${secs}s, $tasks task results, changed=$changed"
  [ "$failed" -eq 0 ] || { log "$name: $failed host(s) failed or unreachable, see $logf"; exit 1; }
  echo "$secs $tasks $changed"
}

base_packages() {
  docker run --rm --entrypoint dpkg-query "$IMAGE" -W -f='${Package}\n' | sort -u >"$WORK/base-packages.txt"
}

record_installs() {  # N: the packages and venvs the converge added, per container
  local n=$1 c
  for c in $(containers "$n"); do
    docker exec "$c" dpkg-query -W -f='${Package}\n' | sort -u \
      | comm -13 "$WORK/base-packages.txt" - >"$WORK/pkgs-$n-$c.txt"
    docker exec "$c" sh -c 'ls -d /opt/gpuops/pytorch/*/bin/python 2>/dev/null || true' >"$WORK/venv-$n-$c.txt"
  done
}

floor() {  # N -> seconds
  local n=$1 c t0 pids=() pkgs venv
  t0=$(now)
  for c in $(containers "$n"); do
    pkgs=$(tr '\n' ' ' <"$WORK/pkgs-$n-$c.txt")
    venv=$(head -1 "$WORK/venv-$n-$c.txt")
    docker exec "$c" sh -c "
      set -e
      echo '$PROXY' >/etc/apt/apt.conf.d/01proxy
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $pkgs >/dev/null
      if [ -n '$venv' ]; then
        python3 -m venv /opt/floor-venv
        /opt/floor-venv/bin/pip install -q --no-index --find-links /opt/wheelhouse torch==2.13.0
      fi" >"$WORK/floor-$c.log" 2>&1 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || { log "floor install failed: see $WORK/floor-*.log"; exit 1; }; done
  elapsed "$t0" "$(now)"
}

base_packages
results=()
for n in $NODE_COUNTS; do
  inv=$(inventory "$n")
  run="{\"compute_nodes\": $n"
  if [[ " $PHASES " == *" converge "* ]]; then
    log "N=$n: fresh lab, first converge"
    fresh_lab "$n" "$inv"
    read -r first first_tasks first_changed < <(run_play "$n" "$inv" first)
    read -r rerun rerun_tasks rerun_changed < <(run_play "$n" "$inv" rerun)
    read -r check check_tasks check_changed < <(run_play "$n" "$inv" check --check)
    record_installs "$n"
    run="$run, \"first_s\": $first, \"first_tasks\": $first_tasks, \"first_changed\": $first_changed,
      \"rerun_s\": $rerun, \"rerun_tasks\": $rerun_tasks, \"rerun_changed\": $rerun_changed,
      \"check_s\": $check, \"check_tasks\": $check_tasks, \"check_changed\": $check_changed"
  fi
  if [[ " $PHASES " == *" floor "* ]]; then
    ls "$WORK"/pkgs-"$n"-*.txt >/dev/null 2>&1 || { log "no package lists for N=$n: run the converge phase first"; exit 1; }
    pkg_count=$(cat "$WORK"/pkgs-"$n"-*.txt | wc -l)
    log "N=$n: fresh lab, floor (shell loop, $pkg_count package installs over $((n + 1)) containers)"
    fresh_lab "$n" "$inv"
    floor_s=$(floor "$n")
    log "N=$n floor: ${floor_s}s"
    run="$run, \"floor_s\": $floor_s, \"floor_package_installs\": $pkg_count"
  fi
  results+=("$run}")
done
tools/lab.sh down >/dev/null

python3 - "$out" "$(nproc)" "${results[@]}" <<'PY'
import json, sys
out, cpus, runs = sys.argv[1], int(sys.argv[2]), [json.loads(r) for r in sys.argv[3:]]
for r in runs:
    for k in ("first", "rerun", "check"):
        if k + "_s" in r:
            r[k + "_tasks_per_s"] = round(r[k + "_tasks"] / r[k + "_s"], 1)
    if "first_s" in r and "floor_s" in r:
        r["first_over_floor"] = round(r["first_s"] / r["floor_s"], 2)
    if "first_s" in r:
        r["rerun_over_first"] = round(r["rerun_s"] / r["first_s"], 3)
        r["check_over_first"] = round(r["check_s"] / r["first_s"], 3)
doc = {"lab": "1 controller + N compute nodes, Debian 12 containers, site.yml, warm apt cache",
       "host_cpus": cpus, "runs": runs}
json.dump(doc, open(out, "w"), indent=2)
print(json.dumps(doc, indent=2))
PY
log "saved $out"
python3 - "$out" <<'PY' || { log "a re-run or --check reported changes"; exit 1; }
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
sys.exit(any(r.get("rerun_changed") or r.get("check_changed") for r in runs))
PY
