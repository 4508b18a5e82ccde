# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parsers and expected-bandwidth figures for the cluster validation playbook.

Pure functions over command output (``scontrol show node --oneliner``,
nccl-tests, perftest ``ib_write_bw``, ``timedatectl show``, ``chronyc
tracking``) and over the GPU/RDMA facts of the other modules. Every parser
raises ValidateError, with a one-line reason naming the command, what was
wrong and a short quote of the input, on input it cannot read (including
input that is not text); never another exception type.

Units: GB/s is 1e9 bytes per second in one direction, as nccl-tests prints
its algbw/busbw; Gb/s is 1e9 bits per second.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import math
import re

from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._hostlist import HostlistError, expand
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import (
    MAX_DIGITS, TEXT_TYPES, as_text, clip, guarded, small_float, small_int)

# Text, and the str of Python 2 (bytes, decoded by _as_text before any use).
_TEXT_TYPES = TEXT_TYPES


class ValidateError(Exception):
    """Command output or an argument that cannot be read."""


_clip = clip


def _as_text(data, what):
    """data as text (bytes that are not UTF-8 read as U+FFFD); ValidateError for None, numbers and the like."""
    return as_text(data, what, ValidateError)


def _first_line(text):
    for line in text.splitlines():
        if line.strip():
            return _clip(line)
    return ""


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _fmt(value):
    """400 -> '400', 12.5 -> '12.5' (for rates as the user wrote them)."""
    return "%g" % value


# --- scontrol show node --------------------------------------------------------

# A field starts at whitespace followed by ``Key=``. Values of the free-text
# fields below may themselves contain spaces and ``word=word`` pairs (a drain
# reason such as ``nccl busbw=12.3``): inside those, only a key Slurm really
# prints for a node (NODE_KEYS) starts a new field, so an unknown key printed
# right after OS=, Reason=, Comment= or Extra= stays part of their value.
_KEY_RE = re.compile(r"(?:^|(?<=\s))([A-Za-z][A-Za-z0-9_:/.]*)=")
_FREE_TEXT_KEYS = frozenset(("OS", "Reason", "Comment", "Extra"))
# Field names of src/api/node_info.c (Slurm 20.11 to 24.11).
NODE_KEYS = frozenset((
    "NodeName", "Arch", "CoresPerSocket", "CPUAlloc", "CPUEfctv", "CPUErr", "CPUTot",
    "CPULoad", "AvailableFeatures", "ActiveFeatures", "Features", "Gres", "GresDrain",
    "GresUsed", "NodeAddr", "NodeHostName", "Port", "Version", "OS", "RealMemory",
    "AllocMem", "FreeMem", "Sockets", "Boards", "CoreSpecCount", "CPUSpecList",
    "MemSpecLimit", "State", "ThreadsPerCore", "TmpDisk", "Weight", "Owner", "MCS_label",
    "NextState", "Partitions", "BootTime", "SlurmdStartTime", "LastBusyTime",
    "ResumeAfterTime", "CfgTRES", "AllocTRES", "CapWatts", "CurrentWatts", "AveWatts",
    "LowestJoules", "ConsumedJoules", "ExtSensorsJoules", "ExtSensorsWatts",
    "ExtSensorsTemp", "Reason", "Comment", "Extra", "InstanceId", "InstanceType",
    "CpuBind", "Topology", "TRES", "ReservationName",
))
_NO_NODES = "No nodes in the system"
_STATE_WORD_RE = re.compile(r"^[A-Za-z][A-Za-z_]*$")


def _split_fields(record):
    """{key: value} of one node record (its lines joined by spaces)."""
    matches = list(_KEY_RE.finditer(record))
    if not matches or matches[0].start() != 0:
        raise ValidateError("scontrol show node: expected Key=Value fields: '%s'" % _clip(record))
    starts = [matches[0]]
    for match in matches[1:]:
        if starts[-1].group(1) in _FREE_TEXT_KEYS and match.group(1) not in NODE_KEYS:
            continue
        starts.append(match)
    fields = {}
    for index, match in enumerate(starts):
        end = starts[index + 1].start() if index + 1 < len(starts) else len(record)
        fields[match.group(1)] = record[match.end():end].strip()
    return fields


def _node_state(raw, node):
    """('idle', ['drain', 'not_responding']) from 'IDLE*+DRAIN'."""
    parts = raw.split("+")
    not_responding = False
    words = []
    for part in parts:
        word = part.rstrip("*")
        if word != part:
            not_responding = True
        if not _STATE_WORD_RE.match(word):
            raise ValidateError("scontrol show node: node %s has an unreadable State=%s" % (node, _clip(raw, 40)))
        words.append(word.lower())
    flags = words[1:]
    if not_responding and "not_responding" not in flags:
        flags.append("not_responding")
    return words[0], flags


