# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.gpuops.cluster.plugins.filter import slurm_ops
from ansible_collections.gpuops.cluster.plugins.filter.slurm_ops import FilterModule

FILTERS = FilterModule().filters()
NAMES = ["slurm_apt_policy", "slurm_cluster_state", "slurm_name_versions", "slurm_ping", "slurm_sacct_states",
         "slurm_state_problems", "slurm_state_shared_problems", "slurm_upgrade_check"]
FIXTURES = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures"))


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def test_filter_names():
    assert sorted(FILTERS) == NAMES


def test_slurm_ping():
    text = "Slurmctld(primary) at ctl1 is DOWN\nSlurmctld(backup) at ctl2 is UP\n"
    assert [(item["controller"], item["up"], item["in_control"]) for item in FILTERS["slurm_ping"](text)] == [
        ("ctl1", False, False), ("ctl2", True, True)]
    with pytest.raises(AnsibleFilterError, match="^slurm_ping: scontrol ping: no 'Slurmctld"):
        FILTERS["slurm_ping"]("slurm_load_ctl_conf error")


def test_slurm_upgrade_check():
    result = FILTERS["slurm_upgrade_check"]({"mt-ctl slurmctld": "22.05.8-4+deb12u3"}, "24.11.5-4")
    assert result["ok"] is False and result["path"] == ["22.05", "23.11", "24.11"]
    assert FILTERS["slurm_upgrade_check"]({"n1 slurmd": "22.05.8"}, "23.11.4", 2)["ok"] is True


def test_slurm_apt_policy():
    result = FILTERS["slurm_apt_policy"](fixture("slurm_ops/apt-cache-policy-node-bookworm.txt"))
    assert result["slurmdbd"] == {"installed": None, "candidate": "22.05.8-4+deb12u3"}


def test_slurm_name_versions():
    assert FILTERS["slurm_name_versions"]("slurm (none):22.05.8-1.el9\n") == {"slurm": "22.05.8-1.el9"}


def test_slurm_cluster_state_and_state_problems():
    before = FILTERS["slurm_cluster_state"](fixture("slurm_ops/scontrol-nodes-mixed-drain-22.05.txt"),
                                            fixture("slurm_ops/squeue-22.05.txt"))
    assert before["jobs"]["1"] == {"state": "RUNNING", "nodes": ["mt-gpu01"]}
    after = FILTERS["slurm_cluster_state"](fixture("slurm_ops/scontrol-nodes-mixed-drain-22.05.txt"), "")
    sacct = FILTERS["slurm_sacct_states"]("1|COMPLETED|0:0\n")
    assert sacct == {"1": {"state": "COMPLETED", "exit_code": "0:0"}}
    result = FILTERS["slurm_state_problems"](before, after, sacct)
    assert result["problems"] == [] and result["jobs"] == {"1": "RUNNING -> COMPLETED"}
    assert FILTERS["slurm_state_problems"](before, before)["problems"] == []


@pytest.mark.parametrize(
    "name, args, message",
    [
        ("slurm_upgrade_check", ({"n1 slurmd": "23.11.4"}, "24.08"),
         "slurm_upgrade_check: upgrade target: Slurm 24.08"),
        ("slurm_upgrade_check", ({"n1 slurmd": None}, "24.11.5"), "slurm_upgrade_check: n1 slurmd: no installed version"),
        ("slurm_upgrade_check", ({"n1 slurmd": "22.05.8"}, "23.02.7", 0),
         "slurm_upgrade_check: slurm_maintenance_max_release_jump must be a positive whole number"),
        ("slurm_apt_policy", (None,), "slurm_apt_policy: apt-cache policy: output must be text"),
        ("slurm_name_versions", ("a b c\n",), "slurm_name_versions: package versions: expected 'name version'"),
        ("slurm_cluster_state", ("garbage", ""), "slurm_cluster_state: scontrol show node: line without NodeName="),
        ("slurm_sacct_states", ("1|X",), "slurm_sacct_states: sacct: expected 3"),
        ("slurm_state_problems", ({}, {}), "slurm_state_problems: before must be a cluster state"),
    ],
)
def test_filter_errors(name, args, message):
    with pytest.raises(AnsibleFilterError) as info:
        FILTERS[name](*args)
    assert str(info.value).startswith(message)


def test_unexpected_errors_are_wrapped(monkeypatch):
    def broken(*args):
        raise KeyError("nodes")

    monkeypatch.setattr(slurm_ops.ops, "state_problems", broken)
    with pytest.raises(AnsibleFilterError) as info:
        FILTERS["slurm_state_problems"]({}, {})
    assert str(info.value) == "slurm_state_problems: unexpected input (KeyError: 'nodes')"


def test_slurm_state_shared_problems():
    check = FILTERS["slurm_state_shared_problems"]
    assert check("c1", "/shared/s", ["c1", "c2"], {"rc": 0}, ["c1", "c2"]) == []
    assert check("c2", "/shared/s", ["c1", "c2"], {"rc": 0}, ["c2"])[0].startswith("c2 does not see the files c1 wrote")
