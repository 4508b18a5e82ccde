# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where a node's description comes from when a run has no fresh facts of it (module_utils/slurm/_node_sources.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._node_sources import (
    NodeSourceError,
    down_limit,
    node_source,
    parse_node_records,
    removal_errors,
    running_files,
)

CONF = """# Nodes
NodeName=DEFAULT Weight=7
NodeName=gpu[01-02] CPUs=64 Sockets=2 CoresPerSocket=16 ThreadsPerCore=2 RealMemory=500000 Gres=gpu:h100:8 State=UNKNOWN
NodeName=cpu01 NodeAddr=10.0.0.9 CPUs=8 RealMemory=30000 Features=a,b Weight=3 State=UNKNOWN
NodeName=bad[ CPUs=1
PartitionName=main Nodes=ALL
"""
GRES = """AutoDetect=off
NodeName=gpu[01-02] Name=gpu Type=h100 File=/dev/nvidia[0-7] Cores=0-31
"""


def test_records_read_back_what_the_model_writes():
    records = parse_node_records(CONF, GRES)
    assert sorted(records) == ["cpu01", "gpu01", "gpu02"]
    assert records["gpu02"] == {"cpus": 64, "sockets": 2, "cores_per_socket": 16, "threads_per_core": 2,
                                "real_memory": 500000, "weight": 7, "gres_value": "gpu:h100:8", "gpu_count": 8,
                                "features": [], "addr": "",
                                "gres_lines": ["Name=gpu Type=h100 File=/dev/nvidia[0-7] Cores=0-31"]}
    assert records["cpu01"]["addr"] == "10.0.0.9" and records["cpu01"]["features"] == ["a", "b"]
    assert records["cpu01"]["weight"] == 3 and records["cpu01"]["gres_lines"] == []


@pytest.mark.parametrize("in_run, facts, record, source", [
    (True, True, True, "facts"),
    (True, True, False, "facts"),
    (False, True, True, "running"),     # a node nobody looked at never changes
    (True, False, True, "running"),     # in the run, but failed before its facts
    (False, True, False, "cached"),
    (False, False, False, "none"),
])
def test_node_source(in_run, facts, record, source):
    assert node_source(in_run, facts, record) == source


@pytest.mark.parametrize("total, pct, limit", [(2, 10, 1), (4, 25, 1), (8, 25, 2), (1000, 10, 100), (4, 0, 0), (0, 10, 0)])
def test_down_limit(total, pct, limit):
    assert down_limit(total, pct) == limit


def test_removal_errors():
    records = parse_node_records(CONF)
    assert removal_errors([], {"gpu01"}, records) == ([], [])
    errors, warnings = removal_errors(["gpu02", "cpu01", "gpu09"], {"gpu02"}, records)
    assert len(errors) == 1 and "gpu02" in errors[0] and len(warnings) == 1 and "gpu09" in warnings[0]


def test_removal_errors_refuse_an_image_node_still_declared():
    # An image node is no inventory host, and the running slurm.conf may not have it yet: still declared, it stays.
    errors, warnings = removal_errors(["img2", "img3", "gpu09"], {"gpu01"}, parse_node_records(CONF), {"img2", "img3"})
    assert errors == ["slurm_remove_nodes names img[2-3], still declared in slurm_image_nodes: take the node out of "
                      "slurm_image_nodes as well, or take it out of slurm_remove_nodes."]
    assert warnings == ["slurm_remove_nodes names gpu09, which the running slurm.conf does not have: nothing to remove."]


@given(st.one_of(st.text(), st.binary().map(lambda data: data.decode("latin-1")),
                 st.lists(st.sampled_from(["NodeName=", "gpu[01-", "CPUs=", "99999999999999999", "DEFAULT", "\n",
                                           " ", "=", "Gres=gpu:x:", "RealMemory=", "#", "NodeAddr="])).map("".join)),
       st.text())
def test_records_never_raise_on_garbage(conf, gres):
    records = parse_node_records(conf, gres)
    assert isinstance(records, dict)


@pytest.mark.parametrize("conf, gres", [(1, ""), ("", 2), ([], None)])
def test_records_of_a_wrong_shape_are_its_error(conf, gres):
    with pytest.raises(NodeSourceError):
        parse_node_records(conf, gres)


_CONF = "NodeName=gpu01 CPUs=8\n"
_B64 = base64.b64encode(_CONF.encode()).decode()


@pytest.mark.parametrize("slurped, probe, expected", [
    pytest.param({"results": [{"item": "slurm.conf", "content": _B64}, {"item": "gres.conf", "failed": True}]}, {},
                 {"slurm.conf": _CONF, "gres.conf": ""}, id="slurped-a-missing-gres-conf-is-empty"),
    pytest.param({"skipped": True}, {"/etc/slurm/slurm.conf": _B64}, {"slurm.conf": _CONF, "gres.conf": ""},
                 id="skipped-the-probe-gives-them"),
    pytest.param({"results": [{"item": "slurm.conf", "unreachable": True}]}, {"/etc/slurm/slurm.conf": _B64},
                 {"slurm.conf": "", "gres.conf": ""}, id="unreachable-nothing-known"),
    pytest.param(None, None, {"slurm.conf": "", "gres.conf": ""}, id="nothing"),
    pytest.param({"results": [{"item": "slurm.conf", "content": "not base64!"}]}, {},
                 {"slurm.conf": "", "gres.conf": ""}, id="garbage-content"),
    pytest.param({"results": "garbage"}, {"/etc/slurm/slurm.conf": 7}, {"slurm.conf": "", "gres.conf": ""},
                 id="garbage-shapes"),
])
def test_running_files_come_from_the_slurp_or_the_probe(slurped, probe, expected):
    assert running_files(slurped, probe, "/etc/slurm/", ["slurm.conf", "gres.conf"]) == expected


@given(st.one_of(st.none(), st.text(), st.dictionaries(st.text(max_size=8), st.one_of(st.text(), st.integers(), st.none()))),
       st.one_of(st.none(), st.text(), st.dictionaries(st.text(max_size=30), st.one_of(st.text(), st.binary()))))
def test_running_files_never_raise(slurped, probe):
    result = running_files(slurped, probe, "/etc/slurm", ["slurm.conf"])
    assert set(result) == {"slurm.conf"} and isinstance(result["slurm.conf"], str)
