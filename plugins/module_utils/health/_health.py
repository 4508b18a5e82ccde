# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The node health check run by Slurm (gpuops.cluster.node_health): checks and decisions.

Pure functions. The program on the node (roles/node_health/files/gpuops-health)
gathers what it sees - nvidia-smi's XML, the PCI bus, the kernel log, RDMA
ports, the node's Slurm state - and this module turns that into results (the
shape of validate's: node, check, status, measured, expected, message; the
GPU, memory, driver and RDMA results come from validate's own functions) and
into one decision: drain the node with ``Reason=gpuops-health: <check>:
<detail>``, resume it (only when gpuops-health drained it and every check now
passes), or leave it.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import re

from ansible_collections.gpuops.cluster.plugins.module_utils.gpu._gpu_facts import slurm_type_name
from ansible_collections.gpuops.cluster.plugins.module_utils.health._active import (
    ACTIVE_CHECKS,
    FABRIC_CHECK,
    MEASURED,
    PENDING_CHECK,
)
from ansible_collections.gpuops.cluster.plugins.module_utils.health._active import settings_errors as active_settings_errors
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import as_text, guarded, shown
from ansible_collections.gpuops.cluster.plugins.module_utils.validate._validate import (
    ValidateError,
    gres_gpu_count,
    gres_gpu_type_counts,
)
from ansible_collections.gpuops.cluster.plugins.module_utils.validate._validate_checks import (
    FAIL,
    MEMORY_KINDS,
    NOT_RUN,
    PASS,
    driver_loaded_result,
    memory_errors_result,
    persistence_result,
    rdma_results,
    result,
)

REASON_PREFIX = "gpuops-health:"
# Slurm keeps a reason of any length; sinfo -R and scontrol print it whole. Kept short to stay readable.
REASON_LIMIT = 200

# Every check, in the order results are reported. Settings switch each on or off.
CHECKS = ("nvidia_smi", "gpu_count", "gpu_model", "xid", "gpu_memory_errors", "gpu_temperature", "driver_version",
          "driver_loaded", "persistence_mode", "rdma_ports", "peermem_loaded", "gpu_processes") + ACTIVE_CHECKS + (
              FABRIC_CHECK,)
# What each mode runs (of the checks switched on). The prolog runs only what
# one nvidia-smi call and a few reads answer: a slow prolog holds every job.
MODE_CHECKS = {
    "interval": ("nvidia_smi", "gpu_count", "gpu_model", "xid", "gpu_memory_errors", "gpu_temperature",
                 "driver_version", "driver_loaded", "persistence_mode", "rdma_ports", "peermem_loaded", "gpu_processes"),
    "prolog": ("nvidia_smi", "gpu_count", "gpu_model", "xid", "gpu_memory_errors", "gpu_temperature", "driver_version",
               "driver_loaded", "persistence_mode"),
    "epilog": ("gpu_processes", "nvidia_smi", "gpu_count", "gpu_model", "xid", "gpu_memory_errors", "gpu_temperature",
               "driver_version", "driver_loaded", "persistence_mode"),
}
# The active run (a check job, a joining node, on demand) measures the GPUs (_active) and makes every periodic
# check too: it resumes a node only when all pass.
MODE_CHECKS["active"] = MODE_CHECKS["interval"] + ACTIVE_CHECKS
# The pair check's record on each node of a pair job (_fabric_check): the fabric check alone.
MODE_CHECKS["fabric"] = (FABRIC_CHECK,)
# The checks whose drain each mode may lift once they pass: the periodic run lifts its own, the active run any
# of gpuops-health's (with the reason of a node that waits for its first checks; a node the fabric check drained
# is resumed for its retest, a pair job at the highest priority), the pair check its own. The prolog and epilog
# never resume a node.
RESUMES = {"interval": frozenset(MODE_CHECKS["interval"]),
           "active": frozenset(MODE_CHECKS["active"] + (PENDING_CHECK, FABRIC_CHECK)),
           "fabric": frozenset((FABRIC_CHECK,))}
MODES = tuple(sorted(MODE_CHECKS))
# The checks that read nvidia-smi: not run on a node whose Gres has no GPU.
GPU_CHECKS = ("nvidia_smi", "gpu_count", "gpu_model", "gpu_memory_errors", "gpu_temperature", "driver_version",
              "driver_loaded", "persistence_mode")
# The checks that read what the GPUs report now (nvidia-smi -q -x's readings, parsed from the same answer).
READING_CHECKS = ("gpu_temperature",)
# gpu_temperature: a GPU this many degrees Celsius or fewer below its slowdown temperature drains the node
# (node_health_temp_slowdown_margin_c). 0: only a GPU at or past slowdown, which is throttling already.
DEFAULT_TEMP_SLOWDOWN_MARGIN_C = 0
TEMP_SLOWDOWN_MARGIN_RANGE = (0, 30)

