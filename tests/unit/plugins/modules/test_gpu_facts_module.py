# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""gpu_facts against a fake nvidia-smi that replays real captures (tests/fixtures/GPU_SOURCES.md),
a CPU topology written into a temporary sysfs tree, and PCI functions copied from the hand-built
trees under tests/fixtures/sysfs/handbuilt_*."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import shutil
import stat

import pytest

from ansible.module_utils.common import warnings as module_warnings
from ansible.module_utils.testing import patch_module_args
from ansible_collections.gpuops.cluster.plugins.module_utils.gpu import _gpu_collect
from ansible_collections.gpuops.cluster.plugins.modules import gpu_facts
from ansible_collections.gpuops.cluster.plugins.module_utils.gpu._gpu_facts import read_pci_devices

FIXTURES = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures"))
V100S_XML = os.path.join(FIXTURES, "nvidia-smi-xml", "datakit_8x-tesla-v100s-pcie-32gb.xml")
A100_XML = os.path.join(FIXTURES, "nvidia-smi-xml", "telegraf_a100-sxm4-v12.xml")
T4_XML = os.path.join(FIXTURES, "nvidia-smi-xml", "telegraf_tesla-t4.xml")
DGX1_TOPO = os.path.join(FIXTURES, "nvidia-smi-topo", "pytorch-ddp-readme_DGX1-8xV100_NV1-NV2_4xIB_oldformat.txt")
DGX_A100_LIST = os.path.join(FIXTURES, "nvidia-smi-L", "deepops_dgxa100-80g_mig_head10_cmdline-stripped.txt")
H100_TOPO = os.path.join(FIXTURES, "nvidia-smi-topo", "sglang30401_8xH100_NV18_8nic.txt")
# One H100 in a VM on driver 580.159.04, captured for this project: -q -x and topo -m of the same machine.
H100_580_XML = os.path.join(FIXTURES, "nvidia-smi-xml", "gpuops_h100-80gb-hbm3_580.159.04_tlimit-v13.xml")
H100_580_TOPO = os.path.join(FIXTURES, "nvidia-smi-topo", "gpuops_h100-80gb-hbm3_1gpu_ansi_vm_580.159.04.txt")
SYSFS_H100 = "handbuilt_hgx-h100-8gpu"
SYSFS_A100 = "handbuilt_hgx-a100-8gpu"
SYSFS_RTX = "handbuilt_pcie-rtx3090-workstation"
H100_PCI_GPUS = ["0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0", "0000:5d:00.0",
                 "0000:9a:00.0", "0000:ab:00.0", "0000:ba:00.0", "0000:db:00.0"]
H100_NVSWITCHES = ["0000:05:00.0", "0000:06:00.0", "0000:07:00.0", "0000:08:00.0"]
A100_PCI_GPUS = ["0000:07:00.0", "0000:0f:00.0", "0000:47:00.0", "0000:4e:00.0",
                 "0000:87:00.0", "0000:90:00.0", "0000:b7:00.0", "0000:bd:00.0"]
A100_NVSWITCHES = ["0000:c4:00.0", "0000:c5:00.0", "0000:c6:00.0", "0000:c7:00.0", "0000:c8:00.0", "0000:c9:00.0"]

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


def pci_sysfs(root, tree, links=False):
    """Copy a hand-built PCI tree under root/bus/pci/devices with the real names ('_' back to ':').

    With links, the functions live under root/devices/pci<domain>:<bus>/ and bus/pci/devices holds
    relative symbolic links to them, as on a real system.
    """
    source = os.path.join(FIXTURES, "sysfs", tree, "bus", "pci", "devices")
    devices = root / "bus" / "pci" / "devices"
    devices.mkdir(parents=True)
    for name in sorted(os.listdir(source)):
        address = name.replace("_", ":")
        if links:
            target = root / "devices" / ("pci" + address.rsplit(":", 1)[0]) / address
            shutil.copytree(os.path.join(source, name), str(target))
            os.symlink(os.path.relpath(str(target), str(devices)), str(devices / address))
        else:
            shutil.copytree(os.path.join(source, name), str(devices / address))
    return str(root)


