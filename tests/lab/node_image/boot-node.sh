#!/bin/sh
# Test harness only: boot one container from a node image, as a node would
# boot it, with what the test lab stands in for:
# - the node's overlay (join.conf, munge.key), bind-mounted read-only at
#   /etc/gpuops/node, where a Warewulf runtime overlay or cloud-init would
#   lay it;
# - simulated GPUs: the replaying nvidia-smi, the capture it replays and a
#   unit that makes the /dev/nvidiaN devices and finishes the container's
#   cgroups before the join runs (gpuops-test-sim.service);
# - a reboot into another image: slurm.conf's RebootProgram here asks
#   reboot-watch.sh for it (gpuops-sim-reboot, power/), and slurmd reports
#   the container's start as its boot (slurmd-boot-time.conf).
# Nothing is copied into the container: the image is used as it was built.
#   boot-node.sh NAME IMAGE NETWORK NODE_DIR [IP]
# IP: the node's address on NETWORK (its NodeAddr in slurm.conf); NODE_DIR/ip
# keeps it for the reboots (reboot-watch.sh).
# NODE_DIR holds overlay/ (join.conf, munge.key), sim/ (nvidia-smi-q-x.xml,
# gpu-count, and a fault file when a test injects one) and power/ (made here).
set -eu
name=$1 image=$2 network=$3 dir=$4
ip=${5:-$(cat "$dir/ip" 2>/dev/null || true)}
[ -z "$ip" ] || echo "$ip" > "$dir/ip"
here=$(cd "$(dirname "$0")" && pwd)
cp "$here/../container-cgroups.sh" "$dir/sim/container-cgroups.sh"
mkdir -p "$dir/power"
rm -f "$dir/power/reboot"
docker rm -f "$name" >/dev/null 2>&1 || true
docker run -d --name "$name" --hostname "$name" --network "$network" ${ip:+--ip "$ip"} \
  --label owner=molecule --label gpuops.node-image=1 \
  --cap-add SYS_ADMIN --cap-add SYS_NICE \
  --security-opt seccomp=unconfined --security-opt apparmor=unconfined \
  --tmpfs /run --tmpfs /run/lock --tmpfs /sys/fs/cgroup --cgroupns private \
  -v "$dir/overlay:/etc/gpuops/node:ro" \
  -v "$dir/sim:/usr/share/gpuops-sim:ro" \
  -v "$dir/power:/var/lib/gpuops-sim-power" \
  -v "$here/../nvidia-smi:/usr/local/bin/nvidia-smi:ro" \
  -v "$here/gpuops-sim-reboot:/usr/local/sbin/gpuops-sim-reboot:ro" \
  -v "$here/slurmd-boot-time.conf:/etc/systemd/system/slurmd.service.d/zz-gpuops-test-boot-time.conf:ro" \
  -v "$here/gpuops-test-sim.service:/etc/systemd/system/gpuops-test-sim.service:ro" \
  -v "$here/join-after-sim.conf:/etc/systemd/system/gpuops-node-join.service.d/zz-gpuops-test-sim.conf:ro" \
  "$image" /sbin/init
