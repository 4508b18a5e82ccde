# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Rendering of the cluster validation report, for the validate_report module.

Pure functions, no I/O: they turn the check results of the validation playbook
and the topology facts of the nodes (gpu_facts and ib_facts) into a summary, a
sorted result list, inline SVG topology drawings and a standalone HTML page.

- A result is a dict with exactly the keys node, check, status (pass, fail or
  not_run), measured, expected and message; node ``cluster`` holds the
  cluster-wide checks. check_results raises ReportError, with a one-line
  message naming the entry, on anything else.
- Nodes and checks are ordered naturally (``node2`` before ``node10``).
  Results are ordered failures first, then by node, then by check; ties keep
  their input order.
- Every text that comes from the input is escaped before it is written into
  the HTML or SVG, and control characters that XML does not allow are
  replaced by U+FFFD. The page holds no script, no external resource and no
  link other than anchors to its own sections; its Content-Security-Policy
  forbids scripts as well.
- The output depends on the input only (no clock, no dict order), so the
  module can compare it with what is on disk.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import re

from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import MAX_DIGITS, guarded, number_key


class ReportError(Exception):
    """Results that cannot be reported (the message is one line)."""


STATUSES = ("pass", "fail", "not_run")
RESULT_KEYS = ("node", "check", "status", "measured", "expected", "message")
CLUSTER = "cluster"
STATUS_LABELS = {"pass": "PASS", "fail": "FAIL", "not_run": "NOT RUN"}
NULL_TEXT = u"\u2013"

