# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fleet bench (`make fleet`): what a run of site.yml costs per node, and its projection to 1,000 nodes.

For each N (FLEET_NODES, default 4 8 16 32): a lab of one controller and N
compute nodes (tools/lab.sh: systemd containers with two simulated GPUs
each, from the image FLEET_IMAGE, by default the CUDA layer over the package
layer, so that no node unpacks the same 1.6 GB toolkit again), reached by
the connection a site uses (FLEET_VARIANTS: ssh, with pipelining and
ControlPersist; docker-api as the other), and four timed runs:

  first   site.yml on the fresh nodes (gpu_stack batches of 100 %, as make lab)
  rerun   site.yml again: must report changed=0
  check   site.yml --check: must report changed=0
  add     one more node started, then playbooks/add_node.yml --limit it and
          the controller (what operations.md says to run)

Each run gives its wall time, the Ansible controller's CPU (the
ansible-playbook process tree, from wait4; and the main process alone, the
part that cannot use more cores), the hosts' CPU (the containers' cgroup
counters), module runs on the hosts and task results (the timing callback
and the recap), per node, and the peak memory of ansible-playbook.

Then a least-squares line through the points of each figure (a + b * N)
and the projection to 1,000 nodes on an admin host of FLEET_CORES (16)
cores, with forks at least the batch size: the main process is one core,
the workers and the rest spread over the others, the hosts work in
parallel. Projected wall = max(main process CPU at 1,000,
controller CPU at 1,000 / cores) + the smallest N's wall less its own
controller-bound time (the critical path of host work, which does not grow
with N when every node works at once). The assumptions are printed with
the table. The bench exits 1 when a projection misses its target (issue 44):
a no-change site.yml at 1,000 nodes within 600 s, a first converge within
1,800 s plus the package downloads (the images hold the packages here),
adding one node within 120 s whatever the cluster's size.

JSON goes to bench/results/fleet-<UTC time>.json, and the table to stdout.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import converge as cv  # noqa: E402  pylint: disable=wrong-import-position

PHASES = ("first", "rerun", "check", "add")
TARGETS = {"rerun": 600.0, "first": 1800.0, "add": 120.0}
PROJECT_NODES = 1000


