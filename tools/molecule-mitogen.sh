#!/usr/bin/env bash
# Every Molecule scenario (or those named) under Mitogen (`make molecule-mitogen`):
# the same scenarios, containers and checks as `make molecule` (check,
# converge, idempotence, verify), with Mitogen's mitogen_linear strategy and
# its docker connection. The scenarios
# themselves are unchanged: a second base config (written to .build/) adds the
# strategy to the provisioner's environment and gives every platform of
# every scenario ansible_connection=docker, which Mitogen takes over (the
# docker driver's own community.docker.docker is not one it knows).
#
#   tools/molecule-mitogen.sh [scenario...]   default: $MOLECULE_SCENARIOS
#
# Prints each scenario's wall time and result, and exits 1 if one failed.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
BIN=$PWD/.venv/bin
export PATH="$BIN:$PATH" ANSIBLE_CONFIG=$PWD/ansible.cfg
strategies=$("$BIN/python" -c 'import ansible_mitogen, os; print(os.path.join(os.path.dirname(ansible_mitogen.__file__), "plugins", "strategy"))') \
  || { echo "mitogen is not installed in .venv (make venv)" >&2; exit 1; }
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || read -r -a scenarios <<<"${MOLECULE_SCENARIOS:?set MOLECULE_SCENARIOS or name the scenarios}"
conf=.build/molecule-mitogen.yml
mkdir -p .build
"$BIN/python" - "$strategies" "$conf" <<'PY'
import glob, json, sys, yaml
strategies, conf = sys.argv[1:]
hosts = sorted({p["name"] for f in glob.glob("molecule/*/molecule.yml")
                for p in (yaml.safe_load(open(f)) or {}).get("platforms", [])})
doc = {"provisioner": {
    "env": {"ANSIBLE_STRATEGY_PLUGINS": strategies, "ANSIBLE_STRATEGY": "mitogen_linear"},
    "inventory": {"host_vars": {h: {"ansible_connection": "docker"} for h in hosts}}},
    # One step each: create and destroy stay with the plain base config.
    "scenario": {"check_sequence": ["check"], "converge_sequence": ["converge"]}}
open(conf, "w").write("---\n# Written by tools/molecule-mitogen.sh\n" + json.dumps(doc, indent=2) + "\n")
PY
failed=()
for s in "${scenarios[@]}"; do
  t0=$(date +%s)
  # The driver's own create and destroy playbooks (async docker calls on
  # localhost, whose async_status Mitogen 0.3.54 on ansible-core 2.19 never
  # sees finish) and the scenario's prepare (the test harness) run plainly;
  # the collection's steps (check, converge, idempotence, verify) under Mitogen.
  base=(-c .config/molecule/config.yml)
  mito=(-c .config/molecule/config.yml -c "$conf")
  if "$BIN/molecule" "${base[@]}" destroy -s "$s" && "$BIN/molecule" "${base[@]}" create -s "$s" \
     && "$BIN/molecule" "${mito[@]}" check -s "$s" && "$BIN/molecule" "${mito[@]}" converge -s "$s" \
     && "$BIN/molecule" "${mito[@]}" idempotence -s "$s" && "$BIN/molecule" "${mito[@]}" verify -s "$s"; then
    r=passed
  else
    r=FAILED; failed+=("$s")
  fi
  "$BIN/molecule" "${base[@]}" destroy -s "$s" >/dev/null 2>&1 || true
  echo "[molecule-mitogen] $s: $r in $(( $(date +%s) - t0 )) s" | tee -a .build/molecule-mitogen.log
done
[ ${#failed[@]} -eq 0 ] || { echo "[molecule-mitogen] failed: ${failed[*]}" >&2; exit 1; }
