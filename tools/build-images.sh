#!/usr/bin/env bash
# Build the lab's systemd base images from Debian packages (no registry is
# reachable): mmdebstrap a minbase root file system, then `docker import` it.
# An image is rebuilt only when its recipe (this file's RECIPE lines) changes:
# the recipe hash is stored in the image's label gpuops.recipe.
#
# On each base image, a package layer (gpuops-pkgs:<suite>): the same system
# with the Debian packages the roles install already installed
# (tools/role-packages.py reads them from the roles), none of their services
# enabled and no munge key. Scenarios whose subject is not the install
# itself start from it; the site clusters start bare. Rebuilt when the base
# image or the package list changes (label gpuops.pkgs). On Debian 12's, the
# CUDA layer (gpuops-cuda:bookworm: the cuda role's toolkit package), the
# gpu_stack scenario's GPU node.
#
#   tools/build-images.sh                   # both suites, every layer
#   tools/build-images.sh bookworm          # one
#   tools/build-images.sh --bare bookworm   # the bare image only (make lab's)
#   tools/build-images.sh --pkgs            # the bare images and the package layers
set -euo pipefail

log() { printf '[build-images] %s\n' "$*"; }

# The recipe: what a "bare server" has before we touch it, as Debian's own
# container images have it: dpkg without fsync (docker-apt-speedup), which
# a container's throw-away disk does not need (measured: the CUDA toolkit's
# install 11 % faster).
INCLUDE="python3,python3-apt,systemd,systemd-sysv,sudo,dbus,ca-certificates"
COMPONENTS="main contrib non-free non-free-firmware"
MIRROR=${GPUOPS_DEBIAN_MIRROR:-http://deb.debian.org/debian}
PROXY=${GPUOPS_APT_PROXY_HOST:-http://127.0.0.1:3142}
RECIPE_VERSION=4

# How far to go: bare images only, up to the package layers, or every layer.
until=all
case "${1:-}" in
  --bare) until=bare; shift ;;
  --pkgs) until=pkgs; shift ;;
esac
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
    --customize-hook='echo force-unsafe-io >"$1"/etc/dpkg/dpkg.cfg.d/docker-apt-speedup' \
    "$suite" "$tmp/rootfs.tar" "$MIRROR"
  docker import \
    --change 'CMD ["/sbin/init"]' \
    --change 'ENV container=docker' \
    --change "LABEL gpuops.recipe=${recipe}" \
    "$tmp/rootfs.tar" "$image" >/dev/null
  rm -rf "$tmp"
  log "built ${image} in $(( $(date +%s) - start )) s"
done

[ "$until" != bare ] || exit 0

# A layer on a base image: the packages installed in a plain container (no
# init: no daemon starts), service accounts made first with the ids given
# (name uid gid;...), then every unit the packages enabled disabled again,
# so that a host runs only what the collection starts on it, and a munge
# key the munge package generated removed (the collection distributes the
# controller's). Rebuilt when the base image, the packages or the accounts
# change (the hash in the image's label).
layer() {  # base image label packages accounts
  local base=$1 image=$2 label=$3 packages=$4 accounts=$5 base_id recipe have start name
  base_id=$(docker image inspect -f '{{ .Id }}' "$base")
  recipe=$(printf '%s|%s|%s' "$base_id" "$packages" "$accounts" | sha256sum | cut -c1-16)
  have=$(docker image inspect -f "{{ index .Config.Labels \"${label}\" }}" "$image" 2>/dev/null || true)
  if [ "$have" = "$recipe" ]; then
    log "${image} is up to date (packages ${recipe})"
    return 0
  fi
  log "building ${image} (packages ${recipe}): ${packages}"
  start=$(date +%s)
  name="${image//:/-}-build"
  docker rm -f "$name" >/dev/null 2>&1 || true
  local apt_opts=()
  [ ${#proxy_opt[@]} -eq 0 ] || apt_opts=(-o "Acquire::http::Proxy=${PROXY}")
  # shellcheck disable=SC2086
  docker run --name "$name" --network host -e DEBIAN_FRONTEND=noninteractive -e ACCOUNTS="$accounts" "$base" bash -euc '
    # The service accounts with the ids the roles give them, before the
    # packages would make them with ids of their own.
    IFS=";" read -ra list <<<"$ACCOUNTS"
    for a in "${list[@]}"; do
      read -r user uid gid <<<"$a"
      groupadd --system --gid "$gid" "$user"
      useradd --system --uid "$uid" --gid "$gid" --home-dir /nonexistent --no-create-home \
        --shell /usr/sbin/nologin "$user"
    done
    before=$(systemctl list-unit-files --state=enabled --no-legend | cut -d" " -f1 | sort)
    printf "#!/bin/sh\nexit 101\n" > /usr/sbin/policy-rc.d; chmod 0755 /usr/sbin/policy-rc.d
    apt-get "$@" update -qq
    apt-get "$@" install -y -qq --no-install-recommends '"$packages"' >/dev/null
    apt-get clean
    rm -f /usr/sbin/policy-rc.d /etc/munge/munge.key
    after=$(systemctl list-unit-files --state=enabled --no-legend | cut -d" " -f1 | sort)
    new=$(comm -13 <(echo "$before") <(echo "$after"))
    [ -z "$new" ] || systemctl disable $new 2>/dev/null
    echo "disabled: $new" | tr "\n" " "' _ "${apt_opts[@]}"
  echo
  docker commit \
    --change 'CMD ["/sbin/init"]' \
    --change "LABEL ${label}=${recipe}" \
    "$name" "$image" >/dev/null
  docker rm -f "$name" >/dev/null
  # The layer it replaces, now untagged.
  docker images -q --filter dangling=true --filter "label=${label}" | xargs -r docker rmi >/dev/null 2>&1 || true
  log "built ${image} in $(( $(date +%s) - start )) s"
}

declare -A MAJOR=([bookworm]=12 [trixie]=13)
# The package layer (gpuops-pkgs:<suite>), with the Slurm roles' service
# accounts and their ids.
for suite in "${suites[@]}"; do
  layer "gpuops-lab:${suite}" "gpuops-pkgs:${suite}" gpuops.pkgs \
    "$(python3 "$(dirname "$0")/role-packages.py" "${MAJOR[$suite]}" | tr '\n' ' ')" \
    "$(python3 "$(dirname "$0")/role-packages.py" users | tr '\n' ';')"
done

# The CUDA layer (gpuops-cuda:<suite>, on the bare image, Debian 12 only:
# the suite a scenario uses it on): the cuda role's toolkit package,
# installed as the role installs it (no recommends), and nothing else. The
# 2 GB toolkit is unpacked once per image, not on every GPU node of make
# test: site's second GPU node and gpu_stack's GPU node start from it (their
# converge installs everything else, from the bare system, and holds the
# toolkit); site's first GPU node proves the toolkit's install from the
# bare image.
[ "$until" != pkgs ] || exit 0
CUDA_SUITES=(bookworm)
for suite in "${suites[@]}"; do
  [[ " ${CUDA_SUITES[*]} " == *" ${suite} "* ]] || continue
  layer "gpuops-lab:${suite}" "gpuops-cuda:${suite}" gpuops.cuda \
    "$(python3 "$(dirname "$0")/role-packages.py" cuda "${MAJOR[$suite]}" | tr '\n' ' ')" ""
done
