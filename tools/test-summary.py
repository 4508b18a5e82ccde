# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The table `make test` ends with: each part's time, then each Molecule suite's checks and time.

    python3 tools/test-summary.py .build/test-report
    python3 tools/test-summary.py --caches .build/test-report   # the run's kind only

Reads, in that folder:
  machine.tsv      cores, CPU model and tools/machine-speed.py's seconds,
                   taken before the run loaded the machine
  caches.tsv       which caches were cold when the run started: scope
                   (machine or checkout), cache, warm|cold, what was found
                   (tools/test-caches.sh)
  parts.tsv        one line per part of make test: name, seconds, exit code
                   (tools/test.sh writes it)
  wall             the whole run's seconds
  checks/*.jsonl   one JSON line per task result of a Molecule run (the
                   gpuops_checks callback; one file per scenario)

A suite is a verify file (molecule/<scenario>/<file>.yml) in the scenario
that ran it; its checks are the assert and fail results it produced, per
host, and its time runs from its first task's start to its last task's end.
Molecule's own phases (check, converge, idempotence) are listed per scenario
as steps, with their time.
"""
import collections
import json
import pathlib
import sys


def _fmt(seconds):
    seconds = int(round(seconds))
    return f"{seconds // 60}:{seconds % 60:02d}"


def parts_table(path):
    rows = []
    if path.is_file():
        for line in path.read_text().splitlines():
            name, secs, rc = line.split("\t")
            rows.append((name, float(secs), int(rc)))
    return rows


def _runs(path):
    runs = collections.OrderedDict()
    for line in path.read_text().splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        run = runs.setdefault(rec["run"], {"playbook": rec["playbook"], "check_mode": rec["check_mode"],
                                           "start": rec["start"], "end": rec["end"], "records": []})
        run["start"] = min(run["start"], rec["start"])
        run["end"] = max(run["end"], rec["end"])
        run["records"].append(rec)
    return sorted(runs.values(), key=lambda r: r["start"])


def _phase(run, seen):
    name = pathlib.Path(run["playbook"]).name
    if name.startswith("verify"):
        return "verify"
    if name == "converge.yml":
        if run["check_mode"]:
            return "check"
        seen["converge"] += 1
        return "converge" if seen["converge"] == 1 else "idempotence"
    return name.rsplit(".", 1)[0]


def suites_table(folder):
    """(scenario, step or suite) -> checks, failed, seconds."""
    table = collections.OrderedDict()
    for path in sorted(folder.glob("*.jsonl")):
        scenario = path.stem
        seen = collections.Counter()
        top = []
        for run in _runs(path):
            # A playbook a verify task ran (a nested converge) is part of that suite.
            if any(t["start"] <= run["start"] and run["end"] <= t["end"] for t in top):
                continue
            top.append(run)
            phase = _phase(run, seen)
            if phase != "verify":
                row = table.setdefault((scenario, "(" + phase + ")"), {"checks": 0, "failed": 0, "seconds": 0.0})
                row["seconds"] += run["end"] - run["start"]
                continue
            spans = collections.OrderedDict()
            for rec in run["records"]:
                span = spans.setdefault(rec["suite"], {"checks": 0, "failed": 0, "start": rec["start"], "end": rec["end"]})
                span["start"] = min(span["start"], rec["start"])
                span["end"] = max(span["end"], rec["end"])
                if rec.get("check") and rec["status"] in ("ok", "failed"):
                    span["checks"] += 1
                    span["failed"] += rec["status"] == "failed"
            for suite, span in spans.items():
                row = table.setdefault((scenario, suite), {"checks": 0, "failed": 0, "seconds": 0.0})
                row["checks"] += span["checks"]
                row["failed"] += span["failed"]
                row["seconds"] += span["end"] - span["start"]
    return table


def caches_lines(path):
    """The run's kind from the machine's caches found at its start: a fresh machine (every one cold),
    a warm one (none cold) or partly warm; then every cache, the checkout's (.venv, .build) too."""
    if not path.is_file():
        return []
    rows = [line.split("\t") for line in path.read_text().splitlines() if line.count("\t") == 3]
    machine = [row for row in rows if row[0] == "machine"]
    if not machine:
        return []
    cold = [row[1] for row in machine if row[2] == "cold"]
    if len(cold) == len(machine):
        kind = "a fresh machine: every cache of the machine cold"
    elif not cold:
        kind = "a warm machine: no cache of the machine cold"
    else:
        kind = "a partly warm machine: cold " + ", ".join(cold)
    out = [f"Caches at the start: {kind}"]
    for scope, name, state, detail in rows:
        out.append(f"  {scope:<9} {name:<16} {state:<5} {detail}")
    return out


# tools/machine-speed.py's seconds on the machine the bars of issue 42 were
# measured on (2 cores, idle, 2026-11-29); a larger figure is a slower machine.
SPEED_REFERENCE_S = 0.87


def machine_lines(path):
    """The machine's cores, CPU and speed probe, against the reference."""
    if not path.is_file():
        return []
    fields = path.read_text().strip().split("\t")
    if len(fields) != 3:
        return []
    cores, cpu, secs = fields
    try:
        ratio = float(secs) / SPEED_REFERENCE_S
    except ValueError:
        return []
    return [f"Machine at the start: {cores} cores, {cpu}; speed probe {float(secs):.2f} s "
            f"({ratio:.2f} x the reference {SPEED_REFERENCE_S:.2f} s: above 1 is slower, and every part with it)"]


def cpu_lines(path, low=75.0):
    """How busy the cores were over the run (tools/cpu-sampler.py's samples),
    and the stretches of minutes they were less busy than `low` percent."""
    if not path.is_file():
        return []
    samples = []
    for line in path.read_text().splitlines():
        fields = line.split("\t")
        try:
            samples.append((int(fields[0]), float(fields[1])))
        except (IndexError, ValueError):
            continue
    if not samples:
        return []
    mean = sum(sample[1] for sample in samples) / len(samples)
    stretches = []
    previous = 0
    for end, busy in samples:
        if busy < low:
            if stretches and stretches[-1][1] == previous:
                stretches[-1][1] = end
            else:
                stretches.append([previous, end])
        previous = end
    quiet = ", ".join(f"{_fmt(a)}-{_fmt(b)}" for a, b in stretches) or "none"
    return [f"CPU: the cores were busy {mean:.0f} % of the run (sampled every "
            f"{samples[0][0]} s); stretches below {low:.0f} %: {quiet}"]


def main(argv):
    if len(argv) > 1 and argv[1] == "--caches":
        folder = pathlib.Path(argv[2] if len(argv) > 2 else ".build/test-report")
        print("\n".join(machine_lines(folder / "machine.tsv") + caches_lines(folder / "caches.tsv")))
        return 0
    folder = pathlib.Path(argv[1] if len(argv) > 1 else ".build/test-report")
    out = (machine_lines(folder / "machine.tsv") + caches_lines(folder / "caches.tsv")
           + cpu_lines(folder / "cpu.tsv"))
    if out:
        out.append("")
    parts = parts_table(folder / "parts.tsv")
    if parts:
        out.append("make test, per part")
        out.append(f"  {'part':<28} {'time':>8}  result")
        for name, secs, rc in parts:
            out.append(f"  {name:<28} {_fmt(secs):>8}  {'passed' if rc == 0 else 'FAILED (rc %d)' % rc}")
            # The Molecule scenarios ran in lanes side by side: their times overlap.
        wall = folder / "wall"
        if wall.is_file():
            out.append(f"  {'whole run (wall)':<28} {_fmt(float(wall.read_text().strip())):>8}"
                       "  (Molecule ran beside the other parts; its scenarios in two lanes)")
    suites = suites_table(folder / "checks")
    if suites:
        out.append("")
        out.append("Molecule, per scenario and suite (checks: assert, fail and failed_when results, per host)")
        out.append(f"  {'scenario':<14} {'suite':<44} {'checks':>6} {'failed':>6} {'time':>7}")
        totals = collections.Counter()
        for (scenario, suite), s in suites.items():
            out.append(f"  {scenario:<14} {suite:<44} {s['checks']:>6} {s['failed']:>6} {_fmt(s['seconds']):>7}")
            totals["checks"] += s["checks"]
            totals["failed"] += s["failed"]
        out.append(f"  {'all':<14} {'':<44} {totals['checks']:>6} {totals['failed']:>6}")
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
