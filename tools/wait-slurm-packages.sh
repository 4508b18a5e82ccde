#!/usr/bin/env bash
# Test harness: wait for make test's build of Slurm for one Debian release
# (tools/slurm-packages.sh, started in the background by tools/test.sh), so
# that a scenario installs it from the cache instead of building it a second
# time beside it. Run by the scenarios that install Slurm from source (site's
# converge, slurm_trixie's upgrade suite) on the Ansible controller. Without
# GPUOPS_SLURM_PREBUILD_DIR (molecule or make cluster on its own) there is
# nothing to wait for: the role builds what the cache lacks, as on a site.
#
#   tools/wait-slurm-packages.sh bookworm
set -euo pipefail
suite=$1
dir=${GPUOPS_SLURM_PREBUILD_DIR:-}
if [ -z "$dir" ]; then
  echo "no make test build to wait for (GPUOPS_SLURM_PREBUILD_DIR unset): the role builds what the cache lacks"
  exit 0
fi
start=$(date +%s)
timeout=${GPUOPS_SLURM_PREBUILD_TIMEOUT:-3600}
while [ ! -f "$dir/$suite.rc" ]; do
  if [ $(( $(date +%s) - start )) -ge "$timeout" ]; then
    echo "make test's Slurm build for $suite did not finish within $timeout s (log: $dir/$suite.log)" >&2
    exit 1
  fi
  sleep 5
done
rc=$(cat "$dir/$suite.rc")
if [ "$rc" != 0 ]; then
  echo "make test's Slurm build for $suite failed (rc $rc): see $dir/$suite.log" >&2
  exit 1
fi
echo "make test's Slurm build for $suite is in the cache (waited $(( $(date +%s) - start )) s)"
