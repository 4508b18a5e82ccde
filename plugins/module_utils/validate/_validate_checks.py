# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The checks of playbooks/validate.yml: raw observations in, results out.

Pure functions. Every result is a dict with exactly the keys node, check,
status (pass, fail or not_run), measured, expected and message. A check
that cannot be made here (no hardware, nothing expected) is not_run with
the reason in its message, never pass.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.gpuops.cluster.plugins.module_utils.validate._clock import ClockError
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._hostlist import HostlistError, compress, expand
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._gres import gres_count
from ansible_collections.gpuops.cluster.plugins.module_utils.validate._clock import skew as clock_skew
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import as_text, guarded, shown, small_int
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import clip as _clip
from ansible_collections.gpuops.cluster.plugins.module_utils.validate._validate import (
    ValidateError,
    expected_internode_busbw,
    expected_intranode_busbw,
    gres_gpu_count,
    judge,
    parse_chronyc_tracking,
    parse_ib_write_bw,
    parse_nccl_tests,
    parse_scontrol_nodes,
    parse_scontrol_topology,
    parse_timedatectl_show,
)

PASS, FAIL, NOT_RUN = "pass", "fail", "not_run"
# Slurm node states a healthy node may be in (base state, lower case).
HEALTHY_STATES = ("idle", "allocated", "mixed", "completing")
BAD_FLAGS = ("drain", "draining", "drained", "down", "fail", "failing", "not_responding",
             "no_respond", "maint", "reboot_requested", "reboot_issued", "inval", "power_down",
             "powered_down", "powering_down", "planned")


def result(node, check, status, measured, expected, message):
    return {"node": node, "check": check, "status": status, "measured": measured,
            "expected": expected, "message": message}


# --------------------------------------------------------------------------
# Observation parsers of this module's own commands

_EPOCH_RE = re.compile(r"\(([0-9]+)\)\s*\Z")


def parse_unmunge(text):
    """STATUS, encode and decode times (epoch seconds) from ``unmunge`` output (text or bytes)."""
    text = as_text(text, "unmunge", ValidateError)
    fields = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep:
            fields[key.strip()] = value.strip()
    if "STATUS" not in fields:
        raise ValidateError("unmunge: no STATUS line in %r" % text[:80])

    def epoch(key):
        match = _EPOCH_RE.search(fields.get(key, ""))
        return small_int(match.group(1), "unmunge: %s" % key, ValidateError) if match else None

    return {"status": fields["STATUS"], "success": fields["STATUS"].startswith("Success"),
            "encode_time": epoch("ENCODE_TIME"), "decode_time": epoch("DECODE_TIME"),
            "encode_host": fields.get("ENCODE_HOST")}


def _port_name(hca, port):
    return "%s:%s" % (hca.get("name"), port.get("port"))


# --------------------------------------------------------------------------
# Per-node checks

def gpu_count_result(node, gpus, expect, hardware, reason):
    """gpu_count: what nvidia-smi lists against expect["gpu_count"], else against the PCI bus (real hardware)."""
    status = gpus.get("status")
    listed = gpus.get("gpus") or []
    want = expect.get("gpu_count") or 0
    pci = len(gpus.get("pci_gpus") or [])
    if status != "ok":
        return result(node, "gpu_count", FAIL, 0, want or pci or None,
                      "nvidia-smi did not list GPUs (gpu_facts status %s)" % status)
    if want:
        names = sorted(set(gpu.get("name") for gpu in listed))
        ok = len(listed) == want
        return result(node, "gpu_count", PASS if ok else FAIL, len(listed), want,
                      "nvidia-smi lists %d GPU(s) (%s), the inventory expects %d (validate_gpu_count)"
                      % (len(listed), ", ".join(names) or "none", want))
    if hardware:
        ok = len(listed) == pci
        return result(node, "gpu_count", PASS if ok else FAIL, len(listed), pci,
                      "nvidia-smi lists %d GPU(s), the PCI bus shows %d" % (len(listed), pci))
    return result(node, "gpu_count", NOT_RUN, len(listed), None,
                  "nothing to compare with: %s and validate_gpu_count is not set" % reason)


def gpu_model_result(node, listed, model):
    """gpu_model: every GPU's product name holds model (case-insensitive)."""
    names = [gpu.get("name") or "" for gpu in listed]
    wrong = sorted(set(name for name in names if model.lower() not in name.lower()))
    ok = bool(names) and not wrong
    return result(node, "gpu_model", PASS if ok else FAIL, sorted(set(names)), model,
                  ("every GPU is a %s" % model) if ok else
                  ("GPU model(s) %s do not match %r (validate_gpu_model)" % (", ".join(wrong) or "none listed", model)))


def kernel_module_version(proc_version):
    """The version in /proc/driver/nvidia/version ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15 ..."), or None."""
    if not isinstance(proc_version, (str, bytes)):
        return None
    match = re.search(r"Kernel Module\s+(?:for\s+\S+\s+)?([0-9][0-9.]{0,30})", as_text(proc_version, "", ValidateError))
    return match.group(1) if match else None


def driver_loaded_result(node, driver, hardware, loaded, proc_version, reason):
    """driver_loaded: the nvidia kernel module is loaded and is the user-space driver's version."""
    if not hardware:
        return result(node, "driver_loaded", NOT_RUN, None, driver,
                      "%s: the kernel module is not this host's to check (nvidia-smi answers with driver %s)"
                      % (reason, driver))
    kernel = kernel_module_version(proc_version)
    if not loaded:
        return result(node, "driver_loaded", FAIL, None, driver,
                      "the nvidia kernel module is not loaded (/sys/module/nvidia is missing)")
    if driver and kernel and kernel != driver:
        return result(node, "driver_loaded", FAIL, kernel, driver,
                      "loaded kernel module %s differs from the user-space driver %s: reload or reboot" % (kernel, driver))
    return result(node, "driver_loaded", PASS, kernel or driver, driver, "nvidia kernel module %s loaded" % (kernel or driver))


