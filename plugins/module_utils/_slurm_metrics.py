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

from ansible_collections.gpuops.cluster.plugins.module_utils._text import as_text, guarded, small_int


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
