# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""gpu_facts against a fake nvidia-smi that replays real captures (tests/fixtures/GPU_SOURCES.md)
and a CPU topology written into a temporary sysfs tree."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import stat

import pytest

from ansible.module_utils.common import warnings as module_warnings
from ansible.module_utils.testing import patch_module_args
from ansible_collections.gpuops.cluster.plugins.modules import gpu_facts

FIXTURES = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures"))
V100S_XML = os.path.join(FIXTURES, "nvidia-smi-xml", "datakit_8x-tesla-v100s-pcie-32gb.xml")
A100_XML = os.path.join(FIXTURES, "nvidia-smi-xml", "telegraf_a100-sxm4-v12.xml")
T4_XML = os.path.join(FIXTURES, "nvidia-smi-xml", "telegraf_tesla-t4.xml")
DGX1_TOPO = os.path.join(FIXTURES, "nvidia-smi-topo", "pytorch-ddp-readme_DGX1-8xV100_NV1-NV2_4xIB_oldformat.txt")
DGX_A100_LIST = os.path.join(FIXTURES, "nvidia-smi-L", "deepops_dgxa100-80g_mig_head10_cmdline-stripped.txt")

# DGX-1: 2 sockets x 20 Broadwell cores (core_id 0-4,8-12,16-20,24-28) x 2 threads.
BROADWELL_CORE_IDS = [0, 1, 2, 3, 4, 8, 9, 10, 11, 12, 16, 17, 18, 19, 20, 24, 25, 26, 27, 28]


@pytest.fixture(autouse=True)
def no_leftover_warnings():
    """Warnings are kept in a process-wide dict: start every test without those of the last."""
    module_warnings._global_warnings.clear()  # pylint: disable=protected-access
    yield
    module_warnings._global_warnings.clear()  # pylint: disable=protected-access


def make_sysfs(root):
    cpu_dir = root / "devices" / "system" / "cpu"
    cpu = 0
    for _thread in range(2):
        for socket in range(2):
            for core in BROADWELL_CORE_IDS:
                topo = cpu_dir / ("cpu%d" % cpu) / "topology"
                topo.mkdir(parents=True)
                (topo / "physical_package_id").write_text("%d\n" % socket)
                (topo / "core_id").write_text("%d\n" % core)
                cpu += 1
    # Entries that are not CPUs, and an offline CPU without topology, are skipped.
    (cpu_dir / "cpufreq").mkdir()
    (cpu_dir / "online").write_text("0-79\n")
    (cpu_dir / "cpu80").mkdir()
    return str(root)