def persistence_result(node, listed):
    """persistence_mode: on for every GPU (not_run where nvidia-smi does not report it)."""
    modes = [gpu.get("persistence_mode") for gpu in listed]
    if not listed:
        return result(node, "persistence_mode", NOT_RUN, None, "enabled", "no GPU listed")
    if all(mode is None for mode in modes):
        return result(node, "persistence_mode", NOT_RUN, None, "enabled",
                      "nvidia-smi does not report persistence mode on this platform")
    off = [str(gpu.get("index")) for gpu in listed if gpu.get("persistence_mode") != "enabled"]
    return result(node, "persistence_mode", FAIL if off else PASS,
                  "disabled on %d GPU(s)" % len(off) if off else "enabled", "enabled",
                  ("persistence mode is off on GPU %s: enable nvidia-persistenced" % ",".join(off))
                  if off else "persistence mode on for all %d GPUs" % len(listed))


def _gpu_checks(node, data, expect):
    gpus = data.get("gpus") or {}
    listed = gpus.get("gpus") or []
    hardware = bool(data.get("hardware"))
    reason = data.get("no_hardware_reason") or "no NVIDIA GPU on the PCI bus"
    out = [gpu_count_result(node, gpus, expect, hardware, reason)]
    model = expect.get("gpu_model") or ""
    if model:
        out.append(gpu_model_result(node, listed, model))
    out.append(driver_loaded_result(node, gpus.get("driver_version"), hardware,
                                    (data.get("modules") or {}).get("nvidia"), data.get("driver_proc_version") or "",
                                    reason))
    out.append(persistence_result(node, listed))
    out.append(memory_errors_result(node, listed))
    return out


# Kinds of GPU memory error findings (memory_findings). validate fails on
# every one; the health check drains on the kinds its settings name.
MEMORY_KINDS = ("volatile_uncorrectable", "aggregate_uncorrectable", "retired_pages", "retirement_pending",
                "remapped_rows_uncorrectable", "remap_pending", "remap_failure")


def memory_findings(listed):
    """(reported, [(kind, text)]): what the GPUs' ECC, page retirement and row remapping counters say.

    reported is False when no GPU reports any of those counters (no ECC memory).
    """
    found, reported = [], False
    for gpu in listed:
        where = "GPU %s" % gpu.get("index")
        ecc = gpu.get("ecc_uncorrectable") or {}
        for scope in ("volatile", "aggregate"):
            count = ecc.get(scope)
            if count is not None:
                reported = True
                if count > 0:
                    found.append((scope + "_uncorrectable",
                                  "%s: %d uncorrectable ECC error(s) (%s)" % (where, count, scope)))
        pages = gpu.get("retired_pages")
        if pages:
            reported = True
            total = (pages.get("single_bit") or 0) + (pages.get("double_bit") or 0)
            if total:
                found.append(("retired_pages", "%s: %d retired page(s)" % (where, total)))
            if pages.get("pending"):
                found.append(("retirement_pending", "%s: page retirement pending (reset the GPU)" % where))
        rows = gpu.get("remapped_rows")
        if rows:
            reported = True
            if rows.get("uncorrectable"):
                found.append(("remapped_rows_uncorrectable",
                              "%s: %d row(s) remapped for uncorrectable errors" % (where, rows["uncorrectable"])))
            if rows.get("pending"):
                found.append(("remap_pending", "%s: row remapping pending (reset the GPU)" % where))
            if rows.get("failure"):
                found.append(("remap_failure", "%s: row remapping failed (replace the GPU)" % where))
    return reported, found


def memory_errors_result(node, listed, failing=MEMORY_KINDS):
    """gpu_memory_errors: fails on the findings of the kinds in failing; the others are reported in the message."""
    if not listed:
        return result(node, "gpu_memory_errors", NOT_RUN, None, 0, "no GPU listed")
    reported, found = memory_findings(listed)
    if not reported:
        return result(node, "gpu_memory_errors", NOT_RUN, None, 0,
                      "the GPUs report no ECC, retired-page or row-remapping counters (no ECC memory)")
    problems = [text for kind, text in found if kind in failing]
    others = [text for kind, text in found if kind not in failing]
    if problems:
        return result(node, "gpu_memory_errors", FAIL, len(problems), 0, "; ".join(problems + others))
    message = "no uncorrectable ECC errors, retired pages or remapped rows on %d GPUs" % len(listed)
    if others:
        message = "nothing that needs a reset on %d GPUs (reported: %s)" % (len(listed), "; ".join(others))
    return result(node, "gpu_memory_errors", PASS, 0, 0, message)


def expected_ports(ib, ports=None, rate=0):
    """[(name, port dict or None, expected rate)] of the ports that must be Active."""
    found = {}
    for hca in ib.get("hcas") or []:
        for port in hca.get("ports") or []:
            found[_port_name(hca, port)] = port
    if ports:
        names = list(ports)
    else:  # every port not administratively disabled
        names = [name for name, port in sorted(found.items())
                 if (port.get("physical_state") or "").lower() != "disabled"]
    out = []
    for name in names:
        port = found.get(name)
        want = rate
        if not want:
            layer = port.get("link_layer") if port else None
            rates = [p.get("rate_gbps") or 0 for n, p in found.items()
                     if n in names and p.get("link_layer") == layer]
            want = max(rates) if rates else 0
        out.append((name, port, want))
    return out


