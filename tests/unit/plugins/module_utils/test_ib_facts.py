# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parsers and NCCL derivation of ib_facts, over real captures (tests/fixtures/IB_SOURCES.md).

Every expected value below was written by hand from reading the capture it
refers to, never produced by running the code.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import os
import re
import shutil

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.gpuops.cluster.plugins.module_utils.fabric import _ib_facts
from ansible_collections.gpuops.cluster.plugins.module_utils.fabric._ib_facts import (
    IbFactsError,
    build_facts,
    hcas_from_sysfs,
    ibpanic_lines,
    merge_hcas,
    natural_key,
    nccl_env,
    parse_ibstat,
    parse_ip_addr,
    read_sysfs,
    roce_v2_gid_index,
    select_ports,
    socket_ifname,
    ssh_server_address,
)
from ansible_collections.gpuops.cluster.tests.unit.plugins.module_utils.mutation import mutated as mutated_capture

FIXTURES = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures"))

H100_IB_3DOWN = "ibstat/gpud_h100_8xIB-4xRoCE_3down.txt"
H100_12ROCE = "ibstat/gpud_h100_12xRoCE_all-active.txt"
A100_IB_ROCE = "ibstat/gpud_a100_8xIB-1xRoCE_all-active.txt"
MLX4_2PORT = "ibstat/linuxrdma_mlx4_2port_IB-Polling_Eth-Disabled.txt"
A100_IBPANIC = "ibstat/gpud_a100_8xIB-HDR200_ibpanic.txt"
IBDEV2NETDEV_H20 = "ibdev2netdev/stepmesh15_h20_ib-down_roce-up_bond.txt"
IP_ADDR_DEVHOST = "ip-addr/devhost_lo-eth0-docker0-bridge-veth.txt"
SYSFS_SCORPIO = os.path.join(FIXTURES, "sysfs", "scorpio_chrysalis")
SYSFS_A100 = os.path.join(FIXTURES, "sysfs", "gpud_a100_ibstatus")

PANIC_MLX5_8 = "ibpanic: [1400444] main: stat of IB device 'mlx5_8' failed: No such file or directory"
# What ibstat prints when ib_umad is not loaded (quoted in an Open MPI users-list post).
PANIC_UMAD = "ibpanic: [4260] main: can't init UMAD library: (No such file or directory)"


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def port(state, physical_state, rate, link_layer, number=1):
    return {"port": number, "state": state, "physical_state": physical_state, "rate_gbps": rate, "link_layer": link_layer}


def hca(name, ca_type, firmware, guid, *ports):
    return {"name": name, "ca_type": ca_type, "firmware_version": firmware, "node_guid": guid, "ports": list(ports)}


def ib400(name, guid):
    return hca(name, "MT4129", "28.39.1002", guid, port("Active", "LinkUp", 400, "InfiniBand"))


def hca_list(value):
    return "=" + ",".join("%s:1" % name for name in value.split())


# --- ibstat: real captures -----------------------------------------------------------


def test_h100_infiniband_with_down_ethernet_ports():
    hcas, failed = parse_ibstat(fixture(H100_IB_3DOWN))
    assert failed == []
    assert hcas == [
        ib400("mlx5_0", "0x946dae0300cde72c"),
        hca("mlx5_1", "MT4125", "22.38.1002", "0x946dae0300c2b690", port("Active", "LinkUp", 100, "Ethernet")),
        hca("mlx5_2", "MT4125", "22.38.1002", "0x946dae0300c2b691", port("Down", "Disabled", 40, "Ethernet")),
        ib400("mlx5_3", "0x946dae0300cde728"),
        ib400("mlx5_4", "0x946dae0300cde78c"),
        ib400("mlx5_5", "0x946dae0300cde780"),
        ib400("mlx5_6", "0x946dae0300cde8ac"),
        hca("mlx5_7", "MT4125", "22.38.1002", "0x946dae0300c2b648", port("Down", "Disabled", 40, "Ethernet")),
        hca("mlx5_8", "MT4125", "22.38.1002", "0x946dae0300c2b649", port("Down", "Disabled", 40, "Ethernet")),
        ib400("mlx5_9", "0x946dae0300cde9c8"),
        ib400("mlx5_10", "0x946dae0300cde884"),
        ib400("mlx5_11", "0x946dae0300cdea00"),
    ]