def _main_cpu(pid):
    """utime + stime of one process (seconds), from /proc; None once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed_play(n, variant, phase, inv, playbook, extra=()):
    """One ansible-playbook run with the bench's figures (cv.play's, plus the main process and peak memory)."""
    tag = f"fleet-{n}-{variant}-{phase}"
    logf = cv.RESULTS / f"last-{tag}.log"
    timing = cv.RESULTS / f"last-{tag}.timing.json"
    env = dict(os.environ, PATH=f"{cv.BIN}:{os.environ['PATH']}", ANSIBLE_CONFIG=str(cv.REPO / "ansible.cfg"),
               ANSIBLE_CALLBACK_PLUGINS=str(cv.REPO / "bench" / "callback_plugins"),
               ANSIBLE_CALLBACKS_ENABLED="ansible.posix.profile_tasks,gpuops_timing,gpuops.cluster.preload",
               GPUOPS_TIMING_OUT=str(timing))
    # Forks at least the number of hosts, as the projection assumes.
    env.setdefault("ANSIBLE_FORKS", str(max(20, n + 2)))
    cmd = [str(cv.BIN / "ansible-playbook"), playbook, "-i", str(inv), *extra]
    if phase == "check":
        cmd.append("--check")
    names = [name for name in cv.running() if name.startswith("lab-")]
    host0 = cv.cgroup_cpu(names)
    main = {"cpu": 0.0}
    t0 = time.monotonic()
    with open(logf, "w", encoding="utf-8") as f:
        proc = subprocess.Popen(cmd, cwd=cv.REPO, env=env, stdout=f, stderr=subprocess.STDOUT)

        def sample():
            while proc.poll() is None:
                cpu = _main_cpu(proc.pid)
                if cpu is not None:
                    main["cpu"] = cpu
                time.sleep(0.2)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        status, usage = os.wait4(proc.pid, 0)[1:]
        sampler.join(1)
    wall = time.monotonic() - t0
    host1 = cv.cgroup_cpu(names)
    text = logf.read_text(encoding="utf-8")
    tasks, changed, failed = cv.recap(text)
    if os.waitstatus_to_exitcode(status) != 0 or failed:
        print("\n".join(text.splitlines()[-30:]), file=sys.stderr)
        sys.exit(f"{tag} failed: see {logf}")
    result = {"s": round(wall, 1), "tasks": tasks, "changed": changed,
              "controller_cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
              "main_cpu_s": round(main["cpu"], 1),
              "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
              "hosts_cpu_s": None if host0 is None or host1 is None else round(host1 - host0, 1)}
    if timing.exists():
        doc = json.loads(timing.read_text())
        result["remote_module_runs"] = sum(1 for x in doc["results"] if x["remote"])
        # The callback's own figure at the end of the run (the sampler's last reading is up to 0.2 s older).
        result["main_cpu_s"] = round(doc.get("main_cpu_s", result["main_cpu_s"]), 1)
        # Where a compute node's task results come from, by role.
        node = "lab-gpu01"
        by_role = {}
        for record in doc["results"]:
            if record["host"] == node:
                key = record["role"] or "(play)"
                by_role[key] = by_role.get(key, 0) + 1
        result["node_results_by_role"] = dict(sorted(by_role.items(), key=lambda item: -item[1]))
    cv.log(f"N={n} {variant} {phase}: {result['s']} s, changed={changed}, controller CPU "
           f"{result['controller_cpu_s']} s (main {result['main_cpu_s']} s), hosts CPU {result['hosts_cpu_s']} s, "
           f"{result.get('remote_module_runs')} module runs, {tasks} task results, peak {result['peak_rss_mb']} MB")
    return result


def add_one(n, variant):
    """Start node n+1 beside the running lab; the inventory that holds it."""
    env = dict(os.environ, GPUOPS_LAB_NODES=str(n + 1), GPUOPS_LAB_INVENTORY=str(cv.inventory(n + 1, "docker")),
               GPUOPS_LAB_IMAGE=cv.SSH_IMAGE if variant.startswith("ssh") else cv.IMAGE)
    with open(cv.WORK / "lab-add.log", "w", encoding="utf-8") as f:
        cv.run(["tools/lab.sh", "up"], cwd=cv.REPO, env=env, stdout=f, stderr=f)
    return cv.inventory(n + 1, variant)


def one_size(n, variant):
    inv = cv.fresh_lab(n, variant)
    site = ["-e", "gpuops_gpu_stack_serial=100%"]
    runs = {phase: timed_play(n, variant, phase, inv, "site.yml", site) for phase in ("first", "rerun", "check")}
    new = f"lab-gpu{n + 1:02d}"
    inv = add_one(n, variant)
    runs["add"] = timed_play(n, variant, "add", inv, "playbooks/add_node.yml", ["--limit", f"{new},slurm_controller"])
    return runs


def fit(points):
    """(a, b) of the least-squares line y = a + b * x through [(x, y)]; b = 0 for one point."""
    if len(points) == 1:
        return points[0][1], 0.0
    count = len(points)
    mean_x = sum(point[0] for point in points) / count
    mean_y = sum(point[1] for point in points) / count
    var = sum((point[0] - mean_x) ** 2 for point in points)
    slope = sum((x - mean_x) * (y - mean_y) for x, y in points) / var if var else 0.0
    return mean_y - slope * mean_x, slope


def projection(runs_by_n, phase, cores, nodes=PROJECT_NODES):
    """The projected wall time of one phase at `nodes` nodes, with the lines it comes from."""
    sizes = sorted(runs_by_n)
    line = {key: fit([(n, runs_by_n[n][phase][key]) for n in sizes])
            for key in ("s", "controller_cpu_s", "main_cpu_s", "tasks")}
    smallest = runs_by_n[sizes[0]][phase]
    # The host-bound critical path: the smallest lab's wall less its controller-bound part.
    bound = max(smallest["main_cpu_s"], smallest["controller_cpu_s"] / min(cores, os.cpu_count() or 1))
    critical = max(0.0, smallest["s"] - bound)
    main_cpu = line["main_cpu_s"][0] + line["main_cpu_s"][1] * nodes
    controller_cpu = line["controller_cpu_s"][0] + line["controller_cpu_s"][1] * nodes
    wall = max(main_cpu, controller_cpu / cores) + critical
    return {"wall_s": round(wall, 1), "main_cpu_s": round(main_cpu, 1), "controller_cpu_s": round(controller_cpu, 1),
            "critical_path_s": round(critical, 1),
            "per_node": {key: round(b, 3) for key, (_a, b) in line.items()},
            "fixed": {key: round(a, 1) for key, (a, _b) in line.items()}}


def table(result):
    lines = []
    for variant, runs_by_n in result["runs"].items():
        runs_by_n = {int(n): r for n, r in runs_by_n.items()}
        lines.append(f"\nsite.yml over 1 controller + N compute nodes, {variant}")
        lines.append(f"{'N':>4} {'phase':>6} {'wall s':>8} {'ctl CPU':>8} {'main':>7} {'hosts':>7} "
                     f"{'mod/node':>9} {'tasks/node':>11} {'peak MB':>8} {'changed':>8}")
        for n in sorted(runs_by_n):
            for phase in PHASES:
                r = runs_by_n[n][phase]
                # add_node.yml runs on the new node and the controller only.
                nodes = 1 if phase == "add" else n
                mods = r.get("remote_module_runs")
                lines.append(f"{n:>4} {phase:>6} {r['s']:>8} {r['controller_cpu_s']:>8} {r['main_cpu_s']:>7} "
                             f"{str(r['hosts_cpu_s']):>7} {('-' if mods is None else round(mods / (nodes + 1), 1)):>9} "
                             f"{round(r['tasks'] / (nodes + 1), 1):>11} {r['peak_rss_mb']:>8} {r['changed']:>8}")
        largest = max(runs_by_n)
        roles = runs_by_n[largest]["rerun"].get("node_results_by_role") or {}
        if roles:
            lines.append(f"\nTask results of lab-gpu01 in the re-run at N={largest}, by role: "
                         + ", ".join(f"{role} {count}" for role, count in list(roles.items())[:12]))
        lines.append(f"\nProjected to {PROJECT_NODES} nodes on {result['cores']} cores (target):")
        for phase in ("first", "rerun", "add"):
            p = result["projection"][variant][phase]
            lines.append(f"  {phase:>6}: {p['wall_s']:>8} s ({TARGETS[phase]:.0f}); main process {p['main_cpu_s']} s, "
                         f"controller {p['controller_cpu_s']} s of CPU, per node {p['per_node']['controller_cpu_s']} s "
                         f"controller CPU and {p['per_node']['s']} s wall")
    lines.append("\nAssumptions: forks >= the batch, the hosts work in parallel (their own CPU and I/O are not the "
                 "admin host's), the main ansible-playbook process is one core, the rest of the controller's CPU "
                 "spreads over the others; the critical path of host work is the smallest lab's wall less its "
                 "controller-bound time. Packages come from the images (no downloads).")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    ap.add_argument("--nodes", nargs="+", type=int,
                    default=[int(x) for x in os.environ.get("FLEET_NODES", "4 8 16 32").split()])
    ap.add_argument("--variants", nargs="+", choices=("ssh", "docker-api"),
                    default=os.environ.get("FLEET_VARIANTS", "ssh").split())
    ap.add_argument("--cores", type=int, default=int(os.environ.get("FLEET_CORES", "16")))
    ap.add_argument("--image", default=os.environ.get("FLEET_IMAGE", "gpuops-cuda:bookworm"))
    ap.add_argument("--no-targets", action="store_true", help="report the projection, never fail on it (smoke runs)")
    args = ap.parse_args()
    # converge.py's lab, from this image (tools/lab.sh reads GPUOPS_LAB_IMAGE), and its SSH variant.
    cv.IMAGE = os.environ["GPUOPS_LAB_IMAGE"] = args.image
    cv.SSH_IMAGE = "gpuops-fleet-ssh:" + args.image.replace("gpuops-", "").replace(":", "-")
    cv.WORK.mkdir(parents=True, exist_ok=True)
    cv.RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    result = {"image": args.image, "cores": args.cores, "host_cpus": os.cpu_count(), "runs": {}, "projection": {}}
    bad = []
    path = cv.RESULTS / f"fleet-{stamp}.json"
    for variant in args.variants:
        runs = result["runs"].setdefault(variant, {})
        for n in args.nodes:
            runs[str(n)] = one_size(n, variant)
            # Saved after each size: a bench stopped part way keeps what it measured.
            path.write_text(json.dumps(result, indent=2) + "\n")
            bad += [f"N={n} {variant} {phase}: changed={runs[str(n)][phase]['changed']}"
                    for phase in ("rerun", "check") if runs[str(n)][phase]["changed"]]
        by_n = {int(n): r for n, r in runs.items()}
        result["projection"][variant] = {phase: projection(by_n, phase, args.cores) for phase in PHASES}
        for phase, target in TARGETS.items():
            got = result["projection"][variant][phase]["wall_s"]
            if got > target and not args.no_targets:
                bad.append(f"{variant} {phase} projected to {got} s at {PROJECT_NODES} nodes (target {target:.0f} s)")
    cv.run(["tools/lab.sh", "down"], cwd=cv.REPO, stdout=subprocess.DEVNULL)
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(table(result))
    cv.log(f"saved {path}")
    if bad:
        cv.log("missed: " + "; ".join(bad))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
