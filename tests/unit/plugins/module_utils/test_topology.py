# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Topology-aware placement over real ibnetdiscover outputs (tests/fixtures/IBNETDISCOVER_SOURCES.md).

Every expected value below was written by hand from reading the file it refers to, never produced by running
the code. Which host sits on which leaf of the PSMN X5 fabric also agrees with the site's own topology.conf
(psmn_x5_ibmap2slurm_topology.conf). Inputs marked HAND-BUILT are no capture: they cover what no traceable
public capture shows (SHARP aggregation nodes, hosts cabled to several leaves, GPUs in an NVLink domain).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible_collections.gpuops.cluster.plugins.module_utils.gpu._gpu_facts import parse_smi_xml
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._hostlist import expand
from ansible_collections.gpuops.cluster.plugins.module_utils.fabric._topology import (
    TopologyError,
    ca_host,
    choose_topology_plugin,
    fabric_tree,
    nvlink_domains,
    parse_ibnetdiscover,
    switch_names,
    topology_block_lines,
    topology_plan,
    topology_tree_lines,
    tree_from_inventory,
)

FIXTURES = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures"))
X5 = "ibnetdiscover/psmn_x5_qdr_2level.txt"
X5_MAP = "ibnetdiscover/psmn_x5_guid-hostname.map"
X5_LEAF_MISSING = "ibnetdiscover/derived_psmn_x5_leaf-hoibp0013-missing.txt"
MANPAGE = "ibnetdiscover/manpage_voltaire_sdr_2switch_no-hostnames.txt"
IBM = "ibnetdiscover/ibm-pcm_1switch_2hosts.txt"
NVIDIA_KB = "ibnetdiscover/nvidia-kb_switchib-sx6012_2leaf_stderr-line.txt"
ORACLE = "ibnetdiscover/oracle-dcs36_1switch_1host.txt"
H100_580 = "nvidia-smi-xml/gpuops_h100-80gb-hbm3_580.159.04_tlimit-v13.xml"


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def x5_map():
    """The site's 'H-<GUID> <host>' map as ca_hosts."""
    return dict(line.split() for line in fixture(X5_MAP).splitlines() if line.strip() and not line.startswith("#"))


def names(expression):
    """{host: host} of the hosts of a hostlist: Slurm nodes named as their inventory hosts."""
    return dict((host, host) for host in expand(expression))


# The hosts of X5, leaf by leaf, as the capture's switch blocks and the site's map give them.
X5_R422 = "r422node[1-2,5-8,15-16,35-36,39-40,57,65-66,69-70,103-104]"
X5_SL390_LOW = "sl390lin[1-5,7-11,13-18,20-21,24-27,29,33]"
X5_SL390_HIGH = "sl390lin[101-124]"
X5_SL390_369C = "sl390lin[22,28,34,37]"
X5_R815 = "r815lin[104-107,110-114]"
X5_8BBA = "r510gluster[1-4],x5570comp[1-2]"
X5_ALL = ",".join([X5_R422, X5_SL390_LOW, X5_SL390_HIGH, X5_SL390_369C, X5_R815, X5_8BBA])
X5_UNNAMED = ("3 HCA(s) have no host name: their node description (e.g. 'MT25408 ConnectX Mellanox Technologies') "
              "names none; map their GUIDs to hosts with ca_hosts: H-003048c749450000, H-003048c74ae20000, "
              "H-78e7d1030024535c")


# --- parse_ibnetdiscover: the captures -----------------------------------------------------


@pytest.mark.parametrize("name, switches, cas, links, undescribed, warnings", [
    # 318 port lines, every link printed from both ends.
    (X5, 11, 89, 159, [], 0),
    # The same less one switch's 36 port lines; its 36 links are still printed from their other ends.
    (X5_LEAF_MISSING, 10, 89, 159, ["S-0008f105002036b4"], 0),
    # 14 port lines, 7 links (the CA H-0008f10403960558 uses both its ports).
    (MANPAGE, 2, 4, 7, [], 0),
    (IBM, 1, 2, 2, [], 0),
    # 20 port lines: the SwitchIB's three self-cabled pairs (1-2, 19-21, 29-30) and 7 other links.
    (NVIDIA_KB, 2, 6, 10, [], 1),
    (ORACLE, 1, 1, 1, [], 0),
])
def test_capture_counts(name, switches, cas, links, undescribed, warnings):
    parsed = parse_ibnetdiscover(fixture(name))
    assert (len(parsed["switches"]), len(parsed["cas"]), len(parsed["links"])) == (switches, cas, links)
    assert sorted(parsed["undescribed"]) == undescribed
    assert len(parsed["warnings"]) == warnings
    assert parsed["routers"] == {}


def test_x5_switch_and_ca_details():
    parsed = parse_ibnetdiscover(fixture(X5))
    switch = parsed["switches"]["S-0008f10500200b50"]
    assert (switch["guid"], switch["nports"], switch["lid"], switch["description"]) == (
        "0x0008f10500200b50", 36, 9, "Voltaire 4036 - 36 QDR ports switch")
    assert sorted(switch["ports"]) == list(range(1, 25)) + [26, 28, 29, 30, 31, 32, 34, 35, 36]
    assert switch["ports"][1] == {"peer": "S-0008f10500108c5c", "peer_port": 15, "peer_type": "switch",
                                  "peer_description": "Voltaire 4036 # 4036-8C5C", "peer_lid": 16, "rate": "4xQDR"}
    assert switch["ports"][4] == {"peer": "H-003048c749cd0000", "peer_port": 1, "peer_type": "ca",
                                  "peer_description": "MT25408 ConnectX Mellanox Technologies", "peer_lid": 72,
                                  "rate": "4xDDR"}
    ca = parsed["cas"]["H-003048c707b60000"]
    assert ca == {"id": "H-003048c707b60000", "type": "ca", "guid": "0x003048c707b60000", "nports": 1,
                  "description": "MT25408 ConnectX Mellanox Technologies", "lid": 93, "host": None,
                  "aggregation_node": False,
                  "ports": {1: {"peer": "S-0008f10500200b50", "peer_port": 32, "peer_type": "switch",
                                "peer_description": "Voltaire 4036 - 36 QDR ports switch", "peer_lid": 9,
                                "rate": "4xDDR"}}}
    assert parsed["links"][0] == {"a": "H-0002c90300048208", "a_port": 1, "b": "S-0002c902004827b0", "b_port": 10}