def fake_smi(tmp_path, cases):
    """A shell script answering each argument string with (file to cat | None, text on stderr, exit code, sleep)."""
    lines = ["#!/bin/sh", 'case "$*" in']
    for number, (args, (path, err, rc)) in enumerate(cases.items()):
        body = []
        if args == "-q -x" and isinstance(path, float):
            body.append("sleep %s" % path)
            path = None
        if path:
            body.append("cat '%s'" % path)
        if err:
            err_file = tmp_path / ("stderr%d.txt" % number)
            err_file.write_text(err + "\n")
            body.append("cat '%s' >&2" % err_file)
        body.append("exit %d" % rc)
        lines.append('  "%s") %s ;;' % (args, "; ".join(body)))
    lines.append('  *) echo "unexpected: $*" >&2; exit 99 ;;')
    lines.append("esac")
    script = tmp_path / "nvidia-smi"
    script.write_text("\n".join(lines) + "\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


def warnings(result):
    """Warning texts (ansible-core 2.19 returns them as WarningSummary dicts)."""
    return [item["event"]["msg"] if isinstance(item, dict) else item for item in result.get("warnings", [])]


def run(capsys, args, check=False):
    with patch_module_args(dict(args, _ansible_check_mode=check)):
        with pytest.raises(SystemExit):
            gpu_facts.main()
    return json.loads(capsys.readouterr().out)


def test_8x_v100s_with_dgx1_topo_and_sysfs(tmp_path, capsys):
    # Two captures from different machines: the V100S box's -q -x and the DGX-1 topo -m.
    smi = fake_smi(tmp_path, {"-q -x": (V100S_XML, None, 0), "topo -m": (DGX1_TOPO, None, 0)})
    result = run(capsys, {"nvidia_smi": smi, "sysfs_root": make_sysfs(tmp_path / "sys")})
    assert result["changed"] is False
    assert "warnings" not in result
    facts = result["ansible_facts"]["gpuops_gpus"]
    assert facts["status"] == "ok"
    assert facts["count"] == 8
    assert (facts["driver_version"], facts["cuda_version"]) == ("460.73.01", "11.2")
    assert facts["slurm_gres"] == "gpu:tesla_v100s-pcie-32gb:8"
    assert facts["gres_conf"] == [
        "Name=gpu Type=tesla_v100s-pcie-32gb File=/dev/nvidia0 Cores=0-19 Links=-1,1,1,2,2,0,0,0",
        "Name=gpu Type=tesla_v100s-pcie-32gb File=/dev/nvidia1 Cores=0-19 Links=1,-1,2,1,0,2,0,0",
        "Name=gpu Type=tesla_v100s-pcie-32gb File=/dev/nvidia2 Cores=0-19 Links=1,2,-1,2,0,0,1,0",
        "Name=gpu Type=tesla_v100s-pcie-32gb File=/dev/nvidia3 Cores=0-19 Links=2,1,2,-1,0,0,0,1",
        "Name=gpu Type=tesla_v100s-pcie-32gb File=/dev/nvidia4 Cores=0-19 Links=2,0,0,0,-1,1,1,2",
        "Name=gpu Type=tesla_v100s-pcie-32gb File=/dev/nvidia5 Cores=0-19 Links=0,2,0,0,1,-1,2,1",
        "Name=gpu Type=tesla_v100s-pcie-32gb File=/dev/nvidia6 Cores=0-19 Links=0,0,1,0,1,2,-1,2",
        "Name=gpu Type=tesla_v100s-pcie-32gb File=/dev/nvidia7 Cores=0-19 Links=0,0,0,1,2,1,2,-1",
    ]
    assert facts["gpus"][7] == {
        "index": 7, "minor_number": 7, "uuid": "GPU-1d955959-c95b-4f40-2cac-100d3006ffe2", "name": "Tesla V100S-PCIE-32GB",
        "slurm_type": "tesla_v100s-pcie-32gb", "memory_mib": 32510, "pci_bus_id": "00000000:00:14.0", "numa_node": None,
        "mig_mode": None, "mig_devices": [], "cpu_affinity": "0-19,40-59", "numa_affinity": None, "cores": "0-19",
        "nvlinks": {"3": 1, "4": 2, "5": 1, "6": 2},
    }


def test_check_mode_gives_the_same_facts(tmp_path, capsys):
    smi = fake_smi(tmp_path, {"-q -x": (T4_XML, None, 0), "topo -m": (None, None, 0)})
    normal = run(capsys, {"nvidia_smi": smi})
    checked = run(capsys, {"nvidia_smi": smi}, check=True)
    assert checked["ansible_facts"] == normal["ansible_facts"]
    assert checked["changed"] is False


def test_topo_failing_still_returns_facts_with_a_warning(tmp_path, capsys):
    smi = fake_smi(tmp_path, {"-q -x": (V100S_XML, None, 0), "topo -m": (None, "topology: Not Supported", 2)})
    result = run(capsys, {"nvidia_smi": smi})
    facts = result["ansible_facts"]["gpuops_gpus"]
    assert facts["gres_conf"] == ["Name=gpu Type=tesla_v100s-pcie-32gb File=/dev/nvidia[0-7]"]
    assert facts["gpus"][0]["cpu_affinity"] is None
    assert facts["gpus"][0]["nvlinks"] == {}
    assert warnings(result) == [
        "nvidia-smi topo -m failed (rc 2: topology: Not Supported): gres.conf lines carry no Cores= and no Links="]


def test_topo_empty_output_warns(tmp_path, capsys):
    smi = fake_smi(tmp_path, {"-q -x": (T4_XML, None, 0), "topo -m": (None, None, 0)})
    result = run(capsys, {"nvidia_smi": smi})
    assert result["ansible_facts"]["gpuops_gpus"]["gres_conf"] == ["Name=gpu Type=tesla_t4 File=/dev/nvidia0"]
    assert warnings(result) == [
        "nvidia-smi topo -m: empty output: gres.conf lines carry no Cores= and no Links="]


def test_topo_of_another_size_and_missing_sysfs_warn(tmp_path, capsys):
    # The T4's -q -x (1 GPU) with the 8-GPU DGX-1 topo.
    smi = fake_smi(tmp_path, {"-q -x": (T4_XML, None, 0), "topo -m": (DGX1_TOPO, None, 0)})
    result = run(capsys, {"nvidia_smi": smi, "sysfs_root": str(tmp_path / "nosys")})
    assert result["ansible_facts"]["gpuops_gpus"]["gres_conf"] == ["Name=gpu Type=tesla_t4 File=/dev/nvidia0"]
    assert warnings(result) == [
        "nvidia-smi topo -m lists 8 GPUs but nvidia-smi -q -x 1: CPU affinity and NVLinks left out"]


def test_mig_listing_from_another_machine_fails(tmp_path, capsys):
    # The telegraf A100 (MIG) with the DGX A100 -L: the UUIDs differ.
    smi = fake_smi(tmp_path, {"-q -x": (A100_XML, None, 0), "topo -m": (None, None, 0), "-L": (DGX_A100_LIST, None, 0)})
    result = run(capsys, {"nvidia_smi": smi})
    assert result["failed"] is True
    assert result["msg"] == "gpu_facts: nvidia-smi -L does not list GPU 0 (GPU-513536b6-7d19-9063-b049-1e69664bb298)"


def test_mig_with_listing_and_mig_minors(tmp_path, capsys, monkeypatch):
    # The A100 capture's own -L was not published: this one is written for its UUID
    # (four 1g.20gb devices: 14 SMs and 19968 MiB each in the capture).
    listing = tmp_path / "list.txt"
    listing.write_text("GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-513536b6-7d19-9063-b049-1e69664bb298)\n"
                       + "".join("  MIG 1g.20gb     Device  %d: (UUID: MIG-a100-%d)\n" % (i, i) for i in range(4)))
    minors = tmp_path / "mig-minors"
    minors.write_text("config 1\nmonitor 2\ngpu1/gi3/access 165\ngpu1/gi3/ci0/access 166\n")
    monkeypatch.setattr(gpu_facts, "MIG_MINORS_PATH", str(minors))
    smi = fake_smi(tmp_path, {"-q -x": (A100_XML, None, 0), "topo -m": (None, "not supported", 3), "-L": (str(listing), None, 0)})
    result = run(capsys, {"nvidia_smi": smi})
    facts = result["ansible_facts"]["gpuops_gpus"]
    assert facts["slurm_gres"] == "gpu:nvidia_a100_1g.20gb:4"
    assert facts["gres_conf"] == [
        "Name=gpu Type=nvidia_a100_1g.20gb MultipleFiles=/dev/nvidia1,/dev/nvidia-caps/nvidia-cap165,/dev/nvidia-caps/nvidia-cap166",
        "Name=gpu Type=nvidia_a100_1g.20gb MultipleFiles=/dev/nvidia1",
        "Name=gpu Type=nvidia_a100_1g.20gb MultipleFiles=/dev/nvidia1",
        "Name=gpu Type=nvidia_a100_1g.20gb MultipleFiles=/dev/nvidia1",
    ]
    assert facts["gpus"][0]["mig_devices"][0]["uuid"] == "MIG-a100-0"


def test_mig_minors_unreadable_warns(tmp_path, capsys, monkeypatch):
    listing = tmp_path / "list.txt"
    listing.write_text("GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-513536b6-7d19-9063-b049-1e69664bb298)\n"
                       + "".join("  MIG 1g.20gb Device %d: (UUID: MIG-a100-%d)\n" % (i, i) for i in range(4)))
    monkeypatch.setattr(gpu_facts, "MIG_MINORS_PATH", str(tmp_path / "absent"))
    smi = fake_smi(tmp_path, {"-q -x": (A100_XML, None, 0), "topo -m": (None, None, 1), "-L": (str(listing), None, 0)})
    result = run(capsys, {"nvidia_smi": smi})
    assert result["ansible_facts"]["gpuops_gpus"]["gres_conf"] == ["Name=gpu Type=nvidia_a100_1g.20gb MultipleFiles=/dev/nvidia1"] * 4
    assert "cannot read %s (No such file or directory): MIG lines in gres.conf name only /dev/nvidiaN" % (
        tmp_path / "absent") in warnings(result)


def test_no_nvidia_smi_binary(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(gpu_facts.AnsibleModule, "get_bin_path", lambda self, name, required=False, opt_dirs=None: None)
    result = run(capsys, {})
    assert result["changed"] is False
    assert result["ansible_facts"]["gpuops_gpus"] == {
        "status": "no_nvidia_smi", "driver_version": None, "cuda_version": None, "count": 0, "gpus": [],
        "gres_conf": [], "slurm_gres": ""}


def test_no_devices(tmp_path, capsys):
    smi = fake_smi(tmp_path, {"-q -x": (None, "No devices were found", 6)})
    result = run(capsys, {"nvidia_smi": smi})
    assert "failed" not in result
    facts = result["ansible_facts"]["gpuops_gpus"]
    assert (facts["status"], facts["count"], facts["gres_conf"], facts["slurm_gres"]) == ("no_devices", 0, [], "")


def test_driver_not_loaded(tmp_path, capsys):
    message = ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
               "Make sure that the latest NVIDIA driver is installed and running.")
    smi = fake_smi(tmp_path, {"-q -x": (None, message, 9)})
    result = run(capsys, {"nvidia_smi": smi})
    assert "failed" not in result
    assert result["ansible_facts"]["gpuops_gpus"]["status"] == "no_driver"
    assert result["ansible_facts"]["gpuops_gpus"]["count"] == 0
    assert warnings(result) == ["nvidia-smi cannot talk to the NVIDIA driver (%s): reporting no GPUs" % message]


def test_nvidia_smi_error_fails_with_cmd_and_rc(tmp_path, capsys):
    smi = fake_smi(tmp_path, {"-q -x": (None, "Unable to determine the device handle for GPU0000:01:00.0: Unknown Error", 15)})
    result = run(capsys, {"nvidia_smi": smi})
    assert result["failed"] is True
    assert result["msg"] == ("nvidia-smi -q -x failed (rc 15): Unable to determine the device handle for GPU0000:01:00.0: "
                             "Unknown Error")
    assert result["cmd"] == "%s -q -x" % smi
    assert result["rc"] == 15


def test_unparseable_output_fails(tmp_path, capsys):
    truncated = tmp_path / "truncated.xml"
    with open(V100S_XML) as handle:
        truncated.write_text("".join(handle.readlines()[:5]))
    smi = fake_smi(tmp_path, {"-q -x": (str(truncated), None, 0)})
    result = run(capsys, {"nvidia_smi": smi})
    assert result["failed"] is True
    assert result["msg"] == "nvidia-smi -q -x: malformed XML (no element found: line 5, column 46)"
    assert result["rc"] == 0
    assert result["cmd"] == "%s -q -x" % smi


def test_timeout(tmp_path, capsys):
    smi = fake_smi(tmp_path, {"-q -x": (5.0, None, 0)})
    result = run(capsys, {"nvidia_smi": smi, "timeout": 1})
    assert result["failed"] is True
    assert result["msg"] == "nvidia-smi -q -x timed out after 1s (wedged GPU?)"
    assert result["rc"] == 124
    assert result["cmd"] == "%s -q -x" % smi


def test_explicit_path_that_is_not_executable(tmp_path, capsys):
    result = run(capsys, {"nvidia_smi": str(tmp_path / "nvidia-smi")})
    assert result["failed"] is True
    assert result["msg"] == "nvidia_smi: %s is not an executable file" % (tmp_path / "nvidia-smi")


def test_negative_timeout(tmp_path, capsys):
    result = run(capsys, {"nvidia_smi": fake_smi(tmp_path, {}), "timeout": -1})
    assert result["msg"] == "timeout must be 0 (no limit) or a number of seconds, got -1"


def test_read_cpu_topology(tmp_path):
    topology = gpu_facts._read_cpu_topology(make_sysfs(tmp_path / "sys"))  # pylint: disable=protected-access
    assert len(topology) == 80
    assert topology[0] == (0, 0)
    assert topology[5] == (0, 8)
    assert topology[20] == (1, 0)
    assert topology[79] == (1, 28)
    assert gpu_facts._read_cpu_topology(str(tmp_path / "nothing")) == {}  # pylint: disable=protected-access
