# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.gpuops.cluster.plugins.module_utils.site import _slice_hosts
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._node_sources import config_drift

CTL = {"groups": ["slurm_controller"], "vars": {"ansible_host": "10.0.0.1", "ansible_user": "admin"}}
DBD = {"groups": ["slurm_dbd", "storage"]}


def test_a_slice_without_the_controller_gets_it_added_with_its_variables():
    plan = _slice_hosts.plan({"ctl": CTL, "dbd": DBD}, ["gpu03", "gpu04"])
    assert plan["errors"] == []
    assert plan["held"] == []
    assert plan["add"] == [{"name": "ctl", "groups": ["slurm_controller"], "vars": CTL["vars"]},
                           {"name": "dbd", "groups": ["slurm_dbd", "storage"], "vars": {}}]
    assert _slice_hosts.add_host_args(plan["add"][0]) == {
        "ansible_host": "10.0.0.1", "ansible_user": "admin", "name": "ctl",
        "groups": ["slurm_controller", _slice_hosts.OUTSIDE_GROUP]}


def test_the_slice_that_holds_them_adds_nothing():
    plan = _slice_hosts.plan({"ctl": CTL, "dbd": DBD}, ["ctl", "dbd", "gpu01"])
    assert plan == {"add": [], "held": ["ctl", "dbd"], "errors": []}


@pytest.mark.parametrize("setting", [None, {}])
def test_no_setting_adds_nothing(setting):
    assert _slice_hosts.plan(setting, ["gpu01"]) == {"add": [], "held": [], "errors": []}


@pytest.mark.parametrize("setting, expected", [
    pytest.param(["ctl"], "gpuops_slice_hosts is ['ctl']: give a mapping of host name", id="list"),
    pytest.param("ctl", "gpuops_slice_hosts is 'ctl': give a mapping", id="text"),
    pytest.param({"ctl": "slurm_controller"}, "gpuops_slice_hosts['ctl'] is 'slurm_controller': give a mapping",
                 id="entry-text"),
    pytest.param({"ctl": {"groups": []}}, "gpuops_slice_hosts['ctl'].groups is []: give the inventory groups",
                 id="no-groups"),
    pytest.param({"ctl": {"groups": "slurm_controller"}}, "gpuops_slice_hosts['ctl'].groups is 'slurm_controller'",
                 id="groups-text"),
    pytest.param({"ctl": {"groups": ["slurm controller"]}}, "groups has 'slurm controller': give group names",
                 id="group-space"),
    pytest.param({"ctl": {"groups": ["all"]}}, "groups has 'all'", id="group-all"),
    pytest.param({"ctl": {"groups": [_slice_hosts.OUTSIDE_GROUP]}}, "groups has 'gpuops_slice_outside'",
                 id="group-outside"),
    pytest.param({"ctl": {"groups": ["slurm_controller"], "var": {}}}, "gpuops_slice_hosts['ctl'] has var: only groups",
                 id="typo"),
    pytest.param({"ctl": {"groups": ["slurm_controller"], "vars": ["ansible_host"]}},
                 "gpuops_slice_hosts['ctl'].vars is ['ansible_host']: give a mapping", id="vars-list"),
    pytest.param({"ctl": {"groups": ["slurm_controller"], "vars": {"name": "other"}}},
                 "gpuops_slice_hosts['ctl'].vars has 'name': give variable names", id="vars-shadow"),
    pytest.param({"ctl": {"groups": ["slurm_controller"], "vars": {1: "x"}}}, "vars has 1", id="vars-int-key"),
    pytest.param({"ctl,gpu01": CTL}, "gpuops_slice_hosts has the host name 'ctl,gpu01'", id="pattern-name"),
    pytest.param({"gpu[01-02]": CTL}, "host name 'gpu[01-02]'", id="range-name"),
    pytest.param({7: CTL}, "host name 7", id="int-name"),
    pytest.param({"": CTL}, "host name ''", id="empty-name"),
])
def test_a_bad_setting_is_named_and_nothing_is_added(setting, expected):
    plan = _slice_hosts.plan(dict(setting, ok=CTL) if isinstance(setting, dict) else setting, ["gpu01"])
    assert plan["add"] == []
    assert any(expected in message for message in plan["errors"]), plan["errors"]


