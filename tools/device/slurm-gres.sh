#!/usr/bin/env bash
# Slurm's own GPU detection on a real GPU (the device tool; docs/testing.md, "On a real GPU").
#   tools/device/slurm-gres.sh CHECKDIR   (on the GPU machine, in the repo's root, after gpu-check.yml)
# Here, before the call: tools/device/prepare.sh --slurm puts the Debian 12
# slurm-smd and slurm-smd-slurmd packages the collection built (slurm_install_from:
# source, with NVML) and the libraries they load into .devrun/slurm.
# The machine has no Slurm and is not Debian, so the packages are unpacked into
# a folder of their own, not installed. For each gres.conf below, slurmd -G
# (what validate.yml runs) prints what Slurm finds; validate's own gres_seen
# check then compares it with the gpu_facts module's answer (CHECKDIR/gpu_facts.json).
#   autodetect-nvml:   AutoDetect=nvml alone (Slurm asks NVML, no line of ours);
#   autodetect-nvidia: AutoDetect=nvidia alone (24.11+: the driver's /proc and /dev);
#   gpu-facts:         the gres.conf gpu_facts wrote (the collection's default, off);
#   nvml-and-ours:     AutoDetect=nvml first, then gpu_facts' lines (slurm_gres_autodetect: nvml).
set -uo pipefail
check=${1:?usage: $0 CHECKDIR}
work=/tmp/gpuops-slurm
rm -rf "$work" && mkdir -p "$work/root" "$work/spool"
for deb in .devrun/slurm/*.deb; do dpkg-deb -x "$deb" "$work/root" || exit 1; done
plugins=$work/root/usr/lib/x86_64-linux-gnu/slurm
export LD_LIBRARY_PATH=$plugins:$work/root/usr/lib/x86_64-linux-gnu:$work/root/lib/x86_64-linux-gnu
slurmd=$work/root/usr/sbin/slurmd
"$slurmd" -V || { ldd "$slurmd" | grep 'not found'; exit 1; }
node=$(hostname -s)
facts() {  # facts KEY: gpu_facts' answer on this machine (a list is printed a line each)
  python3 - "$check/gpu_facts.json" "$1" <<'PY'
import json, sys
value = json.load(open(sys.argv[1]))["ansible_facts"]["gpuops_gpus"].get(sys.argv[2]) or ""
print("\n".join(value) if isinstance(value, list) else value)
PY
}
gres=$(facts slurm_gres)
gres_lines=$(facts gres_conf)
echo "gpu_facts: Gres=$gres"
# auth/slurm with a key of its own: the machine has no munged. No cgroups: the
# machine has no systemd (dbus) for slurmd's scope, and -G does not use them.
printf 'CgroupPlugin=disabled\n' >"$work/cgroup.conf"
head -c 1024 /dev/urandom >"$work/slurm.key" && chmod 600 "$work/slurm.key"
cat >"$work/slurm.conf" <<CONF
ClusterName=devcheck
SlurmctldHost=localhost
AuthType=auth/slurm
CredType=cred/slurm
PluginDir=$plugins
GresTypes=gpu
SlurmdSpoolDir=$work/spool
SlurmdPidFile=$work/slurmd.pid
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
NodeName=$node CPUs=$(nproc) Gres=$gres State=UNKNOWN
PartitionName=check Nodes=ALL Default=YES
CONF
for case in autodetect-nvml autodetect-nvidia gpu-facts nvml-and-ours; do
  case $case in
    autodetect-nvml) printf 'AutoDetect=nvml\n' ;;
    autodetect-nvidia) printf 'AutoDetect=nvidia\n' ;;
    gpu-facts) printf '%s\n' "$gres_lines" ;;
    nvml-and-ours) printf 'AutoDetect=nvml\n%s\n' "$gres_lines" ;;
  esac >"$work/gres.conf"
  echo "--- $case: gres.conf"
  cat "$work/gres.conf"
  timeout 60 "$slurmd" -G -f "$work/slurm.conf" -N "$node" >"$check/slurmd-G-$case.txt" 2>&1
  echo $? >"$work/$case.rc"
  echo "--- $case: slurmd -G rc=$(cat "$work/$case.rc")"
  cat "$check/slurmd-G-$case.txt"
done
echo "--- validate's gres_seen against gpu_facts"
PYTHONPATH=${ANSIBLE_COLLECTIONS_PATH:-/tmp/coll} python3 - "$check" "$work" <<'PY'
import json, os, sys
from ansible_collections.gpuops.cluster.plugins.module_utils.validate._validate_checks import gres_seen_result
check = sys.argv[1]
facts = json.load(open(os.path.join(check, "gpu_facts.json")))["ansible_facts"]["gpuops_gpus"]
for case in ("autodetect-nvml", "autodetect-nvidia", "gpu-facts", "nvml-and-ours"):
    with open(os.path.join(check, "slurmd-G-%s.txt" % case)) as handle:
        text = handle.read()
    with open(os.path.join(sys.argv[2], "%s.rc" % case)) as handle:
        rc = int(handle.read())
    seen = gres_seen_result("dev", {"rc": rc, "stdout": text, "stderr": ""}, facts)
    print(case, seen["status"], "|", seen["message"])
PY
