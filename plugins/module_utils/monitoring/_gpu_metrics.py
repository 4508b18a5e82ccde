# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""GPU metrics for Prometheus from nvidia-smi's XML and the GPU-to-job map (groundwork of the GPU exporter).

Pure functions. ``gpu_samples`` turns ``parse_smi_xml(text, readings=True)``
and the map the health check's prolog keeps (``/run/gpuops/gpu-jobs/<minor>.json``)
into samples: (name, labels, value) with a help text and type per name
(``FAMILIES``). Every per-GPU sample carries the GPU's index, minor, UUID and
model, and the Slurm job, user and account that hold it ("" when idle), so
utilisation can be summed per job or per research group. Nothing a GPU does
not report becomes a sample (no zero for N/A). NVLink error counters, which
``nvidia-smi -q -x`` does not carry, come from ``nvidia-smi nvlink -e``
(``parse_nvlink_errors``, then ``nvlink_samples``).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import math
import re

from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import as_text, clip, guarded, small_int
from ansible_collections.gpuops.cluster.plugins.module_utils.health._active import ACTIVE_CHECKS, FABRIC_CHECK

MIB = 1024 * 1024
PREFIX = "gpuops_gpu_"

# name: (type, help)
FAMILIES = {
    "exporter_up": ("gauge", "1 when nvidia-smi answered with XML that parses, 0 otherwise (reason label says why)."),
    "info": ("gauge", "1 per GPU, with its driver and PCI bus id."),
    "utilization_ratio": ("gauge", "GPU utilization over nvidia-smi's last sample period, 0 to 1."),
    "memory_utilization_ratio": ("gauge", "Memory controller utilization, 0 to 1."),
    "memory_used_bytes": ("gauge", "Framebuffer memory in use."),
    "memory_total_bytes": ("gauge", "Framebuffer memory in total."),
    "temperature_celsius": ("gauge", "GPU temperature."),
    "memory_temperature_celsius": ("gauge", "HBM temperature (where reported)."),
    "slowdown_temperature_celsius": ("gauge", "Temperature at which the GPU slows down (drivers that print it)."),
    "temp_slowdown_margin_celsius": ("gauge", "Degrees Celsius left before the GPU slows down for heat, negative "
                                              "past it (T.Limit readings, else slowdown temperature less temperature)."),
    "temp_shutdown_margin_celsius": ("gauge", "Degrees Celsius left before the GPU shuts down for heat, negative "
                                              "past it (T.Limit readings, else shutdown temperature less temperature)."),
    "power_watts": ("gauge", "Power draw."),
    "power_limit_watts": ("gauge", "Power limit in force."),
    "clock_hertz": ("gauge", "Current clock, by clock domain."),
    "clock_event_active": ("gauge", "1 while the reason holds the clocks down (throttle reasons)."),
    "ecc_uncorrectable_errors": ("gauge", "Uncorrectable ECC errors, volatile (since driver load) or aggregate."),
    "retired_pages": ("gauge", "Pages retired, by cause."),
    "retired_pages_pending": ("gauge", "1 when a page retirement waits for a GPU reset."),
    "remapped_rows": ("gauge", "Rows remapped, by kind."),
    "remap_pending": ("gauge", "1 when a row remapping waits for a GPU reset."),
    "remap_failure": ("gauge", "1 when a row remapping failed."),
    "pcie_link_generation": ("gauge", "PCIe link generation, current or max."),
    "pcie_link_width": ("gauge", "PCIe link width (lanes), current or max."),
    "nvlink_errors_total": ("counter", "NVLink errors since the driver loaded, per link and counter."),
    "xid_errors_total": ("counter", "XIDs in the kernel log since boot, per GPU (PCI bus id) and XID number."),
    "scrape_duration_seconds": ("gauge", "Time this exporter took to collect."),
    "check_passed": ("gauge", "1 when the node's last active run (gpuops-health active) passed the check, 0 when it "
                              "failed; a check that was not judged (no DCGM, no expectation) has none."),
    "check_value": ("gauge", "The last active run's measurement of the check, per GPU (gpu empty: the node's), in "
                             "the unit label."),
    "check_expected": ("gauge", "What a healthy GPU of the model measures in the check (the expectation table or "
                                "node_health_active_expect); it fails below this less the tolerance."),
    "check_last_run_timestamp_seconds": ("gauge", "When the node's last active run ended (Unix time)."),
}

