#!/usr/bin/env bash
# The collection on a real GPU machine (the device tool; docs/testing.md, "On a real GPU").
#   tools/device/gpu-check.sh            (on the GPU machine, in the repo's root, as root; $OUT collects)
# Here, before the call: tools/device/prepare.sh (wheels and the one filter
# plugin ansible-core lacks, into .devrun/, which git ignores).
# 1. captures the hardware's output (tools/capture-gpu-fixtures.sh);
# 2. runs the modules gpu_facts, ib_facts, host_probe and clock_sample through
#    ansible-playbook, and installs the health check and the GPU exporter with
#    the roles' own tasks (tools/device/gpu-check.yml);
# 3. gpuops-health interval, then the exporter's scrape while a DDP run holds the GPU;
# 4. the pytorch_env examples: allreduce_smoke.py and train_ddp.py under torchrun (NCCL);
# 5. with prepare.sh --slurm: Slurm's own GPU detection (the collection's 26.05
#    build with NVML) against gpu_facts (tools/device/slurm-gres.sh).
set -uo pipefail
export LC_ALL=C.UTF-8 PYTHONUNBUFFERED=1
out=${OUT:?set OUT}
root=$(pwd)
mkdir -p "$out/check" /tmp/gpuops-check
step() { printf '\n=== %s (%s)\n' "$*" "$(date -u +%H:%M:%S)"; }

step "python and ansible"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .devrun/whl/*.whl || exit 1
export PYTHONPATH=/tmp/site
mkdir -p /tmp/coll/ansible_collections/gpuops
ln -sfn "$root" /tmp/coll/ansible_collections/gpuops/cluster
cp -r .devrun/collections/ansible_collections/community /tmp/coll/ansible_collections/
export ANSIBLE_COLLECTIONS_PATH=/tmp/coll ANSIBLE_NOCOLOR=1 ANSIBLE_STDOUT_CALLBACK=default
python3 -c 'import torch, sys; print(sys.version.split()[0], "torch", torch.__version__, "cuda", torch.cuda.is_available())'
python3 -m ansible --version 2>/dev/null | head -n 1 || /tmp/site/bin/ansible --version | head -n 1

# The roles and programs look for nvidia-smi where Debian's driver packages put
# it; this image keeps it elsewhere (a read-only driver mount).
smi=$(command -v nvidia-smi)
case ${smi%/*} in /usr/local/sbin | /usr/local/bin | /usr/sbin | /usr/bin | /sbin | /bin | '') ;; *) ln -sf "$smi" /usr/local/bin/nvidia-smi ;; esac
echo "nvidia-smi: ${smi:-missing}"

step "capture"
tools/capture-gpu-fixtures.sh /tmp/gpuops-check/capture >/dev/null 2>&1
cat /tmp/gpuops-check/capture/SOURCE.md

step "modules and installs (ansible-playbook)"
PATH=/tmp/site/bin:$PATH ansible-playbook -i localhost, -e ansible_python_interpreter="$(command -v python3)" \
  tools/device/gpu-check.yml; echo "playbook rc=$?"
python3 - "$out/check/gpu_facts.json" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))["ansible_facts"]["gpuops_gpus"]
print("gpu_facts: count", f.get("count"), "| names", [g.get("name") for g in f.get("gpus", [])])
for key in ("status", "error", "driver_version", "cuda_version", "slurm_gres", "gres_conf", "pci_gpus",
            "nvlink_all_to_all", "fabric_manager_needed", "device_files"):
    if key in f:
        print(" ", key, json.dumps(f[key])[:400])
PY

step "health check: interval"
/usr/local/sbin/gpuops-health interval; echo "gpuops-health interval rc=$?"
/usr/local/sbin/gpuops-health show | tee "$out/check/health-last.json"

step "DDP example and the exporter while it runs"
sed -n '1,$p' roles/pytorch_env/templates/allreduce_smoke.py.j2 >/tmp/gpuops-check/allreduce_smoke.py
sed -n '1,$p' roles/pytorch_env/templates/train_ddp.py.j2 >/tmp/gpuops-check/train_ddp.py
grep -q '{{\|{%' /tmp/gpuops-check/*.py && echo "templates carry Jinja: render them first" && exit 1
timeout 120 python3 -m torch.distributed.run --standalone --nproc_per_node=1 /tmp/gpuops-check/allreduce_smoke.py; echo "allreduce rc=$?"
timeout 200 python3 -m torch.distributed.run --standalone --nproc_per_node=1 /tmp/gpuops-check/train_ddp.py \
  --steps 1500 --batch-size 4096 --hidden 4096 --checkpoint-dir /tmp/gpuops-check/ckpt --checkpoint-every 500 >/tmp/gpuops-check/ddp.log 2>&1 &
ddp=$!
sleep 25
python3 /opt/gpuops/gpu-exporter/gpuops_gpu_exporter.py --once >"$out/check/metrics-during-ddp.txt"; echo "exporter rc=$?"
grep -E '^gpuops_gpu_(exporter_up|utilization_ratio|memory_used_bytes|power_watts|temperature_celsius|info)' "$out/check/metrics-during-ddp.txt" | head -n 20
wait $ddp; echo "ddp rc=$?"
cat /tmp/gpuops-check/ddp.log | tail -n 8
python3 /opt/gpuops/gpu-exporter/gpuops_gpu_exporter.py --once >"$out/check/metrics-idle.txt"; echo "exporter (idle) rc=$?"
grep -E '^gpuops_gpu_exporter_up|^gpuops_gpu_utilization' "$out/check/metrics-idle.txt" | head -n 5

if [ -d .devrun/slurm ]; then
  step "Slurm's own GPU detection (slurmd -G) against gpu_facts"
  tools/device/slurm-gres.sh "$out/check"; echo "slurm-gres rc=$?"
fi

step "pack"
cp /tmp/gpuops-check/ddp.log "$out/check/"
tar -C /tmp/gpuops-check -czf "$out/capture.tar.gz" capture
tar -C "$out" -czf "$out/check.tar.gz" check && rm -rf "$out/check"
ls -la "$out"
