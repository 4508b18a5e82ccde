# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""gpuops-gpu-exporter: Prometheus metrics of a node's GPUs, labelled with the Slurm job that holds each.

Installed by gpuops.cluster.gpu_exporter and run by systemd. A sampler thread
runs ``nvidia-smi -q -x`` every sample_interval_s (with a time limit), so a
scrape never waits for nvidia-smi (which takes hundreds of milliseconds on 8
GPUs) and a hung nvidia-smi never piles up. Each scrape reads the latest
sample, the GPU-to-job map the health check's prolog keeps
(/run/gpuops/gpu-jobs/<minor>.json), the health check's XID counts and the
RDMA ports in sysfs. All the logic is the collection's
module_utils (installed beside this file under lib/): this program only
gathers and serves. nvidia-smi missing, failing, hanging or printing garbage
gives gpuops_gpu_exporter_up 0 with the reason, never a crash.

  gpuops-gpu-exporter            serve (settings: $GPUOPS_GPU_EXPORTER_CONFIG)
  gpuops-gpu-exporter --once     print one scrape on stdout and exit
"""

from __future__ import absolute_import, division, print_function

import json
import os
import shutil
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "lib"))

from ansible_collections.gpuops.cluster.plugins.module_utils.common import _program_run as program_run  # noqa: E402
from ansible_collections.gpuops.cluster.plugins.module_utils.monitoring import _exporter as exporter  # noqa: E402
from ansible_collections.gpuops.cluster.plugins.module_utils.gpu._gpu_facts import (  # noqa: E402
    GpuFactsError,
    parse_smi_xml,
    smi_outcome,
)
from ansible_collections.gpuops.cluster.plugins.module_utils.monitoring._gpu_metrics import (  # noqa: E402
    PREFIX,
    GpuMetricsError,
    check_samples,
    exposition,
    gpu_samples,
    job_map as job_map_of,
    nvlink_samples,
    parse_nvlink_errors,
    rdma_samples,
    xid_samples,
)
from ansible_collections.gpuops.cluster.plugins.module_utils.fabric._ib_facts import (  # noqa: E402
    IbFactsError,
    hcas_from_sysfs,
    read_sysfs,
)
from ansible_collections.gpuops.cluster.plugins.module_utils.validate._validate_checks import expected_ports  # noqa: E402

PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
CONFIG = os.environ.get("GPUOPS_GPU_EXPORTER_CONFIG", "/etc/gpuops/gpu-exporter.json")


def read_json(path):
    try:
        with open(path) as handle:
            return json.load(handle)
    except (IOError, OSError, ValueError):
        return None


def run(argv, timeout):
    """(rc, stdout, stderr, timed_out) of argv under LC_ALL=C."""
    return program_run.run(argv, timeout, PATH)


class Gatherer(object):
    """What one scrape reads from the node; samples() turns it into metrics with the collection's code."""

    def __init__(self, cfg):
        self.cfg = cfg
        self.lock = threading.Lock()
        self.last = None  # (time, parsed, error) of the latest nvidia-smi run
        self.nvlink = None  # the latest NVLink error counters, or None where nvidia-smi gave none

    def interval(self):
        return max(float(self.cfg.get("sample_interval_s") or 10), 1.0)

    def sample(self):
        """Run nvidia-smi once (and nvidia-smi nvlink -e) and keep what it gave."""
        parsed, error = self.smi()
        nvlink = self.nvlink_errors() if parsed and self.cfg.get("nvlink_errors", True) else None
        with self.lock:
            self.last = (time.time(), parsed, error)
            self.nvlink = nvlink

    def nvlink_errors(self):
        """NVLink error counters per GPU and link, or None: a GPU without NVLink, a driver without the
        command, a failure or output that cannot be read leaves them out (zeros would hide a fault)."""
        path = self.cfg.get("nvidia_smi") or shutil.which("nvidia-smi", path=PATH)
        rc, out, dummy, timed_out = run([path, "nvlink", "-e"], float(self.cfg.get("nvidia_smi_timeout_s") or 5))
        if rc != 0 or timed_out:
            return None
        try:
            return parse_nvlink_errors(out)
        except GpuMetricsError:
            return None

    def sampler(self):
        while True:
            self.sample()
            time.sleep(self.interval())

    def latest(self):
        """(parsed, error) of the latest sample; an error when it is older than three intervals."""
        with self.lock:
            last = self.last
        if last is None:
            self.sample()
            with self.lock:
                last = self.last
        when, parsed, error = last
        age = time.time() - when
        limit = 3 * self.interval() + float(self.cfg.get("nvidia_smi_timeout_s") or 5)
        if age > limit:
            return None, "no nvidia-smi result for %ds (hung?)" % age
        return parsed, error

    def smi(self):
        """(parsed nvidia-smi -q -x with readings, None) or (None, why not)."""
        path = self.cfg.get("nvidia_smi") or shutil.which("nvidia-smi", path=PATH)
        if not path:
            return None, "nvidia-smi not found in %s" % PATH
        timeout = float(self.cfg.get("nvidia_smi_timeout_s") or 5)
        rc, out, err, timed_out = run([path, "-q", "-x"], timeout)
        if timed_out:
            return None, "nvidia-smi did not answer within %gs" % timeout
        outcome = smi_outcome(rc, out, err)
        if outcome != "xml":
            lines = [line for line in (err + "\n" + out).splitlines() if line.strip()]
            return None, "nvidia-smi %s (rc %s): %s" % (outcome.replace("_", " "), rc, lines[-1] if lines else "no output")
        try:
            return parse_smi_xml(out, readings=True), None
        except GpuFactsError as exc:
            return None, str(exc)

    def job_map(self):
        """{minor: entry} of the GPUs jobs hold (the prolog writes one file per GPU; the epilog removes it)."""
        directory = self.cfg.get("job_map_dir") or "/run/gpuops/gpu-jobs"
        try:
            names = os.listdir(directory)
        except (IOError, OSError):
            return {}
        files = [name for name in names if name.endswith(".json")]
        return job_map_of(dict((name, read_json(os.path.join(directory, name))) for name in files))

    def rdma(self):
        sysfs = self.cfg.get("sysfs") or "/sys"
        if not os.path.isdir(os.path.join(sysfs, "class", "infiniband")):
            return []
        try:
            hcas = hcas_from_sysfs(read_sysfs(sysfs))
        except IbFactsError:
            return []
        return expected_ports({"hcas": hcas}, self.cfg.get("rdma_ports") or [])

    def samples(self):
        start = time.time()
        smi, error = self.latest()
        job_map = self.job_map()
        out = gpu_samples(smi, job_map, error)
        with self.lock:
            nvlink = self.nvlink
        if smi and nvlink:
            out += nvlink_samples(nvlink, smi, job_map)
        out += xid_samples(read_json(self.cfg.get("xid_state") or "/var/lib/gpuops/health/xid.json"), smi)
        out += check_samples(read_json(self.cfg.get("active_state") or "/var/lib/gpuops/health/last-active.json"))
        out += check_samples(read_json(self.cfg.get("fabric_state") or "/var/lib/gpuops/health/last-fabric.json"),
                             "fabric")
        out += rdma_samples(self.rdma())
        out.append((PREFIX + "scrape_duration_seconds", {}, time.time() - start))
        return out


def serve(cfg, gatherer):
    thread = threading.Thread(target=gatherer.sampler, name="nvidia-smi sampler")
    thread.daemon = True
    thread.start()
    # A node image's settings name no address: the node's join gives its own at boot.
    address = cfg.get("address") or os.environ.get("GPUOPS_NODE_ADDRESS") or "127.0.0.1"
    exporter.serve(address, cfg.get("port") or 9445, gatherer.samples)


def main(argv):
    cfg = read_json(CONFIG)
    if not isinstance(cfg, dict):
        sys.stderr.write("gpuops-gpu-exporter: cannot read the settings in %s\n" % CONFIG)
        return 2
    gatherer = Gatherer(cfg)
    if argv[1:] == ["--once"]:
        sys.stdout.write(exposition(gatherer.samples()))
        return 0
    if argv[1:]:
        sys.stderr.write("usage: gpuops-gpu-exporter [--once]\n")
        return 2
    serve(cfg, gatherer)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
