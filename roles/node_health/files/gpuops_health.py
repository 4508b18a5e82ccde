# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""gpuops-health: the node health check Slurm runs (installed by gpuops.cluster.node_health).

  gpuops-health interval   HealthCheckProgram: check, drain or resume the node
  gpuops-health prolog     before a job: check; on a failure drain and fail the prolog
  gpuops-health epilog     after a job: kill what it left behind, check, drain on a failure
  gpuops-health active     the active checks: submitted as a Slurm job of their own on a node in service (run
                           when the node is free), run at once on a node gpuops-health holds
  gpuops-health join       a node that joins (a first install): drained until its active checks pass, then checked
  gpuops-health gate       the same at boot, before slurmd starts; the checks follow once slurmd runs
  gpuops-health active-job the check job itself (measure, judge, drain or resume); a node that passes asks for
                           its pair check with a partner under its leaf switch
  gpuops-health fabric-job the pair check job (on its first node): the all-reduce between the two nodes
  gpuops-health fabric-record  one node's part of the pair job: record the pair's result, drain or resume by the
                           rule of blame, ask for the next partner when one failure blames nobody yet
  gpuops-health show       print the last result
  gpuops-health clear-xid  forget the XIDs that keep the node drained (after a GPU reset)

This file only gathers and acts: what to conclude is decided by the
collection's module_utils (_health, with validate's checks and parsers),
installed beside it.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import fcntl
import json
import os
import shutil
import signal
import sys
import syslog
import time

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, os.path.join(HERE, "lib"))

# pylint: disable=wrong-import-position
from ansible_collections.gpuops.cluster.plugins.module_utils.common import _program_run as program_run  # noqa: E402
from ansible_collections.gpuops.cluster.plugins.module_utils.health import _active as active  # noqa: E402
from ansible_collections.gpuops.cluster.plugins.module_utils.health import _fabric_check as fabric  # noqa: E402
from ansible_collections.gpuops.cluster.plugins.module_utils.health import _health as health  # noqa: E402
from ansible_collections.gpuops.cluster.plugins.module_utils.gpu._gpu_facts import (  # noqa: E402
    GpuFactsError,
    parse_pci_devices,
    parse_smi_xml,
    read_pci_devices,
    smi_outcome,
)
from ansible_collections.gpuops.cluster.plugins.module_utils.fabric._ib_facts import (  # noqa: E402
    IbFactsError,
    expected_ibstat_devices,
    hcas_from_sysfs,
    merge_hcas,
    parse_ibstat,
    read_sysfs,
)
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._hostlist import HostlistError, expand  # noqa: E402
from ansible_collections.gpuops.cluster.plugins.module_utils.validate._validate import (  # noqa: E402
    ValidateError,
    parse_scontrol_nodes,
    parse_scontrol_topology,
)
from ansible_collections.gpuops.cluster.plugins.module_utils.validate._validate_checks import (  # noqa: E402
    selected_ports,
)

CONFIG = os.environ.get("GPUOPS_HEALTH_CONFIG", "/etc/gpuops/health.json")
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
COMMANDS = ("interval", "prolog", "epilog", "active", "active-job", "join", "gate", "fabric-job", "fabric-record",
            "show", "clear-xid")
USAGE = "usage: gpuops-health {%s}" % "|".join(COMMANDS)
# The run each command judges with (health.MODE_CHECKS).
MODE_OF = {"active-job": "active", "join": "active", "gate": "active", "fabric-record": "fabric"}


def log(priority, message):
    syslog.openlog("gpuops-health", syslog.LOG_PID, syslog.LOG_DAEMON)
    syslog.syslog(priority, message)


def run(argv, timeout, env=None):
    """(rc, stdout, stderr, timed_out) of argv under LC_ALL=C (and env's other variables). The Slurm commands read
    the configuration this program was given (SLURM_CONF: a node image's boot gate has the join's, before slurmd
    has fetched the cluster's)."""
    if os.environ.get("SLURM_CONF") and "SLURM_CONF" not in (env or {}):
        env = dict(env or {}, SLURM_CONF=os.environ["SLURM_CONF"])
    return program_run.run(argv, timeout, PATH, env)


def which(name, configured=None):
    if configured:
        return configured
    return shutil.which(name, path=PATH)


def read_text(path, limit=65536):
    try:
        with open(path, "rb") as handle:
            return handle.read(limit).decode("utf-8", "replace")
    except (IOError, OSError):
        return None


def write_json(path, data):
    directory = os.path.dirname(path)
    if not os.path.isdir(directory):
        os.makedirs(directory, 0o755)
    tmp = "%s.%d.tmp" % (path, os.getpid())
    with open(tmp, "w") as handle:
        json.dump(data, handle, indent=1, sort_keys=True)
        handle.write("\n")
    os.chmod(tmp, 0o644)
    os.rename(tmp, path)


