# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The topology_plan filter hands plain data to module_utils/fabric/_topology.py and its answer back."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.gpuops.cluster.plugins.filter.topology import FilterModule, topology_plan

FIXTURES = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures"))


def test_plan_from_a_capture():
    with open(os.path.join(FIXTURES, "ibnetdiscover", "ibm-pcm_1switch_2hosts.txt")) as handle:
        text = handle.read()
    # inventory hosts with a domain; their Slurm names as slurm_node_name gives them
    nodes = {"compute-00-00.example.org": "compute-00-00", "compute-00-01.example.org": "compute-00-01"}
    plan = topology_plan(nodes, "22.05", {"ibnetdiscover": text})
    assert plan == {"plugin": "topology/tree", "reason": "topology/tree: the switch tree is known.",
                    "lines": ["SwitchName=S-000b8cffff0053ee Nodes=compute-00-[00-01]"], "missing": [], "notes": [],
                    "errors": []}


def test_the_docs_example():
    plan = topology_plan({"gpu01": "gpu01", "gpu02": "gpu02", "gpu03": "gpu03"}, "22.05",
                         {"node_switches": {"gpu01": "rack1", "gpu02": "rack1", "gpu03": "rack2"},
                          "switch_parents": {"rack1": "spine", "rack2": "spine"}})
    assert (plan["plugin"], plan["lines"]) == ("topology/tree", ["SwitchName=rack1 Nodes=gpu[01-02]",
                                                                 "SwitchName=rack2 Nodes=gpu03",
                                                                 "SwitchName=spine Switches=rack[1-2]"])


def test_input_errors():
    with pytest.raises(AnsibleFilterError, match="topology_plan: the input must map each Slurm node's inventory host"):
        topology_plan(["gpu01"], "24.11")
    assert topology_plan({"gpu01": "gpu01"}, "24.11", {"plugin": "tree"})["errors"] == [
        "topology/tree was requested, but no switch tree is known (no ibnetdiscover output and no node_switches)"]
    assert FilterModule().filters() == {"topology_plan": topology_plan}