def rdma_results(node, data, expect):
    """rdma_ports and peermem_loaded: the expected RDMA ports are Active at their rate; GPUDirect RDMA is loaded."""
    ib = data.get("ib") or {}
    hcas = ib.get("hcas") or []
    rdma = expect.get("rdma_expected", "auto")
    out = []
    if rdma is False or (rdma == "auto" and not hcas):
        why = "validate_rdma_expected is false" if rdma is False else "no RDMA device found (ib_facts: %s)" % ib.get("source", "none")
        out.append(result(node, "rdma_ports", NOT_RUN, None, None, why))
        out.append(result(node, "peermem_loaded", NOT_RUN, None, None, why))
        return out
    wanted = expected_ports(ib, expect.get("ib_ports") or [], expect.get("ib_rate_gbps") or 0)
    bad, good = [], []
    for name, port, rate in wanted:
        if port is None:
            bad.append("%s missing" % name)
        elif port.get("state") != "Active":
            bad.append("%s %s/%s" % (name, port.get("state"), port.get("physical_state")))
        elif rate and (port.get("rate_gbps") or 0) < rate:
            bad.append("%s at %s Gb/s, expected %s" % (name, port.get("rate_gbps"), rate))
        else:
            good.append(name)
    if not wanted:
        bad.append("no RDMA port found")
    measured = "%d of %d Active at the expected rate" % (len(good), len(wanted))
    expected = ["%s@%s" % (name, rate) for name, _port, rate in wanted]
    out.append(result(node, "rdma_ports", FAIL if bad else PASS, measured, expected,
                      ("ports not as expected: " + "; ".join(bad)) if bad else
                      "%d RDMA port(s) Active at the expected rate" % len(good)))
    module = expect.get("peermem_module") or "nvidia_peermem"
    if not data.get("hardware"):
        out.append(result(node, "peermem_loaded", NOT_RUN, None, module,
                          "%s: kernel modules are not this host's to check"
                          % (data.get("no_hardware_reason") or "no NVIDIA GPU on the PCI bus")))
    else:
        loaded = bool((data.get("modules") or {}).get(module))
        out.append(result(node, "peermem_loaded", PASS if loaded else FAIL, loaded, True,
                          "%s is %s" % (module, "loaded" if loaded else
                                        "not loaded: GPUDirect RDMA is off (modprobe %s, or run rdma_peermem)" % module)))
    return out


def _text_of(value, limit=300):
    """Command output or a field of a state file, as a message quotes it: text as it is (cut), anything else
    shown."""
    return _clip(value, limit) if isinstance(value, str) else shown(value, limit)


def _munge_check(node, data, expect):
    munge = data.get("munge") if isinstance(data.get("munge"), dict) else {}
    controller = expect.get("controller") or "the controller"
    if munge.get("encode_rc"):
        return result(node, "munge", FAIL, None, "Success",
                      "munge -n failed on %s: %s" % (node, _text_of(munge.get("encode_stderr") or "").strip()
                                                     or "rc %s" % _text_of(munge["encode_rc"])))
    try:
        parsed = parse_unmunge(munge.get("stdout") or "")
    except ValidateError:
        return result(node, "munge", FAIL, None, "Success",
                      "%s could not decode %s's credential: %s"
                      % (controller, node, _text_of(munge.get("stderr") or munge.get("stdout") or "no output").strip()))
    if not parsed["success"]:
        return result(node, "munge", FAIL, parsed["status"], "Success",
                      "%s rejects %s's credential: %s (same munge key on both? clocks in sync?)" % (controller, node, parsed["status"]))
    return result(node, "munge", PASS, parsed["status"], "Success", "%s decodes %s's credential" % (controller, node))


def _clock_skew(node, data, expect, problems, notes):
    """Skew against the controller (None when it could not be measured), from two clock reads, each within one
    round trip of the Ansible controller's clock (clock_sample): the round trips are subtracted, so a busy machine
    widens the bound instead of failing a good clock."""
    controller = expect.get("controller") or "the controller"
    own, ref = data.get("clock"), data.get("controller_clock")
    if not own:
        problems.append("the clock could not be read: %s"
                        % (data.get("clock_error") or "no gpuops.cluster.clock_sample result"))
        return None
    if not ref:
        notes.append("no skew measured: %s's clock was not read in this run (%s)"
                     % (controller, data.get("controller_clock_error") or "left out by --limit, or unreachable"))
        return None
    try:
        offset, uncertainty = clock_skew(own, ref)
    except ClockError as exc:
        problems.append("no skew measured: %s" % exc)
        return None
    if node == controller:
        notes.append("the clock the other hosts are compared with (read within a %.3f s round trip)" % own["rtt_s"])
        return offset
    max_skew = float(expect.get("clock_max_skew_s", 2))
    notes.append("clock %+.3f s from %s's (+/- %.3f s: each read within one round trip)"
                 % (offset, controller, uncertainty))
    if abs(offset) - uncertainty > max_skew:
        problems.append("clock differs from %s's by at least %.3f s (%.3f s measured, less the %.3f s the round "
                        "trips allow; more than %s s, validate_clock_max_skew_s): sync both with the same NTP "
                        "servers (chrony)"
                        % (controller, abs(offset) - uncertainty, abs(offset), uncertainty,
                           expect.get("clock_max_skew_s", 2)))
    return offset