def _null(value):
    return "" if value in (None, "(null)") else value


def parse_scontrol_nodes(text):
    """Nodes of ``scontrol show node --oneliner`` (also ``scontrol -o show node``).

    Returns {node name: {state, base_state, flags, reason, gres, gres_used,
    cfg_tres, alloc_tres, fields}}: ``state`` is the raw State (``IDLE+DRAIN``),
    ``base_state`` its first word in lower case (``idle``), ``flags`` the words
    after ``+`` in lower case (``['drain']``); a ``*`` (not responding, as in
    ``DOWN*``) is stripped and adds ``not_responding``. ``reason`` is the raw
    Reason (with its ``[user@time]``) or None, ``gres``/``gres_used`` the
    Gres=/GresUsed= values ("" for absent or ``(null)``), ``fields`` every
    Key=Value as strings.

    Fields are split at whitespace followed by ``Key=`` (Key:
    ``[A-Za-z][A-Za-z0-9_:/.]*``), except inside OS=, Reason=, Comment= and
    Extra=, which end only at a key in NODE_KEYS; a reason such as ``low
    busbw=12`` thus stays whole. The multi-line form (no --oneliner, each node
    on indented lines) is read too. Empty output and ``No nodes in the
    system`` give {}.
    """
    text = _as_text(text, "scontrol show node")
    records = []
    current = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line == _NO_NODES:
            continue
        if line.startswith("NodeName="):
            current = [line]
            records.append(current)
        elif current is not None and raw[:1] in (" ", "\t"):
            current.append(line)
        else:
            raise ValidateError("scontrol show node: line without NodeName=: '%s'" % _clip(line))
    nodes = {}
    for lines in records:
        fields = _split_fields(" ".join(lines))
        name = fields.get("NodeName", "")
        if not name or len(name.split()) != 1:
            raise ValidateError("scontrol show node: unreadable NodeName: '%s'" % _clip(lines[0]))
        if name in nodes:
            raise ValidateError("scontrol show node: node %s is listed twice" % name)
        if not fields.get("State"):
            raise ValidateError("scontrol show node: node %s has no State=" % name)
        base_state, flags = _node_state(fields["State"], name)
        nodes[name] = {
            "state": fields["State"],
            "base_state": base_state,
            "flags": flags,
            "reason": fields.get("Reason") or None,
            "gres": _null(fields.get("Gres")),
            "gres_used": _null(fields.get("GresUsed")),
            "cfg_tres": fields.get("CfgTRES", ""),
            "alloc_tres": fields.get("AllocTRES", ""),
            "fields": fields,
        }
    return nodes


_GRES_ENTRY_RE = re.compile(r"^([A-Za-z][A-Za-z0-9_.-]*)((?::[^:()\s,]+)*)(?:\(([^()]*)\))?$")
_DIGITS_RE = re.compile(r"^[0-9]+$")


_TOPOLOGY_LINE_RE = re.compile(r"(SwitchName|BlockName)=(\S{1,200})((?:\s+[A-Za-z]{1,40}=\S{0,100000})*)\s*\Z")
_TOPOLOGY_FIELD_RE = re.compile(r"([A-Za-z]{1,40})=(\S*)")


def parse_scontrol_topology(text):
    """``scontrol show topology``: {kind: tree, block or None (no topology), groups: [{name, level, nodes,
    switches}]}, nodes and switches expanded from their hostlists.

    Tree (every release): ``SwitchName=leaf1 Level=0 LinkSpeed=1 Nodes=gpu[01-02]``, upper switches with
    ``Switches=``. Block (23.11 and later): ``BlockName=b1 BlockIndex=0 Nodes=gpu[01-02] BlockSize=2``. Any
    other line (a release's message that there is no topology) gives kind None.
    """
    text = _as_text(text, "scontrol show topology")
    kind, groups = None, []
    for raw in text.splitlines():
        line = raw.strip()
        match = _TOPOLOGY_LINE_RE.match(line)
        if not match:
            continue
        this = "tree" if match.group(1) == "SwitchName" else "block"
        if kind not in (None, this):
            raise ValidateError("scontrol show topology: both switches and blocks listed: '%s'" % _clip(line))
        kind = this
        fields = dict(_TOPOLOGY_FIELD_RE.findall(match.group(3)))
        try:
            nodes = expand(fields["Nodes"]) if fields.get("Nodes") not in (None, "", "(null)") else []
            switches = expand(fields["Switches"]) if fields.get("Switches") not in (None, "", "(null)") else []
        except HostlistError as exc:
            raise ValidateError("scontrol show topology: unreadable hostlist in '%s': %s" % (_clip(line), exc))
        level = fields.get("Level") or ("0" if this == "block" else None)
        groups.append({"name": match.group(2), "level": int(level) if level and level.isdigit() else None,
                       "nodes": nodes, "switches": switches})
    return {"kind": kind, "groups": groups}


