# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parsers and derivations for the gpu_facts module.

Pure functions over ``nvidia-smi`` output (``-q -x``, ``topo -m``, ``-L``),
``/proc/driver/nvidia-caps/mig-minors``, a CPU topology map and the PCI
functions (vendor, class) read from sysfs. They return plain
dicts/lists/strings and raise GpuFactsError, whose message is one line, on
any input they cannot read: no other exception escapes for garbage input
(the PCI and NVLink fabric helpers never raise: they skip what they cannot
read).

Conventions (see also NOTES in the collection's fixtures):

- GPU ``index`` is the position of the ``<gpu>`` element in ``-q -x`` (NVML
  order, the ``GPUn`` of ``topo -m`` and ``-L``); ``minor_number`` is the
  ``/dev/nvidiaN`` minor, which can differ from the index. Device files are
  always named by minor.
- ``pci_bus_id`` is normalised to NVML's form ``DDDDDDDD:BB:DD.F`` in upper
  case hex. Links= positions follow this order.
- MIG GRES types follow Slurm's NVML plugin (gpu_nvml.c ``_handle_mig``):
  the parent's type cut at its first ``-``, then ``_<slices>g.<GiB>gb`` with
  GiB = MIG memory / 1024 rounded half up (so an A100-80GB ``3g.40gb``
  instance of 40192 MiB is ``nvidia_a100_3g.39gb``, as Slurm names it). The
  slice count comes from the profile ``nvidia-smi -L`` prints; ``-q -x``
  does not carry it.
- MIG device files are ``/dev/nvidia<minor>`` plus the GPU-instance and
  compute-instance capability files, whose minors come from mig-minors
  (keys ``gpu<minor>/gi<gi>/access``, ``gpu<minor>/gi<gi>/ci<ci>/access``).
  A capability minor that is not known is left out of the line (the module
  warns): the line then still names the parent GPU file.
- ``pci_gpus`` and ``nvswitches`` come from the PCI bus (sysfs), so they are
  known before any driver or nvidia-smi is installed; their addresses keep
  the sysfs form ``0000:3b:00.0`` (lower case, domain of at least 4
  digits), unlike ``pci_bus_id``. ``nvlink_all_to_all`` needs ``topo -m`` (see
  nvlink_all_to_all for why its threshold tells NVSwitch from a mesh).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import os
import re
import stat
import xml.etree.ElementTree as ET

from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import MAX_DIGITS, as_text, guarded, small_int


class GpuFactsError(Exception):
    """Command output that cannot be read (the message is one line)."""


# Linux caps NR_CPUS at 8192 today; anything far above is garbage, and
# expanding it would eat memory.
MAX_CPU_ID = 65535

_NA = frozenset(["", "n/a", "[n/a]", "not supported", "[not supported]", "none", "unknown error", "not found"])
_INT_RE = re.compile(r"[0-9]+")
_MIB_RE = re.compile(r"([0-9]+)\s*MiB")
_WIDTH_RE = re.compile(r"([0-9]+)\s*x?", re.IGNORECASE)
_TRUE = frozenset(["yes", "true"])
_FALSE = frozenset(["no", "false"])
_PCI_RE = re.compile(r"([0-9A-Fa-f]{1,8}):([0-9A-Fa-f]{1,2}):([0-9A-Fa-f]{1,2})\.([0-7])")
_RANGE_RE = re.compile(r"([0-9]+)(?:-([0-9]+))?")
_ANSI_RE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_LINK_RE = re.compile(r"X|SYS|SOC|NODE|PHB|PXB|PIX|NV[0-9]+")
_GPU_COL_RE = re.compile(r"GPU([0-9]+)")
_DEVICE_COL_RE = re.compile(r"[A-Za-z][A-Za-z0-9_.:-]*")
_NIC_COL_RE = re.compile(r"NIC[0-9]+")
_NIC_LEGEND_RE = re.compile(r"\s*(NIC[0-9]+)\s*:\s*(\S+)\s*")
_TRAILING_COLUMNS = ("CPU Affinity", "NUMA Affinity", "GPU NUMA ID")
_L_GPU_RE = re.compile(r"GPU\s+([0-9]+)\s*:\s*(.*?)\s*\(UUID:\s*(\S+)\)")
_L_MIG_RE = re.compile(r"\s+MIG\s+(\S+)\s+Device\s+([0-9]+)\s*:\s*\(UUID:\s*(\S+)\)")
_L_LEGACY_MIG_UUID_RE = re.compile(r"MIG-GPU-[^/]+/([0-9]+)/([0-9]+)")
_PROFILE_RE = re.compile(r"(?:[0-9]+c\.)?([0-9]+)g\.([0-9]+)gb(?:\+[A-Za-z0-9]+)*")
_MIG_MINOR_RE = re.compile(r"(\S+)\s+([0-9]+)")
# Characters that would break a gres.conf or slurm.conf line.
_TYPE_UNSAFE_RE = re.compile(r"[\s:,=#\"'\\]")
# sysfs PCI function names and the vendor/class attribute files (drivers/pci/pci-sysfs.c: "0x%04x", "0x%06x").
_SYSFS_PCI_RE = re.compile(r"([0-9A-Fa-f]{4,8}):([0-9A-Fa-f]{2}):([0-9A-Fa-f]{2})\.([0-7])")
_SYSFS_VENDOR_RE = re.compile(r"0x([0-9A-Fa-f]{4})")
_SYSFS_CLASS_RE = re.compile(r"0x([0-9A-Fa-f]{6})")
NVIDIA_PCI_VENDOR = 0x10de
PCI_BASE_CLASS_DISPLAY = 0x03
PCI_CLASS_BRIDGE_OTHER = 0x0680
# The most NVLinks one GPU has (Hopper and Blackwell: 18; Ampere 12, Volta 6).
MAX_NVLINKS_PER_GPU = 18


def _snippet(text, limit=60):
    """repr() of text cut to limit characters: one line, whatever it holds."""
    if len(text) > limit:
        return repr(text[:limit]) + "..."
    return repr(text)


def _short_repr(value, limit=40):
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _as_text(data, what):
    """data as text: bytes that are not UTF-8 (and lone surrogates) read as U+FFFD; GpuFactsError for non-text."""
    if not isinstance(data, (str, bytes, bytearray)):
        raise GpuFactsError("%s: expected text, got %s" % (what, type(data).__name__))
    return as_text(data, what, GpuFactsError)


def _is_na(value):
    return value is None or value.strip().lower() in _NA


# --------------------------------------------------------------------------
# nvidia-smi -q -x

def _field(node, path):
    """Stripped text of the first element at path, None when absent or N/A."""
    found = node.find(path)
    if found is None or found.text is None:
        return None
    value = found.text.strip()
    return None if _is_na(value) else value


def _int_text(text, where, path):
    """A decimal count from an element's text: None when absent or N/A, else an int or GpuFactsError."""
    value = None if text is None else text.strip()
    if value is None or _is_na(value):
        return None
    if not _INT_RE.fullmatch(value):
        raise GpuFactsError("nvidia-smi -q -x: %s %s is %s, not a number" % (where, path, _snippet(value)))
    if len(value) > MAX_DIGITS:
        # No count nvidia-smi prints has that many digits (and Python 3.11+ refuses int() of 4,300).
        raise GpuFactsError("nvidia-smi -q -x: %s %s is %s, too long a number" % (where, path, _snippet(value)))
    return int(value)


def _int_field(node, path, where):
    found = node.find(path)
    return _int_text(found.text if found is not None else None, where, path)


def _mode_field(node, path):
    """'enabled' or 'disabled' (from Enabled/Disabled); None when absent, N/A or anything else."""
    value = (_field(node, path) or "").lower()
    return value if value in ("enabled", "disabled") else None


def _bool_field(node, path, where):
    """Yes/No (or True/False, any case) as a bool; None when absent or N/A."""
    value = _field(node, path)
    if value is None:
        return None
    if value.lower() in _TRUE:
        return True
    if value.lower() in _FALSE:
        return False
    raise GpuFactsError("nvidia-smi -q -x: %s %s is %s, not Yes or No" % (where, path, _snippet(value)))


def _width_field(node, path, where):
    """A PCIe link width like '16x' as 16; None when absent or N/A."""
    value = _field(node, path)
    if value is None:
        return None
    match = _WIDTH_RE.fullmatch(value)
    if not match:
        raise GpuFactsError("nvidia-smi -q -x: %s %s is %s, not a link width like 16x" % (where, path, _snippet(value)))
    return _int_text(match.group(1), where, path)


def _mib_field(node, path, where):
    """An amount like '81920 MiB' as an int; None when absent, N/A or in another unit."""
    value = _field(node, path)
    match = _MIB_RE.fullmatch(value) if value is not None else None
    return _int_text(match.group(1), where, path) if match else None


def normalize_pci_bus_id(text):
    """'0000:18:00.0' or '00000000:18:00.0' -> '00000000:18:00.0' (NVML's upper-case form)."""
    match = _PCI_RE.fullmatch(text.strip()) if isinstance(text, str) else None
    if not match:
        raise GpuFactsError("unreadable PCI bus id %s" % _snippet(str(text)))
    return "%08X:%02X:%02X.%X" % tuple(int(group, 16) for group in match.groups())


def slurm_type_name(product_name):
    """The GRES type Slurm's NVML AutoDetect gives a product name: lower case, spaces to '_'.

    'NVIDIA H100 80GB HBM3' -> 'nvidia_h100_80gb_hbm3'. Characters that would
    break a gres.conf/slurm.conf line (':', ',', '=', '#', quotes, other
    white space) also become '_'; real product names have none.
    """
    return _TYPE_UNSAFE_RE.sub("_", product_name.strip().lower())


def _mig_devices(node, where, minor):
    devices = []
    seen = set()
    for position, dev in enumerate(node.findall("mig_devices/mig_device")):
        mig_where = "%s MIG device %d" % (where, position)
        index = _int_field(dev, "index", mig_where)
        if index is None:
            index = position
        if index in seen:
            raise GpuFactsError("nvidia-smi -q -x: %s lists MIG device %d twice" % (where, index))
        seen.add(index)
        devices.append({
            "index": index,
            "gpu_instance_id": _int_field(dev, "gpu_instance_id", mig_where),
            "compute_instance_id": _int_field(dev, "compute_instance_id", mig_where),
            "multiprocessor_count": _int_field(dev, "device_attributes/shared/multiprocessor_count", mig_where),
            "memory_mib": _mib_field(dev, "fb_memory_usage/total", mig_where),
            # -q -x names no profile and no slice count: nvidia-smi -L does (apply_mig_profiles).
            "profile": None,
            "uuid": None,
            "files": ["/dev/nvidia%d" % minor] if minor is not None else [],
        })
    return devices


def _ecc_uncorrectable(node, kind, where):
    """Uncorrectable ECC errors of one kind (volatile or aggregate); None when nothing is known.

    The layout follows the GPU, not the DTD version: Pascal and Volta (the
    V100S, Quadro P400 and P2000 captures, drivers 418 to 525) print
    ``single_bit``/``double_bit`` counters, read as ``double_bit/total``;
    Turing and newer (T4 and GTX 1660 Ti already under driver 418) name the
    counters by memory (``sram_uncorrectable``, ``dram_uncorrectable``; DTD
    v13 splits SRAM into ``sram_uncorrectable_parity`` and
    ``sram_uncorrectable_secded``), and every child whose tag holds
    ``uncorrectable`` is summed. N/A counters are left out of the sum, not
    read as 0; when all of them are N/A the answer is None.
    """
    path = "ecc_errors/" + kind
    counters = node.find(path)
    if counters is None:
        return None
    if counters.find("double_bit") is not None:
        return _int_field(node, path + "/double_bit/total", where)
    total = None
    for child in counters:
        tag = child.tag if isinstance(child.tag, str) else ""
        if "uncorrectable" not in tag or len(child):
            continue
        value = _int_text(child.text, where, path + "/" + tag)
        if value is not None:
            total = value if total is None else total + value
    return total


def _retired_pages(node, where):
    """Dynamic page retirement (Kepler to Turing); None when absent or all N/A.

    Ampere and newer datacenter GPUs remap rows instead (_remapped_rows) and
    print N/A here; ``pending`` is ``pending_retirement``, or the older name
    ``pending_blacklist`` when that is missing or N/A.
    """
    base = "retired_pages/"
    single = _int_field(node, base + "multiple_single_bit_retirement/retired_count", where)
    double = _int_field(node, base + "double_bit_retirement/retired_count", where)
    pending = _bool_field(node, base + "pending_retirement", where)
    if pending is None:
        pending = _bool_field(node, base + "pending_blacklist", where)
    if single is None and double is None and pending is None:
        return None
    return {"single_bit": single, "double_bit": double, "pending": pending}


def _remapped_rows(node, where):
    """Row remapping (A100 and newer datacenter GPUs); None when absent, N/A, or all of its values N/A."""
    base = "remapped_rows/"
    rows = {
        "correctable": _int_field(node, base + "remapped_row_corr", where),
        "uncorrectable": _int_field(node, base + "remapped_row_unc", where),
        "pending": _bool_field(node, base + "remapped_row_pending", where),
        "failure": _bool_field(node, base + "remapped_row_failure", where),
    }
    return rows if any(value is not None for value in rows.values()) else None


def _pcie_link(node, where):
    """PCIe generation and width, maximum (what device and host allow together) and current.

    ``max_link_gen`` is the most the GPU and the host allow together (NVML
    nvmlDeviceGetMaxPcieLinkGeneration); ``max_device_link_gen`` (v12+) is the
    GPU's own maximum, which can be higher, so it is never used in its place.
    ``device_current_link_gen`` (v12+) stands in for a missing or N/A
    ``current_link_gen``: every v12/v13 capture prints the two alike.
    """
    base = "pci/pci_gpu_link_info/"
    current = _int_field(node, base + "pcie_gen/current_link_gen", where)
    if current is None:
        current = _int_field(node, base + "pcie_gen/device_current_link_gen", where)
    return {
        "max_gen": _int_field(node, base + "pcie_gen/max_link_gen", where),
        "current_gen": current,
        "max_width": _width_field(node, base + "link_widths/max_link_width", where),
        "current_width": _width_field(node, base + "link_widths/current_link_width", where),
    }


def _processes(node, where):
    """The compute and graphics processes on the GPU: [{pid, type, name, used_memory_mib}].

    ``<processes>`` holds one ``<process_info>`` per process (pid, type C, G or
    C+G, process_name, used_memory); it is empty or ``<processes />`` when none
    runs. A pid is the host's, as the driver sees it.
    """
    found = []
    for info in node.findall("processes/process_info"):
        pid = _int_field(info, "pid", where)
        if pid is None:
            continue
        found.append({"pid": pid, "type": _field(info, "type"), "name": _field(info, "process_name"),
                      "used_memory_mib": _mib_field(info, "used_memory", where)})
    return found


_UNIT_RE = re.compile(r"^([0-9]+(?:\.[0-9]+)?)\s*(%|C|W|MHz|MiB)$")


def _unit_field(node, paths, unit):
    """The number of the first of paths whose value reads '<number> <unit>' ('97 %', '66 C', '232.80 W');
    None when all are absent, N/A or say something else ('Requested functionality has been deprecated')."""
    for path in paths:
        value = _field(node, path)
        match = _UNIT_RE.match(value) if value is not None else None
        if match and match.group(2) == unit:
            number = float(match.group(1))
            return int(number) if unit in ("%", "C", "MHz", "MiB") else number
    return None


# A temperature or an offset from T.Limit, as nvidia-smi prints them: '50 C', '-2 C' (whole degrees).
_CELSIUS_RE = re.compile(r"^(-?[0-9]{1,4}) C$")


def _celsius_field(node, path):
    """Whole degrees Celsius of path, negative ones too ('-8 C'); None when absent, N/A or something else."""
    value = _field(node, path)
    match = _CELSIUS_RE.match(value) if value is not None else None
    return int(match.group(1)) if match else None


def _temperature_margin(node, tlimit_threshold, absolute_threshold):
    """Degrees Celsius the GPU has left before a thermal threshold (slowdown or shutdown); negative past it.

    Two layouts. Drivers of the T.Limit era (a real H100 on 580.159.04, a
    Blackwell on 590) print ``gpu_temp_tlimit``, how far the GPU is below its
    T.Limit (its maximum operating temperature), and each threshold as an
    offset from T.Limit (``gpu_temp_slow_tlimit_threshold`` -2 C: slowdown 2 C
    past T.Limit), and no absolute thresholds. The margin is then the reading
    less the threshold's offset: 37 C - (-2 C) = 39 C on the H100 at 50 C,
    whose slowdown temperature NVML gave as 89 C. Older drivers print
    absolute thresholds (``gpu_temp_slow_threshold`` 87 C) and the margin is
    threshold less ``gpu_temp``. Where a GPU prints both, the T.Limit pair
    wins: it is the driver's own distance. None where neither pair is there.
    """
    tlimit = _celsius_field(node, "temperature/gpu_temp_tlimit")
    offset = _celsius_field(node, "temperature/" + tlimit_threshold)
    if tlimit is not None and offset is not None:
        return tlimit - offset
    temperature = _celsius_field(node, "temperature/gpu_temp")
    threshold = _celsius_field(node, "temperature/" + absolute_threshold)
    if temperature is not None and threshold is not None:
        return threshold - temperature
    return None


def _event_reasons(node):
    """{reason: active} of clocks_event_reasons (DTD v12+) or clocks_throttle_reasons (older), short names."""
    out = {}
    for section, prefix in (("clocks_event_reasons", "clocks_event_reason_"),
                            ("clocks_throttle_reasons", "clocks_throttle_reason_")):
        found = node.find(section)
        if found is None:
            continue
        for child in found:
            tag = child.tag if isinstance(child.tag, str) else ""
            text = (child.text or "").strip()
            if tag.startswith(prefix) and text in ("Active", "Not Active"):
                out[tag[len(prefix):]] = text == "Active"
        break
    return out


def _readings(node):
    """What a GPU reports now (the exporter's gauges); None for what it does not report.

    Power moved from power_readings/power_draw and power_limit (DTD v11) to
    gpu_power_readings/power_draw and current_power_limit (v12), and the draw
    to instant_power_draw (v13, where power_draw is gone). The margins to
    slowdown and shutdown read both temperature layouts (_temperature_margin);
    the slowdown temperature itself only where the driver prints it.
    """
    return {
        "utilization_gpu_pct": _unit_field(node, ["utilization/gpu_util"], "%"),
        "utilization_memory_pct": _unit_field(node, ["utilization/memory_util"], "%"),
        "memory_used_mib": _unit_field(node, ["fb_memory_usage/used"], "MiB"),
        "memory_total_mib": _unit_field(node, ["fb_memory_usage/total"], "MiB"),
        "temperature_c": _unit_field(node, ["temperature/gpu_temp"], "C"),
        "memory_temperature_c": _unit_field(node, ["temperature/memory_temp"], "C"),
        "slowdown_temperature_c": _unit_field(node, ["temperature/gpu_temp_slow_threshold"], "C"),
        "slowdown_margin_c": _temperature_margin(node, "gpu_temp_slow_tlimit_threshold", "gpu_temp_slow_threshold"),
        "shutdown_margin_c": _temperature_margin(node, "gpu_temp_max_tlimit_threshold", "gpu_temp_max_threshold"),
        "power_w": _unit_field(node, ["gpu_power_readings/instant_power_draw", "gpu_power_readings/power_draw",
                                      "power_readings/power_draw"], "W"),
        "power_limit_w": _unit_field(node, ["gpu_power_readings/current_power_limit", "power_readings/power_limit"],
                                     "W"),
        "clocks_mhz": dict((name, _unit_field(node, ["clocks/%s_clock" % name], "MHz"))
                           for name in ("graphics", "sm", "mem", "video")),
        "clock_event_reasons": _event_reasons(node),
    }


def gpu_fabric(node):
    """The GPU's NVLink fabric from its ``<fabric>`` element (DTD v12: state and status; v13 adds cliqueId,
    clusterUuid and health): {state, status, clique_id, cluster_uuid}, each None where N/A; None when the
    element is absent or all four are N/A (GPUs outside a multi-node NVLink system, such as H100 PCIe)."""
    fabric = node.find("fabric")
    if fabric is None:
        return None
    values = {"state": _field(fabric, "state"), "status": _field(fabric, "status"),
              "clique_id": _field(fabric, "cliqueId"), "cluster_uuid": _field(fabric, "clusterUuid")}
    if all(value is None for value in values.values()):
        return None
    return dict((key, value if value is None else _clipped(value)) for key, value in values.items())


def _clipped(text, limit=80):
    """text on one line cut to limit characters (a fabric value is a word, a number or a UUID)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "..."


def _gpu(node, position):
    where = "GPU %d" % position
    name = _field(node, "product_name")
    if name is None:
        raise GpuFactsError("nvidia-smi -q -x: %s has no product_name" % where)
    bus = _field(node, "pci/pci_bus_id") or (node.get("id") or "").strip() or None
    pci_bus_id = None
    if bus is not None:
        try:
            pci_bus_id = normalize_pci_bus_id(bus)
        except GpuFactsError as exc:
            raise GpuFactsError("nvidia-smi -q -x: %s: %s" % (where, exc))
    minor = _int_field(node, "minor_number", where)
    current_mig = (_field(node, "mig_mode/current_mig") or "").lower()
    numa = _field(node, "numa_node")
    if numa is None:
        numa = _field(node, "pci/numa_node")
    return {
        "index": position,
        "minor_number": minor,
        "uuid": _field(node, "uuid"),
        "name": name,
        "slurm_type": slurm_type_name(name),
        "memory_mib": _mib_field(node, "fb_memory_usage/total", where),
        "pci_bus_id": pci_bus_id,
        "numa_node": _int_text(numa, where, "numa_node") if numa is not None and _INT_RE.fullmatch(numa) else None,
        "mig_mode": current_mig if current_mig in ("enabled", "disabled") else None,
        "mig_devices": _mig_devices(node, where, minor),
        "persistence_mode": _mode_field(node, "persistence_mode"),
        "ecc_mode": _mode_field(node, "ecc_mode/current_ecc"),
        "ecc_uncorrectable": dict((kind, _ecc_uncorrectable(node, kind, where)) for kind in ("volatile", "aggregate")),
        "retired_pages": _retired_pages(node, where),
        "remapped_rows": _remapped_rows(node, where),
        "pcie_link": _pcie_link(node, where),
        "fabric": gpu_fabric(node),
    }


def parse_smi_xml(text, processes=False, readings=False):
    """Driver, CUDA and per-GPU facts from ``nvidia-smi -q -x``.

    processes=True adds each GPU's processes, readings=True what it reports
    now (utilization, memory used, temperatures, power, clocks and the
    reasons they are held down), for the GPU exporter.

    Reads the DTD v11/v12/v13 layouts, with or without the XML declaration
    and DOCTYPE, indented with spaces or tabs.
    """
    body = _as_text(text, "nvidia-smi -q -x").strip()
    if not body:
        raise GpuFactsError("nvidia-smi -q -x: empty output")
    if not body.startswith("<"):
        raise GpuFactsError("nvidia-smi -q -x: not XML, starts with %s" % _snippet(body, 40))
    if "<!ENTITY" in body:
        raise GpuFactsError("nvidia-smi -q -x: entity declarations are not accepted")
    try:
        root = ET.fromstring(body)
    except ET.ParseError as exc:
        raise GpuFactsError("nvidia-smi -q -x: malformed XML (%s)" % exc)
    except (ValueError, UnicodeError) as exc:
        raise GpuFactsError("nvidia-smi -q -x: unreadable XML (%s)" % str(exc).splitlines()[0])
    if root.tag != "nvidia_smi_log":
        raise GpuFactsError("nvidia-smi -q -x: root element is %s, not nvidia_smi_log" % _snippet(str(root.tag), 40))
    gpus = [_gpu(node, position) for position, node in enumerate(root.findall("gpu"))]
    if processes or readings:
        for gpu, node in zip(gpus, root.findall("gpu")):
            if processes:
                gpu["processes"] = _processes(node, "GPU %d" % gpu["index"])
            if readings:
                gpu["readings"] = _readings(node)
    attached = _field(root, "attached_gpus")
    return {
        "driver_version": _field(root, "driver_version"),
        "cuda_version": _field(root, "cuda_version"),
        "attached_gpus": _int_text(attached, "log", "attached_gpus") if attached is not None and _INT_RE.fullmatch(attached) else None,
        "gpus": gpus,
    }


# --------------------------------------------------------------------------
# nvidia-smi -L

def parse_smi_list(text):
    """GPUs and MIG devices from ``nvidia-smi -L``.

    Returns [{index, name, uuid, mig_devices: [{index, profile, uuid,
    gpu_instance_id, compute_instance_id}]}]. GI/CI ids are known only from
    legacy ``MIG-GPU-<uuid>/<gi>/<ci>`` UUIDs, else None.
    """
    body = _as_text(text, "nvidia-smi -L")
    gpus = []
    for number, raw in enumerate(body.splitlines(), 1):
        line = raw.rstrip()
        if not line.strip():
            continue
        where = "nvidia-smi -L line %d" % number
        match = _L_GPU_RE.fullmatch(line)
        if match:
            gpus.append({"index": small_int(match.group(1), where + ": GPU index", GpuFactsError),
                         "name": match.group(2), "uuid": match.group(3), "mig_devices": []})
            continue
        match = _L_MIG_RE.fullmatch(line)
        if match and gpus:
            legacy = _L_LEGACY_MIG_UUID_RE.fullmatch(match.group(3))
            gpus[-1]["mig_devices"].append({
                "index": small_int(match.group(2), where + ": MIG device index", GpuFactsError),
                "profile": match.group(1),
                "uuid": match.group(3),
                "gpu_instance_id": small_int(legacy.group(1), where + ": GPU instance id", GpuFactsError) if legacy else None,
                "compute_instance_id": (small_int(legacy.group(2), where + ": compute instance id", GpuFactsError)
                                        if legacy else None),
            })
            continue
        raise GpuFactsError("nvidia-smi -L: unexpected line %s" % _snippet(line.strip()))
    if not gpus:
        raise GpuFactsError("nvidia-smi -L: no GPU lines")
    return gpus


def apply_mig_profiles(gpus, listing):
    """Copy of gpus whose MIG devices carry profile and uuid from parse_smi_list's result.

    GPUs are matched by UUID, MIG devices by their index on the GPU. A GPU
    with MIG devices that the listing lacks is an error (the two outputs
    come from different moments or machines).
    """
    by_uuid = dict((entry["uuid"], entry) for entry in listing)
    result = copy.deepcopy(gpus)
    for gpu in result:
        if not gpu.get("mig_devices"):
            continue
        entry = by_uuid.get(gpu.get("uuid"))
        if entry is None:
            raise GpuFactsError("nvidia-smi -L does not list GPU %d (%s)" % (gpu["index"], gpu.get("uuid")))
        listed = dict((mig["index"], mig) for mig in entry["mig_devices"])
        for mig in gpu["mig_devices"]:
            found = listed.get(mig["index"])
            if found is None:
                raise GpuFactsError("nvidia-smi -L lists no MIG device %d on GPU %d" % (mig["index"], gpu["index"]))
            for key in ("gpu_instance_id", "compute_instance_id"):
                if found[key] is not None and mig[key] is not None and found[key] != mig[key]:
                    raise GpuFactsError("nvidia-smi -L: GPU %d MIG device %d has %s %d, -q -x says %d"
                                        % (gpu["index"], mig["index"], key, found[key], mig[key]))
            mig["profile"] = found["profile"]
            mig["uuid"] = found["uuid"]
    return result


# --------------------------------------------------------------------------
# /proc/driver/nvidia-caps/mig-minors

def parse_mig_minors(text):
    """``/proc/driver/nvidia-caps/mig-minors`` as {name: minor}, e.g. {'gpu0/gi1/access': 12}."""
    body = _as_text(text, "mig-minors")
    result = {}
    for number, raw in enumerate(body.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        match = _MIG_MINOR_RE.fullmatch(line)
        if not match:
            raise GpuFactsError("mig-minors: unexpected line %s" % _snippet(line))
        result[match.group(1)] = small_int(match.group(2), "mig-minors line %d: minor of %s" % (number, _snippet(match.group(1), 40)),
                                           GpuFactsError)
    return result


# --------------------------------------------------------------------------
# nvidia-smi topo -m

def _header_columns(line):
    tokens = line.split()
    columns = []
    i = 0
    while i < len(tokens):
        for name in _TRAILING_COLUMNS:
            words = name.split()
            if tokens[i:i + len(words)] == words:
                columns.append(name)
                i += len(words)
                break
        else:
            columns.append(tokens[i])
            i += 1
    return columns


def _check_header(header, columns):
    if not columns or columns[0] != "GPU0":
        raise GpuFactsError("nvidia-smi topo -m: unexpected header %s" % _snippet(header.strip()))
    devices = []
    seen = set()
    trailing = []
    for column in columns:
        if column in _TRAILING_COLUMNS:
            if column in trailing:
                raise GpuFactsError("nvidia-smi topo -m: column %r twice in the header" % column)
            trailing.append(column)
            continue
        if trailing:
            raise GpuFactsError("nvidia-smi topo -m: unexpected header column %s after %r" % (_snippet(column), trailing[-1]))
        if not _DEVICE_COL_RE.fullmatch(column) or _LINK_RE.fullmatch(column) or column in seen:
            raise GpuFactsError("nvidia-smi topo -m: unexpected header column %s" % _snippet(column))
        devices.append(column)
        seen.add(column)
    gpu_count = 0
    for column in devices:
        match = _GPU_COL_RE.fullmatch(column)
        if not match:
            break
        if column != "GPU%d" % gpu_count:
            raise GpuFactsError("nvidia-smi topo -m: header column %s out of order (expected GPU%d)" % (_snippet(column), gpu_count))
        gpu_count += 1
    for column in devices[gpu_count:]:
        if _GPU_COL_RE.fullmatch(column):
            raise GpuFactsError("nvidia-smi topo -m: header column %s after a NIC column" % _snippet(column))
    return devices, gpu_count, trailing


def _affinity(label, trailing, extra, warnings):
    values = dict((name, None) for name in _TRAILING_COLUMNS)
    if len(extra) > len(trailing):
        raise GpuFactsError("nvidia-smi topo -m: row %s has %d cells after the matrix, the header names %d"
                            % (label, len(extra), len(trailing)))
    if extra and len(extra) < len(trailing):
        # Which cell is missing cannot be told from whitespace-separated text.
        warnings.append("nvidia-smi topo -m: row %s has %d of %d affinity cells; its affinity is left unknown"
                        % (label, len(extra), len(trailing)))
        extra = []
    for name, value in zip(trailing, extra):
        values[name] = None if _is_na(value) else value
    cpus = values["CPU Affinity"]
    if cpus is not None:
        try:
            cpu_list(cpus)
        except GpuFactsError as exc:
            raise GpuFactsError("nvidia-smi topo -m: row %s CPU Affinity: %s" % (label, exc))
    numa = values["NUMA Affinity"]
    if numa is not None:
        try:
            cpu_list(numa)
        except GpuFactsError:
            raise GpuFactsError("nvidia-smi topo -m: row %s NUMA Affinity %s is not a node list" % (label, _snippet(numa)))
    gpu_numa = values["GPU NUMA ID"]
    if gpu_numa is not None and not _INT_RE.fullmatch(gpu_numa):
        raise GpuFactsError("nvidia-smi topo -m: row %s GPU NUMA ID %s is not a number" % (label, _snippet(gpu_numa)))
    if gpu_numa is not None:
        gpu_numa = small_int(gpu_numa, "nvidia-smi topo -m: row %s GPU NUMA ID" % label, GpuFactsError)
    return cpus, numa, gpu_numa


def parse_topo(text):
    """The ``nvidia-smi topo -m`` matrix, NICs, and per-GPU affinity and NVLinks.

    Returns {columns, matrix: {row: {column: connection}}, nics: {column:
    device}, gpus: [{index, cpu_affinity, numa_affinity, gpu_numa_id,
    nvlinks: {peer index: link count}}], warnings}. Connections are X, SYS,
    NODE, PHB, PXB, PIX or NV<n>; the old name SOC is reported as SYS.
    Affinity cells that are empty, N/A or cannot be placed are None. Tab or
    space separated, ANSI escapes (driver 590 underlines the header) and the
    legend after the matrix are accepted.
    """
    body = _as_text(text, "nvidia-smi topo -m")
    lines = [_ANSI_RE.sub("", line).rstrip() for line in body.splitlines()]
    start = 0
    while start < len(lines) and not lines[start].strip():
        start += 1
    if start == len(lines):
        raise GpuFactsError("nvidia-smi topo -m: empty output")
    header = lines[start]
    devices, gpu_count, trailing = _check_header(header, _header_columns(header))
    width = len(devices)
    positions = dict((device, position) for position, device in enumerate(devices))
    matrix = {}
    warnings = []
    gpus = {}
    end = start + 1
    for line in lines[start + 1:]:
        if not line.strip() or line.strip().startswith("Legend"):
            break
        end += 1
        tokens = line.split()
        label = tokens[0]
        if label not in positions:
            raise GpuFactsError("nvidia-smi topo -m: row %s is not a column of the header" % _snippet(label))
        if label in matrix:
            raise GpuFactsError("nvidia-smi topo -m: row %s twice" % label)
        cells = tokens[1:1 + width]
        if len(cells) < width:
            raise GpuFactsError("nvidia-smi topo -m: row %s has %d cells, the header names %d devices" % (label, len(cells), width))
        row = {}
        for column, cell in zip(devices, cells):
            if not _LINK_RE.fullmatch(cell):
                raise GpuFactsError("nvidia-smi topo -m: row %s column %s: unknown connection %s" % (label, column, _snippet(cell)))
            if (cell == "X") != (column == label):
                raise GpuFactsError("nvidia-smi topo -m: row %s column %s is %s (X must mark exactly the diagonal)" % (label, column, cell))
            row[column] = "SYS" if cell == "SOC" else cell
        matrix[label] = row
        extra = tokens[1 + width:]
        gpu_match = _GPU_COL_RE.fullmatch(label)
        if gpu_match and positions[label] < gpu_count:
            cpus, numa, gpu_numa = _affinity(label, trailing, extra, warnings)
            nvlinks = {}
            for peer, column in enumerate(devices[:gpu_count]):
                if row[column].startswith("NV"):
                    nvlinks[peer] = small_int(
                        row[column][2:], "nvidia-smi topo -m: row %s column %s: NVLink count" % (label, column), GpuFactsError)
            position = positions[label]
            gpus[position] = {
                "index": position,
                "cpu_affinity": cpus,
                "numa_affinity": numa,
                "gpu_numa_id": gpu_numa,
                "nvlinks": nvlinks,
            }
        elif extra:
            raise GpuFactsError("nvidia-smi topo -m: row %s has %d cells, the header names %d devices" % (label, width + len(extra), width))
    missing = [device for device in devices if device not in matrix]
    if missing:
        raise GpuFactsError("nvidia-smi topo -m: no row for %s" % ", ".join(missing))
    legend = {}
    for line in lines[end:]:
        match = _NIC_LEGEND_RE.fullmatch(line)
        if match:
            legend[match.group(1)] = match.group(2)
    nics = {}
    for device in devices[gpu_count:]:
        # Old drivers name NIC columns by device (mlx5_2); newer ones NICn plus a legend.
        nics[device] = legend.get(device) if _NIC_COL_RE.fullmatch(device) else device
    return {
        "columns": devices,
        "matrix": matrix,
        "nics": nics,
        "gpus": [gpus[index] for index in range(gpu_count)],
        "warnings": warnings,
    }


# --------------------------------------------------------------------------
# CPU lists and Slurm cores

def cpu_list(text):
    """'0-47,96-143' -> [0, 1, ..., 47, 96, ..., 143] (sorted, no duplicates)."""
    if not isinstance(text, str):
        raise GpuFactsError("CPU list must be text, got %s" % type(text).__name__)
    if not text.strip():
        raise GpuFactsError("empty CPU list")
    cpus = set()
    for part in text.strip().split(","):
        match = _RANGE_RE.fullmatch(part.strip())
        if not match:
            raise GpuFactsError("bad CPU list %s" % _snippet(text))
        # Zeros stripped first: int() refuses 4,300 digits, zeros included (Python 3.11+).
        bounds = [(group.lstrip("0") or "0") for group in match.groups() if group is not None]
        if max(len(bound) for bound in bounds) > len(str(MAX_CPU_ID)):
            raise GpuFactsError("bad CPU list %s: CPU id above %d" % (_snippet(text), MAX_CPU_ID))
        low = int(bounds[0])
        high = int(bounds[-1])
        if high < low:
            raise GpuFactsError("bad CPU list %s: range %s runs backwards" % (_snippet(text), part.strip()))
        if high > MAX_CPU_ID:
            raise GpuFactsError("bad CPU list %s: CPU id above %d" % (_snippet(text), MAX_CPU_ID))
        cpus.update(range(low, high + 1))
    return sorted(cpus)


def compress_ranges(numbers):
    """[0, 1, 2, 5, 7, 8] -> '0-2,5,7-8'."""
    parts = []
    values = sorted(set(numbers))
    i = 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[j + 1] == values[j] + 1:
            j += 1
        parts.append("%d" % values[i] if i == j else "%d-%d" % (values[i], values[j]))
        i = j + 1
    return ",".join(parts)


def _check_cpu_topology(cpu_topology):
    if not isinstance(cpu_topology, dict):
        raise GpuFactsError("CPU topology must be a dict of {os cpu: (package, core)}")
    for cpu, pair in cpu_topology.items():
        if (not isinstance(cpu, int) or not isinstance(pair, (tuple, list)) or len(pair) != 2
                or not all(isinstance(value, int) for value in pair)):
            raise GpuFactsError("CPU topology entry %s: %s is not (package, core)" % (_short_repr(cpu), _short_repr(pair)))


def slurm_cores(os_cpus, cpu_topology):
    """Slurm Cores= for a GPU from the OS CPU ids it is close to.

    cpu_topology is {os cpu id: (physical_package_id, core_id)} for the
    online CPUs. Slurm's core index is the position of (package, core) among
    all distinct pairs in sorted order; every socket a CPU of os_cpus sits on
    is taken whole (Slurm binds GRES per socket). CPUs missing from the
    topology (offline) are ignored. Returns a range string like '0-47', or
    None when no CPU of os_cpus is in the topology.
    """
    if isinstance(os_cpus, str):
        os_cpus = cpu_list(os_cpus)
    _check_cpu_topology(cpu_topology)
    pairs = sorted(set(tuple(pair) for pair in cpu_topology.values()))
    sockets = set(tuple(cpu_topology[cpu])[0] for cpu in os_cpus if cpu in cpu_topology)
    if not sockets:
        return None
    return compress_ranges(position for position, pair in enumerate(pairs) if pair[0] in sockets)


# --------------------------------------------------------------------------
# gres.conf and slurm.conf Gres=

def mig_slurm_type(gpu, mig):
    """Slurm's GRES type of one MIG device, e.g. 'nvidia_a100_3g.39gb' (see the module docstring)."""
    profile = mig.get("profile")
    match = _PROFILE_RE.fullmatch(profile) if isinstance(profile, str) else None
    if not match:
        if profile is None:
            raise GpuFactsError("GPU %d MIG device %d: profile unknown (nvidia-smi -L names it)" % (gpu["index"], mig["index"]))
        raise GpuFactsError("GPU %d MIG device %d: unreadable profile %s" % (gpu["index"], mig["index"], _snippet(profile)))
    where = "GPU %d MIG device %d: profile %s" % (gpu["index"], mig["index"], _snippet(profile))
    slices, gigabytes = small_int(match.group(1), where, GpuFactsError), small_int(match.group(2), where, GpuFactsError)
    if mig.get("memory_mib") is not None:
        gigabytes = (mig["memory_mib"] * 2 + 1024) // 2048  # MiB / 1024 rounded half up, as Slurm's roundl()
    return "%s_%dg.%dgb" % (gpu["slurm_type"].split("-", 1)[0], slices, gigabytes)


def _pci_order(gpus):
    return sorted(gpus, key=lambda gpu: (gpu.get("pci_bus_id") is None, gpu.get("pci_bus_id") or "", gpu["index"]))


def _topo_gpus(topo, gpus):
    if topo is None:
        return {}
    listed = topo.get("gpus") or []
    if len(listed) != len(gpus):
        raise GpuFactsError("nvidia-smi topo -m lists %d GPUs, nvidia-smi -q -x %d" % (len(listed), len(gpus)))
    return dict((entry["index"], entry) for entry in listed)


def gpu_cores(topo_gpu, cpu_topology):
    """Cores= of one GPU from its topo entry, None when affinity or topology is unknown."""
    if not topo_gpu or not topo_gpu.get("cpu_affinity") or not cpu_topology:
        return None
    return slurm_cores(cpu_list(topo_gpu["cpu_affinity"]), cpu_topology)


def _mig_files(gpu, mig, mig_files):
    files = ["/dev/nvidia%d" % gpu["minor_number"]]
    if mig_files:
        gi, ci = mig.get("gpu_instance_id"), mig.get("compute_instance_id")
        keys = []
        if gi is not None:
            keys.append("gpu%d/gi%d/access" % (gpu["minor_number"], gi))
            if ci is not None:
                keys.append("gpu%d/gi%d/ci%d/access" % (gpu["minor_number"], gi, ci))
        for key in keys:
            if key in mig_files:
                files.append("/dev/nvidia-caps/nvidia-cap%d" % mig_files[key])
    return files


def _check_gpus(gpus):
    if not isinstance(gpus, list):
        raise GpuFactsError("gpus must be a list")
    minors = set()
    for gpu in gpus:
        if gpu.get("minor_number") is None:
            raise GpuFactsError("GPU %d (%s) has no minor number: its /dev/nvidiaN is unknown"
                                % (gpu["index"], gpu.get("pci_bus_id")))
        if gpu["minor_number"] in minors:
            raise GpuFactsError("two GPUs have minor number %d" % gpu["minor_number"])
        minors.add(gpu["minor_number"])


def gres_conf_lines(gpus, topo=None, cpu_topology=None, mig_files=None):
    """gres.conf lines for the GPUs of one node, in PCI bus id order.

    - ``Name=gpu Type=<slurm_type> File=/dev/nvidia<minor>``, by minor
      number, never by index.
    - ``Cores=`` from the topo CPU affinity and cpu_topology (slurm_cores).
    - ``Links=`` when any NVLink exists: one entry per GPU in PCI bus id
      order, -1 for the GPU itself, the NV# link count, 0 for none.
    - A MIG-enabled GPU gives one line per MIG device, Type from
      mig_slurm_type, ``MultipleFiles=`` the parent file and the capability
      files found in mig_files (parse_mig_minors), same Cores, no Links. A
      MIG-enabled GPU without MIG devices gives no line.
    - Adjacent non-MIG lines without Links that differ only in consecutive
      minors are merged into ``File=/dev/nvidia[0-3]`` (gres.conf wants
      one device per line when Links is given).
    """
    _check_gpus(gpus)
    topo_gpus = _topo_gpus(topo, gpus)
    ordered = _pci_order(gpus)
    with_links = any(entry.get("nvlinks") for entry in topo_gpus.values())
    records = []
    for gpu in ordered:
        cores = gpu_cores(topo_gpus.get(gpu["index"]), cpu_topology)
        if gpu.get("mig_mode") == "enabled":
            for mig in sorted(gpu.get("mig_devices") or [], key=lambda item: item["index"]):
                records.append({"type": mig_slurm_type(gpu, mig), "multiple": _mig_files(gpu, mig, mig_files), "cores": cores})
            continue
        links = None
        if with_links:
            nvlinks = topo_gpus[gpu["index"]].get("nvlinks") or {}
            links = ",".join("-1" if other is gpu else "%d" % nvlinks.get(other["index"], 0) for other in ordered)
        records.append({"type": gpu["slurm_type"], "minors": [gpu["minor_number"]], "cores": cores, "links": links})
    merged = []
    for record in records:
        last = merged[-1] if merged else None
        if (last is not None and "minors" in record and "minors" in last and record["links"] is None and last["links"] is None
                and record["type"] == last["type"] and record["cores"] == last["cores"]
                and record["minors"][0] == last["minors"][-1] + 1):
            last["minors"].append(record["minors"][0])
            continue
        merged.append(record)
    lines = []
    for record in merged:
        if "multiple" in record:
            line = "Name=gpu Type=%s MultipleFiles=%s" % (record["type"], ",".join(record["multiple"]))
        else:
            minors = record["minors"]
            path = "/dev/nvidia%d" % minors[0] if len(minors) == 1 else "/dev/nvidia[%d-%d]" % (minors[0], minors[-1])
            line = "Name=gpu Type=%s File=%s" % (record["type"], path)
        if record["cores"]:
            line += " Cores=%s" % record["cores"]
        if record.get("links"):
            line += " Links=%s" % record["links"]
        lines.append(line)
    return lines


def slurm_gres(gpus):
    """The node's slurm.conf ``Gres=`` value: 'gpu:<type>:<count>' per type, sorted by type.

    MIG-enabled GPUs count by their MIG devices' types. '' when no GPU.
    """
    counts = {}
    for gpu in gpus:
        if gpu.get("mig_mode") == "enabled":
            types = [mig_slurm_type(gpu, mig) for mig in gpu.get("mig_devices") or []]
        else:
            types = [gpu["slurm_type"]]
        for name in types:
            counts[name] = counts.get(name, 0) + 1
    return ",".join("gpu:%s:%d" % (name, counts[name]) for name in sorted(counts))


# --------------------------------------------------------------------------
# PCI functions from sysfs, and whether an NVSwitch fabric joins the GPUs

def _sysfs_value(value, pattern):
    """The hex number in one sysfs attribute (text or bytes, e.g. '0x10de\\n'); None when unreadable."""
    if isinstance(value, bytes):
        value = value.decode("ascii", "replace")
    if not isinstance(value, str):
        return None
    match = pattern.fullmatch(value.strip())
    return int(match.group(1), 16) if match else None


def parse_pci_devices(entries):
    """NVIDIA GPUs and NVSwitch chips among the PCI functions of /sys/bus/pci/devices.

    entries: [(address, vendor text, class text)] as read from
    ``<address>/vendor`` (``0x10de``) and ``<address>/class`` (``0x030200``);
    a file that could not be read is None. Returns {"pci_gpus": [...],
    "nvswitches": [...]}, the addresses (``0000:3b:00.0``, lower case) sorted
    by domain, bus, device and function:

    - pci_gpus: vendor 0x10de, base class 0x03 (display controller: 0x0300
      VGA on GeForce/RTX boards, 0x0302 3D controller on data-centre GPUs).
      Needs no driver: the PCI core lists every function at boot.
    - nvswitches: vendor 0x10de, class 0x0680 (bridge, other), which is how
      the NVSwitch chips of HGX/DGX A100 (device 0x1af1) and H100 (0x22a3)
      boards show up.

    Other functions of NVIDIA boards (HD audio 0x0403, USB 0x0c03) and other
    vendors are ignored. (The Ethernet of 2005-2008 nForce chipsets, e.g.
    MCP61 10de:03ef, is class 0x0680 too and would be listed as a switch.)
    An entry that is not a 3-tuple, an address that is not a PCI address,
    or a vendor or class that is missing or not a hex number is skipped:
    this never raises.
    """
    found = {"pci_gpus": set(), "nvswitches": set()}
    for entry in entries if isinstance(entries, (list, tuple)) else []:
        if not isinstance(entry, (list, tuple)) or len(entry) != 3:
            continue
        address, vendor, pci_class = entry
        if isinstance(address, bytes):
            address = address.decode("ascii", "replace")
        match = _SYSFS_PCI_RE.fullmatch(address) if isinstance(address, str) else None
        if not match or _sysfs_value(vendor, _SYSFS_VENDOR_RE) != NVIDIA_PCI_VENDOR:
            continue
        code = _sysfs_value(pci_class, _SYSFS_CLASS_RE)
        if code is None:
            continue
        if code >> 16 == PCI_BASE_CLASS_DISPLAY:
            found["pci_gpus"].add(address.lower())
        elif code >> 8 == PCI_CLASS_BRIDGE_OTHER:
            found["nvswitches"].add(address.lower())
    return dict((key, sorted(values, key=_pci_sort_key)) for key, values in found.items())


def _pci_sort_key(address):
    return tuple(int(part, 16) for part in _SYSFS_PCI_RE.fullmatch(address).groups())


def _peer_index(peer):
    if isinstance(peer, bool):
        return None
    if isinstance(peer, int):
        return peer
    if isinstance(peer, str) and _INT_RE.fullmatch(peer) and len(peer) <= MAX_DIGITS:
        return int(peer)
    return None


def nvlink_all_to_all(gpus):
    """True when the NVLink counts of ``topo -m`` show the GPUs joined by an NVSwitch fabric.

    gpus: parse_topo's ``gpus`` (or build_facts' GPUs), each with ``index``
    and ``nvlinks`` {peer index (int or decimal string): link count}.

    True when there are at least 2 GPUs, every pair is joined by the same
    number of links c, and c * (GPUs - 1) > MAX_NVLINKS_PER_GPU (18). Behind
    NVSwitch every GPU reports all of its links towards every peer (NV12 on
    8x A100, NV18 on 8x H100), more links in total than any GPU has (18 on
    Hopper and Blackwell, 12 on Ampere). A direct mesh never passes: 4x A100
    HGX (NV4: 12), 4x H100 HGX (NV6: 18), the DGX-1 hybrid cube mesh
    (NV1/NV2, not all pairs) and 2-GPU NVLink bridges. False for anything
    else, including unknown topology or unreadable input; never raises.
    """
    if not isinstance(gpus, (list, tuple)) or len(gpus) < 2:
        return False
    indexes = []
    for gpu in gpus:
        index = _peer_index(gpu.get("index")) if isinstance(gpu, dict) else None
        if index is None:
            return False
        indexes.append(index)
    if len(set(indexes)) != len(indexes):
        return False
    counts = set()
    for index, gpu in zip(indexes, gpus):
        links = gpu.get("nvlinks")
        if not isinstance(links, dict):
            return False
        peers = set()
        for peer, count in links.items():
            peer = _peer_index(peer)
            if peer is None or peer in peers or isinstance(count, bool) or not isinstance(count, int) or count <= 0:
                return False
            peers.add(peer)
            counts.add(count)
        if peers != set(indexes) - set([index]):
            return False
    if len(counts) != 1:
        return False
    return counts.pop() * (len(gpus) - 1) > MAX_NVLINKS_PER_GPU


def fabric_facts(pci_devices=None, topo_gpus=None):
    """The keys pci_gpus, nvswitches, nvlink_all_to_all and fabric_manager_needed of gpuops_gpus.

    pci_devices: parse_pci_devices or None (sysfs not read); topo_gpus:
    parse_topo's ``gpus`` or None (topology unknown). nvidia-fabricmanager is
    needed when NVSwitch chips are on the PCI bus or the NVLink counts show
    an NVSwitch fabric (nvlink_all_to_all).
    """
    pci_devices = pci_devices if isinstance(pci_devices, dict) else {}
    switches = list(pci_devices.get("nvswitches") or [])
    all_to_all = nvlink_all_to_all(topo_gpus) if topo_gpus else False
    return {
        "pci_gpus": list(pci_devices.get("pci_gpus") or []),
        "nvswitches": switches,
        "nvlink_all_to_all": all_to_all,
        "fabric_manager_needed": bool(switches) or all_to_all,
    }


# --------------------------------------------------------------------------
# Everything together (what the module returns)

def build_facts(smi, topo=None, cpu_topology=None, listing=None, mig_minors=None, pci_devices=None):
    """(facts, warnings) from parsed outputs; facts is what gpu_facts returns as gpuops_gpus.

    smi: parse_smi_xml; topo: parse_topo or None; cpu_topology: {os cpu:
    (package, core)} or None; listing: parse_smi_list or None; mig_minors:
    parse_mig_minors or None; pci_devices: parse_pci_devices or None. A topo
    whose GPU count differs from smi's is dropped with a warning (and then
    nvlink_all_to_all is False). The keys of fabric_facts are always there.
    """
    warnings = []
    gpus = copy.deepcopy(smi["gpus"])
    if listing is not None:
        gpus = apply_mig_profiles(gpus, listing)
    if topo is not None and len(topo.get("gpus") or []) != len(gpus):
        warnings.append("nvidia-smi topo -m lists %d GPUs but nvidia-smi -q -x %d: CPU affinity and NVLinks left out"
                        % (len(topo.get("gpus") or []), len(gpus)))
        topo = None
    if topo is not None:
        warnings.extend(topo.get("warnings") or [])
    topo_gpus = _topo_gpus(topo, gpus)
    if any(entry.get("cpu_affinity") for entry in topo_gpus.values()) and not cpu_topology:
        warnings.append("CPU topology unknown: gres.conf lines carry no Cores=")
    for gpu in gpus:
        entry = topo_gpus.get(gpu["index"]) or {}
        gpu["cpu_affinity"] = entry.get("cpu_affinity")
        gpu["numa_affinity"] = entry.get("numa_affinity")
        gpu["nvlinks"] = dict(("%d" % peer, count) for peer, count in sorted((entry.get("nvlinks") or {}).items()))
        gpu["cores"] = gpu_cores(entry, cpu_topology)
        for mig in gpu["mig_devices"]:
            mig["slurm_type"] = mig_slurm_type(gpu, mig) if gpu.get("mig_mode") == "enabled" else None
            if gpu.get("minor_number") is not None:
                mig["files"] = _mig_files(gpu, mig, mig_minors)
    facts = {
        "driver_version": smi.get("driver_version"),
        "cuda_version": smi.get("cuda_version"),
        "count": len(gpus),
        "gpus": gpus,
        "gres_conf": gres_conf_lines(gpus, topo, cpu_topology, mig_minors) if gpus else [],
        "slurm_gres": slurm_gres(gpus),
    }
    facts.update(fabric_facts(pci_devices, topo.get("gpus") if topo is not None else None))
    return facts, warnings


# --------------------------------------------------------------------------
# What the host shows without nvidia-smi (sysfs, /dev), and what a failing
# nvidia-smi means. Shared by the gpu_facts module and the health check.

NO_DEVICES = "No devices were found"
NO_DRIVER = (
    "couldn't communicate with the NVIDIA driver",
    "NVIDIA-SMI has failed",
    "Failed to initialize NVML",
    "Driver/library version mismatch",
)


def device_files(dev_root="/dev"):
    """The /dev/nvidiaN character devices (N a number): what the driver made, or what slurmd will bind."""
    try:
        names = os.listdir(dev_root)
    except OSError:
        return []
    found = []
    for name in names:
        if re.match(r"nvidia[0-9]{1,4}$", name):
            path = os.path.join(dev_root, name)
            try:
                if stat.S_ISCHR(os.stat(path).st_mode):
                    found.append(path)
            except OSError:
                continue
    return sorted(found, key=lambda item: int(item[len(dev_root) + 7:]))


def read_pci_devices(sysfs_root="/sys"):
    """[(address, vendor, class)] of <sysfs_root>/bus/pci/devices, None for a file that cannot be read.

    The entries are links into /sys/devices on a real system; open() follows them.
    """
    base = os.path.join(sysfs_root, "bus", "pci", "devices")
    try:
        names = sorted(os.listdir(base))
    except OSError:
        return []
    entries = []
    for name in names:
        values = []
        for leaf in ("vendor", "class"):
            try:
                with open(os.path.join(base, name, leaf), "rb") as handle:
                    values.append(handle.read(64))
            except (IOError, OSError):
                values.append(None)
        entries.append((name, values[0], values[1]))
    return entries


def smi_outcome(rc, out, err):
    """What ``nvidia-smi -q -x`` gave: "xml" (parse it), "no_devices", "no_driver" or "failed"."""
    both = (out or "") + "\n" + (err or "")
    if rc == 0 and (out or "").strip().startswith("<"):
        return "xml"
    if NO_DEVICES in both:
        return "no_devices"
    if any(marker in both for marker in NO_DRIVER):
        return "no_driver"
    return "failed" if rc != 0 else "xml"


# No error of Python's own leaves a parser: anything no rule foresaw becomes GpuFactsError.
parse_smi_xml = guarded(GpuFactsError, 'nvidia-smi -q -x')(parse_smi_xml)
parse_smi_list = guarded(GpuFactsError, 'nvidia-smi -L')(parse_smi_list)
parse_mig_minors = guarded(GpuFactsError, 'mig-minors')(parse_mig_minors)
parse_topo = guarded(GpuFactsError, 'nvidia-smi topo -m')(parse_topo)
parse_pci_devices = guarded(GpuFactsError, 'PCI devices')(parse_pci_devices)
build_facts = guarded(GpuFactsError, 'GPU facts')(build_facts)
