#!/usr/bin/env bash
# Which of make test's caches are warm, read before the run fills them: one
# line each (scope, cache, warm|cold, what was found). The scope is the
# machine (kept between clones: apt, images, Slurm packages, ansible-test) or
# the checkout (.venv and .build: a clean clone, as CI makes, starts without). tools/test.sh writes it to
# .build/test-report/caches.tsv; tools/test-summary.py prints the run's kind
# from it (a fresh machine: every cache cold; warm: none cold), at the start
# and in the table at the end.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

row() { printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4"; }
size_mb() { du -sm "$1" 2>/dev/null | cut -f1; }

# The Python tools (make venv: rebuilt when requirements-dev.txt changes).
if [ -f .venv/.stamp ] && [ .venv/.stamp -nt requirements-dev.txt ]; then
  row checkout venv warm ".venv, requirements-dev.txt installed"
else
  row checkout venv cold "no .venv for requirements-dev.txt"
fi
# ansible-test's venvs of the sanity tests' requirements.
if compgen -G "$HOME/.ansible/test/venv/*" >/dev/null 2>&1; then
  row machine ansible-test warm "sanity requirement venvs in ~/.ansible/test"
else
  row machine ansible-test cold "no sanity requirement venvs in ~/.ansible/test"
fi
# The Debian packages the images and the containers install (apt-cacher-ng).
mb=$(size_mb /var/cache/apt-cacher-ng); mb=${mb:-0}
row machine apt "$([ "$mb" -ge 500 ] && echo warm || echo cold)" "${mb} MB in /var/cache/apt-cacher-ng"
# The images (tools/build-images.sh). Read before the setup starts dockerd:
# without a daemon, docker's own list of tags on disk says what it will have
# (CI's run of 2026-12-01 reported images cold that the run then found).
images=(gpuops-lab:bookworm gpuops-lab:trixie gpuops-pkgs:bookworm gpuops-pkgs:trixie gpuops-cuda:bookworm)
repositories=${GPUOPS_DOCKER_REPOSITORIES:-/var/lib/docker/image/overlay2/repositories.json}
missing=()
if docker info >/dev/null 2>&1; then
  for image in "${images[@]}"; do
    docker image inspect "$image" >/dev/null 2>&1 || missing+=("$image")
  done
else
  for image in "${images[@]}"; do
    grep -qF "\"$image\"" "$repositories" 2>/dev/null || missing+=("$image")
  done
fi
if [ ${#missing[@]} -eq 0 ]; then
  row machine images warm "all 5 present (each rebuilt if its recipe changed)"
else
  row machine images cold "missing: ${missing[*]}"
fi
# Slurm 26.05.3 built from the tarball, per Debian release (tools/slurm-packages.sh).
cache=${GPUOPS_SLURM_PACKAGE_CACHE:-/var/tmp/gpuops-slurm-packages}
keys=()
for f in "$cache"/slurm-*/Packages; do [ -f "$f" ] && keys+=("$(basename "$(dirname "$f")")"); done
have=()
for os in debian12 debian13; do
  [[ " ${keys[*]:-} " == *"-${os}-"* ]] && have+=("$os")
done
if [ ${#have[@]} -eq 2 ]; then
  row machine slurm-packages warm "built for ${have[*]} in $cache"
else
  row machine slurm-packages cold "built for: ${have[*]:-none} in $cache"
fi
# torch and numpy wheels for the containers.
if [ -f .build/wheelhouse/.stamp ]; then
  row checkout wheelhouse warm ".build/wheelhouse"
else
  row checkout wheelhouse cold "no .build/wheelhouse"
fi