# RDMA ports, beside the GPUs: the node's NCCL and GPUDirect traffic.
RDMA_PREFIX = "gpuops_rdma_"
RDMA_FAMILIES = {
    "port_active": ("gauge", "1 when the RDMA port is ACTIVE, 0 otherwise (ports the node's NCCL may use)."),
    "port_rate_gbps": ("gauge", "RDMA port rate in Gb/s."),
}


def family(name):
    """(type, help) of a sample name this module makes."""
    for prefix, table in ((PREFIX, FAMILIES), (RDMA_PREFIX, RDMA_FAMILIES)):
        if name.startswith(prefix) and name[len(prefix):] in table:
            return table[name[len(prefix):]]
    return ("gauge", name)


def grouped(samples, kind_of=None):
    """[(name, type, help, label names, [(label values, value)])]: samples as metric families.

    kind_of: name -> (type, help); this module's family() by default (the
    Slurm exporter passes its own).
    Every sample of a family must carry the same label names (the exporter's
    client library wants that); a sample that does not is dropped rather than
    breaking the scrape.
    """
    order, families = [], {}
    for name, labels, value in samples:
        keys = tuple(sorted(labels))
        if name not in families:
            kind, text = (kind_of or family)(name)
            families[name] = (name, kind, text, keys, [])
            order.append(name)
        if families[name][3] == keys:
            families[name][4].append((tuple(str(labels[key]) for key in keys), float(value)))
    return [families[name] for name in order]


def _escape(value):
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def exposition(samples, kind_of=None):
    """Samples in the Prometheus text format (what the exporters print with --once)."""
    lines = []
    for name, kind, text, keys, rows in grouped(samples, kind_of):
        lines.append("# HELP %s %s" % (name, text))
        lines.append("# TYPE %s %s" % (name, kind))
        for values, value in rows:
            labels = ",".join('%s="%s"' % (key, _escape(val)) for key, val in zip(keys, values))
            lines.append("%s{%s} %r" % (name, labels, value) if labels else "%s %r" % (name, value))
    return "\n".join(lines) + "\n"


def _pci_key(text):
    """'00000000:3B:00.0', '0000:3b:00' -> '3b:00' (bus:device), for matching the kernel's and nvidia-smi's ids."""
    parts = (text or "").strip().lower().split(".")[0].split(":")
    return ":".join(parts[-2:]) if len(parts) >= 2 else (text or "").strip().lower()


def xid_samples(xid_state, smi=None):
    """gpuops_gpu_xid_errors_total per (GPU, XID) from the health check's XID state (its "counts").

    xid_state is the state file as json.load gave it: a file of another shape (hand-edited, truncated) gives no
    sample, and an entry of another shape is left out; the scrape goes on.
    """
    gpus = {}
    for gpu in (smi or {}).get("gpus") or []:
        gpus[_pci_key(gpu.get("pci_bus_id"))] = str(gpu.get("index"))
    out = []
    counts = xid_state.get("counts") if isinstance(xid_state, dict) else None
    for item in counts if isinstance(counts, list) else []:
        if not isinstance(item, dict) or not isinstance(item.get("count"), int) or isinstance(item.get("count"), bool) \
                or not 0 <= item["count"] < 2 ** 63 or not isinstance(item.get("pci") or "", str) \
                or not isinstance(item.get("xid"), int) or not 0 <= item["xid"] < 100000:
            continue
        pci = str(item.get("pci") or "")
        out.append((PREFIX + "xid_errors_total", {"pci_bus_id": pci, "xid": str(item.get("xid")),
                                                  "gpu": gpus.get(_pci_key(pci), "")}, item["count"]))
    return out


def _finite(value):
    return not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)