def _gres_entries(gres):
    """[(name, type or None, count)] of a Gres string such as 'gpu:a100:4(S:0),gpu:h100:2(S:1)'."""
    gres = _as_text(gres, "Gres")
    gres = gres.strip()
    if gres in ("", "(null)"):
        return []
    entries = []
    depth = 0
    start = 0
    for index, char in enumerate(gres + ","):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                break
        elif char == "," and depth == 0:
            entries.append(gres[start:index])
            start = index + 1
    if depth != 0:
        raise ValidateError("Gres: unbalanced parentheses: '%s'" % _clip(gres))
    result = []
    for entry in entries:
        match = _GRES_ENTRY_RE.match(entry.strip())
        if not match:
            raise ValidateError("Gres: unreadable entry '%s' in '%s'" % (_clip(entry, 40), _clip(gres)))
        parts = [part for part in match.group(2).split(":") if part]
        count = 1
        if parts and _DIGITS_RE.match(parts[-1]):
            count = small_int(parts.pop(), "Gres: count of '%s'" % _clip(entry, 40), ValidateError)
        if any(_DIGITS_RE.match(part) for part in parts):
            raise ValidateError("Gres: unreadable entry '%s' in '%s'" % (_clip(entry, 40), _clip(gres)))
        result.append((match.group(1), ":".join(parts) or None, count))
    return result


def gres_gpu_count(gres):
    """Total GPUs in a Gres string: 'gpu:a100:4(S:0),gpu:h100:2(S:1)' -> 6, 'gpu:8' -> 8, '' -> 0.

    Entries other than ``gpu`` (``mps``, ``nic``...) are not counted; a gpu
    entry without a count (``gpu:tesla``) counts 1, as in slurm.conf.
    """
    return sum(count for name, _gtype, count in _gres_entries(gres) if name == "gpu")


def gres_gpu_types(gres):
    """Sorted GPU types of a Gres string: 'gpu:a100:4,gpu:h100:2' -> ['a100', 'h100']; [] when untyped."""
    return sorted(set(gtype for name, gtype, _count in _gres_entries(gres) if name == "gpu" and gtype))


def gres_gpu_type_counts(gres):
    """GPUs per type of a Gres string: 'gpu:a100:4,gpu:h100:2' -> {'a100': 4, 'h100': 2}; untyped ones under ''."""
    counts = {}
    for name, gtype, count in _gres_entries(gres):
        if name == "gpu":
            counts[gtype or ""] = counts.get(gtype or "", 0) + count
    return counts


# --- nccl-tests ----------------------------------------------------------------

# ``mpirun --tag-output`` prefixes every line with [job,rank]<stdout>:,
# ``srun --label`` with the task number and a colon.
_MPI_TAG_RE = re.compile(r"^(?:\[[0-9]+,[0-9]+\]<(?:stdout|stderr)>:|\s*[0-9]+: )")
_INT_RE = re.compile(r"^-?[0-9]+$")
_FLOAT_RE = re.compile(r"^(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?$")
_WORD_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_AVG_RE = re.compile(r"^#\s*Avg bus bandwidth\s*:\s*(\S+)")
_NCCL_ERROR_RE = re.compile(r"Test (?:NCCL |CUDA )?failure|NCCL WARN|NCCL ERROR|^#\s*Out of bounds values\s*:\s*[0-9]+\s+FAILED")


def _nccl_wrong(token, where):
    """#wrong column: an int; N/A (no check, -c 0) and the max-error float of old versions give None."""
    if _INT_RE.match(token) and not token.startswith("-"):
        return small_int(token, where + ": #wrong", ValidateError)
    if token == "N/A" or _FLOAT_RE.match(token):
        return None
    raise ValueError(token)


def _nccl_half(tokens, where):
    """time, algbw, busbw and #wrong of one half of a row; ValueError when it is not one, ValidateError when a
    number cannot be read (too long, or not finite)."""
    for token in tokens[:3]:
        if not _FLOAT_RE.match(token):
            raise ValueError(token)
    return {"time_us": small_float(tokens[0], where + ": time", ValidateError),
            "algbw": small_float(tokens[1], where + ": algbw", ValidateError),
            "busbw": small_float(tokens[2], where + ": busbw", ValidateError),
            "wrong": _nccl_wrong(tokens[3], where)}