@pytest.mark.parametrize(
    "select, highest_rate_only, exclude, expected",
    [
        # auto: the InfiniBand ports (all 400) win over the one Active RoCE port.
        ("auto", True, [], "mlx5_0 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_9 mlx5_10 mlx5_11"),
        ("ib", True, [], "mlx5_0 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_9 mlx5_10 mlx5_11"),
        # The Down/Disabled RoCE ports (mlx5_2, 7, 8) never count.
        ("roce", True, [], "mlx5_1"),
        # all + highest rate: the 100G RoCE port is dropped next to the 400G IB ports.
        ("all", True, [], "mlx5_0 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_9 mlx5_10 mlx5_11"),
        ("all", False, [], "mlx5_0 mlx5_1 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_9 mlx5_10 mlx5_11"),
        # An exact name excludes that HCA only, a pattern all it matches.
        ("ib", True, ["mlx5_1"], "mlx5_0 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_9 mlx5_10 mlx5_11"),
        ("ib", True, ["mlx5_1*"], "mlx5_0 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_9"),
        ("ib", True, ["mlx5_0", "mlx5_3"], "mlx5_4 mlx5_5 mlx5_6 mlx5_9 mlx5_10 mlx5_11"),
    ],
)
def test_h100_selection(select, highest_rate_only, exclude, expected):
    hcas, _failed = parse_ibstat(fixture(H100_IB_3DOWN))
    ports = select_ports(hcas, select, highest_rate_only, exclude)
    assert nccl_env(ports) == {"NCCL_IB_HCA": hca_list(expected)}


def test_h100_roce_only_natural_order_and_highest_rate():
    hcas, failed = parse_ibstat(fixture(H100_12ROCE))
    assert failed == []
    # ibstat prints mlx5_0, mlx5_1, mlx5_10, mlx5_11, mlx5_2...; natural order puts mlx5_10 after mlx5_9.
    assert [(h["name"], h["ca_type"], h["ports"][0]["rate_gbps"]) for h in hcas] == [
        ("mlx5_0", "MT4129", 400), ("mlx5_1", "MT4125", 100), ("mlx5_2", "MT4125", 100),
        ("mlx5_3", "MT4129", 400), ("mlx5_4", "MT4129", 400), ("mlx5_5", "MT4129", 400),
        ("mlx5_6", "MT4129", 400), ("mlx5_7", "MT4125", 100), ("mlx5_8", "MT4125", 100),
        ("mlx5_9", "MT4129", 400), ("mlx5_10", "MT4129", 400), ("mlx5_11", "MT4129", 400),
    ]
    assert all(h["ports"] == [port("Active", "LinkUp", h["ports"][0]["rate_gbps"], "Ethernet")] for h in hcas)
    # No IB port: auto takes the RoCE ports, of those the 400G ones (the 100G CX-6 Dx are other links).
    # No sysfs, so no GID index is known: NCCL_IB_GID_INDEX stays unset.
    assert nccl_env(select_ports(hcas)) == {
        "NCCL_IB_HCA": "=mlx5_0:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_9:1,mlx5_10:1,mlx5_11:1"}
    assert nccl_env(select_ports(hcas, highest_rate_only=False)) == {
        "NCCL_IB_HCA": "=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1,mlx5_8:1,"
                       "mlx5_9:1,mlx5_10:1,mlx5_11:1"}
    assert nccl_env(select_ports(hcas, "ib")) == {"NCCL_IB_DISABLE": "1"}


def test_a100_eight_ib_one_roce_auto_takes_ib_only():
    hcas, failed = parse_ibstat(fixture(A100_IB_ROCE))
    assert failed == []
    assert hcas[0] == hca("mlx5_0", "MT4126", "22.35.2302", "0x1e918efffe7a03a0", port("Active", "LinkUp", 200, "Ethernet"))
    assert hcas[8] == hca("mlx5_8", "MT4126", "28.37.1014", "0x4c1037318e9cd20a", port("Active", "LinkUp", 200, "InfiniBand"))
    assert [h["name"] for h in hcas] == ["mlx5_%d" % i for i in range(9)]
    # Same rate everywhere (200): the IB preference alone leaves mlx5_0 (Ethernet) out.
    assert nccl_env(select_ports(hcas)) == {"NCCL_IB_HCA": hca_list("mlx5_1 mlx5_2 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_7 mlx5_8")}
    assert nccl_env(select_ports(hcas, "roce")) == {"NCCL_IB_HCA": "=mlx5_0:1"}
    # IB and RoCE together: no GID index (it would only concern the RoCE port).
    assert nccl_env(select_ports(hcas, "all")) == {
        "NCCL_IB_HCA": hca_list("mlx5_0 mlx5_1 mlx5_2 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_7 mlx5_8")}


def test_mlx4_two_ports_nothing_active():
    hcas, failed = parse_ibstat(fixture(MLX4_2PORT))
    assert failed == []
    assert hcas == [hca("mlx4_0", "MT4099", "2.42.5000", "0xe41d2d03007b4080",
                        port("Down", "Polling", 10, "InfiniBand", 1),
                        port("Down", "Disabled", 40, "Ethernet", 2))]
    for select in ("auto", "ib", "roce", "all"):
        assert select_ports(hcas, select, False) == []
    assert nccl_env(select_ports(hcas)) == {"NCCL_IB_DISABLE": "1"}


def test_ibpanic_partial_output():
    hcas, failed = parse_ibstat(fixture(A100_IBPANIC))
    assert failed == ["mlx5_8"]
    assert [h["name"] for h in hcas] == ["mlx5_%d" % i for i in range(8)]
    assert hcas[7] == hca("mlx5_7", "MT4124", "20.41.1000", "0x00155dfffe3411f2", port("Active", "LinkUp", 200, "InfiniBand"))
    assert ibpanic_lines(fixture(A100_IBPANIC)) == [("mlx5_8", PANIC_MLX5_8)]
    assert nccl_env(select_ports(hcas)) == {"NCCL_IB_HCA": hca_list("mlx5_0 mlx5_1 mlx5_2 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_7")}