def _time_sync(data, expect, problems, notes):
    """chrony's tracking (offset against its sources) where chronyd answers, else timedatectl's NTPSynchronized."""
    if data.get("container"):
        notes.append("time sync not checked: %s, whose clock is the host kernel's" % data.get("no_hardware_reason"))
        return
    max_offset = expect.get("clock_max_offset_ms", 100)
    sync = None
    chrony = data.get("chronyc") or {}
    if chrony.get("rc") == 0 and chrony.get("stdout"):
        try:
            track = parse_chronyc_tracking(chrony["stdout"])
            sync = track["synchronized"]
            if (not sync and expect.get("clock_time_server") and track["reference"].upper().startswith("7F7F0101")
                    and track["leap_status"].lower() not in ("not synchronised", "not synchronized")):
                # The cluster's own time server (gpuops.cluster.chrony without
                # site servers) serves its local clock: the cluster agrees
                # with itself, which is what Slurm and munge need.
                sync = True
                notes.append("chrony serves this host's own clock to the cluster (chrony_servers is empty: set it to "
                             "follow real time)")
            offset_ms = abs(track["offset_s"]) * 1000.0
            notes.append("chrony: %s, offset %.3f ms" % (track["leap_status"], offset_ms))
            if offset_ms > float(max_offset):
                problems.append("chrony offset %.3f ms exceeds %s ms (validate_clock_max_offset_ms)"
                                % (offset_ms, max_offset))
        except ValidateError as exc:
            problems.append(str(exc))
    if sync is None:
        tdc = data.get("timedatectl") or {}
        if tdc.get("rc") == 0 and tdc.get("stdout"):
            try:
                sync = parse_timedatectl_show(tdc["stdout"])["ntp_synchronized"]
                notes.append("timedatectl NTPSynchronized=%s" % ("yes" if sync else "no"))
            except ValidateError as exc:
                problems.append(str(exc))
    if sync is False:
        problems.append("the clock is not synchronized (start chrony or systemd-timesyncd)")
    elif sync is None:
        problems.append("no time synchronization found (neither chronyc nor timedatectl answered)")


def _clock_check(node, data, expect):
    """The clock's skew against the controller's (measured, not Ansible's latency) and its time sync."""
    problems, notes = [], []
    offset = _clock_skew(node, data, expect, problems, notes)
    _time_sync(data, expect, problems, notes)
    if problems:
        status = FAIL
    elif offset is None:
        status = NOT_RUN
    else:
        status = PASS
    return result(node, "clock", status, None if offset is None else "%+.3f s" % offset,
                  "within %s s, synchronized" % expect.get("clock_max_skew_s", 2),
                  "; ".join(problems + notes))


def _service_check(node, data, expect):
    daemon = "slurmctld" if data.get("role") == "controller" else "slurmd"
    services = data.get("services") or {}
    down = ["%s is %s" % (unit, services.get(unit) or "unknown") for unit in ("munge", daemon)
            if services.get(unit) != "active"]
    return result(node, "slurm_daemons", FAIL if down else PASS,
                  dict((unit, services.get(unit)) for unit in ("munge", daemon)), "active",
                  ("not running: " + "; ".join(down)) if down else "munge and %s are active" % daemon)


def health_last_result(node, record, age_s=None, interval_s=None):
    """health_last: the last result the node health check (gpuops.cluster.node_health) recorded on the node.

    age_s: seconds since it was written; interval_s: slurm.conf HealthCheckInterval. A result older
    than three intervals (and a minute) means slurmd no longer runs the check.
    """
    if not isinstance(record, dict) or not record:
        return result(node, "health_last", NOT_RUN, None, "pass",
                      "no health check result on the node (gpuops.cluster.node_health not applied, or slurmd has "
                      "not run it yet)")
    when = "%s run at %s" % (_text_of(record.get("mode") or "?", 40), _text_of(record.get("time") or "?", 40))
    status = record.get("status")
    if age_s is not None and interval_s and age_s > 3 * interval_s + 60:
        return result(node, "health_last", FAIL, "%ds old" % age_s, "every %ds" % interval_s,
                      "the last %s, %d s ago, though slurmd should run the health check every %d s: is slurmd "
                      "running, and slurm.conf's HealthCheckProgram set?" % (when, age_s, interval_s))
    if status == "error":
        return result(node, "health_last", FAIL, "error", "pass",
                      "the health check could not run (%s): %s" % (when, _text_of(record.get("error"))))
    if status == FAIL:
        # last.json is read as it is: results that are not a list of objects name no check.
        results = record.get("results") if isinstance(record.get("results"), list) else []
        failed = [item.get("check") for item in results if isinstance(item, dict) and item.get("status") == FAIL]
        return result(node, "health_last", FAIL, FAIL, "pass", "%s failed %s: %s; %s (%s)" % (
            when, ", ".join(_text_of(name, 40) for name in failed) or "a check", _text_of(record.get("reason") or ""),
            _text_of(record.get("action"), 40), _text_of(record.get("why"))))
    counts = record.get("counts") if isinstance(record.get("counts"), dict) else {}
    return result(node, "health_last", PASS, PASS, "pass", "%s passed (%s checks, %s not run)"
                  % (when, _text_of(counts.get(PASS, "?"), 20), _text_of(counts.get(NOT_RUN, "?"), 20)))


def node_checks(data, expect):
    """Results of one host's own checks. data: what node.yml gathered; expect: the settings."""
    node = data.get("node")
    out = []
    if data.get("gpu_host") or expect.get("gpu_count"):
        out.extend(_gpu_checks(node, data, expect))
    if data.get("role") == "compute":
        out.extend(rdma_results(node, data, expect))
        if data.get("slurmd_gres") is not None:
            out.append(gres_seen_result(node, data.get("slurmd_gres"), data.get("gpus")))
        if "health_last" in data:
            out.append(health_last_result(node, data.get("health_last"), data.get("health_age_s"),
                                          expect.get("health_interval_s")))
    out.append(_service_check(node, data, expect))
    out.append(_munge_check(node, data, expect))
    out.append(_clock_check(node, data, expect))
    return out


# --------------------------------------------------------------------------
# Slurm checks, from the controller