def check_samples(record, run="active"):
    """gpuops_gpu_check_* from one record of the health check's active checks, as json.load gave it: the last
    active run (last-active.json, run "active") or the last pair check over the fabric (last-fabric.json, run
    "fabric", whose values carry the partner node).

    A record of another shape gives no sample, an entry of another shape is left out; the scrape goes on.
    """
    if not isinstance(record, dict) or not isinstance(record.get("results"), list):
        return []
    out = []
    if _finite(record.get("epoch")):
        out.append((PREFIX + "check_last_run_timestamp_seconds", {"run": run}, record["epoch"]))
    for item in record["results"]:
        if not isinstance(item, dict) or item.get("check") not in ACTIVE_CHECKS + (FABRIC_CHECK,):
            continue
        check = item["check"]
        if item.get("status") in ("pass", "fail"):
            out.append((PREFIX + "check_passed", {"check": check}, 1 if item["status"] == "pass" else 0))
        unit = str(item.get("unit") or "")
        for entry in item.get("values") if isinstance(item.get("values"), list) else []:
            if not isinstance(entry, dict):
                continue
            gpu = entry.get("gpu")
            labels = {"check": check, "gpu": "" if gpu is None else str(gpu), "unit": unit}
            if check == FABRIC_CHECK:
                labels["partner"] = str(entry.get("partner") or "")
            if _finite(entry.get("value")):
                out.append((PREFIX + "check_value", labels, entry["value"]))
            if _finite(entry.get("expected")):
                out.append((PREFIX + "check_expected", labels, entry["expected"]))
    return out


def rdma_samples(wanted):
    """gpuops_rdma_port_active and _rate_gbps of [(name "hca:port", port dict or None, expected rate)]."""
    out = []
    for name, port, dummy in wanted:
        device, dummy, number = name.rpartition(":")
        labels = {"device": device or name, "port": number}
        out.append((RDMA_PREFIX + "port_active", labels, 1 if port and port.get("state") == "Active" else 0))
        if port and port.get("rate_gbps") is not None:
            out.append((RDMA_PREFIX + "port_rate_gbps", labels, port["rate_gbps"]))
    return out


_MAP_NAME_RE = re.compile(r"([0-9]{1,4})\.json\Z")


def job_map(files):
    """{minor: entry} of the GPU-to-job map from its files ({file name: what json.load gave}, None for a file
    that could not be read): a name that is not <minor>.json (1 to 4 ASCII digits), or an entry that is not a
    mapping, is left out (str.isdigit() passes '\u00b2.json', which int() refuses)."""
    out = {}
    for name, entry in (files.items() if isinstance(files, dict) else []):
        match = _MAP_NAME_RE.match(name) if isinstance(name, str) else None
        if match and isinstance(entry, dict):
            out[int(match.group(1))] = entry
    return out


def job_labels(job_map, minor):
    """job_id, user, account of the job holding GPU minor ("" for each when none)."""
    entry = (job_map or {}).get(minor) or (job_map or {}).get(str(minor)) or {}
    return {"job_id": str(entry.get("job_id") or ""), "user": str(entry.get("user") or ""),
            "account": str(entry.get("account") or "")}


def gpu_labels(gpu, job_map=None):
    """The labels every per-GPU sample carries: gpu, minor, uuid, model and the job_labels of its minor."""
    labels = {"gpu": str(gpu.get("index")), "minor": str(gpu.get("minor_number")), "uuid": gpu.get("uuid") or "",
              "model": gpu.get("name") or ""}
    labels.update(job_labels(job_map, gpu.get("minor_number")))
    return labels


def _flag(value):
    return None if value is None else (1 if value else 0)