def read_json(path):
    try:
        with open(path) as handle:
            return json.load(handle)
    except (IOError, OSError, ValueError):
        return None


class Node(object):
    """What one run sees of the node, and what it does to it."""

    def __init__(self, cfg, mode):
        self.cfg = cfg
        self.mode = mode
        self.name = cfg["node"]
        self.paths = cfg.get("paths") or {}
        self.state_dir = self.paths.get("state_dir") or "/var/lib/gpuops/health"
        self.sysfs = self.paths.get("sysfs") or "/sys"
        self.checks = set(name for name in health.MODE_CHECKS.get(MODE_OF.get(mode, mode), ())
                          if (cfg.get("checks") or {}).get(name, True))

    # ---- gathering

    def smi(self, processes=False):
        timeout = health.setting_seconds(self.cfg, "nvidia_smi_timeout_s", 10, 1, 300)
        path = which("nvidia-smi", self.paths.get("nvidia_smi"))
        if not path:
            return {"outcome": "missing", "error": "nvidia-smi not found in %s" % PATH}
        rc, out, err, timed_out = run([path, "-q", "-x"], timeout)
        seen = {"rc": rc, "timed_out": timed_out, "outcome": smi_outcome(rc, out, err)}
        if timed_out:
            return seen
        if seen["outcome"] != "xml":
            lines = [line for line in (err + "\n" + out).splitlines() if line.strip()]
            seen["error"] = lines[-1] if lines else "no output"
            return seen
        try:
            # The temperature check reads the same answer's readings: parsing them costs no nvidia-smi call.
            seen["parsed"] = parse_smi_xml(out, processes=processes,
                                           readings=bool(self.checks & set(health.READING_CHECKS)))
        except GpuFactsError as exc:
            seen["error"] = str(exc)
        return seen

    def pci_gpus(self):
        try:
            return parse_pci_devices(read_pci_devices(self.sysfs)).get("pci_gpus") or []
        except GpuFactsError:
            return []

    def modules(self):
        return dict((name, os.path.isdir(os.path.join(self.sysfs, "module", name)))
                    for name in ("nvidia", "nvidia_peermem", "nv_peer_mem"))

    def ib(self):
        try:
            sysfs = read_sysfs(self.sysfs)
            path = which("ibstat", self.paths.get("ibstat"))
            if path:
                rc, out, err, timed_out = run([path], 30)
                if timed_out:
                    return {"hcas": [], "source": "ibstat timed out after 30s"}
                parsed, _failed = parse_ibstat(out, err, expected_ibstat_devices(sysfs))
                if parsed or rc == 0:
                    return {"hcas": merge_hcas(parsed, sysfs), "source": "ibstat"}
            hcas = hcas_from_sysfs(sysfs)
            return {"hcas": hcas, "source": "sysfs" if hcas else "none"}
        except IbFactsError as exc:
            return {"hcas": [], "source": "unreadable: %s" % exc}

    def xid(self):
        """{state, events, error}: the kernel log read since the last run, under a lock (runs overlap)."""
        source = self.cfg.get("kernel_log") or "/dev/kmsg"
        path = os.path.join(self.state_dir, "xid.json")
        boot_id = (read_text("/proc/sys/kernel/random/boot_id") or "").strip()
        with Lock(self.state_dir):
            # A state file of another boot, or of any shape this run did not write, reads as a fresh state.
            old = health.read_xid_state(read_json(path), boot_id)
            position = old["position"]
            try:
                if source == "/dev/kmsg":
                    events, position = read_kmsg(position)
                else:
                    events, position = read_log_file(source, position)
            except (IOError, OSError) as exc:
                return {"state": old, "events": [], "error": "%s: %s" % (source, exc.strerror or exc)}
            state = health.xid_state(old, boot_id, events, self.cfg.get("xid_drain") or [])
            state["position"] = position
            write_json(path, state)
        return {"state": state, "events": events}

    def slurm_state(self):
        scontrol = which("scontrol", self.paths.get("scontrol"))
        if not scontrol:
            return None, "scontrol not found"
        rc, out, err, timed_out = run([scontrol, "-o", "show", "node", self.name], 20)
        if rc != 0 or timed_out:
            return None, (err or out or "timed out").strip()[:200]
        try:
            return parse_scontrol_nodes(out).get(self.name), None
        except ValidateError as exc:
            return None, str(exc)

    def update(self, *args):
        scontrol = which("scontrol", self.paths.get("scontrol"))
        argv = [scontrol or "scontrol", "update", "NodeName=%s" % self.name] + list(args)
        rc, out, err, timed_out = run(argv, 20)
        if rc != 0 or timed_out:
            log(syslog.LOG_ERR, "%s failed (rc %s): %s" % (" ".join(argv), rc, (err or out).strip()))
            return False
        return True

    # ---- the epilog's clean-up

    def leftovers(self, gpus):
        job = os.environ.get("SLURM_JOB_ID") or ""
        uid = health.whole_number(os.environ.get("SLURM_JOB_UID"))
        minors = health.job_gpu_minors(os.environ.get("SLURM_JOB_GPUS"),
                                       (self.cfg.get("expect") or {}).get("gpu_minors") or [])
        environ_jobs, owners = {}, {}
        needle = ("SLURM_JOB_ID=%s\0" % job).encode()
        for entry in os.listdir("/proc"):
            pid = health.whole_number(entry)
            if pid is None:
                continue
            try:
                owners[pid] = os.stat("/proc/%d" % pid).st_uid
                with open("/proc/%d/environ" % pid, "rb") as handle:
                    data = b"\0" + handle.read()
            except (IOError, OSError):
                continue
            if job and (b"\0" + needle) in data:
                environ_jobs[pid] = job
        return job, health.leftover_pids(job, uid, gpus, minors, environ_jobs, owners, protect=ancestors())

    def kill(self, found):
        """(killed, survivors): SIGTERM, a grace period, SIGKILL, and a wait."""
        if not found:
            return {}, {}
        signal_all(found, signal.SIGTERM)
        wait_gone(found, health.setting_seconds(self.cfg, "kill_grace_s", 5, 0, 120))
        signal_all([pid for pid in found if alive(pid)], signal.SIGKILL)
        wait_gone(found, health.setting_seconds(self.cfg, "kill_wait_s", 5, 1, 120))
        survivors = dict((pid, why) for pid, why in found.items() if alive(pid))
        killed = dict((pid, why) for pid, why in found.items() if pid not in survivors)
        return killed, survivors

    def remember_stuck(self, job_id, survivors):
        """Keep the processes SIGKILL did not end: the periodic check holds the node until they are gone."""
        if not survivors:
            return
        with Lock(self.state_dir):
            path = os.path.join(self.state_dir, "stuck.json")
            stuck = health.read_stuck(read_json(path))
            for pid, why in survivors.items():
                stuck.append({"pid": pid, "start": start_time(pid), "why": "%s, left by job %s" % (why, job_id)})
            write_json(path, stuck[-64:])

    def still_stuck(self):
        """{pid: why} of the remembered stuck processes still alive (the same process: same start time)."""
        with Lock(self.state_dir):
            path = os.path.join(self.state_dir, "stuck.json")
            stuck = health.read_stuck(read_json(path))
            left = [entry for entry in stuck if alive(entry["pid"]) and start_time(entry["pid"]) == entry["start"]]
            if left != stuck:
                write_json(path, left)
        return dict((entry["pid"], entry["why"]) for entry in left)

    # ---- the GPU-to-job map (the GPU exporter labels metrics with it)

    def map_dir(self):
        return self.paths.get("job_map_dir") or "/run/gpuops/gpu-jobs"

    def job_gpus(self):
        minors = (self.cfg.get("expect") or {}).get("gpu_minors") or []
        return health.job_gpu_minors(os.environ.get("SLURM_JOB_GPUS"), minors)

    def map_job(self):
        for minor in self.job_gpus():
            write_json(os.path.join(self.map_dir(), "%d.json" % minor), health.gpu_job_entry(os.environ, minor))

    def unmap_job(self):
        job = os.environ.get("SLURM_JOB_ID") or ""
        for minor in self.job_gpus():
            path = os.path.join(self.map_dir(), "%d.json" % minor)
            entry = read_json(path)
            if isinstance(entry, dict) and str(entry.get("job_id")) == job:
                try:
                    os.unlink(path)
                except OSError:
                    pass