def _nccl_row(line, where):
    """One result row as a dict, or None when line is not one; ValidateError for a number it cannot read.

    Columns: size count type [redop] [root], then time algbw busbw #wrong for
    out-of-place and in-place. Versions differ in the middle: all_reduce has
    redop and root (``sum -1``), old versions print no root, old broadcast
    a root but no redop, old alltoall neither.
    """
    tokens = line.split()
    if len(tokens) < 11 or len(tokens) > 13:
        return None
    head, tail = tokens[:-8], tokens[-8:]
    if not (_INT_RE.match(head[0]) and _INT_RE.match(head[1])) or head[0].startswith("-") \
            or head[1].startswith("-") or not _WORD_RE.match(head[2]):
        return None
    redop, root = "", None
    for token in head[3:]:
        if _INT_RE.match(token) and root is None:
            root = small_int(token, where + ": root", ValidateError)
        elif _WORD_RE.match(token) and not redop and root is None:
            redop = token
        else:
            return None
    try:
        out_of_place, in_place = _nccl_half(tail[:4], where), _nccl_half(tail[4:], where)
    except ValueError:
        return None
    return {"size": small_int(head[0], where + ": size", ValidateError),
            "count": small_int(head[1], where + ": count", ValidateError),
            "type": head[2], "redop": redop, "root": root, "out_of_place": out_of_place, "in_place": in_place}


def parse_nccl_tests(text):
    """Result of an nccl-tests run (``all_reduce_perf -b 8 -e 8G -f 2 -g 8`` etc.).

    Returns {rows, avg_busbw, max_busbw, largest, wrong, errors}. rows: one
    {size (bytes), count, type, redop ("" when not printed), root (int or
    None), out_of_place, in_place} per data row, each half being {time_us,
    algbw, busbw (GB/s, 1e9 bytes/s, as printed), wrong (int, or None for N/A
    or the max-error float of old versions)}. avg_busbw: the ``# Avg bus
    bandwidth`` footer (None when absent or not finite); max_busbw: the
    highest busbw of any row, either half; largest: the row of the largest
    size (the first one); wrong: total #wrong, None counted as 0; errors:
    the lines that report a failure (``Test NCCL failure``, ``Test CUDA
    failure``, ``.. Test failure`` traces, ``NCCL WARN``, ``NCCL ERROR``, an
    ``Out of bounds values : N FAILED`` footer). ``mpirun --tag-output``
    and ``srun --label`` prefixes are removed. No data row: ValidateError quoting the first
    failure line, if any.
    """
    text = _as_text(text, "nccl-tests")
    rows = []
    errors = []
    avg_busbw = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = _MPI_TAG_RE.sub("", raw).strip()
        if not line:
            continue
        if _NCCL_ERROR_RE.search(line):
            errors.append(line)
            continue
        if line.startswith("#"):
            match = _AVG_RE.match(line)
            if match:
                try:
                    value = float(match.group(1))
                except ValueError:
                    raise ValidateError("nccl-tests: unreadable average bus bandwidth: '%s'" % _clip(line))
                avg_busbw = value if not (math.isnan(value) or math.isinf(value)) else None
            continue
        row = _nccl_row(line, "nccl-tests line %d" % number)
        if row is not None:
            rows.append(row)
    if not rows:
        if errors:
            raise ValidateError("nccl-tests: no result rows; first failure: '%s'" % _clip(errors[0]))
        if not text.strip():
            raise ValidateError("nccl-tests: empty output")
        raise ValidateError("nccl-tests: no result rows in the output: '%s'" % _first_line(text))
    largest = rows[0]
    for row in rows:
        if row["size"] > largest["size"]:
            largest = row
    return {
        "rows": rows,
        "avg_busbw": avg_busbw,
        "max_busbw": max(max(row["out_of_place"]["busbw"], row["in_place"]["busbw"]) for row in rows),
        "largest": largest,
        "wrong": sum((row["out_of_place"]["wrong"] or 0) + (row["in_place"]["wrong"] or 0) for row in rows),
        "errors": errors,
    }


# --- perftest ib_write_bw ------------------------------------------------------

_IB_HEADER_RE = re.compile(
    r"#bytes\s+(#sl\s+)?#iterations\s+BW peak\[([^\]]+)\]\s+BW average\[([^\]]+)\]\s+MsgRate\[Mpps\]")
