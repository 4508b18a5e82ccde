# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""gpuops-gpu-check: measure the GPUs this process sees (installed by gpuops.cluster.node_health).

gpuops-health runs it under the PyTorch environment's Python, inside the node's check job (the GPUs Slurm gave
that job) or on a node it holds, and judges the values (module_utils/health/_active.py). It prints one JSON line:

  {"torch": version, "seconds": total, "error": why nothing was measured,
   "gpus": [{"index", "name", "pci_bus_id", "gpu_matmul": TFLOPS, "gpu_memory_bandwidth": GB/s,
             "gpu_h2d_bandwidth": GB/s, "gpu_d2h_bandwidth": GB/s, "seconds": {check: s}}],
   "nccl_allreduce": GB/s (bus bandwidth, as nccl-tests reports it)}

A measurement that fails is {"error": why} in its place. The copies and the all-reduce are checked for the
values they must give: a GPU whose memory corrupts data fails even when it is fast.

  gpuops_gpu_check.py --fabric   one rank of the all-reduce between nodes (a task per GPU, started by srun in
                                 gpuops-health's pair job; rank, size and local GPU from Slurm's SLURM_PROCID,
                                 SLURM_NTASKS and SLURM_LOCALID, the rendezvous at GPUOPS_FABRIC_MASTER). Rank 0
                                 prints {"torch", "world", "nodes", "fabric_allreduce": GB/s or {"error"}}, or
                                 {"error": why} when nothing could be measured.
"""

from __future__ import absolute_import, division, print_function

import json
import os
import sys
import tempfile
import time

MATMUL_N = 8192
MATMUL_ITERS = 20
COPY_BYTES = 1 << 30
HOST_BYTES = 256 << 20
COPY_ITERS = 20
ALLREDUCE_BYTES = 256 << 20
ALLREDUCE_ITERS = 20
WARMUP = 3


def _timed(torch, device, work, iters):
    """Seconds per call of work() on device, timed with CUDA events after WARMUP calls."""
    for dummy in range(WARMUP):
        work()
    torch.cuda.synchronize(device)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for dummy in range(iters):
        work()
    end.record()
    torch.cuda.synchronize(device)
    return start.elapsed_time(end) / 1000.0 / iters


def matmul_tflops(torch, device):
    a = torch.randn(MATMUL_N, MATMUL_N, dtype=torch.bfloat16, device=device)
    b = torch.randn(MATMUL_N, MATMUL_N, dtype=torch.bfloat16, device=device)
    c = torch.empty_like(a)
    seconds = _timed(torch, device, lambda: torch.matmul(a, b, out=c), MATMUL_ITERS)
    if not bool(torch.isfinite(c).all()):
        raise RuntimeError("the product holds NaN or infinity")
    return 2.0 * MATMUL_N ** 3 / seconds / 1e12


def memory_gbs(torch, device):
    src = torch.arange(COPY_BYTES // 4, dtype=torch.int32, device=device)
    dst = torch.empty_like(src)
    seconds = _timed(torch, device, lambda: dst.copy_(src), COPY_ITERS)
    if not bool(torch.equal(src, dst)):
        raise RuntimeError("a device-to-device copy came back different")
    return 2.0 * COPY_BYTES / seconds / 1e9  # each copy reads and writes every byte


def host_gbs(torch, device, to_device):
    host = torch.arange(HOST_BYTES // 4, dtype=torch.int32).pin_memory()
    dev = torch.empty(HOST_BYTES // 4, dtype=torch.int32, device=device)
    back = torch.empty(HOST_BYTES // 4, dtype=torch.int32).pin_memory()
    if to_device:
        seconds = _timed(torch, device, lambda: dev.copy_(host, non_blocking=True), COPY_ITERS)
        check = dev.cpu()
        same = bool(torch.equal(check, host))
    else:
        dev.copy_(host)
        seconds = _timed(torch, device, lambda: back.copy_(dev, non_blocking=True), COPY_ITERS)
        same = bool(torch.equal(back, host))
    if not same:
        raise RuntimeError("a %s copy came back different" % ("host-to-device" if to_device else "device-to-host"))
    return HOST_BYTES / seconds / 1e9


def _allreduce_busbw(torch, dist, rank, world, device):
    """{"value": bus bandwidth in GB/s} or {"error"} of the all-reduce, the same on every rank."""
    data = torch.full((ALLREDUCE_BYTES // 4,), float(rank + 1), dtype=torch.float32, device=device)
    seconds = _timed(torch, device, lambda: dist.all_reduce(data), ALLREDUCE_ITERS)
    # Once more from known values: every element must be 1 + 2 + ... + world on every rank.
    data.fill_(float(rank + 1))
    dist.all_reduce(data)
    torch.cuda.synchronize(device)
    ok = bool((data == float(world * (world + 1) // 2)).all())
    flags = torch.tensor([1 if ok else 0], dtype=torch.int32, device=device)
    dist.all_reduce(flags, op=dist.ReduceOp.MIN)
    if not bool(flags.item()):
        return {"error": "the all-reduce gave a wrong sum"}
    return {"value": ALLREDUCE_BYTES / seconds / 1e9 * 2.0 * (world - 1) / world}


def _allreduce_rank(rank, world, init_file, out_file):
    import torch
    import torch.distributed as dist
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method="file://" + init_file, rank=rank, world_size=world)
    try:
        measured = _allreduce_busbw(torch, dist, rank, world, rank)
        if rank == 0:
            with open(out_file, "w") as handle:
                json.dump(measured, handle)
    finally:
        dist.destroy_process_group()


def allreduce_gbs(torch, world):
    import torch.multiprocessing as mp
    workdir = tempfile.mkdtemp(prefix="gpuops-gpu-check-")
    out_file = os.path.join(workdir, "result.json")
    try:
        mp.spawn(_allreduce_rank, args=(world, os.path.join(workdir, "init"), out_file), nprocs=world, join=True)
        with open(out_file) as handle:
            data = json.load(handle)
        if "error" in data:
            raise RuntimeError(data["error"])
        return data["value"]
    finally:
        for name in os.listdir(workdir):
            os.unlink(os.path.join(workdir, name))
        os.rmdir(workdir)


def _measure(entry, seconds, name, func, *args):
    started = time.time()
    try:
        entry[name] = round(func(*args), 2)
    except Exception as exc:  # pylint: disable=broad-except
        entry[name] = {"error": "%s: %s" % (type(exc).__name__, str(exc)[:200])}
    seconds[name] = round(time.time() - started, 2)


def no_cuda(torch):
    """Why torch sees no CUDA GPU."""
    return "torch %s sees no CUDA GPU (%s)" % (
        torch.__version__, "a CPU build of PyTorch" if getattr(torch.version, "cuda", None) is None
        else "no NVIDIA driver, or no GPU given to this process")


def fabric_main():
    """One rank of the all-reduce between the pair job's nodes; rank 0 prints the result."""
    rank = int(os.environ.get("SLURM_PROCID", "0"))
    world = int(os.environ.get("SLURM_NTASKS", "1"))
    local = int(os.environ.get("SLURM_LOCALID", "0"))
    out = {"torch": None, "world": world, "nodes": os.environ.get("SLURM_JOB_NODELIST")}
    try:
        import torch
        import torch.distributed as dist
    except ImportError as exc:
        out["error"] = "PyTorch cannot be imported: %s" % exc
    else:
        out["torch"] = torch.__version__
        if not torch.cuda.is_available():
            out["error"] = no_cuda(torch)
        elif world < 2:
            out["error"] = "one task: no all-reduce between nodes"
    if out.get("error"):
        if rank == 0:
            print(json.dumps(out))
        return 0
    started = time.time()
    device = local % torch.cuda.device_count()
    torch.cuda.set_device(device)
    dist.init_process_group("nccl", init_method="tcp://%s" % os.environ["GPUOPS_FABRIC_MASTER"], rank=rank,
                            world_size=world)
    try:
        try:
            measured = _allreduce_busbw(torch, dist, rank, world, device)
        except Exception as exc:  # pylint: disable=broad-except
            measured = {"error": "%s: %s" % (type(exc).__name__, str(exc)[:200])}
    finally:
        dist.destroy_process_group()
    if rank == 0:
        out["fabric_allreduce"] = round(measured["value"], 2) if "value" in measured else measured
        out["seconds"] = round(time.time() - started, 2)
        print(json.dumps(out))
    return 0