def no_nvidia_smi(monkeypatch):
    monkeypatch.setattr(gpu_facts.AnsibleModule, "get_bin_path", lambda self, name, required=False, opt_dirs=None: None)


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
        # From the -q -x capture: ECC on with 0 double-bit errors, no retired pages, no row remapper (Volta).
        "persistence_mode": "disabled", "ecc_mode": "enabled", "ecc_uncorrectable": {"volatile": 0, "aggregate": 0},
        "retired_pages": {"single_bit": 0, "double_bit": 0, "pending": False}, "remapped_rows": None,
        "pcie_link": {"max_gen": 3, "current_gen": 3, "max_width": 16, "current_width": 16},
        # Volta: no <fabric> element.
        "fabric": None,
    }
    # The hybrid cube mesh is direct NVLink; this sysfs tree has no bus/pci.
    assert (facts["pci_gpus"], facts["nvswitches"]) == ([], [])
    assert (facts["nvlink_all_to_all"], facts["fabric_manager_needed"]) == (False, False)


def test_h100_580_with_its_own_topo(tmp_path, capsys):
    # Both outputs from one machine. Its CPU topology was not captured: a sysfs of 16 CPUs as one socket of
    # 16 cores (topo -m gives CPU Affinity 0-15) is written here, an assumption.
    for cpu in range(16):
        topo = tmp_path / "sys" / "devices" / "system" / "cpu" / ("cpu%d" % cpu) / "topology"
        topo.mkdir(parents=True)
        (topo / "physical_package_id").write_text("0\n")
        (topo / "core_id").write_text("%d\n" % cpu)
    smi = fake_smi(tmp_path, {"-q -x": (H100_580_XML, None, 0), "topo -m": (H100_580_TOPO, None, 0)})
    result = run(capsys, {"nvidia_smi": smi, "sysfs_root": str(tmp_path / "sys")})
    assert "warnings" not in result
    facts = result["ansible_facts"]["gpuops_gpus"]
    assert (facts["status"], facts["count"]) == ("ok", 1)
    assert (facts["driver_version"], facts["cuda_version"]) == ("580.159.04", "13.0")
    assert facts["slurm_gres"] == "gpu:nvidia_h100_80gb_hbm3:1"
    assert facts["gres_conf"] == ["Name=gpu Type=nvidia_h100_80gb_hbm3 File=/dev/nvidia0 Cores=0-15"]
    gpu = facts["gpus"][0]
    assert (gpu["uuid"], gpu["pci_bus_id"], gpu["memory_mib"], gpu["mig_mode"]) == (
        "GPU-104baf67-c9e7-9043-3448-86f3e2175141", "00000000:00:06.0", 81559, "disabled")


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
    monkeypatch.setattr(_gpu_collect, "MIG_MINORS_PATH", str(minors))
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
    monkeypatch.setattr(_gpu_collect, "MIG_MINORS_PATH", str(tmp_path / "absent"))
    smi = fake_smi(tmp_path, {"-q -x": (A100_XML, None, 0), "topo -m": (None, None, 1), "-L": (str(listing), None, 0)})
    result = run(capsys, {"nvidia_smi": smi})
    assert result["ansible_facts"]["gpuops_gpus"]["gres_conf"] == ["Name=gpu Type=nvidia_a100_1g.20gb MultipleFiles=/dev/nvidia1"] * 4
    assert "cannot read %s (No such file or directory): MIG lines in gres.conf name only /dev/nvidiaN" % (
        tmp_path / "absent") in warnings(result)