def test_derived_missing_switch_is_named_by_those_linking_to_it():
    missing = parse_ibnetdiscover(fixture(X5_LEAF_MISSING))["undescribed"]["S-0008f105002036b4"]
    assert (missing["type"], missing["description"]) == ("switch", "Voltaire 4036 # hoibp0013")
    # 3 ports of each of the four spines and the 24 HCAs of sl390lin101-124.
    assert len(missing["referenced_by"]) == 36
    # in the order of the file: the spine ...108098 (its ports 3, 4 and 21) comes first.
    assert missing["referenced_by"][:3] == ["S-0008f10500108098[3]", "S-0008f10500108098[4]", "S-0008f10500108098[21]"]


def test_small_captures():
    ibm = parse_ibnetdiscover(fixture(IBM))
    assert sorted((ca["host"], ca["lid"]) for ca in ibm["cas"].values()) == [("compute-00-00", 2), ("compute-00-01", 1)]
    assert ibm["switches"]["S-000b8cffff0053ee"]["lid"] == 3
    kb = parse_ibnetdiscover(fixture(NVIDIA_KB))
    assert kb["warnings"] == ["src/query_smp.c:195; umad (DR path slid 0; dlid 0; 0,1,1,31 Attr 0x11:0) bad status 110; "
                              "Connection timed out"]
    # The SwitchIB's port 1 is cabled to its own port 2.
    assert kb["switches"]["S-e41d2d030003e470"]["ports"][1]["peer"] == "S-e41d2d030003e470"
    assert sorted(ca["host"] for ca in kb["cas"].values()) == [
        "r-ufm100", "r-ufm101", "r-ufm101", "r-ufm111", "r-ufm216", "r-ufm96"]
    manpage = parse_ibnetdiscover(fixture(MANPAGE))
    assert sorted(ca["nports"] for ca in manpage["cas"].values()) == [2, 2, 2, 2]
    assert set(ca["host"] for ca in manpage["cas"].values()) == set([None])


# --- host and switch names --------------------------------------------------------------------


@pytest.mark.parametrize("description, host", [
    ("node01 HCA-1", "node01"),
    ("r-ufm101 HCA-2", "r-ufm101"),
    ("node01 mlx5_0", "node01"),
    ("gpu-a17.cluster mlx5_bond_0", "gpu-a17.cluster"),
    ("H_32000 HCA-1 (Mellanox HCA)", "H_32000"),
    ("login01", "login01"),
    ("MT25408 ConnectX Mellanox Technologies", None),
    ("MT23108 InfiniHost Mellanox Technologies", None),
    ("Mellanox Technologies Aggregation Node", None),
    ("mlx5_0", None),
    ("", None),
    (None, None),
])
def test_ca_host(description, host):
    assert ca_host(description) == host


def test_switch_names():
    switches = {
        "S-0000000000000001": {"description": "MF0;leaf01:MQM8700/U1"},
        "S-0000000000000002": {"description": "Voltaire 4036 # hoibp0013"},
        "S-0000000000000003": {"description": "spine7"},
        # vendor defaults, empty, and a name two switches claim: the id.
        "S-0000000000000004": {"description": "Quantum Mellanox Technologies"},
        "S-0000000000000005": {"description": ""},
        "S-0000000000000006": {"description": "MF0;twin:MQM8700/U1"},
        "S-0000000000000007": {"description": "MF0;twin:MQM8700/U1"},
        # a name Slurm would read as two hostlist items
        "S-0000000000000008": {"description": "MF0;a,b:MQM8700/U1"},
    }
    assert switch_names(switches) == {
        "S-0000000000000001": "leaf01", "S-0000000000000002": "hoibp0013", "S-0000000000000003": "spine7",
        "S-0000000000000004": "S-0000000000000004", "S-0000000000000005": "S-0000000000000005",
        "S-0000000000000006": "S-0000000000000006", "S-0000000000000007": "S-0000000000000007",
        "S-0000000000000008": "S-0000000000000008"}


# --- fabric_tree and topology_tree_lines: X5, a two-level fat tree ---------------------------


def test_x5_tree_leaves_with_their_hosts_and_the_spine_level():
    tree = fabric_tree(parse_ibnetdiscover(fixture(X5)), x5_map())
    assert tree["leaves"] == {
        "S-0008f10500200b50": expand(X5_R422),
        "S-0002c90200417670": expand(X5_SL390_LOW),
        "hoibp0013": expand(X5_SL390_HIGH),
        "4036-369C": expand(X5_SL390_369C),
        "S-0002c902004827b0": expand(X5_R815),
        "4036-8BBA": expand(X5_8BBA),
    }
    # natural order: 4036-8BBA before 4036-369C (8 < 369), upper case before lower case
    six = ["4036-8BBA", "4036-369C", "S-0002c902004827b0", "S-0002c90200417670", "S-0008f10500200b50", "hoibp0013"]
    five = [leaf for leaf in six if leaf != "S-0008f10500200b50"]
    assert tree["switches"] == {
        # spines: 4036-8C5C and ...108098 reach all six leaves, ...108530 and ...10851e all but ...200b50
        "4036-8C5C": six, "S-0008f10500108098": six, "S-0008f10500108530": five, "S-0008f1050010851e": five,
        # 4036-86A2 links only to two spines: one level above them
        "4036-86A2": ["S-0008f1050010851e", "S-0008f10500108530"],
    }
    assert sorted(level for level in tree["levels"].values()) == [0] * 6 + [1] * 4 + [2]
    assert tree["incomplete"] == {}
    assert tree["notes"] == [X5_UNNAMED]


