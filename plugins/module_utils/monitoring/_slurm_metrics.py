# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Readers of the Slurm commands a metrics exporter asks (groundwork of the Slurm exporter).

Pure functions over read-only command output: ``sdiag`` (scheduler
statistics), ``sshare -P`` (fair share per account and user) and the
pipe-separated ``squeue``/``sinfo -o`` formats, counted by any columns.
Each raises SlurmMetricsError for input it cannot read, never Python's own
errors.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import math
import re

from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import as_text, guarded, small_int


class SlurmMetricsError(Exception):
    """Command output the metrics readers cannot use."""


_SECTION_RE = re.compile(r"^([A-Z][A-Za-z ]+?)(?: \((microseconds)\))?:?$")
_VALUE_RE = re.compile(r"^([A-Za-z][A-Za-z0-9 _()./-]*?):\s+(-?[0-9]{1,18})(?:\s|$)")
_RPC_RE = re.compile(r"^(\S+)\s+\(\s*([0-9]{1,10})\)\s+count:([0-9]{1,18})\s+ave_time:([0-9]{1,18})\s+"
                     r"total_time:([0-9]{1,18})")


def _key(text):
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def parse_sdiag(text):
    """``sdiag`` as {"general": {...}, "<section>": {...}, "rpc_types": [...], "rpc_users": [...]}.

    Values are integers, keys in snake case ("jobs_submitted", "last_cycle");
    the main scheduler's are under "main_schedule_statistics", the
    backfill's under "backfilling_stats". RPC rows are dicts of name, id,
    count, ave_time, total_time (microseconds). "N/A" values are left out.
    """
    text = as_text(text, "sdiag", SlurmMetricsError)
    out = {"general": {}, "rpc_types": [], "rpc_users": []}
    section = "general"
    seen_header = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("*"):
            continue
        if line.startswith("sdiag output at"):
            seen_header = True
            continue
        indented = raw[:1] in (" ", "\t")
        rpc = _RPC_RE.match(line)
        if rpc and section in ("rpc_types", "rpc_users"):
            out[section].append({"name": rpc.group(1), "id": small_int(rpc.group(2), "sdiag rpc id", SlurmMetricsError),
                                 "count": int(rpc.group(3)), "ave_time": int(rpc.group(4)),
                                 "total_time": int(rpc.group(5))})
            continue
        if not indented:
            if line.startswith("Remote Procedure Call statistics by message type"):
                section = "rpc_types"
                continue
            if line.startswith("Remote Procedure Call statistics by user"):
                section = "rpc_users"
                continue
            header = _SECTION_RE.match(line)
            if header and ":" not in line[:-1] and not _VALUE_RE.match(line):
                section = _key(header.group(1))
                out.setdefault(section, {})
                continue
        value = _VALUE_RE.match(line)
        if value:
            target = out.setdefault(section if indented else "general", {})
            if isinstance(target, dict):
                target[_key(value.group(1))] = int(value.group(2))
    if not seen_header:
        raise SlurmMetricsError("sdiag: no 'sdiag output at' line: not sdiag output")
    return out


SSHARE_FIELDS = ("account", "user", "raw_shares", "norm_shares", "raw_usage", "norm_usage", "fairshare")


def _number(text, what):
    text = text.strip()
    if not text or text == "parent":
        return None
    if not re.match(r"^-?[0-9]{1,18}(?:\.[0-9]{1,18})?(?:[eE][-+]?[0-9]{1,3})?$", text):
        raise SlurmMetricsError("%s: %r is not a number" % (what, text[:40]))
    number = float(text)
    if not math.isfinite(number):
        raise SlurmMetricsError("%s: %r is not a finite number" % (what, text[:40]))
    return number


def _records(text, fields, what):
    """(line number, values) of each non-empty line of pipe-separated output, which must have len(fields) values."""
    text = as_text(text, what, SlurmMetricsError)
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        values = line.split("|")
        if len(values) != len(fields):
            raise SlurmMetricsError("%s line %d: %d fields, expected %d (%s)"
                                    % (what, number, len(values), len(fields), ",".join(fields)))
        yield number, values


def parse_sshare(text):
    """``sshare -a -P -n -o Account,User,RawShares,NormShares,RawUsage,NormUsage,FairShare`` rows.

    Each row: account (leading spaces of the tree removed, depth kept), user
    ("" on an account's own row), and the numbers (None where sshare prints
    nothing, or "parent").
    """
    rows = []
    for number, fields in _records(text, SSHARE_FIELDS, "sshare"):
        account = fields[0]
        row = {"account": account.strip(), "depth": len(account) - len(account.lstrip(" ")), "user": fields[1].strip()}
        for key, value in zip(SSHARE_FIELDS[2:], fields[2:]):
            row[key] = _number(value, "sshare line %d %s" % (number, key))
        rows.append(row)
    return rows


