# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every parser, fed hostile versions of its real captures, returns or raises its own error only.

Hostile: a number grown to thousands of digits (Python's int() refuses more
than 4,300), one beyond what a float holds, bytes that are not UTF-8 (as
bytes, and as run_command hands them on with surrogateescape: lone
surrogates), NUL and other control characters, long lines, arbitrary text
and bytes, and the mutations of mutation.py. Python's own exceptions
(ValueError, TypeError, RecursionError, UnicodeError, ...) must never
escape; what a parser returns must be valid JSON (no NaN or infinity, no
lone surrogate), since modules and filters hand it on as such.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import functools
import gc
import glob
import gzip
import json
import math
import os
import re
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.gpuops.cluster.plugins.module_utils.common import _host_probe
from ansible_collections.gpuops.cluster.plugins.module_utils.fabric import (
    _ib_facts,
    _topology,
)
from ansible_collections.gpuops.cluster.plugins.module_utils.gpu import (
    _gpu_facts,
    _gpu_plan,
)
from ansible_collections.gpuops.cluster.plugins.module_utils.health import _health
from ansible_collections.gpuops.cluster.plugins.module_utils.monitoring import (
    _alert_rules,
    _gpu_metrics,
    _grafana,
    _monitoring,
    _slurm_metrics,
)
from ansible_collections.gpuops.cluster.plugins.module_utils.site import (
    _chrony,
    _env_modules,
    _local_accounts,
    _shared_storage,
    _torch_slurm_env,
)
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm import (
    _hostlist,
    _node_sources,
    _slurm_accounts,
    _slurm_conf,
    _slurm_containers,
    _slurm_model,
    _slurm_ops,
)
from ansible_collections.gpuops.cluster.plugins.module_utils.validate import (
    _clock,
    _validate,
    _validate_checks,
)

from .cost import bounded
from .mutation import HOSTILE_NOISE, HUGE_NUMBER, as_bytes, hostile_text, mutated

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures")


def _read(pattern):
    texts = []
    for path in sorted(glob.glob(os.path.join(FIXTURES, pattern))):
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8", errors="surrogateescape") as handle:
            texts.append(handle.read())
    assert texts, pattern
    return texts


def _assoc_line(account, user="", parent="", share="", **limits):
    """HAND-WRITTEN: one line of sacctmgr show associations --parsable2 in the layout of ASSOC_FIELDS."""
    return "|".join(["lab", account, user, "", parent, share] + [limits.get(key, "") for key in _slurm_accounts.LIMIT_KEYS])


ASSOCIATIONS = "\n".join([
    _assoc_line("root", QOS="normal"),
    _assoc_line("chem", parent="root", share="10", GrpTRES="gres/gpu=8,mem=64G"),
    _assoc_line("chem", "alice", share="1", MaxJobs="10", MaxWall="1-00:00:00"),
]) + "\n"
DESIRED = _slurm_accounts.normalize_desired([
    {"name": "chem", "fairshare": 10, "users": ["alice", {"name": "bob", "fairshare": 2}],
     "limits": {"GrpTRES": "gres/gpu=8", "MaxJobs": 10, "MaxWall": "1-00:00:00"}},
])


def _accounts_plan(text):
    current = _slurm_accounts.current_state(_slurm_accounts.parse_parsable(text, _slurm_accounts.ASSOC_FIELDS), [], [])
    return _slurm_accounts.plan(current, DESIRED, "lab", prune=True)


def _gpu_facts_of(text):
    return _gpu_facts.build_facts(_gpu_facts.parse_smi_xml(text))


UNMUNGE = ("STATUS:          Success (0)\nENCODE_HOST:     ctl (172.31.251.2)\nENCODE_TIME:     2026-11-24 00:52:42 +0000 "
           "(1795481562)\nDECODE_TIME:     2026-11-24 00:52:42 +0000 (1795481562)\nTTL:             300\n")
TIMEDATECTL = "Timezone=Etc/UTC\nLocalRTC=no\nCanNTP=yes\nNTP=yes\nNTPSynchronized=yes\n"
RESTART_RECORD = {"settings": {"SlurmctldPort": 6817}, "nodes": ["gpu[01-02]:gpu:8:1:8"], "configless": False}
SLURM_NODES = {"gpu01": {"host": "gpu01", "slurm_gres": "gpu:a100:4", "gpu_count": 4},
               "bench01": {"host": "bench01", "slurm_gres": "", "gpu_count": 0}}
FAILED_XID = [_validate_checks.result("gpu01", "xid", "fail", 79, [], "XID 79 on GPU 0000:3b:00")]
RECORDED = dict((name, {"out": _read("slurm_exporter/recorded/slurm-22.05-1000-jobs/%s.txt" % name)[0]})
                for name in _slurm_metrics.COMMANDS)
JOB_ENV = {"SLURM_JOB_ID": "4242", "SLURM_STEP_ID": "0", "SLURM_NTASKS": "32", "SLURM_PROCID": "9",
           "SLURM_LOCALID": "1", "SLURM_NODEID": "1"}


def _split(text):
    """Options as a list, as YAML gives them (bytes split into bytes: options that are not strings)."""
    return text.split("," if isinstance(text, str) else b",")


def _drain_decision(reason):
    """What the health check does with a node Slurm holds with reason (drained by it, or by an admin)."""
    return _health.decide(FAILED_XID, {"flags": ["drain"], "base_state": "idle", "reason": reason}, "interval")


def _node_checks_of(text):
    """validate's own checks of a node whose munge, chronyc and timedatectl printed text (each check fails alone)."""
    data = {"node": "gpu01", "role": "compute", "services": {"munge": "active", "slurmd": "active"},
            "munge": {"encode_rc": 0, "stdout": text, "stderr": ""}, "chronyc": {"rc": 0, "stdout": text},
            "timedatectl": {"rc": 0, "stdout": text}, "health_last": {"status": "pass", "mode": "interval"},
            "clock": {"offset_s": 0.1, "rtt_s": 0.01}, "controller_clock": {"offset_s": 0.0, "rtt_s": 0.01}}
    return _validate_checks.node_checks(data, {"controller": "ctl", "rdma_expected": False})


def _torch_env_of(text):
    """The env:// variables of a job step whose node list and tasks per node are text."""
    return _torch_slurm_env.torch_env(dict(JOB_ENV, SLURM_STEP_NODELIST=text, SLURM_STEP_TASKS_PER_NODE=text))


def _gpu_scrape(text):
    """What the GPU exporter serves from nvidia-smi -q -x printing text (and an XID state)."""
    smi = _gpu_facts.parse_smi_xml(text, True, True)
    return _gpu_metrics.exposition(_gpu_metrics.gpu_samples(smi) + _gpu_metrics.xid_samples(
        {"counts": [{"pci": "0000:3b:00", "xid": 79, "count": 2}]}, smi))