def test_ibpanic_on_stderr():
    # Current infiniband-diags print the panic to stderr: the module passes both streams.
    stdout = "\n".join(fixture(A100_IBPANIC).splitlines()[:136]) + "\n"
    hcas, failed = parse_ibstat(stdout, PANIC_MLX5_8 + "\n", expected_devices=["mlx5_%d" % i for i in range(9)])
    assert failed == ["mlx5_8"]
    assert len(hcas) == 8


def test_ibpanic_without_device():
    assert parse_ibstat("", PANIC_UMAD + "\n", expected_devices=["mlx5_0"]) == ([], [])
    assert ibpanic_lines(PANIC_UMAD) == [(None, PANIC_UMAD)]


def test_no_device():
    assert parse_ibstat("") == ([], [])
    assert parse_ibstat("\n\n") == ([], [])
    assert nccl_env([]) == {"NCCL_IB_DISABLE": "1"}
    assert build_facts([], source="none") == {
        "source": "none", "hcas": [], "failed_hcas": [], "selected": [], "nccl_env": {"NCCL_IB_DISABLE": "1"}}


def test_natural_order():
    names = ["mlx5_10", "mlx5_2", "mlx5_bond_0", "mlx5_1", "mlx4_0", "mlx5_11"]
    assert sorted(names, key=natural_key) == ["mlx4_0", "mlx5_1", "mlx5_2", "mlx5_10", "mlx5_11", "mlx5_bond_0"]
    ports = [{"hca": "mlx5_10", "port": 1, "link_layer": "InfiniBand"}, {"hca": "mlx5_2", "port": 1, "link_layer": "InfiniBand"}]
    assert nccl_env(ports)["NCCL_IB_HCA"] == "=mlx5_2:1,mlx5_10:1"


# --- ibstat: bad input ------------------------------------------------------------------


def head(name, count):
    return "\n".join(fixture(name).splitlines()[:count]) + "\n"


@pytest.mark.parametrize(
    "text, message",
    [
        ("\x00\x01\x02\x03garbage", "ibstat output is not text: control character 0x00 on line 1"),
        # Bytes that are not UTF-8 (or their lone surrogates) are read as U+FFFD; NUL is still binary.
        (b"\xff\xfe\x00C", "ibstat output is not text: control character 0x00 on line 1"),
        ("CA 'mlx5_0'\n\udcff\udcfe", u"ibstat line 2: cannot parse '\ufffd\ufffd'"),
        ("CA 'mlx5_0'\n\tCA type: MT4129\x1b[0m\n", "ibstat output is not text: control character 0x1b on line 2"),
        (12, "ibstat output must be text, got int"),
        ("hello world", "ibstat line 1: cannot parse 'hello world'"),
        ("State: Active\n", "ibstat line 1: 'State: Active' comes before any \"CA '<name>'\" line"),
        ("Port 1:\n", "ibstat line 1: 'Port 1:' comes before any \"CA '<name>'\" line"),
        # Cut inside the first port: after Capability mask, after "Port 1:", before any port, after the CA line.
        (head(H100_IB_3DOWN, 14), "ibstat: CA 'mlx5_0' port 1 lacks Link layer (truncated output?)"),
        (head(H100_IB_3DOWN, 8), "ibstat: CA 'mlx5_0' port 1 lacks State (truncated output?)"),
        (head(H100_IB_3DOWN, 7), "ibstat: CA 'mlx5_0' announces 1 port(s) but 0 were printed (truncated output?)"),
        (head(H100_IB_3DOWN, 1), "ibstat: CA 'mlx5_0' lacks Number of ports (truncated output?)"),
        # The last CA of the A100 capture without its last three lines.
        (head(A100_IB_ROCE, 150), "ibstat: CA 'mlx5_8' port 1 lacks Link layer (truncated output?)"),
        # mlx4 capture with its second port cut off.
        (head(MLX4_2PORT, 17), "ibstat: CA 'mlx4_0' announces 2 port(s) but 1 were printed (truncated output?)"),
        (fixture(MLX4_2PORT).replace("Number of ports: 2", "Number of ports: 1"),
         "ibstat: CA 'mlx4_0' announces 1 port(s) but 2 were printed"),
        (fixture(MLX4_2PORT).replace("Number of ports: 2", "Number of ports: two"),
         "ibstat line 3: CA 'mlx4_0' Number of ports 'two' is not a number"),
        (fixture(MLX4_2PORT).replace("Port 2:", "Port 1:"), "ibstat line 18: CA 'mlx4_0' port 1 is listed twice"),
        (fixture(MLX4_2PORT) + fixture(MLX4_2PORT), "ibstat line 28: CA 'mlx4_0' is listed twice"),
        (fixture(H100_IB_3DOWN).replace("Rate: 400", "Rate: fast", 1),
         "ibstat line 11: CA 'mlx5_0' port 1 rate 'fast' is not a number"),
        # Numbers no HCA prints: a clear message, not Python's int() or float() errors.
        (fixture(MLX4_2PORT).replace("Number of ports: 2", "Number of ports: " + "9" * 5000),
         "ibstat line 3: CA 'mlx4_0' Number of ports: the number 999999999999999999999999... has 5000 digits; "
         "at most 18 are read"),
        (fixture(MLX4_2PORT).replace("Port 2:", "Port %s:" % ("7" * 30)),
         "ibstat line 18: port number: the number 777777777777777777777777... has 30 digits; at most 18 are read"),
        (fixture(H100_IB_3DOWN).replace("Rate: 400", "Rate: " + "4" * 400, 1),
         "ibstat line 11: CA 'mlx5_0' port 1 rate: the number 444444444444444444444444... has 400 characters; "
         "at most 40 are read"),
    ],
)
def test_ibstat_garbage(text, message):
    with pytest.raises(IbFactsError) as info:
        parse_ibstat(text)
    assert str(info.value) == message