def main():
    if sys.argv[1:] == ["--fabric"]:
        return fabric_main()
    started = time.time()
    out = {"torch": None, "gpus": []}
    try:
        import torch
    except ImportError as exc:
        out["error"] = "PyTorch cannot be imported: %s" % exc
        print(json.dumps(out))
        return 0
    out["torch"] = torch.__version__
    if not torch.cuda.is_available():
        out["error"] = no_cuda(torch)
        print(json.dumps(out))
        return 0
    for index in range(torch.cuda.device_count()):
        props = torch.cuda.get_device_properties(index)
        entry = {"index": index, "name": props.name, "seconds": {}}
        bus = getattr(props, "pci_bus_id", None)
        if bus is not None:
            entry["pci_bus_id"] = "%04x:%02x:%02x" % (getattr(props, "pci_domain_id", 0), bus,
                                                      getattr(props, "pci_device_id", 0))
        device = torch.device("cuda", index)
        _measure(entry, entry["seconds"], "gpu_matmul", matmul_tflops, torch, device)
        _measure(entry, entry["seconds"], "gpu_memory_bandwidth", memory_gbs, torch, device)
        _measure(entry, entry["seconds"], "gpu_h2d_bandwidth", host_gbs, torch, device, True)
        _measure(entry, entry["seconds"], "gpu_d2h_bandwidth", host_gbs, torch, device, False)
        torch.cuda.empty_cache()
        out["gpus"].append(entry)
    if len(out["gpus"]) >= 2:
        began = time.time()
        try:
            out["nccl_allreduce"] = round(allreduce_gbs(torch, len(out["gpus"])), 2)
        except Exception as exc:  # pylint: disable=broad-except
            out["nccl_allreduce"] = {"error": "%s: %s" % (type(exc).__name__, str(exc)[:200])}
        out["nccl_allreduce_seconds"] = round(time.time() - began, 2)
    out["seconds"] = round(time.time() - started, 2)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
