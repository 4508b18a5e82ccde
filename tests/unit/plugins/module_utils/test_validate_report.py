# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Summary, ordering, escaping and drawings of the validation report.

The topologies come from the collection's real captures through its own parsers
(tests/fixtures/GPU_SOURCES.md, IB_SOURCES.md).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import json
import os
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import pytest

from ansible_collections.gpuops.cluster.plugins.module_utils.gpu._gpu_facts import build_facts, parse_smi_xml, parse_topo
from ansible_collections.gpuops.cluster.plugins.module_utils.fabric._ib_facts import build_facts as build_ib_facts
from ansible_collections.gpuops.cluster.plugins.module_utils.fabric._ib_facts import parse_ibstat
from ansible_collections.gpuops.cluster.plugins.module_utils.validate._validate_report import (
    ReportError,
    check_results,
    compact,
    generated_at_of,
    node_summaries,
    render_html,
    results_json,
    short_gpu_name,
    sort_results,
    summarize,
    topology_svg,
)

FIXTURES = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures"))
SVG_NS = "{http://www.w3.org/2000/svg}"
NASTY = "<script>alert('x')</script>"
NASTY_NODE = "n<1>&\"'"


def fixture(*parts):
    with open(os.path.join(FIXTURES, *parts)) as handle:
        return handle.read()


# Two machines per GPU topology, as in test_gpu_facts: the 8x V100S -q -x with the topo of another 8-GPU box.
V100S_XML = parse_smi_xml(fixture("nvidia-smi-xml", "datakit_8x-tesla-v100s-pcie-32gb.xml"))
H100_NVSWITCHES = ["0000:05:00.0", "0000:06:00.0", "0000:07:00.0", "0000:08:00.0"]


def gpus_with(topo_name):
    facts, _warnings = build_facts(V100S_XML, parse_topo(fixture("nvidia-smi-topo", topo_name)))
    return facts["gpus"]


def ib(name):
    hcas, _failed = parse_ibstat(fixture("ibstat", name))
    return build_ib_facts(hcas)


def hgx_h100():
    """8 GPUs NV18 all-to-all, 4 NVSwitches, 8 Active 400G IB ports (NCCL's), 1 Active RoCE, 3 Down RoCE."""
    facts = ib("gpud_h100_8xIB-4xRoCE_3down.txt")
    return {"gpus": gpus_with("sglang30401_8xH100_NV18_8nic.txt"), "nvswitches": list(H100_NVSWITCHES),
            "hcas": facts["hcas"], "selected": facts["selected"]}


def dgx1_no_hca():
    """8 GPUs, hybrid cube mesh (NV1/NV2, 16 of 28 pairs), no NUMA column, no NVSwitch, no HCA."""
    return {"gpus": gpus_with("pytorch-ddp-readme_DGX1-8xV100_NV1-NV2_4xIB_oldformat.txt"), "nvswitches": [],
            "hcas": [], "selected": []}


def result(node, check, status, measured=None, expected=None, message=""):
    return {"node": node, "check": check, "status": status, "measured": measured, "expected": expected,
            "message": message}


RESULTS = [
    result("node10", "gpu_count", "pass", 8, 8, "8 GPUs"),
    result("node2", "gpu_count", "fail", 7, 8, "GPU 3 missing"),
    result("node2", "driver_loaded", "pass", "550.54.15", "550.54.15"),
    result("cluster", "allreduce_multi_node", "not_run", None, 350.5, "skipped: node2 failed"),
    result("node10", "slurmd_gres", "fail", ["gpu:8"], {"gres": "gpu:h100:8"}, "wrong type"),
    result("cluster", "slurm_partition", "fail", "down", "up", "partition down"),
    result("node1", "allreduce_single_node", "pass", 361.2, 350, "busbw 361.2 GB/s"),
]


# --------------------------------------------------------------------------
# Summary and ordering

def test_summarize():
    assert summarize(RESULTS) == {"total": 7, "pass": 3, "fail": 3, "not_run": 1, "status": "fail",
                                  "failed_nodes": ["node2", "node10"]}


