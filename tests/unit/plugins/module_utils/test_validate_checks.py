# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The checks of playbooks/validate.yml over real captures (GPU_SOURCES.md,
IB_SOURCES.md, VALIDATE_SOURCES.md) and hand-written observations where no
capture exists (systemctl, unmunge, scontrol lines in Slurm's format)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import os

import pytest

from ansible_collections.gpuops.cluster.plugins.module_utils.fabric import _ib_facts
from ansible_collections.gpuops.cluster.plugins.module_utils.gpu import _gpu_facts
from ansible_collections.gpuops.cluster.plugins.module_utils.validate._clock import best_sample
from ansible_collections.gpuops.cluster.plugins.module_utils.validate._validate_checks import (
    expected_ports,
    ib_pairs,
    job_checks,
    multi_node_job_check,
    node_checks,
    parse_unmunge,
    perf_checks,
    slurm_node_checks,
    topology_checks,
    topology_placement_request,
)
from ansible_collections.gpuops.cluster.plugins.module_utils.validate._validate import ValidateError, parse_scontrol_topology
from ansible_collections.gpuops.cluster.plugins.module_utils.validate._validate_controllers import controller_checks, last_takeover
# A real `chronyc tracking` capture (its source: tests/fixtures/VALIDATE_SOURCES.md).
from ansible_collections.gpuops.cluster.tests.unit.plugins.module_utils.test_validate import CHRONY_PPS

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures")


def read(*parts):
    with open(os.path.join(FIXTURES, *parts)) as handle:
        return handle.read()


def gpus(xml, topo=None):
    smi = _gpu_facts.parse_smi_xml(read("nvidia-smi-xml", xml))
    parsed_topo = _gpu_facts.parse_topo(read("nvidia-smi-topo", topo)) if topo else None
    facts, _warnings = _gpu_facts.build_facts(smi, parsed_topo)
    facts["status"] = "ok"
    facts["pci_gpus"] = []
    return facts


def ib(capture):
    hcas, failed = _ib_facts.parse_ibstat(read("ibstat", capture))
    return _ib_facts.build_facts(hcas, failed)


UNMUNGE_OK = """STATUS:          Success (0)
ENCODE_HOST:     va-gpu01 (172.31.251.3)
ENCODE_TIME:     2026-11-22 10:00:00 +0000 (1795341600)
DECODE_TIME:     2026-11-22 10:00:01 +0000 (1795341601)
TTL:             300
CIPHER:          aes128 (4)
MAC:             sha256 (5)
ZIP:             none (0)
UID:             root (0)
GID:             root (0)
LENGTH:          0
"""

EXPECT = {"gpu_count": 2, "gpu_model": "RTX 2070", "rdma_expected": True, "ib_ports": [], "ib_rate_gbps": 0,
          "clock_max_skew_s": 2, "clock_max_offset_ms": 100, "peermem_module": "nvidia_peermem",
          "controller": "va-ctl"}


def container_node(**changes):
    data = {
        "node": "va-gpu01", "role": "compute", "gpu_host": True, "hardware": False, "container": True,
        "no_hardware_reason": "running in a docker container",
        "gpus": gpus("telegraf_dual_2070-v13.xml"),
        "ib": ib("gpud_a100_8xIB-1xRoCE_all-active.txt"),
        "modules": {"nvidia": False, "nvidia_peermem": False, "nv_peer_mem": False},
        "driver_proc_version": "",
        "services": {"munge": "active", "slurmd": "active"},
        "munge": {"encode_rc": 0, "stdout": UNMUNGE_OK, "stderr": ""},
        # Two reads as clock_sample took them on the validate scenario's containers (one shared kernel clock).
        "clock": {"offset_s": 0.0004, "rtt_s": 0.081, "samples": 5},
        "controller_clock": {"offset_s": -0.0021, "rtt_s": 0.077, "samples": 5},
        "timedatectl": {}, "chronyc": {},
    }
    data.update(changes)
    return data


def by_check(results):
    out = {}
    for entry in results:
        assert sorted(entry) == ["check", "expected", "measured", "message", "node", "status"]
        out[entry["check"]] = entry
    return out


def test_healthy_container_node():
    res = by_check(node_checks(container_node(), EXPECT))
    assert {k: v["status"] for k, v in res.items()} == {
        "gpu_count": "pass", "gpu_model": "pass", "driver_loaded": "not_run", "persistence_mode": "pass",
        "gpu_memory_errors": "not_run", "rdma_ports": "pass", "peermem_loaded": "not_run",
        "slurm_daemons": "pass", "munge": "pass", "clock": "pass"}
    assert res["gpu_count"]["message"] == ("nvidia-smi lists 2 GPU(s) (NVIDIA GeForce RTX 2070), the inventory "
                                           "expects 2 (validate_gpu_count)")
    assert res["driver_loaded"]["message"].startswith("running in a docker container: ")
    assert res["rdma_ports"]["measured"] == "9 of 9 Active at the expected rate"
    assert res["clock"]["measured"] == "+0.003 s"
    assert "time sync not checked: running in a docker container" in res["clock"]["message"]
    assert res["gpu_memory_errors"]["message"].startswith("the GPUs report no ECC")


def test_gpu_count_and_model_mismatch():
    data = container_node(gpus=gpus("datakit_gtx-1050_noheader.xml"))
    res = by_check(node_checks(data, EXPECT))
    assert res["gpu_count"]["status"] == "fail"
    assert res["gpu_count"]["message"] == ("nvidia-smi lists 1 GPU(s) (NVIDIA GeForce GTX 1050), the inventory "
                                           "expects 2 (validate_gpu_count)")
    assert res["gpu_model"]["message"] == "GPU model(s) NVIDIA GeForce GTX 1050 do not match 'RTX 2070' (validate_gpu_model)"


def test_no_nvidia_smi_fails_the_count():
    facts = {"status": "no_driver", "gpus": [], "count": 0, "pci_gpus": ["0000:01:00.0"]}
    res = by_check(node_checks(container_node(gpus=facts, hardware=True), EXPECT))
    assert res["gpu_count"]["status"] == "fail"
    assert res["gpu_count"]["message"] == "nvidia-smi did not list GPUs (gpu_facts status no_driver)"


def test_count_against_pci_bus_on_hardware_without_inventory_count():
    facts = gpus("datakit_8x-tesla-v100s-pcie-32gb.xml")
    facts["pci_gpus"] = ["0000:%02x:00.0" % i for i in range(7)]
    data = container_node(gpus=facts, hardware=True, container=False,
                          modules={"nvidia": True, "nvidia_peermem": True},
                          driver_proc_version="NVRM version: NVIDIA UNIX x86_64 Kernel Module  %s  Sun Nov 1 00:00:00 UTC 2020\n"
                          % facts["driver_version"],
                          timedatectl={"rc": 0, "stdout": "NTP=yes\nNTPSynchronized=yes\n"})
    res = by_check(node_checks(data, dict(EXPECT, gpu_count=0, gpu_model="")))
    assert res["gpu_count"]["message"] == "nvidia-smi lists 8 GPU(s), the PCI bus shows 7"
    assert res["gpu_count"]["status"] == "fail"
    assert res["driver_loaded"]["status"] == "pass"
    assert res["peermem_loaded"]["status"] == "pass"
    assert res["persistence_mode"]["message"] == "persistence mode is off on GPU 0,1,2,3,4,5,6,7: enable nvidia-persistenced"
    assert res["gpu_memory_errors"]["status"] == "pass"
    assert res["clock"]["status"] == "pass"
    assert "gpu_model" not in res


def test_driver_version_mismatch_and_modules_missing():
    facts = gpus("datakit_8x-tesla-v100s-pcie-32gb.xml")
    data = container_node(gpus=facts, hardware=True, container=False,
                          modules={"nvidia": True, "nvidia_peermem": False},
                          driver_proc_version="NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.183.01  Sun\n")
    res = by_check(node_checks(data, dict(EXPECT, gpu_count=8, gpu_model="")))
    assert res["driver_loaded"]["message"] == (
        "loaded kernel module 535.183.01 differs from the user-space driver %s: reload or reboot" % facts["driver_version"])
    assert res["peermem_loaded"]["status"] == "fail"
    data["modules"] = {"nvidia": False}
    res = by_check(node_checks(data, dict(EXPECT, gpu_count=8, gpu_model="")))
    assert res["driver_loaded"]["message"] == "the nvidia kernel module is not loaded (/sys/module/nvidia is missing)"


def test_memory_errors():
    facts = gpus("datakit_8x-tesla-v100s-pcie-32gb.xml")
    facts["gpus"][3]["ecc_uncorrectable"] = {"volatile": 2, "aggregate": 5}
    facts["gpus"][5]["retired_pages"] = {"single_bit": 1, "double_bit": 2, "pending": True}
    facts["gpus"][6]["remapped_rows"] = {"correctable": 0, "uncorrectable": 1, "pending": True, "failure": True}
    res = by_check(node_checks(container_node(gpus=facts), dict(EXPECT, gpu_count=8, gpu_model="")))
    assert res["gpu_memory_errors"]["status"] == "fail"
    assert res["gpu_memory_errors"]["message"] == (
        "GPU 3: 2 uncorrectable ECC error(s) (volatile); GPU 3: 5 uncorrectable ECC error(s) (aggregate); "
        "GPU 5: 3 retired page(s); GPU 5: page retirement pending (reset the GPU); "
        "GPU 6: 1 row(s) remapped for uncorrectable errors; GPU 6: row remapping pending (reset the GPU); "
        "GPU 6: row remapping failed (replace the GPU)")


def test_rdma_port_down_and_disabled_port_not_expected():
    data = container_node(ib=ib("linuxrdma_mlx4_2port_IB-Polling_Eth-Disabled.txt"))
    res = by_check(node_checks(data, EXPECT))
    assert res["rdma_ports"]["message"] == "ports not as expected: mlx4_0:1 Down/Polling"
    assert res["rdma_ports"]["expected"] == ["mlx4_0:1@10"] or res["rdma_ports"]["expected"][0].startswith("mlx4_0:1@")


def test_rdma_named_ports_and_rate():
    facts = ib("gpud_h100_8xIB-4xRoCE_3down.txt")
    res = by_check(node_checks(container_node(ib=facts), dict(EXPECT, ib_ports=["mlx5_0:1", "mlx5_2:1", "mlx5_12:1"])))
    assert res["rdma_ports"]["message"] == "ports not as expected: mlx5_2:1 Down/Disabled; mlx5_12:1 missing"
    res = by_check(node_checks(container_node(ib=facts), dict(EXPECT, ib_ports=["mlx5_0:1"], ib_rate_gbps=800)))
    assert res["rdma_ports"]["message"] == "ports not as expected: mlx5_0:1 at 400 Gb/s, expected 800"
    # Default: the RoCE 100G port is compared with its own link layer, the 3 disabled ports are left out.
    res = by_check(node_checks(container_node(ib=facts), EXPECT))
    assert res["rdma_ports"]["status"] == "pass"
    assert res["rdma_ports"]["measured"] == "9 of 9 Active at the expected rate"


def test_expected_ports_default_rate_per_link_layer():
    wanted = expected_ports(ib("gpud_h100_8xIB-4xRoCE_3down.txt"))
    assert ("mlx5_1:1", 100) in [(name, rate) for name, _port, rate in wanted]
    assert ("mlx5_0:1", 400) in [(name, rate) for name, _port, rate in wanted]
    assert "mlx5_2:1" not in [name for name, _port, _rate in wanted]


def test_rdma_required_without_hca_fails_and_auto_skips():
    none = _ib_facts.build_facts([], source="none")
    res = by_check(node_checks(container_node(ib=none), EXPECT))
    assert res["rdma_ports"]["status"] == "fail"
    assert res["rdma_ports"]["message"] == "ports not as expected: no RDMA port found"
    res = by_check(node_checks(container_node(ib=none), dict(EXPECT, rdma_expected="auto")))
    assert res["rdma_ports"]["status"] == "not_run"
    assert res["rdma_ports"]["message"] == "no RDMA device found (ib_facts: none)"


def test_munge_failures():
    res = by_check(node_checks(container_node(munge={"encode_rc": 1, "encode_stderr": "munge: Error: Failed to access socket"}), EXPECT))
    assert res["munge"]["message"] == "munge -n failed on va-gpu01: munge: Error: Failed to access socket"
    bad = UNMUNGE_OK.replace("Success (0)", "Invalid credential (15)")
    res = by_check(node_checks(container_node(munge={"encode_rc": 0, "stdout": bad}), EXPECT))
    assert res["munge"]["message"] == ("va-ctl rejects va-gpu01's credential: Invalid credential (15) "
                                       "(same munge key on both? clocks in sync?)")
    res = by_check(node_checks(container_node(munge={"encode_rc": 0, "stdout": "", "stderr": "unmunge: Error: Invalid credential"}), EXPECT))
    assert res["munge"]["message"] == "va-ctl could not decode va-gpu01's credential: unmunge: Error: Invalid credential"
    # The clock is read on its own (clock_sample), not from munge's timestamps.
    assert res["clock"]["status"] == "pass"


def reads(offset, round_trips, there=0.5):
    """best_sample of reads of a clock ``offset`` s off the reference, each with the given round trip, the clock
    read ``there`` of the way through it (a busy machine: long and lopsided round trips)."""
    start, taken = 1795341600.0, []
    for rtt in round_trips:
        taken.append((start, start + there * rtt + offset, start + rtt))
        start += rtt + 0.5
    return best_sample(taken)


def test_a_clock_30_s_off_fails():
    skewed = container_node(clock={"offset_s": 30.02, "rtt_s": 0.09, "samples": 5})
    res = by_check(node_checks(skewed, EXPECT))
    assert res["clock"]["status"] == "fail"
    assert res["clock"]["measured"] == "+30.022 s"
    assert res["clock"]["message"] == (
        "clock differs from va-ctl's by at least 29.939 s (30.022 s measured, less the 0.083 s the round "
        "trips allow; more than 2 s, validate_clock_max_skew_s): sync both with the same NTP servers (chrony); "
        "clock +30.022 s from va-ctl's (+/- 0.083 s: each read within one round trip); "
        "time sync not checked: running in a docker container, whose clock is the host kernel's")
    behind = container_node(clock={"offset_s": -29.98, "rtt_s": 0.09, "samples": 5})
    res = by_check(node_checks(behind, EXPECT))
    assert res["clock"]["status"] == "fail"
    assert res["clock"]["measured"] == "-29.978 s"


def test_a_clock_30_s_off_fails_however_busy_the_machine():
    # Reads of a node 30 s ahead, every round trip 2 to 6 s and lopsided: still a failure.
    node = reads(30.0, [6.0, 2.5, 4.0], there=0.9)
    controller = reads(0.0, [3.0, 2.0, 5.0], there=0.1)
    res = by_check(node_checks(container_node(clock=node, controller_clock=controller), EXPECT))
    assert res["clock"]["status"] == "fail"
    assert res["clock"]["message"].startswith("clock differs from va-ctl's by at least 29.550 s (31.800 s measured, less the 2.250 s")


def test_a_good_clock_passes_however_busy_the_machine():
    # The issue: on a busy machine Ansible took 8 s between the munge encode and decode, and the old check
    # saw 8 s of skew. Here a read took 8 s at best, answered late in its round trip: the bound takes it.
    slow_munge = UNMUNGE_OK.replace("(1795341601)", "(1795341608)")
    data = container_node(clock=reads(0.0, [12.0, 8.0, 9.5], there=0.95), controller_clock=reads(0.0, [7.0], there=0.05),
                          munge={"encode_rc": 0, "stdout": slow_munge, "stderr": ""})
    res = by_check(node_checks(data, EXPECT))
    assert res["clock"]["status"] == "pass"
    assert res["clock"]["measured"] == "+6.750 s"
    assert "(+/- 7.500 s: each read within one round trip)" in res["clock"]["message"]
    assert res["munge"]["status"] == "pass"


def test_a_busy_machine_widens_the_bound_but_does_not_fail_a_good_clock():
    # Under load one read took 8 s: the offset seen is off by up to 4 s, and so is the bound.
    busy = container_node(clock={"offset_s": 3.9, "rtt_s": 8.0, "samples": 5})
    res = by_check(node_checks(busy, EXPECT))
    assert res["clock"]["status"] == "pass"
    assert res["clock"]["measured"] == "+3.902 s"
    assert "(+/- 4.038 s: each read within one round trip)" in res["clock"]["message"]


@pytest.mark.parametrize("offset, rtt, status", [
    (2.5, 0.1, "fail"),   # 2.4 s at least: beyond 2 s
    (2.5, 1.2, "pass"),   # 1.9 s at least: could be within 2 s, not proven off
    (-2.5, 0.1, "fail"),
    (1.9, 0.0, "pass"),
])
def test_the_limit_is_applied_to_the_skew_less_the_round_trips(offset, rtt, status):
    data = container_node(clock={"offset_s": offset, "rtt_s": rtt, "samples": 1},
                          controller_clock={"offset_s": 0.0, "rtt_s": 0.0, "samples": 1})
    assert by_check(node_checks(data, EXPECT))["clock"]["status"] == status


def test_the_controller_is_the_reference():
    ctl = container_node(node="va-ctl", role="controller", gpu_host=False, services={"munge": "active", "slurmctld": "active"},
                         clock={"offset_s": -0.0021, "rtt_s": 0.077, "samples": 5})
    res = by_check(node_checks(ctl, dict(EXPECT, gpu_count=0)))
    assert res["clock"]["status"] == "pass"
    assert res["clock"]["measured"] == "+0.000 s"
    assert res["clock"]["message"].startswith("the clock the other hosts are compared with (read within a 0.077 s round trip)")


def test_time_sync():
    real = container_node(container=False, timedatectl={"rc": 0, "stdout": "NTP=yes\nNTPSynchronized=no\n"})
    res = by_check(node_checks(real, EXPECT))
    assert res["clock"]["status"] == "fail"
    assert res["clock"]["message"].startswith("the clock is not synchronized (start chrony or systemd-timesyncd)")
    real["timedatectl"] = {"rc": 1, "stdout": ""}
    res = by_check(node_checks(real, EXPECT))
    assert res["clock"]["message"].startswith("no time synchronization found")
    real["chronyc"] = {"rc": 0, "stdout": CHRONY_PPS}
    res = by_check(node_checks(real, EXPECT))
    assert res["clock"]["status"] == "pass"
    assert res["clock"]["message"].endswith("chrony: Normal, offset 0.000 ms")
    real["chronyc"] = {"rc": 0, "stdout": CHRONY_PPS.replace("0.000000072 seconds fast", "0.250000000 seconds fast")}
    res = by_check(node_checks(real, EXPECT))
    assert res["clock"]["status"] == "fail"
    assert res["clock"]["message"].startswith("chrony offset 250.000 ms exceeds 100 ms (validate_clock_max_offset_ms)")


def test_the_clusters_own_time_server_may_follow_its_local_clock():
    # Real captures of the controller chrony serves the nodes from (tests/fixtures/chronyc/SOURCES.md).
    for capture in ("tracking-4.3-local-server.txt", "tracking-4.6-local-server.txt"):
        real = container_node(container=False, chronyc={"rc": 0, "stdout": read("chronyc", capture)})
        res = by_check(node_checks(real, EXPECT))
        assert res["clock"]["status"] == "fail"
        assert res["clock"]["message"].startswith("the clock is not synchronized")
        res = by_check(node_checks(real, dict(EXPECT, clock_time_server=True)))
        assert res["clock"]["status"] == "pass", res["clock"]
        assert "chrony serves this host's own clock to the cluster" in res["clock"]["message"]
    # A node following that server is synchronized on its own terms.
    real = container_node(container=False, chronyc={"rc": 0, "stdout": read("chronyc", "tracking-4.6-client.txt")})
    assert by_check(node_checks(real, EXPECT))["clock"]["status"] == "pass"
    # Not synchronised at all is a failure even on the time server.
    unsynced = read("chronyc", "tracking-4.6-local-server.txt").replace(
        "Leap status     : Normal", "Leap status     : Not synchronised")
    real = container_node(container=False, chronyc={"rc": 0, "stdout": unsynced})
    assert by_check(node_checks(real, dict(EXPECT, clock_time_server=True)))["clock"]["status"] == "fail"


def test_a_clock_that_could_not_be_read_fails_with_the_reason():
    error = "date +%s.%N printed '1795341600.%N', not seconds since the epoch (GNU date is needed)"
    res = by_check(node_checks(container_node(clock=None, clock_error=error), EXPECT))
    assert res["clock"]["status"] == "fail"
    assert res["clock"]["measured"] is None
    assert res["clock"]["message"].startswith("the clock could not be read: " + error)
    res = by_check(node_checks(container_node(clock={"offset_s": "soon", "rtt_s": 0.1}), EXPECT))
    assert res["clock"]["status"] == "fail"
    assert res["clock"]["message"].startswith("no skew measured: the node's clock sample is missing or malformed")


def test_clock_not_measured_without_the_controllers_read_is_not_run_with_the_reason():
    res = by_check(node_checks(container_node(controller_clock=None), EXPECT))
    assert res["clock"]["status"] == "not_run"
    assert res["clock"]["message"] == ("no skew measured: va-ctl's clock was not read in this run (left out by --limit, "
                                       "or unreachable); time sync not checked: running in a docker container, whose "
                                       "clock is the host kernel's")
    # Not measured is never a pass, on real hardware either; a sync problem still fails.
    real = container_node(container=False, controller_clock=None, controller_clock_error="ssh: connect to host va-ctl",
                          timedatectl={"rc": 0, "stdout": "NTP=yes\nNTPSynchronized=yes\n"})
    res = by_check(node_checks(real, EXPECT))
    assert res["clock"]["status"] == "not_run"
    assert res["clock"]["message"].startswith("no skew measured: va-ctl's clock was not read in this run (ssh: connect")
    real["timedatectl"] = {"rc": 0, "stdout": "NTP=yes\nNTPSynchronized=no\n"}
    assert by_check(node_checks(real, EXPECT))["clock"]["status"] == "fail"


def test_services():
    res = by_check(node_checks(container_node(services={"munge": "active", "slurmd": "inactive"}), EXPECT))
    assert res["slurm_daemons"]["message"] == "not running: slurmd is inactive"
    ctl = container_node(role="controller", gpu_host=False, services={"munge": "failed", "slurmctld": "active"})
    res = by_check(node_checks(ctl, dict(EXPECT, gpu_count=0)))
    assert sorted(res) == ["clock", "munge", "slurm_daemons"]
    assert res["slurm_daemons"]["message"] == "not running: munge is failed"


def test_parse_unmunge():
    parsed = parse_unmunge(UNMUNGE_OK)
    assert parsed == {"status": "Success (0)", "success": True, "encode_time": 1795341600,
                      "decode_time": 1795341601, "encode_host": "va-gpu01 (172.31.251.3)"}
    with pytest.raises(ValidateError, match="no STATUS line"):
        parse_unmunge("garbage")
    with pytest.raises(ValidateError, match="unmunge: output must be text, got NoneType"):
        parse_unmunge(None)


SCONTROL = (
    "NodeName=va-gpu01 Arch=x86_64 CoresPerSocket=1 CPUAlloc=0 CPUEfctv=2 CPUTot=2 CPULoad=0.50 "
    "AvailableFeatures=(null) ActiveFeatures=(null) Gres=gpu:nvidia_geforce_rtx_2070:2 NodeAddr=va-gpu01 "
    "NodeHostName=va-gpu01 Version=22.05.8 OS=Linux 6.1.0-18-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01) "
    "RealMemory=22000 AllocMem=0 FreeMem=20000 Sockets=2 Boards=1 State=IDLE ThreadsPerCore=1 TmpDisk=0 Weight=1 "
    "Owner=N/A MCS_label=N/A Partitions=gpu BootTime=2026-11-22T09:00:00 SlurmdStartTime=2026-11-22T09:10:00 "
    "LastBusyTime=2026-11-22T09:10:00 CfgTRES=cpu=2,mem=22000M,billing=2,gres/gpu=2 AllocTRES= CapWatts=n/a "
    "CurrentWatts=0 AveWatts=0 ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s\n"
    "NodeName=va-gpu02 Arch=x86_64 CoresPerSocket=1 CPUAlloc=0 CPUEfctv=2 CPUTot=2 CPULoad=0.10 "
    "AvailableFeatures=(null) ActiveFeatures=(null) Gres=gpu:nvidia_geforce_rtx_2070:2 NodeAddr=va-gpu02 "
    "NodeHostName=va-gpu02 Version=22.05.8 OS=Linux 6.1.0-18-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01) "
    "RealMemory=22000 AllocMem=0 FreeMem=20000 Sockets=2 Boards=1 State=IDLE+DRAIN ThreadsPerCore=1 TmpDisk=0 Weight=1 "
    "Owner=N/A MCS_label=N/A Partitions=gpu BootTime=2026-11-22T09:00:00 SlurmdStartTime=2026-11-22T09:10:00 "
    "LastBusyTime=2026-11-22T09:10:00 CfgTRES=cpu=2,mem=22000M,billing=2,gres/gpu=2 AllocTRES= CapWatts=n/a "
    "CurrentWatts=0 AveWatts=0 ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s "
    "Reason=gpuops validate: gpu_count [root@2026-11-22T10:00:00]\n"
)
NODES = {
    "va-gpu01": {"host": "va-gpu01", "slurm_gres": "gpu:nvidia_geforce_rtx_2070:2", "gpu_count": 2},
    "va-gpu02": {"host": "va-gpu02", "slurm_gres": "gpu:nvidia_geforce_gtx_1050:1", "gpu_count": 1},
    "va-gpu03": {"host": "va-gpu03.example.org", "slurm_gres": "", "gpu_count": 0},
}


def test_slurm_node_checks():
    out = slurm_node_checks({"rc": 0, "stdout": SCONTROL, "stderr": ""}, NODES)
    assert out["usable"] == ["va-gpu01"]
    assert out["gpu_counts"] == {"va-gpu01": 2, "va-gpu02": 2}
    res = dict(((r["node"], r["check"]), r) for r in out["results"])
    assert res[("va-gpu01", "node_state")]["status"] == "pass"
    assert res[("va-gpu01", "slurmd_gres")]["status"] == "pass"
    assert res[("va-gpu02", "node_state")]["message"] == (
        "va-gpu02 is IDLE+DRAIN, reason: gpuops validate: gpu_count [root@2026-11-22T10:00:00]")
    assert res[("va-gpu02", "slurmd_gres")]["message"] == (
        "Slurm has Gres=gpu:nvidia_geforce_rtx_2070:2 (2 GPUs) but nvidia-smi shows gpu:nvidia_geforce_gtx_1050:1 "
        "(1 GPUs): re-run playbooks/slurm.yml")
    assert res[("va-gpu03.example.org", "node_state")]["message"].startswith("slurmctld does not know node va-gpu03")
    assert res[("va-gpu03.example.org", "slurmd_gres")]["status"] == "not_run"


def test_slurm_node_checks_when_scontrol_fails():
    out = slurm_node_checks({"rc": 1, "stdout": "", "stderr": "slurm_load_node error: Unable to contact slurm controller (connect failure)\n"}, NODES)
    assert out["usable"] == []
    assert out["results"] == [{"node": "cluster", "check": "slurm_nodes", "status": "fail", "measured": None, "expected": None,
                               "message": "scontrol show node failed (rc 1): slurm_load_node error: Unable to contact slurm "
                                          "controller (connect failure)"}]


def test_not_responding_node_is_not_usable():
    text = SCONTROL.replace("State=IDLE ", "State=IDLE* ", 1)
    out = slurm_node_checks(text, NODES)
    assert out["usable"] == []
    assert [r["message"] for r in out["results"] if r["node"] == "va-gpu01" and r["check"] == "node_state"] == [
        "va-gpu01 is IDLE*, no reason given"]


def test_job_checks():
    nodes = {"n1": {"host": "n1"}, "n2": {"host": "n2"}, "n3": {"host": "n3"}}
    launch_error = "srun: error: Task launch for StepId=5.0 failed on node n2: Communication connection failure\n"
    jobs = {"n1": {"rc": 0, "stdout": "n1\n", "stderr": ""},
            "n2": {"rc": 1, "stdout": "", "stderr": launch_error}}
    gres = {"n1": {"rc": 0, "stdout": "0,1\n"}, "n2": {"rc": 0, "stdout": "0\n"}}
    res = dict(((r["node"], r["check"]), r) for r in job_checks(nodes, ["n1", "n2"], jobs, gres, {"n1": 2, "n2": 2, "n3": 2}))
    assert res[("n1", "job")]["status"] == "pass"
    assert res[("n1", "gres_cuda_visible_devices")]["message"] == "--gres=gpu:2 sets CUDA_VISIBLE_DEVICES=0,1"
    assert res[("n2", "job")]["message"] == ("srun -w n2 hostname failed (rc 1): srun: error: Task launch for StepId=5.0 "
                                             "failed on node n2: Communication connection failure")
    assert res[("n2", "gres_cuda_visible_devices")]["status"] == "fail"
    assert res[("n3", "job")]["message"] == "no job sent: the node is not usable (see node_state)"
    assert res[("n3", "gres_cuda_visible_devices")]["status"] == "not_run"
    assert multi_node_job_check(["n1", "n2"], {"rc": 0, "stdout": "n1\nn2\n"})["status"] == "pass"
    assert multi_node_job_check(["n1", "n2"], {"rc": 1, "stdout": "n1\n", "stderr": "srun: error: n2: task 1: Exited"})["message"] == (
        "srun -N2 failed (rc 1), no answer from n2: srun: error: n2: task 1: Exited")
    assert multi_node_job_check(["n1"], {})["status"] == "not_run"
    timed_out = job_checks({"n1": {"host": "n1"}}, ["n1"], {"n1": {"rc": 124, "stdout": "", "stderr": "",
                                                                   "msg": "non-zero return code"}}, {}, {})
    assert timed_out[0]["message"] == ("srun -w n1 hostname failed (rc 124): no answer within the time limit "
                                       "(validate_job_timeout_s)")
    silent = job_checks({"n1": {"host": "n1"}}, ["n1"], {"n1": {"rc": 1, "stdout": "", "stderr": "",
                                                                "msg": "non-zero return code"}}, {}, {})
    assert silent[0]["message"] == "srun -w n1 hostname failed (rc 1): non-zero return code"


def entry(host, facts, ibf, skip=""):
    return {"host": host, "skip": skip, "hardware": not skip, "no_hardware_reason": skip, "gpus": facts, "ib": ibf}


def test_perf_not_run_without_hardware():
    facts = gpus("telegraf_dual_2070-v13.xml")
    entries = [entry("va-gpu01", facts, ib("gpud_a100_8xIB-1xRoCE_all-active.txt"), "running in a docker container"),
               entry("va-gpu02", facts, ib("gpud_a100_8xIB-1xRoCE_all-active.txt"), "running in a docker container")]
    res = perf_checks({"fraction": 0.8, "entries": entries, "ran": [], "enabled": True})
    assert [(r["node"], r["check"], r["status"]) for r in res] == [
        ("va-gpu01", "allreduce_single_node", "not_run"), ("va-gpu02", "allreduce_single_node", "not_run"),
        ("cluster", "allreduce_multi_node", "not_run"), ("cluster", "ib_write_bw", "not_run")]
    assert res[0]["message"] == "not run: running in a docker container"
    assert res[2]["message"] == "not run: 0 node(s) can run GPU benchmarks, 2 are needed"
    res = perf_checks({"fraction": 0.8, "entries": entries, "ran": [], "enabled": False})
    assert {r["message"] for r in res} == {"not run: validate_perf is false"}


def nccl(name):
    return read("nccl-tests", name)


def test_perf_single_node_judged_against_nvlink():
    # The V100S board's GPUs with the DGX-1 hybrid cube-mesh NVLinks (two captures of different machines).
    facts = gpus("datakit_8x-tesla-v100s-pcie-32gb.xml", "pytorch-ddp-readme_DGX1-8xV100_NV1-NV2_4xIB_oldformat.txt")
    run = {"rc": 0, "stdout": nccl("superbench_8xA100-SXM4-40GB_all_reduce_old-format_NA-error.txt")}
    res = perf_checks({"fraction": 0.8, "entries": [entry("n1", facts, {})], "ran": ["n1"],
                       "single_runs": {"n1": run}, "overrides": {"allreduce_single_node": 200.0}})
    single = res[0]
    assert single["check"] == "allreduce_single_node"
    assert single["expected"] == 200.0
    assert single["status"] in ("pass", "fail")
    assert isinstance(single["measured"], float)
    assert single["message"].startswith("bus bandwidth at ")
    high = perf_checks({"fraction": 0.8, "entries": [entry("n1", facts, {})], "ran": ["n1"],
                        "single_runs": {"n1": run}, "overrides": {"allreduce_single_node": 100000.0}})
    assert high[0]["status"] == "fail"
    assert "threshold 80%" in high[0]["message"]


def test_perf_expected_figure_derived_from_the_facts():
    facts = gpus("datakit_8x-tesla-v100s-pcie-32gb.xml", "pytorch-ddp-readme_DGX1-8xV100_NV1-NV2_4xIB_oldformat.txt")
    run = {"rc": 0, "stdout": nccl("superbench_8xA100-SXM4-40GB_all_reduce_old-format_NA-error.txt")}
    res = perf_checks({"fraction": 0.8, "entries": [entry("n1", facts, {})], "ran": ["n1"], "single_runs": {"n1": run}})
    # 6 NVLinks per V100 (NV1/NV2 to 4 peers) x 25 GB/s.
    assert res[0]["expected"] == 150.0
    assert "NVLink" in res[0]["message"]
    pcie = gpus("datakit_8x-tesla-v100s-pcie-32gb.xml")
    res = perf_checks({"fraction": 0.8, "entries": [entry("n1", pcie, {})], "ran": ["n1"], "single_runs": {"n1": run}})
    assert res[0]["expected"] == pytest.approx(15.76, abs=0.01)  # PCIe gen3 x16


def test_perf_multi_node_against_the_rdma_ports():
    facts = gpus("datakit_8x-tesla-v100s-pcie-32gb.xml")
    a100 = ib("gpud_a100_8xIB-1xRoCE_all-active.txt")
    run = {"rc": 0, "stdout": nccl("awsefaeks_2x-p4d-16xA100_efa_tag-output_max-error-column_section.txt")}
    entries = [entry("n1", facts, a100), entry("n2", facts, a100)]
    res = perf_checks({"fraction": 0.8, "entries": entries, "ran": ["n1", "n2"], "single_runs": {},
                       "multi_run": run})
    multi = [r for r in res if r["check"] == "allreduce_multi_node"][0]
    assert multi["expected"] == len(a100["selected"]) * 200 / 8.0
    assert multi["status"] in ("pass", "fail") and isinstance(multi["measured"], float)


def test_perf_failed_run_is_a_failure():
    facts = gpus("telegraf_dual_2070-v13.xml")
    run = {"rc": 1, "stdout": nccl("nccltests287_2x-rtx5090_all_reduce_test-nccl-failure.txt")}
    res = perf_checks({"fraction": 0.8, "entries": [entry("n1", facts, {})], "ran": ["n1"], "single_runs": {"n1": run}})
    assert res[0]["status"] == "fail"
    assert res[0]["message"].startswith("all_reduce_perf (rc 1): ")


def test_ib_pairs_ring_rail_by_rail():
    a100 = ib("gpud_a100_8xIB-1xRoCE_all-active.txt")
    entries = [{"host": h, "ib": a100} for h in ("n1", "n2", "n3")] + [{"host": "n4", "ib": {}}]
    pairs = ib_pairs(entries, ["n1", "n2", "n3", "n4"])
    assert len(pairs) == 3 * len(a100["selected"])
    assert pairs[0]["pair"] == "n1:%s->n2:%s" % (a100["selected"][0], a100["selected"][0])
    assert pairs[-1]["client"] == "n3" and pairs[-1]["server"] == "n1"
    assert all(p["rate_gbps"] == 200 for p in pairs)
    two = ib_pairs(entries, ["n1", "n2"])
    assert {(p["client"], p["server"]) for p in two} == {("n1", "n2")}
    assert ib_pairs(entries, ["n1", "n4"]) == []


def test_inputs_are_not_modified():
    data = container_node()
    before = copy.deepcopy(data)
    node_checks(data, EXPECT)
    assert data == before


def test_health_last_result():
    from ansible_collections.gpuops.cluster.plugins.module_utils.validate._validate_checks import health_last_result
    assert health_last_result("n", None)["status"] == "not_run"
    passed = {"mode": "interval", "time": "2026-11-24T10:00:00+0000", "status": "pass",
              "counts": {"pass": 8, "fail": 0, "not_run": 3}, "results": []}
    assert health_last_result("n", passed)["message"] == "interval run at 2026-11-24T10:00:00+0000 passed (8 checks, 3 not run)"
    failed = dict(passed, status="fail", reason="gpuops-health: xid: XID 79", action="drain", why="a check failed",
                  results=[{"check": "xid", "status": "fail"}, {"check": "gpu_count", "status": "pass"}])
    assert health_last_result("n", failed)["message"] == (
        "interval run at 2026-11-24T10:00:00+0000 failed xid: gpuops-health: xid: XID 79; drain (a check failed)")
    assert health_last_result("n", passed, 100, 300)["status"] == "pass"
    assert health_last_result("n", passed, 1000, 300)["message"] == (
        "the last interval run at 2026-11-24T10:00:00+0000, 1000 s ago, though slurmd should run the health check "
        "every 300 s: is slurmd running, and slurm.conf's HealthCheckProgram set?")
    error = {"mode": "prolog", "time": "t", "status": "error", "error": "KeyError: 'node'"}
    assert health_last_result("n", error)["status"] == "fail"


# --- topology (scontrol show topology as Slurm 22.05 and 24.11 print it) ----------

TREE_OUT = ("SwitchName=leaf1 Level=0 LinkSpeed=1 Nodes=va-gpu[01-02]\n"
            "SwitchName=leaf2 Level=0 LinkSpeed=1 Nodes=va-gpu[03-04]\n"
            "SwitchName=spine Level=1 LinkSpeed=1 Nodes=va-gpu[01-04] Switches=leaf[1-2]\n")
BLOCK_OUT = ("BlockName=rack1 BlockIndex=0 Nodes=va-gpu[01-02] BlockSize=2\n"
             "BlockName=rack2 BlockIndex=1 Nodes=va-gpu[03-04] BlockSize=2\n")
USABLE = ["va-gpu01", "va-gpu02", "va-gpu03", "va-gpu04"]


def test_parse_scontrol_topology_tree_and_block():
    tree = parse_scontrol_topology(TREE_OUT)
    assert tree["kind"] == "tree"
    assert tree["groups"][2] == {"name": "spine", "level": 1, "nodes": USABLE, "switches": ["leaf1", "leaf2"]}
    block = parse_scontrol_topology(BLOCK_OUT)
    assert block["kind"] == "block" and block["groups"][0]["nodes"] == ["va-gpu01", "va-gpu02"]
    assert parse_scontrol_topology("") == {"kind": None, "groups": []}
    with pytest.raises(ValidateError, match="both switches and blocks"):
        parse_scontrol_topology(TREE_OUT + BLOCK_OUT)
    with pytest.raises(ValidateError, match="unreadable hostlist"):
        parse_scontrol_topology("SwitchName=s1 Level=0 Nodes=a[3-1]")


def test_topology_checks_pass_when_the_job_keeps_to_one_leaf():
    run = {"rc": 0, "stdout": TREE_OUT}
    assert topology_placement_request(run, USABLE) == {"option": "--switches=1", "nodes": 2}
    out = topology_checks(run, USABLE, {"rc": 0, "stdout": "va-gpu03\nva-gpu04\n"})
    assert [(r["check"], r["status"]) for r in out] == [("topology", "pass"), ("job_topology", "pass")]
    assert out[0]["message"] == "topology/tree, 2 leaf switches: leaf1: va-gpu[01-02]; leaf2: va-gpu[03-04]"
    assert out[1]["message"] == "srun -N2 --switches=1 ran on va-gpu03,va-gpu04, both under leaf switch leaf2"


def test_topology_checks_fail_across_leaves_and_for_nodes_outside():
    run = {"rc": 0, "stdout": TREE_OUT}
    out = topology_checks(run, USABLE, {"rc": 0, "stdout": "va-gpu02\nva-gpu03\n"})
    assert out[1]["status"] == "fail" and "under leaf1,leaf2" in out[1]["message"]
    out = topology_checks(run, USABLE + ["va-gpu05"], {"rc": 0, "stdout": "va-gpu01\nva-gpu02\n"})
    assert out[0]["status"] == "fail" and out[0]["message"].startswith("va-gpu05 outside every leaf switch")
    blocks = topology_checks({"rc": 0, "stdout": BLOCK_OUT}, USABLE, {"rc": 0, "stdout": "va-gpu01\nva-gpu02\n"})
    assert [(r["check"], r["status"]) for r in blocks] == [("topology", "pass"), ("job_topology", "pass")]
    assert "--segment=2" in blocks[1]["message"]


def test_topology_checks_without_a_topology_say_why():
    out = topology_checks({"rc": 0, "stdout": ""}, USABLE, {"skipped": True})
    assert [(r["check"], r["status"]) for r in out] == [("topology", "not_run")]
    assert topology_placement_request({"rc": 0, "stdout": ""}, USABLE) == {}
    failed = topology_checks({"rc": 1, "stderr": "slurm_load_topo error: Unable to contact slurm controller"}, USABLE, None)
    assert failed[0]["status"] == "fail" and "Unable to contact" in failed[0]["message"]
    none = topology_checks({"rc": 1, "stderr": "scontrol: error: No topology information available"}, USABLE, None)
    assert [(r["check"], r["status"]) for r in none] == [("topology", "not_run")]
    one_each = "SwitchName=a Level=0 Nodes=va-gpu01\nSwitchName=b Level=0 Nodes=va-gpu02\n"
    out = topology_checks({"rc": 0, "stdout": one_each}, USABLE[:2], {"skipped": True})
    assert out[1]["status"] == "not_run" and out[1]["message"] == "no leaf switch holds 2 usable nodes"


# scontrol ping as 22.05.8 prints it with two controllers (the ha scenario), and the takeover line the
# backup's slurmctld.log had there.
PING_BOTH = "Slurmctld(primary) at ha-ctl1 is UP\nSlurmctld(backup) at ha-ctl2 is UP\n"
PING_BACKUP = ("Slurmctld(primary) at ha-ctl1 is DOWN\nSlurmctld(backup) at ha-ctl2 is UP\n"
               "*****************************************\n** RESTORE SLURMCTLD DAEMON TO SERVICE **\n"
               "*****************************************\n")
TAKEOVER_LOG = ("[2026-11-27T19:20:01.412] error: ControlMachine ha-ctl1 not responding, BackupController1 ha-ctl2 "
                "taking over\n[2026-11-27T19:41:13.007] error: ControlMachine ha-ctl1 not responding, "
                "BackupController1 ha-ctl2 taking over\n")
CONTROLLERS = ["ha-ctl1", "ha-ctl2"]


def _statuses(out):
    return [(r["node"], r["check"], r["status"]) for r in out]


def test_the_primary_in_control_passes():
    out = controller_checks({"rc": 0, "stdout": PING_BOTH}, CONTROLLERS)
    assert _statuses(out) == [("ha-ctl1", "slurmctld_ping", "pass"), ("ha-ctl2", "slurmctld_ping", "pass"),
                              ("cluster", "controller_in_control", "pass")]
    assert out[-1]["message"] == "the primary ha-ctl1 is in control; standing by: ha-ctl2"
    single = controller_checks({"rc": 0, "stdout": "Slurmctld(primary) at ctl is UP\n"}, ["ctl"])
    assert single[-1]["message"] == "the primary ctl is in control"


def test_a_backup_in_control_fails_with_the_time_it_took_over():
    out = controller_checks({"rc": 0, "stdout": PING_BACKUP}, CONTROLLERS, {"rc": 0, "stdout": TAKEOVER_LOG})
    assert _statuses(out) == [("ha-ctl1", "slurmctld_ping", "fail"), ("ha-ctl2", "slurmctld_ping", "pass"),
                              ("cluster", "controller_in_control", "fail")]
    assert out[-1]["measured"] == "ha-ctl2" and out[-1]["expected"] == "ha-ctl1"
    assert out[-1]["message"] == ("the backup ha-ctl2 is in control since 2026-11-27T19:41:13.007 (its log): ha-ctl1 "
                                  "down; bring the primary back (it takes control again when it starts)")
    unknown = controller_checks({"rc": 0, "stdout": PING_BACKUP}, CONTROLLERS, {"rc": 1, "stdout": ""})
    assert "(its log has no takeover line)" in unknown[-1]["message"]


def test_no_controller_answering_and_a_stale_slurm_conf_fail():
    down = controller_checks({"rc": 1, "stdout": PING_BACKUP.replace("is UP", "is DOWN")}, CONTROLLERS)
    assert down[-1]["status"] == "fail" and down[-1]["message"].startswith("no controller answers")
    stale = controller_checks({"rc": 0, "stdout": PING_BOTH}, ["ha-ctl1"])
    assert stale[-1]["message"] == ("slurm.conf names the controllers ha-ctl1, ha-ctl2, the inventory ha-ctl1: "
                                    "converge playbooks/slurm.yml")


@pytest.mark.parametrize("run", [{"rc": 1, "stdout": "", "stderr": "slurm_load_ctl_conf error"}, {}, None, "x"])
def test_ping_without_controller_lines_is_one_failure_with_the_reason(run):
    out = controller_checks(run, CONTROLLERS)
    assert _statuses(out) == [("cluster", "controller_in_control", "fail")]
    assert out[0]["message"].startswith("scontrol ping lists no controller")


def test_last_takeover():
    assert last_takeover(TAKEOVER_LOG) == "2026-11-27T19:41:13.007"
    assert last_takeover("") is None and last_takeover(None) is None
    assert last_takeover("Running as primary controller\n") is None
    with pytest.raises(ValidateError):
        last_takeover(["taking over"])