def test_no_nvidia_smi_binary(tmp_path, capsys, monkeypatch):
    no_nvidia_smi(monkeypatch)
    result = run(capsys, {"sysfs_root": str(tmp_path / "nosys")})
    assert result["changed"] is False
    assert "warnings" not in result
    assert result["ansible_facts"]["gpuops_gpus"] == {
        "status": "no_nvidia_smi", "error": None, "device_files": [], "driver_version": None, "cuda_version": None, "count": 0, "gpus": [],
        "gres_conf": [], "slurm_gres": "", "pci_gpus": [], "nvswitches": [], "nvlink_all_to_all": False,
        "fabric_manager_needed": False}


def test_no_nvidia_smi_on_an_hgx_h100_board(tmp_path, capsys, monkeypatch):
    # Before any driver: the GPUs and NVSwitch chips are on the PCI bus already.
    no_nvidia_smi(monkeypatch)
    result = run(capsys, {"sysfs_root": pci_sysfs(tmp_path / "sys", SYSFS_H100)})
    assert "warnings" not in result
    assert result["ansible_facts"]["gpuops_gpus"] == {
        "status": "no_nvidia_smi", "error": None, "device_files": [], "driver_version": None, "cuda_version": None, "count": 0, "gpus": [],
        "gres_conf": [], "slurm_gres": "", "pci_gpus": H100_PCI_GPUS, "nvswitches": H100_NVSWITCHES,
        "nvlink_all_to_all": False, "fabric_manager_needed": True}


def test_no_nvidia_smi_on_a_workstation(tmp_path, capsys, monkeypatch):
    # One PCIe GeForce (VGA class) and its HD audio function: a GPU host, no fabric.
    no_nvidia_smi(monkeypatch)
    result = run(capsys, {"sysfs_root": pci_sysfs(tmp_path / "sys", SYSFS_RTX, links=True)})
    facts = result["ansible_facts"]["gpuops_gpus"]
    assert (facts["status"], facts["count"]) == ("no_nvidia_smi", 0)
    assert (facts["pci_gpus"], facts["nvswitches"]) == (["0000:65:00.0"], [])
    assert (facts["nvlink_all_to_all"], facts["fabric_manager_needed"]) == (False, False)


def test_hgx_h100_board_end_to_end(tmp_path, capsys):
    # Three sources: the 8x V100S -q -x, the sglang 8x H100 NV18 topo and the hand-built HGX H100 PCI
    # tree (as symbolic links, like /sys). The tree has no CPU topology: no Cores=.
    smi = fake_smi(tmp_path, {"-q -x": (V100S_XML, None, 0), "topo -m": (H100_TOPO, None, 0)})
    result = run(capsys, {"nvidia_smi": smi, "sysfs_root": pci_sysfs(tmp_path / "sys", SYSFS_H100, links=True)})
    assert warnings(result) == ["CPU topology unknown: gres.conf lines carry no Cores="]
    facts = result["ansible_facts"]["gpuops_gpus"]
    assert (facts["status"], facts["count"]) == ("ok", 8)
    assert (facts["pci_gpus"], facts["nvswitches"]) == (H100_PCI_GPUS, H100_NVSWITCHES)
    assert (facts["nvlink_all_to_all"], facts["fabric_manager_needed"]) == (True, True)
    assert facts["gres_conf"][0] == "Name=gpu Type=tesla_v100s-pcie-32gb File=/dev/nvidia0 Links=-1,18,18,18,18,18,18,18"
    assert facts["gpus"][0]["nvlinks"] == dict(("%d" % peer, 18) for peer in range(1, 8))


def test_nvlink_all_to_all_without_nvswitch_on_the_pci_bus(tmp_path, capsys):
    # The NV18 topo alone (switches not on the PCI bus, e.g. HGX B200, or sysfs not mounted) is enough.
    smi = fake_smi(tmp_path, {"-q -x": (V100S_XML, None, 0), "topo -m": (H100_TOPO, None, 0)})
    result = run(capsys, {"nvidia_smi": smi, "sysfs_root": str(tmp_path / "nosys")})
    facts = result["ansible_facts"]["gpuops_gpus"]
    assert (facts["pci_gpus"], facts["nvswitches"]) == ([], [])
    assert (facts["nvlink_all_to_all"], facts["fabric_manager_needed"]) == (True, True)