X5_SIX = "4036-8BBA,4036-369C,S-0002c902004827b0,S-0002c90200417670,S-0008f10500200b50,hoibp0013"
X5_FIVE = "4036-8BBA,4036-369C,S-0002c902004827b0,S-0002c90200417670,hoibp0013"


def test_x5_topology_conf_lines():
    result = topology_tree_lines(fabric_tree(parse_ibnetdiscover(fixture(X5)), x5_map()), names(X5_ALL))
    assert result["lines"] == [
        "SwitchName=4036-8BBA Nodes=" + X5_8BBA,
        "SwitchName=4036-369C Nodes=" + X5_SL390_369C,
        "SwitchName=S-0002c902004827b0 Nodes=" + X5_R815,
        "SwitchName=S-0002c90200417670 Nodes=" + X5_SL390_LOW,
        "SwitchName=S-0008f10500200b50 Nodes=" + X5_R422,
        "SwitchName=hoibp0013 Nodes=" + X5_SL390_HIGH,
        "SwitchName=4036-8C5C Switches=" + X5_SIX,
        "SwitchName=S-0008f1050010851e Switches=" + X5_FIVE,
        "SwitchName=S-0008f10500108098 Switches=" + X5_SIX,
        "SwitchName=S-0008f10500108530 Switches=" + X5_FIVE,
        "SwitchName=4036-86A2 Switches=S-0008f1050010851e,S-0008f10500108530",
    ]
    assert result["missing"] == []
    assert result["notes"] == [X5_UNNAMED]


def test_x5_slurm_names_differ_from_inventory_and_fabric_hosts_that_are_no_node():
    # Inventory hosts with a domain, Slurm names the first label (the caller's one rule); r422node*, gluster and
    # x5570comp hosts are no Slurm node; sl390lin200 is not on the fabric.
    nodes = dict(("%s.x5.example" % host, host) for host in expand(",".join([X5_SL390_LOW, X5_SL390_HIGH,
                                                                            X5_SL390_369C, X5_R815])))
    nodes["sl390lin200.x5.example"] = "sl390lin200"
    result = topology_tree_lines(fabric_tree(parse_ibnetdiscover(fixture(X5)), x5_map()), nodes)
    assert result["lines"] == [
        "SwitchName=4036-369C Nodes=" + X5_SL390_369C,
        "SwitchName=S-0002c902004827b0 Nodes=" + X5_R815,
        "SwitchName=S-0002c90200417670 Nodes=" + X5_SL390_LOW,
        "SwitchName=hoibp0013 Nodes=" + X5_SL390_HIGH,
        "SwitchName=4036-8C5C Switches=4036-369C,S-0002c902004827b0,S-0002c90200417670,hoibp0013",
        "SwitchName=S-0008f1050010851e Switches=4036-369C,S-0002c902004827b0,S-0002c90200417670,hoibp0013",
        "SwitchName=S-0008f10500108098 Switches=4036-369C,S-0002c902004827b0,S-0002c90200417670,hoibp0013",
        "SwitchName=S-0008f10500108530 Switches=4036-369C,S-0002c902004827b0,S-0002c90200417670,hoibp0013",
        "SwitchName=4036-86A2 Switches=S-0008f1050010851e,S-0008f10500108530",
    ]
    assert result["missing"] == [{"node": "sl390lin200", "host": "sl390lin200.x5.example",
                                  "reason": "not on the fabric: no HCA in the ibnetdiscover output names this host "
                                            "(its node description, or ca_hosts)"}]
    assert result["notes"] == [
        X5_UNNAMED,
        "25 host(s) of the tree are no Slurm node and were left out: " + X5_R422 + "," + X5_8BBA,
        "2 leaf switch(es) have no Slurm node and were left out: 4036-8BBA, S-0008f10500200b50",
    ]


def test_x5_without_the_map_names_no_host():
    tree = fabric_tree(parse_ibnetdiscover(fixture(X5)))
    assert all(hosts == [] for hosts in tree["leaves"].values()) and len(tree["leaves"]) == 6
    assert tree["notes"][0].startswith("89 HCA(s) have no host name")
    with pytest.raises(TopologyError) as err:
        topology_tree_lines(tree, names(X5_ALL))
    assert str(err.value) == "no leaf switch holds a named host"


# --- a switch missing from the output (derived from X5) ------------------------------------------


def test_missing_switch_its_nodes_are_missing_with_why():
    tree = fabric_tree(parse_ibnetdiscover(fixture(X5_LEAF_MISSING)), x5_map())
    assert "hoibp0013" not in tree["leaves"] and len(tree["leaves"]) == 5
    result = topology_tree_lines(tree, names(X5_ALL))
    five = "4036-8BBA,4036-369C,S-0002c902004827b0,S-0002c90200417670,S-0008f10500200b50"
    four = "4036-8BBA,4036-369C,S-0002c902004827b0,S-0002c90200417670"
    assert result["lines"] == [
        "SwitchName=4036-8BBA Nodes=" + X5_8BBA,
        "SwitchName=4036-369C Nodes=" + X5_SL390_369C,
        "SwitchName=S-0002c902004827b0 Nodes=" + X5_R815,
        "SwitchName=S-0002c90200417670 Nodes=" + X5_SL390_LOW,
        "SwitchName=S-0008f10500200b50 Nodes=" + X5_R422,
        "SwitchName=4036-8C5C Switches=" + five,
        "SwitchName=S-0008f1050010851e Switches=" + four,
        "SwitchName=S-0008f10500108098 Switches=" + five,
        "SwitchName=S-0008f10500108530 Switches=" + four,
        "SwitchName=4036-86A2 Switches=S-0008f1050010851e,S-0008f10500108530",
    ]
    assert [entry["node"] for entry in result["missing"]] == expand(X5_SL390_HIGH)
    # sl390lin101's HCA (the site's map) is on port 36 of ...2036b4 in the full capture.
    assert result["missing"][0] == {
        "node": "sl390lin101", "host": "sl390lin101",
        "reason": "discovery incomplete: its HCA H-78e7d1030022a46c links to switch S-0008f105002036b4 "
                  "('Voltaire 4036 # hoibp0013'), which the ibnetdiscover output does not describe"}
    assert all("S-0008f105002036b4" in entry["reason"] for entry in result["missing"])
    assert result["notes"] == [
        "discovery incomplete: 1 switch(es) are linked to but not described: S-0008f105002036b4 "
        "('Voltaire 4036 # hoibp0013')",
        X5_UNNAMED,
    ]


