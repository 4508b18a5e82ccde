#!/usr/bin/env bash
# The container lab: `tools/lab.sh up` starts the containers that
# inventory/lab describes and gives the compute nodes simulated GPUs;
# `tools/lab.sh down` removes them. Called by `make lab` / `make lab-down`.
#
#   GPUOPS_LAB_NODES=8 tools/lab.sh up   8 compute nodes (lab-gpu01..08) instead
#                                        of 2; the inventory must list them
#                                        (GPUOPS_LAB_INVENTORY, bench/ writes one)
set -euo pipefail
cd "$(dirname "$0")/.."

NET=gpuops-lab
SUBNET=172.31.250.0/24
GATEWAY=172.31.250.1
IMAGE=${GPUOPS_LAB_IMAGE:-gpuops-lab:bookworm}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
INVENTORY=${GPUOPS_LAB_INVENTORY:-inventory/lab}
NODES=${GPUOPS_LAB_NODES:-2}
CTL=(lab-ctl)
# The login node, where the inventory has one (inventory/lab does; a bench's may not).
LOGIN=()
if grep -rqs 'lab-login' "$INVENTORY"; then LOGIN=(lab-login); fi
COMPUTE=()
for i in $(seq 1 "$NODES"); do COMPUTE+=("$(printf 'lab-gpu%02d' "$i")"); done

log() { printf '[lab] %s\n' "$*"; }

run_container() {  # name
  docker run -d --name "$1" --hostname "$1" --network "$NET" \
    --label gpuops.lab=1 \
    --cap-add SYS_ADMIN --cap-add SYS_NICE --security-opt seccomp=unconfined --security-opt apparmor=unconfined \
    --cgroupns=private --tmpfs /sys/fs/cgroup \
    --tmpfs /run --tmpfs /run/lock \
    -v "$REPO/.build/wheelhouse:/opt/wheelhouse:ro" -v gpuops-lab-shared:/shared:rw \
    "$IMAGE" /sbin/init >/dev/null
}

up() {
  docker network inspect "$NET" >/dev/null 2>&1 \
    || docker network create --subnet "$SUBNET" --gateway "$GATEWAY" "$NET" >/dev/null
  for c in "${CTL[@]}" "${COMPUTE[@]}" ${LOGIN[@]+"${LOGIN[@]}"}; do
    if [ "$(docker inspect -f '{{.State.Running}}' "$c" 2>/dev/null)" = "true" ]; then
      log "$c is running"
    else
      docker rm -f "$c" >/dev/null 2>&1 || true
      run_container "$c"
      log "started $c"
    fi
  done
  for c in "${CTL[@]}" "${COMPUTE[@]}" ${LOGIN[@]+"${LOGIN[@]}"}; do
    for _ in $(seq 1 30); do
      state=$(docker exec "$c" systemctl is-system-running 2>/dev/null || true)
      case "$state" in running|degraded) break ;; esac
      sleep 1
    done
  done
  # The image masks systemd-logind (containers have no seats); the login
  # node needs it for its users' slices and limits (slurm_login checks).
  for c in ${LOGIN[@]+"${LOGIN[@]}"}; do docker exec "$c" systemctl unmask --quiet systemd-logind; done
  # The shared volume stands in for the site's shared file system, which
  # users write to (shared_storage checks it in external mode).
  docker exec "${CTL[0]}" chmod 1777 /shared
  # A real 2-GPU capture taken with persistence mode on, so that
  # `make validate` on a healthy lab passes.
  .venv/bin/ansible-playbook -i "$INVENTORY" tests/lab/simulate_gpus.yml \
    -e lab_sim_capture="$REPO/tests/fixtures/nvidia-smi-xml/telegraf_dual_2070-v13.xml" -e lab_sim_gpu_count=2
}

down() {  # every lab container, whatever node count started it
  docker ps -aq --filter label=gpuops.lab=1 | xargs -r docker rm -f >/dev/null
  docker network rm "$NET" >/dev/null 2>&1 || true
  log "lab removed"
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  *) echo "usage: $0 up|down" >&2; exit 2 ;;
esac