def test_summarize_pass_and_empty():
    assert summarize([result("a", "x", "pass"), result("cluster", "y", "not_run")]) == {
        "total": 2, "pass": 1, "fail": 0, "not_run": 1, "status": "pass", "failed_nodes": []}
    assert summarize([]) == {"total": 0, "pass": 0, "fail": 0, "not_run": 0, "status": "pass", "failed_nodes": []}


def test_cluster_failure_fails_without_naming_a_node():
    assert summarize([result("cluster", "nccl", "fail")])["failed_nodes"] == []
    assert summarize([result("cluster", "nccl", "fail")])["status"] == "fail"


def test_sort_failures_first_then_node_then_check():
    ordered = [(r["status"], r["node"], r["check"]) for r in sort_results(RESULTS)]
    assert ordered == [
        ("fail", "cluster", "slurm_partition"),
        ("fail", "node2", "gpu_count"),
        ("fail", "node10", "slurmd_gres"),
        ("not_run", "cluster", "allreduce_multi_node"),
        ("pass", "node1", "allreduce_single_node"),
        ("pass", "node2", "driver_loaded"),
        ("pass", "node10", "gpu_count"),
    ]


def test_sort_is_stable_for_equal_keys():
    first, second = result("a", "x", "pass", message="1"), result("a", "x", "pass", message="2")
    assert sort_results([first, second]) == [first, second]
    assert sort_results([second, first]) == [second, first]


def test_node_summaries():
    assert node_summaries(RESULTS, ["node3"]) == [
        {"node": "cluster", "pass": 0, "fail": 1, "not_run": 1, "status": "fail"},
        {"node": "node1", "pass": 1, "fail": 0, "not_run": 0, "status": "pass"},
        {"node": "node2", "pass": 1, "fail": 1, "not_run": 0, "status": "fail"},
        {"node": "node3", "pass": 0, "fail": 0, "not_run": 0, "status": "not_run"},
        {"node": "node10", "pass": 1, "fail": 1, "not_run": 0, "status": "fail"},
    ]


def test_results_json_sorted_indented_with_newline():
    text = results_json(RESULTS)
    assert text.endswith("}\n]\n")
    assert json.loads(text) == sort_results(RESULTS)
    assert text.startswith('[\n  {\n    "check": "slurm_partition",\n')


@pytest.mark.parametrize("value, text", [
    (None, u"\u2013"),
    (8, "8"),
    (361.25, "361.25"),
    (True, "true"),
    ("550.54.15", "550.54.15"),
    ([1, "a", None], '[1,"a",null]'),
    ({"b": 1, "a": [2]}, '{"a":[2],"b":1}'),
    ([], "[]"),
])
def test_compact(value, text):
    assert compact(value) == text


@pytest.mark.parametrize("name, short", [
    ("NVIDIA H100 80GB HBM3", "H100 80GB HBM3"),
    ("Tesla V100S-PCIE-32GB", "V100S-PCIE-32GB"),
    ("NVIDIA GeForce RTX 3080", "RTX 3080"),
    ("Quadro P2000", "Quadro P2000"),
    (None, "?"),
])
def test_short_gpu_name(name, short):
    assert short_gpu_name(name) == short


# --------------------------------------------------------------------------
# Validation