def _per_gpu(gpu):
    """(name, extra labels, value) of one GPU, values that are None left out."""
    readings = gpu.get("readings") or {}
    out = []

    def add(name, value, **labels):
        if value is not None:
            out.append((name, labels, value))

    util = readings.get("utilization_gpu_pct")
    add("utilization_ratio", util / 100.0 if util is not None else None)
    mem_util = readings.get("utilization_memory_pct")
    add("memory_utilization_ratio", mem_util / 100.0 if mem_util is not None else None)
    for key, name in (("memory_used_mib", "memory_used_bytes"), ("memory_total_mib", "memory_total_bytes")):
        value = readings.get(key)
        add(name, value * MIB if value is not None else None)
    add("temperature_celsius", readings.get("temperature_c"))
    add("memory_temperature_celsius", readings.get("memory_temperature_c"))
    add("slowdown_temperature_celsius", readings.get("slowdown_temperature_c"))
    add("temp_slowdown_margin_celsius", readings.get("slowdown_margin_c"))
    add("temp_shutdown_margin_celsius", readings.get("shutdown_margin_c"))
    add("power_watts", readings.get("power_w"))
    add("power_limit_watts", readings.get("power_limit_w"))
    for clock, mhz in sorted((readings.get("clocks_mhz") or {}).items()):
        add("clock_hertz", mhz * 1000000 if mhz is not None else None, clock=clock)
    for reason, active in sorted((readings.get("clock_event_reasons") or {}).items()):
        add("clock_event_active", _flag(active), reason=reason)
    for scope, count in sorted((gpu.get("ecc_uncorrectable") or {}).items()):
        add("ecc_uncorrectable_errors", count, scope=scope)
    pages = gpu.get("retired_pages") or {}
    for cause in ("single_bit", "double_bit"):
        add("retired_pages", pages.get(cause), cause=cause)
    add("retired_pages_pending", _flag(pages.get("pending")))
    rows = gpu.get("remapped_rows") or {}
    for kind in ("correctable", "uncorrectable"):
        add("remapped_rows", rows.get(kind), kind=kind)
    add("remap_pending", _flag(rows.get("pending")))
    add("remap_failure", _flag(rows.get("failure")))
    link = gpu.get("pcie_link") or {}
    for which in ("current", "max"):
        add("pcie_link_generation", link.get(which + "_gen"), which=which)
        add("pcie_link_width", link.get(which + "_width"), which=which)
    return out


def gpu_samples(smi, job_map=None, error=None):
    """[(metric name, labels, value)] of a node's GPUs.

    smi: parse_smi_xml(..., readings=True), or None when nvidia-smi gave
    nothing usable; error: why (then only exporter_up 0 with that reason).
    job_map: {minor: the map entry} of the GPUs jobs hold now.
    """
    if smi is None or error:
        return [(PREFIX + "exporter_up", {"reason": str(error or "no nvidia-smi output")[:200]}, 0)]
    out = [(PREFIX + "exporter_up", {"reason": ""}, 1)]
    for gpu in smi.get("gpus") or []:
        base = gpu_labels(gpu, job_map)
        out.append((PREFIX + "info", dict(base, driver=smi.get("driver_version") or "",
                                          pci_bus_id=gpu.get("pci_bus_id") or ""), 1))
        for name, labels, value in _per_gpu(gpu):
            out.append((PREFIX + name, dict(base, **labels), value))
    return out


# --- nvidia-smi nvlink -e (--errorcounters): per GPU and link, what -q -x does not carry -----------


class GpuMetricsError(Exception):
    """Command output the GPU metrics readers cannot use."""


_NVLINK_GPU_RE = re.compile(r"^GPU (\d+): (.*?)(?: \(UUID: ([^()]*)\))?$")
_NVLINK_LINK_RE = re.compile(r"^Link (\d+): (.*)$")
_NVLINK_COUNTER_RE = re.compile(r"^([A-Za-z][^:]*?)\s*:\s*(.*)$")
_NVLINK_INT_RE = re.compile(r"^-?[0-9]+$")
# The counters nvlink_samples exports: errors, discards, replays, recoveries (not Tx/Rx packets and bytes, not BER).
_NVLINK_ERROR_KEY_RE = re.compile(r"error|discard|replay|recovery")