def test_ibstat_empty_when_devices_expected():
    with pytest.raises(IbFactsError) as info:
        parse_ibstat("", expected_devices=["mlx5_1", "mlx5_0", "mlx5_10"])
    assert str(info.value) == "ibstat printed no device, but sysfs lists 3: mlx5_0, mlx5_1, mlx5_10"


def test_ibstat_crlf_and_ibwarn_are_tolerated():
    text = "ibwarn: [1] main: something\r\n" + fixture(MLX4_2PORT).replace("\n", "\r\n")
    hcas, _failed = parse_ibstat(text)
    assert [p["link_layer"] for p in hcas[0]["ports"]] == ["InfiniBand", "Ethernet"]


# --- sysfs --------------------------------------------------------------------------------


def sys_port(state, rate, link_layer, gids, types=None, index=None, netdev=None):
    return {"state": state, "physical_state": "LinkUp", "rate_gbps": rate, "link_layer": link_layer,
            "gids": gids, "gid_types": types or {}, "ndevs": {}, "netdev": netdev, "roce_v2_gid_index": index}


def scorpio_roce_gids(low, v4):
    link_local = "fe80:0000:0000:0000:0e42:a1ff:fe2b:" + low
    mapped = "0000:0000:0000:0000:0000:ffff:" + v4
    return {0: link_local, 1: link_local, 2: mapped, 3: mapped}


SCORPIO_TYPES = {0: "IB/RoCE v1", 1: "RoCE v2", 2: "IB/RoCE v1", 3: "RoCE v2"}


def test_read_sysfs_scorpio_gid_table():
    # ibv_devinfo -v: mlx5_0 IB 4X 50 Gbps (HDR); mlx5_1/2 Ethernet 4X 25 Gbps, GID[3] = RoCE v2 ::ffff:<IPv4>.
    assert read_sysfs(SYSFS_SCORPIO) == {
        "mlx5_0": {"name": "mlx5_0", "ca_type": None, "firmware_version": "20.29.2002", "node_guid": "0x0c42a1030065d6b6",
                   "node_type": None,
                   "ports": {1: sys_port("Active", 200, "InfiniBand", {0: "fe80:0000:0000:0000:0c42:a103:0065:d6b6"})}},
        "mlx5_1": {"name": "mlx5_1", "ca_type": None, "firmware_version": "16.27.2008", "node_guid": "0x0c42a103002b07a4",
                   "node_type": None,
                   "ports": {1: sys_port("Active", 100, "Ethernet", scorpio_roce_gids("07a4", "8cdd:3c0b"), SCORPIO_TYPES, 3)}},
        "mlx5_2": {"name": "mlx5_2", "ca_type": None, "firmware_version": "16.27.2008", "node_guid": "0x0c42a103002b07a5",
                   "node_type": None,
                   "ports": {1: sys_port("Active", 100, "Ethernet", scorpio_roce_gids("07a5", "0a3c:200b"), SCORPIO_TYPES, 3)}},
    }


def test_scorpio_selection_and_gid_index():
    hcas = hcas_from_sysfs(read_sysfs(SYSFS_SCORPIO))
    assert hcas[1] == hca("mlx5_1", None, "16.27.2008", "0x0c42a103002b07a4",
                          dict(port("Active", "LinkUp", 100, "Ethernet"), roce_v2_gid_index=3))
    assert hcas[0]["ports"] == [port("Active", "LinkUp", 200, "InfiniBand")]
    assert nccl_env(select_ports(hcas)) == {"NCCL_IB_HCA": "=mlx5_0:1"}
    # Both RoCE ports have the RoCE v2 IPv4 GID at index 3: NCCL_IB_GID_INDEX=3.
    assert nccl_env(select_ports(hcas, "roce")) == {"NCCL_IB_HCA": "=mlx5_1:1,mlx5_2:1", "NCCL_IB_GID_INDEX": "3"}
    assert nccl_env(select_ports(hcas, "all", False)) == {"NCCL_IB_HCA": "=mlx5_0:1,mlx5_1:1,mlx5_2:1"}
    assert nccl_env(select_ports(hcas, "all")) == {"NCCL_IB_HCA": "=mlx5_0:1"}