class Lock(object):
    def __init__(self, directory):
        self.path = os.path.join(directory, "lock")
        self.handle = None

    def __enter__(self):
        if not os.path.isdir(os.path.dirname(self.path)):
            os.makedirs(os.path.dirname(self.path), 0o755)
        self.handle = open(self.path, "a")
        fcntl.flock(self.handle, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        fcntl.flock(self.handle, fcntl.LOCK_UN)
        self.handle.close()


def read_kmsg(position):
    """XID events of /dev/kmsg records after the last sequence number read."""
    last = position.get("kmsg_seq")
    records = []
    fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
    try:
        while True:
            try:
                data = os.read(fd, 8192)
            except OSError as exc:
                if exc.errno == errno.EPIPE:  # overwritten while we read: go on with the next record
                    continue
                if exc.errno == errno.EAGAIN:
                    break
                raise
            if not data:
                break
            records.append(data.decode("utf-8", "replace"))
    finally:
        os.close(fd)
    events, seq = health.parse_kmsg(records)
    if last is not None:
        events = [event for event in events if event["seq"] > last]
    return events, {"kmsg_seq": seq if seq is not None else last}


def read_log_file(path, position, limit=16 << 20):
    """XID events of a log file's lines written since the last read (from the start after a rotation)."""
    info = os.stat(path)
    offset = position.get("offset") or 0
    if position.get("inode") != info.st_ino or info.st_size < offset:
        offset = 0
    offset = max(offset, info.st_size - limit)
    with open(path, "rb") as handle:
        handle.seek(offset)
        data = handle.read()
    end = data.rfind(b"\n") + 1  # a line still being written is read next time
    events = health.parse_log_text(data[:end].decode("utf-8", "replace"))
    return events, {"inode": info.st_ino, "offset": offset + end}


def ancestors():
    pids, pid = set(), os.getpid()
    while pid > 1 and pid not in pids:
        pids.add(pid)
        stat = read_text("/proc/%d/stat" % pid) or ""
        fields = stat.rsplit(")", 1)[-1].split()
        pid = (health.whole_number(fields[1]) or 0) if len(fields) > 1 else 0
    return pids


def alive(pid):
    stat = read_text("/proc/%d/stat" % pid)
    if stat is None:
        return False
    fields = stat.rsplit(")", 1)[-1].split()
    return bool(fields) and fields[0] not in ("Z", "X")


def start_time(pid):
    """The process's start time in clock ticks since boot (/proc/<pid>/stat field 22): tells a reused pid apart."""
    stat = read_text("/proc/%d/stat" % pid) or ""
    fields = stat.rsplit(")", 1)[-1].split()
    return fields[19] if len(fields) > 19 else None


def signal_all(pids, number):
    for pid in pids:
        try:
            os.kill(pid, number)
        except OSError:
            pass


def wait_gone(pids, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline and any(alive(pid) for pid in pids):
        time.sleep(0.1)


def act(node, decision):
    """Drain or resume the node as decide() said; whether scontrol did it (True when there was nothing to do)."""
    if decision["action"] == "drain":
        log(syslog.LOG_WARNING, "drained %s: %s" % (node.name, decision["reason"]))
        return node.update("State=DRAIN", "Reason=%s" % decision["reason"])
    if decision["action"] == "resume":
        log(syslog.LOG_NOTICE, "resumed %s: every check passes again" % node.name)
        return node.update("State=RESUME")
    return True


def check(node):
    """Gather what mode's checks need, evaluate, act. Returns the exit code."""
    started = time.time()
    mode, wanted = MODE_OF.get(node.mode, node.mode), node.checks
    seen = {}
    job_id, found = None, {}
    if "gpu_processes" in wanted and mode in ("interval", "active"):
        seen["processes"] = {"job": None, "survivors": node.still_stuck()}
    if "gpu_processes" in wanted and mode == "epilog":
        seen["smi"] = node.smi(processes=True) if (node.cfg.get("expect") or {}).get("gpu_count") else {}
        job_id, found = node.leftovers((seen["smi"].get("parsed") or {}).get("gpus") or [])
        killed, survivors = node.kill(found)
        node.remember_stuck(job_id, survivors)
        seen["processes"] = {"job": job_id, "killed": killed, "survivors": survivors}
        if killed and seen["smi"]:
            seen["smi"] = node.smi()  # what the GPUs show once the leftovers are gone
    gpu_node = bool((node.cfg.get("expect") or {}).get("gpu_count"))
    if "smi" not in seen and gpu_node and wanted & set(health.GPU_CHECKS):
        seen["smi"] = node.smi()
    seen["pci_gpus"] = node.pci_gpus()
    seen["hardware"] = bool(seen["pci_gpus"])
    seen["no_hardware_reason"] = "no NVIDIA GPU on this host's PCI bus (a container or VM without passthrough)"
    seen["modules"] = node.modules()
    seen["proc_version"] = read_text("/proc/driver/nvidia/version") or ""
    if "xid" in wanted:
        seen["xid"] = node.xid()
    if wanted & {"rdma_ports", "peermem_loaded"}:
        seen["ib"] = node.ib()
    if "diag" in wanted:
        seen["diag"] = diag(node)
    if wanted & set(active.MEASURED):
        seen["active"] = measure(node, (seen.get("smi") or {}).get("parsed") or {})
    results = health.evaluate(node.name, mode, node.cfg, seen)
    failed = any(item["status"] == health.FAIL for item in results)

    state, error = (None, None)
    if failed or mode in ("interval", "active"):
        state, error = node.slurm_state()
    decision = health.decide(results, state, mode)  # only the periodic run, with every check, resumes
    acted = act(node, decision)
    if decision["action"] == "none" and failed:
        log(syslog.LOG_WARNING, "%s failed (%s): %s" % (node.name, decision["why"], decision["reason"]))
    if error and mode in ("interval", "active"):
        decision["why"] += " (Slurm state unreadable: %s)" % error
    record = health.summary(node.name, mode, results, decision, time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                            time.time() - started)
    record["epoch"] = round(time.time(), 3)
    if job_id or (mode == "active" and os.environ.get("SLURM_JOB_ID")):
        record["job_id"] = job_id or os.environ.get("SLURM_JOB_ID")
    write_json(os.path.join(node.state_dir, "last-%s.json" % mode), record)
    write_json(os.path.join(node.state_dir, "last.json"), record)

    resumed = decision["action"] == "resume" and acted
    if mode == "active" and not failed and state is not None and (resumed or fabric.in_service(state)):
        # The node's own checks pass and it is in service: its pair check over the fabric follows (a retest, first
        # in the queue, for a node the pair check had drained and this run resumed).
        fabric_start(node, retest=resumed and health.held_for(state) == fabric.FABRIC_CHECK)

    if mode == "prolog":
        if failed:
            return 1  # Slurm requeues the job; the node is drained with our reason already
        node.map_job()
    if mode == "epilog":
        node.unmap_job()
        if failed and not acted:
            return 1  # could not drain: let slurmd drain it for a failed epilog
    return 0


def diag(node):
    """dcgmi diag at the configured level. The active run makes it only on a node it holds or inside its own
    exclusive check job, so no job's GPU is disturbed."""
    dcgmi = which("dcgmi", node.paths.get("dcgmi"))
    if not dcgmi:
        return {"error": "DCGM is not installed (no dcgmi): nothing to run"}
    level = node.cfg.get("diag_level", 1)
    rc, out, err, timed_out = run([dcgmi, "diag", "-r", str(level)],
                                  health.setting_seconds(node.cfg, "diag_timeout_s", 600, 1, 86400))
    if timed_out:
        return {"rc": rc, "text": "dcgmi diag -r %s timed out" % level}
    return {"rc": rc, "text": out + err}


def check_python(node):
    """The Python of the PyTorch environment the measurements run under: the setting, else the newest environment
    under the PyTorch root (gpuops.cluster.pytorch_env's layout, <root>/<version>-<build>/bin/python)."""
    settings = node.cfg.get("active") or {}
    if settings.get("python"):
        return settings["python"] if os.access(settings["python"], os.X_OK) else None
    root = settings.get("pytorch_root") or "/opt/gpuops/pytorch"
    found = []
    for name in (os.listdir(root) if os.path.isdir(root) else []):
        path = os.path.join(root, name, "bin", "python")
        if os.access(path, os.X_OK):
            found.append((os.path.getmtime(os.path.dirname(os.path.dirname(path))), path))
    return max(found)[1] if found else None


def measure(node, parsed_smi):
    """The measured checks' results: the check program under the PyTorch environment, judged by _active."""
    settings = dict(node.cfg.get("active") or {}, checks=node.cfg.get("checks") or {})
    gpus = parsed_smi.get("gpus") or []
    if not (node.cfg.get("expect") or {}).get("gpu_count"):
        return active.active_results(node.name, None, gpus, settings, "the node's Gres has no GPU")
    python = check_python(node)
    if not python:
        return active.active_results(node.name, None, gpus, settings, (
            "no PyTorch environment (gpuops.cluster.pytorch_env) under %s, and node_health_active_python is not set"
            % ((node.cfg.get("active") or {}).get("pytorch_root") or "/opt/gpuops/pytorch")))
    timeout = health.setting_seconds(node.cfg.get("active") or {}, "timeout_s", 900, 60, 86400)
    env = dict((key, value) for key, value in os.environ.items() if key.startswith(("CUDA_", "SLURM_", "NCCL_")))
    env["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID"  # the order nvidia-smi lists the GPUs in
    rc, out, err, timed_out = run([python, os.path.join(HERE, "gpuops_gpu_check.py")], timeout, env)
    if timed_out:
        return active.active_results(node.name, None, gpus, settings, "the check program ran past %d s" % timeout)
    try:
        measured = active.parse_measurements(out)
    except active.ActiveCheckError as exc:
        why = "%s (rc %s%s)" % (exc, rc, ": " + err.strip()[-200:] if err.strip() else "")
        return active.active_results(node.name, None, gpus, settings, why)
    record = dict(measured, rc=rc)
    write_json(os.path.join(node.state_dir, "active-measured.json"), record)
    return active.active_results(node.name, measured, gpus, settings)


def waiting_job(node, name):
    """Whether a job of this name waits or runs in Slurm (other than the one this program runs in)."""
    squeue = which("squeue", node.paths.get("squeue"))
    if not squeue:
        return False
    rc, out, _err, timed_out = run([squeue, "-h", "-n", name, "-o", "%i", "--states=PENDING,CONFIGURING,RUNNING"], 20)
    jobs = set(out.split()) - set([os.environ.get("SLURM_JOB_ID") or ""])
    return rc == 0 and not timed_out and bool(jobs)


def node_partitions(state):
    """The partitions the node is in (its check jobs ask for them), from its Slurm state."""
    return [item for item in ((state or {}).get("fields") or {}).get("Partitions", "").split(",") if item]


def sbatch_job(argv):
    """(job id or None, why) of one sbatch --parsable."""
    rc, out, err, timed_out = run(argv, 30)
    if rc != 0 or timed_out:
        return None, "sbatch failed (rc %s): %s" % (rc, (err or out or "timed out").strip()[-200:])
    return out.strip().split(";", 1)[0], "submitted"


def submit(node, state):
    """Submit the node's check job; returns (job id or None, why)."""
    sbatch = which("sbatch", node.paths.get("sbatch"))
    if not sbatch:
        return None, "sbatch not found"
    settings = node.cfg.get("active") or {}
    partitions = node_partitions(state)
    # The job's time limit: the measurements, dcgmi diag, and a minute for the periodic checks and Slurm.
    limit = (health.setting_seconds(settings, "timeout_s", 900, 60, 86400)
             + health.setting_seconds(node.cfg, "diag_timeout_s", 600, 1, 86400) + 60)
    argv = active.check_job_argv(sbatch, node.paths.get("command") or "/usr/local/sbin/gpuops-health", node.name,
                                 (node.cfg.get("expect") or {}).get("gpu_count") or 0, partitions, node.state_dir,
                                 limit, health.setting_whole(settings, "deadline_h", 12, 1, 720))
    return sbatch_job(argv)


# ---- the pair check over the fabric (module_utils/health/_fabric_check.py)

def scontrol_nodes(node, names):
    """{name: parse_scontrol_nodes entry} of the named nodes (those Slurm knows)."""
    scontrol = which("scontrol", node.paths.get("scontrol"))
    if not scontrol or not names:
        return {}
    rc, out, _err, timed_out = run([scontrol, "-o", "show", "node", ",".join(names)], 30)
    if timed_out:
        return {}
    try:
        return parse_scontrol_nodes(out) if rc == 0 or out.strip() else {}
    except ValidateError:
        return {}


def fabric_partners(node):
    """leaf_partners' answer for this node, from the topology slurmctld runs with and its nodes' states."""
    scontrol = which("scontrol", node.paths.get("scontrol"))
    if not scontrol:
        return {"leaf": None, "partners": [], "why": "scontrol not found"}
    rc, out, err, timed_out = run([scontrol, "show", "topology"], 30)
    if timed_out:
        return {"leaf": None, "partners": [], "why": "scontrol show topology timed out after 30 s"}
    try:
        # Without topology, releases answer with a message (and some with rc 1): no switch tree.
        topology = parse_scontrol_topology(out)
    except ValidateError as exc:
        return {"leaf": None, "partners": [], "why": "%s (rc %s%s)" % (exc, rc, ": " + err.strip()[-120:] if err else "")}
    ring = fabric.leaf_partners(node.name, topology)
    if not ring["partners"]:
        return ring
    return fabric.leaf_partners(node.name, topology, scontrol_nodes(node, ring["partners"]))


def fabric_submit(node, partner, retest=False):
    """Submit one pair check job of node with partner; returns (job id or None, why)."""
    sbatch = which("sbatch", node.paths.get("sbatch"))
    if not sbatch:
        return None, "sbatch not found"
    settings = node.cfg.get("active") or {}
    state, _error = node.slurm_state()
    partitions = node_partitions(state)
    # The job's time limit: the measurement's, and a minute for the records and Slurm.
    limit = health.setting_seconds(settings, "timeout_s", 900, 60, 86400) + 60
    argv = fabric.fabric_job_argv(sbatch, node.paths.get("command") or "/usr/local/sbin/gpuops-health", node.name,
                                  partner, (node.cfg.get("expect") or {}).get("gpu_count") or 0, partitions,
                                  node.state_dir, limit, health.setting_whole(settings, "deadline_h", 12, 1, 720),
                                  retest=retest)
    return sbatch_job(argv)


def fabric_start(node, retest=False, partner=None):
    """Ask for the node's next pair check (its first partner in service, or the one given); recorded in
    fabric-plan.json. A retest forgets the pair results that drained the node."""
    record = {"node": node.name, "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "epoch": round(time.time(), 3),
              "retest": retest}
    if not (node.cfg.get("checks") or {}).get(fabric.FABRIC_CHECK, True):
        record.update(action="skip", why="the fabric check is switched off (node_health_checks)")
    elif not (node.cfg.get("expect") or {}).get("gpu_count"):
        record.update(action="skip", why="the node's Gres has no GPU")
    elif waiting_job(node, fabric.fabric_job_name(node.name)):
        record.update(action="skip", why="a pair check job of this node is waiting in Slurm already")
    else:
        if retest:
            with Lock(node.state_dir):
                write_json(os.path.join(node.state_dir, "fabric.json"), [])
        ring = fabric_partners(node) if partner is None else {"leaf": None, "partners": [partner], "why": ""}
        record["leaf"] = ring["leaf"]
        if not ring["partners"]:
            record.update(action="skip", why=ring["why"])
        else:
            job, why = fabric_submit(node, ring["partners"][0], retest)
            record.update(action="submit" if job else "skip", partner=ring["partners"][0], why=why)
            if job:
                record["job_id"] = job
    write_json(os.path.join(node.state_dir, "fabric-plan.json"), record)
    return record


def fabric_job(node):
    """The pair job's batch script (on its first node): the check program on every GPU of both nodes, then each
    node's record of the result."""
    nodes = os.environ.get("SLURM_JOB_NODELIST") or ""
    job = os.environ.get("SLURM_JOB_ID") or "0"
    srun = which("srun", node.paths.get("srun")) or "srun"
    settings = node.cfg.get("active") or {}
    timeout = health.setting_seconds(settings, "timeout_s", 900, 60, 86400)
    python = check_python(node)
    if not python:
        measured = {"error": "no PyTorch environment (gpuops.cluster.pytorch_env) under %s"
                    % (settings.get("pytorch_root") or "/opt/gpuops/pytorch")}
    else:
        state, _error = node.slurm_state()
        address = ((state or {}).get("fields") or {}).get("NodeAddr") or node.name
        env = dict((key, value) for key, value in os.environ.items() if key.startswith(("CUDA_", "SLURM_", "NCCL_")))
        env["GPUOPS_FABRIC_MASTER"] = "%s:%d" % (address, 20000 + int(job) % 20000 if job.isdigit() else 29500)
        gpus = (node.cfg.get("expect") or {}).get("gpu_count") or 1
        argv = fabric.fabric_step_argv(srun, python, os.path.join(HERE, "gpuops_gpu_check.py"), gpus,
                                       health.whole_number(os.environ.get("SLURM_CPUS_ON_NODE")) or 0)
        rc, out, err, timed_out = run(argv, timeout, env)
        if timed_out:
            measured = {"error": "the pair's all-reduce ran past %d s" % timeout}
        else:
            try:
                measured = fabric.parse_fabric_measurement(out)
            except fabric.FabricCheckError as exc:
                measured = {"error": "%s (rc %s%s)" % (exc, rc, ": " + err.strip()[-200:] if err.strip() else "")}
    env = {"GPUOPS_FABRIC_MEASURED": json.dumps(measured)}
    env.update((key, value) for key, value in os.environ.items() if key.startswith("SLURM_"))
    rc, out, err, timed_out = run([srun, "--nodes=2", "--ntasks=2", "--ntasks-per-node=1", "--kill-on-bad-exit=0",
                                   node.paths.get("command") or "/usr/local/sbin/gpuops-health", "fabric-record"],
                                  120, env)
    print(out + err)
    print("pair %s: %s" % (nodes, json.dumps(measured)))
    return 0 if rc == 0 and not timed_out else 1


def fabric_record(node):
    """One node's part of the pair job: its record of the pair, the rule of blame, and what follows."""
    started = time.time()
    try:
        names = expand(os.environ.get("SLURM_JOB_NODELIST") or "")
    except HostlistError:
        names = []
    partners = [name for name in names if name != node.name]
    partner = partners[0] if partners else "?"
    try:
        measured = json.loads(os.environ.get("GPUOPS_FABRIC_MEASURED") or "")
        if not isinstance(measured, dict) or not ("value" in measured or "error" in measured) or isinstance(
                measured.get("value", 0), bool) or not isinstance(measured.get("value", 0), (int, float)):
            raise ValueError("not a measurement")
    except ValueError as exc:
        measured = {"error": "the pair job gave no measurement (%s)" % exc}
    settings = node.cfg.get("active") or {}
    ports = selected_ports({"hcas": node.ib()["hcas"], "selected": (node.cfg.get("expect") or {}).get("ib_ports")})
    # The site's figure is by GPU model (node_health_active_expect), as for the node's own checks.
    gpus = ((node.smi().get("parsed") or {}).get("gpus") if settings.get("expect") else None) or [{}]
    expected = fabric.fabric_expectation(node.name, ports, active.site_expect(settings.get("expect"), gpus[0]))
    now = time.time()
    entry = fabric.fabric_entry(partner, measured, expected, settings.get("tolerance", active.DEFAULT_TOLERANCE),
                                round(now, 3), os.environ.get("SLURM_JOB_ID"))
    with Lock(node.state_dir):
        path = os.path.join(node.state_dir, "fabric.json")
        records = fabric.recent((read_json(path) or []) + [entry], now)
        write_json(path, records)
    ring = fabric_partners(node)
    verdict = fabric.fabric_verdict(node.name, records, ring["partners"], now)
    results = [verdict["result"]]
    state, error = node.slurm_state()
    decision = health.decide(results, state, "fabric")
    act(node, decision)
    if error:
        decision["why"] += " (Slurm state unreadable: %s)" % error
    record = health.summary(node.name, "fabric", results, decision, time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                            time.time() - started)
    record.update(epoch=round(time.time(), 3), job_id=os.environ.get("SLURM_JOB_ID"), partner=partner,
                  leaf=ring["leaf"], world=entry["world"])
    write_json(os.path.join(node.state_dir, "last-fabric.json"), record)
    if verdict["next"]:
        fabric_start(node, partner=verdict["next"])
    print("%s: %s with %s: %s (%s)" % (node.name, entry["status"], partner, decision["action"], decision["why"]))
    return 0


def mark_joined(node):
    marker = node.paths.get("join_marker") or "/run/gpuops/health-joined"
    directory = os.path.dirname(marker)
    if not os.path.isdir(directory):
        os.makedirs(directory, 0o755)
    with open(marker, "w") as handle:
        handle.write(time.strftime("%Y-%m-%dT%H:%M:%S%z\n"))


def plan_record(node, command, plan, job=None, why=None):
    record = {"node": node.name, "command": command, "action": plan["action"], "why": why or plan["why"],
              "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "epoch": round(time.time(), 3)}
    if job:
        record["job_id"] = job
    write_json(os.path.join(node.state_dir, "active-plan.json"), record)
    print("%s: %s (%s)" % (command, plan["action"], record["why"]))


def activate(node, command):
    """active, join and gate: where the node's active checks run, from its Slurm state."""
    state, error = node.slurm_state()
    if command in ("join", "gate"):
        mark_joined(node)
        plan = active.gate_plan(state)
        if plan["action"] == "drain":
            when = "boot" if command == "gate" else "joined"
            if not node.update("State=DRAIN", "Reason=%s" % active.pending_reason(when)):
                plan = {"action": "skip", "why": "could not drain the joining node (scontrol failed)"}
            else:
                log(syslog.LOG_NOTICE, "%s drained until its active checks pass" % node.name)
                plan = {"action": "run", "why": "joined: drained until its checks pass"}
    else:
        plan = active.active_plan(state, waiting_job(node, active.check_job_name(node.name)) if state is not None
                                  else False)
    if error and plan["action"] == "skip":
        plan["why"] += ": %s" % error
    if plan["action"] == "run" and command == "gate":
        # Before slurmd: the checks run once it does (gpuops-health-active.service is ordered after it).
        rc, out, err, _timed_out = run(["systemctl", "start", "--no-block", "gpuops-health-active.service"], 30)
        plan_record(node, command, plan, why=plan["why"] + ("" if rc == 0 else " (systemctl: %s)" % (err or out)))
        return 0
    if plan["action"] == "run":
        plan_record(node, command, plan)
        node.mode = "active-job"
        return check(node)
    if plan["action"] == "submit":
        job, why = submit(node, state)
        plan_record(node, command, plan, job=job, why=plan["why"] if job else why)
        return 0 if job else 1
    plan_record(node, command, plan)
    return 0


def main(argv):
    if len(argv) != 2 or argv[1] not in COMMANDS:
        print(USAGE, file=sys.stderr)
        return 2
    command = argv[1]
    cfg = read_json(CONFIG)
    if not isinstance(cfg, dict) or not isinstance(cfg.get("node"), str) or not cfg["node"]:
        print("gpuops-health: cannot read %s (run the gpuops.cluster.node_health role)" % CONFIG, file=sys.stderr)
        log(syslog.LOG_ERR, "cannot read %s" % CONFIG)
        return 0 if command in ("prolog", "epilog", "interval") else 1
    paths = cfg.get("paths") if isinstance(cfg.get("paths"), dict) else {}
    state_dir = paths.get("state_dir") or "/var/lib/gpuops/health"
    if command == "show":
        print(json.dumps(read_json(os.path.join(state_dir, "last.json")), indent=1, sort_keys=True))
        return 0
    if command == "clear-xid":
        path = os.path.join(state_dir, "xid.json")
        boot_id = (read_text("/proc/sys/kernel/random/boot_id") or "").strip()
        with Lock(state_dir):
            state = health.read_xid_state(read_json(path), boot_id)
            cleared = state["open"]
            state["open"] = []
            write_json(path, state)
        print("cleared %d XID event(s); the next health check resumes the node if all else passes" % len(cleared))
        log(syslog.LOG_NOTICE, "XIDs cleared by an admin: %s" % [event.get("xid") for event in cleared])
        return 0
    try:
        if command in ("active", "join", "gate"):
            return activate(Node(cfg, command), command)
        if command == "fabric-job":
            return fabric_job(Node(cfg, command))
        if command == "fabric-record":
            return fabric_record(Node(cfg, command))
        return check(Node(cfg, command))
    except Exception as exc:  # pylint: disable=broad-except
        # A fault of this program must not drain the cluster or fail every job: it is logged and recorded.
        log(syslog.LOG_ERR, "%s run failed: %s: %s" % (command, type(exc).__name__, exc))
        try:
            write_json(os.path.join(state_dir, "last.json"),
                       {"node": cfg.get("node"), "mode": command, "status": "error", "time": time.strftime(
                           "%Y-%m-%dT%H:%M:%S%z"), "error": "%s: %s" % (type(exc).__name__, exc), "results": []})
        except (IOError, OSError):
            pass
        return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
