# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""slice_hosts_plan and run_hosts hand plain data to module_utils/site/_slice_hosts.py and its answer back."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.gpuops.cluster.plugins.filter.slice_hosts import FilterModule, run_hosts, slice_hosts_plan


def test_the_filters_are_registered():
    assert sorted(FilterModule().filters()) == ["run_hosts", "slice_hosts_plan"]


def test_the_plan_gives_add_host_arguments():
    setting = {"ctl": {"groups": ["slurm_controller"], "vars": {"ansible_host": "10.0.0.1"}}}
    assert slice_hosts_plan(setting, ["gpu03"]) == {
        "add": [{"ansible_host": "10.0.0.1", "name": "ctl", "groups": ["slurm_controller", "gpuops_slice_outside"]}],
        "held": [], "errors": []}
    assert slice_hosts_plan(setting, ["ctl", "gpu01"])["add"] == []


def test_a_bad_setting_is_a_message_not_an_exception():
    plan = slice_hosts_plan({"ctl": {"groups": ["slurm_controller"], "vars": {"groups": ["x"]}}}, ["gpu01"])
    assert plan["add"] == [] and "vars has 'groups'" in plan["errors"][0]


def test_run_hosts_leaves_the_added_hosts_out():
    assert run_hosts("all", {"all": ["gpu01"]}) == "all"
    assert run_hosts("all", {"all": ["ctl", "gpu01"], "gpuops_slice_outside": ["ctl"]}) == "all:!gpuops_slice_outside"


@pytest.mark.parametrize("pattern", ["", None, {"all": 1}])
def test_run_hosts_refuses_a_bad_pattern_clearly(pattern):
    with pytest.raises(AnsibleFilterError, match="run_hosts: the host pattern is"):
        run_hosts(pattern, {})