def parse_pipe(text, fields, what):
    """Rows (dicts) of pipe-separated command output (``squeue -h -o '%P|%T|...'``) with the given field names."""
    return [dict(zip(fields, [value.strip() for value in values])) for dummy, values in _records(text, fields, what)]


def count_by(rows, keys, weight=None):
    """[{"labels": {key: value}, "value": n}]: rows counted (or the weight field summed) per distinct key values."""
    counts = {}
    order = []
    for row in rows:
        group = tuple(row.get(key, "") for key in keys)
        amount = 1
        if weight:
            amount = _number(row.get(weight) or "0", "%s of %s" % (weight, "|".join(group))) or 0
        if group not in counts:
            order.append(group)
            counts[group] = 0
        counts[group] += amount
    return [{"labels": dict(zip(keys, group)), "value": counts[group]} for group in order]


# No error of Python's own leaves a reader: anything no rule foresaw becomes SlurmMetricsError.
parse_sdiag = guarded(SlurmMetricsError, 'sdiag')(parse_sdiag)
parse_sshare = guarded(SlurmMetricsError, 'sshare')(parse_sshare)
parse_pipe = guarded(SlurmMetricsError, 'pipe-separated output')(parse_pipe)
count_by = guarded(SlurmMetricsError, 'counts')(count_by)


# --- the Slurm exporter's samples -------------------------------------------------

PREFIX = "gpuops_slurm_"
# Where the takeover trigger's program writes the time a backup took control
# (gpuops.cluster._slurm_common, __slurm_takeover_note).
TAKEOVER_NOTE = "/var/lib/gpuops/slurm/last-takeover"

# The read-only commands one scrape runs (argv after the command's own path).
COMMANDS = {
    "sinfo": ["-h", "-N", "-o", "%N|%P|%T|%E"],
    "sinfo_gres": ["-h", "-N", "-O", "NodeList: ,Partition: ,Gres: ,GresUsed:"],
    "squeue": ["-h", "-a", "-r", "-o", "%i|%P|%T|%a|%u|%C|%r"],
    "sshare": ["-a", "-P", "-n", "-o", "Account,User,RawShares,NormShares,RawUsage,NormUsage,FairShare"],
    "sdiag": [],
    "scontrol_ping": ["ping"],
    "sacctmgr": ["-n", "-P", "show", "cluster", "format=cluster"],
}
PROGRAMS = {"sinfo_gres": "sinfo", "scontrol_ping": "scontrol"}
SINFO_FIELDS = ("node", "partition", "state", "reason")
SQUEUE_FIELDS = ("job_id", "partition", "state", "account", "user", "cpus", "reason")