# XIDs known to NVIDIA's XID catalogue that the settings may name, with what
# they mean (from NVIDIA's "XID Errors" documentation). The default drain list
# holds those that leave the GPU or driver needing a reset or a replacement.
XID_CATALOG = {
    8: "GPU stopped processing", 13: "Graphics Engine Exception", 31: "GPU memory page fault",
    32: "Invalid or corrupted push buffer stream", 38: "Driver firmware error", 43: "GPU stopped processing",
    44: "Graphics Engine fault during context switch", 45: "Preemptive cleanup, due to previous errors",
    48: "Double Bit ECC Error", 56: "Display Engine error", 57: "Error programming video memory interface",
    58: "Unstable video memory interface detected", 61: "Internal micro-controller breakpoint/warning",
    62: "Internal micro-controller halt", 63: "ECC page retirement or row remapping recording event",
    64: "ECC page retirement or row remapper recording failure", 68: "Video processor exception",
    69: "Graphics Engine class error", 74: "NVLink error", 79: "GPU has fallen off the bus",
    92: "High single-bit ECC error rate", 94: "Contained ECC error", 95: "Uncontained ECC error",
    109: "Context switch timeout", 119: "GSP RPC timeout", 120: "GSP error", 121: "C2C link corrected error",
    140: "Unrecovered ECC error", 143: "GPU initialization failure",
}
DEFAULT_DRAIN_XIDS = (48, 61, 62, 63, 64, 74, 79, 92, 94, 95, 119, 120, 140)
# The memory findings (validate's kinds) that drain by default; the others are reported.
DEFAULT_MEMORY_DRAIN = ("volatile_uncorrectable", "retirement_pending", "remap_pending", "remap_failure")

_XID_RE = re.compile(r"NVRM: Xid \(([^)]*)\): (\d{1,4})(?:,\s*(.*))?$")
_KMSG_RE = re.compile(r"^(\d{1,3}),(\d{1,20}),(\d{1,20}),[^;]*;(.*)$")


class HealthError(Exception):
    """Settings or state the health check cannot use."""


# --------------------------------------------------------------------------
# Settings (the role writes them to the node; its preflight calls this)

_WHOLE_RE = re.compile(r"\s*([0-9]{1,18})\s*\Z")