@pytest.mark.parametrize("results, message", [
    ({"node": "a"}, "results must be a list, got dict"),
    ([result("a", "x", "pass"), "oops"], "results[1] must be a dict, got str"),
    ([{"node": "a", "check": "x", "status": "pass"}], "results[0]: missing key(s) measured, expected, message"),
    ([dict(result("a", "x", "pass"), extra=1, host="h")], "results[0]: unknown key(s) extra, host"),
    ([{"node": "a", "check": "x", "status": "pass", "measured": 1, "expected": 1, "msg": ""}],
     "results[0]: missing key(s) message; unknown key(s) msg"),
    ([result("a", "x", "pass"), result(3, "x", "pass")], "results[1]: node must be a string, got int"),
    ([result("a", None, "pass")], "results[0]: check must be a string, got NoneType"),
    ([result("a", "x", "pass", message=["m"])], "results[0]: message must be a string, got list"),
    ([result(" ", "x", "pass")], "results[0]: node is empty"),
    ([result("a", "", "pass")], "results[0]: check is empty"),
    ([result("a", "x", "ok")], "results[0] ('a' 'x'): status 'ok' is not one of pass, fail, not_run"),
    ([result("a", "x", "PASS")], "results[0] ('a' 'x'): status 'PASS' is not one of pass, fail, not_run"),
    ([result("a", "x", None)], "results[0] ('a' 'x'): status None is not one of pass, fail, not_run"),
    ([result("a", "x", "pass", measured=object())],
     "results[0] ('a' 'x'): measured is not a JSON value (Object of type object is not JSON serializable)"),
])
def test_check_results_rejects(results, message):
    with pytest.raises(ReportError) as info:
        check_results(results)
    assert str(info.value) == message
    with pytest.raises(ReportError):
        summarize(results)
    with pytest.raises(ReportError):
        render_html(results, {}, "t", "now")


def test_check_results_accepts_any_json_values():
    results = [result("a", "x", "pass", measured=value, expected=value)
               for value in (None, 0, -1.5, "", "text", [], [1, [2]], {}, {"a": {"b": None}}, True)]
    assert check_results(results) is results


# --------------------------------------------------------------------------
# SVG

def parse_svg(text):
    root = ET.fromstring(text)
    assert root.tag == SVG_NS + "svg"
    return root


def texts(root):
    return ["".join(element.itertext()) for element in root.iter(SVG_NS + "text")]


def size(root):
    width, height = int(root.get("width")), int(root.get("height"))
    assert root.get("viewBox") == "0 0 %d %d" % (width, height)
    return width, height


def groups(root, kind):
    return [g for g in root.iter(SVG_NS + "g") if g.get("class") == kind]


def assert_inside(root):
    """Every rect and text starts inside the canvas."""
    width, height = size(root)
    for element in root.iter():
        if element.tag in (SVG_NS + "rect", SVG_NS + "text"):
            x, y = int(element.get("x")), int(element.get("y"))
            assert 0 <= x <= width and 0 <= y <= height, ET.tostring(element)
            if element.tag == SVG_NS + "rect":
                assert x + int(element.get("width")) <= width and y + int(element.get("height")) <= height


def test_svg_hgx_h100_nvswitch_and_ib():
    topology = hgx_h100()
    root = parse_svg(topology_svg("gpu01", topology))
    assert_inside(root)
    labels = texts(root)
    assert labels[:2] == ["gpu01", u"8 GPUs \u00b7 4 NVSwitches \u00b7 NVLink: all 28 pairs \u00b7 12 RDMA ports \u00b7 8 used by NCCL"]
    # All-to-all with NVSwitches: one switch box and one NV18 line per GPU instead of 28 arcs.
    assert "NVSwitch x4" in labels
    assert labels.count("NV18") == 8
    assert len(groups(root, "nvlink")) == 8
    assert root.findall(".//" + SVG_NS + "path") == []
    gpus = groups(root, "gpu")
    assert len(gpus) == 8
    assert list(texts(gpus[0])) == ["GPU 0", "V100S-PCIE-32GB", u"32 GiB \u00b7 00:0D.0", "NUMA 0",
                                    "CPU 0-47,96-143"]
    assert texts(gpus[7])[3:] == ["NUMA 1", "CPU 48-95,144-191"]
    numa = ["".join(g.find(SVG_NS + "text").itertext()) for g in groups(root, "numa")]
    assert numa == ["NUMA 0: CPUs 0-47,96-143", "NUMA 1: CPUs 48-95,144-191"]
    nics = groups(root, "nic")
    assert [texts(nic)[0] for nic in nics] == ["mlx5_%d:1" % i for i in range(12)]
    selected = [texts(nic)[0] for nic in nics if "NCCL" in texts(nic)]
    assert selected == ["mlx5_%d:1" % i for i in (0, 3, 4, 5, 6, 9, 10, 11)]
    nic0 = nics[0]
    assert texts(nic0)[1:3] == ["400 Gb/s InfiniBand", "Active / LinkUp"]
    box = nic0.find(SVG_NS + "rect")
    assert (box.get("fill"), box.get("stroke"), box.get("stroke-width")) == ("#e3f4e1", "#2e7d32", "3")
    # mlx5_1: Active RoCE at 100G, not chosen (IB preferred): green, thin border.
    box = nics[1].find(SVG_NS + "rect")
    assert (box.get("fill"), box.get("stroke-width")) == ("#e3f4e1", "1.2")
    assert texts(nics[1])[1] == "100 Gb/s Ethernet"
    # mlx5_2: Down / Disabled: red.
    assert texts(nics[2])[1:3] == ["40 Gb/s Ethernet", "Down / Disabled"]
    assert nics[2].find(SVG_NS + "rect").get("fill") == "#fbe3e4"
    # GPU PCIe lines to the NUMA boxes plus NIC lines to the host box.
    pcie = [line for line in root.iter(SVG_NS + "line") if line.get("stroke") == "#8a8a8a" and
            line.get("stroke-width") == "2"]
    assert len(pcie) == 8 + 12
    assert size(root) == (12 * 136 + 11 * 12 + 32, size(root)[1])