def test_gid_index_differs_across_ports(tmp_path):
    root = str(tmp_path / "sys")
    shutil.copytree(SYSFS_SCORPIO, root)
    port_dir = os.path.join(root, "class", "infiniband", "mlx5_2", "ports", "1")
    # mlx5_2: index 3 becomes v1, its RoCE v2 IPv4 GID moves to index 5 (as when a VLAN or a second address comes first).
    with open(os.path.join(port_dir, "gid_attrs", "types", "3"), "w") as handle:
        handle.write("IB/RoCE v1\n")
    with open(os.path.join(port_dir, "gids", "5"), "w") as handle:
        handle.write("0000:0000:0000:0000:0000:ffff:0a3c:200b\n")
    with open(os.path.join(port_dir, "gid_attrs", "types", "5"), "w") as handle:
        handle.write("RoCE v2\n")
    sysfs = read_sysfs(root)
    assert sysfs["mlx5_1"]["ports"][1]["roce_v2_gid_index"] == 3
    assert sysfs["mlx5_2"]["ports"][1]["roce_v2_gid_index"] == 5
    assert nccl_env(select_ports(hcas_from_sysfs(sysfs), "roce")) == {"NCCL_IB_HCA": "=mlx5_1:1,mlx5_2:1"}


def test_unreadable_gid_types_einval(monkeypatch):
    # In containers reading gid_attrs/types/N can fail with EINVAL (NCCL #1573).
    real_open = open

    def fake_open(path, *args, **kwargs):
        if "gid_attrs" in path:
            raise OSError(errno.EINVAL, "Invalid argument")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(_ib_facts, "open", fake_open, raising=False)
    sysfs = read_sysfs(SYSFS_SCORPIO)
    port1 = sysfs["mlx5_1"]["ports"][1]
    assert port1["gid_types"] == {}
    assert port1["roce_v2_gid_index"] is None
    assert port1["gids"][3] == "0000:0000:0000:0000:0000:ffff:8cdd:3c0b"
    assert port1["state"] == "Active"
    hcas = hcas_from_sysfs(sysfs)
    assert nccl_env(select_ports(hcas, "roce")) == {"NCCL_IB_HCA": "=mlx5_1:1,mlx5_2:1"}


def test_unreadable_file_is_none(tmp_path):
    root = str(tmp_path / "sys")
    shutil.copytree(SYSFS_SCORPIO, root)
    rate = os.path.join(root, "class", "infiniband", "mlx5_0", "ports", "1", "rate")
    os.remove(rate)
    os.mkdir(rate)  # reading a directory fails like an unreadable attribute
    assert read_sysfs(root)["mlx5_0"]["ports"][1]["rate_gbps"] is None


def test_read_sysfs_missing_root(tmp_path):
    assert read_sysfs(str(tmp_path / "nothing")) == {}


def test_read_sysfs_ibstatus_tree():
    # ibstatus: mlx5_0..7 IB 200 Gb/sec (4X HDR), mlx5_8 Ethernet 40 Gb/sec (4X QDR), default gid "unknown".
    sysfs = read_sysfs(SYSFS_A100)
    assert list(sysfs) == ["mlx5_%d" % i for i in range(9)]
    assert sysfs["mlx5_8"]["ports"][1] == {
        "state": "Active", "physical_state": "LinkUp", "rate_gbps": 40, "link_layer": "Ethernet",
        "gids": {}, "gid_types": {}, "ndevs": {}, "netdev": None, "roce_v2_gid_index": None}
    assert sysfs["mlx5_3"]["ports"][1]["gids"] == {0: "fe80:0000:0000:0000:0015:5dff:fd34:11ee"}
    hcas = hcas_from_sysfs(sysfs)
    assert hcas[8] == hca("mlx5_8", None, None, None, dict(port("Active", "LinkUp", 40, "Ethernet"), roce_v2_gid_index=None))
    assert nccl_env(select_ports(hcas)) == {"NCCL_IB_HCA": hca_list("mlx5_0 mlx5_1 mlx5_2 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_7")}


def test_merge_ibstat_with_sysfs_netdev_and_gid():
    hcas, _failed = parse_ibstat(fixture(A100_IB_ROCE))
    sysfs = {"mlx5_0": {"ports": {1: {"netdev": "ens1np0", "roce_v2_gid_index": 3}}},
             "mlx5_1": {"ports": {1: {"netdev": "ibp12s0", "roce_v2_gid_index": None}}}}
    merged = merge_hcas(hcas, sysfs)
    assert merged[0]["ports"] == [dict(port("Active", "LinkUp", 200, "Ethernet"), netdev="ens1np0", roce_v2_gid_index=3)]
    assert merged[1]["ports"] == [dict(port("Active", "LinkUp", 200, "InfiniBand"), netdev="ibp12s0")]
    assert merged[2]["ports"] == [port("Active", "LinkUp", 200, "InfiniBand")]
    assert nccl_env(select_ports(merged, "roce")) == {"NCCL_IB_HCA": "=mlx5_0:1", "NCCL_IB_GID_INDEX": "3"}


