# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Active GPU checks (gpuops.cluster.node_health): what a healthy GPU of each model achieves, and the rule that
turns a measurement into pass or fail.

Pure functions. The measurements are made by the check program (roles/node_health/files/gpuops_gpu_check.py,
under the PyTorch environment's Python) on the GPUs a Slurm job holds; it prints one JSON document, read here by
``parse_measurements``. ``expectations`` gives each check's expected value for a GPU from the table below (or the
site's own measured reference, ``node_health_active_expect``), ``active_results`` compares, and the health check's
``decide`` drains or resumes the node.

The expectation of a check is what a healthy GPU of that model achieves in this measurement: the datasheet's
peak times the fraction of it the measurement attains (EFFICIENCY; the program's measurement is a plain PyTorch
one, not a tuned benchmark). A GPU fails when it measures below expectation x (1 - tolerance).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import math
import re

from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import shown
from ansible_collections.gpuops.cluster.plugins.module_utils.validate._validate_checks import FAIL, NOT_RUN, PASS, result

# The checks the active run makes, in report order. diag is dcgmi diag (where DCGM is installed); the others
# come from the check program. Each check's unit is in UNITS.
MEASURED = ("gpu_matmul", "gpu_memory_bandwidth", "gpu_h2d_bandwidth", "gpu_d2h_bandwidth", "nccl_allreduce")
PER_GPU = ("gpu_matmul", "gpu_memory_bandwidth", "gpu_h2d_bandwidth", "gpu_d2h_bandwidth")
ACTIVE_CHECKS = MEASURED + ("diag",)
# The pair check over the fabric (_fabric_check): a two-node job of its own, judged by the rule of blame there.
FABRIC_CHECK = "fabric_allreduce"
# The reason gpuops-health writes on a node that waits for its first checks (joined: a boot, a first install).
PENDING_CHECK = "active"
UNITS = {"gpu_matmul": "TFLOPS", "gpu_memory_bandwidth": "GB/s", "gpu_h2d_bandwidth": "GB/s",
         "gpu_d2h_bandwidth": "GB/s", "nccl_allreduce": "GB/s"}
WHAT = {"gpu_matmul": "bf16 matrix multiply", "gpu_memory_bandwidth": "memory copy bandwidth",
        "gpu_h2d_bandwidth": "host-to-device bandwidth", "gpu_d2h_bandwidth": "device-to-host bandwidth",
        "nccl_allreduce": "NCCL all-reduce bus bandwidth"}

DEFAULT_TOLERANCE = 0.15
TOLERANCE_RANGE = (0.0, 0.9)
DIAG_LEVELS = (1, 2, 3, 4)
# The longest an active run may hold a node (the check job's time limit), and how long a check job may wait for
# its node to be free before Slurm drops it (sbatch --deadline).
DEFAULT_TIMEOUT_S = 900
DEFAULT_DEADLINE_H = 12

# The fraction of the datasheet peak the check program's measurement attains on a healthy GPU: a bf16 8192^3
# torch.matmul against the dense Tensor Core peak; a device-to-device copy of 1 GiB (read plus write) against the
# memory bandwidth; a copy of 256 MiB of pinned host memory against the PCIe link's rate (the one nvidia-smi
# reports as the GPU's maximum); NCCL all-reduce bus bandwidth (nccl-tests' busbw) of 256 MiB against NVLink's
# bandwidth in one direction. These are judgments of what plain measurements reach, not datasheet facts: a
# site with a measured reference of its own gives it as node_health_active_expect.
EFFICIENCY = {"gpu_matmul": 0.6, "gpu_memory_bandwidth": 0.8, "gpu_h2d_bandwidth": 0.7, "gpu_d2h_bandwidth": 0.7,
              "nccl_allreduce": 0.6}

# GPU models by the product name nvidia-smi reports (matched in this order, case-insensitive, on the whole
# name's words): the model's name here, its dense bf16 Tensor Core peak (TFLOPS, without sparsity), its memory
# bandwidth (GB/s), its NVLink bandwidth in one direction (GB/s; 0 without NVLink between the node's GPUs),
# and the source of the figures.
GPU_MODELS = (
    {"model": "B200", "match": r"\bb200\b", "bf16_tflops": 2250.0, "memory_gbs": 8000.0, "nvlink_gbs": 900.0,
     "source": "NVIDIA HGX B200 specifications (8 GPUs: FP16/BF16 Tensor Core 36 PFLOPS with sparsity, NVLink "
               "1.8 TB/s per GPU; 8 TB/s HBM3e per GPU; at 1,000 W. A GB200's B200 runs at 1,200 W and is not "
               "this row)"},
    {"model": "H200", "match": r"\bh200\b", "bf16_tflops": 989.4, "memory_gbs": 4800.0, "nvlink_gbs": 450.0,
     "source": "NVIDIA H200 Tensor Core GPU datasheet (H200 SXM: BF16 1,979 TFLOPS with sparsity, 4.8 TB/s "
               "HBM3e, NVLink 900 GB/s)"},
    {"model": "H100 NVL", "match": r"\bh100 nvl\b", "bf16_tflops": 835.5, "memory_gbs": 3900.0, "nvlink_gbs": 0.0,
     "source": "NVIDIA H100 Tensor Core GPU datasheet (H100 NVL: BF16 1,671 TFLOPS with sparsity, 3.9 TB/s; "
               "its NVLink bridge joins pairs only)"},
    {"model": "H100 PCIe", "match": r"\bh100\b.*\bpcie\b", "bf16_tflops": 756.5, "memory_gbs": 2000.0,
     "nvlink_gbs": 0.0,
     "source": "NVIDIA H100 Tensor Core GPU datasheet (H100 PCIe: BF16 1,513 TFLOPS with sparsity, 2 TB/s)"},
    {"model": "H100 SXM", "match": r"\bh100\b", "bf16_tflops": 989.4, "memory_gbs": 3350.0, "nvlink_gbs": 450.0,
     "source": "NVIDIA H100 Tensor Core GPU datasheet (H100 SXM: BF16 1,979 TFLOPS with sparsity, 3.35 TB/s "
               "HBM3, NVLink 900 GB/s)"},
    {"model": "A100 SXM4 80GB", "match": r"\ba100-sxm4-80gb\b", "bf16_tflops": 312.0, "memory_gbs": 2039.0,
     "nvlink_gbs": 300.0,
     "source": "NVIDIA A100 Tensor Core GPU datasheet (A100 80GB SXM: BF16 312 TFLOPS, 2,039 GB/s, NVLink 600 GB/s)"},
    {"model": "A100 SXM4 40GB", "match": r"\ba100-sxm4-40gb\b", "bf16_tflops": 312.0, "memory_gbs": 1555.0,
     "nvlink_gbs": 300.0,
     "source": "NVIDIA A100 Tensor Core GPU datasheet (A100 40GB SXM: BF16 312 TFLOPS, 1,555 GB/s, NVLink 600 GB/s)"},
    {"model": "A100 PCIe 80GB", "match": r"\ba100 80gb pcie\b", "bf16_tflops": 312.0, "memory_gbs": 1935.0,
     "nvlink_gbs": 0.0,
     "source": "NVIDIA A100 Tensor Core GPU datasheet (A100 80GB PCIe: BF16 312 TFLOPS, 1,935 GB/s)"},
    {"model": "A100 PCIe 40GB", "match": r"\ba100-pcie-40gb\b", "bf16_tflops": 312.0, "memory_gbs": 1555.0,
     "nvlink_gbs": 0.0,
     "source": "NVIDIA A100 Tensor Core GPU datasheet (A100 40GB PCIe: BF16 312 TFLOPS, 1,555 GB/s)"},
    {"model": "L40S", "match": r"\bl40s\b", "bf16_tflops": 362.05, "memory_gbs": 864.0, "nvlink_gbs": 0.0,
     "source": "NVIDIA L40S datasheet (BF16 362.05 TFLOPS, 733 with sparsity; 864 GB/s)"},
)
# A PCIe link's rate per lane in GB/s by generation: the transfer rate (GT/s) times the line code's efficiency
# (8b/10b for 1 and 2, 128b/130b for 3 to 5; 6 counts its FLIT mode's 242 of 256 bytes), over 8 bits.
PCIE_LANE_GBS = {1: 2.5 * 0.8 / 8, 2: 5.0 * 0.8 / 8, 3: 8.0 * 128 / 130 / 8, 4: 16.0 * 128 / 130 / 8,
                 5: 32.0 * 128 / 130 / 8, 6: 64.0 * 242 / 256 / 8}


class ActiveCheckError(Exception):
    """Settings or a measurement the active checks cannot use."""


def gpu_model(product_name):
    """The row of GPU_MODELS for an nvidia-smi product name, or None for a model the table lacks."""
    if not isinstance(product_name, str):
        return None
    words = " ".join(product_name.lower().split())
    for row in GPU_MODELS:
        if re.search(row["match"], words):
            return row
    return None


def pcie_link_gbs(link):
    """The PCIe link's rate in one direction (GB/s) at the generation and width nvidia-smi reports as the GPU's
    maximum (_gpu_facts' pcie_link), or None when it reports neither."""
    if not isinstance(link, dict):
        return None
    gen, width = link.get("max_gen"), link.get("max_width")
    if gen not in PCIE_LANE_GBS or isinstance(width, bool) or not isinstance(width, int) or width <= 0:
        return None
    return PCIE_LANE_GBS[gen] * width


def _number(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if math.isfinite(value) and value >= 0 else None


def site_expect(site, gpu):
    """The site's expectations for this GPU (node_health_active_expect): by product name, or by the table's model."""
    row = gpu_model(gpu.get("name"))
    for key, value in (site or {}).items():
        if isinstance(key, str) and isinstance(value, dict) and (
                key.strip().lower() == str(gpu.get("name") or "").strip().lower()
                or (row is not None and key.strip().lower() == row["model"].lower())):
            return value
    return {}


def expectations(gpu, site=None):
    """{check: {"value": expected or None, "source": text}} for one GPU (parse_smi_xml's entry: name, pcie_link).

    site: node_health_active_expect ({product name or model: {check: value}}), which wins over the table. A check
    with no expectation is reported, never judged.
    """
    row = gpu_model(gpu.get("name"))
    mine = site_expect(site, gpu)
    link = pcie_link_gbs(gpu.get("pcie_link"))
    out = {}
    for check in MEASURED:
        given = _number(mine.get(check))
        if given is not None:
            out[check] = {"value": given, "source": "node_health_active_expect"}
            continue
        peak, source = None, None
        if check == "gpu_matmul" and row:
            peak, source = row["bf16_tflops"], row["source"]
        elif check == "gpu_memory_bandwidth" and row:
            peak, source = row["memory_gbs"], row["source"]
        elif check in ("gpu_h2d_bandwidth", "gpu_d2h_bandwidth") and link:
            pcie = gpu.get("pcie_link") or {}
            peak = link
            source = "PCIe gen %s x%s (nvidia-smi: the GPU's maximum link)" % (pcie.get("max_gen"), pcie.get("max_width"))
        elif check == "nccl_allreduce" and row and row["nvlink_gbs"]:
            peak, source = row["nvlink_gbs"], row["source"]
        if peak is None:
            why = ("no NVLink between this model's GPUs in the table" if check == "nccl_allreduce" and row
                   else "the PCIe link is not reported" if check in ("gpu_h2d_bandwidth", "gpu_d2h_bandwidth")
                   else "GPU model %s is not in the table" % shown(gpu.get("name"), 60))
            out[check] = {"value": None, "source": why}
        else:
            out[check] = {"value": round(peak * EFFICIENCY[check], 1),
                          "source": "%s x %.2f (EFFICIENCY)" % (source, EFFICIENCY[check])}
    return out


def settings_errors(settings):
    """[] or messages naming the node_health_active_* setting and the fix (the role's preflight); never raises."""
    if not isinstance(settings, dict):
        return ["the active checks' settings must be a mapping, not %s" % shown(settings, 60)]
    errors = []
    for key, default, low, high, unit in (("timeout_s", DEFAULT_TIMEOUT_S, 60, 86400, "seconds"),
                                          ("deadline_h", DEFAULT_DEADLINE_H, 1, 720, "hours")):
        value = settings.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            errors.append("node_health_active_%s must be a whole number of %s from %d to %d, not %s"
                          % (key, unit, low, high, shown(value, 40)))
    for key in ("python", "pytorch_root"):
        value = settings.get(key, "")
        if not isinstance(value, str) or (value and not value.startswith("/")) or "\n" in value or "\x00" in value:
            errors.append("node_health_active_%s must be an absolute path%s, not %s"
                          % (key, " or empty (the newest PyTorch environment)" if key == "python" else "",
                             shown(value, 60)))
    tolerance = settings.get("tolerance", DEFAULT_TOLERANCE)
    if _number(tolerance) is None or not TOLERANCE_RANGE[0] <= tolerance <= TOLERANCE_RANGE[1]:
        errors.append("node_health_active_tolerance must be a fraction from %s to %s (0.15: a GPU 15 %% below its "
                      "expectation fails), not %s" % (TOLERANCE_RANGE[0], TOLERANCE_RANGE[1], shown(tolerance, 40)))
    level = settings.get("diag_level", 1)
    if isinstance(level, bool) or level not in DIAG_LEVELS:
        errors.append("node_health_diag_level must be one of %s (dcgmi diag -r: 1 takes seconds, 2 about two "
                      "minutes, 3 and 4 from 10 minutes to hours), not %s"
                      % (", ".join(str(item) for item in DIAG_LEVELS), shown(level, 40)))
    expect = settings.get("expect", {})
    if not isinstance(expect, dict):
        errors.append("node_health_active_expect must map a GPU model or product name to {check: value}, not %s"
                      % shown(expect, 60))
        expect = {}
    for key, value in expect.items():
        if not isinstance(value, dict):
            errors.append("node_health_active_expect[%s] must map checks to values, not %s"
                          % (shown(key, 40), shown(value, 40)))
            continue
        for check, number in value.items():
            if check not in MEASURED + (FABRIC_CHECK,):
                errors.append("node_health_active_expect[%s] names %s: the measured checks are %s"
                              % (shown(key, 40), shown(check, 40), ", ".join(MEASURED + (FABRIC_CHECK,))))
            elif _number(number) is None or number == 0:
                errors.append("node_health_active_expect[%s][%s] must be a positive number (%s), not %s"
                              % (shown(key, 40), check, UNITS.get(check, "GB/s"), shown(number, 40)))
    return errors


def program_document(text):
    """The mapping the check program printed as its last JSON line (text or bytes); ActiveCheckError otherwise."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    if not isinstance(text, str):
        raise ActiveCheckError("the check program's output must be text, not %s" % shown(text, 40))
    lines = [line for line in text.strip().splitlines() if line.strip().startswith("{")]
    if not lines:
        raise ActiveCheckError("the check program printed no JSON document: %s" % shown(text.strip()[-200:], 200))
    try:
        data = json.loads(lines[-1])
    except (ValueError, RecursionError):
        raise ActiveCheckError("the check program's last line is not JSON: %s" % shown(lines[-1], 120))
    if not isinstance(data, dict):
        raise ActiveCheckError("the check program's document is not a mapping: %s" % shown(data, 60))
    return data


def parse_measurements(text):
    """The check program's JSON document: {"error", "gpus": [{"index", "name", <check>: value or {"error"}}],
    "nccl_allreduce": value or {"error"}}. Raises ActiveCheckError on anything else."""
    data = program_document(text)
    gpus = data.get("gpus", [])
    if not isinstance(gpus, list) or not all(isinstance(gpu, dict) for gpu in gpus):
        raise ActiveCheckError("the check program's gpus must be a list of mappings, not %s" % shown(gpus, 60))
    out = {"error": str(data["error"]) if data.get("error") else None, "gpus": [], "torch": data.get("torch"),
           "seconds": _number(data.get("seconds")), "nccl_allreduce": _value(data.get("nccl_allreduce"))}
    for position, gpu in enumerate(gpus):
        index = gpu.get("index", position)
        if isinstance(index, bool) or not isinstance(index, int):
            raise ActiveCheckError("GPU %d of the check program has no whole index: %s" % (position, shown(index, 40)))
        entry = {"index": index, "name": str(gpu.get("name") or "")}
        for check in PER_GPU:
            entry[check] = _value(gpu.get(check))
        out["gpus"].append(entry)
    return out


def _value(item):
    """A measurement: {"value": number} or {"error": why}; a missing one is an error that says so."""
    number = _number(item)
    if number is not None:
        return {"value": number}
    if isinstance(item, dict) and item.get("error"):
        text = " ".join(str(item["error"]).split())
        return {"error": text if len(text) <= 160 else text[:157] + "..."}
    return {"error": "not measured" if item is None else "not a number: %s" % shown(item, 40)}


def _fmt(value):
    return ("%.0f" % value) if value >= 100 else ("%.1f" % value)


def active_results(node, measured, smi_gpus, settings, not_run=None):
    """validate-shaped results of the measured checks, with "values": [{gpu, value, expected, pass}] per GPU.

    measured: parse_measurements' result, or None when the program did not run (not_run says why). smi_gpus:
    parse_smi_xml's GPUs of the node, in the order the program numbers them (PCI bus order). settings: the health
    settings' "active" part (tolerance, expect, checks). A GPU below expectation x (1 - tolerance) fails its
    check; the message names the GPU, the value and the expectation.
    """
    enabled = settings.get("checks") or {}
    tolerance = settings.get("tolerance", DEFAULT_TOLERANCE)
    site = settings.get("expect") or {}
    out = []
    for check in MEASURED:
        if not enabled.get(check, True):
            continue
        if measured is None or measured.get("error"):
            why = not_run or (measured or {}).get("error") or "the check program did not run"
            out.append(result(node, check, NOT_RUN, None, None, why))
            continue
        if check == "nccl_allreduce":
            items = [(None, measured["nccl_allreduce"], smi_gpus[0] if smi_gpus else {})]
            if len(measured["gpus"]) < 2:
                out.append(result(node, check, NOT_RUN, None, None, "one GPU: no all-reduce between GPUs"))
                continue
        else:
            items = [(gpu["index"], gpu[check], smi_gpus[position] if position < len(smi_gpus) else {})
                     for position, gpu in enumerate(measured["gpus"])]
            # A GPU nvidia-smi lists that CUDA does not show (it failed to initialise) fails every per-GPU check.
            items += [(position, {"error": "nvidia-smi lists it, CUDA does not show it (%d of %d GPUs)"
                                  % (len(measured["gpus"]), len(smi_gpus))}, smi_gpus[position])
                      for position in range(len(measured["gpus"]), len(smi_gpus))]
        if not items:
            out.append(result(node, check, NOT_RUN, None, None, "no GPU was measured"))
            continue
        out.append(_judge(node, check, items, tolerance, site))
    return out


def _judge(node, check, items, tolerance, site):
    values, errors, failed, unjudged = [], [], [], []
    for index, item, gpu in items:
        expect = expectations(gpu, site)[check]
        where = "GPU %s" % index if index is not None else "the node"
        if item.get("error"):
            errors.append("%s: %s" % (where, item["error"]))
            values.append({"gpu": index, "value": None, "expected": expect["value"], "pass": False})
            continue
        value = item["value"]
        if expect["value"] is None:
            unjudged.append(expect["source"])
            values.append({"gpu": index, "value": value, "expected": None, "pass": None})
            continue
        floor = expect["value"] * (1 - tolerance)
        ok = value >= floor
        values.append({"gpu": index, "value": value, "expected": expect["value"], "pass": ok})
        if not ok:
            failed.append("%s %s %s < %s (expected %s -%d%%)" % (
                where, _fmt(value), UNITS[check], _fmt(floor), _fmt(expect["value"]), round(tolerance * 100)))
    measured = [item["value"] for item in values if item["value"] is not None]
    lowest = min(measured) if measured else None
    expectations_seen = [item["expected"] for item in values if item["expected"] is not None]
    expected = max(expectations_seen) if expectations_seen else None
    if errors or failed:
        entry = result(node, check, FAIL, lowest, expected, "%s: %s" % (WHAT[check], "; ".join(failed + errors)))
    elif unjudged:
        entry = result(node, check, NOT_RUN, lowest, None, "%s %s %s measured, not judged: %s"
                       % (WHAT[check], _fmt(lowest), UNITS[check], unjudged[0]))
    else:
        entry = result(node, check, PASS, lowest, expected, "%s: lowest %s %s, expected %s (-%d%% allowed)"
                       % (WHAT[check], _fmt(lowest), UNITS[check], _fmt(expected), round(tolerance * 100)))
    entry["unit"] = UNITS[check]
    entry["values"] = values
    return entry


# --------------------------------------------------------------------------
# Where the active run goes, from the node's Slurm state

def active_plan(node_state, pending_job=False):
    """{"action": run|submit|skip, "why"}: how the active run checks this node now.

    run: the checks run here at once (the node is held by gpuops-health and runs no job: drained, down, or waiting
    for its first checks). submit: the node is in service: the checks go to Slurm as a job of their own for this
    node, exclusive and at the lowest priority, so that they never take a GPU from a job and run when the node is
    free. skip: the node is held for another reason (an admin's drain stays the admin's), its Slurm state is
    unreadable, it drains for gpuops-health but still runs jobs, or a check job for it waits already.
    """
    if node_state is None:
        return {"action": "skip", "why": "the node's Slurm state could not be read"}
    flags = set(node_state.get("flags") or [])
    base = node_state.get("base_state")
    reason = node_state.get("reason")
    held = bool(flags & {"drain", "drained", "draining", "fail", "failing"}) or base in ("down", "fail")
    busy = base in ("allocated", "mixed", "completing") or "completing" in flags
    if held:
        if not (isinstance(reason, str) and reason.strip().startswith("gpuops-health:")):
            return {"action": "skip", "why": "held by Slurm for another reason (%s): left as it is"
                    % (reason or base)}
        if busy:
            return {"action": "skip", "why": "drained by gpuops-health but still running jobs: checked once they end"}
        return {"action": "run", "why": "held by gpuops-health and free: checked now"}
    if pending_job:
        return {"action": "skip", "why": "a check job for this node is waiting in Slurm already"}
    return {"action": "submit", "why": "in service: the checks wait in Slurm until the node is free"}


# Reasons Slurm itself gives a node that went away and came back (a reboot): the boot gate may drain such a node.
_SLURM_OWN_REASONS = ("not responding", "node unexpectedly rebooted", "reboot requested", "reboot issued",
                      "reboot complete")


def gate_plan(node_state):
    """{"action": drain|run|submit|skip, "why"}: what a joining node (a boot, a first install) does before work.

    drain: the node is free or down for Slurm's own reasons (a reboot): drained with the pending reason, then
    checked. run: gpuops-health holds it already. submit: it runs jobs (a first install on a cluster in service):
    its checks go to Slurm. skip: an admin's drain or down, or an unreadable state.
    """
    if node_state is None:
        return {"action": "skip", "why": "the node's Slurm state could not be read"}
    flags = set(node_state.get("flags") or [])
    base = node_state.get("base_state")
    reason = node_state.get("reason") or ""
    bare = reason.strip().lower()
    if reason.strip().startswith("gpuops-health:"):
        return {"action": "run", "why": "held by gpuops-health already"}
    if flags & {"drain", "drained", "draining", "fail", "failing"}:
        return {"action": "skip", "why": "held by Slurm for another reason (%s): left as it is" % (reason or base)}
    if base in ("down", "fail") and bare and not bare.startswith(_SLURM_OWN_REASONS):
        return {"action": "skip", "why": "set %s by someone else (%s): left as it is" % (base, reason)}
    if base in ("allocated", "mixed", "completing") or "completing" in flags:
        return {"action": "submit", "why": "running jobs: the checks wait in Slurm until the node is free"}
    return {"action": "drain", "why": "joined: drained until its checks pass"}


def pending_reason(when):
    """The Slurm reason of a node waiting for its first checks."""
    return "gpuops-health: %s: checks pending (%s)" % (PENDING_CHECK, when)


def is_pending(reason):
    """Whether a node's Slurm reason is pending_reason's: held until its first checks run (a boot, a join)."""
    return isinstance(reason, str) and reason.startswith("gpuops-health: %s: checks pending (" % PENDING_CHECK)


def check_job_name(node):
    """The name of a node's check job (squeue -n finds one that waits already)."""
    return "gpuops-health-active-%s" % node


def check_job_argv(sbatch, program, node, gpus, partitions, state_dir, time_limit_s, deadline_h):
    """The sbatch command that checks node as a Slurm job of its own: the node alone (--nodelist, --exclusive), all
    its GPUs, the lowest priority (--nice), dropped when it could not start within deadline_h hours (--deadline),
    its output in the state directory."""
    return ([sbatch, "--job-name=%s" % check_job_name(node), "--nodelist=%s" % node, "--nodes=1", "--exclusive",
             "--nice=10000"]
            + job_options(time_limit_s, deadline_h, "%s/active-job-%%j.log" % state_dir.rstrip("/"), partitions, gpus,
                          "%s active-job" % program))


def job_options(time_limit_s, deadline_h, output, partitions, gpus, command):
    """The sbatch options every check job ends with: its time limit (minutes, rounded up), its deadline, its
    output, --parsable, the node's partitions, its GPUs (per node) and the command it runs."""
    argv = ["--time=%d" % max(1, int(math.ceil(time_limit_s / 60.0))), "--deadline=now+%dhours" % deadline_h,
            "--output=%s" % output, "--parsable"]
    if partitions:
        argv.append("--partition=%s" % ",".join(partitions))
    if gpus:
        argv.append("--gres=gpu:%d" % gpus)
    return argv + ["--wrap=%s" % command]
