#!/usr/bin/env bash
# Capture real hardware output on a GPU machine, for parser fixtures.
#   tools/capture-gpu-fixtures.sh OUTDIR
# Each command's output goes to OUTDIR/<name>.txt (or .xml), its exit code to
# OUTDIR/<name>.rc, and OUTDIR/SOURCE.md records when, where and how.
set -u
out=${1:?usage: $0 OUTDIR}
mkdir -p "$out"
export LC_ALL=C

cap() {  # cap NAME EXT COMMAND...
  local name=$1 ext=$2; shift 2
  timeout 60 "$@" >"$out/$name.$ext" 2>"$out/$name.stderr"
  echo $? >"$out/$name.rc"
  [ -s "$out/$name.stderr" ] || rm -f "$out/$name.stderr"
}

cap nvidia-smi-q-x xml nvidia-smi -q -x
cap nvidia-smi-topo-m txt nvidia-smi topo -m
cap nvidia-smi-L txt nvidia-smi -L
cap nvidia-smi-q txt nvidia-smi -q
cap nvidia-smi-csv csv nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,memory.total,driver_version,mig.mode.current --format=csv
cap nvidia-smi-nvlink-s txt nvidia-smi nvlink -s
cap proc-driver-version txt cat /proc/driver/nvidia/version
cap dev-nvidia txt sh -c 'ls -l /dev/nvidia*'
cap lscpu txt lscpu
cap lscpu-p txt lscpu -p=CPU,CORE,SOCKET,NODE
cap meminfo txt head -n 3 /proc/meminfo
cap ibstat txt ibstat
cap ibv_devinfo txt ibv_devinfo -v
# shellcheck disable=SC2016 # expanded by the inner sh, on purpose
cap sys-class-infiniband txt sh -c 'ls -l /sys/class/infiniband/ 2>&1; for p in /sys/class/infiniband/*/ports/*; do echo "$p"; for f in state phys_state rate link_layer; do printf "  %s: %s\n" "$f" "$(cat "$p/$f" 2>/dev/null)"; done; done'
cap slurmd-C txt slurmd -C
# What nvidia_driver and gpu_facts look at (read only): NVIDIA PCI functions
# (GPUs: class 0x03xxxx, NVSwitches: 0x0680xx), the loaded modules, persistence.
# shellcheck disable=SC2016 # expanded by the inner sh, on purpose
cap pci-nvidia txt sh -c 'for d in /sys/bus/pci/devices/*; do [ "$(cat "$d/vendor")" = 0x10de ] && echo "${d##*/} $(cat "$d/vendor") $(cat "$d/device") $(cat "$d/class")"; done; true'
cap lsmod-nvidia txt sh -c 'lsmod | grep -E "^(nvidia|nv_peer)" || true'
cap sys-module-nvidia-version txt cat /sys/module/nvidia/version
cap nvidia-smi-persistence csv nvidia-smi --query-gpu=index,persistence_mode,retired_pages.pending --format=csv

{
  echo "# Captured by tools/capture-gpu-fixtures.sh"
  echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "- host kernel: $(uname -r)"
  echo "- gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)"
  echo "- exit codes:"
  for f in "$out"/*.rc; do echo "  - $(basename "$f" .rc): $(cat "$f")"; done
} >"$out/SOURCE.md"
