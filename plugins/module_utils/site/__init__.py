# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Site services the cluster's hosts share: time (chrony), users and local accounts, environment
modules, shared storage, the PyTorch environment."""