def test_topo_failing_on_an_hgx_a100_board_still_needs_fabric_manager(tmp_path, capsys):
    # Without fabric manager running, an NVSwitch board's topology is often unusable: the PCI bus decides.
    smi = fake_smi(tmp_path, {"-q -x": (V100S_XML, None, 0), "topo -m": (None, "topology: Not Supported", 2)})
    result = run(capsys, {"nvidia_smi": smi, "sysfs_root": pci_sysfs(tmp_path / "sys", SYSFS_A100)})
    facts = result["ansible_facts"]["gpuops_gpus"]
    assert (facts["pci_gpus"], facts["nvswitches"]) == (A100_PCI_GPUS, A100_NVSWITCHES)
    assert (facts["nvlink_all_to_all"], facts["fabric_manager_needed"]) == (False, True)


def test_pci_garbage_is_skipped(tmp_path, capsys, monkeypatch):
    root = tmp_path / "sys"
    pci_sysfs(root, SYSFS_RTX)
    devices = root / "bus" / "pci" / "devices"
    for name, vendor, pci_class in [
        ("0000:66:00.0", "zzz\n", "0x030200\n"),      # vendor not a number
        ("0000:67:00.0", "0x10de\n", None),            # no class file
        ("0000:68:00.0", None, "0x068000\n"),          # no vendor file
        ("0000:69:00.0", "0x10de\n", "\x00\xff"),      # class not text
        ("not-a-function", "0x10de\n", "0x030200\n"),  # a name that is no PCI address
    ]:
        (devices / name).mkdir()
        if vendor is not None:
            (devices / name / "vendor").write_text(vendor)
        if pci_class is not None:
            (devices / name / "class").write_text(pci_class)
    (devices / "0000:6a:00.0").mkdir()
    (devices / "0000:6a:00.0" / "vendor").write_text("0x10de\n")
    (devices / "0000:6a:00.0" / "class").mkdir()                         # unreadable: a directory
    (devices / "0000:6b:00.0").write_text("0x10de\n")                   # a file, not a directory
    os.symlink(str(tmp_path / "gone"), str(devices / "0000:6c:00.0"))     # a dangling link
    no_nvidia_smi(monkeypatch)
    result = run(capsys, {"sysfs_root": str(root)})
    assert "failed" not in result and "warnings" not in result
    facts = result["ansible_facts"]["gpuops_gpus"]
    assert (facts["pci_gpus"], facts["nvswitches"], facts["fabric_manager_needed"]) == (["0000:65:00.0"], [], False)


def test_pci_devices_not_a_directory(tmp_path, capsys, monkeypatch):
    root = tmp_path / "sys"
    (root / "bus" / "pci").mkdir(parents=True)
    (root / "bus" / "pci" / "devices").write_text("")
    no_nvidia_smi(monkeypatch)
    facts = run(capsys, {"sysfs_root": str(root)})["ansible_facts"]["gpuops_gpus"]
    assert (facts["pci_gpus"], facts["nvswitches"]) == ([], [])


def test_no_devices(tmp_path, capsys):
    smi = fake_smi(tmp_path, {"-q -x": (None, "No devices were found", 6)})
    result = run(capsys, {"nvidia_smi": smi})
    assert "failed" not in result
    facts = result["ansible_facts"]["gpuops_gpus"]
    assert (facts["status"], facts["count"], facts["gres_conf"], facts["slurm_gres"]) == ("no_devices", 0, [], "")


def test_no_devices_while_the_pci_bus_has_one(tmp_path, capsys):
    # nvidia-smi sees no GPU (say it is bound to vfio-pci) but the PCI bus lists it.
    smi = fake_smi(tmp_path, {"-q -x": (None, "No devices were found", 6)})
    result = run(capsys, {"nvidia_smi": smi, "sysfs_root": pci_sysfs(tmp_path / "sys", SYSFS_RTX)})
    facts = result["ansible_facts"]["gpuops_gpus"]
    assert (facts["status"], facts["count"], facts["pci_gpus"], facts["fabric_manager_needed"]) == (
        "no_devices", 0, ["0000:65:00.0"], False)