def slurm_node_checks(scontrol, nodes):
    """node_state and slurmd_gres per compute node.

    scontrol: the registered result of ``scontrol --oneliner show node`` (rc,
    stdout, stderr) or its text. nodes: {slurm name: {"host": inventory name,
    "slurm_gres": the Gres= the node's GPUs call for, "gpu_count": n}}.
    Returns {"results", "usable": Slurm names jobs can go to, "gpu_counts":
    {Slurm name: GPUs Slurm has for the node}, "nodes": nodes}.
    """
    if isinstance(scontrol, dict):
        if scontrol.get("rc") != 0:
            message = (scontrol.get("stderr") or scontrol.get("msg") or "no output").strip()
            return {"results": [result("cluster", "slurm_nodes", FAIL, None, None,
                                       "scontrol show node failed (rc %s): %s" % (scontrol.get("rc"), message))],
                    "usable": [], "gpu_counts": {}, "nodes": nodes}
        scontrol = scontrol.get("stdout") or ""
    try:
        known = parse_scontrol_nodes(scontrol)
    except ValidateError as exc:
        return {"results": [result("cluster", "slurm_nodes", FAIL, None, None, str(exc))],
                "usable": [], "gpu_counts": {}, "nodes": nodes}
    out, usable, counts = [], [], {}
    for name in sorted(nodes):
        want = nodes[name] if isinstance(nodes[name], dict) else {}
        host = want.get("host") or name
        info = known.get(name)
        if info is None:
            out.append(result(host, "node_state", FAIL, None, "idle or allocated",
                              "slurmctld does not know node %s (not in slurm.conf, or slurmctld runs an old config)" % name))
            out.append(result(host, "slurmd_gres", NOT_RUN, None, want.get("slurm_gres") or "",
                              "the node is not registered"))
            continue
        bad = [flag for flag in info["flags"] if flag in BAD_FLAGS]
        healthy = info["base_state"] in HEALTHY_STATES and not bad
        reason = info.get("reason")
        out.append(result(host, "node_state", PASS if healthy else FAIL, info["state"], "idle or allocated",
                          ("%s is %s" % (name, info["state"])) if healthy else
                          "%s is %s%s" % (name, info["state"], (", reason: %s" % reason) if reason else ", no reason given")))
        if healthy:
            usable.append(name)
        gres_want = want.get("slurm_gres") or ""
        gres_have = info.get("gres") or ""
        try:
            count_have = gres_gpu_count(gres_have)
        except ValidateError as exc:
            # One node's unreadable Gres fails that node's check, not the run.
            counts[name] = 0
            out.append(result(host, "slurmd_gres", FAIL, gres_have, gres_want,
                              "slurmctld reports Gres=%s for %s, which cannot be read (%s): re-run playbooks/slurm.yml"
                              % (_clip(gres_have, 80), name, exc)))
            continue
        counts[name] = count_have
        count_want = _count(want.get("gpu_count"))
        if not gres_want and not count_have:
            out.append(result(host, "slurmd_gres", PASS, gres_have, gres_want, "no GPUs, no GPU GRES"))
        else:
            ok = _gres_equal(gres_have, gres_want)
            out.append(result(host, "slurmd_gres", PASS if ok else FAIL, gres_have, gres_want,
                              ("slurmd registered Gres=%s" % gres_have) if ok else
                              "Slurm has Gres=%s (%d GPUs) but nvidia-smi shows %s (%d GPUs): re-run playbooks/slurm.yml"
                              % (gres_have or "(none)", count_have, gres_want or "no GPUs", count_want)))
    return {"results": out, "usable": usable, "gpu_counts": counts, "nodes": nodes}