# name: (type, help)
FAMILIES = {
    "command_up": ("gauge", "1 when the Slurm command answered and its output was read, 0 otherwise (reason says why)."),
    "scrape_duration_seconds": ("gauge", "Time this exporter took to collect."),
    "controller_up": ("gauge", "1 when scontrol ping says the slurmctld is UP, 0 otherwise."),
    "controller_in_control": ("gauge", "1 for the slurmctld in control: the first, in SlurmctldHost order, that "
                                       "scontrol ping finds UP (a backup in control: the controllers before it are "
                                       "down); 0 for the others."),
    "exporter_active": ("gauge", "1 when this exporter reports the cluster: its host is the controller in control, "
                                 "or the only one; 0 on a standby controller, which reports scontrol ping only."),
    "controller_last_takeover_timestamp_seconds": (
        "gauge", "When this controller last took control as a backup (seconds since the epoch), noted by a Slurm "
                 "trigger (strigger --backup_slurmctld_assumed_control) that the collection's Slurm roles set "
                 "with backup controllers; absent until a takeover happened."),
    "dbd_up": ("gauge", "1 when sacctmgr got an answer from slurmdbd, 0 otherwise."),
    "node_state": ("gauge", "1 per node, with its state (flags removed), whether it responds, and the drain/down reason."),
    "nodes": ("gauge", "Nodes per state."),
    "node_gpus": ("gauge", "GPUs of a node in its Gres (total) and in use by jobs (allocated)."),
    "partition_gpus": ("gauge", "GPUs of a partition's nodes (total) and in use by jobs (allocated)."),
    "partition_nodes": ("gauge", "Nodes of a partition per state."),
    "jobs": ("gauge", "Jobs per state, partition, account and user."),
    "job_cpus": ("gauge", "CPUs of the jobs per state, partition, account and user."),
    "jobs_pending": ("gauge", "Pending jobs per partition and reason."),
    "fairshare": ("gauge", "sshare FairShare factor per account and user (user empty: the account's own row)."),
    "share_usage_normalized": ("gauge", "sshare NormUsage."),
    "share_raw_usage": ("gauge", "sshare RawUsage."),
    "shares_normalized": ("gauge", "sshare NormShares."),
    "scheduler_stat": ("gauge", "Every number sdiag prints, per section and statistic."),
    "rpc_count": ("gauge", "RPCs slurmctld served per message type since its statistics were reset (sdiag)."),
    "rpc_time_seconds_total": ("gauge", "Time slurmctld spent on RPCs per message type since its statistics were reset."),

    "native_metrics": ("gauge", "1 when slurmctld serves its native metrics (MetricsType=metrics/openmetrics in the "
                                "slurm.conf of this controller): the series it has are left to it, and this exporter "
                                "reports only what slurmctld does not export (NATIVE_FAMILIES)."),
}
# The families slurmctld's native metrics (Slurm 25.11 and later) give as well, left out when they are on:
# nodes per state (slurm_nodes_<state>), partition nodes per state (slurm_partition_nodes_<state>), GPUs per node
# and partition (slurm_node_gpus, slurm_node_gpus_alloc, slurm_partition_gpus, slurm_partition_jobs_gpus_alloc) and
# the scheduler's statistics of sdiag (slurm_sched_*, slurm_bf_*, slurm_schedule_*). Kept, as slurmctld does not
# export them: each node's state with its reason (node_state), jobs and CPUs per account and user in one bounded
# family (the native per-user and per-account series are the unbounded /metrics/jobs-users-accts), pending
# reasons, fair share (sshare), the controllers' ping and takeover, slurmdbd's answer, and RPCs per type.
NATIVE_FAMILIES = ("nodes", "partition_nodes", "node_gpus", "partition_gpus", "scheduler_stat")
# The commands whose every sample is native then (not run).
NATIVE_COMMANDS = ("sinfo_gres",)

_STATE_FLAGS = "*~#!%$@^-+"
_PING_RE = re.compile(r"Slurmctld\((\w+)\) at (\S+) is (UP|DOWN)")


def node_state(text):
    """'drained*' -> ('drained', False): Slurm's long state without its flag characters, and whether it responds."""
    text = (text or "").strip().lower()
    return text.rstrip(_STATE_FLAGS) or text, "*" not in text


def _split_top(text):
    """'gpu:a:2(S:0,1),gpu:b:1' -> ['gpu:a:2(S:0,1)', 'gpu:b:1']: commas outside parentheses."""
    parts, depth, current = [], 0, ""
    for char in text:
        if char == "(":
            depth += 1
        elif char == ")":
            depth = max(depth - 1, 0)
        if char == "," and not depth:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    return [part.strip() for part in parts if part.strip()]


def gres_gpus(text):
    """GPUs in a Gres or GresUsed string ('gpu:v100s:8(S:0-1)', 'gpu:4', '(null)') as an integer."""
    total = 0
    for item in _split_top((text or "").strip()):
        name = item.split("(", 1)[0]
        fields = name.split(":")
        if fields[0] != "gpu" or len(fields) < 2:
            continue
        count = fields[-1]
        if re.match(r"^[0-9]{1,9}$", count):
            total += int(count)
        elif len(fields) == 2:  # gpu:<type> without a count means one
            total += 1
    return total


def parse_ping(text):
    """The controllers of ``scontrol ping``, in SlurmctldHost order: [{controller, role, up, in_control}].

    role is scontrol's word (primary, backup, backup2, ...). The one in control is the first that answers: a
    backup takes over only while every controller before it is down, and gives control back when the primary
    answers again (slurm.conf(5), SlurmctldHost). Raises SlurmMetricsError when no controller line is there."""
    out = []
    for match in _PING_RE.finditer(as_text(text, "scontrol ping", SlurmMetricsError)):
        answers = match.group(3) == "UP"
        out.append({"controller": match.group(2), "role": match.group(1).lower(), "up": answers,
                    "in_control": answers and not any(item["in_control"] for item in out)})
    if not out:
        raise SlurmMetricsError("scontrol ping: no 'Slurmctld(...) at ... is UP/DOWN' line")
    return out