def test_driver_not_loaded(tmp_path, capsys):
    message = ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
               "Make sure that the latest NVIDIA driver is installed and running.")
    smi = fake_smi(tmp_path, {"-q -x": (None, message, 9)})
    result = run(capsys, {"nvidia_smi": smi, "sysfs_root": pci_sysfs(tmp_path / "sys", SYSFS_A100)})
    assert "failed" not in result
    facts = result["ansible_facts"]["gpuops_gpus"]
    assert (facts["status"], facts["count"]) == ("no_driver", 0)
    assert (facts["pci_gpus"], facts["nvswitches"]) == (A100_PCI_GPUS, A100_NVSWITCHES)
    assert (facts["nvlink_all_to_all"], facts["fabric_manager_needed"]) == (False, True)
    assert warnings(result) == ["nvidia-smi cannot talk to the NVIDIA driver (%s): reporting no GPUs" % message]
    assert facts["error"] == message


def test_driver_library_mismatch_names_the_reason_and_the_device_files(tmp_path, capsys):
    # What nvidia-smi prints (rc 18) after a driver update without a reboot.
    message = "Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 535.216"
    smi = fake_smi(tmp_path, {"-q -x": (None, message, 18)})
    dev = tmp_path / "dev"
    dev.mkdir()
    (dev / "nvidia1").write_text("")  # a regular file is not a device: left out
    (dev / "nvidiactl").write_text("")
    result = run(capsys, {"nvidia_smi": smi, "dev_root": str(dev), "sysfs_root": str(tmp_path / "nosys")})
    facts = result["ansible_facts"]["gpuops_gpus"]
    assert (facts["status"], facts["count"], facts["slurm_gres"]) == ("no_driver", 0, "")
    assert facts["error"] == "Failed to initialize NVML: Driver/library version mismatch"
    assert facts["device_files"] == []


def test_driver_library_mismatch_printed_on_stdout(tmp_path, capsys):
    # nvidia-smi prints this on stdout, and exits 18.
    printed = tmp_path / "mismatch.txt"
    printed.write_text("Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 535.216\n")
    smi = fake_smi(tmp_path, {"-q -x": (str(printed), None, 18)})
    result = run(capsys, {"nvidia_smi": smi, "sysfs_root": pci_sysfs(tmp_path / "sys", SYSFS_H100)})
    assert "failed" not in result
    facts = result["ansible_facts"]["gpuops_gpus"]
    assert (facts["status"], facts["error"], facts["count"]) == (
        "no_driver", "Failed to initialize NVML: Driver/library version mismatch", 0)
    # The PCI bus still shows the GPUs nvidia-smi cannot see.
    assert (facts["pci_gpus"], facts["fabric_manager_needed"]) == (H100_PCI_GPUS, True)


def test_no_driver_reason_is_one_line_of_at_most_300_characters(tmp_path, capsys):
    reason = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver:" + "  x" * 400
    smi = fake_smi(tmp_path, {"-q -x": (None, reason, 9)})
    facts = run(capsys, {"nvidia_smi": smi})["ansible_facts"]["gpuops_gpus"]
    assert facts["status"] == "no_driver"
    assert len(facts["error"]) == 300 and facts["error"].endswith(" x x...") and "  " not in facts["error"]


def test_error_is_null_unless_the_driver_cannot_be_reached(tmp_path, capsys):
    smi = fake_smi(tmp_path, {"-q -x": (T4_XML, None, 0), "topo -m": (None, None, 0)})
    facts = run(capsys, {"nvidia_smi": smi})["ansible_facts"]["gpuops_gpus"]
    assert (facts["status"], facts["error"], facts["count"]) == ("ok", None, 1)
    smi = fake_smi(tmp_path, {"-q -x": (None, "No devices were found", 6)})
    facts = run(capsys, {"nvidia_smi": smi})["ansible_facts"]["gpuops_gpus"]
    assert (facts["status"], facts["error"]) == ("no_devices", None)


