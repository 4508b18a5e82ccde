# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Reading a slurm.conf ``Gres=`` value: the one rule for how many GRES of a name it holds.

Its own small module, with no imports of the collection, because the programs on
the nodes (the health check, the GPU exporter) reach it through validate's checks
and carry a private copy of what they import: the cluster model, its catalogues
and its topology planner stay on the Ansible controller.

Pure functions, no Ansible imports.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

# A count Slurm reads: a short decimal number (a K/M suffix is not used for GPUs).
_COUNT = re.compile(r"[0-9]{1,12}\Z")


def gres_count(value, name="gpu"):
    """The number of GRES called name in a slurm.conf Gres= value ('gpu:a100:4,gpu:t4:2' -> 6)."""
    total = 0
    for item in (value or "").split(","):
        fields = item.split("(")[0].strip().split(":")
        if not fields or fields[0] != name or len(fields) < 2:
            continue
        count = fields[-1].strip()
        if _COUNT.match(count):
            total += int(count)
        elif not re.match(r"[0-9]", count):
            # gpu:a100 without a count means 1 in Slurm.
            total += 1
    return total
