#!/usr/bin/env bash
# Scale benchmark of the Slurm cluster model (`make scale`): for inventories
# of 1 controller + N compute nodes (N from SCALE_NODES, default
# "8 64 512 1024"), with cached facts and no containers, run bench/scale.yml:
# the model computed once (the Slurm play's own entry point) and slurm.conf
# and gres.conf rendered for every host. Prints, per N, the wall time, the
# model task's own time, the largest resident memory of the ansible-playbook
# process tree, and slurm.conf's length; then the growth exponent of the wall
# time (log(t2/t1)/log(N2/N1)) between consecutive sizes and from 64 to 1024.
#
# Targets (issue 13): the model for 1,024 nodes in <= 10 s; exponent 64 ->
# 1024 <= 1.1; memory < 2 GB at 1,024; slurm.conf for 1,024 identical nodes
# <= 50 lines. Exit 1 when one is missed (each named). SCALE_MIXED=1 makes
# the nodes differ (several NodeName lines), SCALE_FORKS sets forks (8),
# SCALE_TIMEOUT limits one size (1800 s). Results: bench/results/scale-*.json.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.venv/bin:$PATH"
SIZES=${SCALE_NODES:-8 64 512 1024}
TIMEOUT=${SCALE_TIMEOUT:-1800}
mixed=()
[ -n "${SCALE_MIXED:-}" ] && mixed=(--mixed)
WORK=.build/scale
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p bench/results "$WORK"
results="bench/results/scale-$STAMP.json"
log() { printf '[scale] %s\n' "$*" >&2; }

rows=()
for n in $SIZES; do
  dir="$WORK/n$n"
  rm -rf "$dir" && mkdir -p "$dir/out"
  python bench/scale_inventory.py "$dir" "$n" "${mixed[@]}"
  log "N=$n: running (load average $(cut -d' ' -f1-3 /proc/loadavg))"
  start=$(date +%s.%N)
  set +e
  SCALE_OUT="$PWD/$dir/out" ANSIBLE_CONFIG="$PWD/$dir/ansible.cfg" timeout "$TIMEOUT" \
    /usr/bin/time -f '%M' -o "$dir/maxrss" ansible-playbook -i "$dir/inventory.ini" bench/scale.yml >"$dir/run.log" 2>&1
  rc=$?
  set -e
  end=$(date +%s.%N)
  rows+=("$(python3 - "$n" "$start" "$end" "$rc" "$dir" <<'PY'
import json, os, re, sys
n, start, end, rc, d = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
row = {"nodes": n, "rc": rc, "wall_s": round(end - start, 1)}
log = open(os.path.join(d, "run.log"), errors="replace").read()
match = re.search(r"Compute the cluster model -+ ([0-9.]+)s", log)
row["model_s"] = float(match.group(1)) if match else None
try:
    row["max_rss_mb"] = round(int(open(os.path.join(d, "maxrss")).read().split()[-1]) / 1024)
except (OSError, ValueError, IndexError):
    row["max_rss_mb"] = None
try:
    row.update(json.load(open(os.path.join(d, "out", "summary.json"))))
except (OSError, ValueError):
    row["error"] = "timed out" if rc == 124 else "failed: see %s/run.log" % d
print(json.dumps(row))
PY
)")
  log "N=$n: ${rows[-1]}"
done

printf '%s\n' "${rows[@]}" >"$WORK/rows.jsonl"
python3 - "$results" "${SCALE_MIXED:-}" "$WORK/rows.jsonl" <<'PY'
import json, math, sys
rows = [json.loads(line) for line in open(sys.argv[3]) if line.strip()]
mixed = bool(sys.argv[2])
json.dump({"mixed": mixed, "rows": rows}, open(sys.argv[1], "w"), indent=2)
print("%6s %9s %8s %8s %10s %9s %s" % ("nodes", "wall s", "model s", "RSS MB", "conf lines", "NodeName", "all hosts rendered"))
for r in rows:
    print("%6d %9s %8s %8s %10s %9s %s" % (r["nodes"], r["wall_s"], r.get("model_s"), r.get("max_rss_mb"),
          r.get("slurm_conf_lines"), r.get("node_lines"), r.get("error") or (r.get("rendered") == r.get("hosts"))))
ok = [r for r in rows if r["rc"] == 0]
def exponent(a, b):
    return math.log(b["wall_s"] / a["wall_s"]) / math.log(b["nodes"] / a["nodes"])
for a, b in zip(ok, ok[1:]):
    print("exponent %d -> %d: %.2f" % (a["nodes"], b["nodes"], exponent(a, b)))
misses = []
by_n = {r["nodes"]: r for r in ok}
for r in rows:
    if r["rc"] != 0:
        misses.append("N=%d did not finish (%s)" % (r["nodes"], r.get("error")))
    elif r.get("rendered") != r.get("hosts") or r.get("slurm_conf_variants") != 1:
        misses.append("N=%d: not every host rendered one identical slurm.conf" % r["nodes"])
if 64 in by_n and 1024 in by_n:
    e = exponent(by_n[64], by_n[1024])
    print("exponent 64 -> 1024: %.2f (target <= 1.1)" % e)
    if e > 1.1:
        misses.append("growth exponent 64 -> 1024 is %.2f > 1.1" % e)
if 1024 in by_n:
    r = by_n[1024]
    if r.get("model_s") is None or r["model_s"] > 10:
        misses.append("model at 1024 took %s s (target <= 10)" % r.get("model_s"))
    if r.get("max_rss_mb") is None or r["max_rss_mb"] >= 2048:
        misses.append("memory at 1024 %s MB (target < 2048)" % r.get("max_rss_mb"))
    if not mixed and (r.get("slurm_conf_lines") or 999) > 50:
        misses.append("slurm.conf for 1024 identical nodes has %s lines (target <= 50)" % r.get("slurm_conf_lines"))
print("results: %s" % sys.argv[1])
for miss in misses:
    print("MISSED: " + miss)
sys.exit(1 if misses else 0)
PY
