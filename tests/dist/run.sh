#!/usr/bin/env bash
# `make dist-test`: install the built tarball into an empty folder, then run a
# consumer's play (tests/dist/consumer.yml) that uses the roles by FQCN against
# two fresh containers, and check that Slurm runs a job there. The containers
# start from the package layer image (tools/build-images.sh): what is under
# test is the installed collection, not the package install.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
tarball=$(find "$repo/dist" -maxdepth 1 -name 'gpuops-cluster-*.tar.gz' | head -n 1)
[ -n "$tarball" ] || { echo '[dist-test] no tarball in dist/: run make dist' >&2; exit 1; }
work=$(mktemp -d)
NET=gpuops-dist
CTL=dist-ctl
NODE=dist-gpu01
log() { printf '[dist-test] %s\n' "$*"; }

cleanup() {
  docker rm -f "$CTL" "$NODE" >/dev/null 2>&1 || true
  docker network rm "$NET" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
cleanup; work=$(mktemp -d)

# An empty folder, the tarball installed into it, and nothing of the checkout:
# no ansible.cfg, no roles path. The collections we depend on come from the
# ansible package on PyPI (Galaxy can't be reached), hence --no-deps.
unset ANSIBLE_CONFIG
export ANSIBLE_COLLECTIONS_PATH="$work/collections"
"$repo/.venv/bin/ansible-galaxy" collection install --no-deps -p "$work/collections" "$tarball"
test -f "$work/collections/ansible_collections/gpuops/cluster/MANIFEST.json"
if [ -e "$work/collections/ansible_collections/gpuops/cluster/molecule" ]; then
  log "the tarball carries test files (build_ignore is wrong)"; exit 1
fi
cp "$repo/tests/dist/consumer.yml" "$work/"
cat >"$work/hosts.yml" <<INV
all:
  vars:
    ansible_connection: community.docker.docker_api
    ansible_python_interpreter: /usr/bin/python3
    package_proxy_url: http://172.31.253.1:3142
    slurm_cluster_name: dist
  children:
    slurm_controller: {hosts: {$CTL: {}}}
    slurm_compute: {hosts: {$NODE: {}}}
INV

docker network create --subnet 172.31.253.0/24 --gateway 172.31.253.1 "$NET" >/dev/null
for c in "$CTL" "$NODE"; do
  docker run -d --name "$c" --hostname "$c" --network "$NET" \
    --cap-add SYS_ADMIN --cap-add SYS_NICE --security-opt seccomp=unconfined --security-opt apparmor=unconfined \
    --cgroupns=private --tmpfs /sys/fs/cgroup --tmpfs /run --tmpfs /run/lock \
    gpuops-pkgs:bookworm /sbin/init >/dev/null
done
for c in "$CTL" "$NODE"; do
  for _ in $(seq 1 30); do
    case "$(docker exec "$c" systemctl is-system-running 2>/dev/null || true)" in running|degraded) break ;; esac
    sleep 1
  done
  # The cgroup controllers systemd could not mount (tests/lab/container-cgroups.sh).
  docker exec -i "$c" sh <"$repo/tests/lab/container-cgroups.sh"
done

cd "$work"
log "converging with the installed collection"
"$repo/.venv/bin/ansible-playbook" -i hosts.yml consumer.yml
state=$(docker exec "$CTL" sinfo --noheader --Node --format '%N %t')
out=$(docker exec "$CTL" srun -N1 hostname)
log "sinfo: $state; srun: $out"
[ "$state" = "$NODE idle" ] || { log "expected '$NODE idle'"; exit 1; }
[ "$out" = "$NODE" ] || { log "expected srun to print $NODE"; exit 1; }
log "passed: the installed collection built a working cluster"