def _snake(name):
    """'CRC Flit Errors' -> 'crc_flit_errors', 'FEC Errors - 0' -> 'fec_errors_0'."""
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def parse_nvlink_errors(text):
    """``nvidia-smi nvlink -e`` (or ``--errorcounters``, ``-e -i N``) as {GPU index: {link: {counter: int}}}.

    The GPU line ("GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-...)") opens a GPU;
    each "Link 3: CRC Errors: 0" line adds counter "crc_errors" of link 3.
    Counter names are snake case of what nvidia-smi prints ("replay_errors",
    "recovery_errors", "crc_errors"; "crc_flit_errors", "crc_data_errors" and
    Blackwell's "effective_errors", "fec_errors_0", ... where printed). Values
    that are not whole numbers (N/A, BER such as 15e-255) are left out. A GPU
    without NVLink, or whose links are all inactive, is in the result with no
    links (nvidia-smi prints a line such as "Device does not have or support
    Nvlink" there; other lines that are not "Link N:" lines, and "Link N:
    <inactive>", are ignored).
    Empty output is what driver 580 printed on an H100 without NVLink peers
    (the project's capture): it raises like any output without a GPU line,
    and the exporter then leaves NVLink counters out.
    Raises GpuMetricsError for output that is not this (no GPU line, a link
    line before the first GPU, a "Link N:" line without "counter: value", as
    ``nvidia-smi nvlink -s`` prints, a GPU listed twice).
    """
    text = as_text(text, "nvidia-smi nvlink -e", GpuMetricsError)
    out = {}
    links = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        where = "nvidia-smi nvlink -e line %d" % number
        gpu = _NVLINK_GPU_RE.match(line)
        if gpu:
            index = small_int(gpu.group(1), where + ": GPU index", GpuMetricsError)
            if index in out:
                raise GpuMetricsError("%s: GPU %d is listed twice" % (where, index))
            links = out[index] = {}
            continue
        link = _NVLINK_LINK_RE.match(line)
        if links is None:
            raise GpuMetricsError("%s: '%s' before any GPU line; not nvidia-smi nvlink -e output"
                                  % (where, clip(line, 60)))
        if not link:
            continue
        counter = _NVLINK_COUNTER_RE.match(link.group(2))
        if not counter and link.group(2).startswith("<"):
            continue  # "Link 3: <inactive>": a link without counters
        if not counter:
            raise GpuMetricsError("%s: '%s' is not 'Link N: counter: value'" % (where, clip(line, 60)))
        number_of_link = small_int(link.group(1), where + ": link number", GpuMetricsError)
        key = _snake(counter.group(1))
        value = counter.group(2).strip()
        if not key:
            raise GpuMetricsError("%s: '%s' names no counter" % (where, clip(line, 60)))
        if _NVLINK_INT_RE.match(value):
            links.setdefault(number_of_link, {})[key] = small_int(value, "%s: %s" % (where, key), GpuMetricsError)
    if not out:
        shown = clip(text.strip(), 60)
        raise GpuMetricsError("nvidia-smi nvlink -e: no GPU line in the output" + (" ('%s')" % shown if shown else ""))
    return out


def nvlink_samples(errors, smi=None, job_map=None):
    """gpuops_gpu_nvlink_errors_total per GPU, link and error counter of parse_nvlink_errors(...).

    Labels: those of gpu_samples (gpu, minor, uuid, model, job_id, user,
    account), taken from smi (parse_smi_xml) by GPU index, plus link and
    counter. A GPU smi does not list (or smi None) has gpu="<index>" and the
    others "". Only error counters are exported (keys with error, discard,
    replay or recovery in them; not packet or byte counts).
    """
    by_index = {}
    for gpu in (smi or {}).get("gpus") or []:
        by_index[str(gpu.get("index"))] = gpu
    out = []
    for index in sorted(errors or {}):
        gpu = by_index.get(str(index))
        base = gpu_labels(gpu, job_map) if gpu else dict(gpu=str(index), minor="", uuid="", model="", job_id="",
                                                         user="", account="")
        for link in sorted(errors[index] or {}):
            for counter, value in sorted((errors[index][link] or {}).items()):
                if _NVLINK_ERROR_KEY_RE.search(counter):
                    out.append((PREFIX + "nvlink_errors_total", dict(base, link=str(link), counter=counter), value))
    return out


parse_nvlink_errors = guarded(GpuMetricsError, 'nvidia-smi nvlink -e')(parse_nvlink_errors)
nvlink_samples = guarded(GpuMetricsError, 'NVLink samples')(nvlink_samples)