# perftest computes "MB/sec" with 0x100000 bytes (perftest_resources.c,
# format_factor), so MB/sec and MiB/sec are both 2^20 bytes/s; --report_gbits
# divides by 125000000: 1e9 bits/s.
_MIB_TO_GBPS = 8 * 1.048576 / 1000
_IB_UNITS = {"Gb/sec": 1.0, "MB/sec": _MIB_TO_GBPS, "MiB/sec": _MIB_TO_GBPS}
_IB_ERROR_RE = re.compile(
    r"Couldn't|Couldnt|Could not|Unable to|Failed|failed|Completion with error|Problems with warm up"
    r"|No IB devices found|IB device \S+ not found|Segmentation fault|\bERROR\b|\bError\b")
_IB_BENIGN_RE = re.compile(r"^libibverbs: Warning")


def parse_ib_write_bw(text):
    """Result table of perftest ``ib_write_bw`` (client side, ``--report_gbits`` or not, ``-a`` or not).

    Returns {rows: [{bytes, iterations, bw_peak_gbps, bw_average_gbps,
    msg_rate_mpps}], largest (the row of the largest message size, the first
    one), bw_average_gbps (of that row), unit (as printed in its table header:
    Gb/sec, MB/sec or MiB/sec)}. Bandwidths are converted to Gb/s (1e9
    bits/s): Gb/sec as is, MB/sec and MiB/sec x 8 x 1.048576 / 1000 (perftest's
    MB is 2^20 bytes). Extra columns (per-port reports) are ignored. A line
    reporting a failure (Couldn't connect to..., Unable to open file
    descriptor..., Failed to modify QP..., Completion with error...) raises
    ValidateError quoting it, even when rows were printed.
    """
    text = _as_text(text, "ib_write_bw")
    rows = []
    unit = None
    table_unit = None
    largest = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or _IB_BENIGN_RE.match(line):
            continue
        if _IB_ERROR_RE.search(line):
            raise ValidateError("ib_write_bw failed: '%s'" % _clip(line))
        match = _IB_HEADER_RE.search(line)
        if match:
            if match.group(2) != match.group(3) or match.group(3) not in _IB_UNITS:
                raise ValidateError("ib_write_bw: unknown bandwidth unit: '%s'" % _clip(line))
            unit = (match.group(3), bool(match.group(1)))
            continue
        if unit is None:
            continue
        tokens = line.split()
        width = 6 if unit[1] else 5
        if len(tokens) < width or not all(_DIGITS_RE.match(token) for token in tokens[:width - 3]) \
                or not all(_FLOAT_RE.match(token) for token in tokens[width - 3:width]):
            continue
        factor = _IB_UNITS[unit[0]]
        where = "ib_write_bw line %d" % number
        row = {
            "bytes": small_int(tokens[0], where + ": #bytes", ValidateError),
            "iterations": small_int(tokens[width - 4], where + ": #iterations", ValidateError),
            "bw_peak_gbps": small_float(tokens[width - 3], where + ": BW peak", ValidateError) * factor,
            "bw_average_gbps": small_float(tokens[width - 2], where + ": BW average", ValidateError) * factor,
            "msg_rate_mpps": small_float(tokens[width - 1], where + ": MsgRate", ValidateError),
        }
        rows.append(row)
        if largest is None or row["bytes"] > largest["bytes"]:
            largest, table_unit = row, unit[0]
    if not rows:
        if unit is not None:
            raise ValidateError("ib_write_bw: the result table has no rows")
        if not text.strip():
            raise ValidateError("ib_write_bw: empty output")
        raise ValidateError("ib_write_bw: no result table (#bytes ... BW average) in the output: '%s'"
                            % _first_line(text))
    return {"rows": rows, "largest": largest, "bw_average_gbps": largest["bw_average_gbps"], "unit": table_unit}


# --- time synchronisation ------------------------------------------------------

_PROPERTY_RE = re.compile(r"^([A-Za-z][A-Za-z0-9]*)=(.*)$")
_BOOLEANS = {"yes": True, "no": False, "true": True, "false": False, "1": True, "0": False,
             "on": True, "off": False}


def parse_timedatectl_show(text):
    """``timedatectl show`` (Key=Value lines) as {ntp, ntp_synchronized, fields}.

    ntp is NTP= (a time-sync service is enabled), ntp_synchronized is
    NTPSynchronized= (the kernel clock is synchronised); each is a bool, or
    None when the key is absent.
    """
    text = _as_text(text, "timedatectl show")
    fields = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        match = _PROPERTY_RE.match(line)
        if not match:
            raise ValidateError("timedatectl show: expected Key=Value: '%s'" % _clip(line))
        fields[match.group(1)] = match.group(2)
    if not fields:
        raise ValidateError("timedatectl show: empty output")
    result = {"fields": fields}
    for key, name in (("NTP", "ntp"), ("NTPSynchronized", "ntp_synchronized")):
        value = fields.get(key)
        if value is not None and value.lower() not in _BOOLEANS:
            raise ValidateError("timedatectl show: %s is not yes or no: '%s'" % (key, _clip(value, 40)))
        result[name] = None if value is None else _BOOLEANS[value.lower()]
    return result