# Characters XML 1.0 does not allow (and lone surrogates, which cannot be encoded).
_INVALID_XML_RE = re.compile(u"[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_GENERATED_RE = re.compile(r'<p class="generated">Generated <time>([^<]*)</time></p>')
_INT_RE = re.compile(r"[0-9]+")


# --------------------------------------------------------------------------
# Text helpers

def escape(value):
    """Text safe inside HTML and XML element content and quoted attribute values."""
    text = value if isinstance(value, str) else str(value)
    text = _INVALID_XML_RE.sub(u"\ufffd", text)
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&#39;"))


def _unescape(text):
    return (text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"')
            .replace("&#39;", "'").replace("&amp;", "&"))


def natural_key(name):
    """Sort key that orders digit runs by value (of any length): node2 before node10."""
    name = name if isinstance(name, str) else str(name)
    parts = re.split(r"([0-9]+)", name)
    return (tuple(number_key(part) if index % 2 else part for index, part in enumerate(parts)), name)


def _short_repr(value, limit=60):
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def compact(value):
    """measured/expected as short text: numbers as is, null as an en dash, lists and dicts as compact JSON."""
    if value is None:
        return NULL_TEXT
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return json.dumps(value)
    try:
        return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
    except (TypeError, ValueError):
        try:
            return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            return str(value)


def _fit(text, width, char_width=6.2):
    """text cut with an ellipsis to about width pixels."""
    limit = max(1, int(width / char_width))
    return text if len(text) <= limit else text[:limit - 1] + u"\u2026"


# --------------------------------------------------------------------------
# Results

def check_results(results):
    """Raise ReportError unless results is a list of well-formed result dicts."""
    if not isinstance(results, list):
        raise ReportError("results must be a list, got %s" % type(results).__name__)
    for index, entry in enumerate(results):
        where = "results[%d]" % index
        if not isinstance(entry, dict):
            raise ReportError("%s must be a dict, got %s" % (where, type(entry).__name__))
        missing = [key for key in RESULT_KEYS if key not in entry]
        unknown = sorted(str(key) for key in entry if key not in RESULT_KEYS)
        if missing or unknown:
            problems = []
            if missing:
                problems.append("missing key(s) %s" % ", ".join(missing))
            if unknown:
                problems.append("unknown key(s) %s" % ", ".join(unknown))
            raise ReportError("%s: %s" % (where, "; ".join(problems)))
        for key in ("node", "check", "message"):
            if not isinstance(entry[key], str):
                raise ReportError("%s: %s must be a string, got %s" % (where, key, type(entry[key]).__name__))
        for key in ("node", "check"):
            if not entry[key].strip():
                raise ReportError("%s: %s is empty" % (where, key))
        where = "%s (%s %s)" % (where, _short_repr(entry["node"], 40), _short_repr(entry["check"], 40))
        status = entry["status"]
        if not isinstance(status, str) or status not in STATUSES:
            raise ReportError("%s: status %s is not one of %s" % (where, _short_repr(status), ", ".join(STATUSES)))
        for key in ("measured", "expected"):
            try:
                json.dumps(entry[key])
            except (TypeError, ValueError) as exc:
                raise ReportError("%s: %s is not a JSON value (%s)" % (where, key, str(exc).splitlines()[0]))
    return results


def sort_results(results):
    """Results ordered failures first, then by node, then by check (stable for ties)."""
    return sorted(results, key=lambda entry: (entry["status"] != "fail", natural_key(entry["node"]),
                                              natural_key(entry["check"])))


def summarize(results):
    """{total, pass, fail, not_run, status, failed_nodes}; status is fail when any check failed."""
    check_results(results)
    counts = dict((status, 0) for status in STATUSES)
    failed = set()
    for entry in results:
        counts[entry["status"]] += 1
        if entry["status"] == "fail" and entry["node"] != CLUSTER:
            failed.add(entry["node"])
    return {
        "total": len(results),
        "pass": counts["pass"],
        "fail": counts["fail"],
        "not_run": counts["not_run"],
        "status": "fail" if counts["fail"] else "pass",
        "failed_nodes": sorted(failed, key=natural_key),
    }


def node_summaries(results, nodes=()):
    """One {node, pass, fail, not_run, status} per node of results (plus nodes), in natural order.

    status is fail when a check of the node failed, else pass when one passed, else not_run.
    """
    rows = {}
    for node in nodes:
        rows.setdefault(node, dict((status, 0) for status in STATUSES))
    for entry in results:
        rows.setdefault(entry["node"], dict((status, 0) for status in STATUSES))[entry["status"]] += 1
    summary = []
    for node in sorted(rows, key=natural_key):
        counts = rows[node]
        status = "fail" if counts["fail"] else ("pass" if counts["pass"] else "not_run")
        summary.append(dict(counts, node=node, status=status))
    return summary


def results_json(results):
    """results.json: the sorted results, indent 2, keys sorted, trailing newline."""
    check_results(results)
    return json.dumps(sort_results(results), indent=2, sort_keys=True) + "\n"


# --------------------------------------------------------------------------
# Topology drawing

MARGIN = 16
GPU_W, GPU_H, GPU_GAP = 136, 86, 16
NIC_W, NIC_H, NIC_GAP = 136, 66, 12
HOST_H = 62
PCIE_GAP = 30
SWITCH_H, SWITCH_GAP = 34, 44
ARC_BASE, ARC_STEP = 20, 16
LINE_H = 13

NVLINK_COLOUR = "#76b900"
PCIE_COLOUR = "#8a8a8a"
PORT_STYLES = {
    "active": ("#e3f4e1", "#2e7d32"),
    "down": ("#fbe3e4", "#c62828"),
    "other": ("#eeeeee", "#757575"),
}
FONT_FAMILY = "DejaVu Sans, Helvetica, Arial, sans-serif"


def _text_value(value, default="?"):
    if value is None:
        return default
    return value if isinstance(value, str) else str(value)


def _int_value(value):
    """An int of at most MAX_DIGITS digits from an int or a string of digits; None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if abs(value) < 10 ** MAX_DIGITS else None
    if isinstance(value, str) and _INT_RE.fullmatch(value.strip()) and len(value.strip()) <= MAX_DIGITS:
        return int(value.strip())
    return None


def short_gpu_name(name):
    """'NVIDIA H100 80GB HBM3' -> 'H100 80GB HBM3', 'Tesla V100S-PCIE-32GB' -> 'V100S-PCIE-32GB'."""
    text = _text_value(name).strip()
    for prefix in ("NVIDIA ", "Tesla ", "GeForce "):
        if text.startswith(prefix) and len(text) > len(prefix):
            text = text[len(prefix):]
    return text


def _short_bus(bus):
    """'00000000:18:00.0' -> '18:00.0' (domain dropped when 0)."""
    text = _text_value(bus, "")
    parts = text.split(":")
    if len(parts) == 3 and parts[0].strip("0") == "":
        return "%s:%s" % (parts[1], parts[2])
    return text


def _gpus(value):
    """GPU dicts normalised for drawing, in input order; entries that are not dicts are skipped."""
    gpus = []
    for position, gpu in enumerate(value if isinstance(value, list) else []):
        if not isinstance(gpu, dict):
            continue
        index = _int_value(gpu.get("index"))
        numa = gpu.get("numa_affinity")
        numa = None if numa is None or _text_value(numa).strip() in ("", "N/A") else _text_value(numa).strip()
        cpus = gpu.get("cpu_affinity")
        cpus = None if cpus is None or _text_value(cpus).strip() in ("", "N/A") else _text_value(cpus).strip()
        memory = _int_value(gpu.get("memory_mib"))
        links = {}
        raw_links = gpu.get("nvlinks")
        if isinstance(raw_links, dict):
            for peer, count in raw_links.items():
                peer = _int_value(peer)
                count = _int_value(count)
                if peer is not None and count:
                    links[peer] = max(count, links.get(peer, 0))
        gpus.append({
            "position": position,
            "index": index if index is not None else position,
            "name": _text_value(gpu.get("name")),
            "bus": gpu.get("pci_bus_id"),
            "numa": numa,
            "cpus": cpus,
            "memory_mib": memory,
            "nvlinks": links,
        })
    return gpus


def _numa_groups(gpus):
    """[(numa or None, [gpu...])], each group ordered by index, groups by their lowest GPU."""
    groups = {}
    for gpu in gpus:
        groups.setdefault(gpu["numa"], []).append(gpu)
    ordered = []
    for numa, members in groups.items():
        members = sorted(members, key=lambda gpu: (gpu["index"], gpu["position"]))
        ordered.append((numa, members))
    ordered.sort(key=lambda item: (item[1][0]["index"], item[1][0]["position"]))
    return ordered


def _nvlink_pairs(gpus):
    """{(position a, position b): links} for a < b in drawing order; peers are GPU indexes."""
    by_index = {}
    for slot, gpu in enumerate(gpus):
        by_index.setdefault(gpu["index"], slot)
    pairs = {}
    for slot, gpu in enumerate(gpus):
        for peer, count in gpu["nvlinks"].items():
            other = by_index.get(peer)
            if other is None or other == slot:
                continue
            key = (min(slot, other), max(slot, other))
            pairs[key] = max(count, pairs.get(key, 0))
    return pairs


def _ports(hcas, selected):
    chosen = set(_text_value(item) for item in (selected if isinstance(selected, list) else []))
    ports = []
    for hca in hcas if isinstance(hcas, list) else []:
        if not isinstance(hca, dict):
            continue
        name = _text_value(hca.get("name"))
        for port in hca.get("ports") if isinstance(hca.get("ports"), list) else []:
            if not isinstance(port, dict):
                continue
            number = _text_value(port.get("port"))
            label = "%s:%s" % (name, number)
            ports.append({
                "label": label,
                "state": _text_value(port.get("state")),
                "physical_state": port.get("physical_state"),
                "rate": port.get("rate_gbps"),
                "link_layer": _text_value(port.get("link_layer")),
                "netdev": port.get("netdev"),
                "selected": label in chosen,
            })
    ports.sort(key=lambda port: natural_key(port["label"]))
    return ports


def _rate_text(rate):
    if isinstance(rate, bool) or not isinstance(rate, (int, float)):
        return "? Gb/s"
    return "%g Gb/s" % rate


def _port_style(state):
    lowered = state.lower()
    if lowered == "active":
        return PORT_STYLES["active"]
    if lowered == "down":
        return PORT_STYLES["down"]
    return PORT_STYLES["other"]


def _plural(count, word):
    return "%d %s%s" % (count, word, "" if count == 1 else "s")


class _Svg(object):
    """Collects SVG elements; every attribute value and text passed in is escaped here."""

    def __init__(self):
        self.items = []

    @staticmethod
    def _attrs(attrs):
        return "".join(' %s="%s"' % (key.rstrip("_").replace("_", "-"), escape(value)) for key, value in attrs)

    def rect(self, x, y, w, h, **attrs):
        self.items.append('<rect x="%d" y="%d" width="%d" height="%d"%s/>'
                          % (x, y, w, h, self._attrs(sorted(attrs.items()))))

    def line(self, x1, y1, x2, y2, **attrs):
        self.items.append('<line x1="%d" y1="%d" x2="%d" y2="%d"%s/>'
                          % (x1, y1, x2, y2, self._attrs(sorted(attrs.items()))))

    def path(self, d, **attrs):
        self.items.append('<path d="%s"%s/>' % (escape(d), self._attrs(sorted(attrs.items()))))

    def text(self, x, y, content, **attrs):
        self.items.append('<text x="%d" y="%d"%s>%s</text>'
                          % (x, y, self._attrs(sorted(attrs.items())), escape(content)))

    def open(self, tooltip=None, **attrs):
        self.items.append("<g%s>" % self._attrs(sorted(attrs.items())))
        if tooltip is not None:
            self.items.append("<title>%s</title>" % escape(tooltip))

    def close(self):
        self.items.append("</g>")


def _label(svg, x, y, text, colour):
    """A small text on a white background, centred on (x, y)."""
    width = int(len(text) * 6.2) + 6
    svg.rect(x - width // 2, y - 7, width, 14, fill="#ffffff", stroke=colour, stroke_width="0.8", rx="3")
    svg.text(x, y + 4, text, text_anchor="middle", font_size="10", fill="#333333")


def _draw_gpu(svg, x, y, gpu):
    memory = gpu["memory_mib"]
    details = []
    if memory is not None:
        details.append("%d GiB" % int(round(memory / 1024.0)) if memory >= 1024 else "%d MiB" % memory)
    if gpu["bus"]:
        details.append(_short_bus(gpu["bus"]))
    tooltip = "GPU %d: %s\nPCI %s\nmemory %s\nNUMA %s\nCPU affinity %s" % (
        gpu["index"], gpu["name"], _text_value(gpu["bus"]),
        "%d MiB" % memory if memory is not None else "?", gpu["numa"] or "?", gpu["cpus"] or "?")
    svg.open(tooltip=tooltip, class_="gpu")
    svg.rect(x, y, GPU_W, GPU_H, rx="5", fill="#f3f9e8", stroke="#4d7c00", stroke_width="1.5")
    lines = [
        ("GPU %d" % gpu["index"], {"font_weight": "bold", "font_size": "12"}),
        (short_gpu_name(gpu["name"]), {}),
        (" \u00b7 ".join(details) or "\u00a0", {"fill": "#555555"}),
        ("NUMA %s" % (gpu["numa"] or "?"), {}),
        ("CPU %s" % (gpu["cpus"] or "?"), {"fill": "#555555"}),
    ]
    for row, (content, attrs) in enumerate(lines):
        svg.text(x + 8, y + 17 + row * (LINE_H + 2), _fit(content, GPU_W - 14), **attrs)
    svg.close()


def _draw_port(svg, x, y, port):
    fill, stroke = _port_style(port["state"])
    state = port["state"]
    if port["physical_state"] is not None:
        state = "%s / %s" % (state, _text_value(port["physical_state"]))
    rate = "%s %s" % (_rate_text(port["rate"]), port["link_layer"])
    tooltip = "%s: %s, %s%s%s" % (port["label"], state, rate,
                                  ", netdev %s" % _text_value(port["netdev"]) if port["netdev"] else "",
                                  ", selected for NCCL" if port["selected"] else "")
    svg.open(tooltip=tooltip, class_="nic")
    svg.rect(x, y, NIC_W, NIC_H, rx="5", fill=fill, stroke=stroke,
             stroke_width="3" if port["selected"] else "1.2")
    lines = [
        (port["label"], {"font_weight": "bold", "font_size": "12"}),
        (rate, {}),
        (state, {"fill": "#555555"}),
        (_text_value(port["netdev"]) if port["netdev"] else "\u00a0", {"fill": "#555555"}),
    ]
    for row, (content, attrs) in enumerate(lines):
        width = NIC_W - 14 - (42 if row == 0 and port["selected"] else 0)
        svg.text(x + 8, y + 17 + row * (LINE_H + 2), _fit(content, width), **attrs)
    if port["selected"]:
        svg.rect(x + NIC_W - 44, y + 5, 38, 15, rx="3", fill="#1a237e")
        svg.text(x + NIC_W - 25, y + 16, "NCCL", text_anchor="middle", font_size="10",
                 font_weight="bold", fill="#ffffff")
    svg.close()


LEGEND = [
    ("box", PORT_STYLES["active"], "port Active"),
    ("box", PORT_STYLES["down"], "port Down"),
    ("box", PORT_STYLES["other"], "other state"),
    ("nccl", None, "used by NCCL"),
    ("line", NVLINK_COLOUR, "NVLink (NVn: n links)"),
    ("line", PCIE_COLOUR, "PCIe"),
]


def _legend_step(text):
    return 18 + int(len(text) * 5.6) + 14


LEGEND_W = sum(_legend_step(text) for _kind, _colours, text in LEGEND) - 14


def _legend(svg, x, y):
    for kind, colours, text in LEGEND:
        if kind == "box":
            svg.rect(x, y - 9, 14, 10, fill=colours[0], stroke=colours[1])
        elif kind == "nccl":
            svg.rect(x, y - 9, 14, 10, fill="#ffffff", stroke="#1a237e", stroke_width="3")
        else:
            svg.line(x, y - 4, x + 14, y - 4, stroke=colours, stroke_width="3")
        svg.text(x + 18, y, text, font_size="10", fill="#333333")
        x += _legend_step(text)


def _switches_text(count):
    return "%d NVSwitch%s" % (count, "" if count == 1 else "es")


def _summary(svg, y, gpus, switches, pairs, all_pairs, ports):
    """The line under the title: GPUs, NVSwitches, NVLink pairs, RDMA ports and those NCCL uses."""
    count = len(gpus)
    facts = [_plural(count, "GPU")]
    if switches:
        facts.append(_switches_text(len(switches)))
    if count >= 2:
        facts.append("NVLink: %s" % ("all %d pairs" % len(pairs) if all_pairs else
                                     ("%d of %d pairs" % (len(pairs), count * (count - 1) // 2) if pairs else "none")))
    facts.append(_plural(len(ports), "RDMA port"))
    selected = len([port for port in ports if port["selected"]])
    if selected:
        facts.append("%d used by NCCL" % selected)
    svg.text(MARGIN, y + 12, " \u00b7 ".join(facts), font_size="11", fill="#555555")


def _draw_nvswitch(svg, y, gpus, slots, pairs, switches, gpu_x, gpu_row_w):
    """One NVSwitch box above the GPUs and a line from it to each GPU; returns the GPUs' top."""
    per_gpu = {}
    for (a, b), links in pairs.items():
        per_gpu.setdefault(a, []).append(links)
        per_gpu.setdefault(b, []).append(links)
    gpu_top = y + SWITCH_H + SWITCH_GAP
    svg.open(tooltip="%s; every GPU pair has NVLinks" % _switches_text(len(switches)), class_="nvswitch")
    svg.rect(gpu_x, y, gpu_row_w, SWITCH_H, rx="5", fill="#e8f5d0", stroke="#4d7c00", stroke_width="1.5")
    svg.text(gpu_x + gpu_row_w // 2, y + 22, "NVSwitch x%d" % len(switches), text_anchor="middle",
             font_size="13", font_weight="bold")
    svg.close()
    for slot, gpu in enumerate(gpus):
        centre = slots[gpu["position"]] + GPU_W // 2
        counts = per_gpu.get(slot) or [0]
        low, high = min(counts), max(counts)
        text = "NV%d" % low if low == high else "NV%d-%d" % (low, high)
        svg.open(tooltip="GPU %d: %s links to each peer through the NVSwitches"
                 % (gpu["index"], low if low == high else "%d-%d" % (low, high)), class_="nvlink")
        svg.line(centre, y + SWITCH_H, centre, gpu_top, stroke=NVLINK_COLOUR, stroke_width="3")
        _label(svg, centre, y + SWITCH_H + SWITCH_GAP // 2, text, NVLINK_COLOUR)
        svg.close()
    return gpu_top


def _draw_nvlink_arcs(svg, y, gpus, slots, pairs):
    """One arc above the GPUs per linked pair, labelled NVn; returns the GPUs' top."""
    count = len(gpus)
    spans = [b - a for a, b in pairs]
    arc_h = ARC_BASE + (max(spans) - 1) * ARC_STEP + 10 if spans else 0
    gpu_top = y + arc_h
    inner = GPU_W - 16
    labels = []
    for (a, b) in sorted(pairs):
        links = pairs[(a, b)]
        left, right = gpus[a], gpus[b]
        x1 = slots[left["position"]] + 8 + int((b + 0.5) * inner / count)
        x2 = slots[right["position"]] + 8 + int((a + 0.5) * inner / count)
        height = ARC_BASE + (b - a - 1) * ARC_STEP
        middle = (x1 + x2) // 2
        tooltip = "GPU %d - GPU %d: %s" % (left["index"], right["index"], _plural(links, "NVLink"))
        svg.open(tooltip=tooltip, class_="nvlink")
        svg.path("M %d %d Q %d %d %d %d" % (x1, gpu_top, middle, gpu_top - 2 * height, x2, gpu_top),
                 fill="none", stroke=NVLINK_COLOUR, stroke_width="%g" % min(1.0 + 0.5 * links, 3.0))
        svg.close()
        labels.append((tooltip, middle, gpu_top - height, "NV%d" % links))
    # Labels after all arcs, so that no arc crosses a label.
    for tooltip, x, label_y, text in labels:
        svg.open(tooltip=tooltip, class_="nvlink-label")
        _label(svg, x, label_y, text, NVLINK_COLOUR)
        svg.close()
    return gpu_top


def _draw_host(svg, host_top, nic_top, nic_x, content_w, gpus, groups, slots, gpu_top, port_count):
    """The host box with one NUMA box per GPU group, and the PCIe lines of the GPUs and the ports."""
    svg.open(tooltip="host CPU and PCIe root complex", class_="host")
    svg.rect(MARGIN, host_top, content_w, HOST_H, rx="6", fill="#eef2f8", stroke="#4a5a7a", stroke_width="1.5")
    svg.text(MARGIN + 8, host_top + 15, "CPU / host", font_size="11", font_weight="bold", fill="#2c3a57")
    svg.close()
    # PCIe: each GPU to its NUMA box, each port to the host (its NUMA node is not known).
    for gpu in gpus:
        centre = slots[gpu["position"]] + GPU_W // 2
        svg.line(centre, gpu_top + GPU_H, centre, host_top + 22, stroke=PCIE_COLOUR, stroke_width="2")
    for slot in range(port_count):
        centre = nic_x + slot * (NIC_W + NIC_GAP) + NIC_W // 2
        svg.line(centre, host_top + HOST_H, centre, nic_top, stroke=PCIE_COLOUR, stroke_width="2")
    known = [numa for numa, _members in groups if numa is not None]
    for numa, members in groups:
        left = slots[members[0]["position"]]
        right = slots[members[-1]["position"]] + GPU_W
        cpus = []
        for gpu in members:
            if gpu["cpus"] and gpu["cpus"] not in cpus:
                cpus.append(gpu["cpus"])
        cpu_text = "CPUs %s" % ", ".join(cpus) if cpus else ""
        if numa is not None or known:
            text = "NUMA %s" % (numa if numa is not None else "?") + (": " + cpu_text if cpu_text else "")
        else:
            text = cpu_text or "NUMA unknown"
        svg.open(tooltip=text, class_="numa")
        svg.rect(left, host_top + 22, right - left, HOST_H - 30, rx="4", fill="#dde5f3", stroke="#4a5a7a")
        svg.text((left + right) // 2, host_top + 42, _fit(text, right - left - 12), text_anchor="middle",
                 font_size="11", fill="#2c3a57")
        svg.close()


def topology_svg(node, topology):
    """An inline SVG (text) drawing the GPUs, NVLinks, NICs and host of one node.

    topology: {gpus, nvswitches, hcas, selected} as gathered by gpu_facts and
    ib_facts; any key may be missing. GPUs stand in one row, grouped by NUMA
    affinity, above a host box holding one NUMA box per group (PCIe lines from
    each GPU to its NUMA box); NVLinks are arcs above the GPUs labelled NVn
    (one per GPU pair), or, when every pair is linked and NVSwitches are
    present, lines to one NVSwitch box. The RDMA ports stand in one row below
    the host, coloured by state, thick-bordered and tagged NCCL when selected.
    """
    topology = topology if isinstance(topology, dict) else {}
    gpus = _gpus(topology.get("gpus"))
    groups = _numa_groups(gpus)
    gpus = [gpu for _numa, members in groups for gpu in members]
    switches = topology.get("nvswitches") if isinstance(topology.get("nvswitches"), list) else []
    ports = _ports(topology.get("hcas"), topology.get("selected"))
    pairs = _nvlink_pairs(gpus)
    count = len(gpus)
    all_pairs = count >= 2 and len(pairs) == count * (count - 1) // 2

    node_text = _text_value(node)
    gpu_row_w = count * GPU_W + (count - 1) * GPU_GAP if count else 0
    nic_row_w = len(ports) * NIC_W + (len(ports) - 1) * NIC_GAP if ports else 0
    title_w = int(len(node_text) * 8.5) + 10
    content_w = max(gpu_row_w, nic_row_w, title_w, LEGEND_W, 320)
    width = content_w + 2 * MARGIN

    svg = _Svg()
    y = MARGIN
    svg.text(MARGIN, y + 14, node_text, font_size="15", font_weight="bold", fill="#1d1d1f")
    y += 22
    _summary(svg, y, gpus, switches, pairs, all_pairs, ports)
    y += 26

    gpu_x = MARGIN + (content_w - gpu_row_w) // 2
    slots = dict((gpu["position"], gpu_x + slot * (GPU_W + GPU_GAP)) for slot, gpu in enumerate(gpus))
    if not gpus:
        svg.text(MARGIN + content_w // 2, y + 18, "no GPUs", text_anchor="middle", font_size="13",
                 font_style="italic", fill="#757575")
        gpu_top = y
        y += 28
    elif switches and all_pairs:
        gpu_top = y = _draw_nvswitch(svg, y, gpus, slots, pairs, switches, gpu_x, gpu_row_w)
    else:
        gpu_top = y = _draw_nvlink_arcs(svg, y, gpus, slots, pairs)
    for gpu in gpus:
        _draw_gpu(svg, slots[gpu["position"]], gpu_top, gpu)
    if gpus:
        y = gpu_top + GPU_H

    host_top = y + PCIE_GAP
    nic_top = host_top + HOST_H + PCIE_GAP
    nic_x = MARGIN + (content_w - nic_row_w) // 2
    _draw_host(svg, host_top, nic_top, nic_x, content_w, gpus, groups, slots, gpu_top, len(ports))
    if ports:
        for slot, port in enumerate(ports):
            _draw_port(svg, nic_x + slot * (NIC_W + NIC_GAP), nic_top, port)
        y = nic_top + NIC_H
    else:
        svg.text(MARGIN + content_w // 2, nic_top + 18, "no RDMA ports", text_anchor="middle", font_size="13",
                 font_style="italic", fill="#757575")
        y = nic_top + 28
    y += 24
    _legend(svg, MARGIN, y)
    height = y + 8 + MARGIN

    head = ('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" '
            'font-family="%s" font-size="11">' % (width, height, width, height, FONT_FAMILY))
    title = "<title>Topology of %s</title>" % escape(node_text)
    return "\n".join([head, title] + svg.items + ["</svg>"])


# --------------------------------------------------------------------------
# HTML page

CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:24px;color:#1d1d1f;background:#fff}
h1{margin:0 0 4px;font-size:1.6em}
h2{margin:28px 0 10px;font-size:1.25em}
h3{margin:18px 0 8px;font-size:1.05em}
.generated{color:#555;margin:0 0 16px}
.banner{padding:12px 16px;border-radius:6px;font-size:1.25em;margin:0 0 8px}
.banner strong{font-size:1.2em;margin-right:12px}
.banner.pass{background:#e3f4e1;color:#1b5e20;border:1px solid #2e7d32}
.banner.fail{background:#fbe3e4;color:#8e0000;border:1px solid #c62828}
.failed-nodes{margin:0 0 16px}
table{border-collapse:collapse;margin:0 0 16px;font-size:.92em}
th,td{border:1px solid #c8c8c8;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f2f2f2}
td.num{text-align:right;font-variant-numeric:tabular-nums}
td.value{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;white-space:pre-wrap;word-break:break-word;max-width:30em}
td.message{white-space:pre-wrap;word-break:break-word;max-width:40em}
td.status-pass{background:#e3f4e1;color:#1b5e20;font-weight:bold}
td.status-fail{background:#fbe3e4;color:#8e0000;font-weight:bold}
td.status-not_run{background:#eeeeee;color:#555;font-weight:bold}
section.topology{margin:0 0 24px}
section.topology svg{max-width:100%;height:auto;border:1px solid #ddd;border-radius:6px}
"""

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def _status_cell(status):
    return '<td class="status-%s">%s</td>' % (status, STATUS_LABELS[status])


def render_html(results, topologies, title, generated_at):
    """The standalone HTML5 report page (text). Raises ReportError on invalid results."""
    check_results(results)
    topologies = topologies if isinstance(topologies, dict) else {}
    summary = summarize(results)
    topology_nodes = sorted(topologies, key=natural_key)
    anchors = dict((node, "topology-%d" % number) for number, node in enumerate(topology_nodes, 1))
    title_text = escape(_text_value(title, ""))
    out = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta http-equiv="Content-Security-Policy" content="%s">' % escape(CSP),
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>%s</title>" % title_text,
        "<style>%s</style>" % CSS,
        "</head>",
        "<body>",
        "<header>",
        "<h1>%s</h1>" % title_text,
        '<p class="generated">Generated <time>%s</time></p>' % escape(_text_value(generated_at, "")),
        "</header>",
        '<div class="banner %s"><strong>%s</strong>%s: %d passed, %d failed, %d not run</div>' % (
            summary["status"], STATUS_LABELS[summary["status"]], _plural(summary["total"], "check"),
            summary["pass"], summary["fail"], summary["not_run"]),
    ]
    if summary["failed_nodes"]:
        out.append('<p class="failed-nodes">Failed nodes: %s</p>'
                   % escape(", ".join(summary["failed_nodes"])))

    out.append("<h2>Nodes</h2>")
    out.append('<table class="summary">')
    out.append("<thead><tr><th>node</th><th>pass</th><th>fail</th><th>not run</th><th>overall</th></tr></thead>")
    out.append("<tbody>")
    rows = node_summaries(results, topology_nodes)
    for row in rows:
        name = escape(row["node"])
        if row["node"] in anchors:
            name = '<a href="#%s">%s</a>' % (anchors[row["node"]], name)
        out.append('<tr><td>%s</td><td class="num">%d</td><td class="num">%d</td><td class="num">%d</td>%s</tr>'
                   % (name, row["pass"], row["fail"], row["not_run"], _status_cell(row["status"])))
    if not rows:
        out.append('<tr><td colspan="5">no nodes</td></tr>')
    out.append("</tbody>")
    out.append("</table>")

    out.append("<h2>Results</h2>")
    out.append('<table class="results">')
    out.append("<thead><tr><th>node</th><th>check</th><th>status</th><th>measured</th><th>expected</th>"
               "<th>message</th></tr></thead>")
    out.append("<tbody>")
    for entry in sort_results(results):
        out.append('<tr><td>%s</td><td>%s</td>%s<td class="value">%s</td><td class="value">%s</td>'
                   '<td class="message">%s</td></tr>'
                   % (escape(entry["node"]), escape(entry["check"]), _status_cell(entry["status"]),
                      escape(compact(entry["measured"])), escape(compact(entry["expected"])),
                      escape(entry["message"])))
    if not results:
        out.append('<tr><td colspan="6">no results</td></tr>')
    out.append("</tbody>")
    out.append("</table>")

    out.append("<h2>Topology</h2>")
    if not topology_nodes:
        out.append("<p>No topology was gathered.</p>")
    for node in topology_nodes:
        out.append('<section class="topology" id="%s">' % anchors[node])
        out.append("<h3>%s</h3>" % escape(node))
        out.append(topology_svg(node, topologies[node]))
        out.append("</section>")
    out.append("</body>")
    out.append("</html>")
    return "\n".join(out) + "\n"


def generated_at_of(html):
    """The generated_at text of a page render_html wrote, or None."""
    match = _GENERATED_RE.search(html or "")
    return _unescape(match.group(1)) if match else None


# No error of Python's own leaves these: anything no rule foresaw becomes ReportError.
check_results = guarded(ReportError, 'results')(check_results)
summarize = guarded(ReportError, 'results')(summarize)
results_json = guarded(ReportError, 'results')(results_json)
topology_svg = guarded(ReportError, 'topology')(topology_svg)
render_html = guarded(ReportError, 'report')(render_html)