# --- the small captures ---------------------------------------------------------------------------


def test_one_switch_captures():
    assert topology_tree_lines(fabric_tree(parse_ibnetdiscover(fixture(IBM))),
                               names("compute-00-[00-01]"))["lines"] == [
        "SwitchName=S-000b8cffff0053ee Nodes=compute-00-[00-01]"]
    result = topology_tree_lines(fabric_tree(parse_ibnetdiscover(fixture(ORACLE))), names("nsn33-43,nsn33-44"))
    assert result["lines"] == ["SwitchName=S-0021283a8389a0a0 Nodes=nsn33-43"]
    assert [entry["node"] for entry in result["missing"]] == ["nsn33-44"]


def test_two_leaves_without_a_common_switch():
    # The SwitchIB and the SX6012 both hold hosts and are cabled to each other: two leaves, no upper level.
    tree = fabric_tree(parse_ibnetdiscover(fixture(NVIDIA_KB)))
    assert tree["leaves"] == {"S-e41d2d030003e470": ["r-ufm111", "r-ufm216"],
                              "switch-de779e": ["r-ufm96", "r-ufm100", "r-ufm101"]}
    assert tree["switches"] == {}
    result = topology_tree_lines(tree, names("r-ufm[96,100-101,111,216]"))
    assert result["lines"] == ["SwitchName=S-e41d2d030003e470 Nodes=r-ufm[111,216]",
                               "SwitchName=switch-de779e Nodes=r-ufm[96,100-101]"]
    assert result["notes"] == [
        "ibnetdiscover printed 1 warning(s), e.g. 'src/query_smp.c:195; umad (DR path slid 0; dlid 0; 0,1,1,31...",
        "no switch reaches every node through the switches below it (top switches: S-e41d2d030003e470, "
        "switch-de779e): Slurm places a job below one of them only and warns 'no switch can reach all nodes through "
        "its descendants'; the fabric has no common upper switch for them (give the tree with node_switches and "
        "switch_parents to add one)",
    ]


def test_manpage_example_without_host_names():
    tree = fabric_tree(parse_ibnetdiscover(fixture(MANPAGE)))
    assert tree["leaves"] == {"S-005442ba00003080": [], "S-0008f10400410015": []}
    assert tree["notes"] == [
        "4 HCA(s) have no host name: their node description (e.g. 'MT23108 InfiniHost Mellanox Technologies') names "
        "none; map their GUIDs to hosts with ca_hosts: H-0008f10403960558, H-0008f10403960984, H-0008f10403961354, "
        "H-005442b100004900"]
    mapped = fabric_tree(parse_ibnetdiscover(fixture(MANPAGE)), {"H-0008f10403960558": "n1", "0x8f10403960984": "n2"})
    # n1's CA uses two ports of the ISR9024; n2's is on the SW-6IB4.
    assert mapped["leaves"] == {"S-005442ba00003080": ["n1"], "S-0008f10400410015": ["n2"]}


@pytest.mark.parametrize("ca_hosts, message", [
    ({"H-0008f10403960558": "n 1"}, "ca_hosts['H-0008f10403960558']: 'n 1' is not a host name"),
    ({"G-0008f10403960558": "n1"}, "ca_hosts: 'G-0008f10403960558' is not a CA GUID (give it as ibnetdiscover "
                                   "prints it, e.g. H-0002c90300080d28)"),
    (["n1"], "ca_hosts must be a mapping of CA GUID to host name, got list"),
])
def test_ca_hosts_errors(ca_hosts, message):
    with pytest.raises(TopologyError) as err:
        fabric_tree(parse_ibnetdiscover(fixture(MANPAGE)), ca_hosts)
    assert str(err.value) == message


# HAND-BUILT, no capture: two rail leaves (the HCAs mlx5_0 of every node on one, mlx5_1 on the other) under one
# spine; every Quantum switch holds a SHARP aggregation node, the spine's too.
RAILS = """\
Switch\t41 "S-0000000000000a01"\t\t# "MF0;rail0-leaf:MQM8700/U1" enhanced port 0 lid 1 lmc 0
[1]\t"H-0000000000000101"[1](101) \t\t# "gpu01 mlx5_0" lid 11 4xHDR
[2]\t"H-0000000000000201"[1](201) \t\t# "gpu02 mlx5_0" lid 21 4xHDR
[40]\t"S-0000000000000c01"[1]\t\t# "MF0;spine1:MQM8700/U1" lid 5 4xHDR
[41]\t"H-0000000000000a02"[1](a02) \t\t# "Mellanox Technologies Aggregation Node" lid 2 4xHDR

Switch\t41 "S-0000000000000b01"\t\t# "MF0;rail1-leaf:MQM8700/U1" enhanced port 0 lid 3 lmc 0
[1]\t"H-0000000000000102"[1](102) \t\t# "gpu01 mlx5_1" lid 12 4xHDR
[2]\t"H-0000000000000202"[1](202) \t\t# "gpu02 mlx5_1" lid 22 4xHDR
[40]\t"S-0000000000000c01"[2]\t\t# "MF0;spine1:MQM8700/U1" lid 5 4xHDR
[41]\t"H-0000000000000b02"[1](b02) \t\t# "Mellanox Technologies Aggregation Node" lid 4 4xHDR

Switch\t41 "S-0000000000000c01"\t\t# "MF0;spine1:MQM8700/U1" enhanced port 0 lid 5 lmc 0
[1]\t"S-0000000000000a01"[40]\t\t# "MF0;rail0-leaf:MQM8700/U1" lid 1 4xHDR
[2]\t"S-0000000000000b01"[40]\t\t# "MF0;rail1-leaf:MQM8700/U1" lid 3 4xHDR
[41]\t"H-0000000000000c02"[1](c02) \t\t# "Mellanox Technologies Aggregation Node" lid 6 4xHDR
"""