# The key of a "Key : value" line (split at its first ':', so the time is linear in the line).
_TRACKING_KEY_RE = re.compile(r"^[A-Za-z][A-Za-z ()]*$")
_SYSTEM_TIME_RE = re.compile(r"^([0-9]+(?:\.[0-9]+)?) seconds (fast|slow) of NTP time$")
# Reference IDs of an unsynchronised chronyd (0) and of its local reference
# clock (127.127.1.1); chrony 1.x printed them as dotted quads.
_UNSYNCED_REFS = frozenset(("00000000", "7F7F0101", "0.0.0.0", "127.127.1.1"))
_UNSYNCED_LEAP = frozenset(("not synchronised", "not synchronized"))


def parse_chronyc_tracking(text):
    """``chronyc tracking`` as {reference, offset_s, leap_status, synchronized}.

    reference is the Reference ID value (``A9FEA97B (169.254.169.123)``);
    offset_s the System time offset in seconds, positive when the clock is
    fast of NTP time, negative when slow; synchronized is False when the leap
    status is ``Not synchronised`` or the reference ID is 00000000 (none) or
    7F7F0101 (the local clock).
    """
    text = _as_text(text, "chronyc tracking")
    fields = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        key, sep, value = line.partition(":")
        key = key.rstrip()
        if not sep or not _TRACKING_KEY_RE.match(key):
            raise ValidateError("chronyc tracking: unexpected line: '%s'" % _clip(line))
        fields[key] = value.strip()
    for key in ("Reference ID", "System time", "Leap status"):
        if key not in fields:
            raise ValidateError("chronyc tracking: no '%s' line in the output: '%s'" % (key, _first_line(text)))
    match = _SYSTEM_TIME_RE.match(fields["System time"])
    if not match:
        raise ValidateError("chronyc tracking: unreadable System time: '%s'" % _clip(fields["System time"]))
    offset = small_float(match.group(1), "chronyc tracking: System time", ValidateError)
    if match.group(2) == "slow":
        offset = -offset
    reference = fields["Reference ID"]
    ref_id = reference.split()[0].upper() if reference else ""
    leap = fields["Leap status"]
    return {
        "reference": reference,
        "offset_s": offset,
        "leap_status": leap,
        "synchronized": leap.lower() not in _UNSYNCED_LEAP and bool(ref_id) and ref_id not in _UNSYNCED_REFS,
    }


# --- expected figures ----------------------------------------------------------

# Per-direction GB/s of one NVLink, from NVIDIA's published per-GPU totals,
# which count both directions:
#   P100 (NVLink 1): 160 GB/s over 4 links  -> 20 per link per direction
#   V100 (NVLink 2): 300 GB/s over 6 links  -> 25
#   A100 (NVLink 3): 600 GB/s over 12 links -> 25
#   H100 (NVLink 4): 900 GB/s over 18 links -> 25
#   B200 (NVLink 5): 1800 GB/s over 18 links -> 50
# The number of links a GPU really has comes from its facts (nvidia-smi), so
# cut-down parts (A800/H800/H20: fewer links, same generation) fit the same rate.
_NVLINK_GENERATIONS = (
    (re.compile(r"(?<![A-Z0-9])(?:GB200|GB300|B100|B200|B300)(?![0-9])"), 50.0),
    (re.compile(r"(?<![A-Z0-9])(?:GH200|H100|H800|H200|H20)(?![0-9])"), 25.0),
    (re.compile(r"(?<![A-Z0-9])(?:A100|A800)(?![0-9])"), 25.0),
    (re.compile(r"(?<![A-Z0-9])V100(?![0-9])"), 25.0),
    (re.compile(r"(?<![A-Z0-9])P100(?![0-9])"), 20.0),
)


def nvlink_gbs_per_link(product_name):
    """GB/s per direction of one NVLink of a GPU, by generation from its product name; None when unknown.

    'NVIDIA H100 80GB HBM3' -> 25.0, 'Tesla V100-SXM2-32GB' -> 25.0,
    'NVIDIA B200' -> 50.0, 'Tesla P100-SXM2-16GB' -> 20.0, 'NVIDIA L40S' -> None.
    """
    if product_name is None:
        return None
    name = _as_text(product_name, "GPU product name").upper()
    for pattern, rate in _NVLINK_GENERATIONS:
        if pattern.search(name):
            return rate
    return None


