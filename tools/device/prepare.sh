#!/usr/bin/env bash
# Here, before tools/device/gpu-check.sh runs on the GPU machine: what it
# needs that the machine's image lacks (ansible-core and its wheels, and
# community.general's dict_kv filter the roles use), into .devrun/ (in .gitignore).
#   tools/device/prepare.sh [--slurm]
# --slurm also puts there, for tools/device/slurm-gres.sh, the slurm-smd and
# slurm-smd-slurmd packages of the Debian 12 source build in the package cache
# (GPUOPS_SLURM_PACKAGE_CACHE, as Molecule uses) and the Debian 12 libraries
# slurmd and its GPU, auth and cgroup plugins load.
set -euo pipefail
cd "$(dirname "$0")/../.."
core=$(.venv/bin/python -c 'import ansible; print(ansible.__version__)')
rm -rf .devrun && mkdir -p .devrun/whl
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
  -d .devrun/whl "ansible-core==$core" resolvelib cryptography cffi pycparser
src=$(ls -d .venv/lib/python3*/site-packages/ansible_collections/community/general)
dst=.devrun/collections/ansible_collections/community/general
mkdir -p "$dst/plugins/filter" "$dst/meta"
cp "$src/plugins/filter/dict_kv.py" "$dst/plugins/filter/"
cp "$src/meta/runtime.yml" "$dst/meta/"
cp "$src/MANIFEST.json" "$dst/" 2>/dev/null || true
if [ "${1:-}" = --slurm ]; then
  cache=${GPUOPS_SLURM_PACKAGE_CACHE:-/var/tmp/gpuops-slurm-packages}
  build=$(find "$cache" -maxdepth 1 -type d -name "slurm-*-debian12-x86_64-nvml" | sort | tail -n 1)
  mkdir -p .devrun/slurm
  cp "$build"/slurm-smd_*.deb "$build"/slurm-smd-slurmd_*.deb "$build/gpuops-build.json" .devrun/slurm/
  (cd .devrun/slurm && apt-get download -q libhwloc15 libnuma1 libmunge2 libpam0g libaudit1 libcap-ng0 libudev1 libjwt0 libjansson4 libb64-0d libjson-c5 libyaml-0-2 \
    libdbus-1-3 libsystemd0 libcap2 libgcrypt20 libgpg-error0 liblz4-1 liblzma5 libzstd1 2>/dev/null)
fi
du -sh .devrun
