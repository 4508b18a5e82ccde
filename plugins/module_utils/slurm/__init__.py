# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Slurm: the cluster model, slurm.conf, hostlist expressions, day-2 operations, accounting
associations, containers, and the slurm_dbd and slurm_maintenance settings checks."""