def _count(value):
    """A count the playbook gathered (an int, or digits), else 0."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and re.match(r"[0-9]{1,9}\Z", value.strip()):
        return int(value.strip())
    return 0


def _gres_items(text):
    """The gpu entries of a Gres string without their (S:...) suffix, sorted: what \\(.*?\\)$ removed, found
    without a scan from every parenthesis."""
    items = []
    for item in (text if isinstance(text, str) else "").split(","):
        item = item.strip()
        if item.endswith(")") and "(" in item:
            item = item[:item.index("(")]  # gpu:a100:4(S:0-1) -> gpu:a100:4
        if item.startswith("gpu"):
            items.append(item)
    return sorted(items)


def _gres_equal(have, want):
    return _gres_items(have) == _gres_items(want)


def job_checks(nodes, usable, jobs, gres_jobs, counts):
    """job and gres_cuda_visible_devices per node from the srun outputs.

    jobs / gres_jobs: {node: {"rc", "stdout", "stderr"}} for the nodes jobs were sent to.
    counts: {node: GPU count in Slurm}.
    """
    out = []
    for name in sorted(nodes):
        host = (nodes[name] or {}).get("host") or name
        if name not in usable:
            out.append(result(host, "job", FAIL, None, name, "no job sent: the node is not usable (see node_state)"))
            if counts.get(name):
                out.append(result(host, "gres_cuda_visible_devices", NOT_RUN, None, counts[name],
                                  "the node is not usable (see node_state)"))
            continue
        run = jobs.get(name) or {}
        lines = (run.get("stdout") or "").split()
        ok = run.get("rc") == 0 and name in lines
        out.append(result(host, "job", PASS if ok else FAIL, " ".join(lines) or None, name,
                          ("srun -w %s hostname answered" % name) if ok else
                          "srun -w %s hostname failed (rc %s): %s" % (name, run.get("rc"), _tail(run))))
        if counts.get(name):
            gres = gres_jobs.get(name) or {}
            value = (gres.get("stdout") or "").strip()
            ids = [item for item in value.split(",") if item != ""]
            good = gres.get("rc") == 0 and len(ids) == counts[name]
            out.append(result(host, "gres_cuda_visible_devices", PASS if good else FAIL, value or None, counts[name],
                              ("--gres=gpu:%d sets CUDA_VISIBLE_DEVICES=%s" % (counts[name], value)) if good else
                              "--gres=gpu:%d gave CUDA_VISIBLE_DEVICES=%r (rc %s): %s"
                              % (counts[name], value, gres.get("rc"), _tail(gres))))
    return out


def _tail(run):
    """The last line srun wrote to stderr, or why there is none."""
    if run.get("rc") == 124:
        return "no answer within the time limit (validate_job_timeout_s)"
    lines = [line for line in (run.get("stderr") or "").splitlines() if line.strip()]
    if lines:
        return lines[-1].strip()
    return (run.get("msg") or "no output").strip()


def multi_node_job_check(usable, run):
    if len(usable) < 2:
        return result("cluster", "job_all_nodes", NOT_RUN, None, len(usable),
                      "fewer than 2 usable compute nodes")
    lines = (run.get("stdout") or "").split()
    missing = sorted(set(usable) - set(lines))
    ok = run.get("rc") == 0 and not missing
    return result("cluster", "job_all_nodes", PASS if ok else FAIL, len(set(lines) & set(usable)), len(usable),
                  ("one job step ran on all %d usable nodes" % len(usable)) if ok else
                  "srun -N%d failed (rc %s), no answer from %s: %s" % (len(usable), run.get("rc"), ", ".join(missing) or "-", _tail(run)))


# What scontrol says where slurmctld runs without a topology (topology/none, default or flat).
_NO_TOPOLOGY_RE = re.compile(r"No topology information|not supported|does not support|topology/(?:none|default|flat)")


def _nodes_text(nodes):
    try:
        return compress(nodes)
    except HostlistError:
        return ",".join(nodes)


def _leaves(topology):
    """{leaf switch or block: [nodes]}: the groups a job asked to stay in one (--switches=1, --segment) uses."""
    return dict((group["name"], group["nodes"]) for group in topology["groups"]
                if group["nodes"] and (topology["kind"] == "block" or group["level"] == 0))


def topology_placement_request(run, usable):
    """What the placement job asks for: {option, nodes} (option: --switches=1 for a tree, --segment=2 for
    blocks), or {} when Slurm runs without a topology or no leaf or block holds 2 usable nodes."""
    try:
        topology = parse_scontrol_topology((run or {}).get("stdout") or "")
    except ValidateError:
        return {}
    if (run or {}).get("rc") != 0 or topology["kind"] is None:
        return {}
    if not any(len(set(nodes) & set(usable)) >= 2 for nodes in _leaves(topology).values()):
        return {}
    return {"option": "--switches=1" if topology["kind"] == "tree" else "--segment=2", "nodes": 2}


def topology_checks(run, usable, placement):
    """topology (every usable node is in the topology Slurm runs with, as scontrol show topology lists it)
    and job_topology (a 2-node job asked to stay below one leaf switch or in one block lands there).

    run: the registered ``scontrol show topology``; placement: the registered srun of
    topology_placement_request's option (skipped or None when it was not sent)."""
    run = run or {}
    if run.get("rc") != 0 and _NO_TOPOLOGY_RE.search(run.get("stderr") or ""):
        return [result("cluster", "topology", NOT_RUN, None, "the topology slurmctld runs with",
                       "Slurm runs without a topology (%s; see slurm_topology)" % _tail(run))]
    if run.get("rc") != 0:
        return [result("cluster", "topology", FAIL, None, "the topology slurmctld runs with",
                       "scontrol show topology failed (rc %s): %s" % (run.get("rc"), _tail(run)))]
    try:
        topology = parse_scontrol_topology(run.get("stdout") or "")
    except ValidateError as exc:
        return [result("cluster", "topology", FAIL, None, "the topology slurmctld runs with", str(exc))]
    if topology["kind"] is None:
        return [result("cluster", "topology", NOT_RUN, None, "the topology slurmctld runs with",
                       "Slurm runs without a topology (no topology/tree or topology/block: see slurm_topology)")]
    leaves = _leaves(topology)
    where = {}
    for name, nodes in leaves.items():
        for node in nodes:
            where.setdefault(node, name)
    outside = sorted(node for node in usable if node not in where)
    word = "leaf switch" if topology["kind"] == "tree" else "block"
    listing = "; ".join("%s: %s" % (name, _nodes_text(nodes)) for name, nodes in sorted(leaves.items()))
    words = "leaf switches" if topology["kind"] == "tree" else "blocks"
    out = [result("cluster", "topology", FAIL if outside else PASS, len(leaves),
                  "every usable node under a %s" % word,
                  ("%s outside every %s (Slurm places no job that needs the topology there): %s"
                   % (", ".join(outside), word, listing)) if outside else
                  "topology/%s, %d %s: %s" % (topology["kind"], len(leaves), words, _clip(listing, 300)))]
    request = topology_placement_request(run, usable)
    if not request:
        out.append(result("cluster", "job_topology", NOT_RUN, None, "one %s" % word,
                          "no %s holds 2 usable nodes" % word))
        return out
    placement = placement or {}
    if placement.get("skipped") or placement.get("rc") is None:
        out.append(result("cluster", "job_topology", NOT_RUN, None, "one %s" % word, "the placement job was not sent"))
        return out
    ran = sorted(set((placement.get("stdout") or "").split()))
    groups = sorted(set(where.get(node, "?") for node in ran))
    ok = placement.get("rc") == 0 and len(ran) == 2 and len(groups) == 1 and "?" not in groups
    if ok:
        message = "srun -N2 %s ran on %s, both under %s %s" % (request["option"], ",".join(ran), word, groups[0])
    else:
        message = "srun -N2 %s (rc %s) ran on %s, under %s: %s" % (
            request["option"], placement.get("rc"), ",".join(ran) or "no node", ",".join(groups) or "-",
            _tail(placement))
    out.append(result("cluster", "job_topology", PASS if ok else FAIL, ",".join(groups) or None, "one %s" % word,
                      message))
    return out


# --------------------------------------------------------------------------
# Performance

