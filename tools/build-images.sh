#!/usr/bin/env bash
# Build the lab's systemd base images from Debian packages (no registry is
# reachable): mmdebstrap a minbase root file system, then `docker import` it.
# An image is rebuilt only when its recipe (this file's RECIPE lines) changes:
# the recipe hash is stored in the image's label gpuops.recipe.
#
#   tools/build-images.sh            # both images
#   tools/build-images.sh bookworm   # one
set -euo pipefail

log() { printf '[build-images] %s\n' "$*"; }

# The recipe: what a "bare server" has before we touch it.
INCLUDE="python3,python3-apt,systemd,systemd-sysv,sudo,dbus,ca-certificates"
COMPONENTS="main contrib non-free non-free-firmware"
MIRROR=${GPUOPS_DEBIAN_MIRROR:-http://deb.debian.org/debian}
PROXY=${GPUOPS_APT_PROXY_HOST:-http://127.0.0.1:3142}
RECIPE_VERSION=3

suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(bookworm trixie)

if ! command -v mmdebstrap >/dev/null 2>&1; then
  log "installing mmdebstrap"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends mmdebstrap >/dev/null
fi

proxy_opt=()
if curl -fsS -o /dev/null "${PROXY}/acng-report.html" 2>/dev/null; then
  proxy_opt=(--aptopt="Acquire::http::Proxy \"${PROXY}\"")
fi

for suite in "${suites[@]}"; do
  image="gpuops-lab:${suite}"
  recipe=$(printf '%s|%s|%s|%s|%s' "$RECIPE_VERSION" "$suite" "$INCLUDE" "$COMPONENTS" "$MIRROR" | sha256sum | cut -c1-16)
  have=$(docker image inspect -f '{{ index .Config.Labels "gpuops.recipe" }}' "$image" 2>/dev/null || true)
  if [ "$have" = "$recipe" ]; then
    log "${image} is up to date (recipe ${recipe})"
    continue
  fi
  log "building ${image} (recipe ${recipe})"
  tmp=$(mktemp -d)
  start=$(date +%s)
  # The hooks' "$1" is the root file system mmdebstrap passes them, so it
  # stays single-quoted here.
  # shellcheck disable=SC2016
  # The image keeps the plain archive URL in its sources; the apt proxy is
  # configured by the collection's package_proxy role, as on a real site.
  # Keep the package lists, as an installed server has them.
  mmdebstrap --quiet --variant=minbase --skip=cleanup/apt/lists --components="${COMPONENTS// /,}" \
    --include="$INCLUDE" "${proxy_opt[@]}" \
    --customize-hook='rm -f "$1"/etc/machine-id; touch "$1"/etc/machine-id' \
    --customize-hook='systemctl --root="$1" mask systemd-logind.service getty.target console-getty.service systemd-udevd.service systemd-resolved.service 2>/dev/null || true' \
    --customize-hook='rm -f "$1"/etc/apt/apt.conf.d/99mmdebstrap' \
    "$suite" "$tmp/rootfs.tar" "$MIRROR"
  docker import \
    --change 'CMD ["/sbin/init"]' \
    --change 'ENV container=docker' \
    --change "LABEL gpuops.recipe=${recipe}" \
    "$tmp/rootfs.tar" "$image" >/dev/null
  rm -rf "$tmp"
  log "built ${image} in $(( $(date +%s) - start )) s"
done