def test_rails_and_aggregation_nodes_hand_built():
    tree = fabric_tree(parse_ibnetdiscover(RAILS))
    assert tree["leaves"] == {"rail0-leaf": ["gpu01", "gpu02"], "rail1-leaf": ["gpu01", "gpu02"]}
    assert tree["switches"] == {"spine1": ["rail0-leaf", "rail1-leaf"]}
    assert tree["notes"] == [
        "3 SHARP aggregation node(s) inside switches are not hosts and were left out",
        "2 host(s) have HCAs on several leaf switches and are listed under each (Slurm warns 'Multiple leaf switches "
        "contain nodes'): gpu01, gpu02"]
    assert topology_tree_lines(tree, names("gpu[01-02]"))["lines"] == [
        "SwitchName=rail0-leaf Nodes=gpu[01-02]", "SwitchName=rail1-leaf Nodes=gpu[01-02]",
        "SwitchName=spine1 Switches=rail[0-1]-leaf"]


# --- garbage ---------------------------------------------------------------------------------------

SWITCH_LINE = 'Switch\t2 "S-0021283a8389a0a0" # "Sun DCS 36 QDR switch localhost" enhanced port 0 lid 15 lmc 0'


@pytest.mark.parametrize("text, message", [
    ("", "ibnetdiscover output has no Switch or Ca line (empty, or not ibnetdiscover's output)"),
    ("#\n# Topology file: generated on Sat Apr 13 22:28:55 2002\n\n",
     "ibnetdiscover output has no Switch or Ca line (empty, or not ibnetdiscover's output)"),
    ("hello world\n", "ibnetdiscover line 1: cannot read 'hello world' (not a Switch, Ca or port line of "
                      "ibnetdiscover's default output)"),
    # ibnetdiscover -p (the ports report) is another format
    ("CA    14  2 0x0003ba000100e38a 4x QDR - SW    15 23 0x0021283a8389a0a0 ( 'nsn33-43 HCA-1' - 'Sun DCS 36' )\n",
     # white space runs as one space, cut after 80 characters
     "ibnetdiscover line 1: cannot read \"CA 14 2 0x0003ba000100e38a 4x QDR - SW 15 23 0x0021283a8389a0a0 ( 'nsn33-43 "
     "HCA-...\" (not a Switch, Ca or port line of ibnetdiscover's default output)"),
    ('[23]\t"H-0003ba000100e388"[2](3ba000100e38a) # "nsn33-43 HCA-1" lid 14 4xQDR\n',
     "ibnetdiscover line 1: a port line outside a Switch or Ca block: "
     "'[23] \"H-0003ba000100e388\"[2](3ba000100e38a) # \"nsn33-43 HCA-1\" lid 14 4xQDR'"),
    (SWITCH_LINE + '\n[3]\t"H-0003ba000100e388"[2](3ba000100e38a) # "nsn33-43 HCA-1" lid 14 4xQDR\n',
     "ibnetdiscover line 2: port 3 of S-0021283a8389a0a0, which has 2 ports"),
    (SWITCH_LINE + '\n[1]\t"H-0003ba000100e388"[2] # "a"\n[1]\t"H-0003ba000100e389"[1] # "b"\n',
     "ibnetdiscover line 3: port 1 of S-0021283a8389a0a0 is listed twice"),
    (SWITCH_LINE + "\n" + SWITCH_LINE + "\n", "ibnetdiscover line 2: S-0021283a8389a0a0 is listed twice (first on line 1)"),
    ('Ca\t1 "S-0021283a8389a0a0" # "x"\n', "ibnetdiscover line 1: a Ca line names S-0021283a8389a0a0"),
    ('Switch\t0 "S-0021283a8389a0a0" # "x"\n',
     "ibnetdiscover line 1: Switch S-0021283a8389a0a0 has 0 ports; a node has 1 to 254"),
    (SWITCH_LINE + '\n[1]\t"H-0003ba000100e388"[0] # "a"\n',
     "ibnetdiscover line 2: peer port 0; a port is numbered 1 to 254"),
    # a GUID of 15 hex digits (ibnetdiscover prints 16)
    ('Switch\t36 "S-021283a8389a0a0" # "x"\n', "ibnetdiscover line 1: cannot read 'Switch 36 \"S-021283a8389a0a0\" # "
                                               "\"x\"' (not a Switch, Ca or port line of ibnetdiscover's default output)"),
    (b"\x89PNG\r\n\x1a\n", "ibnetdiscover line 2: control character 0x1a: this is not ibnetdiscover's text output"),
    (42, "ibnetdiscover output must be text, got int"),
    (None, "ibnetdiscover output must be text, got NoneType"),
])
def test_garbage_is_a_clear_error(text, message):
    with pytest.raises(ValueError) as err:
        parse_ibnetdiscover(text)
    assert isinstance(err.value, TopologyError)
    assert str(err.value) == message


def test_a_capture_twice_names_the_second_listing():
    text = fixture(ORACLE)
    with pytest.raises(TopologyError) as err:
        parse_ibnetdiscover(text + text)
    # 18 lines; the Switch line is line 10, so 28 in the second copy.
    assert str(err.value) == "ibnetdiscover line 28: S-0021283a8389a0a0 is listed twice (first on line 10)"


def test_bytes_and_crlf_are_read():
    text = fixture(ORACLE)
    assert parse_ibnetdiscover(text.replace("\n", "\r\n").encode("utf-8")) == parse_ibnetdiscover(text)


# --- the tree from the inventory -------------------------------------------------------------------


