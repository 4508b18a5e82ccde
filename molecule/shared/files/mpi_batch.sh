#!/usr/bin/env bash
#SBATCH --job-name=mpi-allreduce
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:05:00
srun --mpi=pmix python3 /opt/gpuops-test/mpi_allreduce.py
