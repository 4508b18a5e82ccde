#!/usr/bin/env bash
# make test's Slurm packages: the builds of Slurm 26.05.3 from the site
# mirror's tarball that the Molecule scenarios install (site: Debian 12;
# slurm_trixie's upgrade: Debian 13), made by the collection's own tasks
# (tools/slurm-packages.yml) on a build container of each bare image, into
# the cache the scenarios read. make test starts it in the background as soon
# as the bare images exist, so that the builds overlap with the parts that
# do not need them; the scenarios that do wait for their release's build
# (GPUOPS_SLURM_PREBUILD_DIR/<suite>.rc, read by molecule/shared/slurm_packages_wait.yml).
# A key the cache has is not built again (the role's plan): a warm run costs
# a container start and one play per release.
#
#   tools/slurm-packages.sh                 # bookworm, then trixie
#   tools/slurm-packages.sh trixie          # one
#
# GPUOPS_SLURM_PACKAGE_CACHE  the cache (default /var/tmp/gpuops-slurm-packages,
#                             as in .config/molecule/config.yml)
# GPUOPS_SLURM_PREBUILD_DIR   where each release's result (<suite>.rc) and log
#                             go (default .build/slurm-packages)
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '[slurm-packages] %s\n' "$*"; }

# The checkout's tools and settings, also when run outside make.
export PATH="$PWD/.venv/bin:$PATH" ANSIBLE_CONFIG=${ANSIBLE_CONFIG:-$PWD/ansible.cfg}
suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(bookworm trixie)
export GPUOPS_SLURM_PACKAGE_CACHE=${GPUOPS_SLURM_PACKAGE_CACHE:-/var/tmp/gpuops-slurm-packages}
export GPUOPS_ARTIFACTS=${GPUOPS_ARTIFACTS:-$(cd .. && pwd)/shared/artifacts}
export GPUOPS_APT_PROXY=${GPUOPS_APT_PROXY:-http://127.0.0.1:3142}
STATUS=${GPUOPS_SLURM_PREBUILD_DIR:-$PWD/.build/slurm-packages}
mkdir -p "$STATUS" "$GPUOPS_SLURM_PACKAGE_CACHE"
if ! curl -fsS -o /dev/null "${GPUOPS_APT_PROXY}/acng-report.html" 2>/dev/null; then
  GPUOPS_APT_PROXY=""
fi

failed=0
for suite in "${suites[@]}"; do
  name="gpuops-slurm-build-${suite}"
  start=$(date +%s)
  rm -f "$STATUS/$suite.rc"
  rc=0
  docker rm -f "$name" >/dev/null 2>&1 || true
  # A plain container of the bare image (no init: a build needs none), on
  # the host's network, where the apt cache answers on 127.0.0.1.
  if docker run -d --name "$name" --network host --entrypoint sleep "gpuops-lab:${suite}" infinity >/dev/null; then
    # The container through the Docker API connection, as Molecule reaches
    # its hosts; the cache is on the Ansible controller (localhost).
    printf '%s\n' "all:" "  hosts:" "    ${name}:" \
      "      ansible_connection: community.docker.docker_api" \
      "      ansible_python_interpreter: /usr/bin/python3" >"$STATUS/$suite.inventory.yml"
    ANSIBLE_NOCOLOR=1 ansible-playbook tools/slurm-packages.yml -i "$STATUS/$suite.inventory.yml" \
      >"$STATUS/$suite.log" 2>&1 || rc=$?
  else
    rc=1
  fi
  docker rm -f "$name" >/dev/null 2>&1 || true
  built=$(grep -c 'TASK \[gpuops.cluster._slurm_common : Build the packages (dpkg-buildpackage' "$STATUS/$suite.log" 2>/dev/null || true)
  log "${suite}: $([ "$rc" -eq 0 ] && echo "done" || echo "FAILED (rc $rc), log $STATUS/$suite.log")" \
      "in $(( $(date +%s) - start )) s ($([ "${built:-0}" -gt 0 ] && echo built || echo 'from the cache'))"
  [ "$rc" -eq 0 ] || tail -30 "$STATUS/$suite.log" || true
  # Written last, whole: a waiting scenario reads it once it exists.
  echo "$rc" >"$STATUS/$suite.rc.partial" && mv "$STATUS/$suite.rc.partial" "$STATUS/$suite.rc"
  [ "$rc" -eq 0 ] || failed=1
done
exit "$failed"