def ping_samples(text):
    """controller_up and controller_in_control per controller from ``scontrol ping`` (parse_ping)."""
    up, in_control = [], []
    for item in parse_ping(text):
        labels = {"controller": item["controller"], "role": item["role"]}
        up.append((PREFIX + "controller_up", labels, 1 if item["up"] else 0))
        in_control.append((PREFIX + "controller_in_control", dict(labels), 1 if item["in_control"] else 0))
    return up + in_control


def takeover_samples(note_text, controller):
    """controller_last_takeover_timestamp_seconds of this controller from the takeover note ([] without one).

    The note holds the seconds since the epoch the trigger's program wrote (``date +%s``); anything else in it
    raises SlurmMetricsError."""
    if note_text is None:
        return []
    text = as_text(note_text, "the takeover note", SlurmMetricsError).strip()
    if not re.match(r"^[0-9]{1,12}$", text):
        raise SlurmMetricsError("the takeover note holds %r, not seconds since the epoch" % text[:40])
    return [(PREFIX + "controller_last_takeover_timestamp_seconds", {"controller": str(controller or "")},
             int(text))]


def exporter_active(ping_result, own_name):
    """Whether the exporter on the controller named own_name reports the cluster.

    With backups every controller runs an exporter and Prometheus scrapes them all; only the one on the
    controller in control (the first scontrol ping finds UP) reports nodes, jobs and the scheduler, so that
    nothing is counted twice. It is active when ping failed or printed nothing it can read, when no
    controller answers, or when this host is not one of the controllers ping lists (a single controller
    known by another name)."""
    result = ping_result if isinstance(ping_result, dict) else {}
    if result.get("error"):
        return True
    try:
        samples = ping_samples(result.get("out") or "")
    except SlurmMetricsError:
        return True
    names = [labels["controller"] for name, labels, value in samples if name == PREFIX + "controller_up"]
    leader = [labels["controller"] for name, labels, value in samples
              if name == PREFIX + "controller_in_control" and value == 1]
    if len(names) < 2 or not leader or str(own_name or "") not in names:
        return True
    return leader[0] == str(own_name)


def node_samples(sinfo_text, gres_text=None):
    """node_state, nodes, partition_nodes, node_gpus and partition_gpus from the two sinfo -N calls."""
    out, seen, per_state, per_partition = [], set(), {}, {}
    for row in parse_pipe(sinfo_text, SINFO_FIELDS, "sinfo"):
        state, responding = node_state(row["state"])
        key = (row["partition"].rstrip("*"), state)
        per_partition[key] = per_partition.get(key, 0) + 1
        if row["node"] in seen:
            continue
        seen.add(row["node"])
        reason = row["reason"] if row["reason"] not in ("none", "(null)") else ""
        labels = {"node": row["node"], "state": state, "reason": reason[:200], "responding": "1" if responding else "0"}
        out.append((PREFIX + "node_state", labels, 1))
        per_state[state] = per_state.get(state, 0) + 1
    for state in sorted(per_state):
        out.append((PREFIX + "nodes", {"state": state}, per_state[state]))
    for (partition, state) in sorted(per_partition):
        out.append((PREFIX + "partition_nodes", {"partition": partition, "state": state},
                    per_partition[(partition, state)]))
    if gres_text is not None:
        out.extend(gres_samples(gres_text))
    return out


def gres_samples(gres_text):
    """node_gpus and partition_gpus from ``sinfo -h -N -O 'NodeList: ,Partition: ,Gres: ,GresUsed:'``."""
    text = as_text(gres_text, "sinfo (Gres)", SlurmMetricsError)
    nodes, partitions, order = {}, {}, []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        fields = line.split()
        if len(fields) != 4:
            raise SlurmMetricsError("sinfo (Gres) line %d: %d fields, expected 4 (node, partition, gres, gres used)"
                                    % (number, len(fields)))
        node, partition, gres, used = fields
        counts = (gres_gpus(gres), gres_gpus(used))
        nodes[node] = counts
        partition = partition.rstrip("*")
        if partition not in partitions:
            partitions[partition] = [0, 0]
            order.append(partition)
        partitions[partition][0] += counts[0]
        partitions[partition][1] += counts[1]
    out = []
    for node in sorted(nodes):
        out.append((PREFIX + "node_gpus", {"node": node, "kind": "total"}, nodes[node][0]))
        out.append((PREFIX + "node_gpus", {"node": node, "kind": "allocated"}, nodes[node][1]))
    for partition in order:
        out.append((PREFIX + "partition_gpus", {"partition": partition, "kind": "total"}, partitions[partition][0]))
        out.append((PREFIX + "partition_gpus", {"partition": partition, "kind": "allocated"}, partitions[partition][1]))
    return out


