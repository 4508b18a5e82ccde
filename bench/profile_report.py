# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where a converge spent its time, from a timeline that
bench/callback_plugins/gpuops_timing.py wrote (bench/converge.py keeps one per
run as bench/results/last-<part>-<N>-<variant>-<phase>.timing.json).

  python3 bench/profile_report.py bench/results/last-slurm-2-docker-first.timing.json [--top 15]

Prints:
  - wall time, and the controller's CPU time (ansible-playbook and its workers);
  - per role: the wall time its tasks took (task start to the next task's
    start), how many tasks and how many module runs on hosts;
  - per host: module runs on the host, the time those runs took (start to
    result, as the worker saw it) and their share of the wall time;
  - the slowest tasks, with how many hosts each ran on;
  - the package transactions (apt/dnf/package tasks that ran on a host).
"""
from __future__ import annotations

import argparse
import collections
import json
import sys

PACKAGE_ACTIONS = {"ansible.builtin.apt", "ansible.builtin.dnf", "ansible.builtin.package", "ansible.builtin.yum"}


def task_spans(doc):
    """(task record, wall seconds until the next task started), in order."""
    starts = doc["tasks"]
    for i, t in enumerate(starts):
        end = starts[i + 1]["start"] if i + 1 < len(starts) else doc["wall_s"]
        yield t, max(0.0, end - t["start"])


def report(doc, top):
    lines = [f"wall {doc['wall_s']:.1f} s; controller CPU {doc['controller_cpu_s']:.1f} s "
             f"({100 * doc['controller_cpu_s'] / max(doc['wall_s'], 1e-9):.0f} % of one core over the run)"]
    results = doc["results"]
    # Results belong to the task span they ended in (linear strategy).
    spans = list(task_spans(doc))
    role_wall = collections.Counter()
    role_tasks = collections.Counter()
    role_runs = collections.Counter()
    slow = []
    for t, secs in spans:
        role = t["task"].split(" : ", 1)[0] if " : " in t["task"] else "(play)"
        role_wall[role] += secs
        role_tasks[role] += 1
        hosts = [r for r in results if r["task"] == t["task"] and t["start"] <= r["end"] <= t["start"] + secs + 0.01]
        runs = sum(1 for r in hosts if r["remote"])
        role_runs[role] += runs
        slow.append((secs, runs, t["task"]))
    lines.append("\nper role:            wall s   tasks   module runs on hosts")
    for role, secs in role_wall.most_common():
        lines.append(f"  {role[:40]:40} {secs:7.1f} {role_tasks[role]:7d} {role_runs[role]:8d}")
    per_host = collections.defaultdict(lambda: [0, 0.0])
    for r in results:
        if r["remote"]:
            per_host[r["host"]][0] += 1
            per_host[r["host"]][1] += r["end"] - r["start"]
    lines.append("\nper host:            module runs   seconds in them   share of wall")
    for host, (n, secs) in sorted(per_host.items()):
        lines.append(f"  {host:20} {n:10d} {secs:16.1f} {100 * secs / max(doc['wall_s'], 1e-9):14.0f} %")
    lines.append(f"\nslowest {top} tasks:     wall s   module runs")
    for secs, runs, name in sorted(slow, reverse=True)[:top]:
        lines.append(f"  {secs:6.2f} {runs:5d}  {name[:100]}")
    pk = [r for r in results if r["action"] in PACKAGE_ACTIONS and r["remote"]]
    if pk:
        by_host = collections.Counter(r["host"] for r in pk)
        lines.append(f"\npackage transactions: {len(pk)} ({', '.join(f'{h} {n}' for h, n in sorted(by_host.items()))}), "
                     f"{sum(r['end'] - r['start'] for r in pk):.1f} host-seconds")
        for r in sorted(pk, key=lambda r: r["start"]):
            lines.append(f"  {r['host']:12} {r['end'] - r['start']:6.1f} s {'changed' if r['changed'] else 'ok     '}  {r['task'][:80]}")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    ap.add_argument("timing", nargs="+")
    ap.add_argument("--top", type=int, default=15)
    args = ap.parse_args()
    for path in args.timing:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        print(f"== {path}\n{report(doc, args.top)}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