def test_inventory_tree_three_levels():
    tree = tree_from_inventory(
        {"gpu01": "rack1", "gpu02": "rack1", "gpu03": "rack2", "gpu04.example.org": "rack2", "gpu05": "rack3"},
        {"rack1": "row1", "rack2": "row1", "rack3": "row2", "row1": "core", "row2": "core"})
    assert tree["leaves"] == {"rack1": ["gpu01", "gpu02"], "rack2": ["gpu03", "gpu04.example.org"], "rack3": ["gpu05"]}
    assert tree["switches"] == {"row1": ["rack1", "rack2"], "row2": ["rack3"], "core": ["row1", "row2"]}
    assert tree["levels"] == {"rack1": 0, "rack2": 0, "rack3": 0, "row1": 1, "row2": 1, "core": 2}
    result = topology_tree_lines(tree, {"gpu01": "gpu01", "gpu02": "gpu02", "gpu03": "gpu03",
                                        "gpu04.example.org": "gpu04", "gpu06": "gpu06"})
    assert result["lines"] == ["SwitchName=rack1 Nodes=gpu[01-02]", "SwitchName=rack2 Nodes=gpu[03-04]",
                               "SwitchName=row1 Switches=rack[1-2]", "SwitchName=core Switches=row1"]
    assert result["missing"] == [{"node": "gpu06", "host": "gpu06",
                                  "reason": "not in node_switches (no leaf switch or rack given for it)"}]
    # gpu05 is no Slurm node: rack3 holds none and row2 nothing below it.
    assert result["notes"] == ["1 host(s) of the tree are no Slurm node and were left out: gpu05",
                               "1 leaf switch(es) have no Slurm node and were left out: rack3"]


@pytest.mark.parametrize("nodes, parents, message", [
    ({"gpu01": "rack 1"}, None, "node_switches['gpu01']: 'rack 1' is not a name Slurm reads as one hostlist item "
                                "(letters, digits, '_' and '-', up to 64, starting with a letter or digit)"),
    ({"gpu01": "rack1"}, {"rack1": "rack1"}, "switch_parents[rack1]: rack1 has nodes (node_switches) and so is a leaf "
                                             "switch; Slurm ignores the children of a leaf switch"),
    ({"gpu01": "rack1", "gpu02": "rack2"}, {"rack1": "rack2"},
     "switch_parents[rack1]: rack2 has nodes (node_switches) and so is a leaf switch; Slurm ignores the children of "
     "a leaf switch"),
    ({"gpu01": "rack1"}, {"rack1": "a", "a": "b", "b": "a"}, "switch_parents: switch a is its own ancestor (a -> b -> a)"),
    ({"gpu01": "rack1"}, {"rakc1": "spine"},
     "switch_parents: rakc1 is neither a leaf switch of node_switches nor the parent of a switch"),
    (["gpu01"], None, "node_switches must be a mapping, got list"),
])
def test_inventory_tree_errors(nodes, parents, message):
    with pytest.raises(TopologyError) as err:
        tree_from_inventory(nodes, parents)
    assert str(err.value) == message


# --- NVLink domains and topology/block ------------------------------------------------------------

H100_FABRIC_NA = ("<fabric>\n\t\t\t<state>N/A</state>\n\t\t\t<status>N/A</status>\n\t\t\t<cliqueId>N/A</cliqueId>"
                  "\n\t\t\t<clusterUuid>N/A</clusterUuid>")
UUID_A = "6a8d1c8f-3f5e-4c1b-9b0a-2d7e1f4c5a90"


def h100(state=None, status=None, clique=None, uuid=None):
    """gpu_facts' view of the project's H100 capture: as captured (fabric N/A), or DOCTORED with fabric values."""
    text = fixture(H100_580)
    if state is not None:
        assert H100_FABRIC_NA in text
        text = text.replace(H100_FABRIC_NA, "<fabric><state>%s</state><status>%s</status><cliqueId>%s</cliqueId>"
                                            "<clusterUuid>%s</clusterUuid>" % (state, status, clique, uuid))
    return parse_smi_xml(text)


def test_h100_pcie_or_sxm_without_nvlink_fabric_is_in_no_domain():
    assert h100()["gpus"][0]["fabric"] is None
    assert nvlink_domains({"h100": h100()}) == {"blocks": [], "unplaced": {
        "h100": "its GPUs report no NVLink fabric (fabric state N/A: not a multi-node NVLink system)"}}


def domain_facts():
    two = h100("Completed", "Success", "2", UUID_A)
    mixed = dict(two, gpus=two["gpus"] + h100("Completed", "Success", "1", UUID_A)["gpus"])
    return {
        "gb03": two, "gb04": two,
        "gb01": h100("Completed", "Success", "1", UUID_A), "gb02": h100("Completed", "Success", "1", UUID_A),
        "gb05": h100("In Progress", "N/A", "N/A", "N/A"),
        "gb06": mixed,
        "h100": h100(),
        "cpu01": {"status": "no_driver", "gpus": []},
    }


def test_nvlink_domains():
    result = nvlink_domains(domain_facts())
    assert result["blocks"] == [{"name": "b1", "domain": UUID_A + "/1", "hosts": ["gb01", "gb02"]},
                                {"name": "b2", "domain": UUID_A + "/2", "hosts": ["gb03", "gb04"]}]
    assert result["unplaced"] == {
        "gb05": "GPU 0: NVLink fabric state 'In Progress', status N/A (not registered in the NVLink domain yet)",
        "gb06": "its GPUs are in 2 NVLink domains (%s/1, %s/2)" % (UUID_A, UUID_A),
        "h100": "its GPUs report no NVLink fabric (fabric state N/A: not a multi-node NVLink system)",
        "cpu01": "no GPUs in its gpu_facts (gpuops_gpus)",
    }