def _slurm_scrape(name, text):
    """What the Slurm exporter serves when the command name printed text (the others as recorded)."""
    results = dict(RECORDED)
    results[name] = {"out": text}
    return _gpu_metrics.exposition(_slurm_metrics.slurm_samples(results), _slurm_metrics.family)


# (name, function of text, captures, the parser's own error, whether its own rules (not the
# guard's catch-all) must name what is wrong in hostile captures)
PARSERS = [
    ("parse_smi_xml", _gpu_facts.parse_smi_xml, _read("nvidia-smi-xml/*.xml")[:4], _gpu_facts.GpuFactsError, True),
    ("gpu readings and samples", lambda text: _gpu_metrics.gpu_samples(_gpu_facts.parse_smi_xml(text, True, True)),
     _read("nvidia-smi-xml/*.xml")[:3], _gpu_facts.GpuFactsError, True),
    ("kernel log XIDs", _health.parse_log_text, _read("health/kernel-log/*.log"), _health.HealthError, True),
    ("kmsg records", lambda text: _health.parse_kmsg(text.splitlines()), _read("health/kernel-log/gpud_dev-kmsg*.log"),
     _health.HealthError, True),
    ("dcgmi diag", _health.parse_dcgmi_diag, _read("health/dcgmi/*.txt"), _health.HealthError, True),
    ("nvidia-smi nvlink -e", _gpu_metrics.parse_nvlink_errors, _read("nvidia-smi-nvlink/*.txt"),
     _gpu_metrics.GpuMetricsError, True),
    ("sdiag", _slurm_metrics.parse_sdiag, _read("slurm_exporter/sdiag/*.txt"), _slurm_metrics.SlurmMetricsError, True),
    ("sshare", _slurm_metrics.parse_sshare, _read("slurm_exporter/sshare/SckyzO*.txt"),
     _slurm_metrics.SlurmMetricsError, True),
    ("squeue counts", lambda text: _slurm_metrics.count_by(_slurm_metrics.parse_pipe(
        text, ["partition", "state", "cpus", "reason", "user"], "squeue"), ["state"], "cpus"),
     _read("slurm_exporter/squeue/SckyzO*queue_all_states.txt"), _slurm_metrics.SlurmMetricsError, True),
    ("dashboard_queries", _grafana.dashboard_queries, _read("../../roles/grafana/files/dashboards/*.json"),
     _grafana.GrafanaError, True),
    ("dashboard_errors", _grafana.dashboard_errors, _read("../../roles/grafana/files/dashboards/gpuops-[gs]*.json"),
     _grafana.GrafanaError, True),
    ("build_facts", _gpu_facts_of, _read("nvidia-smi-xml/*.xml")[4:6], _gpu_facts.GpuFactsError, True),
    ("parse_topo", _gpu_facts.parse_topo, _read("nvidia-smi-topo/*.txt"), _gpu_facts.GpuFactsError, True),
    ("parse_smi_list", _gpu_facts.parse_smi_list, _read("nvidia-smi-L/*.txt"), _gpu_facts.GpuFactsError, True),
    ("parse_mig_minors", _gpu_facts.parse_mig_minors,
     ["gpu0/gi1/access 12\ngpu0/gi1/ci0/access 13\nconfig 1\nmonitor 2\n"], _gpu_facts.GpuFactsError, True),
    ("parse_ibstat", _ib_facts.parse_ibstat, _read("ibstat/*.txt"), _ib_facts.IbFactsError, True),
    ("parse_ibstat stderr", lambda text: _ib_facts.parse_ibstat("", text, ["mlx5_0"]),
     ["ibpanic: [1400444] main: stat of IB device 'mlx5_8' failed: No such file or directory\n"],
     _ib_facts.IbFactsError, True),
    ("parse_ip_addr", _ib_facts.parse_ip_addr, _read("ip-addr/*.txt"), _ib_facts.IbFactsError, True),
    ("parse_ibnetdiscover", _topology.parse_ibnetdiscover, _read("ibnetdiscover/*.txt"), _topology.TopologyError, True),
    ("topology_plan", lambda text: _topology.topology_plan({"n1": "n1"}, "24.11", {"ibnetdiscover": text}),
     _read("ibnetdiscover/[inom]*.txt"), _topology.TopologyError, True),
    ("parse_scontrol_nodes", _validate.parse_scontrol_nodes, _read("scontrol/*.txt"), _validate.ValidateError, True),
    ("parse_nccl_tests", _validate.parse_nccl_tests, _read("nccl-tests/*.txt"), _validate.ValidateError, True),
    ("parse_ib_write_bw", _validate.parse_ib_write_bw, _read("ib_write_bw/*.txt"), _validate.ValidateError, True),
    ("parse_timedatectl_show", _validate.parse_timedatectl_show,
     ["Timezone=Etc/UTC\nLocalRTC=no\nCanNTP=yes\nNTP=yes\nNTPSynchronized=yes\nTimeUSec=Tue 2026-11-24 00:52:42 UTC\n"],
     _validate.ValidateError, True),
    ("parse_chronyc_tracking", _validate.parse_chronyc_tracking, [
        "Reference ID    : A9FEA97B (169.254.169.123)\nStratum         : 4\nRef time (UTC)  : Tue Nov 24 00:52:42 2026\n"
        "System time     : 0.000012345 seconds fast of NTP time\nLast offset     : -0.000004321 seconds\n"
        "Frequency       : 3.123 ppm slow\nLeap status     : Normal\n"], _validate.ValidateError, True),
    ("gres_gpu_count", _validate.gres_gpu_count, ["gpu:a100:4(S:0),gpu:h100:2(S:1),mps:100"], _validate.ValidateError,
     True),
    ("parse_apt_policy", _slurm_ops.parse_apt_policy, _read("slurm_ops/apt-cache-policy-*.txt"), _slurm_ops.SlurmOpsError,
     True),
    ("parse_squeue_jobs", _slurm_ops.parse_squeue_jobs, _read("slurm_ops/squeue-*.txt"), _slurm_ops.SlurmOpsError, True),
    ("parse_sacct_states", _slurm_ops.parse_sacct_states, ["12|RUNNING|0:0\n12_3|CANCELLED by 1000|0:15\n13+0|FAILED|1:0\n"],
     _slurm_ops.SlurmOpsError, True),
    ("parse_name_versions", _slurm_ops.parse_name_versions,
     ["slurm 0:23.11.4-1.el9\nslurm-slurmd (none):23.11.4-1.el9\npackage munge is not installed\n"],
     _slurm_ops.SlurmOpsError, True),
    ("parse_slurm_version", _slurm_ops.parse_slurm_version, ["slurm 24.11.5", "1:22.05.8-4+deb12u3"],
     _slurm_ops.SlurmOpsError, True),
    ("upgrade_check", lambda text: _slurm_ops.upgrade_check({"gpu01 slurmd": text}, "24.11.5"), ["23.11.4-1.el9"],
     _slurm_ops.SlurmOpsError, True),
    ("cluster_state", lambda text: _slurm_ops.cluster_state(text, "12|RUNNING|gpu[01-02]\n"),
     _read("slurm_ops/scontrol-nodes-*.txt"), _slurm_ops.SlurmOpsError, True),
    ("series_for", _slurm_conf.series_for, ["24.11.5", "22.05"], _slurm_conf.SlurmConfError, True),
    ("hostlist expand", _hostlist.expand, ["gpu[01-08,10],login1", "rack[1-2]-node[001-004]"], _hostlist.HostlistError,
     True),
    ("hostlist compress", lambda text: _hostlist.compress(text.split()), ["gpu01 gpu02 gpu07 login1 n9"],
     _hostlist.HostlistError, True),
    ("parse_parsable", lambda text: _slurm_accounts.parse_parsable(text, ["Account", "User", "Share"]),
     ["chem||1\nchem|alice|1\nphys|bob|parent\n"], _slurm_accounts.SlurmAccountsError, True),
    ("accounts plan", _accounts_plan, [ASSOCIATIONS], _slurm_accounts.SlurmAccountsError, True),
    ("wall_minutes", _slurm_accounts.wall_minutes, ["1-02:03:04", "90"], (), True),
    ("parse_dpkg_query_details", lambda text: _host_probe.parse_dpkg_query_details(text, ["slurmd", "munge"]),
     ["slurmd installed install 22.05.8-4\nmunge installed hold 0.5.15-2\nslurmd:i386 not-installed unknown\n"],
     _host_probe.HostProbeError, True),
    ("parse_rpm_query_details", lambda text: _host_probe.parse_rpm_query_details(text, ["slurm", "kernel"], ["kern*"]),
     ["slurm 0 23.11.4-1.el9\nkernel 3 5.14.0-1.el9\npackage munge is not installed\n"], _host_probe.HostProbeError,
     True),
    ("parse_versionlock_list", _host_probe.parse_versionlock_list,
     ["# comment\nnvidia-driver-3:535.154.05-1.el9.*\n3:cuda-drivers-535.154.05-1.el9.*\n!kernel-5.14\nmunge\n"],
     _host_probe.HostProbeError, True),
    ("parse_systemctl_show", _host_probe.parse_systemctl_show,
     ["Id=munge.service\nActiveState=active\nUnitFileState=enabled\nMainPID=12\n\nId=slurmd.service\nActiveState=failed\n"],
     _host_probe.HostProbeError, True),
    # Parsers of other modules that live beside these: their own error only.
    ("parse_node_gres", _slurm_model.parse_node_gres, ["NodeName=gpu[01-04] CPUs=8 Gres=gpu:a100:4 State=UNKNOWN\n"],
     _slurm_model.SlurmModelError, False),
    ("parse_unmunge", _validate_checks.parse_unmunge, [UNMUNGE], _validate.ValidateError, True),
    # Issue 43: the running slurm.conf, gres.conf and topology.conf describe the nodes a run does not reach.
    ("parse_node_records", lambda text: _node_sources.parse_node_records(text, text),
     ["NodeName=DEFAULT Weight=2\nNodeName=gpu[01-04] NodeAddr=10.0.0.1 CPUs=8 Sockets=1 CoresPerSocket=8 "
      "ThreadsPerCore=1 RealMemory=9000 Gres=gpu:a100:4 Features=a,b State=UNKNOWN\n"
      "NodeName=gpu[01-04] Name=gpu Type=a100 File=/dev/nvidia[0-3] Cores=0-7\n"], _node_sources.NodeSourceError, False),
    ("parse_topology_places", _node_sources.parse_topology_places,
     ["SwitchName=leaf1 Nodes=gpu[01-02]\nSwitchName=spine Switches=leaf[1-2]\nBlockName=rack1 Nodes=gpu[03-04]\n"],
     _node_sources.NodeSourceError, False),
    # Second round (issue 34): the parsers and programs added since the first.
    ("parse_epoch", _clock.parse_epoch, ["1795481562.123456789\n", "1795481562\n"], _clock.ClockError, True),
    ("SLURM_JOB_GPUS", lambda text: _health.job_gpu_minors(text, list(range(8))), ["0,2,7"], (), False),
    ("drain reason in Slurm", _drain_decision,
     ["gpuops-health: xid: XID 79 on GPU 0000:3b:00 [root@2026-11-24T10:00:00]", "fan broken [admin@2026-11-24T10:00:00]"],
     (), False),
    ("restart record", lambda text: _slurm_model.restart_plan(text, RESTART_RECORD, ["SlurmctldPort"], True, True),
     [json.dumps(dict(RESTART_RECORD, settings={"SlurmctldPort": 6818}))], (), True),
    ("restart record, one node's view (issue 43)", lambda text: _slurm_model.restart_plan(
        text, RESTART_RECORD, ["SlurmctldPort"], True, True, {"name": "gpu01", "compute": True}, "24.11"),
     [json.dumps(dict(RESTART_RECORD, settings={"SlurmctldPort": 6818}))], (), True),
    ("slurm_restart_batch", _slurm_model.restart_batch_errors, ["16", "0", "-1"], (), True),
    ("validate_slurm_checks", lambda text: _validate_checks.slurm_node_checks({"rc": 0, "stdout": text}, SLURM_NODES),
     _read("scontrol/*.txt") + _read("health/scontrol/*.txt"), (), True),
    ("validate node_checks: munge, chronyc, timedatectl", _node_checks_of,
     [UNMUNGE] + _read("chronyc/tracking-4.6-*.txt") + [TIMEDATECTL], (), True),
    ("validate allreduce_check", lambda text: _validate_checks.allreduce_check(
        "gpu01", "allreduce_single_node", {"rc": 0, "stdout": text}, 100.0, "8 GPUs", 0.8),
     _read("nccl-tests/*.txt")[:3], (), True),
    ("validate ib_write_bw_check", lambda text: _validate_checks.ib_write_bw_check(
        "a:mlx5_0->b:mlx5_0", {"rc": 0, "stdout": text}, 400, 0.8), _read("ib_write_bw/*.txt")[:3], (), True),
    ("kernel_module_version", _validate_checks.kernel_module_version,
     ["NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024\n"], (), False),
    ("cuda_version_from_dir", _env_modules.cuda_version_from_dir, ["/usr/local/cuda-12.8"], (), False),
    ("cuda_version_from_package", _env_modules.cuda_version_from_package, ["11.8.89~11.8.0-5~deb12u1", "1:12.4.131-2"],
     (), False),
    ("Prometheus duration", _monitoring.duration_seconds, ["1h30m", "30s", "2w3d"], (), False),
    ("mount options", lambda text: _shared_storage.mount_option_errors(_split(text), "shared_storage_mounts[0]"),
     ["hard,vers=4.2,x-systemd.mount-timeout=1min30s,x-systemd.idle-timeout=infinity,rsize=1048576"], (), False),
    ("export options", lambda text: _shared_storage.export_option_errors(_split(text), "shared_storage_exports[0]"),
     ["rw,sync,sec=krb5p:sys,refer=/a@nas1,fsid=root,anonuid=65534"], (), False),
    ("job environment", _torch_env_of, ["gpu[07-09,12],cpu1", "8(x4),2"], (), False),
    ("slurmctld log lines", lambda text: _slurm_model.log_errors(text.splitlines()),
     ["[2026-11-24T10:00:00.001] error: Unable to resolve \"gpu09\"\n[2026-11-24T10:00:01.000] fatal: bad config\n"],
     (), False),
    ("sacctmgr nothing to do", lambda text: _slurm_accounts.nothing_to_do(text, text), [" Nothing new added.\n"], (),
     False),
    ("chrony host name", _chrony.valid_host, ["ntp1.example.org", "fe80::1"], (), False),
    ("GPU exporter scrape", _gpu_scrape, _read("nvidia-smi-xml/*.xml")[:2], _gpu_facts.GpuFactsError, True),
] + [("Slurm exporter scrape: %s" % name, functools.partial(_slurm_scrape, name), [RECORDED[name]["out"]], (), True)
     for name in sorted(_slurm_metrics.COMMANDS)]