def whole_number(value):
    """value as a whole number: an int (not a bool), or text of at most 18 ASCII digits with blanks around; else None.

    (Python's int() reads far more: Unicode digits, 4,300 digits, '1_000'; isdigit() passes '\u00b2', which int()
    refuses. Settings, Slurm's environment and state files are read with this.)
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        match = _WHOLE_RE.match(value)
        if match:
            return int(match.group(1))
    return None


_int = whole_number


def setting_whole(settings, key, default, low, high):
    """A whole-number setting of the settings file the program reads (health.json): the number there when it is
    one from low to high, else default (the role checks the settings; a file edited by hand must not stop a run)."""
    value = whole_number(settings.get(key)) if isinstance(settings, dict) else None
    return value if value is not None and low <= value <= high else default


def setting_seconds(settings, key, default, low, high):
    """A time limit of the settings file the program reads (health.json), in whole seconds (setting_whole)."""
    return setting_whole(settings, key, default, low, high)


def _name(key):
    return key if isinstance(key, str) else shown(key)


def settings_errors(settings):
    """Messages (naming the node_health_ variable and the fix) for settings the health check cannot use.

    Any value of any type (YAML's .inf, .nan, dates, binary included) gives a message; this never raises.
    """
    if not isinstance(settings, dict):
        return ["the node_health settings must be a mapping of the node_health_ variables, not %s." % shown(settings)]
    errors = []
    checks = settings.get("checks")
    if not isinstance(checks, dict):
        errors.append("node_health_checks must be a mapping of check name to true/false, not %s." % shown(checks))
        checks = {}
    unknown = sorted(_name(name) for name in checks if name not in CHECKS)
    if unknown:
        errors.append("node_health_checks names unknown check(s) %s: use %s." % (", ".join(unknown), ", ".join(CHECKS)))
    wrong = sorted(name for name, value in checks.items() if name in CHECKS and not isinstance(value, bool))
    if wrong:
        errors.append("node_health_checks: %s must be true or false." % ", ".join(wrong))
    xids = settings.get("xid_drain")
    if not isinstance(xids, list):
        errors.append("node_health_xid_drain must be a list of XID numbers, not %s." % shown(xids))
    else:
        bad = [shown(item, 20) for item in xids if _int(item) not in XID_CATALOG]
        if bad:
            errors.append("node_health_xid_drain has unknown XID(s) %s: give numbers from NVIDIA's XID catalogue (%s)."
                          % (", ".join(bad[:10]) + (" and %d more" % (len(bad) - 10) if len(bad) > 10 else ""),
                             ", ".join(str(number) for number in sorted(XID_CATALOG))))
    kinds = settings.get("memory_drain")
    if not isinstance(kinds, list) or any(kind not in MEMORY_KINDS for kind in kinds):
        errors.append("node_health_memory_drain must be a list of %s, not %s." % (", ".join(MEMORY_KINDS), shown(kinds)))
    for key, low, high in (("nvidia_smi_timeout_s", 1, 300), ("kill_grace_s", 0, 120), ("kill_wait_s", 1, 120)):
        value = _int(settings.get(key))
        if value is None or not low <= value <= high:
            errors.append("node_health_%s is %s: give a whole number of seconds from %d to %d."
                          % (key, shown(settings.get(key)), low, high))
    low, high = TEMP_SLOWDOWN_MARGIN_RANGE
    margin = _int(settings.get("temp_slowdown_margin_c"))
    if margin is None or not low <= margin <= high:
        errors.append("node_health_temp_slowdown_margin_c is %s: give a whole number of degrees Celsius from %d (drain "
                      "once a GPU reaches its slowdown temperature) to %d (drain that far below it)."
                      % (shown(settings.get("temp_slowdown_margin_c")), low, high))
    log = settings.get("kernel_log")
    if not isinstance(log, str) or not log.startswith("/") or "\n" in log or "\x00" in log:
        errors.append("node_health_kernel_log is %s: give /dev/kmsg or the absolute path of a file the kernel "
                      "log is written to (kern.log)." % shown(log))
    rdma = settings.get("rdma_expected")
    if not (rdma is True or rdma is False or rdma == "auto"):
        errors.append("node_health_rdma_expected is %s: give auto, true or false." % shown(rdma))
    active = settings.get("active", {})
    errors.extend(message + "." for message in active_settings_errors(
        dict(active, diag_level=settings.get("diag_level", 1)) if isinstance(active, dict) else active))
    return errors


# --------------------------------------------------------------------------
# What the node is expected to have (from its facts at converge time)

def expectation(slurm_gres, gpus, driver_version="", ib_selected=(), ib_hcas=()):
    """The expect mapping of the node's settings file.

    slurm_gres: the node's Gres= (gpuops_gpus.slurm_gres); gpus: its GPU facts
    (pci_bus_id, minor_number); ib_selected: the RDMA ports chosen at converge
    ("mlx5_0:1") and ib_hcas their facts, for the rate each must keep.
    """
    if not isinstance(gpus, list) or not isinstance(ib_hcas, (list, tuple)):
        raise HealthError("expected the GPU facts' gpus and the RDMA facts' hcas as lists")
    if not isinstance(ib_selected or [], (list, tuple)) or not all(isinstance(name, str) for name in ib_selected or []):
        raise HealthError("node_health_ib_ports must be a list of RDMA ports such as [mlx5_0:1], not %s"
                          % shown(ib_selected))
    if not isinstance(driver_version or "", str):
        raise HealthError("nvidia_driver_version must be a version such as 550.54.15, not %s" % shown(driver_version))
    try:
        count = gres_gpu_count(slurm_gres or "")
        types = gres_gpu_type_counts(slurm_gres or "")
    except ValidateError as exc:
        raise HealthError("the node's Gres %s: %s" % (shown(slurm_gres), exc))
    rates = {}
    for hca in ib_hcas or []:
        for port in (hca.get("ports") or []) if isinstance(hca, dict) else []:
            if isinstance(port, dict):
                rates["%s:%s" % (hca.get("name"), port.get("port"))] = port.get("rate_gbps") or 0
    return {
        "gpu_count": count,
        "gpu_types": types,
        "pci_bus_ids": sorted(gpu.get("pci_bus_id") for gpu in gpus or [] if gpu.get("pci_bus_id")),
        # Slurm numbers a node's GPUs in gres.conf order, which is by device file (minor number).
        "gpu_minors": sorted(gpu.get("minor_number") for gpu in gpus or [] if gpu.get("minor_number") is not None),
        "driver_version": driver_version or "",
        "ib_ports": list(ib_selected or []),
        "ib_rate_gbps": min([rates.get(name, 0) for name in ib_selected or []] or [0]),
    }


# --------------------------------------------------------------------------
# The kernel log: XID events

def normalize_pci(text):
    """'PCI:0000:3b:00' or '0000:3b:00.0' -> '0000:3b:00' (domain:bus:device, lower case); else the text as is."""
    text = (text or "").strip()
    if text.upper().startswith("PCI:"):
        text = text[4:]
    match = re.match(r"^(?:([0-9A-Fa-f]{1,8}):)?([0-9A-Fa-f]{2}):([0-9A-Fa-f]{2})(?:\.[0-7])?$", text)
    if not match:
        return text
    return "%04x:%s:%s" % (int(match.group(1) or "0", 16), match.group(2).lower(), match.group(3).lower())


def parse_xid_line(line):
    """{xid, pci, detail} from a kernel log line holding ``NVRM: Xid (...)``, else None."""
    match = _XID_RE.search(line.rstrip())
    if not match:
        return None
    return {"xid": int(match.group(2)), "pci": normalize_pci(match.group(1)),
            "detail": (match.group(3) or "").strip()[:160]}


def parse_kmsg(records):
    """XID events of /dev/kmsg records ("prio,seq,usec,flags;message"), with seq; and the last seq read."""
    events, last = [], None
    if not isinstance(records, (list, tuple)):
        raise HealthError("/dev/kmsg: expected a list of records, got %s" % type(records).__name__)
    for record in records:
        record = as_text(record, "/dev/kmsg record", HealthError)
        match = _KMSG_RE.match(record.split("\n", 1)[0])
        if not match:
            continue
        last = int(match.group(2))
        event = parse_xid_line(match.group(4))
        if event:
            event["seq"] = last
            events.append(event)
    return events, last


def parse_log_text(text):
    """XID events of kernel log text (dmesg, kern.log, journalctl -k)."""
    text = as_text(text, "kernel log", HealthError)
    return [event for event in (parse_xid_line(line) for line in text.splitlines()) if event]


def _is_whole(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _open_events(items):
    """The open XIDs of a state file: the entries of the right shape ({xid, pci, detail}), at most 64."""
    out = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and _is_whole(item.get("xid")) and 0 <= item["xid"] < 100000 \
                and isinstance(item.get("pci"), str) and isinstance(item.get("detail", ""), str):
            out.append({"xid": item["xid"], "pci": item["pci"], "detail": item.get("detail", "")})
    return out[:64]


def _counts(items):
    """The XID counts of a state file: the entries of the right shape ({pci, xid, count >= 0}), at most 256."""
    out = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and isinstance(item.get("pci"), str) and _is_whole(item.get("xid")) \
                and 0 <= item["xid"] < 100000 and _is_whole(item.get("count")) and 0 <= item["count"] < 2 ** 63:
            out.append({"pci": item["pci"], "xid": item["xid"], "count": item["count"]})
    return out[:256]


def _position(value):
    """Where the last read of the kernel log ended: {kmsg_seq} or {inode, offset}, whole numbers; else {} (from the
    start)."""
    if isinstance(value, dict):
        if set(value) == {"kmsg_seq"} and _is_whole(value["kmsg_seq"]) and 0 <= value["kmsg_seq"] < 2 ** 64:
            return {"kmsg_seq": value["kmsg_seq"]}
        if set(value) == {"inode", "offset"} and all(_is_whole(value[key]) and 0 <= value[key] < 2 ** 64
                                                     for key in value):
            return {"inode": value["inode"], "offset": value["offset"]}
    return {}


def read_xid_state(data, boot_id):
    """The XID state file (xid.json, as json.load gave it) as a run uses it: {boot_id, open, counts, position}.

    A file of another boot reads as a fresh state; so does a file of any other shape (hand-edited, truncated, of
    an older version), and an entry of the wrong shape is left out: a bad file never stops a run or a scrape.
    """
    data = data if isinstance(data, dict) and data.get("boot_id") == boot_id else {}
    return {"boot_id": boot_id, "open": _open_events(data.get("open")), "counts": _counts(data.get("counts")),
            "position": _position(data.get("position"))}


def read_stuck(data):
    """The stuck processes file (stuck.json) as a run uses it: [{pid, start, why}], entries of another shape left
    out (at most 64)."""
    out = []
    for item in data if isinstance(data, list) else []:
        if isinstance(item, dict) and _is_whole(item.get("pid")) and 1 < item["pid"] < 2 ** 31:
            start = item.get("start")
            why = item.get("why")
            out.append({"pid": item["pid"], "start": start if isinstance(start, str) else None,
                        "why": why if isinstance(why, str) else "a process a job left behind"})
    return out[-64:]


def xid_state(state, boot_id, events, drain_xids):
    """The XID state after this read: the draining XIDs seen since boot that nobody cleared.

    state: the previous one ({"boot_id", "open": [events], "counts": [...]})
    or None, of any shape (read as read_xid_state reads it). A new boot
    (another boot_id) closes every open XID and starts the counts again: the
    GPUs were reset. "counts" holds every XID since boot as {pci, xid,
    count} (the GPU exporter's counter; 256 kinds at most).
    """
    state = read_xid_state(state, boot_id)
    drain = set(_int(item) for item in (drain_xids if isinstance(drain_xids, (list, tuple)) else [])
                if not isinstance(item, (list, dict)))
    opened = state["open"]
    counts = dict(((item["pci"], item["xid"]), item["count"]) for item in state["counts"])
    for event in events:
        if event["xid"] in drain and len(opened) < 64:
            opened.append(dict((key, event[key]) for key in ("xid", "pci", "detail")))
        key = (event.get("pci") or "", event["xid"])
        if key in counts or len(counts) < 256:
            counts[key] = counts.get(key, 0) + 1
    state["open"] = opened
    # Every XID since boot, per GPU and number: the GPU exporter's counter.
    state["counts"] = [{"pci": pci, "xid": xid, "count": count} for (pci, xid), count in sorted(counts.items())]
    return state


def _xid_text(event):
    meaning = XID_CATALOG.get(event["xid"]) or event.get("detail") or "unknown XID"
    return "XID %d on GPU %s (%s)" % (event["xid"], event.get("pci") or "?", meaning)


def xid_result(node, state, events, drain_xids, source_error=None):
    """xid: fails while a draining XID is open (until reboot or gpuops-health clear-xid); others are reported."""
    if source_error:
        return result(node, "xid", NOT_RUN, None, [], "cannot read the kernel log: %s" % source_error)
    opened = _open_events(state.get("open") if isinstance(state, dict) else None)
    drain = set(_int(item) for item in (drain_xids if isinstance(drain_xids, (list, tuple)) else [])
                if not isinstance(item, (list, dict)))
    reported = [event for event in events if event["xid"] not in drain]
    if opened:
        seen = []
        for event in opened:
            text = _xid_text(event)
            if text not in seen:
                seen.append(text)
        return result(node, "xid", FAIL, [event["xid"] for event in opened], [],
                      "%s: reset the GPU or reboot, then gpuops-health clear-xid" % "; ".join(seen))
    message = "no XID that needs a reset since boot"
    if reported:
        message += "; reported: %s" % "; ".join(_xid_text(event) for event in reported[:5])
    return result(node, "xid", PASS, [event["xid"] for event in reported], [], message)


# --------------------------------------------------------------------------
# nvidia-smi, the GPUs against the node's GRES, the driver

def smi_result(node, outcome, rc, timed_out, timeout_s, error=None):
    """nvidia_smi: nvidia-smi -q -x answered within the limit with XML that parses."""
    if timed_out:
        return result(node, "nvidia_smi", FAIL, "timeout", "answer within %ds" % timeout_s,
                      "nvidia-smi did not answer within %ds (a wedged GPU or driver)" % timeout_s)
    if outcome == "missing":
        return result(node, "nvidia_smi", FAIL, None, "answer", "nvidia-smi is not installed: %s" % (error or ""))
    if outcome != "xml" or error:
        return result(node, "nvidia_smi", FAIL, rc, 0, "nvidia-smi failed (%s, rc %s): %s"
                      % (outcome, rc, (error or "no XML").strip()[:150]))
    return result(node, "nvidia_smi", PASS, 0, 0, "nvidia-smi answered")


def gpu_count_result(node, listed, pci_gpus, expect, hardware):
    """gpu_count: nvidia-smi lists the GPUs of the node's GRES, and (on hardware) the PCI bus shows them."""
    want = expect.get("gpu_count") or 0
    if not want:
        return result(node, "gpu_count", NOT_RUN, len(listed), 0, "the node's GRES has no GPU")
    problems = []
    if len(listed) < want:
        missing = sorted(set(expect.get("pci_bus_ids") or []) - set(gpu.get("pci_bus_id") for gpu in listed))
        problems.append("nvidia-smi lists %d of the %d GPUs in the node's GRES%s" % (
            len(listed), want, (" (missing %s)" % ", ".join(missing[:8])) if missing else ""))
    if hardware and len(pci_gpus) < want:
        problems.append("the PCI bus shows %d NVIDIA GPU(s)" % len(pci_gpus))
    if problems:
        return result(node, "gpu_count", FAIL, len(listed), want, "; ".join(problems))
    return result(node, "gpu_count", PASS, len(listed), want, "%d GPU(s) as in the node's GRES" % len(listed))


def gpu_model_result(node, listed, expect):
    """gpu_model: the GPUs' Slurm types are the GRES's (every typed GPU the GRES counts is there)."""
    want = dict((name, count) for name, count in (expect.get("gpu_types") or {}).items() if name)
    if not want:
        return result(node, "gpu_model", NOT_RUN, None, None, "the node's GRES names no GPU type")
    have = {}
    for gpu in listed:
        name = slurm_type_name(gpu.get("name") or "")
        have[name] = have.get(name, 0) + 1
    short = ["%s: %d of %d" % (name, have.get(name, 0), count) for name, count in sorted(want.items())
             if have.get(name, 0) < count]
    if short:
        return result(node, "gpu_model", FAIL, have, want, "GPU types short of the GRES: %s" % ", ".join(short))
    return result(node, "gpu_model", PASS, have, want, "GPU types as in the GRES")


def driver_version_result(node, driver, pinned):
    """driver_version: the driver nvidia-smi reports is the version the inventory pins (nvidia_driver_version)."""
    if not pinned:
        return result(node, "driver_version", NOT_RUN, driver, None, "no driver version pinned (nvidia_driver_version)")
    if driver != pinned and not (driver or "").startswith(pinned + "."):
        return result(node, "driver_version", FAIL, driver, pinned,
                      "driver %s runs, the inventory pins %s: install the pinned driver or reboot into it"
                      % (driver, pinned))
    return result(node, "driver_version", PASS, driver, pinned, "driver %s as pinned" % driver)


# --------------------------------------------------------------------------
# Temperature: how far each GPU is from slowing down for heat

def _degrees(value):
    """value when it is a whole number of degrees Celsius a GPU could report, else None."""
    return value if _is_whole(value) and -300 < value < 1000 else None


def gpu_thermal(gpu):
    """{gpu, pci_bus_id, temperature_c, slowdown_margin_c, slowdown_c} of one GPU parsed with its readings
    (parse_smi_xml(readings=True)); None for what it does not report.

    The margin is _gpu_facts' slowdown_margin_c, read from either layout: driver 580's T.Limit reading less the
    slowdown threshold's offset from T.Limit, or an older driver's absolute slowdown threshold less the
    temperature. The slowdown temperature is temperature plus margin (the exporter's dashboard draws it so), as
    the T.Limit layout prints no absolute one.
    """
    readings = gpu.get("readings") if isinstance(gpu.get("readings"), dict) else {}
    temperature = _degrees(readings.get("temperature_c"))
    margin = _degrees(readings.get("slowdown_margin_c"))
    return {"gpu": gpu.get("index"), "pci_bus_id": gpu.get("pci_bus_id"), "temperature_c": temperature,
            "slowdown_margin_c": margin,
            "slowdown_c": temperature + margin if temperature is not None and margin is not None else None}


def _thermal_name(item):
    return "GPU %s (%s)" % (item["gpu"], item["pci_bus_id"]) if item["pci_bus_id"] else "GPU %s" % item["gpu"]


def _thermal_text(item):
    """'GPU 3 (00000000:3B:00.0) at 83 C is 2 C from its slowdown temperature (85 C)' (at it, or N C past it)."""
    margin = item["slowdown_margin_c"]
    where = "at its" if margin == 0 else "%d C %s its" % (abs(margin), "from" if margin > 0 else "past")
    return "%s%s is %s slowdown temperature%s" % (
        _thermal_name(item), " at %d C" % item["temperature_c"] if item["temperature_c"] is not None else "", where,
        " (%d C)" % item["slowdown_c"] if item["slowdown_c"] is not None else "")


def temperature_result(node, listed, margin_c=DEFAULT_TEMP_SLOWDOWN_MARGIN_C):
    """gpu_temperature: every GPU is more than margin_c degrees below its slowdown temperature.

    A GPU at its slowdown temperature throttles its clocks, and a multi-node job runs at the pace of its slowest
    GPU: one hot GPU slows the whole job. A GPU whose readings give no margin (neither temperature layout) is
    not judged. measured: each GPU's temperature and margin (None where unknown), which gpuops-health show prints.
    """
    expected = "more than %d C below the slowdown temperature" % margin_c
    if not listed:
        return result(node, "gpu_temperature", NOT_RUN, None, expected, "no GPU listed")
    gpus = [gpu_thermal(gpu) for gpu in listed]
    known = [item for item in gpus if item["slowdown_margin_c"] is not None]
    if not known:
        return result(node, "gpu_temperature", NOT_RUN, gpus, expected,
                      "the GPUs report no slowdown temperature (nvidia-smi -q -x prints neither the T.Limit readings "
                      "nor absolute thresholds): not judged")
    hot = sorted((item for item in known if item["slowdown_margin_c"] <= margin_c),
                 key=lambda item: item["slowdown_margin_c"])
    unknown = [str(item["gpu"]) for item in gpus if item["slowdown_margin_c"] is None]
    if hot:
        text = "; ".join(_thermal_text(item) for item in hot[:4])
        if len(hot) > 4:
            text += "; and %d more" % (len(hot) - 4)
        return result(node, "gpu_temperature", FAIL, gpus, expected, text + ": check the fans and the airflow")
    closest = min(known, key=lambda item: item["slowdown_margin_c"])
    message = "%d GPU(s) more than %d C below their slowdown temperature (closest: %s)" % (
        len(known), margin_c, _thermal_text(closest))
    if unknown:
        message += "; GPU %s report(s) no slowdown temperature: not judged" % ", ".join(unknown)
    return result(node, "gpu_temperature", PASS, gpus, expected, message)


# --------------------------------------------------------------------------
# The epilog: processes the finished job left on the node

def job_gpu_minors(slurm_job_gpus, minors):
    """Device minors of the job's GPUs from SLURM_JOB_GPUS ("0,2": Slurm's indices of the node's GPUs).

    An item that is not a whole number (of at most 18 digits), or beyond the node's GPUs, is left out.
    """
    out = []
    minors = minors if isinstance(minors, list) else []
    text = slurm_job_gpus if isinstance(slurm_job_gpus, str) else ""
    for item in text.split(","):
        index = _int(item)
        if index is not None and 0 <= index < len(minors):
            out.append(minors[index])
    return out


def leftover_pids(job_id, uid, gpus, minors, environ_jobs, owners, protect=()):
    """Processes to kill after the job: {pid: why}.

    gpus: parsed nvidia-smi GPUs with processes; minors: the job's GPU minors;
    environ_jobs: {pid: SLURM_JOB_ID found in its environment}; owners: {pid:
    uid} of the live processes. A process is the job's when its environment
    names the job and it runs as the job's user (uid None: any user), or when
    it runs on one of the job's GPUs as the job's user.
    Processes of other users on the GPUs (nvidia-persistenced, DCGM) are never
    touched, nor pid 1 and protect.
    """
    found = {}
    for pid, job in environ_jobs.items():
        if str(job) == str(job_id) and (uid is None or owners.get(pid) == uid):
            found[pid] = "SLURM_JOB_ID=%s in its environment" % job_id
    for gpu in gpus or []:
        if gpu.get("minor_number") not in minors:
            continue
        for proc in gpu.get("processes") or []:
            pid = proc.get("pid")
            if pid in owners and owners[pid] == uid and pid not in found:
                found[pid] = "%s on GPU %s" % (proc.get("name") or "process", gpu.get("index"))
    return dict((pid, why) for pid, why in found.items() if pid not in (0, 1) and pid not in protect and pid in owners)


def processes_result(node, job_id, killed, survivors):
    """gpu_processes: the job's leftovers are gone (killed ones are reported); survivors drain the node.

    job_id None: the periodic check, which only asks whether the processes
    an epilog could not kill (survivors) are still there.
    """
    if job_id is None:
        if survivors:
            text = ", ".join("pid %s (%s)" % (pid, why) for pid, why in sorted(survivors.items())[:4])
            return result(node, "gpu_processes", FAIL, len(survivors), 0,
                          "still there after SIGKILL: %s" % text)
        return result(node, "gpu_processes", PASS, 0, 0, "no process a job left behind is stuck")
    if survivors:
        text = ", ".join("pid %s (%s)" % (pid, why) for pid, why in sorted(survivors.items())[:4])
        return result(node, "gpu_processes", FAIL, len(survivors), 0,
                      "job %s left %s that survived SIGKILL (stuck in the driver?)" % (job_id, text))
    if killed:
        text = ", ".join("pid %s (%s)" % (pid, why) for pid, why in sorted(killed.items())[:4])
        return result(node, "gpu_processes", PASS, 0, 0, "killed what job %s left behind: %s" % (job_id, text))
    return result(node, "gpu_processes", PASS, 0, 0, "job %s left no process behind" % job_id)


# --------------------------------------------------------------------------
# DCGM diagnostics (slow; never in the prolog)

def parse_dcgmi_diag(text):
    """[(test, outcome)] of ``dcgmi diag -r 1`` table output: rows like ``| Deployment | Pass |``."""
    text = as_text(text, "dcgmi diag", HealthError)
    rows = []
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 2 or not cells[0] or cells[0].startswith("-"):
            continue
        outcome = cells[1].split()[0] if cells[1] else ""
        if outcome.lower() in ("pass", "fail", "skip", "warn"):
            rows.append((cells[0], outcome.lower()))
    return rows


def diag_result(node, rc, text, error=None, level=1):
    """The diag check's result from ``dcgmi diag -r <level>``: its exit code and output, or why it did not run."""
    command = "dcgmi diag -r %s" % level
    if error:
        return result(node, "diag", NOT_RUN, None, "pass", error)
    rows = parse_dcgmi_diag(text or "")
    failed = [name for name, outcome in rows if outcome == "fail"]
    if failed or (rc and not rows):
        return result(node, "diag", FAIL, failed or rc, "pass", "%s failed: %s" % (
            command, ", ".join("%s fail" % name for name in failed) + " (expected pass)" if failed
            else (text or "").strip()[-150:]))
    return result(node, "diag", PASS, len(rows), "pass", "%s passed %d test(s)" % (command, len(rows)))


# --------------------------------------------------------------------------
# Evaluation and the decision

def evaluate(node, mode, settings, seen):
    """The results of mode's checks that settings switch on, from what the node saw.

    seen: smi {outcome, rc, timed_out, error, parsed: parse_smi_xml's, with
    readings=True for READING_CHECKS}, pci_gpus, hardware, no_hardware_reason,
    modules, proc_version, xid {state, events, error}, ib, processes {job,
    killed, survivors}, diag {rc, text, error}, active (_active.active_results' results),
    fabric (_fabric_check.fabric_verdict's result).
    """
    enabled = settings.get("checks") or {}
    wanted = [name for name in MODE_CHECKS[mode] if enabled.get(name, True)]
    expect = settings.get("expect") or {}
    smi = seen.get("smi") or {}
    parsed = smi.get("parsed") or {}
    listed = parsed.get("gpus") or []
    hardware = bool(seen.get("hardware"))
    reason = seen.get("no_hardware_reason") or "no NVIDIA GPU on the PCI bus"
    out = []
    smi_ok = smi.get("outcome") == "xml" and not smi.get("error") and not smi.get("timed_out")
    measured = dict((item["check"], item) for item in seen.get("active") or [])
    rdma = {}
    if "rdma_ports" in wanted or "peermem_loaded" in wanted:
        data = {"ib": seen.get("ib") or {}, "hardware": hardware, "no_hardware_reason": reason,
                "modules": seen.get("modules") or {}}
        rdma_expect = {"rdma_expected": settings.get("rdma_expected", "auto"), "ib_ports": expect.get("ib_ports"),
                       "ib_rate_gbps": expect.get("ib_rate_gbps") or 0,
                       "peermem_module": settings.get("peermem_module") or "nvidia_peermem"}
        rdma = dict((item["check"], item) for item in rdma_results(node, data, rdma_expect))
    for name in wanted:
        if name in GPU_CHECKS and not expect.get("gpu_count"):
            # A node without GPUs in its Gres (a CPU node of the partition) has no GPU to check.
            out.append(result(node, name, NOT_RUN, None, None, "the node's Gres has no GPU"))
        elif name == "nvidia_smi":
            out.append(smi_result(node, smi.get("outcome"), smi.get("rc"), smi.get("timed_out"),
                                  settings.get("nvidia_smi_timeout_s"), smi.get("error")))
        elif name == "xid":
            xid = seen.get("xid") or {}
            out.append(xid_result(node, xid.get("state"), xid.get("events") or [], settings.get("xid_drain") or [],
                                  xid.get("error")))
        elif name == "gpu_processes":
            proc = seen.get("processes") or {}
            out.append(processes_result(node, proc.get("job"), proc.get("killed") or {}, proc.get("survivors") or {}))
        elif name == "diag":
            diag = seen.get("diag") or {}
            out.append(diag_result(node, diag.get("rc"), diag.get("text"), diag.get("error"),
                                   settings.get("diag_level", 1)))
        elif name == FABRIC_CHECK:
            # The pair check's verdict (_fabric_check.fabric_verdict), made from the node's pair results.
            out.append(seen.get("fabric") or result(node, name, NOT_RUN, None, None, "no pair result"))
        elif name in MEASURED:
            # The active run's measurements, judged already (_active.active_results); a check switched off has none.
            out.append(measured.get(name) or result(node, name, NOT_RUN, None, None, "not measured"))
        elif name in ("rdma_ports", "peermem_loaded"):
            out.append(rdma[name])
        elif not smi_ok:
            # The GPU checks read nvidia-smi's answer; nvidia_smi has said why there is none.
            if name == "gpu_count" and not enabled.get("nvidia_smi", True):
                out.append(result(node, name, FAIL, 0, expect.get("gpu_count"), "nvidia-smi gave no GPU list"))
            else:
                out.append(result(node, name, NOT_RUN, None, None, "nvidia-smi gave no answer to read"))
        elif name == "gpu_count":
            out.append(gpu_count_result(node, listed, seen.get("pci_gpus") or [], expect, hardware))
        elif name == "gpu_model":
            out.append(gpu_model_result(node, listed, expect))
        elif name == "gpu_memory_errors":
            out.append(memory_errors_result(node, listed, settings.get("memory_drain") or DEFAULT_MEMORY_DRAIN))
        elif name == "gpu_temperature":
            out.append(temperature_result(node, listed, setting_whole(
                settings, "temp_slowdown_margin_c", DEFAULT_TEMP_SLOWDOWN_MARGIN_C, *TEMP_SLOWDOWN_MARGIN_RANGE)))
        elif name == "driver_version":
            out.append(driver_version_result(node, parsed.get("driver_version"), expect.get("driver_version")))
        elif name == "driver_loaded":
            out.append(driver_loaded_result(node, parsed.get("driver_version"), hardware,
                                            (seen.get("modules") or {}).get("nvidia"), seen.get("proc_version") or "",
                                            reason))
        elif name == "persistence_mode":
            out.append(persistence_result(node, listed))
    return out


def drain_reason(results):
    """``gpuops-health: <check>: <detail>`` of the first failed result (and how many more failed), or None."""
    failed = [item for item in results if item["status"] == FAIL]
    if not failed:
        return None
    first = failed[0]
    text = "%s %s: %s" % (REASON_PREFIX, first["check"], re.sub(r"\s+", " ", str(first["message"])))
    more = " (+%d more: %s)" % (len(failed) - 1, ",".join(item["check"] for item in failed[1:])) if len(failed) > 1 else ""
    if len(text) + len(more) > REASON_LIMIT:
        text = text[:REASON_LIMIT - len(more) - 3].rstrip() + "..."
    return text + more


def ours(reason):
    """Whether a node's Slurm reason was set by gpuops-health (Slurm appends ' [user@time]')."""
    return isinstance(reason, str) and reason.strip().startswith(REASON_PREFIX)


def decide(results, node_state, mode):
    """{"action": drain|resume|none, "reason", "why"}: what to do with the node, given its Slurm state.

    node_state: parse_scontrol_nodes' entry for the node (flags, reason), or
    None when it could not be read (then only a drain is possible). A node
    drained, down or failed for another reason is never touched: it stays as
    the admin left it, and the results are only recorded.
    """
    reason = drain_reason(results)
    base = (node_state or {}).get("base_state")
    current = (node_state or {}).get("reason")
    held = _held(node_state)
    mine = held and ours(current)
    held_for = _reason_check(current) if mine else None
    # The checks this run makes: a drain for another (an active check, while the periodic run passes) is that run's.
    covered = RESUMES.get(mode, frozenset(MODE_CHECKS.get(mode, ())))
    if reason:
        if held and not ours(current):
            return {"action": "none", "reason": reason,
                    "why": "failed, but Slurm already holds the node (%s): left as it is" % (current or base)}
        if mine and held_for == _reason_check(reason):
            # Drained by this check already: the reason stays as first written (no churn in sinfo -R).
            return {"action": "none", "reason": _strip_stamp(current), "why": "already drained for this"}
        if mine and held_for not in covered:
            return {"action": "none", "reason": _strip_stamp(current),
                    "why": "failed while drained for %s, which the %s run does not check: left to the run that does"
                    % (held_for, mode)}
        return {"action": "drain", "reason": reason, "why": "a check failed"}
    if mine and held_for in RESUMES.get(mode, ()):
        return {"action": "resume", "reason": None, "why": "every check passes again"}
    if mine:
        return {"action": "none", "reason": None, "why": "drained for %s: the %s run does not lift that"
                % (held_for, "active" if held_for not in RESUMES["interval"] else "periodic")}
    if held:
        return {"action": "none", "reason": None, "why": "held by Slurm for another reason (%s): left as it is"
                % (current or base)}
    return {"action": "none", "reason": None, "why": "healthy"}


def _held(node_state):
    """Whether Slurm holds the node: drained, draining, down or failed."""
    flags = set((node_state or {}).get("flags") or [])
    return bool(flags & {"drain", "drained", "draining", "fail", "failing"}) or (node_state or {}).get(
        "base_state") in ("down", "fail")


def held_for(node_state):
    """The check a node is drained, down or failed for by gpuops-health, from its Slurm state; None otherwise."""
    reason = (node_state or {}).get("reason")
    return _reason_check(reason) if _held(node_state) and ours(reason) else None


def _reason_check(reason):
    """The check a gpuops-health reason names ("gpuops-health: xid: ..." -> "xid")."""
    return _strip_stamp(reason)[len(REASON_PREFIX):].strip().split(":", 1)[0]


def _strip_stamp(reason):
    """reason without the ' [user@time]' Slurm appends: the last [...] holding an @, if the reason ends with it.

    Found by index, in linear time. The pattern it replaces (a [, text without ], an @, text without ], a ] at
    the end) took time of the cube of the length on a reason of many '[@' (an admin's, starting gpuops-health:).
    """
    text = (reason or "").rstrip()
    if text.endswith("]"):
        # The stamp's [ is the first one after the ] before the last (its text holds no ]).
        start = text.find("[", text.rfind("]", 0, len(text) - 1) + 1, len(text) - 1)
        if start != -1 and "@" in text[start + 1:-1]:
            text = text[:start]
    return text.strip()


def summary(node, mode, results, decision, at, duration_s):
    """The record of one run (state dir last.json; validate reports it)."""
    counts = dict((status, sum(1 for item in results if item["status"] == status)) for status in (PASS, FAIL, NOT_RUN))
    return {"node": node, "mode": mode, "time": at, "duration_s": round(duration_s, 3),
            "status": FAIL if counts[FAIL] else PASS, "counts": counts, "action": decision.get("action"),
            "reason": decision.get("reason"), "why": decision.get("why"), "results": results}


def gpu_job_entry(env, minor):
    """The GPU-to-job map's entry for one GPU of a starting job, from the prolog's environment."""
    return {"minor": minor, "job_id": env.get("SLURM_JOB_ID") or "", "user": env.get("SLURM_JOB_USER") or "",
            "uid": env.get("SLURM_JOB_UID") or "", "account": env.get("SLURM_JOB_ACCOUNT") or "",
            "partition": env.get("SLURM_JOB_PARTITION") or ""}


# No error of Python's own leaves a parser: anything no rule foresaw becomes HealthError.
parse_kmsg = guarded(HealthError, '/dev/kmsg')(parse_kmsg)
parse_log_text = guarded(HealthError, 'kernel log')(parse_log_text)
parse_dcgmi_diag = guarded(HealthError, 'dcgmi diag')(parse_dcgmi_diag)


def gpu_decrease_errors(host, gpu_count, installed, allow_decrease):
    """[] or the one message stopping a run that would make the health check accept fewer GPUs than before.

    gpu_count: the GPUs the node shows now; installed: the text of the health check's configuration written
    before ('' when there is none; what it cannot read counts as none); allow_decrease:
    slurm_allow_gres_decrease, as Ansible's bool reads it.
    """
    try:
        before = json.loads(installed)["expect"]["gpu_count"] if installed else 0
    except (TypeError, ValueError, KeyError, IndexError, RecursionError):
        before = 0
    if isinstance(before, bool) or not isinstance(before, int) or not isinstance(gpu_count, int):
        return []
    # Ansible's bool; _settings_values is not imported: this file goes to the nodes with the health check.
    allow = allow_decrease is True or str(allow_decrease).strip().lower() in ("yes", "on", "1", "true", "y", "t")
    if gpu_count >= before or allow:
        return []
    return ["%s shows %d GPU(s) now, and the health check was watching %d: a GPU is missing (nvidia-smi, the PCI "
            "bus). Fix the node, or, when GPUs were removed on purpose, run again with -e "
            "slurm_allow_gres_decrease=true (the Slurm roles ask the same)." % (host, gpu_count, before)]
