#!/bin/sh
# Test harness only (Molecule prepare, `make lab`, the dist test): finish a
# container's cgroup v1 tree so that slurmd can confine jobs the way it does
# on a real host. Run inside the container, as root. Prints "changed" when it
# changed something.
#
# The containers run with a private cgroup namespace and a tmpfs at
# /sys/fs/cgroup (no bind mount of the host's tree); systemd mounts each
# controller afresh at boot, rooted at the container's own cgroup, and those
# mounts are writable. Two things remain:
# - this host's kernel has cpu and cpuacct as separate hierarchies, and
#   systemd mounts them as if joined ("cpu,cpuacct"): it mounts only cpu
#   there (or neither) and links /sys/fs/cgroup/cpuacct to it. Slurm's
#   jobacct_gather/cgroup would then put tasks into the cpu hierarchy, and
#   enroot, which finds a controller's mount by its name in the mount
#   options, would bind a job's cpu cgroup path from the cpuset mount and
#   fail. Mount each controller that is not mounted, in place of a link.
# - the simulated GPUs are /dev/nvidiaN (major 195): Docker's device rules do
#   not allow them, so the container could not open them at all, and a job
#   that was given one could not tell it from one it was denied. Allow them
#   in the container's own devices cgroup and in every cgroup below it (a
#   child copies its parent's list when it is made), one minor at a time:
#   the container's list is an allow list, and Slurm narrows a job's GPUs
#   by denying the others one by one, which a wildcard "c 195:* rwm" entry
#   would not let it do (so no `--device-cgroup-rule 'c 195:* rwm'` either).
#   Minors 0-63 (the GPUs) and 255 (/dev/nvidiactl).
# The containers also run with SYS_NICE (molecule.yml, tools/lab.sh): with
# task/affinity slurmstepd binds a user's task to its CPUs, which root may do
# to another user's process only with CAP_SYS_NICE, and Docker leaves it
# out ("task_g_set_affinity: Operation not permitted", the job never runs).
set -eu
root=/sys/fs/cgroup
changed=
[ -d "$root/devices" ] || { echo "no cgroup v1 devices controller at $root/devices: nothing to do"; exit 0; }
# Is controller $1 mounted in this namespace (a token of a cgroup mount's options)?
mounted() {
  awk -v c="$1" '/ - cgroup cgroup / { n = split($NF, o, ","); for (i = 1; i <= n; i++) if (o[i] == c) found = 1 }
                 END { exit !found }' /proc/self/mountinfo
}
for controller in cpu cpuacct; do
  grep -qw "^$controller" /proc/cgroups || continue
  mounted "$controller" && continue
  mount -o remount,rw "$root"
  # systemd may have left a link to the cpu mount here ("cpu,cpuacct").
  if [ -L "$root/$controller" ]; then rm "$root/$controller"; fi
  mkdir -p "$root/$controller"
  mount -t cgroup -o "$controller" cgroup "$root/$controller"
  mount -o remount,ro "$root"
  changed=1
done
if ! grep -q '^c 195:0 rwm$' "$root/devices/devices.list"; then
  find "$root/devices" -type d | while read -r dir; do
    for minor in $(seq 0 63) 255; do
      echo "c 195:$minor rwm" >"$dir/devices.allow"
    done
  done
  changed=1
fi
[ -z "$changed" ] || echo changed