def _write(path, content):
    if not os.path.isdir(os.path.dirname(path)):
        os.makedirs(os.path.dirname(path))
    with open(path, "w") as handle:
        handle.write(content + "\n")


def test_netdevs_from_ibdev2netdev_layout(tmp_path):
    # Lay out the device -> netdev pairs of the StepMesh H20 ibdev2netdev capture the three ways sysfs shows them.
    root = str(tmp_path)
    pairs = [re.match(r"^(\S+) port (\d+) ==> (\S+) \((\w+)\)$", line).groups()
             for line in fixture(IBDEV2NETDEV_H20).splitlines()]
    for device, number, netdev, _state in pairs:
        device_dir = os.path.join(root, "class", "infiniband", device)
        port_dir = os.path.join(device_dir, "ports", number)
        if netdev.startswith("ib") and device != "mlx5_3":
            _write(os.path.join(port_dir, "link_layer"), "InfiniBand")
            _write(os.path.join(device_dir, "device", "net", netdev, "dev_port"), "0")
        elif netdev.startswith("ib"):
            _write(os.path.join(port_dir, "link_layer"), "InfiniBand")
            pci = os.path.join(root, "devices", "pci0000:00", device)
            os.makedirs(pci)
            os.symlink(pci, os.path.join(device_dir, "device"))
            os.makedirs(os.path.join(root, "class", "net", netdev))
            os.symlink(pci, os.path.join(root, "class", "net", netdev, "device"))
        else:
            _write(os.path.join(port_dir, "link_layer"), "Ethernet")
            _write(os.path.join(port_dir, "gid_attrs", "ndevs", "0"), netdev)
    sysfs = read_sysfs(root)
    assert dict((name, dev["ports"][1]["netdev"]) for name, dev in sysfs.items()) == {
        "mlx5_0": "ibs108", "mlx5_1": "ens12f0np0", "mlx5_2": "ens12f1np1", "mlx5_3": "ibs110",
        "mlx5_4": "ibs112", "mlx5_7": "ibs114", "mlx5_bond_0": "bond0"}
    assert list(sysfs) == ["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3", "mlx5_4", "mlx5_7", "mlx5_bond_0"]


def test_netdev_of_two_port_device_by_dev_port(tmp_path):
    # Synthetic: a ConnectX-3 VPI like mlx4_0 of the linux-rdma capture, one PCI function for both ports.
    device_dir = str(tmp_path / "class" / "infiniband" / "mlx4_0")
    _write(os.path.join(device_dir, "ports", "1", "link_layer"), "InfiniBand")
    _write(os.path.join(device_dir, "ports", "2", "link_layer"), "Ethernet")
    _write(os.path.join(device_dir, "device", "net", "ib0", "dev_port"), "0")
    _write(os.path.join(device_dir, "device", "net", "ib0.8001", "dev_port"), "0")
    _write(os.path.join(device_dir, "device", "net", "eth2", "dev_port"), "1")
    ports = read_sysfs(str(tmp_path))["mlx4_0"]["ports"]
    assert (ports[1]["netdev"], ports[2]["netdev"]) == ("ib0", "eth2")


@pytest.mark.parametrize(
    "gids, types, expected",
    [
        # scorpio mlx5_1: [0] v1 link-local, [1] v2 link-local, [2] v1 IPv4, [3] v2 IPv4.
        (scorpio_roce_gids("07a4", "8cdd:3c0b"), SCORPIO_TYPES, 3),
        # Same table as lists; compressed GIDs as ibv_devinfo prints them.
        (["fe80::e42:a1ff:fe2b:7a4", "fe80::e42:a1ff:fe2b:7a4", "::ffff:140.221.60.11", "::ffff:140.221.60.11"],
         ["RoCE v1", "RoCE v2", "RoCE v1", "RoCE v2"], 3),
        # Types unreadable (EINVAL): unknown.
        (scorpio_roce_gids("07a4", "8cdd:3c0b"), {}, None),
        ({0: "fe80:0000:0000:0000:0e42:a1ff:fe2b:07a4", 1: "0000:0000:0000:0000:0000:ffff:8cdd:3c0b"}, {0: "RoCE v2", 1: None}, None),
        # Only link-local v2 GIDs: none.
        ({0: "fe80:0000:0000:0000:0e42:a1ff:fe2b:07a4", 1: "fe80:0000:0000:0000:0e42:a1ff:fe2b:07a4"},
         {0: "IB/RoCE v1", 1: "RoCE v2"}, None),
        # A zero IPv4-mapped GID is skipped; the next one counts.
        ({4: "0000:0000:0000:0000:0000:ffff:0000:0000", 7: "0000:0000:0000:0000:0000:ffff:0a00:0007"},
         {4: "RoCE v2", 7: "RoCE v2"}, 7),
        ({0: "junk", 1: "0000:0000:0000:0000:0000:ffff:0a00:0007"}, {0: "RoCE v2", 1: "RoCE v2"}, 1),
        # An IPv6 global GID (not IPv4-mapped) is not what NCCL prefers by default.
        ({0: "fd00:0000:0000:0000:0000:0000:0000:0002"}, {0: "RoCE v2"}, None),
    ],
)
def test_roce_v2_gid_index(gids, types, expected):
    assert roce_v2_gid_index(gids, types) == expected