def test_svg_readable_nvswitch_labels_do_not_overlap():
    root = parse_svg(topology_svg("gpu01", hgx_h100()))
    boxes = []
    for group in groups(root, "nvlink"):
        rect = group.find(SVG_NS + "rect")
        boxes.append((int(rect.get("x")), int(rect.get("x")) + int(rect.get("width"))))
    boxes.sort()
    assert all(right < next_left for (_l, right), (next_left, _r) in zip(boxes, boxes[1:]))


def test_svg_dgx1_partial_nvlink_no_hca():
    root = parse_svg(topology_svg("gpu02", dgx1_no_hca()))
    assert_inside(root)
    labels = texts(root)
    assert labels[1] == u"8 GPUs \u00b7 NVLink: 16 of 28 pairs \u00b7 0 RDMA ports"
    assert "no RDMA ports" in labels
    assert not [label for label in labels if label.startswith("NVSwitch")]
    arcs = groups(root, "nvlink")
    assert len(arcs) == 16
    titles = sorted(g.find(SVG_NS + "title").text for g in arcs)
    # Pairs from the DGX-1 topo (one edge per pair, whatever direction lists it).
    assert "GPU 0 - GPU 3: 2 NVLinks" in titles
    assert "GPU 0 - GPU 1: 1 NVLink" in titles
    assert "GPU 3 - GPU 7: 1 NVLink" in titles
    assert not [t for t in titles if t.startswith("GPU 0 - GPU 5")]
    assert len(set(titles)) == 16
    assert sorted(t for t in texts(root) if re.match(r"NV[0-9]+$", t)) == ["NV1"] * 8 + ["NV2"] * 8
    assert groups(root, "nic") == []
    # No NUMA column in the old topo: one host group with the CPU affinity.
    assert ["".join(g.find(SVG_NS + "text").itertext()) for g in groups(root, "numa")] == ["CPUs 0-19,40-59"]
    assert texts(groups(root, "gpu")[0])[3:] == ["NUMA ?", "CPU 0-19,40-59"]


def test_svg_all_to_all_without_nvswitch_draws_arcs():
    topology = hgx_h100()
    topology["nvswitches"] = []
    root = parse_svg(topology_svg("gpu03", topology))
    assert len(groups(root, "nvlink")) == 28
    assert len(root.findall(".//" + SVG_NS + "path")) == 28


def test_svg_nvswitch_with_a_missing_pair_draws_arcs():
    # A GPU that lost its link to one peer: the drawing shows which pair.
    topology = hgx_h100()
    del topology["gpus"][2]["nvlinks"]["5"]
    del topology["gpus"][5]["nvlinks"]["2"]
    root = parse_svg(topology_svg("gpu01", topology))
    assert len(groups(root, "nvlink")) == 27
    assert "NVSwitch x4" not in texts(root)
    assert u"8 GPUs \u00b7 4 NVSwitches \u00b7 NVLink: 27 of 28 pairs \u00b7 12 RDMA ports \u00b7 8 used by NCCL" in texts(root)


