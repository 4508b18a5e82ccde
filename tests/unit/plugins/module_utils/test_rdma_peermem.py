# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rdma_peermem role's settings check and port report (module_utils/fabric/_rdma_peermem.py); the role running them
over real ibstat captures is tests/roles/test_rdma_nccl.py."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.gpuops.cluster.plugins.module_utils.fabric import _rdma_peermem as rp

# What the role passes with its defaults on Debian.
SETTINGS = {"packages": [], "default_packages": ["rdma-core", "infiniband-diags"], "os_family": "Debian",
            "expected": "auto", "no_active_port": "fail", "memlock": "unlimited"}


@pytest.mark.parametrize("changes", [{}, {"packages": ["rdma-core"], "default_packages": None, "os_family": "Suse"},
                                     {"expected": True, "no_active_port": "warn", "memlock": 65536},
                                     {"expected": False, "memlock": "1048576"}],
                         ids=["defaults", "own-packages", "numbers", "text-memlock"])
def test_good_settings(changes):
    assert rp.settings_errors(dict(SETTINGS, **changes)) == []


@pytest.mark.parametrize("changes, message", [
    pytest.param({"default_packages": None, "os_family": "Suse"}, "rdma_peermem_packages [] on Suse: on an OS without "
                 "package data, list rdma_peermem_packages.", id="os-without-data"),
    pytest.param({"packages": "rdma-core"}, 'rdma_peermem_packages "rdma-core": rdma_peermem_packages is a list of '
                 "package names (empty: the OS data's).", id="packages-text"),
    pytest.param({"packages": ["rdma-core", ""]}, "rdma_peermem_packages is a list of package names", id="empty-name"),
    pytest.param({"expected": "yes"}, 'rdma_peermem_expected "yes": rdma_peermem_expected is auto, true or false.',
                 id="expected"),
    pytest.param({"no_active_port": "ignore"}, 'rdma_peermem_no_active_port "ignore": rdma_peermem_no_active_port is '
                 "fail or warn.", id="no-active-port"),
    pytest.param({"memlock": "64M"}, 'rdma_peermem_memlock "64M": rdma_peermem_memlock is unlimited or a number of '
                 "KiB.", id="memlock-unit"),
    pytest.param({"memlock": -1}, "rdma_peermem_memlock -1: rdma_peermem_memlock is unlimited", id="memlock-negative"),
    pytest.param({"memlock": True}, "rdma_peermem_memlock true:", id="memlock-bool"),
    pytest.param({"memlock": 10 ** 5000}, "rdma_peermem_memlock a number of about 5001 digits:", id="memlock-huge"),
])
def test_bad_settings(changes, message):
    errors = rp.settings_errors(dict(SETTINGS, **changes))
    assert len(errors) == 1 and message in errors[0], errors


def test_every_bad_setting_is_named():
    errors = rp.settings_errors({"packages": None, "expected": "x", "no_active_port": None, "memlock": 1.5})
    assert [error.split(" ", 1)[0] for error in errors] == [
        "rdma_peermem_packages", "rdma_peermem_expected", "rdma_peermem_no_active_port", "rdma_peermem_memlock"]


@pytest.mark.parametrize("value", [None, [], "x", 7])
def test_settings_of_any_shape_give_a_message(value):
    assert rp.settings_errors(value)[0].startswith("rdma_peermem_*: the rdma_peermem settings must be a mapping")


def _port(port, state, physical, layer="InfiniBand", rate=400):
    return {"port": port, "state": state, "physical_state": physical, "rate_gbps": rate, "link_layer": layer}


IB = {"source": "ibstat", "selected": ["mlx5_0:1"],
      "hcas": [{"name": "mlx5_0", "ports": [_port(1, "Active", "LinkUp")]},
               {"name": "mlx5_1", "ports": [_port(1, "Down", "Disabled", "Ethernet", 100.0)]}]}
DOWN = {"source": "ibstat", "selected": [],
        "hcas": [{"name": "mlx4_0", "ports": [_port(1, "Down", "Polling", None, 10), _port(2, "Down", "Disabled")]}]}
NO_PORT = ("node: RDMA is expected (rdma_peermem_expected: %s) but no port is Active. Port states: %s. Check cabling, "
           "the subnet manager (opensm or the switch's) for InfiniBand, or the link for RoCE; set "
           "rdma_peermem_no_active_port: warn to go on, or rdma_peermem_expected: false on hosts without RDMA.")


def test_ports_summary():
    report = rp.ports(IB, "node", "auto")
    assert report == {
        "summary": "node: 2 RDMA port(s) read from ibstat; active: mlx5_0:1 InfiniBand 400 Gb/s; NCCL uses: mlx5_0:1.",
        "expected": True, "active": ["mlx5_0:1 InfiniBand 400 Gb/s"],
        "states": ["mlx5_0:1 Active/LinkUp", "mlx5_1:1 Down/Disabled"], "no_port": ""}


@pytest.mark.parametrize("ib, expected, no_port", [
    (DOWN, "auto", NO_PORT % ("auto", "mlx4_0:1 Down/Polling; mlx4_0:2 Down/Disabled")),
    (DOWN, True, NO_PORT % ("True", "mlx4_0:1 Down/Polling; mlx4_0:2 Down/Disabled")),
    (DOWN, False, ""),
    ({"source": "none", "hcas": [], "selected": []}, "auto", ""),
    ({"source": "none", "hcas": [], "selected": []}, True, NO_PORT % ("True", "no RDMA device found")),
])
def test_no_active_port(ib, expected, no_port):
    assert rp.ports(ib, "node", expected)["no_port"] == no_port


def test_nothing_active_summary():
    assert rp.ports(DOWN, "node", "auto")["summary"] == (
        "node: 2 RDMA port(s) read from ibstat; active: none; NCCL uses: none (NCCL_IB_DISABLE=1).")


@pytest.mark.parametrize("ib", [None, [], {"hcas": "mlx5_0"}, {"hcas": ["mlx5_0"]}, {"hcas": [{"ports": {"1": {}}}]},
                                {"hcas": [{"name": "x", "ports": ["1"]}]}])
def test_a_fact_of_another_shape_raises_its_own_error(ib):
    with pytest.raises(rp.RdmaPeermemError):
        rp.ports(ib, "node", "auto")
