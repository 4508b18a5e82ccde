#!/usr/bin/env bash
# Here, before tools/device/gpu-check.sh runs on the GPU machine: what it
# needs that the machine's image lacks (ansible-core and its wheels, and
# community.general's dict_kv filter the roles use), into .devrun/ (in .gitignore).
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
du -sh .devrun