def job_samples(squeue_text):
    """jobs, job_cpus per (state, partition, account, user) and jobs_pending per (partition, reason)."""
    rows = parse_pipe(squeue_text, SQUEUE_FIELDS, "squeue")
    keys = ("state", "partition", "account", "user")
    out = [(PREFIX + "jobs", item["labels"], item["value"]) for item in count_by(rows, keys)]
    out += [(PREFIX + "job_cpus", item["labels"], item["value"]) for item in count_by(rows, keys, weight="cpus")]
    pending = [row for row in rows if row["state"] == "PENDING"]
    out += [(PREFIX + "jobs_pending", item["labels"], item["value"])
            for item in count_by(pending, ("partition", "reason"))]
    return out


def share_samples(sshare_text):
    """fairshare and the usage/shares figures per (account, user) from sshare -a -P -n."""
    out = []
    names = (("fairshare", "fairshare"), ("norm_usage", "share_usage_normalized"), ("raw_usage", "share_raw_usage"),
             ("norm_shares", "shares_normalized"))
    for row in parse_sshare(sshare_text):
        labels = {"account": row["account"], "user": row["user"]}
        for key, name in names:
            if row.get(key) is not None:
                out.append((PREFIX + name, labels, row[key]))
    return out


def sdiag_samples(sdiag_text):
    """scheduler_stat per (section, stat), and rpc_count / rpc_time_seconds_total per message type."""
    data = parse_sdiag(sdiag_text)
    out = []
    for section in sorted(data):
        if section in ("rpc_types", "rpc_users") or not isinstance(data[section], dict):
            continue
        for stat in sorted(data[section]):
            out.append((PREFIX + "scheduler_stat", {"section": section, "stat": stat}, data[section][stat]))
    for rpc in data["rpc_types"]:
        out.append((PREFIX + "rpc_count", {"type": rpc["name"]}, rpc["count"]))
        out.append((PREFIX + "rpc_time_seconds_total", {"type": rpc["name"]}, rpc["total_time"] / 1e6))
    return out


def slurm_samples(results, native=False):
    """Every sample of one scrape from the commands' results.

    native: slurmctld serves its native metrics; the families it exports too (NATIVE_FAMILIES) are left out, so
    that no series comes from both.

    results: {command name (COMMANDS): {"out": text, "error": why it failed
    or None}}. A command that failed, or whose output cannot be read, gives
    command_up 0 with the reason and no samples of its own; the others are
    still exported. Commands left out of results (sacctmgr where accounting
    is off) give nothing.
    """
    readers = {
        "sinfo": node_samples,
        "sinfo_gres": gres_samples,
        "squeue": job_samples,
        "sshare": share_samples,
        "sdiag": sdiag_samples,
        "scontrol_ping": ping_samples,
    }
    out = []
    for name in sorted(results):
        result = results[name] or {}
        error = result.get("error")
        samples = []
        if not error and name in readers:
            try:
                samples = readers[name](result.get("out") or "")
            except SlurmMetricsError as exc:
                error = str(exc)
        out.append((PREFIX + "command_up", {"command": name, "reason": str(error or "")[:200]}, 0 if error else 1))
        if name == "sacctmgr":
            out.append((PREFIX + "dbd_up", {}, 0 if error else 1))
        elif name == "scontrol_ping" and error:
            out.append((PREFIX + "controller_up", {"controller": "", "role": "primary"}, 0))
        out.extend(samples)
    if native:
        left = tuple(PREFIX + name for name in NATIVE_FAMILIES)
        out = [sample for sample in out if sample[0] not in left]
    return out


def family(name):
    """(type, help) of a sample name made here."""
    return FAMILIES.get(name[len(PREFIX):], ("gauge", name)) if name.startswith(PREFIX) else ("gauge", name)


node_state = guarded(SlurmMetricsError, 'node state')(node_state)
gres_gpus = guarded(SlurmMetricsError, 'Gres')(gres_gpus)
ping_samples = guarded(SlurmMetricsError, 'scontrol ping')(ping_samples)
node_samples = guarded(SlurmMetricsError, 'sinfo')(node_samples)
gres_samples = guarded(SlurmMetricsError, 'sinfo (Gres)')(gres_samples)
job_samples = guarded(SlurmMetricsError, 'squeue')(job_samples)
share_samples = guarded(SlurmMetricsError, 'sshare')(share_samples)
sdiag_samples = guarded(SlurmMetricsError, 'sdiag')(sdiag_samples)
parse_ping = guarded(SlurmMetricsError, 'scontrol ping')(parse_ping)
takeover_samples = guarded(SlurmMetricsError, 'the takeover note')(takeover_samples)