def test_output_that_is_not_utf8_is_read_with_replacement_characters(tmp_path, capsys):
    with open(T4_XML, "rb") as handle:
        data = handle.read()
    broken = tmp_path / "broken.xml"
    broken.write_bytes(data.replace(b"<product_name>Tesla T4", b"<product_name>Tesla T4 \xff\xfe", 1))
    smi = fake_smi(tmp_path, {"-q -x": (str(broken), None, 0), "topo -m": (None, None, 0)})
    facts = run(capsys, {"nvidia_smi": smi})["ansible_facts"]["gpuops_gpus"]
    assert facts["gpus"][0]["name"] == u"Tesla T4 \ufffd\ufffd"
    assert facts["slurm_gres"] == u"gpu:tesla_t4_\ufffd\ufffd:1"


def test_mig_minors_that_are_not_utf8_do_not_stop_the_module(tmp_path, capsys, monkeypatch):
    listing = tmp_path / "list.txt"
    listing.write_text("GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-513536b6-7d19-9063-b049-1e69664bb298)\n"
                       + "".join("  MIG 1g.20gb Device %d: (UUID: MIG-a100-%d)\n" % (i, i) for i in range(4)))
    minors = tmp_path / "mig-minors"
    minors.write_bytes(b"config 1\ngpu1/gi3/access 165\n\xff\xfe 7\n")
    monkeypatch.setattr(_gpu_collect, "MIG_MINORS_PATH", str(minors))
    smi = fake_smi(tmp_path, {"-q -x": (A100_XML, None, 0), "topo -m": (None, None, 1), "-L": (str(listing), None, 0)})
    result = run(capsys, {"nvidia_smi": smi})
    assert result["ansible_facts"]["gpuops_gpus"]["gres_conf"][0] == (
        "Name=gpu Type=nvidia_a100_1g.20gb MultipleFiles=/dev/nvidia1,/dev/nvidia-caps/nvidia-cap165")


def test_failure_output_is_cut_to_a_few_kilobytes(tmp_path, capsys):
    flood = tmp_path / "flood.txt"
    flood.write_text("".join("line %06d of a runaway nvidia-smi\n" % number for number in range(20000)))
    smi = fake_smi(tmp_path, {"-q -x": (str(flood), "Unknown Error " + "e" * 100000, 15)})
    result = run(capsys, {"nvidia_smi": smi})
    assert result["failed"] is True and result["rc"] == 15
    assert len(result["msg"]) < 400 and "\n" not in result["msg"]
    for stream in ("stdout", "stderr"):
        assert len(result[stream]) < 4200
        assert "characters left out" in result[stream]
    assert result["stdout"].startswith("line 000000 of") and result["stdout"].endswith("line 019999 of a runaway nvidia-smi\n")


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
    topology = _gpu_collect._read_cpu_topology(make_sysfs(tmp_path / "sys"))  # pylint: disable=protected-access
    assert len(topology) == 80
    assert topology[0] == (0, 0)
    assert topology[5] == (0, 8)
    assert topology[20] == (1, 0)
    assert topology[79] == (1, 28)
    assert _gpu_collect._read_cpu_topology(str(tmp_path / "nothing")) == {}  # pylint: disable=protected-access


def test_read_pci_devices(tmp_path):
    root = tmp_path / "sys"
    pci_sysfs(root, SYSFS_RTX, links=True)
    (root / "bus" / "pci" / "devices" / "0000:65:00.1" / "class").unlink()
    assert read_pci_devices(str(root)) == [
        ("0000:00:00.0", b"0x8086\n", b"0x060000\n"),
        ("0000:65:00.0", b"0x10de\n", b"0x030000\n"),
        ("0000:65:00.1", b"0x10de\n", None),
    ]
    assert read_pci_devices(str(tmp_path / "nothing")) == []
