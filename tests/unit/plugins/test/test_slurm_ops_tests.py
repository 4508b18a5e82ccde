# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The slurm_node_answering test over real scontrol captures (tests/fixtures/slurm_ops, tests/fixtures/scontrol).

States not captured are made by editing the State= text of the real
mt-gpu02 line (marked as such).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest
import yaml

from ansible.errors import AnsibleFilterError
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._slurm_ops import cluster_state
from ansible_collections.gpuops.cluster.plugins.test import slurm_ops
from ansible_collections.gpuops.cluster.plugins.test.slurm_ops import TestModule as SlurmOpsTests

FIXTURES = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures"))
answering = SlurmOpsTests().tests()["slurm_node_answering"]


def _nodes(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return cluster_state(handle.read(), "")["nodes"]


def _edited(state):
    """The real mt-gpu02 line (IDLE+DRAIN) with its State= replaced."""
    with open(os.path.join(FIXTURES, "slurm_ops", "scontrol-nodes-mixed-drain-22.05.txt")) as handle:
        line = [raw for raw in handle.read().splitlines() if raw.startswith("NodeName=mt-gpu02 ")][0]
    return cluster_state(line.replace("State=IDLE+DRAIN ", "State=%s " % state), "")["nodes"]["mt-gpu02"]


def test_real_capture():
    nodes = _nodes("slurm_ops/scontrol-nodes-mixed-drain-22.05.txt")
    assert answering(nodes["mt-gpu01"]) is True    # MIXED
    assert answering(nodes["mt-gpu02"]) is True    # IDLE+DRAIN: a drain still answers


@pytest.mark.parametrize("state, expected", [
    ("IDLE", True),
    ("ALLOCATED", True),
    ("MIXED+DRAIN", True),
    ("IDLE+MAINTENANCE", True),
    ("IDLE*", False),
    ("IDLE+NOT_RESPONDING", False),
    ("DOWN*", False),
    ("DOWN+DRAIN", False),
    ("UNKNOWN", False),
    ("FUTURE", False),
    ("IDLE+INVALID_REG", False),
    ("INVAL", False),
    ("MIXED+FAIL", False),
    ("ALLOCATED+FAILING", False),
])
def test_edited_states(state, expected):
    assert answering(_edited(state)) is expected


@pytest.mark.parametrize("bad", [None, "IDLE", {}, {"base_state": "idle"}, {"base_state": 1, "flags": []},
                                 {"base_state": "idle", "flags": "drain"}])
def test_garbage(bad):
    with pytest.raises(AnsibleFilterError, match="^slurm_node_answering: expected a node of slurm_cluster_state"):
        answering(bad)


def test_doc_file():
    with open(os.path.join(os.path.dirname(slurm_ops.__file__), "slurm_node_answering.yml")) as handle:
        doc = yaml.safe_load(handle)
    assert doc["DOCUMENTATION"]["name"] == "slurm_node_answering"
    assert doc["RETURN"]["_value"]["type"] == "bool"
