# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The active checks' fabric check (gpuops.cluster.node_health): an NCCL all-reduce between two nodes under one
leaf switch, over the fabric, and the rule that says which node of a failing pair is at fault.

Pure functions. A node whose own checks pass asks Slurm for a two-node job with a partner: the next node in
service under its leaf switch, as Slurm's own topology lists it (``scontrol show topology``, read with validate's
``parse_scontrol_topology``). The job (``gpuops-health fabric-job``) runs the check program on every GPU of both
nodes and then ``gpuops-health fabric-record`` on each: both nodes record the pair's result (``fabric_entry``).

A pair that fails does not say which of its two nodes is sick. ``fabric_verdict`` blames a node only when it has
failed with two different partners; a node that failed with one partner and passed with another is well (its
first partner is the suspect); a node that failed with one partner only is checked with its next partner
(``next``) before anything is decided; with no other partner under the leaf, nothing is decided and the message
says so.

The expectation is the one validate uses for an all-reduce between nodes (``expected_internode_busbw``: the
node's RDMA ports NCCL uses, their rates summed, in GB/s) times EFFICIENCY, or the site's own figure
(``node_health_active_expect``'s ``fabric_allreduce``). A pair fails below expectation x (1 - tolerance).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import math

from ansible_collections.gpuops.cluster.plugins.module_utils.health._active import (
    FABRIC_CHECK,
    ActiveCheckError,
    job_options,
    program_document,
)
from ansible_collections.gpuops.cluster.plugins.module_utils.validate._validate import (
    ValidateError,
    expected_internode_busbw,
)
from ansible_collections.gpuops.cluster.plugins.module_utils.validate._validate_checks import (
    BAD_FLAGS,
    FAIL,
    HEALTHY_STATES,
    NOT_RUN,
    PASS,
    result,
)

UNIT = "GB/s"
WHAT = "NCCL all-reduce over the fabric"
# The fraction of the node's RDMA line rate (its NCCL ports' rates summed) that a plain PyTorch all-reduce of
# 256 MiB between two nodes reaches as nccl-tests' bus bandwidth on a healthy fabric: a judgment of what the
# measurement attains, not a datasheet fact; a site with a measured reference gives it in
# node_health_active_expect.
EFFICIENCY = 0.7
# The pair results the verdict reads: those of the last day (an older failure says nothing of the node now).
WINDOW_S = 86400
# The most partners one node is paired with before nothing more is tried.
MAX_PARTNERS = 3


# A measurement the fabric check cannot use (the check program's output, as for the node's own checks).
FabricCheckError = ActiveCheckError


def _number(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def _fmt(value):
    return ("%.0f" % value) if value >= 100 else ("%.1f" % value)


def in_service(state):
    """Whether Slurm gives the node new jobs: a healthy base state and no flag that holds it (validate's rule)."""
    state = state or {}
    return state.get("base_state") in HEALTHY_STATES and not set(state.get("flags") or []) & set(BAD_FLAGS)


def leaf_partners(node, topology, states=None):
    """{"leaf", "partners", "why"}: the nodes node may be paired with, in the order they are tried.

    topology: validate's parse_scontrol_topology result. states: {node: parse_scontrol_nodes entry} of the leaf's
    nodes; a node drained, down or missing from it is no partner (its own state says why). The partners follow node
    around the ring of its leaf's nodes (the next one first), so that neighbours pair and no node is every node's
    first partner. Without a switch tree (topology/flat, topology/block: a block is an NVLink domain, not a
    switch), or with node under no leaf, there is no partner and why says so.
    """
    if not isinstance(topology, dict) or topology.get("kind") != "tree":
        return {"leaf": None, "partners": [], "why": (
            "Slurm runs without a switch tree (topology/tree): the leaf switches are not known "
            "(gpuops.cluster.slurm_controller's slurm_topology)")}
    leaves = [group for group in topology.get("groups") or [] if group.get("level") == 0 and node in group["nodes"]]
    if not leaves:
        return {"leaf": None, "partners": [], "why": "%s is under no leaf switch of Slurm's topology" % node}
    leaf = leaves[0]
    ring = leaf["nodes"]
    at = ring.index(node)
    order = [ring[(at + step) % len(ring)] for step in range(1, len(ring))]
    if states is None:
        partners = order
    else:
        partners = [name for name in order if name in states and in_service(states[name])]
    why = "" if partners else ("no other node under %s is in service (%d other%s)"
                               % (leaf["name"], len(order), "" if len(order) == 1 else "s"))
    return {"leaf": leaf["name"], "partners": partners[:MAX_PARTNERS], "why": why}


def fabric_expectation(node, ports, site_row=None):
    """{"value": GB/s or None, "source"}: what a healthy pair of this node's kind reaches.

    ports: the node's RDMA ports NCCL uses ([{"name", "rate_gbps"}], validate's selected_ports). site_row: the
    site's expectations for the node's GPU model ({check: value}, _active.site_expect of
    node_health_active_expect); its fabric_allreduce figure wins.
    """
    value = _number((site_row or {}).get(FABRIC_CHECK)) if isinstance(site_row, dict) else None
    if value is not None and value > 0:
        return {"value": value, "source": "node_health_active_expect"}
    try:
        line = expected_internode_busbw({node: list(ports or [])})
    except ValidateError as exc:
        return {"value": None, "source": str(exc)}
    if line["value"] is None:
        return {"value": None, "source": line["basis"]}
    return {"value": round(line["value"] * EFFICIENCY, 2),
            "source": "%s x %.1f (a plain all-reduce's share of the line rate)" % (line["basis"], EFFICIENCY)}


def parse_fabric_measurement(text):
    """The check program's --fabric document (its last JSON line): {"value": GB/s} or {"error": why}, with "world"
    (how many ranks took part) where the program said."""
    data = program_document(text)
    world = data.get("world")
    out = {"world": world} if isinstance(world, int) and not isinstance(world, bool) else {}
    item = data.get(FABRIC_CHECK)
    value = _number(item)
    if data.get("error"):
        out["error"] = " ".join(str(data["error"]).split())[:200]
    elif value is not None:
        out["value"] = value
    elif isinstance(item, dict) and item.get("error"):
        out["error"] = " ".join(str(item["error"]).split())[:200]
    else:
        out["error"] = "no %s in the check program's document" % FABRIC_CHECK
    return out


def fabric_entry(partner, measured, expected, tolerance, epoch, job_id=None):
    """One pair's result as the node records it: {"partner", "status", "value", "expected", "floor", "message",
    "epoch", "job_id", "world" (the ranks)}. measured: parse_fabric_measurement's; expected: fabric_expectation's."""
    entry = {"partner": partner, "value": None, "expected": expected.get("value"), "floor": None,
             "epoch": epoch, "job_id": job_id, "world": measured.get("world")}
    if measured.get("error"):
        entry.update(status=NOT_RUN, message="not measured with %s: %s" % (partner, measured["error"]))
        return entry
    value = measured["value"]
    entry["value"] = value
    if expected.get("value") is None:
        entry.update(status=NOT_RUN, message="%s %s with %s, not judged: %s"
                     % (_fmt(value), UNIT, partner, expected.get("source")))
        return entry
    floor = expected["value"] * (1 - tolerance)
    entry["floor"] = round(floor, 2)
    ok = value >= floor
    entry.update(status=PASS if ok else FAIL, message="%s %s %s %s with %s (expected %s -%d%%)" % (
        _fmt(value), UNIT, ">=" if ok else "<", _fmt(floor), partner, _fmt(expected["value"]),
        round(tolerance * 100)))
    return entry


def recent(records, now, window_s=WINDOW_S):
    """The pair results of the window, the latest per partner, in partner order; anything malformed left out."""
    latest = {}
    for entry in records if isinstance(records, list) else []:
        if not isinstance(entry, dict) or not isinstance(entry.get("partner"), str):
            continue
        epoch = _number(entry.get("epoch"))
        if epoch is None or epoch < now - window_s or entry.get("status") not in (PASS, FAIL, NOT_RUN):
            continue
        if entry["partner"] not in latest or epoch >= latest[entry["partner"]]["epoch"]:
            latest[entry["partner"]] = entry
    return [latest[name] for name in sorted(latest)]


def fabric_verdict(node, records, partners, now, window_s=WINDOW_S):
    """{"result": the fabric check's result (validate-shaped, with "values" per partner), "next": the partner
    to try next or None}.

    records: the node's pair results (recent() keeps the window's latest per partner). partners: leaf_partners'
    partners, in the order they are tried. The rule of blame: a node fails when it failed with two different
    partners; it passes when it passed with one (a failure with another partner blames that partner); a single
    failure with nobody else tried asks for the next partner; with no other partner left, nothing is decided.
    """
    seen = recent(records, now, window_s)
    failed = [entry for entry in seen if entry["status"] == FAIL]
    passed = [entry for entry in seen if entry["status"] == PASS]
    values = [{"gpu": None, "partner": entry["partner"], "value": entry.get("value"),
               "expected": entry.get("expected"), "pass": {PASS: True, FAIL: False}.get(entry["status"])}
              for entry in seen]
    judged = [entry["value"] for entry in failed + passed]
    lowest = min(judged) if judged else None
    figures = [entry["expected"] for entry in failed + passed if entry.get("expected") is not None]
    expected = max(figures) if figures else None
    tried = set(entry["partner"] for entry in seen)
    untried = [name for name in partners or [] if name not in tried and name != node]
    nxt = None
    if len(failed) >= 2:
        status = FAIL
        message = "%s: %s" % (WHAT, "; ".join(entry["message"] for entry in failed))
    elif passed:
        status = PASS
        message = "%s: %s" % (WHAT, "; ".join(entry["message"] for entry in passed))
        if failed:
            message += "; it failed with %s only, which is the suspect" % failed[0]["partner"]
    elif failed:
        status = NOT_RUN
        nxt = untried[0] if untried else None
        message = "%s: %s; %s" % (WHAT, failed[0]["message"], (
            "checked with %s next before either node is blamed" % nxt if nxt else
            "no other partner in service under the leaf switch tells which node is at fault"))
    elif seen:
        status = NOT_RUN
        message = "%s: %s" % (WHAT, "; ".join(entry["message"] for entry in seen))
    else:
        status = NOT_RUN
        message = "%s: no pair result in the last %d h" % (WHAT, window_s // 3600)
    entry = result(node, FABRIC_CHECK, status, lowest, expected, message)
    entry["unit"] = UNIT
    entry["values"] = values
    return {"result": entry, "next": nxt}


def fabric_job_name(node):
    """The name of the pair jobs a node asks for (squeue -n finds one that waits already)."""
    return "gpuops-health-fabric-%s" % node


def fabric_step_argv(srun, python, program, gpus, cpus):
    """The srun of the measurement inside the pair job: a task per GPU on both nodes (--overcommit only on a node
    with fewer CPUs than GPUs, where Slurm would refuse the tasks otherwise)."""
    gpus = max(1, gpus)
    argv = [srun, "--nodes=2", "--ntasks=%d" % (2 * gpus), "--ntasks-per-node=%d" % gpus]
    if cpus and cpus < gpus:
        argv.append("--overcommit")
    return argv + ["--kill-on-bad-exit=1", python, program, "--fabric"]


def fabric_job_argv(sbatch, program, node, partner, gpus, partitions, state_dir, time_limit_s, deadline_h,
                    retest=False):
    """The sbatch command of one pair check: node and partner whole and alone (--nodelist, --exclusive, all their
    memory and GPUs; the job's step starts a task per GPU, fabric_step_argv), the lowest priority (--nice; the
    highest, --priority=TOP, when a node drained by this check is retested, so that it is checked before it takes
    other work), dropped when it could not start within deadline_h hours."""
    return ([sbatch, "--job-name=%s" % fabric_job_name(node), "--nodelist=%s,%s" % (node, partner), "--nodes=2",
             "--ntasks-per-node=1", "--exclusive", "--mem=0", "--priority=TOP" if retest else "--nice=10000"]
            + job_options(time_limit_s, deadline_h, "%s/fabric-job-%%j.log" % state_dir.rstrip("/"), partitions, gpus,
                          "%s fabric-job" % program))