# Per-lane payload GB/s per direction after line encoding (8b/10b for gen1-2,
# 128b/130b for gen3-5, PAM4/FLIT for gen6).
_PCIE_LANE_GBS = {1: 0.25, 2: 0.5, 3: 0.985, 4: 1.969, 5: 3.938, 6: 7.563}


def _small_int(value):
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, _TEXT_TYPES) and _DIGITS_RE.match(value.strip()) and len(value.strip()) <= MAX_DIGITS:
        return int(value.strip())
    return None


def pcie_gbs(gen, width):
    """GB/s per direction of a PCIe link: lane rate of gen x width; None for an unknown gen or width.

    pcie_gbs(4, 16) -> 31.504; pcie_gbs(3, 8) -> 7.88.
    """
    gen, width = _small_int(gen), _small_int(width)
    if gen not in _PCIE_LANE_GBS or width is None or width <= 0:
        return None
    return round(_PCIE_LANE_GBS[gen] * width, 3)


def _link_count(value, where):
    count = _small_int(value)
    if count is None or count < 0:
        raise ValidateError("%s: NVLink count must be a non-negative integer, got %r" % (where, value))
    return count


def expected_intranode_busbw(gpus, nvlink_all_to_all):
    """Expected all-reduce busbw (GB/s) inside one node, and how it was found.

    gpus: [{name, nvlinks: {peer index: NVLink count}, pcie_link: {max_gen,
    max_width, ...} or None}]. Returns {value: GB/s or None, basis: text}.
    Fewer than 2 GPUs: None. Every GPU has NVLinks: the lowest, over the
    GPUs, of (its NVLink count x the per-link rate of its generation),
    described as all-to-all or partial mesh after nvlink_all_to_all.
    Otherwise the slowest GPU's maximum PCIe link. None, with the reason in
    basis, when a rate cannot be known. These are link rates: a healthy
    NVLink node reaches about 85 to 105% of them (NVLS can exceed them), a
    PCIe-only node often much less.
    """
    if not isinstance(gpus, (list, tuple)):
        raise ValidateError("expected_intranode_busbw: gpus must be a list, got %s" % type(gpus).__name__)
    count = len(gpus)
    if count < 2:
        return {"value": None, "basis": "%d GPU: all-reduce needs 2 or more" % count}
    links = []
    for index, gpu in enumerate(gpus):
        if not isinstance(gpu, dict):
            raise ValidateError("expected_intranode_busbw: GPU %d must be a dict, got %s" % (index, type(gpu).__name__))
        nvlinks = gpu.get("nvlinks") or {}
        if not isinstance(nvlinks, dict):
            raise ValidateError("expected_intranode_busbw: GPU %d nvlinks must be a dict" % index)
        links.append(sum(_link_count(value, "GPU %d" % index) for value in nvlinks.values()))
    with_nvlink = sum(1 for total in links if total > 0)
    if with_nvlink == count:
        layout = "NVLink all-to-all" if nvlink_all_to_all else "NVLink partial mesh"
        figures = []
        for index, gpu in enumerate(gpus):
            rate = nvlink_gbs_per_link(gpu.get("name"))
            if rate is None:
                return {"value": None,
                        "basis": "%d GPUs, %s: NVLink generation of GPU %d (%s) unknown"
                                 % (count, layout, index, gpu.get("name"))}
            figures.append((links[index] * rate, links[index], rate, index))
        slowest = min(figures)
        basis = "%d GPUs, %s: %d links x %.1f GB/s per GPU = %.1f GB/s" % (
            count, layout, slowest[1], slowest[2], slowest[0])
        if len(set(figure[0] for figure in figures)) > 1:
            basis += " (slowest GPU: %d)" % slowest[3]
        return {"value": slowest[0], "basis": basis}
    why = "no NVLink" if with_nvlink == 0 else "NVLink on only %d of %d GPUs" % (with_nvlink, count)
    figures = []
    for index, gpu in enumerate(gpus):
        link = gpu.get("pcie_link")
        if link is not None and not isinstance(link, dict):
            raise ValidateError("expected_intranode_busbw: GPU %d pcie_link must be a dict or None" % index)
        rate = pcie_gbs(link.get("max_gen"), link.get("max_width")) if link else None
        if rate is None:
            return {"value": None,
                    "basis": "%d GPUs over PCIe (%s): PCIe link of GPU %d unknown" % (count, why, index)}
        figures.append((rate, index, _small_int(link.get("max_gen")), _small_int(link.get("max_width"))))
    slowest = min(figures)
    return {"value": slowest[0],
            "basis": "%d GPUs over PCIe (%s): gen%d x%d = %.1f GB/s (slowest GPU)"
                     % (count, why, slowest[2], slowest[3], slowest[0])}


