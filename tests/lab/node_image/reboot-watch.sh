#!/bin/sh
# Test harness only: the power side of a node booted from an image. Until
# every NODE has been rebooted once (or TIMEOUT seconds pass), a node whose
# RebootProgram asked for a reboot (gpuops-sim-reboot: power/reboot) is
# removed and booted again from IMAGE with its overlay (boot-node.sh), as a
# provisioning system boots a node into the image its profile names.
#   reboot-watch.sh IMAGE NETWORK BASE_DIR TIMEOUT NODE...
# Prints "rebooted NODE" per reboot; exits 1 when the time runs out first.
set -eu
image=$1 network=$2 base=$3 timeout=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
left="$*"
end=$(( $(date +%s) + timeout ))
while [ -n "$left" ]; do
  if [ "$(date +%s)" -ge "$end" ]; then echo "not rebooted within ${timeout} s: $left"; exit 1; fi
  still=
  for node in $left; do
    if [ -e "$base/$node/power/reboot" ]; then
      "$here/boot-node.sh" "$node" "$image" "$network" "$base/$node" > /dev/null
      echo "rebooted $node $(date +%s)"
    else
      still="$still $node"
    fi
  done
  left=${still# }
  sleep 1
done
