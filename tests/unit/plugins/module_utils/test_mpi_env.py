# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""UCX and OpenMPI transports from the RDMA facts of real captures (tests/fixtures/IB_SOURCES.md)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible_collections.gpuops.cluster.plugins.module_utils.fabric._ib_facts import build_facts, parse_ibstat
from ansible_collections.gpuops.cluster.plugins.module_utils.fabric._mpi_env import MpiEnvError, ucx_env

FIXTURES = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures"))


def facts(name, **kwargs):
    with open(os.path.join(FIXTURES, "ibstat", name)) as handle:
        hcas, failed = parse_ibstat(handle.read())
    return build_facts(hcas, failed, **kwargs)


def test_h100_infiniband_ports():
    fact = facts("gpud_h100_8xIB-4xRoCE_3down.txt")
    env = ucx_env(fact)
    assert env["UCX_NET_DEVICES"] == ",".join(fact["selected"])
    assert env["UCX_NET_DEVICES"].startswith("mlx5_")
    assert env["UCX_TLS"] == "rc,ud,sm,self"
    assert env["OMPI_MCA_pml"] == "ucx"
    assert "UCX_IB_GID_INDEX" not in env


def test_a100_ib_preferred_over_its_roce_port():
    env = ucx_env(facts("gpud_a100_8xIB-1xRoCE_all-active.txt"))
    assert env["UCX_NET_DEVICES"] == ",".join("mlx5_%d:1" % i for i in range(1, 9))


def test_roce_with_a_known_gid_index():
    fact = facts("gpud_h100_12xRoCE_all-active.txt")
    for hca in fact["hcas"]:
        hca["ports"][0]["roce_v2_gid_index"] = 3
    env = ucx_env(fact)
    assert env["UCX_IB_GID_INDEX"] == "3"
    assert env["UCX_NET_DEVICES"] == "mlx5_0:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_9:1,mlx5_10:1,mlx5_11:1"


def test_roce_without_gid_index_leaves_it_to_ucx():
    assert "UCX_IB_GID_INDEX" not in ucx_env(facts("gpud_h100_12xRoCE_all-active.txt"))


def test_no_active_port_is_tcp_on_the_bootstrap_interface():
    fact = facts("linuxrdma_mlx4_2port_IB-Polling_Eth-Disabled.txt",
                 interfaces={"lo": ["127.0.0.1/8"], "eth0": ["172.31.251.3/24"]}, bootstrap_address="172.31.251.3")
    assert ucx_env(fact) == {"UCX_TLS": "tcp,sm,self", "UCX_NET_DEVICES": "eth0", "OMPI_MCA_btl_tcp_if_include": "eth0"}


@pytest.mark.parametrize("fact", [None, {}, build_facts([], source="none")])
def test_no_rdma_at_all(fact):
    assert ucx_env(fact) == {"UCX_TLS": "tcp,sm,self"}


@pytest.mark.parametrize("fact, message", [
    ("mlx5_0:1", "gpuops_ib is 'mlx5_0:1', not the ib_facts fact"),
    ({"selected": "mlx5_0:1"}, "gpuops_ib.selected is 'mlx5_0:1', not a list of hca:port"),
    ({"selected": ["mlx5_0;rm:1"]}, "not a list of hca:port"),
    ({"selected": ["mlx5_0:1"], "hcas": []}, "gpuops_ib.selected names mlx5_0:1, which gpuops_ib.hcas does not have"),
    ({"selected": ["mlx5_0:1"], "hcas": ["x"]}, "gpuops_ib.hcas holds 'x', not an HCA"),
    ({"nccl_env": {"NCCL_SOCKET_IFNAME": "=eth0;reboot"}}, "is not an interface name"),
])
def test_garbage_is_refused_with_the_reason(fact, message):
    with pytest.raises(MpiEnvError) as info:
        ucx_env(fact)
    assert message in str(info.value)
