# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the gpu_facts module (and host_probe's gpus option) run on a host: nvidia-smi -q -x,
topo -m and -L, the PCI bus, the MIG minors and the CPU topology, put together by the pure
parsers of gpu/_gpu_facts.py into the gpuops_gpus fact.

collect() needs an AnsibleModule (it runs commands, warns, and fails with the command's output);
everything it parses is tested through gpu/_gpu_facts.py and the module tests.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re

from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import cap, clip
from ansible_collections.gpuops.cluster.plugins.module_utils.common._timed_command import TimedCommand
from ansible_collections.gpuops.cluster.plugins.module_utils.gpu._gpu_facts import (
    GpuFactsError,
    build_facts,
    device_files,
    fabric_facts,
    parse_mig_minors,
    parse_pci_devices,
    parse_smi_list,
    parse_smi_xml,
    parse_topo,
    read_pci_devices,
    smi_outcome,
    NO_DRIVER,
)

# The options collect() reads, as the modules declare them.
ARGUMENT_SPEC = dict(
    nvidia_smi=dict(type="path"),
    timeout=dict(type="int", default=30),
    sysfs_root=dict(type="path", default="/sys"),
    dev_root=dict(type="path", default="/dev"),
)

MIG_MINORS_PATH = "/proc/driver/nvidia-caps/mig-minors"


# The longest reason (one line of nvidia-smi's output) put in a message or in the error fact.
REASON_LIMIT = 300


def _one_line(line):
    """line with its white space runs as one space, at most REASON_LIMIT characters (ending in '...' when cut)."""
    return clip(line, REASON_LIMIT - 3)


def _last_line(*texts):
    """The last non-empty line of the first text that has one (one line, at most REASON_LIMIT characters)."""
    for text in texts:
        lines = [line for line in (text or "").splitlines() if line.strip()]
        if lines:
            return _one_line(lines[-1])
    return "no output"


def _empty(status, pci_devices, dev_root, error=None):
    facts = {"status": status, "error": error, "driver_version": None, "cuda_version": None, "count": 0,
             "gpus": [], "gres_conf": [], "slurm_gres": "", "device_files": device_files(dev_root)}
    facts.update(fabric_facts(pci_devices))
    return facts


def _first_error_line(*texts):
    """The line that says why nvidia-smi cannot talk to the driver (else its last line), as _last_line."""
    for text in texts:
        for line in (text or "").splitlines():
            if any(marker in line for marker in NO_DRIVER):
                return _one_line(line)
    return _last_line(*texts)


class Runner(TimedCommand):
    """nvidia-smi calls under LC_ALL=C, each limited by coreutils timeout."""

    def __init__(self, module, nvidia_smi, timeout):
        super(Runner, self).__init__(module, timeout, "nvidia-smi")
        self.nvidia_smi = nvidia_smi

    def argv(self, args):
        return [self.nvidia_smi] + args

    def smi(self, args):
        """(rc, stdout, stderr, timed_out) of nvidia-smi with args."""
        return self.run(self.argv(args))

    def fail(self, args, msg, rc, out, err):
        """fail_json with the command, its rc, and its output cut to a few KB (head and tail)."""
        self.module.fail_json(msg=cap(msg), cmd=" ".join(self.argv(args)), rc=rc, stdout=cap(out), stderr=cap(err))


def _read_cpu_topology(sysfs_root):
    """{os cpu: (physical_package_id, core_id)} for the CPUs sysfs describes (online ones)."""
    base = os.path.join(sysfs_root, "devices", "system", "cpu")
    try:
        names = os.listdir(base)
    except OSError:
        return {}
    result = {}
    for name in names:
        match = re.match(r"cpu([0-9]+)$", name)
        if not match:
            continue
        values = []
        for leaf in ("physical_package_id", "core_id"):
            try:
                with open(os.path.join(base, name, "topology", leaf)) as handle:
                    values.append(int(handle.read().strip()))
            except (IOError, OSError, ValueError):
                break
        if len(values) == 2:
            result[int(match.group(1))] = (values[0], values[1])
    return result


def _read_mig_minors(module):
    try:
        # Read as bytes: the parser reads what is not UTF-8 as U+FFFD (a text-mode read would raise).
        with open(MIG_MINORS_PATH, "rb") as handle:
            return parse_mig_minors(handle.read())
    except (IOError, OSError) as exc:
        module.warn("cannot read %s (%s): MIG lines in gres.conf name only /dev/nvidiaN"
                    % (MIG_MINORS_PATH, exc.strerror or exc))
    except GpuFactsError as exc:
        module.warn("%s: %s: MIG lines in gres.conf name only /dev/nvidiaN" % (MIG_MINORS_PATH, exc))
    return None


def _topo(runner, module):
    args = ["topo", "-m"]
    rc, out, err, timed_out = runner.smi(args)
    consequence = "gres.conf lines carry no Cores= and no Links="
    if timed_out:
        module.warn("nvidia-smi topo -m timed out after %ds: %s" % (runner.timeout, consequence))
        return None
    if rc != 0:
        module.warn("nvidia-smi topo -m failed (rc %d: %s): %s" % (rc, _last_line(err, out), consequence))
        return None
    try:
        topo = parse_topo(out)
    except GpuFactsError as exc:
        module.warn("%s: %s" % (exc, consequence))
        return None
    if not any(gpu["cpu_affinity"] for gpu in topo["gpus"]):
        module.warn("nvidia-smi topo -m gives no CPU affinity: gres.conf lines carry no Cores=")
    return topo


def collect(module, params):
    """The gpuops_gpus fact of this host; params: nvidia_smi, timeout, sysfs_root, dev_root.

    Fails the module (fail_json) on a wedged or failing nvidia-smi and on output no parser reads.
    """
    if params["timeout"] < 0:
        module.fail_json(msg="timeout must be 0 (no limit) or a number of seconds, got %d" % params["timeout"])
    # Read before nvidia-smi is looked for: it tells GPU hosts apart before any driver is installed.
    pci_devices = parse_pci_devices(read_pci_devices(params["sysfs_root"]))
    nvidia_smi = params["nvidia_smi"]
    if nvidia_smi:
        if not (os.path.isfile(nvidia_smi) and os.access(nvidia_smi, os.X_OK)):
            module.fail_json(msg="nvidia_smi: %s is not an executable file" % nvidia_smi)
    else:
        nvidia_smi = module.get_bin_path("nvidia-smi")
        if not nvidia_smi:
            return _empty("no_nvidia_smi", pci_devices, params["dev_root"])

    runner = Runner(module, nvidia_smi, params["timeout"])
    args = ["-q", "-x"]
    rc, out, err, timed_out = runner.smi(args)
    if timed_out:
        runner.fail(args, "nvidia-smi -q -x timed out after %ds (wedged GPU?)" % runner.timeout, rc, out, err)
    outcome = smi_outcome(rc, out, err)
    if outcome == "no_devices":
        return _empty("no_devices", pci_devices, params["dev_root"])
    if outcome == "no_driver":
        reason = _first_error_line(out, err)
        module.warn("nvidia-smi cannot talk to the NVIDIA driver (%s): reporting no GPUs" % reason)
        return _empty("no_driver", pci_devices, params["dev_root"], reason)
    if outcome == "failed":
        runner.fail(args, "nvidia-smi -q -x failed (rc %d): %s" % (rc, _last_line(err, out)), rc, out, err)
    try:
        smi = parse_smi_xml(out)
    except GpuFactsError as exc:
        runner.fail(args, str(exc), rc, out, err)

    topo = _topo(runner, module) if smi["gpus"] else None

    listing = None
    mig_minors = None
    if any(gpu["mig_mode"] == "enabled" and gpu["mig_devices"] for gpu in smi["gpus"]):
        args = ["-L"]
        rc, out, err, timed_out = runner.smi(args)
        if timed_out:
            runner.fail(args, "nvidia-smi -L timed out after %ds (wedged GPU?)" % runner.timeout, rc, out, err)
        if rc != 0:
            runner.fail(args, "nvidia-smi -L failed (rc %d): %s" % (rc, _last_line(err, out)), rc, out, err)
        try:
            listing = parse_smi_list(out)
        except GpuFactsError as exc:
            runner.fail(args, str(exc), rc, out, err)
        mig_minors = _read_mig_minors(module)

    cpu_topology = None
    if topo is not None and any(gpu["cpu_affinity"] for gpu in topo["gpus"]):
        cpu_topology = _read_cpu_topology(params["sysfs_root"])

    try:
        facts, warnings = build_facts(smi, topo=topo, cpu_topology=cpu_topology, listing=listing, mig_minors=mig_minors,
                                      pci_devices=pci_devices)
    except GpuFactsError as exc:
        module.fail_json(msg=cap("gpu_facts: %s" % exc))
    for warning in warnings:
        module.warn(warning)
    return dict(facts, status="ok", error=None, device_files=device_files(params["dev_root"]))