def allreduce_check(node, check, run, expected, basis, fraction):
    if run is None:
        return result(node, check, NOT_RUN, None, expected, basis)
    try:
        parsed = parse_nccl_tests(run.get("stdout") or "")
    except ValidateError as exc:
        return result(node, check, FAIL, None, expected, "all_reduce_perf (rc %s): %s" % (run.get("rc"), exc))
    measured = parsed["largest"]["out_of_place"]["busbw"]
    if parsed["wrong"]:
        return result(node, check, FAIL, measured, expected, "all_reduce_perf found %d wrong result(s)" % parsed["wrong"])
    if expected is None:
        return result(node, check, NOT_RUN, measured, None,
                      "measured %.1f GB/s bus bandwidth, but no expected figure: %s (set validate_expected_figures)"
                      % (measured, basis))
    status, message = judge(measured, expected, fraction)
    return result(node, check, status, measured, expected,
                  "bus bandwidth at %s bytes: %s; %s" % (parsed["largest"]["size"], message, basis))


def ib_write_bw_check(pair, run, expected, fraction):
    node = pair
    if run is None:
        return result(node, "ib_write_bw", NOT_RUN, None, expected, "not run")
    try:
        parsed = parse_ib_write_bw(run.get("stdout") or "")
    except ValidateError as exc:
        return result(node, "ib_write_bw", FAIL, None, expected, "ib_write_bw (rc %s): %s" % (run.get("rc"), exc))
    measured = parsed["bw_average_gbps"]
    if not expected:
        return result(node, "ib_write_bw", NOT_RUN, measured, None, "no expected link rate")
    status, message = judge(measured, expected, fraction)
    return result(node, "ib_write_bw", status, measured, expected, "Gb/s average: " + message)


def intranode_expectation(gpus_facts, override=None):
    if override:
        return float(override), "expected figure from validate_expected_figures"
    exp = expected_intranode_busbw(gpus_facts.get("gpus") or [], gpus_facts.get("nvlink_all_to_all"))
    return exp["value"], exp["basis"]


def internode_expectation(node_ports, override=None):
    if override:
        return float(override), "expected figure from validate_expected_figures"
    exp = expected_internode_busbw(node_ports)
    return exp["value"], exp["basis"]


def selected_ports(ib):
    """The ports NCCL uses, as [{"name", "rate_gbps", "link_layer"}], from ib_facts."""
    chosen = set((ib or {}).get("selected") or [])
    out = []
    for hca in (ib or {}).get("hcas") or []:
        for port in hca.get("ports") or []:
            name = _port_name(hca, port)
            if name in chosen:
                out.append({"name": name, "rate_gbps": port.get("rate_gbps") or 0, "link_layer": port.get("link_layer")})
    return out


def ib_pairs(entries, hosts):
    """Neighbouring hosts (a ring; one pair for two hosts) with RDMA ports, port k to port k.

    entries: [{"host", "ib"}]; hosts: the hosts that may take part, in order.
    """
    by_host = dict((entry.get("host"), selected_ports(entry.get("ib"))) for entry in entries)
    nodes = [host for host in hosts if by_host.get(host)]
    if len(nodes) < 2:
        return []
    pairs = []
    count = len(nodes) if len(nodes) > 2 else 1
    for i in range(count):
        a, b = nodes[i], nodes[(i + 1) % len(nodes)]
        for pa, pb in zip(by_host[a], by_host[b]):
            pairs.append({"client": a, "server": b, "client_port": pa["name"], "server_port": pb["name"],
                          "rate_gbps": min(pa["rate_gbps"], pb["rate_gbps"]),
                          "pair": "%s:%s->%s:%s" % (a, pa["name"], b, pb["name"])})
    return pairs


def perf_checks(spec):
    """Results of the performance checks.

    spec: {"fraction": f, "overrides": {allreduce_single_node, allreduce_multi_node, ib_write_bw},
    "enabled": bool, "entries": [{"host", "skip": reason or "", "hardware", "no_hardware_reason", "gpus": gpu
    facts, "ib": ib facts}] for every compute node, "ran": hosts the benchmarks ran on,
    "single_runs": {host: srun output of the one-node all_reduce_perf}, "multi_run": srun output of the
    all-node all_reduce_perf or None, "pairs": [{"pair", "rate_gbps", "run"}]}
    """
    fraction = spec.get("fraction", 0.8)
    overrides = spec.get("overrides") or {}
    enabled = spec.get("enabled", True)
    ran = spec.get("ran") or []
    runs = spec.get("single_runs") or {}
    out = []
    for entry in sorted(spec.get("entries") or [], key=lambda e: e.get("host") or ""):
        host = entry.get("host")
        gpus = entry.get("gpus") or {}
        expected, basis = intranode_expectation(gpus, overrides.get("allreduce_single_node"))
        if not enabled:
            why = "validate_perf is false"
        elif entry.get("skip"):
            why = entry["skip"]
        elif host not in ran:
            why = "the node is not usable in Slurm (see node_state)"
        else:
            out.append(allreduce_check(host, "allreduce_single_node", runs.get(host), expected, basis, fraction))
            continue
        out.append(result(host, "allreduce_single_node", NOT_RUN, None, expected, "not run: " + why))
    if len(ran) >= 2:
        ports = dict((entry.get("host"), selected_ports(entry.get("ib"))) for entry in spec.get("entries") or []
                     if entry.get("host") in ran)
        expected, basis = internode_expectation(ports, overrides.get("allreduce_multi_node"))
        out.append(allreduce_check("cluster", "allreduce_multi_node", spec.get("multi_run"), expected, basis, fraction))
    else:
        why = "validate_perf is false" if not enabled else "%d node(s) can run GPU benchmarks, 2 are needed" % len(ran)
        out.append(result("cluster", "allreduce_multi_node", NOT_RUN, None, None, "not run: " + why))
    pairs = spec.get("pairs") or []
    if not pairs:
        why = "validate_perf is false" if not enabled else "fewer than 2 nodes that can run benchmarks have RDMA ports"
        out.append(result("cluster", "ib_write_bw", NOT_RUN, None, None, "not run: " + why))
    for pair in pairs:
        rate = overrides.get("ib_write_bw") or pair.get("rate_gbps")
        out.append(ib_write_bw_check(pair["pair"], pair.get("run"), rate, fraction))
    return out


