#!/usr/bin/env python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run and judge bench/scale.sh's ansible-playbook runs.

    scale_measure.py run DIR N ENTRY TIMEOUT -- COMMAND...
        Runs COMMAND (its output to DIR/run.log) in its own process group,
        killed with the group after TIMEOUT seconds, and prints one JSON row:
        wall seconds; the main process's peak resident memory (VmHWM of
        /proc/PID/status, read every 0.2 s) and the largest of the whole
        process tree (wait4's ru_maxrss); the load average before and after;
        the profile_tasks times (the model task, the whole entry point, the
        rendering, the slowest tasks); DIR/out/summary.json from the play;
        for a run that timed out or failed, the last task it started.

    scale_measure.py report RESULTS ROWS.jsonl MIXED [SPREAD]
        Prints the table and the growth exponents, writes RESULTS (JSON) and
        exits 1 when a target of issues 13 and 29 is missed, naming each
        (MIXED non-empty: the nodes differ, so slurm.conf's length is not
        judged; SPREAD: the percent by which the nodes' MemTotal differs,
        recorded).
"""

import json
import math
import os
import re
import signal
import subprocess
import sys
import time

# The task that computes the model, per entry point. The old entry point
# built it in three per-host tasks.
MODEL_TASKS = {
    "model": ["Compute the cluster model"],
    "config_facts": ["Describe each compute node as Slurm sees it", "Check that facts were gathered for every compute node",
                     "Merge the slurm.conf and cgroup.conf settings"],
}
ROLE_PREFIX = "gpuops.cluster._slurm_common : "
ENTRY_TASK = "Run the Slurm entry point"
RENDER_TASK = "Render this host's slurm.conf and gres.conf"
PROFILE_LINE = re.compile(r"^(.*?) -+ *([0-9.]+)s\s*$")
TASK_HEADER = re.compile(r"^TASK \[(.*)\] \*+", re.MULTILINE)
TARGET_MODEL_S, TARGET_EXPONENT, TARGET_RSS_MB, TARGET_LINES = 10.0, 1.1, 2048, 50


def loadavg():
    with open("/proc/loadavg") as handle:
        return " ".join(handle.read().split()[:3])


def vm_hwm_kb(pid):
    try:
        with open("/proc/%d/status" % pid) as handle:
            for line in handle:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return None


def profile_times(log):
    """{task name: seconds} from profile_tasks' recap (every task: task_output_limit = all)."""
    times = {}
    recap = log.split("TASKS RECAP", 1)
    if len(recap) == 2:
        for line in recap[1].splitlines():
            match = PROFILE_LINE.match(line)
            if match:
                times[match.group(1)] = times.get(match.group(1), 0.0) + float(match.group(2))
    return times


def task_times(log, entry):
    """The model task's, the whole entry point's and the rendering's seconds, and the slowest tasks."""
    times = profile_times(log)
    model = [times.get(ROLE_PREFIX + name) for name in MODEL_TASKS.get(entry, [])]
    entry_times = [t for name, t in times.items() if name.startswith(ROLE_PREFIX) or name == ENTRY_TASK]
    return {"model_s": round(sum(model), 2) if model and None not in model else None,
            "entry_s": round(sum(entry_times), 2) if entry_times else None,
            "render_s": times.get(RENDER_TASK),
            "slowest": sorted(times.items(), key=lambda item: -item[1])[:6]}


def run(directory, nodes, entry, timeout, command):
    row = {"nodes": nodes, "entry": entry, "load_before": loadavg()}
    log_path = os.path.join(directory, "run.log")
    start = time.monotonic()
    with open(log_path, "wb") as log:
        child = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    hwm, timed_out, kill_at = 0, False, None
    while True:
        pid, status_word, rusage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            status, usage = status_word, rusage
            break
        hwm = max(hwm, vm_hwm_kb(child.pid) or 0)
        now = time.monotonic()
        if not timed_out and now - start > timeout:
            timed_out, kill_at = True, now + 15
            os.killpg(child.pid, signal.SIGTERM)
        elif timed_out and now > kill_at:
            os.killpg(child.pid, signal.SIGKILL)
        time.sleep(0.2)
    child.returncode = os.waitstatus_to_exitcode(status)  # reaped by wait4: Popen must not wait again
    row["wall_s"] = round(time.monotonic() - start, 1)
    row["load_after"] = loadavg()
    row["timed_out"] = timed_out
    row["rc"] = 124 if timed_out else child.returncode
    row["main_hwm_mb"] = round(hwm / 1024) if hwm else None
    row["max_rss_mb"] = round(usage.ru_maxrss / 1024)
    with open(log_path, errors="replace") as handle:
        log = handle.read()
    row.update(task_times(log, entry))
    try:
        with open(os.path.join(directory, "out", "summary.json")) as handle:
            row.update(json.load(handle))
    except (OSError, ValueError):
        headers = TASK_HEADER.findall(log)
        row["last_task"] = headers[-1] if headers else None
        row["error"] = ("timed out after %d s" % timeout) if timed_out else "failed (rc %s): see %s" % (row["rc"], log_path)
        failure = re.search(r"^(fatal|ERROR!?).*$", log, re.MULTILINE)
        if failure:
            row["failure"] = log[failure.start():failure.start() + 2000]
    print(json.dumps(row))


def exponent(first, second):
    return math.log(second["wall_s"] / first["wall_s"]) / math.log(second["nodes"] / first["nodes"])


def cell(value, width):
    return ("%" + str(width) + "s") % ("-" if value is None else value)


def report(results, rows_path, mixed, spread="0"):
    with open(rows_path) as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    with open(results, "w") as handle:
        json.dump({"mixed": mixed, "mem_spread_pct": float(spread), "rows": rows}, handle, indent=2)
    columns = [("nodes", 6), ("wall s", 9), ("model s", 8), ("entry s", 8), ("render s", 9), ("RSS MB", 7),
               ("main MB", 8), ("lines", 6), ("NodeName", 8), ("load before", 15), ("load after", 15)]
    print("compute nodes: MemTotal up to %s %% below the server's%s" % (spread, "; mixed (several models)" if mixed else ""))
    print(" ".join(cell(name, width) for name, width in columns) + "  check")
    for r in rows:
        wall = ("> %d" % int(r["wall_s"])) if r.get("timed_out") else r["wall_s"]
        check = r.get("error") or ("all %s hosts rendered, %s slurm.conf variant(s)" % (r.get("rendered"), r.get("slurm_conf_variants")))
        values = [r["nodes"], wall, r.get("model_s"), r.get("entry_s"), r.get("render_s"), r.get("max_rss_mb"),
                  r.get("main_hwm_mb"), r.get("slurm_conf_lines"), r.get("node_lines"), r.get("load_before"), r.get("load_after")]
        print(" ".join(cell(v, w) for v, (_name, w) in zip(values, columns)) + "  " + check)
        if r.get("last_task"):
            print("       last task started: %s" % r["last_task"])
        if r.get("failure"):
            print("       " + r["failure"].replace("\n", "\n       "))
    for first, second in zip(rows, rows[1:]):
        if (first["nodes"], second["nodes"]) == (64, 1024):
            continue  # printed below, against its target
        if first["rc"] == 0 and second["rc"] == 0:
            print("exponent %d -> %d: %.2f" % (first["nodes"], second["nodes"], exponent(first, second)))
        elif first["rc"] == 0 and second.get("timed_out"):
            print("exponent %d -> %d: > %.2f (timed out)" % (first["nodes"], second["nodes"], exponent(first, second)))
    for r in rows:
        if r.get("slowest"):
            slowest = ["%s %.2fs" % (name.replace(ROLE_PREFIX, ""), t) for name, t in r["slowest"][:4]]
            print("N=%d slowest tasks: %s" % (r["nodes"], "; ".join(slowest)))
    misses = []
    by_n = {r["nodes"]: r for r in rows}
    for r in rows:
        if r["rc"] != 0:
            misses.append("N=%d did not finish (%s)" % (r["nodes"], r.get("error")))
        elif r.get("rendered") != r.get("hosts") or r.get("slurm_conf_variants") != 1:
            misses.append("N=%d: not every host rendered one identical slurm.conf" % r["nodes"])
        elif not mixed and (r.get("slurm_conf_lines") or TARGET_LINES + 1) > TARGET_LINES:
            misses.append("slurm.conf for %d nodes of one model (MemTotal spread up to %s %%) has %s lines, %s NodeName "
                          "(target <= %d lines)" % (r["nodes"], spread, r.get("slurm_conf_lines"), r.get("node_lines"),
                                                    TARGET_LINES))
    low, high = by_n.get(64), by_n.get(1024)
    if low and high and low["rc"] == 0 and (high["rc"] == 0 or high.get("timed_out")):
        value = exponent(low, high)
        bound = "> " if high.get("timed_out") else ""
        print("exponent 64 -> 1024: %s%.2f (target <= %s)" % (bound, value, TARGET_EXPONENT))
        if value > TARGET_EXPONENT:
            misses.append("growth exponent 64 -> 1024 is %s%.2f > %s" % (bound, value, TARGET_EXPONENT))
    else:
        print("exponent 64 -> 1024: not measured (SCALE_NODES lacks 64 or 1024, or 64 failed)")
    if high and high["rc"] == 0:
        if high.get("model_s") is None or high["model_s"] > TARGET_MODEL_S:
            misses.append("model at 1024 took %s s (target <= %s)" % (high.get("model_s"), TARGET_MODEL_S))
        memory = max(high.get("max_rss_mb") or 0, high.get("main_hwm_mb") or 0)
        if not memory or memory >= TARGET_RSS_MB:
            misses.append("memory at 1024 %s MB (target < %d)" % (memory or None, TARGET_RSS_MB))
    print("results: %s" % results)
    for miss in misses:
        print("MISSED: " + miss)
    return 1 if misses else 0


def main(argv):
    if len(argv) > 6 and argv[1] == "run" and argv[6] == "--":
        run(argv[2], int(argv[3]), argv[4], float(argv[5]), argv[7:])
        return 0
    if len(argv) in (5, 6) and argv[1] == "report":
        return report(argv[2], argv[3], argv[4] not in ("", "0"), *argv[5:])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