def test_block_lines_from_nvlink_domains():
    domains = nvlink_domains(domain_facts())
    nodes = names("gb[01-06],h100")
    result = topology_block_lines(domains["blocks"], nodes, series="24.11", unplaced=domains["unplaced"])
    assert result["lines"] == ["BlockName=b1 Nodes=gb[01-02]", "BlockName=b2 Nodes=gb[03-04]"]
    assert result["missing"] == [
        {"node": "gb05", "host": "gb05", "reason": "in no block: GPU 0: NVLink fabric state 'In Progress', status N/A "
                                                   "(not registered in the NVLink domain yet)"},
        {"node": "gb06", "host": "gb06", "reason": "in no block: its GPUs are in 2 NVLink domains (%s/1, %s/2)"
                                                   % (UUID_A, UUID_A)},
        {"node": "h100", "host": "h100", "reason": "in no block: its GPUs report no NVLink fabric (fabric state N/A: "
                                                   "not a multi-node NVLink system)"}]
    assert result["notes"] == []


RACKS = {"rack1": ["n01", "n02", "n03"], "rack2": ["n04", "n05"]}


@pytest.mark.parametrize("series, block_sizes, lines, notes", [
    ("24.11", None, ["BlockName=rack1 Nodes=n[01-03]", "BlockName=rack2 Nodes=n[04-05]", "BlockSizes=2,4,8,16,32"],
     ["blocks hold 3, 2 nodes: BlockSizes=2,4,8,16,32 is written so that the smallest block is the base block (Slurm "
      "24.11 takes the first block's size otherwise and stops on smaller ones)"]),
    ("24.05", [2, 4], ["BlockName=rack1 Nodes=n[01-03]", "BlockName=rack2 Nodes=n[04-05]", "BlockSizes=2,4"], []),
    ("24.11", "2,8", ["BlockName=rack1 Nodes=n[01-03]", "BlockName=rack2 Nodes=n[04-05]", "BlockSizes=2,8"], []),
    ("25.05", None, ["BlockName=rack1 Nodes=n[01-03]", "BlockName=rack2 Nodes=n[04-05]"], []),
    ("26.05", [4, 8], ["BlockName=rack1 Nodes=n[01-03]", "BlockName=rack2 Nodes=n[04-05]", "BlockSizes=4,8"], []),
])
def test_block_lines_per_release(series, block_sizes, lines, notes):
    result = topology_block_lines(RACKS, names("n[01-05]"), block_sizes, series)
    assert (result["lines"], result["notes"], result["missing"]) == (lines, notes, [])


def test_block_lines_23_11_equal_blocks():
    result = topology_block_lines({"r1": ["n01", "n02"], "r2": ["n03", "n04"]}, names("n[01-05]"), series="23.11")
    assert result["lines"] == ["BlockName=r1 Nodes=n[01-02]", "BlockName=r2 Nodes=n[03-04]"]
    assert result["missing"] == [{"node": "n05", "host": "n05",
                                  "reason": "in no block (no NVLink domain and no inventory block names it)"}]


@pytest.mark.parametrize("blocks, series, block_sizes, message", [
    (RACKS, "23.11", None, "Slurm 23.11 needs every block to hold the same number of nodes (it stops with 'children "
                           "count no equal bblock_node_cnt'); these hold 3, 2"),
    (RACKS, "23.11", [3], "block_sizes (BlockSizes) needs Slurm 24.05 or later; Slurm 23.11 reads BlockLevels"),
    (RACKS, "22.05", None, "topology/block needs Slurm 23.11 or later; this is Slurm 22.05"),
    (RACKS, "24.11", [4], "block_sizes: the base block size 4 is larger than the smallest block (2 nodes); Slurm "
                          "24.11 stops with 'children count lower than bblock_node_cnt'"),
    (RACKS, "24.11", [2, 6], "block_sizes [2, 6]: each value must be the first (2) times a power of two up to 2^15; "
                             "Slurm stops with 'Invalid BlockSizes value'"),
    (RACKS, "24.11", [0], "block_sizes: 0 is not a node count (1 to 1000000)"),
    (RACKS, "24.11", [True], "block_sizes: True is not a node count (1 to 1000000)"),
    (RACKS, "24.11", {"a": 1}, "block_sizes must be a list of node counts such as [18, 36], got {'a': 1}"),
    ({"rack 1": ["n01"]}, "24.11", None, "blocks: 'rack 1' is not a name Slurm reads as one hostlist item (letters, "
                                         "digits, '_' and '-', up to 64, starting with a letter or digit)"),
    ({"r1": ["n01"], "r2": ["n01"]}, "24.11", None, "blocks: host n01 is in both r1 and r2"),
    ({"r1": "n01"}, "24.11", None, "blocks[r1]: the hosts must be a list of host names"),
    ({"r1": ["x01"]}, "24.11", None, "no block holds a Slurm node"),
])
def test_block_errors(blocks, series, block_sizes, message):
    with pytest.raises(TopologyError) as err:
        topology_block_lines(blocks, names("n[01-05]"), block_sizes, series)
    assert str(err.value) == message


# --- choose_topology_plugin -------------------------------------------------------------------------


@pytest.mark.parametrize("series, with_both, tree_only, blocks_only, neither", [
    ("22.05", "topology/tree", "topology/tree", "topology/none", "topology/none"),
    ("23.11", "topology/block", "topology/tree", "topology/block", "topology/default"),
    ("24.11", "topology/block", "topology/tree", "topology/block", "topology/default"),
    ("26.05", "topology/block", "topology/tree", "topology/block", "topology/flat"),
])
def test_plugin_per_release(series, with_both, tree_only, blocks_only, neither):
    assert [choose_topology_plugin(series, tree, blocks)[0]
            for tree, blocks in ((True, True), (True, False), (False, True), (False, False))] == [
        with_both, tree_only, blocks_only, neither]


@pytest.mark.parametrize("series, tree, blocks, reason", [
    ("22.05", True, True, "topology/tree: the switch tree is known. The NVLink blocks need topology/block, which "
                          "Slurm 22.05 lacks (23.11 and later have it)."),
    ("22.05", False, False, "topology/none: no switch tree is known. No NVLink block is known either."),
    ("24.11.5", True, True, "topology/block: Slurm 24.11 has it (since 23.11) and the NVLink domains or inventory "
                            "blocks give the blocks. The switch tree is not written: slurm.conf names one topology "
                            "plugin."),
    ("26.05", True, False, "topology/tree: the switch tree is known."),
])
def test_plugin_reasons(series, tree, blocks, reason):
    assert choose_topology_plugin(series, tree, blocks)[1] == reason