def test_gid_index_rules_in_nccl_env():
    def roce(name, index):
        return {"hca": name, "port": 1, "link_layer": "Ethernet", "rate_gbps": 400, "roce_v2_gid_index": index}

    assert nccl_env([roce("mlx5_0", 3), roce("mlx5_1", 3)]) == {"NCCL_IB_HCA": "=mlx5_0:1,mlx5_1:1", "NCCL_IB_GID_INDEX": "3"}
    # k8s macvlan pods (NCCL #1538) see 7 on one port, 3 elsewhere: differs -> unset.
    assert nccl_env([roce("mlx5_0", 3), roce("mlx5_1", 7)]) == {"NCCL_IB_HCA": "=mlx5_0:1,mlx5_1:1"}
    assert nccl_env([roce("mlx5_0", 3), roce("mlx5_1", None)]) == {"NCCL_IB_HCA": "=mlx5_0:1,mlx5_1:1"}
    assert nccl_env([roce("mlx5_0", 0)]) == {"NCCL_IB_HCA": "=mlx5_0:1", "NCCL_IB_GID_INDEX": "0"}


def test_select_rejects_unknown_choice():
    with pytest.raises(IbFactsError) as info:
        select_ports([], "fast")
    assert str(info.value) == "select must be one of auto, ib, roce, all, got 'fast'"


# --- bootstrap interface --------------------------------------------------------------------


DEVHOST_INTERFACES = {
    "lo": ["127.0.0.1/8", "::1/128"],
    "eth0": ["192.0.2.2/24", "fd00::2/64", "fe80::fc:ff:fe00:1/64"],
    "docker0": ["172.17.0.1/16", "fe80::42:64ff:fefb:28ef/64"],
    "br-d06eaa01ebee": ["172.31.250.1/24", "fe80::42:9dff:fe51:ce97/64"],
    "vethc26f421": ["fe80::f839:a0ff:fe2b:abc5/64"],
    "vethc5b2afb": ["fe80::9c54:cfff:fe22:578b/64"],
    "vethd56fbc2": ["fe80::a4d4:d3ff:fe0e:e88/64"],
    "br-e5220f02019b": ["172.31.253.1/24", "fe80::42:a7ff:fedb:1c8b/64"],
    "veth0c51be9": ["fe80::814:24ff:fe56:3d8d/64"],
    "veth5ca3ff8": ["fe80::8c16:bfff:fe01:27d8/64"],
}


def test_parse_ip_addr_devhost():
    assert parse_ip_addr(fixture(IP_ADDR_DEVHOST)) == DEVHOST_INTERFACES


@pytest.mark.parametrize(
    "address, cidr, expected",
    [
        ("192.0.2.2", None, "eth0"),
        ("fd00::2", None, "eth0"),
        ("[fd00::2]", None, "eth0"),
        ("::ffff:192.0.2.2", None, "eth0"),
        ("127.0.0.1", None, None),  # lo: never
        ("::1", None, None),
        ("172.17.0.1", None, None),  # docker0: never
        ("192.0.2.99", None, None),
        (None, "192.0.2.0/24", "eth0"),
        (None, "192.0.2.0/255.255.255.0", "eth0"),
        (None, "fd00::/8", "eth0"),
        (None, "172.17.0.0/16", None),
        # docker0 is in 172.16/12 too, but never chosen: the first bridge in natural order is.
        (None, "172.16.0.0/12", "br-d06eaa01ebee"),
        (None, "10.0.0.0/8", None),
        # The CIDR wins over the address.
        ("192.0.2.2", "172.31.253.0/24", "br-e5220f02019b"),
        (None, None, None),
    ],
)
def test_socket_ifname(address, cidr, expected):
    assert socket_ifname(DEVHOST_INTERFACES, address, cidr) == expected


def test_socket_ifname_in_nccl_env():
    assert nccl_env([], DEVHOST_INTERFACES, "192.0.2.2") == {"NCCL_IB_DISABLE": "1", "NCCL_SOCKET_IFNAME": "=eth0"}
    assert nccl_env([], {"docker_gwbridge": ["10.0.0.1/24"], "lo": ["10.0.0.9/32"]}, None, "10.0.0.0/8") == {
        "NCCL_IB_DISABLE": "1"}


