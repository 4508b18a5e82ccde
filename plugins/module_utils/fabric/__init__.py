# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The InfiniBand / RDMA fabric: port facts, the NCCL and MPI environment, rdma_peermem, and Slurm's
topology.conf from the fabric, the inventory or NVLink domains."""
