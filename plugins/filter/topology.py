# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter of topology-aware placement: topology_plan (docs: topology_plan.yml beside this file);
logic in module_utils/fabric/_topology.py."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.gpuops.cluster.plugins.module_utils.common._settings_values import plain_data
from ansible_collections.gpuops.cluster.plugins.module_utils.fabric._topology import TopologyError, topology_plan as plan


def topology_plan(slurm_nodes, series, settings=None):
    """topology.conf for the Slurm nodes: plugin, reason, lines, missing, notes and errors."""
    if not hasattr(slurm_nodes, "items"):
        raise AnsibleFilterError("topology_plan: the input must map each Slurm node's inventory host to its Slurm "
                                 "name, got %s" % type(slurm_nodes).__name__)
    try:
        return plan(plain_data(slurm_nodes), series, plain_data(settings))
    except TopologyError as exc:
        raise AnsibleFilterError("topology_plan: %s" % exc)


class FilterModule(object):
    """Topology filters."""

    def filters(self):
        return {"topology_plan": topology_plan}