@pytest.mark.parametrize(
    "interfaces, address, cidr, message",
    [
        ({}, "node1.example", None, "bootstrap_address 'node1.example' is not an IP address"),
        ({}, None, "10.0.0.0/33", "bootstrap_cidr '10.0.0.0/33' is not a network"),
        ({"eth0": ["bogus"]}, "10.0.0.1", None, "interfaces: eth0 address 'bogus' is not an IP address"),
    ],
)
def test_socket_ifname_errors(interfaces, address, cidr, message):
    with pytest.raises(IbFactsError) as info:
        socket_ifname(interfaces, address, cidr)
    assert str(info.value) == message


@pytest.mark.parametrize(
    "text, message",
    [
        ("garbage\n", "ip -o addr line 1: cannot parse 'garbage'"),
        ("2: eth0    inet notanaddr/24 scope global eth0\n", "ip -o addr line 1: 'notanaddr/24' is not an address"),
        ("2: eth0    inet fd00::2/64 scope global eth0\n", "ip -o addr line 1: 'fd00::2/64' is not an inet address"),
        ("2: eth0\x00 inet", "ip -o addr output is not text: control character 0x00 on line 1"),
    ],
)
def test_parse_ip_addr_errors(text, message):
    with pytest.raises(IbFactsError) as info:
        parse_ip_addr(text)
    assert str(info.value) == message


def test_parse_ip_addr_tolerates_parent_suffix_and_link_lines():
    # Synthetic lines: a VLAN shown with its parent, and a link/ether line of an address-less interface.
    text = ("7: eth0.100@eth0    inet 10.1.0.5/24 brd 10.1.0.255 scope global eth0.100\\       valid_lft forever\n"
            "8: ens2    link/ether 52:54:00:12:34:56 brd ff:ff:ff:ff:ff:ff\n")
    assert parse_ip_addr(text) == {"eth0.100": ["10.1.0.5/24"], "ens2": []}


@pytest.mark.parametrize(
    "value, expected",
    [
        ("192.0.2.10 51234 192.0.2.2 22", "192.0.2.2"),
        ("::ffff:192.0.2.10 51234 ::ffff:192.0.2.2 22", "192.0.2.2"),
        ("fd00::10 51234 fd00::2 22", "fd00::2"),
        ("", None),
        (None, None),
        ("garbage", None),
        ("a b c d", None),
    ],
)
def test_ssh_server_address(value, expected):
    assert ssh_server_address(value) == expected


# --- property-based: random and mutated input -> IbFactsError or a valid result ------------

FUZZ_EXAMPLES = 400
FUZZ = settings(max_examples=FUZZ_EXAMPLES, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
IBSTAT_CAPTURES = [fixture(name) for name in (H100_IB_3DOWN, H100_12ROCE, A100_IB_ROCE, MLX4_2PORT, A100_IBPANIC)]
NOISE = st.text(alphabet=st.one_of(st.sampled_from(list("CAPort '\t:0123456789mlx_ ibpanic\n\x00\udcff")), st.characters()),
                max_size=40)


def assert_valid_ibstat(result):
    hcas, failed = result
    assert isinstance(hcas, list) and isinstance(failed, list)
    assert all(isinstance(name, str) and name for name in failed)
    names = [h["name"] for h in hcas]
    assert len(set(names)) == len(names)
    assert names == sorted(names, key=natural_key)
    for item in hcas:
        assert item["name"] and not re.search(r"[\s']", item["name"])
        numbers = [p["port"] for p in item["ports"]]
        assert numbers == sorted(set(numbers))
        for entry in item["ports"]:
            assert set(entry) == {"port", "state", "physical_state", "rate_gbps", "link_layer"}
            for key in ("state", "physical_state", "link_layer"):
                assert isinstance(entry[key], str) and entry[key] and "\n" not in entry[key]
            assert isinstance(entry["rate_gbps"], (int, float)) and entry["rate_gbps"] >= 0


def mutated(captures):
    return mutated_capture(captures, NOISE)


def ibstat_or_error(text, stderr="", expected=()):
    try:
        result = parse_ibstat(text, stderr, expected)
    except IbFactsError as exc:
        assert str(exc) and "\n" not in str(exc)
        return None
    assert_valid_ibstat(result)
    return result


@FUZZ
@given(mutated(IBSTAT_CAPTURES))
def test_fuzz_ibstat_mutated_captures(text):
    ibstat_or_error(text, expected=["mlx5_0"])


@FUZZ
@given(st.text(max_size=300), st.text(max_size=80))
def test_fuzz_ibstat_random_text(text, stderr):
    ibstat_or_error(text, stderr)


@FUZZ
@given(st.binary(max_size=300))
def test_fuzz_ibstat_random_bytes(data):
    ibstat_or_error(data)


@FUZZ
@given(st.one_of(mutated([fixture(IP_ADDR_DEVHOST)]), st.text(max_size=200)))
def test_fuzz_ip_addr(text):
    try:
        result = parse_ip_addr(text)
    except IbFactsError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    assert isinstance(result, dict)
    for name, addresses in result.items():
        assert name and not re.search(r"\s|@", name)
        assert all(isinstance(a, str) and a for a in addresses)
    # Whatever it parsed, the interface lookup runs on it without error.
    socket_ifname(result, "192.0.2.2")
