#!/usr/bin/env python
"""The shape of the source article's DDP script, unchanged: one process per
task under srun (--ntasks-per-node = GPUs), the device from SLURM_LOCALID,
the world from SLURM_NTASKS, init_process_group(init_method="env://").
Nothing here sets MASTER_ADDR or MASTER_PORT: the PyTorch environment must."""
import os
import socket

import torch
import torch.distributed as dist

local_rank = int(os.environ["SLURM_LOCALID"])
world_size = int(os.environ["SLURM_NTASKS"])
backend = "nccl" if torch.cuda.is_available() else "gloo"
if torch.cuda.is_available():
    torch.cuda.set_device(local_rank)
# Rank and world size from the environment too (RANK, WORLD_SIZE).
dist.init_process_group(backend=backend, init_method="env://")
rank = dist.get_rank()
assert dist.get_world_size() == world_size, (dist.get_world_size(), world_size)
value = torch.tensor([float(rank)])
dist.all_reduce(value)
print("rank %d/%d local %d/%s on %s master %s:%s: sum %d numpy %s" % (
    rank, world_size, local_rank, os.environ.get("LOCAL_WORLD_SIZE"), socket.gethostname(),
    os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"], int(value.item()), value.numpy().tolist()), flush=True)
dist.destroy_process_group()
