# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the node health check's prolog costs a job: the program as slurmd starts it, timed end to end.

    python3 bench/health_prolog.py [--runs 50] [--capture tests/fixtures/nvidia-smi-xml/<8-GPU capture>]

Installs the program and the module_utils it imports into a temporary
directory the way the node_health role lays them out, with an nvidia-smi
that replays a real 8-GPU capture (Tesla V100S), and runs
``python3 -I gpuops_health.py prolog`` (what /etc/slurm/prolog.d runs) the
given number of times with a job's environment. Prints the median, the 95th
percentile and the slowest run, in seconds, and the part that is not
nvidia-smi's (a stand-in answers in a few milliseconds; a real nvidia-smi -q
-x on 8 GPUs with persistence mode on adds its own time). Exits 1 when the
median or the 95th percentile reaches 1 s.
"""

from __future__ import absolute_import, division, print_function

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from exporter_scrape import lib_files

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAM = os.path.join(ROOT, "roles", "node_health", "files", "gpuops_health.py")
LIB_FILES = lib_files(PROGRAM)
CAPTURE = os.path.join(ROOT, "tests", "fixtures", "nvidia-smi-xml", "datakit_8x-tesla-v100s-pcie-32gb.xml")


def install(base, capture):
    lib = os.path.join(base, "health", "lib", "ansible_collections", "gpuops", "cluster", "plugins", "module_utils")
    os.makedirs(lib)
    for name in LIB_FILES:
        os.makedirs(os.path.join(lib, os.path.dirname(name)), exist_ok=True)
        shutil.copy(os.path.join(ROOT, "plugins", "module_utils", name), os.path.join(lib, name))
    shutil.copy(PROGRAM, os.path.join(base, "health"))
    shutil.copy(os.path.join(os.path.dirname(PROGRAM), "gpuops_gpu_check.py"), os.path.join(base, "health"))
    smi = os.path.join(base, "nvidia-smi")
    with open(smi, "w") as handle:
        handle.write("#!/bin/sh\nexec cat %s\n" % capture)
    os.chmod(smi, 0o755)
    log = os.path.join(base, "kern.log")
    open(log, "w").close()
    sys.path.insert(0, os.path.join(base, "health", "lib"))
    from ansible_collections.gpuops.cluster.plugins.module_utils.health import _health as health  # pylint: disable=import-outside-toplevel
    from ansible_collections.gpuops.cluster.plugins.module_utils.gpu._gpu_facts import parse_smi_xml  # pylint: disable=import-outside-toplevel
    with open(capture) as handle:
        gpus = parse_smi_xml(handle.read())["gpus"]
    gres = "gpu:%s:%d" % (gpus[0]["slurm_type"], len(gpus))
    config = {
        "node": "bench01", "checks": {"persistence_mode": False}, "xid_drain": list(health.DEFAULT_DRAIN_XIDS),
        "memory_drain": list(health.DEFAULT_MEMORY_DRAIN), "temp_slowdown_margin_c": 0,
        "nvidia_smi_timeout_s": 10, "kill_grace_s": 5,
        "kill_wait_s": 5, "kernel_log": log, "rdma_expected": "auto", "expect": health.expectation(gres, gpus),
        "paths": {"state_dir": os.path.join(base, "state"), "job_map_dir": os.path.join(base, "gpu-jobs"),
                  "nvidia_smi": smi},
    }
    path = os.path.join(base, "health.json")
    with open(path, "w") as handle:
        json.dump(config, handle)
    return path, len(gpus)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", maxsplit=1)[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--capture", default=CAPTURE)
    args = parser.parse_args()
    base = tempfile.mkdtemp(prefix="gpuops-health-bench-")
    try:
        config, count = install(base, args.capture)
        program = os.path.join(base, "health", "gpuops_health.py")
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "GPUOPS_HEALTH_CONFIG": config,
               "SLURM_JOB_ID": "4242", "SLURM_JOB_USER": "bench", "SLURM_JOB_UID": str(os.getuid()),
               "SLURM_JOB_ACCOUNT": "bench", "SLURM_JOB_GPUS": ",".join(str(i) for i in range(count))}
        times, inner = [], []
        for dummy in range(args.runs):  # pylint: disable=unused-variable
            start = time.perf_counter()
            proc = subprocess.run([sys.executable, "-I", program, "prolog"], env=env, check=False)
            times.append(time.perf_counter() - start)
            if proc.returncode != 0:
                print("the prolog failed (rc %d): see %s/state/last.json" % (proc.returncode, base))
                return 1
            with open(os.path.join(base, "state", "last-prolog.json")) as handle:
                record = json.load(handle)
            inner.append(record["duration_s"])
        times.sort()
        p95 = times[min(len(times) - 1, int(round(0.95 * len(times))) - 1)]
        median = statistics.median(times)
        print("prolog, %d GPUs (%s), %d runs: median %.3f s, p95 %.3f s, slowest %.3f s; "
              "checks alone (after start-up, nvidia-smi included) median %.3f s"
              % (count, os.path.basename(args.capture), len(times), median, p95, times[-1], statistics.median(inner)))
        print("status of the last run: %s; GPU-to-job map entries: %d"
              % (record["status"], len(os.listdir(os.path.join(base, "gpu-jobs")))))
        return 0 if median < 1 and p95 < 1 else 1
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
