# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What one Prometheus scrape of the collection's exporters costs, end to end over HTTP.

    python3 bench/exporter_scrape.py [--scrapes 100] [--recorded tests/fixtures/slurm_exporter/recorded/<dir>]

GPU exporter: the program as the gpu_exporter role installs it (with its
copy of the collection's parsers), serving a node of 8 GPUs replayed from a
real capture (Tesla V100S) with every GPU held by a job in the GPU-to-job
map. Slurm exporter: the program as the slurm_exporter role installs it,
with stand-in sinfo/squeue/sshare/sdiag/scontrol/sacctmgr that print output
recorded on a real Slurm cluster (by default 1,000 jobs: the Molecule
monitoring cluster, bench/record_slurm_output.sh). Each is started as a
server on 127.0.0.1 and scraped over HTTP the given number of times.

Prints the median, 95th percentile and slowest scrape of each, and what the
GPU exporter's background nvidia-smi sample costs to parse. Needs
prometheus_client (the venv has it). Exits 1 when a GPU scrape's median
reaches 100 ms or a Slurm scrape's reaches 1 s (the targets of issue 16).
"""

from __future__ import absolute_import, division, print_function

import argparse
import importlib.util
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from urllib.request import urlopen


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CAPTURE = os.path.join(ROOT, "tests", "fixtures", "nvidia-smi-xml", "datakit_8x-tesla-v100s-pcie-32gb.xml")
RECORDED = os.path.join(ROOT, "tests", "fixtures", "slurm_exporter", "recorded", "slurm-22.05-1000-jobs")


def _program_files():
    """The collection's rule for a program's module_utils (loaded by path: it needs no Ansible)."""
    path = os.path.join(ROOT, "plugins", "module_utils", "common", "_program_files.py")
    spec = importlib.util.spec_from_file_location("gpuops_program_files", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def lib_files(program):
    """The module_utils a role installs beside its program (the file's path): what it imports, in turn."""
    source = os.path.join(ROOT, "plugins", "module_utils")

    def read(name):
        with open(os.path.join(source, name)) as handle:
            return handle.read()

    with open(program) as handle:
        return _program_files().program_files(os.path.basename(program), handle.read(), read)[0]


def install(base, role, program):
    """The program and its lib/ as the role lays them out."""
    lib = os.path.join(base, "lib", "ansible_collections", "gpuops", "cluster", "plugins", "module_utils")
    os.makedirs(lib)
    for name in lib_files(os.path.join(ROOT, "roles", role, "files", program)):
        os.makedirs(os.path.join(lib, os.path.dirname(name)), exist_ok=True)
        shutil.copy(os.path.join(ROOT, "plugins", "module_utils", name), os.path.join(lib, name))
    shutil.copy(os.path.join(ROOT, "roles", role, "files", program), base)
    return os.path.join(base, program)


def script(path, body):
    with open(path, "w") as handle:
        handle.write("#!/bin/sh\n" + body)
    os.chmod(path, 0o755)
    return path


def free_port():
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return port


def scrape_times(program, config, env_name, scrapes):
    env = dict(os.environ, **{env_name: config})
    port = json.load(open(config))["port"]
    proc = subprocess.Popen([sys.executable, "-I", program], env=env)
    url = "http://127.0.0.1:%d/metrics" % port
    try:
        body = None
        for dummy in range(100):
            try:
                body = urlopen(url, timeout=10).read()
                break
            except OSError:
                time.sleep(0.1)
        if body is None:
            raise SystemExit("%s did not answer on %s" % (program, url))
        times = []
        for dummy in range(scrapes):
            start = time.perf_counter()
            body = urlopen(url, timeout=10).read()
            times.append(time.perf_counter() - start)
        return times, body.decode()
    finally:
        proc.terminate()
        proc.wait()


def report(name, times):
    ordered = sorted(times)
    p95 = ordered[max(int(round(0.95 * len(ordered))) - 1, 0)]
    median = statistics.median(ordered)
    print("%-40s median %.4f s  p95 %.4f s  slowest %.4f s  (%d scrapes)" % (name, median, p95, ordered[-1], len(times)))
    return median


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", maxsplit=1)[0])
    parser.add_argument("--scrapes", type=int, default=100)
    parser.add_argument("--recorded", default=RECORDED)
    args = parser.parse_args()
    failed = []
    base = tempfile.mkdtemp(prefix="gpuops-exporter-bench-")
    try:
        # ---- GPU exporter: 8 GPUs, each held by a job
        gpu = os.path.join(base, "gpu")
        program = install(gpu, "gpu_exporter", "gpuops_gpu_exporter.py")
        smi = script(os.path.join(gpu, "nvidia-smi"), "exec cat %s\n" % CAPTURE)
        jobs = os.path.join(gpu, "jobs")
        os.makedirs(jobs)
        for minor in range(8):
            with open(os.path.join(jobs, "%d.json" % minor), "w") as handle:
                json.dump({"minor": minor, "job_id": str(1000 + minor), "user": "alice", "account": "chem",
                           "partition": "gpu"}, handle)
        config = os.path.join(gpu, "config.json")
        with open(config, "w") as handle:
            json.dump({"address": "127.0.0.1", "port": free_port(), "nvidia_smi": smi, "sample_interval_s": 2,
                       "job_map_dir": jobs, "xid_state": os.path.join(gpu, "xid.json")}, handle)
        times, body = scrape_times(program, config, "GPUOPS_GPU_EXPORTER_CONFIG", args.scrapes)
        series = len([line for line in body.splitlines() if line.startswith("gpuops_gpu_")])
        if report("GPU exporter, 8 GPUs (%d series)" % series, times) >= 0.1:
            failed.append("GPU scrape median >= 100 ms")
        sys.path.insert(0, os.path.join(gpu, "lib"))
        from ansible_collections.gpuops.cluster.plugins.module_utils.gpu._gpu_facts import parse_smi_xml  # noqa: E402 pylint: disable=import-outside-toplevel
        with open(CAPTURE, "rb") as handle:
            xml = handle.read()
        parse = []
        for dummy in range(20):
            start = time.perf_counter()
            parse_smi_xml(xml, readings=True)
            parse.append(time.perf_counter() - start)
        report("  (background sample: parse of nvidia-smi -q -x)", parse)

        # ---- Slurm exporter: recorded output of a real cluster
        slurm = os.path.join(base, "slurm")
        program = install(slurm, "slurm_exporter", "gpuops_slurm_exporter.py")
        rec = os.path.abspath(args.recorded)
        paths = {
            "sinfo": script(os.path.join(slurm, "sinfo"),
                            'case "$*" in *-O*) exec cat %s/sinfo_gres.txt;; *) exec cat %s/sinfo.txt;; esac\n'
                            % (rec, rec)),
            "scontrol": script(os.path.join(slurm, "scontrol"), "exec cat %s/scontrol_ping.txt\n" % rec),
        }
        for name in ("squeue", "sshare", "sdiag", "sacctmgr"):
            paths[name] = script(os.path.join(slurm, name), "exec cat %s/%s.txt\n" % (rec, name))
        with open(os.path.join(rec, "squeue.txt")) as handle:
            job_count = len([line for line in handle if line.strip()])
        config = os.path.join(slurm, "config.json")
        with open(config, "w") as handle:
            json.dump({"address": "127.0.0.1", "port": free_port(), "paths": paths, "accounting": True}, handle)
        times, body = scrape_times(program, config, "GPUOPS_SLURM_EXPORTER_CONFIG", args.scrapes)
        down = [line for line in body.splitlines() if line.startswith("gpuops_slurm_command_up") and line.endswith(" 0.0")]
        if down:
            failed.append("commands not read: %s" % down)
        series = len([line for line in body.splitlines() if line.startswith("gpuops_slurm_")])
        if report("Slurm exporter, %d jobs (%d series)" % (job_count, series), times) >= 1.0:
            failed.append("Slurm scrape median >= 1 s")
    finally:
        shutil.rmtree(base, ignore_errors=True)
    if failed:
        print("FAILED: " + "; ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