IDS = [row[0] for row in PARSERS]


def _hostile(text, kind):
    if kind == "huge-number":
        return re.sub(r"[0-9]+", HUGE_NUMBER, text, count=3)
    if kind == "huge-decimal":
        return re.sub(r"[0-9]+\.[0-9]+", "1e999", text, count=3)
    if kind == "not-utf8":
        return text[: len(text) // 2] + "\udcff\udcfe" + text[len(text) // 2:]
    if kind == "bytes":
        return as_bytes(text[: len(text) // 2] + "\udcff\udcfe" + text[len(text) // 2:])
    if kind == "nul":
        return text.replace("\n", "\x00\n", 3)
    if kind == "long-line":
        return text + "x" * 200000 + "\n"
    if kind == "digits-line":
        return text + "1" * 200000 + "a1\n"
    if kind == "spaces-line":
        # A key, 200,000 spaces and no separator: lazy 'Key  :' regexes backtracked quadratically.
        return text + "a" + " " * 200000 + "b\n"
    if kind == "digit-runs":
        # Each number grown by 40 digits and a letter: what made nested-repetition patterns backtrack exponentially.
        return re.sub(r"[0-9]+", lambda match: match.group(0) + "1" * 40 + "x", text, count=20)
    if kind == "bracket-run":
        # A deep run of brackets: recursion, and the patterns that scan from every bracket.
        return text + "[" * 100000 + "@" + "]" * 100000 + "\n"
    if kind == "bracket-pairs":
        # Many '[@' pairs: the drain reason's stamp pattern was cubic on them.
        return text + "[@" * 100000 + "]\n"
    raise AssertionError(kind)


def _check_result(name, result):
    """What a parser returns goes into JSON (module facts, filter results): no NaN, no infinity, no surrogate."""
    json.dumps(result, allow_nan=False, default=sorted).encode("utf-8")


def _call(name, function, data, own):
    """The parser's result, or its own exception (returned, not raised)."""
    try:
        result = function(data)
    except own as exc:
        return exc
    _check_result(name, result)
    return result


KINDS = ["huge-number", "huge-decimal", "not-utf8", "bytes", "nul", "long-line", "digits-line", "spaces-line",
         "digit-runs", "bracket-run", "bracket-pairs"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name, function, captures, own, explicit", PARSERS, ids=IDS)
def test_hostile_captures_raise_only_the_parsers_own_error(name, function, captures, own, explicit, kind):
    for text in captures:
        outcome, _elapsed = bounded(5, _call, name, function, _hostile(text, kind), own)
        if isinstance(outcome, Exception) and explicit:
            message = str(outcome)
            # The parser's own rules say what is wrong; the guard's catch-all is for what no rule foresaw.
            assert "cannot read this input" not in message, message
            assert len(message) < 1000, message[:200]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
@pytest.mark.parametrize("name, function, captures, own, explicit", PARSERS, ids=IDS)
def test_mutated_captures_raise_only_the_parsers_own_error(name, function, captures, own, explicit, data):
    text = data.draw(mutated(captures, HOSTILE_NOISE))
    _call(name, function, as_bytes(text) if explicit and data.draw(st.booleans()) else text, own)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
@pytest.mark.parametrize("name, function, captures, own, explicit", PARSERS, ids=IDS)
def test_arbitrary_text_and_bytes_raise_only_the_parsers_own_error(name, function, captures, own, explicit, data):
    _call(name, function, data.draw(hostile_text()), own)
    if explicit:
        _call(name, function, data.draw(st.binary(max_size=200)), own)


# --- parse_pci_devices: entries read from sysfs -------------------------------------

SYSFS_VALUE = st.one_of(st.none(), st.binary(max_size=12), st.text(max_size=12),
                        st.sampled_from([b"0x10de\n", b"0x030200\n", b"0x068000\n", "0x10de", b"\xff\xfe", HUGE_NUMBER]),
                        st.integers())
PCI_ENTRY = st.one_of(
    st.tuples(st.one_of(st.sampled_from(["0000:3b:00.0", "0000:3B:00.0", "00000000:18:00.0", "0000:3b:00.8"]),
                        st.text(max_size=16), st.binary(max_size=16)), SYSFS_VALUE, SYSFS_VALUE),
    st.lists(SYSFS_VALUE, max_size=4), st.none(), st.integers(), st.text(max_size=8))


@settings(max_examples=100, deadline=None)
@given(st.one_of(st.lists(PCI_ENTRY, max_size=8), st.none(), st.text(max_size=8), st.dictionaries(st.text(), st.text())))
def test_parse_pci_devices_never_raises(entries):
    result = _gpu_facts.parse_pci_devices(entries)
    assert sorted(result) == ["nvswitches", "pci_gpus"]
    _check_result("parse_pci_devices", result)
    facts = _gpu_facts.fabric_facts(result)
    assert facts["fabric_manager_needed"] == bool(facts["nvswitches"])


# --- slurm.conf settings: check_keys and render_lines -------------------------------------

SCALAR = st.one_of(st.none(), st.booleans(), st.integers(), st.integers(min_value=10 ** 18, max_value=10 ** 40),
                   st.floats(), hostile_text(max_size=30))
SETTING_KEY = st.one_of(hostile_text(max_size=30),
                        st.sampled_from(["SlurmctldPort", "slurmctldport", "NodeName", "FastSchedule", "ConstrainDevices",
                                         "x" * 500]))
SETTING_VALUE = st.one_of(SCALAR, st.lists(SCALAR, max_size=3), st.dictionaries(st.text(max_size=3), SCALAR, max_size=2))
SETTINGS = st.dictionaries(SETTING_KEY, SETTING_VALUE, max_size=6)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(SETTINGS, st.sampled_from(["slurm.conf", "cgroup.conf"]),
       st.one_of(st.sampled_from(["22.05.8", "24.11.5", "25.05.1", "17.02", "slurm 24.11." + HUGE_NUMBER]), hostile_text(20)))
def test_slurm_conf_check_and_render_give_lines_or_their_own_error(settings_, kind, version):
    try:
        messages = _slurm_conf.check_keys(settings_, kind, version, "slurm_config")
    except _slurm_conf.SlurmConfError as exc:
        assert len(str(exc)) < 1000
    else:
        assert all(message.startswith("slurm_config: ") and len(message) < 1000 for message in messages)
    try:
        lines = _slurm_conf.render_lines(settings_)
    except _slurm_conf.SlurmConfError as exc:
        assert len(str(exc)) < 1000
        return
    # One line per key that is set, none of which could end early or spill over in Slurm's reader.
    assert len(lines) == sum(1 for value in settings_.values() if value is not None)
    for line in lines:
        assert "=" in line and not set("\n\r\x00") & set(line)


# --- hostlist: linear time on long names and many names ---------------------------------


def _timed(function, *args):
    """(result, seconds) of function(*args), in CPU seconds of this process: what the function costs, not how busy
    the machine is (another process's load does not count), with the garbage collector held off while it runs."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        started = time.process_time()
        result = function(*args)
        return result, time.process_time() - started
    finally:
        if collecting:
            gc.enable()


def test_hostlist_compress_is_linear_on_long_digit_runs():
    # A long run of digits, then a non-digit and a last number, made the old
    # regex ^(.*?)([0-9]+)([^0-9]*)$ backtrack quadratically: 20,000 digits
    # took 3.8 s and 100,000 took 96 s; the scan from the end takes
    # milliseconds.
    names = ["1" * 100000 + "a1", "gpu" + "0" * 100000 + "1x-y", "n" + "7" * 100000]
    assert _timed(_hostlist.compress, names)[1] < 2
    assert _hostlist.compress(["1" * 100 + "a1", "1" * 100 + "a2"]) == "1" * 100 + "a[1-2]"


def test_hostlist_compress_time_grows_linearly_with_the_number_of_names():
    small = ["gpu%06d-ib" % number for number in range(6250)]
    large = ["gpu%06d-ib" % number for number in range(100000)]
    result, seconds = _timed(_hostlist.compress, large)
    assert result == "gpu[000000-099999]-ib"
    # 16 times the names: linear is about 16 times the CPU time, quadratic 256. The best of three small runs.
    small_seconds = min(_timed(_hostlist.compress, small)[1] for _run in range(3))
    assert seconds < 2 and seconds < 64 * max(small_seconds, 0.002), (seconds, small_seconds)


def test_hostlist_expand_is_linear_in_the_number_of_brackets():
    expression = "n[1-2]" + "x[7]" * 50000
    names, seconds = _timed(_hostlist.expand, expression)
    assert seconds < 2
    assert names == ["n1" + "x7" * 50000, "n2" + "x7" * 50000]


def test_huge_numbers_in_captures_are_named_not_int_errors():
    with pytest.raises(_gpu_facts.GpuFactsError) as info:
        _gpu_facts.parse_smi_list("GPU %s: NVIDIA H100 (UUID: GPU-1)\n" % HUGE_NUMBER)
    assert str(info.value) == ("nvidia-smi -L line 1: GPU index: the number 999999999999999999999999... has 5000 digits; "
                               "at most 18 are read")
    with pytest.raises(_gpu_facts.GpuFactsError) as info:
        _gpu_facts.parse_mig_minors("config 1\ngpu0/gi1/access %s\n" % HUGE_NUMBER)
    assert str(info.value) == ("mig-minors line 2: minor of 'gpu0/gi1/access': the number 999999999999999999999999... "
                               "has 5000 digits; at most 18 are read")
    with pytest.raises(_validate.ValidateError) as info:
        _validate.parse_chronyc_tracking("Reference ID : 0A000001 (ntp)\nSystem time : %s.5 seconds fast of NTP time\n"
                                         "Leap status : Normal\n" % ("9" * 400))
    assert str(info.value) == ("chronyc tracking: System time: the number 999999999999999999999999... has 402 characters; "
                               "at most 40 are read")
    with pytest.raises(_validate.ValidateError) as info:
        _validate.gres_gpu_count("gpu:a100:" + HUGE_NUMBER)
    assert str(info.value).startswith("Gres: count of 'gpu:a100:999")
    with pytest.raises(_host_probe.HostProbeError) as info:
        _host_probe.parse_rpm_query_details("slurm %s 23.11.4-1.el9\n" % HUGE_NUMBER, ["slurm"])
    assert str(info.value) == ("rpm -q line 1: epoch of 'slurm': the number 999999999999999999999999... has 5000 digits; "
                               "at most 18 are read")
    with pytest.raises(_slurm_accounts.SlurmAccountsError) as info:
        _accounts_plan(_assoc_line("chem", parent="root", share=HUGE_NUMBER) + "\n")
    assert str(info.value) == ("association row 1 (chem): Share: the number 999999999999999999999999... has 5000 digits; "
                               "at most 18 are read")
    topo = [text for text in _read("nvidia-smi-topo/*.txt") if "NV18" in text][0]
    with pytest.raises(_gpu_facts.GpuFactsError) as info:
        _gpu_facts.parse_topo(topo.replace("NV18", "NV" + HUGE_NUMBER, 1))
    assert str(info.value) == ("nvidia-smi topo -m: row GPU0 column GPU1: NVLink count: the number "
                               "999999999999999999999999... has 5000 digits; at most 18 are read")
    with pytest.raises(_gpu_facts.GpuFactsError) as info:
        _gpu_facts.parse_topo(topo.replace("0-47,96-143", "0-47,96-" + HUGE_NUMBER, 1))
    assert str(info.value) == ("nvidia-smi topo -m: row GPU0 CPU Affinity: bad CPU list '0-47,96-%s'...: CPU id above "
                               "65535" % ("9" * 52))
    # Where a number only sorts or compares, its size does not matter.
    assert _slurm_ops.parse_name_versions("slurm 24.11.%s\n" % HUGE_NUMBER) == {"slurm": "24.11." + HUGE_NUMBER}
    assert _slurm_accounts.wall_minutes(HUGE_NUMBER) is None
    assert _ib_facts.natural_key("mlx5_" + HUGE_NUMBER) > _ib_facts.natural_key("mlx5_10")


def test_undecodable_bytes_are_read_as_replacement_characters():
    xml = _read("nvidia-smi-xml/*.xml")[0]
    name = re.search(r"<product_name>([^<]*)</product_name>", xml).group(1)
    broken = as_bytes(xml.replace(name, name + "\udcff", 1))
    assert _gpu_facts.parse_smi_xml(broken)["gpus"][0]["name"] == name + u"\ufffd"
    assert _gpu_facts.parse_smi_xml(broken.decode("utf-8", "surrogateescape")) == _gpu_facts.parse_smi_xml(broken)
    assert _slurm_accounts.parse_parsable(b"caf\xe9|x\n", ["A", "B"]) == [{"a": u"caf\ufffd", "b": "x"}]
    assert _host_probe.parse_versionlock_list(b"nvidia-driver-3:535.154.05-1.el9.*\n\xff\n") == ["nvidia-driver", u"\ufffd"]
    assert _validate.parse_timedatectl_show(b"NTP=yes\nTimezone=\xffUTC\n")["fields"]["Timezone"] == u"\ufffdUTC"


def test_no_float_in_a_result_is_infinite():
    nccl = _read("nccl-tests/*.txt")[1]
    result = _validate.parse_nccl_tests(re.sub(r"Avg bus bandwidth\s*:\s*\S+", "Avg bus bandwidth : 1e999", nccl))
    assert result["avg_busbw"] is None
    assert all(math.isfinite(row["in_place"]["busbw"]) for row in result["rows"])


# --- Second round (issue 34): each input a site can write that hung or crashed a parser or settings check ----------
#
# Every call runs under cost.bounded: a call that uses more than its CPU budget is interrupted and fails the test
# (it does not hang the run).

ONE_SECOND = 1.0


def _health_settings(**changes):
    settings = {"checks": {}, "xid_drain": list(_health.DEFAULT_DRAIN_XIDS),
                "memory_drain": list(_health.DEFAULT_MEMORY_DRAIN), "nvidia_smi_timeout_s": 10, "kill_grace_s": 5,
                "kill_wait_s": 5, "kernel_log": "/dev/kmsg", "rdma_expected": "auto",
                "temp_slowdown_margin_c": 0}
    settings.update(changes)
    return settings


def test_a_mount_timeout_with_a_long_digit_run_is_refused_in_linear_time():
    # The timespan pattern ([0-9]+(\.[0-9]+)?\s?(us|...)?)+ backtracked exponentially: 26 digits and a letter took
    # 13 s, each further digit about twice as long.
    for option in ("x-systemd.mount-timeout=", "x-systemd.device-timeout=", "x-systemd.idle-timeout="):
        bad = option + "1" * 26 + "x"
        errors, seconds = bounded(ONE_SECOND, _shared_storage.mount_option_errors, [bad], "shared_storage_mounts[0]")
        assert errors == ["shared_storage_mounts[0]: bad value in %s" % bad], errors
        errors, seconds = bounded(ONE_SECOND, _shared_storage.mount_option_errors,
                                  [option + "1" * 100000 + "x"], "shared_storage_mounts[0]")
        assert len(errors) == 1 and errors[0].startswith("shared_storage_mounts[0]: bad value in " + option)
        assert len(errors[0]) < 200
    assert _shared_storage.mount_option_errors(["x-systemd.mount-timeout=1min30s", "x-systemd.idle-timeout=infinity",
                                                "x-systemd.device-timeout=1.5s", "x-systemd.mount-timeout=90"]) == []


@pytest.mark.parametrize("value", [float("inf"), float("-inf"), float("nan")], ids=["inf", "-inf", "nan"])
def test_an_alert_label_of_inf_or_nan_is_an_error_not_a_crash_of_the_rules(value):
    # prometheus_alert_extra_labels: {rack: .inf} passed the check, then alert_rules raised OverflowError (.nan:
    # ValueError) from int(value).
    errors, _seconds = bounded(ONE_SECOND, _alert_rules.alert_settings_errors, {"extra_labels": {"rack": value}})
    assert errors == ["prometheus_alert_extra_labels.rack is %r: give a string." % value]
    with pytest.raises(_alert_rules.AlertRulesError, match="prometheus_alert_extra_labels.rack"):
        _alert_rules.alert_rules({"extra_labels": {"rack": value}})


def test_one_node_with_an_unreadable_gres_fails_its_own_check_not_the_cluster():
    # Gres=gpu:a100:4(S:0-1 (the parenthesis unclosed) made gres_gpu_count raise outside the try that turns parse
    # errors into a failed check: validate_slurm_checks failed for the whole cluster.
    scontrol = ("NodeName=gpu01 State=IDLE Gres=gpu:a100:4(S:0-1 Partitions=gpu\n"
                "NodeName=gpu02 State=IDLE Gres=gpu:a100:4(S:0-1) Partitions=gpu\n")
    nodes = {"gpu01": {"host": "gpu01", "slurm_gres": "gpu:a100:4", "gpu_count": 4},
             "gpu02": {"host": "gpu02", "slurm_gres": "gpu:a100:4", "gpu_count": 4}}
    out, _seconds = bounded(ONE_SECOND, _validate_checks.slurm_node_checks, {"rc": 0, "stdout": scontrol}, nodes)
    results = dict(((item["node"], item["check"]), item) for item in out["results"])
    assert results[("gpu02", "slurmd_gres")]["status"] == "pass"
    assert out["gpu_counts"]["gpu02"] == 4
    bad = results[("gpu01", "slurmd_gres")]
    assert bad["status"] == "fail"
    assert bad["message"] == ("slurmctld reports Gres=gpu:a100:4(S:0-1 for gpu01, which cannot be read (Gres: "
                              "unbalanced parentheses: 'gpu:a100:4(S:0-1'): re-run playbooks/slurm.yml")
    assert results[("gpu01", "node_state")]["status"] == "pass"


def test_a_receiver_name_that_is_a_list_is_named_not_unhashable():
    # receivers: [{name: [ops]}] made monitoring_settings_errors fail with "unhashable type: 'list'".
    errors, _seconds = bounded(ONE_SECOND, _monitoring.settings_errors, {"receivers": [{"name": ["ops"]}]})
    assert errors == ["prometheus_alertmanager_receivers[0]: name ['ops'] is not a string: give each receiver a "
                      "name such as ops"]


def test_a_drain_reason_with_a_long_run_of_brackets_is_read_in_linear_time():
    # An admin's reason starting with gpuops-health: and holding [@ pairs made the stamp pattern
    # \s*\[[^\]]*@[^\]]*\]\s*$ cubic: 2,000 pairs took 3 s, 4,000 pairs 29 s (in a prolog).
    failed = [_validate_checks.result("gpu01", "xid", "fail", 79, [], "XID 79 on GPU 0000:3b:00")]
    for reason in ("gpuops-health: xid: " + "[@" * 100000, "gpuops-health: xid: " + "[" * 100000 + "@",
                   "gpuops-health: gpu_count: " + "[@]" * 50000 + " [root@2026-11-24T10:00:00]"):
        state = {"flags": ["drain"], "base_state": "idle", "reason": reason}
        decision, _seconds = bounded(ONE_SECOND, _health.decide, failed, state, "interval")
        assert decision["action"] in ("none", "drain")
    state = {"flags": ["drain"], "base_state": "idle", "reason": "gpuops-health: xid: XID 79 [root@2026-11-24T10:00:00]"}
    assert _health.decide(failed, state, "interval") == {"action": "none", "reason": "gpuops-health: xid: XID 79",
                                                         "why": "already drained for this"}


def test_numbers_past_the_int_limit_are_named_where_the_new_code_reads_them():
    # Each of these raised ValueError ("Exceeds the limit (4300 digits) for integer string conversion") from int().
    unmunge = ("STATUS:          Success (0)\nENCODE_HOST:     ctl (172.31.251.2)\n"
               "ENCODE_TIME:     2026-11-24 00:52:42 +0000 (%s)\n" % HUGE_NUMBER)
    with pytest.raises(_validate.ValidateError, match="unmunge: ENCODE_TIME: the number 9999.* has 5000 digits"):
        bounded(ONE_SECOND, _validate_checks.parse_unmunge, unmunge)
    assert bounded(ONE_SECOND, _health.job_gpu_minors, HUGE_NUMBER + ",1", [0, 1])[0] == [1]
    errors = bounded(ONE_SECOND, _health.settings_errors, _health_settings(nvidia_smi_timeout_s=HUGE_NUMBER))[0]
    assert errors == ["node_health_nvidia_smi_timeout_s is '%s...: give a whole number of seconds from 1 to 300."
                      % HUGE_NUMBER[:59]]
    errors = bounded(ONE_SECOND, _monitoring.settings_errors, {"scrape_interval": HUGE_NUMBER + "s",
                                                               "scrape_timeout": "10s"})[0]
    assert errors == ["prometheus_scrape_interval: '%s... is not a Prometheus duration: write it like 15s, 1m or 30d"
                      % HUGE_NUMBER[:59]]
    with pytest.raises(_gpu_plan.GpuPlanError, match=r"^cuda_versions: '12\.9{56}\.\.\. is not a version such as 12\.8$"):
        bounded(ONE_SECOND, _gpu_plan.cuda_plan, {"source": "nvidia", "versions": ["12.4", "12." + HUGE_NUMBER]})
    plan = bounded(ONE_SECOND, _gpu_plan.cuda_plan, {"source": "nvidia", "versions": ["12.4", "12." + "9" * 60]})[0]
    assert plan["default"] == "12.4"
    toolkits = bounded(ONE_SECOND, _env_modules.cuda_toolkits, {
        "cuda_dirs": ["/usr/local/cuda-12.8", "/usr/local/cuda-12." + HUGE_NUMBER],
        "files": ["/usr/local/cuda-12.8/bin/nvcc", "/usr/local/cuda-12.%s/bin/nvcc" % HUGE_NUMBER]})[0]
    assert [toolkit["version"] for toolkit in toolkits] == ["12.8"]
    assert _env_modules.cuda_version_from_package("12.%s.89-1" % HUGE_NUMBER) is None


def test_a_version_with_a_digit_int_cannot_read_is_not_a_crash():
    # "12.\u00b2" passes str.isdigit() and fails int(): cuda_plan raised ValueError.
    plan = bounded(ONE_SECOND, _gpu_plan.cuda_plan, {"source": "nvidia", "versions": ["12.4", u"12.\u00b2"]})[0]
    assert plan["default"] == "12.4"
    assert [toolkit["priority"] for toolkit in plan["toolkits"]] == [1204, 0]
    assert _env_modules.cuda_version_from_dir(u"/usr/local/cuda-12.\u00b2") is None
    assert _env_modules.cuda_version_from_dir(u"/usr/local/cuda-12.\u0668") is None


@pytest.mark.parametrize("settings, variable", [
    ({"pyxis_args": 5}, "slurm_containers_pyxis_args"),
    ({"pyxis_args": [{"importer": "/x"}]}, "slurm_containers_pyxis_args"),
    ({"pyxis_args": "importer=/x"}, "slurm_containers_pyxis_args"),
    ({"min_free_gib": "20G"}, "slurm_containers_min_free_gib"),
    ({"min_free_gib": float("nan")}, "slurm_containers_min_free_gib"),
], ids=["pyxis_args-int", "pyxis_args-list", "pyxis_args-text", "min_free_gib-20G", "min_free_gib-nan"])
def test_container_settings_of_the_wrong_type_are_named(settings, variable):
    base = {"enroot_src": "https://mirror/enroot.tar.gz", "enroot_sha256": "a" * 64,
            "pyxis_src": "https://mirror/pyxis.tar.gz", "pyxis_sha256": "b" * 64, "local_path": "/var/lib/enroot",
            "min_free_gib": 20, "pyxis_args": {}, "pyxis_plugin": "/usr/lib/spank_pyxis.so"}
    base.update(settings)
    facts = {"mounts": [{"mount": "/", "size_available": 100 * 1024 ** 3}], "slurm_version": "23.11.4-1"}
    plan, _seconds = bounded(ONE_SECOND, _slurm_containers.plan, base, facts)
    assert len(plan["errors"]) == 1 and plan["errors"][0].startswith(variable + ": "), plan["errors"]


def test_export_options_that_are_not_a_list_are_named():
    # export_options: 5 raised TypeError from list(5).
    settings = {"mode": "nfs", "exports": [{"path": "/shared", "clients": ["10.0.0.0/24"]}], "export_options": 5,
                "mounts": [], "mount_options": "hard"}
    plan, _seconds = bounded(ONE_SECOND, _shared_storage.plan, settings, ["ctl"], [], {})
    assert plan["errors"] == [
        "shared_storage_export_options must be a list of option strings such as [rw, sync], not 5",
        "shared_storage_mount_options must be a list of option strings such as [hard, noac], not 'hard'"]


def test_extra_scrape_configs_given_as_a_string_are_named():
    # prometheus_extra_scrape_configs: "- job_name: x" passed the check and became one scrape config per character.
    errors, _seconds = bounded(ONE_SECOND, _monitoring.settings_errors, {"extra_scrape_configs": "- job_name: x"})
    assert errors == ["prometheus_extra_scrape_configs must be a list of Prometheus scrape configs (mappings with "
                      "a job_name), not '- job_name: x'"]


@pytest.mark.parametrize("uid", [float("inf"), float("nan"), 1000.5, True, HUGE_NUMBER], ids=["inf", "nan", "1000.5",
                                                                                              "true", "huge"])
def test_a_uid_that_is_no_whole_number_is_the_accounts_own_error(uid):
    # uid: .inf raised OverflowError from int(); 1000.5 became uid 1000.
    users = [{"name": "slurm", "uid": uid, "group": "slurm", "home": "/var/lib/slurm", "shell": "/bin/false"}]
    with pytest.raises(_local_accounts.AccountsError, match="uid of user slurm must be a number from 0 to 4294967294"):
        bounded(ONE_SECOND, _local_accounts.normalise, [{"name": "slurm", "gid": 990}], users)


@pytest.mark.parametrize("state", [42, "x", [1, 2], {"boot_id": "boot-1", "counts": 42},
                                   {"boot_id": "boot-1", "counts": [42, None, {"count": "3"}], "open": [7, {"xid": []}]},
                                   {"boot_id": "boot-1", "open": 42, "position": [1]}, None],
                         ids=["int", "text", "list", "counts-int", "counts-items", "open-int", "none"])
def test_an_xid_state_file_of_the_wrong_shape_leaves_the_scrape_going(state):
    # xid.json holding 42 made every GPU exporter scrape fail (AttributeError) until the file changed.
    assert bounded(ONE_SECOND, _gpu_metrics.xid_samples, state)[0] == []
    fresh = bounded(ONE_SECOND, _health.xid_state, state, "boot-1", [{"xid": 79, "pci": "0000:3b:00", "detail": ""}],
                    [79])[0]
    assert fresh["open"] == [{"xid": 79, "pci": "0000:3b:00", "detail": ""}]
    assert fresh["counts"] == [{"pci": "0000:3b:00", "xid": 79, "count": 1}]


def test_health_state_files_of_the_wrong_shape_read_as_empty():
    assert _health.read_xid_state(42, "boot-1") == {"boot_id": "boot-1", "open": [], "counts": [], "position": {}}
    kept = {"boot_id": "boot-1", "open": [{"xid": 79, "pci": "p", "detail": "d"}, 42],
            "counts": [{"pci": "p", "xid": 79, "count": 2}, {"pci": "p", "xid": "79", "count": 1}],
            "position": {"kmsg_seq": HUGE_NUMBER}}
    assert _health.read_xid_state(kept, "boot-1") == {
        "boot_id": "boot-1", "open": [{"xid": 79, "pci": "p", "detail": "d"}],
        "counts": [{"pci": "p", "xid": 79, "count": 2}], "position": {}}
    assert _health.read_xid_state(kept, "boot-2")["open"] == []
    assert _health.read_stuck(42) == []
    assert _health.read_stuck([{"pid": 12, "start": "345", "why": "x"}, {"pid": "12"}, [1], {"pid": True}]) == [
        {"pid": 12, "start": "345", "why": "x"}]


@pytest.mark.parametrize("results", [[42], ["fail"], [None, {"check": "xid", "status": "fail"}], 42, {"a": 1}],
                         ids=["int", "text", "none-and-one", "not-a-list", "mapping"])
def test_a_last_json_whose_results_are_not_objects_is_read(results):
    # results: [42] made health_last_result raise AttributeError from item.get.
    record = {"node": "gpu01", "mode": "interval", "time": "2026-11-24T10:00:00+0000", "status": "fail",
              "results": results, "counts": 42, "reason": "gpuops-health: xid: XID 79", "action": "drain", "why": "x"}
    result, _seconds = bounded(ONE_SECOND, _validate_checks.health_last_result, "gpu01", record)
    assert result["status"] == "fail" and result["check"] == "health_last"
    record["status"] = "pass"
    assert _validate_checks.health_last_result("gpu01", record)["message"] == (
        "interval run at 2026-11-24T10:00:00+0000 passed (? checks, ? not run)")


def test_a_restart_record_of_deeply_nested_brackets_is_no_record():
    # json.loads of 100,000 nested brackets raised RecursionError through slurm_restart_plan.
    for text in ("[" * 100000 + "]" * 100000, '{"settings": ' + "[" * 100000 + "]" * 100000 + "}",
                 '{"settings": {"SlurmctldPort": ' + "[" * 900 + "]" * 900 + "}}"):
        changes, _seconds = bounded(ONE_SECOND, _slurm_model.restart_plan, text, {"settings": {}, "nodes": []},
                                    ["SlurmctldPort"], True, True)
        assert changes == ["no record of the settings the daemons run with"]


@pytest.mark.parametrize("data", [b"1795481562.123456789\n", 1795481562, None, ["1795481562"]],
                         ids=["bytes", "int", "none", "list"])
def test_parse_epoch_reads_its_input_as_every_parser_does(data):
    # parse_epoch skipped the as_text check: bytes, a number or a list raised TypeError from the regex.
    try:
        value, _seconds = bounded(ONE_SECOND, _clock.parse_epoch, data)
    except _clock.ClockError as exc:
        assert isinstance(data, (type(None), int, list)) and "date +%s.%N" in str(exc)
    else:
        assert isinstance(data, bytes) and value == pytest.approx(1795481562.123456789)


def test_the_gpu_job_map_reads_only_its_own_file_names():
    # A map file named with a digit int() refuses ("\u00b2.json" passes str.isdigit()) or 5,000 digits made
    # every GPU exporter scrape fail.
    files = {"3.json": {"job_id": "42"}, u"\u00b2.json": {"job_id": "1"}, HUGE_NUMBER + ".json": {"job_id": "2"},
             "4.json": None, "5.json": [1], "6.json.tmp": {"job_id": "3"}, "7.json\n": {"job_id": "4"}}
    assert bounded(ONE_SECOND, _gpu_metrics.job_map, files)[0] == {3: {"job_id": "42"}}
    assert _gpu_metrics.job_map(42) == {}


# --- the linear readers accept what the patterns they replace accepted (on inputs those could read in time) ---------

_OLD_TIMESPAN = re.compile(r"^(?:([0-9]+(\.[0-9]+)?\s?(us|ms|s|sec|min|m|h|hr|d)?)+|infinity)$")
_OLD_STAMP = re.compile(r"\s*\[[^\]]*@[^\]]*\]\s*$")
_OLD_GRES_SUFFIX = re.compile(r"\(.*?\)$")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789.smuhrdecinfty x\t", max_size=12))
def test_the_timespan_reader_accepts_what_the_nested_pattern_did(value):
    assert _shared_storage._timespan_ok(value) == bool(_OLD_TIMESPAN.match(value)), value


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="[]@ ab\t:", max_size=16))
def test_the_drain_stamp_is_found_where_the_cubic_pattern_found_it(reason):
    assert _health._strip_stamp(reason) == _OLD_STAMP.sub("", reason).strip(), reason


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="gpu:a1()S0-, ", max_size=24))
def test_gres_entries_are_compared_as_the_lazy_pattern_compared_them(text):
    old = sorted(item for item in (_OLD_GRES_SUFFIX.sub("", item.strip()) for item in text.split(","))
                 if item.startswith("gpu"))
    assert _validate_checks._gres_items(text) == old, text


def test_the_cpu_budget_interrupts_a_pattern_that_backtracks():
    # What makes every bound above fail fast instead of hanging: (a+)+$ on 40 a's and a b would take hours.
    started = time.process_time()
    with pytest.raises(pytest.fail.Exception, match="used more than 0.20 s of CPU time"):
        bounded(0.2, re.match, r"(a+)+$", "a" * 40 + "b")
    assert time.process_time() - started < 2