def test_svg_one_direction_of_a_pair_is_enough():
    gpus = [{"index": 0, "name": "A", "nvlinks": {"1": 4}}, {"index": 1, "name": "B", "nvlinks": {}}]
    root = parse_svg(topology_svg("n", {"gpus": gpus}))
    assert [g.find(SVG_NS + "title").text for g in groups(root, "nvlink")] == ["GPU 0 - GPU 1: 4 NVLinks"]


@pytest.mark.parametrize("topology", [{}, {"gpus": [], "nvswitches": [], "hcas": [], "selected": []}, None,
                                      {"gpus": None, "hcas": None}])
def test_svg_cpu_only_node(topology):
    root = parse_svg(topology_svg("ctl1", topology))
    assert_inside(root)
    labels = texts(root)
    assert labels[:2] == ["ctl1", u"0 GPUs \u00b7 0 RDMA ports"]
    assert "no GPUs" in labels and "no RDMA ports" in labels
    assert groups(root, "gpu") == [] and groups(root, "nic") == [] and len(groups(root, "host")) == 1


def test_svg_numa_groups_follow_the_gpus():
    # The EPYC A100 box: GPU0/1 on NUMA 3, GPU2/3 on NUMA 1, GPU4/5 on 7, GPU6/7 on 5.
    topology = {"gpus": gpus_with("oyanghd_8xA100-SXM4-40G_NV12_10nic_tabs.txt"), "nvswitches": H100_NVSWITCHES}
    root = parse_svg(topology_svg("a100", topology))
    numa = ["".join(g.find(SVG_NS + "text").itertext()) for g in groups(root, "numa")]
    assert numa == ["NUMA 3: CPUs 48-63,176-191", "NUMA 1: CPUs 16-31,144-159", "NUMA 7: CPUs 112-127,240-255",
                    "NUMA 5: CPUs 80-95,208-223"]
    assert [texts(g)[0] for g in groups(root, "gpu")] == ["GPU %d" % i for i in range(8)]
    assert texts(root).count("NV12") == 8


def test_svg_is_deterministic_and_sized_from_content():
    topology = hgx_h100()
    first = topology_svg("gpu01", topology)
    assert topology_svg("gpu01", copy.deepcopy(topology)) == first
    # Same content, dicts built in another key order.
    shuffled = copy.deepcopy(topology)
    shuffled["gpus"] = [dict(reversed(list(gpu.items())), nvlinks=dict(reversed(list(gpu["nvlinks"].items()))))
                        for gpu in shuffled["gpus"]]
    assert topology_svg("gpu01", dict(reversed(list(shuffled.items())))) == first
    one_nic = dict(topology, hcas=topology["hcas"][:1])
    assert size(parse_svg(topology_svg("gpu01", one_nic)))[0] < size(parse_svg(first))[0]
    assert size(parse_svg(topology_svg("n", {})))[0] < size(parse_svg(topology_svg("n", dgx1_no_hca())))[0]


def test_svg_escapes_and_has_no_script_or_external_reference():
    topology = hgx_h100()
    topology["gpus"][0]["name"] = NASTY
    topology["gpus"][1]["cpu_affinity"] = "&amp; \"quoted\""
    topology["hcas"][0]["name"] = NASTY_NODE
    topology["hcas"][0]["ports"][0]["netdev"] = "ib\x00<0>"
    topology["selected"] = [NASTY_NODE + ":1"]
    text = topology_svg(NASTY_NODE, topology)
    root = parse_svg(text)
    assert "<script" not in text.lower() and "href" not in text and "http" not in text.replace(
        'xmlns="http://www.w3.org/2000/svg"', "")
    labels = texts(root)
    assert labels[0] == NASTY_NODE
    gpus = groups(root, "gpu")
    assert gpus[0].find(SVG_NS + "title").text.startswith("GPU 0: " + NASTY)
    assert texts(gpus[1])[4] == "CPU &amp; \"quoted\""
    # Natural order puts it last; the only port NCCL uses.
    nic = groups(root, "nic")[-1]
    assert texts(nic)[0] == NASTY_NODE + ":1"
    assert [texts(g)[0] for g in groups(root, "nic") if "NCCL" in texts(g)] == [NASTY_NODE + ":1"]
    assert nic.find(SVG_NS + "title").text.startswith(NASTY_NODE + ":1: Active / LinkUp")
    assert texts(nic)[3] == u"ib\ufffd<0>"