def test_hostile_inventory_lists_give_a_message():
    assert _slice_hosts.plan({"ctl": CTL}, "gpu01")["errors"]
    assert _slice_hosts.plan({"ctl": CTL}, None)["errors"]


def test_plays_leave_the_added_hosts_out_only_when_there_are_some():
    assert _slice_hosts.run_pattern("slurm_compute", {"all": ["gpu01"], "slurm_compute": ["gpu01"]}) == "slurm_compute"
    assert _slice_hosts.run_pattern(" all ", {"all": ["gpu01"], _slice_hosts.OUTSIDE_GROUP: []}) == "all"
    assert (_slice_hosts.run_pattern("slurm_controller:slurm_compute", {_slice_hosts.OUTSIDE_GROUP: ["ctl"]})
            == "slurm_controller:slurm_compute:!gpuops_slice_outside")


def test_a_list_of_groups_keeps_those_the_inventory_has_in_order():
    groups = {"slurm_controller": ["ctl"], "slurm_compute": ["gpu01"], "slurm_login": ["login1"]}
    names = ["slurm_controller", "slurm_compute", "slurm_dbd", "slurm_login"]
    assert _slice_hosts.run_pattern(names, groups) == "slurm_controller:slurm_compute:slurm_login"
    assert (_slice_hosts.run_pattern(names, dict(groups, **{_slice_hosts.OUTSIDE_GROUP: ["ctl2"]}))
            == "slurm_controller:slurm_compute:slurm_login:!gpuops_slice_outside")
    # none there: the first name alone, a play that matches nothing
    assert _slice_hosts.run_pattern(["slurm_login"], {"all": ["ctl"]}) == "slurm_login"


@pytest.mark.parametrize("pattern", ["", "  ", None, 3, [], [3], ["slurm_compute", ""], {"a": 1}])
def test_a_bad_pattern_raises_a_clear_error(pattern):
    with pytest.raises(ValueError, match="host pattern"):
        _slice_hosts.run_pattern(pattern, {})


CONF = "ClusterName=lab\nSlurmctldHost=ctl\nNodeName=gpu[01-04] CPUs=8\n"


def test_a_run_without_the_controller_that_writes_what_it_runs_with_drifts_nothing():
    assert config_drift({"slurm.conf": CONF, "topology.conf": ""}, {"slurm.conf": CONF, "topology.conf": ""},
                        ["slurm.conf", "topology.conf"]) == []


def test_the_first_line_that_differs_is_named_with_both_versions():
    ours = CONF.replace("SlurmctldHost=ctl", "SlurmctldHost=gpu03")
    assert config_drift({"slurm.conf": ours}, {"slurm.conf": CONF}, ["slurm.conf"]) == [
        "slurm.conf line 2: the controller runs with 'SlurmctldHost=ctl', this run would write 'SlurmctldHost=gpu03'"]
    longer = CONF + "NodeName=gpu05 CPUs=8\n"
    assert config_drift({"slurm.conf": longer}, {"slurm.conf": CONF}, ["slurm.conf"]) == [
        "slurm.conf line 4: the controller runs with '(end of file)', this run would write 'NodeName=gpu05 CPUs=8'"]


def test_a_file_on_one_side_only_is_named():
    assert config_drift({"topology.conf": "SwitchName=s0 Nodes=gpu01\n"}, {"topology.conf": ""}, ["topology.conf"]) == [
        "topology.conf: the controller runs without one, this run would write 1 lines"]
    assert config_drift({}, {"slurm.conf": CONF}, ["slurm.conf"]) == [
        "slurm.conf: the controller runs with one (3 lines), this run would write none"]


@pytest.mark.parametrize("new, running, names", [
    (None, None, None), ("x", [], ["slurm.conf"]), ({"slurm.conf": 3}, {"slurm.conf": None}, ["slurm.conf", 7]),
])
def test_hostile_drift_input_never_raises(new, running, names):
    assert config_drift(new, running, names) == []