@pytest.mark.parametrize("series, requested, plugin", [
    ("23.11", "block", "topology/block"),
    ("24.11", "topology/tree", "topology/tree"),
    ("22.05", "flat", "topology/none"),
    ("24.11", "none", "topology/default"),
    ("26.05", "default", "topology/flat"),
    ("26.05", "auto", "topology/block"),
    ("26.05", None, "topology/block"),
])
def test_requested_plugin(series, requested, plugin):
    assert choose_topology_plugin(series, True, True, requested)[0] == plugin


@pytest.mark.parametrize("series, tree, blocks, requested, message", [
    ("22.05", True, True, "block", "topology/block was requested, but Slurm 22.05 does not have it (23.11 and later "
                                   "do); request tree, flat or auto"),
    ("24.11", True, False, "block", "topology/block was requested, but no NVLink domain or inventory block is known"),
    ("24.11", False, True, "tree", "topology/tree was requested, but no switch tree is known (no ibnetdiscover output "
                                   "and no node_switches)"),
    ("24.11", True, True, "topology/3d_torus", "topology plugin 'topology/3d_torus' is not one this collection "
                                               "writes; use auto, tree, block or flat"),
    ("slurm", True, True, "auto", "cannot read a Slurm release from 'slurm'; give it as '24.11' or '24.11.5'"),
    (24.11, True, True, "auto", "cannot read a Slurm release from 24.11; give it as '24.11' or '24.11.5'"),
])
def test_requested_plugin_errors(series, tree, blocks, requested, message):
    with pytest.raises(TopologyError) as err:
        choose_topology_plugin(series, tree, blocks, requested)
    assert str(err.value) == message


# --- topology_plan ------------------------------------------------------------------------------------


def test_plan_from_the_fabric():
    plan = topology_plan(names(X5_ALL), "24.11", {"ibnetdiscover": fixture(X5), "ca_hosts": x5_map()})
    assert (plan["plugin"], plan["errors"], plan["missing"]) == ("topology/tree", [], [])
    assert plan["reason"] == "topology/tree: the switch tree is known."
    assert plan["lines"][0] == "SwitchName=4036-8BBA Nodes=" + X5_8BBA and len(plan["lines"]) == 11


def test_plan_blocks_win_over_the_fabric_on_24_11_not_on_22_05():
    settings = {"ibnetdiscover": fixture(NVIDIA_KB), "gpus": domain_facts()}
    nodes = names("gb[01-06],h100,r-ufm[96,100-101,111,216]")
    plan = topology_plan(nodes, "24.11", settings)
    assert plan["plugin"] == "topology/block"
    assert plan["lines"] == ["BlockName=b1 Nodes=gb[01-02]", "BlockName=b2 Nodes=gb[03-04]"]
    assert [entry["node"] for entry in plan["missing"]] == ["gb05", "gb06", "h100"] + expand("r-ufm[96,100-101,111,216]")
    plan = topology_plan(nodes, "22.05", settings)
    assert plan["plugin"] == "topology/tree"
    assert plan["lines"] == ["SwitchName=S-e41d2d030003e470 Nodes=r-ufm[111,216]",
                             "SwitchName=switch-de779e Nodes=r-ufm[96,100-101]"]
    assert [entry["node"] for entry in plan["missing"]] == expand("gb[01-06],h100")


def test_plan_inventory_wins_and_flat_without_topology():
    plan = topology_plan({"gpu01": "gpu01"}, "26.05", {"ibnetdiscover": fixture(IBM), "node_switches": {"gpu01": "r1"}})
    assert (plan["plugin"], plan["lines"]) == ("topology/tree", ["SwitchName=r1 Nodes=gpu01"])
    assert plan["notes"] == ["node_switches is given: the inventory's tree is used, not the ibnetdiscover output"]
    plan = topology_plan({"gpu01": "gpu01"}, "26.05", {})
    assert plan == {"plugin": "topology/flat", "reason": "topology/flat: no switch tree is known. No NVLink block is "
                                                         "known either.",
                    "lines": [], "missing": [], "notes": [], "errors": []}


def test_plan_fabric_without_host_names_is_not_used():
    plan = topology_plan(names(X5_ALL), "24.11", {"ibnetdiscover": fixture(X5)})
    assert (plan["plugin"], plan["lines"], plan["errors"]) == ("topology/default", [], [])
    assert plan["notes"][0].startswith("89 HCA(s) have no host name")
    assert plan["notes"][-1] == "the switch tree is not used: no leaf switch holds a named host"


@pytest.mark.parametrize("settings, series, error", [
    ({"ibnetdiscover": "garbage\n"}, "24.11", "ibnetdiscover line 1: cannot read 'garbage' (not a Switch, Ca or port "
                                              "line of ibnetdiscover's default output)"),
    ({"ibnetdiscovr": "x"}, "24.11", "settings: unknown key(s) ibnetdiscovr; known: ibnetdiscover, ca_hosts, "
                                     "node_switches, switch_parents, blocks, gpus, block_sizes, plugin"),
    ({"node_switches": {"n01": "r1"}, "plugin": "block"}, "24.11",
     "topology/block was requested, but no NVLink domain or inventory block is known"),
    ({"blocks": RACKS}, "23.11", "Slurm 23.11 needs every block to hold the same number of nodes (it stops with "
                                 "'children count no equal bblock_node_cnt'); these hold 3, 2"),
    ([], "24.11", "settings must be a mapping, got list"),
])
def test_plan_errors_are_returned(settings, series, error):
    plan = topology_plan(names("n[01-05]"), series, settings)
    assert plan == {"plugin": None, "reason": None, "lines": [], "missing": [], "notes": [], "errors": [error]}