# No error of Python's own leaves a parser: anything no rule foresaw becomes ValidateError.
parse_unmunge = guarded(ValidateError, "unmunge")(parse_unmunge)


# --------------------------------------------------------------------------
# What slurmd itself sees (slurmd -G) against gpu_facts

# More GPU records than any node has (16 GPUs, 7 MIG slices each, with room) is garbage.
_MAX_GPUS_PER_NODE = 1024
_GRES_LINE_RE = re.compile(r"\bGres (Name=\S+(?: \S+=\S*)*)")


def parse_slurmd_gres(text):
    """The GRES records slurmd -G prints (its log lines 'Gres Name=gpu Type=... Count=1 ... File=/dev/nvidia0 ...').

    Returns a list of {key: value} (Name, Type, Count, File, ...), in order. Lines without 'Gres Name=' are skipped
    (slurmd's other log lines). Slurm 22.05, 24.11 and 26.05 print the same fields.
    """
    text = as_text(text, "slurmd -G output", ValidateError)
    records = []
    for line in text.splitlines():
        match = _GRES_LINE_RE.search(line)
        if not match:
            continue
        fields = {}
        for pair in match.group(1).split(" "):
            key, _sep, value = pair.partition("=")
            fields[key] = value
        records.append(fields)
    return records


def _seen_gpus(records):
    """[(type, file)] of slurmd's gpu records, one per GPU.

    24.11 and 26.05 print one record for a gres.conf line, Count GPUs with their files as a range
    (File=/dev/nvidia[0-7]); a MIG slice's record names several files for one GPU (the parent's device and
    its capabilities), kept whole; a record without files counts Count times.
    """
    seen = []
    for fields in records:
        if fields.get("Name") != "gpu":
            continue
        kind = fields.get("Type") or ""
        kind = "" if kind == "(null)" else kind
        count = small_int(fields.get("Count") or "1", "slurmd -G: a GRES count", ValidateError)
        if not 0 <= count <= _MAX_GPUS_PER_NODE:
            raise ValidateError("slurmd -G: Count=%d GPUs in one record; a node has at most %d"
                                % (count, _MAX_GPUS_PER_NODE))
        files = fields.get("File") or ""
        if not files or files == "(null)":
            seen.extend([(kind, "")] * count)
            continue
        try:
            paths = expand(files)
        except HostlistError as exc:
            raise ValidateError("slurmd -G: cannot read File=%s (%s)" % (_clip(files, 80), exc))
        if len(paths) == count:
            seen.extend((kind, path) for path in paths)
        else:
            seen.extend([(kind, files)] * count)
    return seen


def _shown_gpus(pairs):
    return ", ".join("%s on %s" % (kind or "untyped", path or "no device file") for kind, path in pairs) or "none"


def gres_seen_result(node, slurmd, gpus):
    """gres_seen: the GPUs slurmd -G reports against the ones gpu_facts found on the node.

    slurmd: the registered result of slurmd -G (rc, stdout, stderr) or its text; gpus: the gpuops_gpus fact.
    Full GPUs are compared by type and device file; with MIG on, by count (gpu_facts' Gres= value).
    """
    gpus = gpus if isinstance(gpus, dict) else {}
    text = slurmd
    if isinstance(slurmd, dict):
        if slurmd.get("rc") != 0:
            message = (slurmd.get("stderr") or slurmd.get("msg") or "no output").strip()
            return result(node, "gres_seen", FAIL, None, None,
                          "slurmd -G failed (rc %s): %s" % (slurmd.get("rc"), _clip(message, 300)))
        text = (slurmd.get("stderr") or "") + "\n" + (slurmd.get("stdout") or "")
    try:
        seen = _seen_gpus(parse_slurmd_gres(text))
    except ValidateError as exc:
        return result(node, "gres_seen", FAIL, None, None, "cannot read slurmd -G: %s" % exc)
    listed = [gpu for gpu in gpus.get("gpus") or [] if isinstance(gpu, dict)]
    mig = any(gpu.get("mig_mode") == "enabled" and gpu.get("mig_devices") for gpu in listed)
    if mig:
        want = gres_count(str(gpus.get("slurm_gres") or ""))
        ok = len(seen) == want
        return result(node, "gres_seen", PASS if ok else FAIL, len(seen), want,
                      "slurmd sees %d GPU records (MIG), gpu_facts' Gres= has %d%s"
                      % (len(seen), want, "" if ok else ": check gres.conf and slurmd's log"))
    want = sorted((str(gpu.get("slurm_type") or ""), "/dev/nvidia%s" % gpu.get("minor_number"))
                  for gpu in listed if gpu.get("minor_number") is not None)
    have = sorted(seen)
    plural = "" if len(have) == 1 else "s"
    if have == want:
        message = ("slurmd sees the %d GPU%s gpu_facts found (%s)" % (len(want), plural, _shown_gpus(want))
                   if want else "no GPU: slurmd sees none, as gpu_facts")
        return result(node, "gres_seen", PASS, len(have), len(want), message)
    only_slurmd = [pair for pair in have if pair not in want]
    only_facts = [pair for pair in want if pair not in have]
    message = ("slurmd sees %d GPU%s, gpu_facts %d; only slurmd: %s; only gpu_facts: %s. With AutoDetect, a type "
               "differs when Slurm names the GPU otherwise than gpu_facts; else gres.conf and the node disagree: "
               "run the Slurm play again" % (len(have), plural, len(want), _shown_gpus(only_slurmd), _shown_gpus(only_facts)))
    return result(node, "gres_seen", FAIL, len(have), len(want), message)


parse_slurmd_gres = guarded(ValidateError, 'slurmd -G output')(parse_slurmd_gres)