def test_svg_tolerates_garbage_entries():
    topology = {"gpus": ["x", {"index": "two", "nvlinks": {"zz": 3, "1": "NV2", "0": True}}, {}],
                "hcas": [None, {"name": "mlx5_0", "ports": [None, {"port": 1}]}], "selected": "mlx5_0:1",
                "nvswitches": "0000:05:00.0"}
    root = parse_svg(topology_svg(None, topology))
    assert len(groups(root, "gpu")) == 2
    assert [texts(g)[:2] for g in groups(root, "nic")] == [["mlx5_0:1", "? Gb/s ?"]]


# --------------------------------------------------------------------------
# HTML

VOID = frozenset(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"])


class Checker(HTMLParser):
    """Records start tags and text, and fails on an end tag that does not close the open element."""

    def __init__(self):
        HTMLParser.__init__(self, convert_charrefs=True)
        self.stack = []
        self.tags = []
        self.data = []
        self.errors = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append("unexpected </%s>, open: %s" % (tag, self.stack[-3:]))
        else:
            self.stack.pop()

    def handle_data(self, data):
        self.data.append(data)


def parse_html(text):
    checker = Checker()
    checker.feed(text)
    checker.close()
    assert checker.errors == []
    assert checker.stack == []
    return checker


def page(results=None, topologies=None, title="gpuops.cluster validation", generated_at="2026-01-31T12:00:00Z"):
    return render_html(RESULTS if results is None else results,
                       {"gpu01": hgx_h100(), "gpu02": dgx1_no_hca(), "ctl1": {}} if topologies is None else topologies,
                       title, generated_at)


def table_rows(text, table_class):
    """[[cell text...]] of the body rows of the table with that class."""
    start = text.index('<table class="%s">' % table_class)
    body = text[text.index("<tbody>", start):text.index("</tbody>", start)]
    checker = Checker()
    rows = []
    for row in body.split("<tr>")[1:]:
        checker.data = []
        cells = []
        for cell in row.split("</td>")[:-1]:
            checker.data = []
            checker.feed(cell + "</td>")
            cells.append("".join(checker.data))
        rows.append(cells)
    return rows


def test_html_structure():
    text = page()
    assert text.startswith("<!DOCTYPE html>\n<html lang=\"en\">")
    assert text.endswith("</html>\n")
    checker = parse_html(text)
    tags = [tag for tag, _attrs in checker.tags]
    assert "script" not in tags and "link" not in tags and "img" not in tags and "iframe" not in tags
    assert tags.count("svg") == 3 and tags.count("table") == 2 and tags.count("section") == 3
    for tag, attrs in checker.tags:
        assert "src" not in attrs
        assert not any(name.startswith("on") for name in attrs)
        if "href" in attrs:
            assert attrs["href"].startswith("#topology-")
    assert '<p class="generated">Generated <time>2026-01-31T12:00:00Z</time></p>' in text
    assert "<title>gpuops.cluster validation</title>" in text
    assert 'content="default-src &#39;none&#39;; style-src &#39;unsafe-inline&#39;; img-src data:"' in text


def test_html_banner_and_tables():
    text = page()
    assert ('<div class="banner fail"><strong>FAIL</strong>7 checks: 3 passed, 3 failed, 1 not run</div>') in text
    assert '<p class="failed-nodes">Failed nodes: node2, node10</p>' in text
    assert table_rows(text, "summary") == [
        ["cluster", "0", "1", "1", "FAIL"],
        ["ctl1", "0", "0", "0", "NOT RUN"],
        ["gpu01", "0", "0", "0", "NOT RUN"],
        ["gpu02", "0", "0", "0", "NOT RUN"],
        ["node1", "1", "0", "0", "PASS"],
        ["node2", "1", "1", "0", "FAIL"],
        ["node10", "1", "1", "0", "FAIL"],
    ]
    assert table_rows(text, "results") == [
        ["cluster", "slurm_partition", "FAIL", "down", "up", "partition down"],
        ["node2", "gpu_count", "FAIL", "7", "8", "GPU 3 missing"],
        ["node10", "slurmd_gres", "FAIL", '["gpu:8"]', '{"gres":"gpu:h100:8"}', "wrong type"],
        ["cluster", "allreduce_multi_node", "NOT RUN", u"\u2013", "350.5", "skipped: node2 failed"],
        ["node1", "allreduce_single_node", "PASS", "361.2", "350", "busbw 361.2 GB/s"],
        ["node2", "driver_loaded", "PASS", "550.54.15", "550.54.15", ""],
        ["node10", "gpu_count", "PASS", "8", "8", "8 GPUs"],
    ]
    assert '<td class="status-fail">FAIL</td>' in text and '<td class="status-pass">PASS</td>' in text
    assert '<td class="status-not_run">NOT RUN</td>' in text


def test_html_pass_banner():
    text = page(results=[result("gpu01", "gpu_count", "pass", 8, 8)], topologies={})
    assert '<div class="banner pass"><strong>PASS</strong>1 check: 1 passed, 0 failed, 0 not run</div>' in text
    assert '<p class="failed-nodes">' not in text
    assert "<p>No topology was gathered.</p>" in text
    parse_html(text)


def test_html_empty_results():
    text = page(results=[], topologies={})
    assert '<tr><td colspan="6">no results</td></tr>' in text
    assert '<tr><td colspan="5">no nodes</td></tr>' in text
    parse_html(text)


def test_html_topology_sections_in_natural_order_with_anchors():
    text = page(topologies={"gpu10": {}, "gpu9": dgx1_no_hca(), NASTY_NODE: {}})
    sections = [(attrs["id"]) for tag, attrs in parse_html(text).tags if tag == "section"]
    assert sections == ["topology-1", "topology-2", "topology-3"]
    assert text.index("<h3>gpu9</h3>") < text.index("<h3>gpu10</h3>") < text.index("<h3>n&lt;1&gt;&amp;&quot;&#39;</h3>")
    assert '<a href="#topology-1">gpu9</a>' in text


def test_html_escapes_everything():
    results = [
        result(NASTY_NODE, NASTY, "fail", NASTY, {"k": "</td><script>"}, "<script>alert(1)</script>"),
        result("cluster", "check&\"'", "pass", ["<b>"], "&amp;", "a & b < c > d \" e ' f"),
    ]
    topology = hgx_h100()
    topology["gpus"][0]["name"] = NASTY
    topology["hcas"][1]["name"] = "mlx5_<1>"
    text = page(results=results, topologies={NASTY_NODE: topology}, title="T<i>&\"'",
                generated_at="<b>now</b>")
    assert "<script" not in text.lower()
    assert "<b>" not in text and "<i>" not in text
    checker = parse_html(text)
    data = "".join(checker.data)
    for raw in (NASTY, "<script>alert(1)</script>", NASTY_NODE, "check&\"'", '["<b>"]', '{"k":"</td><script>"}',
                "&amp;", "a & b < c > d \" e ' f", "T<i>&\"'", "<b>now</b>", "mlx5_<1>:1"):
        assert raw in data, raw
    assert "n&lt;1&gt;&amp;&quot;&#39;" in text
    assert [tag for tag, _attrs in checker.tags if tag in ("script", "b", "i")] == []
    # The SVG inside the page stays well-formed XML.
    start = text.index("<svg ")
    parse_svg(text[start:text.index("</svg>", start) + len("</svg>")])


def test_html_is_deterministic():
    assert page() == page()
    # No tie in RESULTS: the input order does not matter.
    assert page(results=list(reversed(RESULTS))) == page()


def test_generated_at_round_trip():
    for stamp in ("2026-01-31T12:00:00Z", "<b>&\"'</b>", ""):
        assert generated_at_of(page(generated_at=stamp)) == stamp
    assert generated_at_of("<html></html>") is None
    assert generated_at_of(None) is None