def expected_internode_busbw(nodes):
    """Expected all-reduce busbw (GB/s) between nodes: the slowest node's RDMA ports, in all.

    nodes: {node name: [{name, rate_gbps, link_layer}]} (the ports NCCL
    uses). Returns {value: GB/s or None, basis}; value is the lowest, over
    the nodes, of the sum of their port rates (Gb/s) / 8; None when a node
    has no port or a port without a rate (rate_gbps None or 0, as for a
    port that is down), in node name order.
    """
    if not isinstance(nodes, dict):
        raise ValidateError("expected_internode_busbw: nodes must be a dict, got %s" % type(nodes).__name__)
    if not nodes:
        return {"value": None, "basis": "no nodes"}
    figures = []
    for node in sorted(nodes):
        ports = nodes[node]
        if not isinstance(ports, (list, tuple)):
            raise ValidateError("expected_internode_busbw: ports of %s must be a list" % node)
        if not ports:
            return {"value": None, "basis": "%s has no RDMA port for NCCL" % node}
        rates = []
        for port in ports:
            if not isinstance(port, dict):
                raise ValidateError("expected_internode_busbw: port %r of %s must be a dict" % (port, node))
            rate = port.get("rate_gbps")
            if rate is None or (_is_number(rate) and rate == 0):
                return {"value": None, "basis": "%s: port %s has no link rate" % (node, port.get("name"))}
            if not _is_number(rate) or not rate > 0 or math.isinf(rate):
                raise ValidateError("expected_internode_busbw: port %s of %s has an unusable rate_gbps: %r"
                                    % (port.get("name"), node, rate))
            rates.append(rate)
        figures.append((sum(rates) / 8.0, node, rates))
    value, node, rates = min(figures, key=lambda figure: figure[0])
    plural = "port" if len(rates) == 1 else "ports"
    if len(set(rates)) == 1:
        what = "%d %s x %s Gb/s" % (len(rates), plural, _fmt(rates[0]))
    else:
        what = "%d %s, %s Gb/s in all" % (len(rates), plural, _fmt(sum(rates)))
    return {"value": value, "basis": "slowest node %s: %s = %.1f GB/s" % (node, what, value)}


def judge(measured, expected, fraction):
    """('pass' or 'fail', message): fail when measured < expected x fraction.

    judge(412.24, 450.0, 0.8) -> ('pass', '412.2 GB/s is 91.6% of the
    expected 450.0 GB/s (threshold 80%)').
    """
    if not _is_number(fraction) or not 0 < fraction <= 1:
        raise ValidateError("judge: fraction must be in (0, 1], got %r" % (fraction,))
    if not _is_number(expected) or not expected > 0 or math.isinf(expected):
        raise ValidateError("judge: expected must be a positive number of GB/s, got %r" % (expected,))
    if not _is_number(measured) or not measured >= 0 or math.isinf(measured):
        raise ValidateError("judge: measured must be a non-negative number of GB/s, got %r" % (measured,))
    verdict = "fail" if measured < expected * fraction else "pass"
    message = "%.1f GB/s is %.1f%% of the expected %.1f GB/s (threshold %s%%)" % (
        measured, 100.0 * measured / expected, expected, _fmt(round(fraction * 100, 6)))
    return verdict, message


# No error of Python's own leaves a parser: anything no rule foresaw becomes ValidateError.
parse_scontrol_nodes = guarded(ValidateError, 'scontrol show node')(parse_scontrol_nodes)
parse_nccl_tests = guarded(ValidateError, 'nccl-tests output')(parse_nccl_tests)
parse_ib_write_bw = guarded(ValidateError, 'ib_write_bw output')(parse_ib_write_bw)
parse_timedatectl_show = guarded(ValidateError, 'timedatectl show')(parse_timedatectl_show)
parse_chronyc_tracking = guarded(ValidateError, 'chronyc tracking')(parse_chronyc_tracking)
gres_gpu_count = guarded(ValidateError, 'Gres')(gres_gpu_count)
gres_gpu_types = guarded(ValidateError, 'Gres')(gres_gpu_types)
nvlink_gbs_per_link = guarded(ValidateError, 'GPU product name')(nvlink_gbs_per_link)
expected_intranode_busbw = guarded(ValidateError, 'expected_intranode_busbw')(expected_intranode_busbw)
expected_internode_busbw = guarded(ValidateError, 'expected_internode_busbw')(expected_internode_busbw)
judge = guarded(ValidateError, 'judge')(judge)
parse_scontrol_topology = guarded(ValidateError, 'scontrol show topology')(parse_scontrol_topology)
