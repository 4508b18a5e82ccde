#!/usr/bin/env bash
# One verify suite against a scenario's cluster that `make cluster` built and
# kept, without rebuilding it (`make suite SCENARIO=site SUITE=...`).
#
#   tools/suite.sh site molecule/shared/verify_usage.yml
#   tools/suite.sh site                 # the scenario's whole verify
#
# The suite runs as Molecule's verify would: Molecule's inventory and
# ansible.cfg for that scenario, and the MOLECULE_* variables the suites read.
set -euo pipefail
cd "$(dirname "$0")/.."

scenario=${1:?usage: tools/suite.sh SCENARIO [SUITE.yml]}
suite=${2:-}
if [ -z "$suite" ]; then
  exec molecule verify -s "$scenario"
fi
[ -f "$suite" ] || { echo "suite.sh: no such suite file: $suite" >&2; exit 2; }

# Molecule keeps a scenario's state in ~/.ansible/tmp/molecule.<hash>.<scenario>.
eph=""
for d in "$HOME"/.ansible/tmp/molecule.*."$scenario"; do
  [ -f "$d/state.yml" ] && grep -q '^converged: true' "$d/state.yml" && eph=$d
done
if [ -z "$eph" ]; then
  echo "suite.sh: no converged cluster for scenario $scenario; build it first: make cluster SCENARIO=$scenario" >&2
  exit 2
fi

export MOLECULE_PROJECT_DIRECTORY=$PWD
export MOLECULE_SCENARIO_NAME=$scenario
export MOLECULE_SCENARIO_DIRECTORY=$PWD/molecule/$scenario
export MOLECULE_EPHEMERAL_DIRECTORY=$eph
export MOLECULE_INVENTORY_FILE=$eph/inventory/ansible_inventory.yml
export ANSIBLE_CONFIG=$eph/ansible.cfg
export ANSIBLE_COLLECTIONS_PATH=$PWD/.build/collections
exec ansible-playbook -i "$eph/inventory" "$suite"
