# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parsers and gres.conf derivation of gpu_facts over real captures (tests/fixtures/GPU_SOURCES.md).

Every expected value below was written by hand from reading the capture it
belongs to. Where a test combines captures of different machines (no
published machine has all of -q -x, topo -m and -L), it says so. The
project's own H100 capture (driver 580.159.04) has all three of one machine.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import gzip
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.gpuops.cluster.plugins.module_utils.gpu._gpu_facts import (
    GpuFactsError,
    apply_mig_profiles,
    build_facts,
    compress_ranges,
    cpu_list,
    fabric_facts,
    gres_conf_lines,
    mig_slurm_type,
    normalize_pci_bus_id,
    nvlink_all_to_all,
    parse_mig_minors,
    parse_pci_devices,
    parse_smi_list,
    parse_smi_xml,
    parse_topo,
    slurm_cores,
    slurm_gres,
    slurm_type_name,
)

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures")


def fixture(subdir, name, binary=False):
    """A capture's text; NAME.gz holds a capture with CRLF line endings, gzipped byte for byte
    (ansible-test's line-endings sanity test rejects CR in text files)."""
    path = os.path.join(FIXTURES, subdir, name)
    opener = gzip.open if name.endswith(".gz") else open
    with opener(path, "rb") as handle:
        data = handle.read()
    return data if binary else data.decode("utf-8")


def xml(name):
    return fixture("nvidia-smi-xml", name)


def topo(name):
    return fixture("nvidia-smi-topo", name)


def listing(name):
    return fixture("nvidia-smi-L", name)


V100S_8X = "datakit_8x-tesla-v100s-pcie-32gb.xml"
A100_MIG = "telegraf_a100-sxm4-v12.xml"
DUAL_2070 = "telegraf_dual_2070-v13.xml"
T4 = "telegraf_tesla-t4.xml"
TOPO_H100 = "sglang30401_8xH100_NV18_8nic.txt"
TOPO_A100 = "oyanghd_8xA100-SXM4-40G_NV12_10nic_tabs.txt"
TOPO_DGX1 = "pytorch-ddp-readme_DGX1-8xV100_NV1-NV2_4xIB_oldformat.txt"
TOPO_ANSI = "nvgpuexp_h100-mig_1gpu_ansi_590.48.01.txt"
# One NVIDIA H100 80GB HBM3 in a VM, driver 580.159.04, captured for this project (-q -x, topo -m, -L).
H100_580 = "gpuops_h100-80gb-hbm3_580.159.04_tlimit-v13.xml"
TOPO_H100_580 = "gpuops_h100-80gb-hbm3_1gpu_ansi_vm_580.159.04.txt"
LIST_H100_580 = "gpuops_h100-80gb-hbm3_580.159.04.txt"
H100_580_UUID = "GPU-104baf67-c9e7-9043-3448-86f3e2175141"
H200_580 = "gpuops_h200_580.159.04_tlimit-v13.xml"
TOPO_H200_580 = "gpuops_h200_1gpu_ansi_vm_580.159.04.txt"
LIST_H200_580 = "gpuops_h200_580.159.04.txt"
H200_580_UUID = "GPU-db6393f9-0fae-95fd-661c-3e58efcf5a25"


def plain_gpu(index, minor, uuid, name, slurm_type, memory, bus, mig_mode=None, health=None, fabric=None):
    gpu = {"index": index, "minor_number": minor, "uuid": uuid, "name": name, "slurm_type": slurm_type,
           "memory_mib": memory, "pci_bus_id": bus, "numa_node": None, "mig_mode": mig_mode, "mig_devices": [],
           "fabric": fabric}
    gpu.update(health or {})
    return gpu


def link(max_gen, current_gen, max_width, current_width):
    return {"max_gen": max_gen, "current_gen": current_gen, "max_width": max_width, "current_width": current_width}


def retired(single_bit, double_bit, pending):
    return {"single_bit": single_bit, "double_bit": double_bit, "pending": pending}


def remapped(correctable, uncorrectable, pending, failure):
    return {"correctable": correctable, "uncorrectable": uncorrectable, "pending": pending, "failure": failure}


def health(persistence, ecc, volatile, aggregate, retired_pages, remapped_rows, pcie_link):
    """The health and PCIe link keys of one GPU of parse_smi_xml."""
    return {"persistence_mode": persistence, "ecc_mode": ecc,
            "ecc_uncorrectable": {"volatile": volatile, "aggregate": aggregate},
            "retired_pages": retired_pages, "remapped_rows": remapped_rows, "pcie_link": pcie_link}


# Health and PCIe link of every GPU of every -q -x capture, read by hand from the XML.
HEALTH = {
    # v11, ECC on, double_bit/total 0 (volatile and aggregate), retired_count 0/0, pending_blacklist and
    # pending_retirement No, remapped_rows N/A (Volta has no row remapper); all 8 GPUs alike.
    "datakit_8x-tesla-v100s-pcie-32gb.xml": [health("disabled", "enabled", 0, 0, retired(0, 0, False), None,
                                                    link(3, 3, 16, 16))] * 8,
    # GeForce: ECC, retired pages and remapped rows all N/A; an x16 card in an x8 link.
    "datakit_gtx-1050_noheader.xml": [health("enabled", None, None, None, None, None, link(3, 3, 16, 8))],
    # H100 on 580: v13 sram/dram counters 0, retired_count N/A (Hopper remaps rows), remapped_rows 0/0/No/No,
    # Gen5 x16 (query-ext.csv of the same capture: 5, 5, 16, 16).
    H100_580: [health("enabled", "enabled", 0, 0, None, remapped(0, 0, False, False), link(5, 5, 16, 16))],
    # The H200 on the same driver: retired_pages N/A (row remapping instead), remapped rows 0/0/No/No.
    H200_580: [health("enabled", "enabled", 0, 0, None, remapped(0, 0, False, False), link(5, 5, 16, 16))],
    # v12 sram/dram counters all 0; this A100 prints retired_pages and remapped_rows N/A.
    "telegraf_a100-sxm4-v12.xml": [health("disabled", "enabled", 0, 0, None, None, link(4, 4, 16, 16))],
    # v13 sram_uncorrectable_parity/secded and dram_uncorrectable all N/A; idle links at gen 1.
    "telegraf_dual_2070-v13.xml": [health("enabled", None, None, None, None, None, link(3, 1, 16, 8))] * 2,
    # Turing under driver 418: sram/dram counters (N/A on GeForce), no remapped_rows element at all.
    "telegraf_gtx-1660-ti.xml": [health("disabled", None, None, None, None, None, link(3, 1, 16, 16))],
    # v13 Blackwell workstation: ECC disabled, so the counters are N/A; remapped_rows 0/0/No/No.
    "telegraf_pro-6000-maxq-blackwell-v13.xml": [health("enabled", "disabled", None, None, None,
                                                        remapped(0, 0, False, False), link(4, 1, 16, 16))],
    "telegraf_quadro-p2000-v12.xml": [health("enabled", None, None, None, None, None, link(3, 1, 16, 8))],
    # Pascal under driver 418: double_bit layout, all N/A; no remapped_rows element.
    "telegraf_quadro-p400.xml": [health("disabled", None, None, None, None, None, link(3, 1, 16, 16))],
    # Windows driver: persistence_mode N/A.
    "telegraf_rtx-3080-v12.xml": [health(None, None, None, None, None, None, link(4, 4, 16, 16))],
    "telegraf_rtx-3080-v13.xml": [health("disabled", None, None, None, None, None, link(4, 4, 16, 16))],
    # Turing with ECC on: v11, sram/dram counters 0, retired_count 0/0, pending No.
    "telegraf_tesla-t4.xml": [health("disabled", "enabled", 0, 0, retired(0, 0, False), None, link(3, 3, 16, 8))],
}


# CPU topologies ({os cpu: (physical_package_id, core_id)}) of the machines the
# topo captures come from, as sysfs would describe them (written by hand).
def smt_topology(sockets, cores, core_ids=None):
    """Linux numbering: first thread of every core of every socket, then the SMT siblings."""
    core_ids = core_ids or list(range(cores))
    result = {}
    cpu = 0
    for _thread in range(2):
        for socket in range(sockets):
            for core in core_ids:
                result[cpu] = (socket, core)
                cpu += 1
    return result


# p5.48xlarge, 8x H100 (slurmd -C fixture: 2 sockets x 48 cores x 2 threads), the sglang box.
P5_CPUS = smt_topology(2, 48)
# 2x AMD EPYC 7742 (64 cores, SMT), the oyanghd box (NPS4: one NUMA node = 16 cores).
EPYC_CPUS = smt_topology(2, 64)
# DGX-1: 2x Xeon E5-2698 v4, 20 cores; Broadwell core_id values are not contiguous.
BROADWELL_CORE_IDS = [0, 1, 2, 3, 4, 8, 9, 10, 11, 12, 16, 17, 18, 19, 20, 24, 25, 26, 27, 28]
DGX1_CPUS = smt_topology(2, 20, BROADWELL_CORE_IDS)


# ---------------------------------------------------------------------------
# nvidia-smi -q -x

V100S_UUIDS = [
    "GPU-76098dc1-d3bc-9a1b-7ea6-f7b48837829e",
    "GPU-bbf7a241-bf9a-eb90-b2fb-d213294faf48",
    "GPU-8f75e71c-23dd-a060-d997-4caf592954db",
    "GPU-3181eb56-505c-8214-ba05-c132f68f89b8",
    "GPU-2aa87d54-d4ff-2900-812b-1a4b7e119583",
    "GPU-39c3a168-9034-0b5a-223a-1042f30a9242",
    "GPU-d2446f91-171e-1b54-515d-9d9b03484ddf",
    "GPU-1d955959-c95b-4f40-2cac-100d3006ffe2",
]
V100S_BUSES = ["00000000:00:0D.0", "00000000:00:0E.0", "00000000:00:0F.0", "00000000:00:10.0",
               "00000000:00:11.0", "00000000:00:12.0", "00000000:00:13.0", "00000000:00:14.0"]


def test_xml_8x_v100s_v11():
    assert parse_smi_xml(xml(V100S_8X)) == {
        "driver_version": "460.73.01",
        "cuda_version": "11.2",
        "attached_gpus": 8,
        "gpus": [plain_gpu(i, i, V100S_UUIDS[i], "Tesla V100S-PCIE-32GB", "tesla_v100s-pcie-32gb", 32510, V100S_BUSES[i],
                           health=HEALTH[V100S_8X][i])
                 for i in range(8)],
    }


def a100_mig_devices(files):
    return [{"index": i, "gpu_instance_id": gi, "compute_instance_id": 0, "multiprocessor_count": 14,
             "memory_mib": 19968, "profile": None, "uuid": None, "files": files}
            for i, gi in enumerate([3, 4, 5, 6])]


def test_xml_a100_mig_enabled_minor_differs_from_index_v12():
    # attached_gpus=4 but the contributor kept one <gpu>: minor 1 at index 0.
    assert parse_smi_xml(xml(A100_MIG)) == {
        "driver_version": "535.54.03",
        "cuda_version": "12.2",
        "attached_gpus": 4,
        "gpus": [dict({
            "index": 0, "minor_number": 1, "uuid": "GPU-513536b6-7d19-9063-b049-1e69664bb298",
            "name": "NVIDIA A100-SXM4-80GB", "slurm_type": "nvidia_a100-sxm4-80gb", "memory_mib": 81920,
            "pci_bus_id": "00000000:01:00.0", "numa_node": None, "mig_mode": "enabled",
            "mig_devices": a100_mig_devices(["/dev/nvidia1"]), "fabric": None,
        }, **HEALTH[A100_MIG][0])],
    }


def test_xml_dual_2070_v13_tabs():
    assert parse_smi_xml(xml(DUAL_2070)) == {
        "driver_version": "590.44.01",
        "cuda_version": "13.1",
        "attached_gpus": 2,
        "gpus": [
            plain_gpu(0, 0, "GPU-12345678-aaaa-bbbb-cccc-0123456789ab", "NVIDIA GeForce RTX 2070",
                      "nvidia_geforce_rtx_2070", 8192, "00000000:01:00.0", health=HEALTH[DUAL_2070][0]),
            plain_gpu(1, 1, "GPU-12345678-aaaa-bbbb-cccc-0123456789cd", "NVIDIA GeForce RTX 2070",
                      "nvidia_geforce_rtx_2070", 8192, "00000000:02:00.0", health=HEALTH[DUAL_2070][1]),
        ],
    }


@pytest.mark.parametrize("name, driver, cuda, gpu", [
    # no XML declaration, no DOCTYPE, starts at <nvidia_smi_log>
    ("datakit_gtx-1050_noheader.xml", "515.65.01", "11.7",
     plain_gpu(0, 0, "GPU-06e04616-0ed5-4069-5ebc-345349a0d4f3", "NVIDIA GeForce GTX 1050", "nvidia_geforce_gtx_1050",
               4096, "00000000:01:00.0")),
    # driver 418 (2019): no DOCTYPE, no <mig_mode> element at all
    ("telegraf_quadro-p400.xml", "418.43", "10.1",
     plain_gpu(0, 0, "GPU-8f750be4-dfbc-23b9-b33f-da729a536494", "Quadro P400", "quadro_p400", 1998, "00000000:43:00.0")),
    ("telegraf_gtx-1660-ti.xml", "418.43", "10.1",
     plain_gpu(0, 0, "GPU-304a277d-3545-63b8-3a36-dfde3c992989", "Graphics Device", "graphics_device", 5912,
               "00000000:43:00.0")),
    ("telegraf_tesla-t4.xml", "515.105.01", "11.7",
     plain_gpu(0, 0, "GPU-d37e67a5-91dd-3774-a5cb-99096249601a", "Tesla T4", "tesla_t4", 15360, "00000000:00:1E.0")),
    ("telegraf_quadro-p2000-v12.xml", "525.125.06", "12.0",
     plain_gpu(0, 0, "GPU-396caaed-39ca-3199-2e68-717cdb786ec6", "Quadro P2000", "quadro_p2000", 5120, "00000000:17:00.0")),
    # Windows driver: minor_number N/A
    ("telegraf_rtx-3080-v12.xml", "536.40", "12.2",
     plain_gpu(0, None, "GPU-19d6d965-2acc-f646-00f8-4c76979aabb4", "NVIDIA GeForce RTX 3080", "nvidia_geforce_rtx_3080",
               10240, "00000000:04:00.0")),
    # newest driver of the set (595, DTD v13)
    ("telegraf_rtx-3080-v13.xml", "595.58.03", "13.2",
     plain_gpu(0, 0, "GPU-19d6d965-2acc-f646-00f8-4c76979aabb4", "NVIDIA GeForce RTX 3080", "nvidia_geforce_rtx_3080",
               10240, "00000000:0C:00.0")),
    ("telegraf_pro-6000-maxq-blackwell-v13.xml", "590.44.01", "13.1",
     plain_gpu(0, 0, "GPU-12345678-aaaa-bbbb-cccc-0123456789ab", "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition",
               "nvidia_rtx_pro_6000_blackwell_max-q_workstation_edition", 97887, "00000000:61:00.0")),
    # The project's H100 on 580 (a VM: no numa_node); name, UUID, bus id and memory as query-base.csv and
    # /proc/driver/nvidia/gpus/0000:00:06.0/information of the same capture give them (Device Minor 0).
    (H100_580, "580.159.04", "13.0",
     plain_gpu(0, 0, H100_580_UUID, "NVIDIA H100 80GB HBM3", "nvidia_h100_80gb_hbm3", 81559, "00000000:00:06.0",
               mig_mode="disabled")),
    # The project's H200 on 580 (the device tool's VM), as nvidia-smi-csv.csv of the same capture gives it.
    (H200_580, "580.159.04", "13.0",
     plain_gpu(0, 0, H200_580_UUID, "NVIDIA H200", "nvidia_h200", 143771, "00000000:00:06.0", mig_mode="disabled")),
])
def test_xml_single_gpu_old_and_new_formats(name, driver, cuda, gpu):
    gpu = dict(gpu, **HEALTH[name][0])
    assert parse_smi_xml(xml(name)) == {"driver_version": driver, "cuda_version": cuda, "attached_gpus": 1, "gpus": [gpu]}


def test_xml_bytes_and_crlf_are_read():
    text = xml(T4)
    assert parse_smi_xml(text.replace("\n", "\r\n").encode("utf-8")) == parse_smi_xml(text)


TRUNCATED_V100S = "".join(xml(V100S_8X).splitlines(True)[:5])


@pytest.mark.parametrize("data, message", [
    ("", "nvidia-smi -q -x: empty output"),
    (b"  \n\t\n", "nvidia-smi -q -x: empty output"),
    # the first 5 lines; the trailing newline is stripped, so expat stops at the end of line 5
    (TRUNCATED_V100S, "nvidia-smi -q -x: malformed XML (no element found: line 5, column 46)"),
    (b"\x89PNG\r\n\x1a\n\x00\x00", "nvidia-smi -q -x: not XML, starts with '\ufffdPNG\\r\\n\\x1a\\n\\x00\\x00'"),
    ("No devices were found\n", "nvidia-smi -q -x: not XML, starts with 'No devices were found'"),
    ("<foo/>", "nvidia-smi -q -x: root element is 'foo', not nvidia_smi_log"),
    ("<!DOCTYPE l [<!ENTITY a 'aaaa'>]><nvidia_smi_log>&a;</nvidia_smi_log>",
     "nvidia-smi -q -x: entity declarations are not accepted"),
    ("<nvidia_smi_log><gpu id='00000000:01:00.0'><uuid>GPU-1</uuid></gpu></nvidia_smi_log>",
     "nvidia-smi -q -x: GPU 0 has no product_name"),
    ("<nvidia_smi_log><gpu><product_name>X</product_name><minor_number>x1</minor_number></gpu></nvidia_smi_log>",
     "nvidia-smi -q -x: GPU 0 minor_number is 'x1', not a number"),
    ("<nvidia_smi_log><gpu id='zz'><product_name>X</product_name></gpu></nvidia_smi_log>",
     "nvidia-smi -q -x: GPU 0: unreadable PCI bus id 'zz'"),
    ("<nvidia_smi_log><gpu><product_name>X</product_name><mig_devices><mig_device><index>0</index></mig_device>"
     "<mig_device><index>0</index></mig_device></mig_devices></gpu></nvidia_smi_log>",
     "nvidia-smi -q -x: GPU 0 lists MIG device 0 twice"),
    (42, "nvidia-smi -q -x: expected text, got int"),
])
def test_xml_bad_input(data, message):
    with pytest.raises(GpuFactsError) as err:
        parse_smi_xml(data)
    assert str(err.value) == message


def test_xml_binary_junk_starting_with_angle_bracket():
    with pytest.raises(GpuFactsError) as err:
        parse_smi_xml(b"<\x00\xff\xfe garbage")
    assert str(err.value).startswith("nvidia-smi -q -x: malformed XML (")
    assert "\n" not in str(err.value)


def test_xml_no_gpu_element():
    assert parse_smi_xml("<nvidia_smi_log><driver_version>550.1</driver_version><attached_gpus>0</attached_gpus>"
                         "</nvidia_smi_log>") == {"driver_version": "550.1", "cuda_version": None, "attached_gpus": 0, "gpus": []}


# ---------------------------------------------------------------------------
# nvidia-smi -q -x: health (ECC, retired pages, remapped rows) and PCIe link
#
# No public -q -x capture with nonzero retired pages, remapped rows or
# uncorrectable ECC errors was found (searched public code for retired_count,
# remapped_row_unc/corr/pending/failure and *_uncorrectable values other
# than 0 and N/A: only hand-written test strings of other projects): the
# captures above all show healthy or N/A counters. Nonzero values and garbage are tested
# with HAND-BUILT XML (hand_built_gpu below, element names and layouts as
# the captures print them) and with captures that have ONE value replaced
# (doctored); neither is a capture.

HEALTH_KEYS = ("persistence_mode", "ecc_mode", "ecc_uncorrectable", "retired_pages", "remapped_rows", "pcie_link")


def health_of(gpu):
    return dict((key, gpu[key]) for key in HEALTH_KEYS)


def test_health_table_covers_every_xml_capture():
    names = sorted(name for name in os.listdir(os.path.join(FIXTURES, "nvidia-smi-xml")) if name.endswith(".xml"))
    assert sorted(HEALTH) == names


@pytest.mark.parametrize("name, index", [(name, index) for name in sorted(HEALTH) for index in range(len(HEALTH[name]))])
def test_xml_health_and_pcie_link_of_the_captures(name, index):
    gpus = parse_smi_xml(xml(name))["gpus"]
    assert len(gpus) == len(HEALTH[name])
    assert health_of(gpus[index]) == HEALTH[name][index]


def hand_built_gpu(body):
    """HAND-BUILT, not a capture: one <gpu> holding body, parsed; its health keys."""
    text = "<nvidia_smi_log><gpu id=\"00000000:01:00.0\"><product_name>X</product_name>%s</gpu></nvidia_smi_log>" % body
    return health_of(parse_smi_xml(text)["gpus"][0])


def doctored(name, index, old, new):
    """A capture with the first `old` inside its index-th <gpu> element replaced by `new` (so no capture any more)."""
    parts = xml(name).split("<gpu id=")
    assert old in parts[index + 1]
    parts[index + 1] = parts[index + 1].replace(old, new, 1)
    return "<gpu id=".join(parts)


NO_LINK = link(None, None, None, None)


def test_hand_built_gpu_without_any_health_element():
    assert hand_built_gpu("") == health(None, None, None, None, None, None, NO_LINK)


def test_hand_built_old_layout_with_errors():
    # The Pascal/Volta layout (as in the V100S capture) with nonzero counts: double_bit/total is the uncorrectable count,
    # single_bit (corrected) is not counted; pending_retirement Yes.
    gpu = hand_built_gpu(
        "<persistence_mode>Enabled</persistence_mode>"
        "<ecc_mode><current_ecc>Enabled</current_ecc><pending_ecc>Enabled</pending_ecc></ecc_mode>"
        "<ecc_errors><volatile><single_bit><device_memory>7</device_memory><total>7</total></single_bit>"
        "<double_bit><device_memory>2</device_memory><texture_memory>N/A</texture_memory><total>2</total></double_bit>"
        "</volatile><aggregate><single_bit><total>40</total></single_bit><double_bit><total>5</total></double_bit>"
        "</aggregate></ecc_errors>"
        "<retired_pages><multiple_single_bit_retirement><retired_count>3</retired_count><retired_pagelist></retired_pagelist>"
        "</multiple_single_bit_retirement><double_bit_retirement><retired_count>1</retired_count></double_bit_retirement>"
        "<pending_blacklist>Yes</pending_blacklist><pending_retirement>Yes</pending_retirement></retired_pages>"
        "<remapped_rows>N/A</remapped_rows>")
    assert gpu == health("enabled", "enabled", 2, 5, retired(3, 1, True), None, NO_LINK)


def test_hand_built_v13_layout_sums_uncorrectable_counters_and_skips_na():
    # volatile: parity 1 + secded N/A + dram 4 = 5 (correctable counters 11 and 9 are not counted);
    # aggregate: every uncorrectable counter N/A -> None, not 0.
    gpu = hand_built_gpu(
        "<ecc_mode><current_ecc>Enabled</current_ecc></ecc_mode>"
        "<ecc_errors><volatile><sram_correctable>11</sram_correctable>"
        "<sram_uncorrectable_parity>1</sram_uncorrectable_parity><sram_uncorrectable_secded>N/A</sram_uncorrectable_secded>"
        "<dram_correctable>9</dram_correctable><dram_uncorrectable>4</dram_uncorrectable></volatile>"
        "<aggregate><sram_correctable>N/A</sram_correctable><sram_uncorrectable_parity>N/A</sram_uncorrectable_parity>"
        "<sram_uncorrectable_secded>N/A</sram_uncorrectable_secded><dram_correctable>N/A</dram_correctable>"
        "<dram_uncorrectable>N/A</dram_uncorrectable><sram_threshold_exceeded>No</sram_threshold_exceeded></aggregate>"
        "<aggregate_uncorrectable_sram_sources><sram_l2>6</sram_l2></aggregate_uncorrectable_sram_sources>"
        "</ecc_errors>")
    assert gpu["ecc_uncorrectable"] == {"volatile": 5, "aggregate": None}


@pytest.mark.parametrize("volatile, expected", [
    # v12 names: one N/A and one 0 counter is 0 (the N/A one is left out, the 0 is known).
    ("<sram_uncorrectable>N/A</sram_uncorrectable><dram_uncorrectable>0</dram_uncorrectable>", 0),
    ("<sram_uncorrectable>3</sram_uncorrectable><dram_uncorrectable>Not Supported</dram_uncorrectable>", 3),
    ("<sram_uncorrectable>N/A</sram_uncorrectable><dram_uncorrectable>[N/A]</dram_uncorrectable>", None),
    ("<sram_correctable>5</sram_correctable>", None),
    ("", None),
    # Not a known layout: an element holding others is no counter, whatever its name.
    ("<dram_uncorrectable>2</dram_uncorrectable><sram_uncorrectable_sources><l2>8</l2></sram_uncorrectable_sources>", 2),
    # double_bit present: the old layout decides, other counters are not added.
    ("<double_bit><total>N/A</total></double_bit><dram_uncorrectable>4</dram_uncorrectable>", None),
])
def test_hand_built_volatile_uncorrectable(volatile, expected):
    gpu = hand_built_gpu("<ecc_errors><volatile>%s</volatile></ecc_errors>" % volatile)
    assert gpu["ecc_uncorrectable"] == {"volatile": expected, "aggregate": None}


@pytest.mark.parametrize("body, expected", [
    ("<remapped_row_corr>2</remapped_row_corr><remapped_row_unc>1</remapped_row_unc>"
     "<remapped_row_pending>Yes</remapped_row_pending><remapped_row_failure>No</remapped_row_failure>",
     remapped(2, 1, True, False)),
    ("<remapped_row_corr>0</remapped_row_corr><remapped_row_unc>12</remapped_row_unc>"
     "<remapped_row_pending>false</remapped_row_pending><remapped_row_failure>True</remapped_row_failure>",
     remapped(0, 12, False, True)),
    ("<remapped_row_corr>N/A</remapped_row_corr><remapped_row_unc>3</remapped_row_unc>", remapped(None, 3, None, None)),
    ("<remapped_row_corr>N/A</remapped_row_corr><remapped_row_unc>N/A</remapped_row_unc>"
     "<remapped_row_pending>N/A</remapped_row_pending><remapped_row_failure>N/A</remapped_row_failure>", None),
    ("N/A", None),
])
def test_hand_built_remapped_rows(body, expected):
    assert hand_built_gpu("<remapped_rows>%s</remapped_rows>" % body)["remapped_rows"] == expected


@pytest.mark.parametrize("body, expected", [
    # Only the older name pending_blacklist.
    ("<pending_blacklist>Yes</pending_blacklist>", retired(None, None, True)),
    # pending_retirement N/A: pending_blacklist answers.
    ("<pending_blacklist>No</pending_blacklist><pending_retirement>N/A</pending_retirement>", retired(None, None, False)),
    # Both: pending_retirement wins.
    ("<pending_blacklist>No</pending_blacklist><pending_retirement>Yes</pending_retirement>", retired(None, None, True)),
    ("<double_bit_retirement><retired_count>4</retired_count></double_bit_retirement>", retired(None, 4, None)),
    ("N/A", None),
])
def test_hand_built_retired_pages(body, expected):
    assert hand_built_gpu("<retired_pages>%s</retired_pages>" % body)["retired_pages"] == expected


@pytest.mark.parametrize("gen, widths, expected", [
    # v12/v13 with current_link_gen missing: device_current_link_gen stands in. max_link_gen missing stays None:
    # max_device_link_gen is the GPU's own maximum, not what the host allows (the Blackwell capture: 5 vs 4).
    ("<device_current_link_gen>2</device_current_link_gen><max_device_link_gen>5</max_device_link_gen>"
     "<max_host_link_gen>4</max_host_link_gen>",
     "<max_link_width>16x</max_link_width><current_link_width>4x</current_link_width>", link(None, 2, 16, 4)),
    ("<max_link_gen>5</max_link_gen><current_link_gen>N/A</current_link_gen>"
     "<device_current_link_gen>5</device_current_link_gen>",
     "<max_link_width>N/A</max_link_width><current_link_width>16</current_link_width>", link(5, 5, None, 16)),
    ("", "", NO_LINK),
])
def test_hand_built_pcie_link(gen, widths, expected):
    gpu = hand_built_gpu("<pci><pci_gpu_link_info><pcie_gen>%s</pcie_gen><link_widths>%s</link_widths></pci_gpu_link_info>"
                         "</pci>" % (gen, widths))
    assert gpu["pcie_link"] == expected


@pytest.mark.parametrize("body, persistence, ecc", [
    ("<persistence_mode>Enabled</persistence_mode><ecc_mode><current_ecc>Disabled</current_ecc>"
     "<pending_ecc>Enabled</pending_ecc></ecc_mode>", "enabled", "disabled"),
    ("<persistence_mode> DISABLED </persistence_mode><ecc_mode><current_ecc>N/A</current_ecc></ecc_mode>", "disabled", None),
    # Like mig_mode: an unknown mode is None, not an error.
    ("<persistence_mode>Maybe</persistence_mode><ecc_mode>Enabled</ecc_mode>", None, None),
])
def test_hand_built_modes(body, persistence, ecc):
    gpu = hand_built_gpu(body)
    assert (gpu["persistence_mode"], gpu["ecc_mode"]) == (persistence, ecc)


LONG_NUMBER = "9" * 5000


@pytest.mark.parametrize("data, message", [
    # Captures with one value replaced.
    (doctored(V100S_8X, 5, "<retired_count>0</retired_count>", "<retired_count>many</retired_count>"),
     "nvidia-smi -q -x: GPU 5 retired_pages/multiple_single_bit_retirement/retired_count is 'many', not a number"),
    (doctored(V100S_8X, 2, "<pending_retirement>No</pending_retirement>", "<pending_retirement>Soon</pending_retirement>"),
     "nvidia-smi -q -x: GPU 2 retired_pages/pending_retirement is 'Soon', not Yes or No"),
    (doctored(A100_MIG, 0, "<dram_uncorrectable>0</dram_uncorrectable>", "<dram_uncorrectable>0x10</dram_uncorrectable>"),
     "nvidia-smi -q -x: GPU 0 ecc_errors/volatile/dram_uncorrectable is '0x10', not a number"),
    (doctored("telegraf_pro-6000-maxq-blackwell-v13.xml", 0, "<remapped_row_unc>0<", "<remapped_row_unc>-3<"),
     "nvidia-smi -q -x: GPU 0 remapped_rows/remapped_row_unc is '-3', not a number"),
    (doctored("telegraf_pro-6000-maxq-blackwell-v13.xml", 0, "<remapped_row_pending>No<", "<remapped_row_pending>Pending<"),
     "nvidia-smi -q -x: GPU 0 remapped_rows/remapped_row_pending is 'Pending', not Yes or No"),
    (doctored(DUAL_2070, 1, "<max_link_width>16x<", "<max_link_width>x16 lanes<"),
     "nvidia-smi -q -x: GPU 1 pci/pci_gpu_link_info/link_widths/max_link_width is 'x16 lanes', not a link width like 16x"),
    (doctored(T4, 0, "<max_link_gen>3<", "<max_link_gen>Gen3<"),
     "nvidia-smi -q -x: GPU 0 pci/pci_gpu_link_info/pcie_gen/max_link_gen is 'Gen3', not a number"),
    # HAND-BUILT.
    ("<nvidia_smi_log><gpu><product_name>X</product_name><ecc_errors><aggregate><double_bit><total>1.0</total>"
     "</double_bit></aggregate></ecc_errors></gpu></nvidia_smi_log>",
     "nvidia-smi -q -x: GPU 0 ecc_errors/aggregate/double_bit/total is '1.0', not a number"),
    ("<nvidia_smi_log><gpu><product_name>X</product_name><ecc_errors><volatile><sram_uncorrectable_parity>1 error"
     "</sram_uncorrectable_parity></volatile></ecc_errors></gpu></nvidia_smi_log>",
     "nvidia-smi -q -x: GPU 0 ecc_errors/volatile/sram_uncorrectable_parity is '1 error', not a number"),
    ("<nvidia_smi_log><gpu><product_name>X</product_name><remapped_rows><remapped_row_corr>%s</remapped_row_corr>"
     "</remapped_rows></gpu></nvidia_smi_log>" % LONG_NUMBER,
     "nvidia-smi -q -x: GPU 0 remapped_rows/remapped_row_corr is '%s'..., too long a number" % LONG_NUMBER[:60]),
    ("<nvidia_smi_log><gpu><product_name>X</product_name><pci><pci_gpu_link_info><link_widths><current_link_width>%sx"
     "</current_link_width></link_widths></pci_gpu_link_info></pci></gpu></nvidia_smi_log>" % LONG_NUMBER,
     "nvidia-smi -q -x: GPU 0 pci/pci_gpu_link_info/link_widths/current_link_width is '%s'..., too long a number"
     % LONG_NUMBER[:60]),
    ("<nvidia_smi_log><gpu><product_name>X</product_name><pci><pci_gpu_link_info><pcie_gen><current_link_gen>N/A"
     "</current_link_gen><device_current_link_gen>four</device_current_link_gen></pcie_gen></pci_gpu_link_info></pci>"
     "</gpu></nvidia_smi_log>",
     "nvidia-smi -q -x: GPU 0 pci/pci_gpu_link_info/pcie_gen/device_current_link_gen is 'four', not a number"),
])
def test_xml_garbage_health_counts(data, message):
    with pytest.raises(GpuFactsError) as err:
        parse_smi_xml(data)
    assert str(err.value) == message


@pytest.mark.parametrize("text, normal", [
    ("00000000:18:00.0", "00000000:18:00.0"),
    ("0000:18:00.0", "00000000:18:00.0"),
    ("00000000:c1:00.1", "00000000:C1:00.1"),
    (" 0001:0a:1f.7 ", "00000001:0A:1F.7"),
])
def test_pci_bus_id(text, normal):
    assert normalize_pci_bus_id(text) == normal


@pytest.mark.parametrize("name, slurm", [
    ("NVIDIA H100 80GB HBM3", "nvidia_h100_80gb_hbm3"),
    ("NVIDIA A100-SXM4-80GB", "nvidia_a100-sxm4-80gb"),
    (" Tesla T4 ", "tesla_t4"),
    ("Odd: name,x=1", "odd__name_x_1"),
])
def test_slurm_type_name(name, slurm):
    assert slurm_type_name(name) == slurm


# ---------------------------------------------------------------------------
# nvidia-smi topo -m

def nv(count, *peers):
    return dict((peer, count) for peer in peers)


def test_topo_8x_h100_nv18_spaces_with_nic_legend():
    result = parse_topo(topo(TOPO_H100))
    assert result["columns"] == ["GPU%d" % i for i in range(8)] + ["NIC%d" % i for i in range(8)]
    assert result["nics"] == dict(("NIC%d" % i, "mlx5_%d" % i) for i in range(8))
    assert result["gpus"] == [
        {"index": i, "cpu_affinity": "0-47,96-143" if i < 4 else "48-95,144-191", "numa_affinity": "0" if i < 4 else "1",
         "gpu_numa_id": None, "nvlinks": nv(18, *[peer for peer in range(8) if peer != i])}
        for i in range(8)
    ]
    assert result["matrix"]["GPU0"] == {
        "GPU0": "X", "GPU1": "NV18", "GPU2": "NV18", "GPU3": "NV18", "GPU4": "NV18", "GPU5": "NV18", "GPU6": "NV18",
        "GPU7": "NV18", "NIC0": "PIX", "NIC1": "NODE", "NIC2": "NODE", "NIC3": "NODE", "NIC4": "SYS", "NIC5": "SYS",
        "NIC6": "SYS", "NIC7": "SYS",
    }
    assert result["matrix"]["NIC5"] == {
        "GPU0": "SYS", "GPU1": "SYS", "GPU2": "SYS", "GPU3": "SYS", "GPU4": "NODE", "GPU5": "PIX", "GPU6": "NODE",
        "GPU7": "NODE", "NIC0": "SYS", "NIC1": "SYS", "NIC2": "SYS", "NIC3": "SYS", "NIC4": "NODE", "NIC5": "X",
        "NIC6": "NODE", "NIC7": "NODE",
    }
    assert result["warnings"] == []


def test_topo_8x_a100_nv12_raw_tabs_nps4():
    result = parse_topo(topo(TOPO_A100))
    assert result["nics"] == dict(("NIC%d" % i, "mlx5_%d" % i) for i in range(10))
    affinity = ["48-63,176-191", "16-31,144-159", "112-127,240-255", "80-95,208-223"]
    numa = ["3", "1", "7", "5"]
    assert result["gpus"] == [
        {"index": i, "cpu_affinity": affinity[i // 2], "numa_affinity": numa[i // 2], "gpu_numa_id": None,
         "nvlinks": nv(12, *[peer for peer in range(8) if peer != i])}
        for i in range(8)
    ]
    assert [result["matrix"]["GPU0"]["NIC%d" % i] for i in range(10)] == ["PXB", "PXB"] + ["SYS"] * 8
    assert [result["matrix"]["NIC8"]["NIC%d" % i] for i in range(10)] == ["SYS"] * 8 + ["X", "PIX"]
    assert result["matrix"]["NIC9"]["GPU7"] == "SYS"


def test_topo_dgx1_hybrid_cube_mesh_old_format():
    result = parse_topo(topo(TOPO_DGX1))
    assert result["columns"] == ["GPU%d" % i for i in range(8)] + ["mlx5_2", "mlx5_0", "mlx5_3", "mlx5_1"]
    assert result["nics"] == {"mlx5_2": "mlx5_2", "mlx5_0": "mlx5_0", "mlx5_3": "mlx5_3", "mlx5_1": "mlx5_1"}
    links = [
        {1: 1, 2: 1, 3: 2, 4: 2},
        {0: 1, 2: 2, 3: 1, 5: 2},
        {0: 1, 1: 2, 3: 2, 6: 1},
        {0: 2, 1: 1, 2: 2, 7: 1},
        {0: 2, 5: 1, 6: 1, 7: 2},
        {1: 2, 4: 1, 6: 2, 7: 1},
        {2: 1, 4: 1, 5: 2, 7: 2},
        {3: 1, 4: 2, 5: 1, 6: 2},
    ]
    assert result["gpus"] == [
        {"index": i, "cpu_affinity": "0-19,40-59", "numa_affinity": None, "gpu_numa_id": None, "nvlinks": links[i]}
        for i in range(8)
    ]
    assert result["matrix"]["GPU0"]["mlx5_0"] == "PIX"
    assert result["matrix"]["GPU0"]["mlx5_1"] == "PHB"
    assert result["matrix"]["mlx5_2"] == {
        "GPU0": "SYS", "GPU1": "SYS", "GPU2": "SYS", "GPU3": "SYS", "GPU4": "PIX", "GPU5": "PIX", "GPU6": "PHB",
        "GPU7": "PHB", "mlx5_2": "X", "mlx5_0": "SYS", "mlx5_3": "PHB", "mlx5_1": "SYS",
    }


def test_topo_single_gpu_ansi_header():
    assert parse_topo(topo(TOPO_ANSI)) == {
        "columns": ["GPU0"],
        "matrix": {"GPU0": {"GPU0": "X"}},
        "nics": {},
        "gpus": [{"index": 0, "cpu_affinity": "0-19", "numa_affinity": "0", "gpu_numa_id": None, "nvlinks": {}}],
        "warnings": [],
    }


def test_topo_single_gpu_in_a_vm_ansi_header_580():
    # The same layout on driver 580 in a VM: NUMA Affinity 0, GPU NUMA ID N/A after an empty cell.
    assert parse_topo(topo(TOPO_H100_580)) == {
        "columns": ["GPU0"],
        "matrix": {"GPU0": {"GPU0": "X"}},
        "nics": {},
        "gpus": [{"index": 0, "cpu_affinity": "0-15", "numa_affinity": "0", "gpu_numa_id": None, "nvlinks": {}}],
        "warnings": [],
    }


def test_topo_single_h200_in_a_vm_580():
    assert parse_topo(topo(TOPO_H200_580)) == {
        "columns": ["GPU0"],
        "matrix": {"GPU0": {"GPU0": "X"}},
        "nics": {},
        "gpus": [{"index": 0, "cpu_affinity": "0-15", "numa_affinity": "0", "gpu_numa_id": None, "nvlinks": {}}],
        "warnings": [],
    }


def test_topo_tabs_expanded_reads_the_same_as_raw_tabs():
    raw = topo(TOPO_A100)
    assert parse_topo(raw.expandtabs(8)) == parse_topo(raw)


def test_topo_soc_is_sys_and_empty_affinity_is_none():
    # The DGX-1 capture with its SYS cells in the pre-2017 spelling SOC and the affinity cells cut off.
    lines = topo(TOPO_DGX1).replace("SYS", "SOC").splitlines()
    lines = [line.replace("0-19,40-59", "") for line in lines]
    result = parse_topo("\n".join(lines))
    assert result["matrix"]["GPU0"]["GPU5"] == "SYS"
    assert result["gpus"][0] == {"index": 0, "cpu_affinity": None, "numa_affinity": None, "gpu_numa_id": None,
                                 "nvlinks": {1: 1, 2: 1, 3: 2, 4: 2}}
    assert result["warnings"] == []


def test_topo_partial_affinity_cells_are_left_unknown_with_a_warning():
    # sglang capture with GPU0's CPU Affinity cell missing: which cell is gone cannot be told.
    original = topo(TOPO_H100)
    text = original.replace("PIX     NODE    NODE    NODE    SYS     SYS     SYS     SYS     0-47,96-143     ",
                            "PIX     NODE    NODE    NODE    SYS     SYS     SYS     SYS     ", 1)
    assert text != original
    result = parse_topo(text)
    assert result["gpus"][0]["cpu_affinity"] is None
    assert result["gpus"][0]["numa_affinity"] is None
    assert result["gpus"][1]["cpu_affinity"] == "0-47,96-143"
    assert result["warnings"] == ["nvidia-smi topo -m: row GPU0 has 2 of 3 affinity cells; its affinity is left unknown"]


@pytest.mark.parametrize("data, message", [
    ("", "nvidia-smi topo -m: empty output"),
    ("\n\n   \n", "nvidia-smi topo -m: empty output"),
    (b"\x00\x01\x02", "nvidia-smi topo -m: unexpected header '\\x00\\x01\\x02'"),
    (fixture("nvidia-smi-L", "nvgpuexp_h100-nomig_590.48.01.txt"),
     "nvidia-smi topo -m: unexpected header 'GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-00000000-0000-0000-0'..."),
    ("\tGPU1\tGPU0\n", "nvidia-smi topo -m: unexpected header 'GPU1\\tGPU0'"),
    ("\tGPU0\tGPU2\n", "nvidia-smi topo -m: header column 'GPU2' out of order (expected GPU1)"),
    ("\tGPU0\tX\n", "nvidia-smi topo -m: unexpected header column 'X'"),
    ("\tGPU0\tCPU Affinity\tColour\nGPU0\t X \t0-3\tred\n",
     "nvidia-smi topo -m: unexpected header column 'Colour' after 'CPU Affinity'"),
    ("\tGPU0\tNIC0\tGPU1\n", "nvidia-smi topo -m: header column 'GPU1' after a NIC column"),
    ("\tGPU0\tGPU1\nGPU0\t X \tNV4\n", "nvidia-smi topo -m: no row for GPU1"),
    ("\tGPU0\tGPU1\nGPU0\t X \nGPU1\tNV4\t X \n", "nvidia-smi topo -m: row GPU0 has 1 cells, the header names 2 devices"),
    ("\tGPU0\tGPU1\nGPU0\t X \tNV4\nGPU1\tWARP\t X \n", "nvidia-smi topo -m: row GPU1 column GPU0: unknown connection 'WARP'"),
    ("\tGPU0\tGPU1\nGPU0\tPIX\tX\nGPU1\tPIX\t X \n",
     "nvidia-smi topo -m: row GPU0 column GPU0 is PIX (X must mark exactly the diagonal)"),
    ("\tGPU0\nGPU7\t X \n", "nvidia-smi topo -m: row 'GPU7' is not a column of the header"),
    ("\tGPU0\tCPU Affinity\nGPU0\t X \t0-3\t7\n",
     "nvidia-smi topo -m: row GPU0 has 2 cells after the matrix, the header names 1"),
    ("\tGPU0\tCPU Affinity\nGPU0\t X \tall\n", "nvidia-smi topo -m: row GPU0 CPU Affinity: bad CPU list 'all'"),
    ("\tGPU0\tCPU Affinity\tNUMA Affinity\nGPU0\t X \t0-3\tnear\n",
     "nvidia-smi topo -m: row GPU0 NUMA Affinity 'near' is not a node list"),
    ("\tGPU0\tNIC0\nGPU0\t X \tPIX\nNIC0\tPIX\t X \t0-3\n",
     "nvidia-smi topo -m: row NIC0 has 3 cells, the header names 2 devices"),
])
def test_topo_bad_input(data, message):
    with pytest.raises(GpuFactsError) as err:
        parse_topo(data)
    assert str(err.value) == message


# ---------------------------------------------------------------------------
# nvidia-smi -L and mig-minors

def test_list_8x_h100_56_mig():
    result = parse_smi_list(listing("nvgpuexp_8x-h100-mig-1g10gb.txt"))
    assert [gpu["uuid"] for gpu in result] == [
        "GPU-63d1e50a-b952-d15c-0740-12bc14859142", "GPU-7e7d2a20-56b8-3220-e75c-1f3185864bda",
        "GPU-20e54ffb-782f-47b6-2d6f-2641b20a4ec1", "GPU-8e70d727-bd2d-0723-0bf5-015d93cb90e6",
        "GPU-3d761336-f338-7808-b8d6-dc4c2d11537f", "GPU-7d6267d7-7109-1970-9adf-852cdf00b314",
        "GPU-f10582d0-a657-b746-3bed-366c6a014f07", "GPU-882ebfab-da98-c41e-357c-47272c0d560d",
    ]
    assert [gpu["index"] for gpu in result] == list(range(8))
    assert all(gpu["name"] == "NVIDIA H100 80GB HBM3" for gpu in result)
    assert [[mig["index"] for mig in gpu["mig_devices"]] for gpu in result] == [list(range(7))] * 8
    assert set(mig["profile"] for gpu in result for mig in gpu["mig_devices"]) == set(["1g.10gb"])
    assert result[7]["mig_devices"][6] == {"index": 6, "profile": "1g.10gb", "uuid": "MIG-bc03b921-4d24-573e-9d4b-1cdc47b1f4b4",
                                           "gpu_instance_id": None, "compute_instance_id": None}


def test_list_h100_mixed_profiles_crlf():
    assert "\r\n" in listing("nvcloudnativedocs_h100_mig-mixed_CRLF.txt.gz")
    assert parse_smi_list(listing("nvcloudnativedocs_h100_mig-mixed_CRLF.txt.gz")) == [{
        "index": 0, "name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-b4895dbf-9350-2524-a89b-98161ddd9fe4",
        "mig_devices": [
            {"index": 0, "profile": "3g.40gb", "uuid": "MIG-7089d0f3-293f-58c9-8f8c-5ea666eedbde",
             "gpu_instance_id": None, "compute_instance_id": None},
            {"index": 1, "profile": "2g.20gb", "uuid": "MIG-56c30729-347f-5dd6-8da0-c3cc59e969e0",
             "gpu_instance_id": None, "compute_instance_id": None},
            {"index": 2, "profile": "1g.10gb", "uuid": "MIG-9d14fb21-4ae1-546f-a636-011582899c39",
             "gpu_instance_id": None, "compute_instance_id": None},
            {"index": 3, "profile": "1g.10gb", "uuid": "MIG-0f709664-740c-52b0-ae79-3e4c9ede6d3b",
             "gpu_instance_id": None, "compute_instance_id": None},
        ],
    }]


def test_list_legacy_mig_uuid_carries_gi_ci():
    result = parse_smi_list(listing("nvcloudnativedocs_a100-sxm4-40gb_mig-7x1g5gb_legacy-MIG-GPU-uuid_rst-dedented.txt"))
    assert [(gpu["index"], gpu["name"], gpu["uuid"]) for gpu in result] == [
        (0, "A100-SXM4-40GB", "GPU-4200ccc0-2667-d4cb-9137-f932c716232a")]
    assert result[0]["mig_devices"] == [
        {"index": i, "profile": "1g.5gb", "uuid": "MIG-GPU-4200ccc0-2667-d4cb-9137-f932c716232a/%d/0" % (i + 7),
         "gpu_instance_id": i + 7, "compute_instance_id": 0}
        for i in range(7)
    ]


@pytest.mark.parametrize("name, shape", [
    ("deepops_dgxa100-80g_mig_head10_cmdline-stripped.txt",
     [("GPU-8e100991-ce97-6694-b8eb-b8b1ff5053af", ["3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"]),
      ("GPU-938c4705-98bf-1735-e98b-c2a5872a8022", ["3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"])]),
    ("deepops_srun-gres-3g40gb_jobscoped_cmdline-stripped.txt",
     [("GPU-8e100991-ce97-6694-b8eb-b8b1ff5053af", ["3g.40gb"])]),
    ("nvcloudnativedocs_h100_mig-7x1g10gb_CRLF.txt.gz", [("GPU-b4895dbf-9350-2524-a89b-98161ddd9fe4", ["1g.10gb"] * 7)]),
    ("nvgpuexp_h100-mig_590.48.01.txt",
     [("GPU-00000000-0000-0000-0000-000000000000", ["3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"])]),
    ("nvgpuexp_h100-nomig_590.48.01.txt", [("GPU-00000000-0000-0000-0000-000000000000", [])]),
    (LIST_H100_580, [(H100_580_UUID, [])]),
    (LIST_H200_580, [(H200_580_UUID, [])]),
])
def test_list_other_captures(name, shape):
    result = parse_smi_list(listing(name))
    assert [(gpu["uuid"], [mig["profile"] for mig in gpu["mig_devices"]]) for gpu in result] == shape


@pytest.mark.parametrize("data, message", [
    ("", "nvidia-smi -L: no GPU lines"),
    ("  MIG 1g.10gb Device 0: (UUID: MIG-x)\n", "nvidia-smi -L: unexpected line 'MIG 1g.10gb Device 0: (UUID: MIG-x)'"),
    ("GPU 0: X (UUID: GPU-1)\nNo MIG here\n", "nvidia-smi -L: unexpected line 'No MIG here'"),
])
def test_list_bad_input(data, message):
    with pytest.raises(GpuFactsError) as err:
        parse_smi_list(data)
    assert str(err.value) == message


# Written following the driver's layout (config, monitor, then per GPU minor and
# GPU instance an access line and one per compute instance); not a capture. The
# gpu0 lines would be picked by a parser that keyed caps by index.
MIG_MINORS = """config 1
monitor 2
gpu0/gi3/access 30
gpu0/gi3/ci0/access 31
gpu1/gi3/access 165
gpu1/gi3/ci0/access 166
gpu1/gi4/access 174
gpu1/gi4/ci0/access 175
gpu1/gi5/access 183
gpu1/gi5/ci0/access 184
gpu1/gi6/access 192
gpu1/gi6/ci0/access 193
"""


def test_mig_minors():
    result = parse_mig_minors(MIG_MINORS)
    assert result["config"] == 1
    assert result["gpu1/gi6/ci0/access"] == 193
    assert len(result) == 12
    assert parse_mig_minors("") == {}
    with pytest.raises(GpuFactsError) as err:
        parse_mig_minors("gpu0/gi1/access\n")
    assert str(err.value) == "mig-minors: unexpected line 'gpu0/gi1/access'"


# The A100 capture's own nvidia-smi -L was not published. Its four MIG devices
# have 14 SMs (one A100 slice) and 19968 MiB each: NVIDIA's 1g.20gb profile of
# the A100-80GB (at most 4 per GPU), so this listing is what -L would print.
A100_LISTING = [{"index": 0, "name": "NVIDIA A100-SXM4-80GB", "uuid": "GPU-513536b6-7d19-9063-b049-1e69664bb298",
                 "mig_devices": [{"index": i, "profile": "1g.20gb", "uuid": "MIG-a100-%d" % i,
                                  "gpu_instance_id": None, "compute_instance_id": None} for i in range(4)]}]


def a100_gpus():
    return apply_mig_profiles(parse_smi_xml(xml(A100_MIG))["gpus"], A100_LISTING)


def test_apply_mig_profiles():
    gpus = a100_gpus()
    assert [(mig["profile"], mig["uuid"]) for mig in gpus[0]["mig_devices"]] == [
        ("1g.20gb", "MIG-a100-0"), ("1g.20gb", "MIG-a100-1"), ("1g.20gb", "MIG-a100-2"), ("1g.20gb", "MIG-a100-3")]


def test_apply_mig_profiles_from_another_machine_is_refused():
    # The DGX A100 listing (deepops) does not hold the telegraf A100's UUID.
    with pytest.raises(GpuFactsError) as err:
        apply_mig_profiles(parse_smi_xml(xml(A100_MIG))["gpus"],
                           parse_smi_list(listing("deepops_dgxa100-80g_mig_head10_cmdline-stripped.txt")))
    assert str(err.value) == "nvidia-smi -L does not list GPU 0 (GPU-513536b6-7d19-9063-b049-1e69664bb298)"


def test_apply_mig_profiles_gi_mismatch():
    gpus = [dict(plain_gpu(0, 0, "GPU-4200ccc0-2667-d4cb-9137-f932c716232a", "A100-SXM4-40GB", "a100-sxm4-40gb", 40960,
                           "00000000:07:00.0", "enabled"),
                 mig_devices=[{"index": 0, "gpu_instance_id": 9, "compute_instance_id": 0, "profile": None}])]
    with pytest.raises(GpuFactsError) as err:
        apply_mig_profiles(gpus, parse_smi_list(listing(
            "nvcloudnativedocs_a100-sxm4-40gb_mig-7x1g5gb_legacy-MIG-GPU-uuid_rst-dedented.txt")))
    assert str(err.value) == "nvidia-smi -L: GPU 0 MIG device 0 has gpu_instance_id 7, -q -x says 9"


@pytest.mark.parametrize("slurm_type, profile, memory, expected", [
    ("nvidia_a100-sxm4-80gb", "1g.20gb", 19968, "nvidia_a100_1g.20gb"),
    # Slurm names an A100-80GB 3g.40gb (39.25 GiB) 3g.39gb: the memory wins over the profile name
    ("nvidia_a100-sxm4-80gb", "3g.40gb", 40192, "nvidia_a100_3g.39gb"),
    ("nvidia_a100-sxm4-40gb", "1g.5gb", 4864, "nvidia_a100_1g.5gb"),
    ("nvidia_h100_80gb_hbm3", "1g.10gb", None, "nvidia_h100_80gb_hbm3_1g.10gb"),
    ("nvidia_h200", "1c.3g.71gb", None, "nvidia_h200_3g.71gb"),
    ("nvidia_h100_80gb_hbm3", "1g.10gb+me", None, "nvidia_h100_80gb_hbm3_1g.10gb"),
])
def test_mig_slurm_type(slurm_type, profile, memory, expected):
    gpu = {"index": 0, "slurm_type": slurm_type}
    assert mig_slurm_type(gpu, {"index": 0, "profile": profile, "memory_mib": memory}) == expected


def test_mig_slurm_type_unknown_profile():
    with pytest.raises(GpuFactsError) as err:
        mig_slurm_type({"index": 2, "slurm_type": "x"}, {"index": 1, "profile": None})
    assert str(err.value) == "GPU 2 MIG device 1: profile unknown (nvidia-smi -L names it)"
    with pytest.raises(GpuFactsError) as err:
        mig_slurm_type({"index": 2, "slurm_type": "x"}, {"index": 1, "profile": "big"})
    assert str(err.value) == "GPU 2 MIG device 1: unreadable profile 'big'"


# ---------------------------------------------------------------------------
# CPU lists and Slurm cores

def test_cpu_list():
    assert cpu_list("0-47,96-143") == list(range(48)) + list(range(96, 144))
    assert cpu_list("5") == [5]
    assert cpu_list(" 3,1-2, 2 ") == [1, 2, 3]


@pytest.mark.parametrize("data, message", [
    ("", "empty CPU list"),
    ("a-b", "bad CPU list 'a-b'"),
    ("0-3,,5", "bad CPU list '0-3,,5'"),
    ("5-3", "bad CPU list '5-3': range 5-3 runs backwards"),
    ("0-99999999", "bad CPU list '0-99999999': CPU id above 65535"),
    ("\u0663", "bad CPU list '\u0663'"),
    (7, "CPU list must be text, got int"),
])
def test_cpu_list_bad(data, message):
    with pytest.raises(GpuFactsError) as err:
        cpu_list(data)
    assert str(err.value) == message


def test_compress_ranges():
    assert compress_ranges([5, 0, 1, 2, 7, 8, 2]) == "0-2,5,7-8"
    assert compress_ranges([]) == ""


@pytest.mark.parametrize("affinity, cpus, cores", [
    # the example: 2 sockets x 48 cores x 2 threads
    ("0-47,96-143", P5_CPUS, "0-47"),
    ("48-95,144-191", P5_CPUS, "48-95"),
    # a GPU close to CPUs of both sockets gets both
    ("40-50", P5_CPUS, "0-95"),
    # one NUMA node of 16 cores (NPS4): widened to its whole socket
    ("48-63,176-191", EPYC_CPUS, "0-63"),
    ("112-127,240-255", EPYC_CPUS, "64-127"),
    # Broadwell core_ids 0-4,8-12,16-20,24-28: positions, not core ids
    ("0-19,40-59", DGX1_CPUS, "0-19"),
    ("60-79", DGX1_CPUS, "20-39"),
    # CPUs not in the topology (offline) are ignored; none known -> None
    ("0,500", P5_CPUS, "0-47"),
    ("500-501", P5_CPUS, None),
])
def test_slurm_cores(affinity, cpus, cores):
    assert slurm_cores(cpu_list(affinity), cpus) == cores


def test_slurm_cores_takes_a_string_and_rejects_a_bad_topology():
    assert slurm_cores("0-47,96-143", P5_CPUS) == "0-47"
    with pytest.raises(GpuFactsError) as err:
        slurm_cores([0], {0: "socket0"})
    assert str(err.value) == "CPU topology entry 0: 'socket0' is not (package, core)"


# ---------------------------------------------------------------------------
# gres.conf lines and Gres=

def v100s_gpus():
    return parse_smi_xml(xml(V100S_8X))["gpus"]


def test_gres_8_gpus_without_topo_collapse_to_one_line():
    assert gres_conf_lines(v100s_gpus()) == ["Name=gpu Type=tesla_v100s-pcie-32gb File=/dev/nvidia[0-7]"]
    assert slurm_gres(v100s_gpus()) == "gpu:tesla_v100s-pcie-32gb:8"


def test_gres_dgx1_nvlink_hybrid_cube_mesh():
    # Two machines: the 8x V100S box's -q -x (PCI 00:0D.0..00:14.0, minors 0-7)
    # with the DGX-1 topo -m and a DGX-1 CPU topology.
    assert gres_conf_lines(v100s_gpus(), parse_topo(topo(TOPO_DGX1)), DGX1_CPUS) == [
        "Name=gpu Type=tesla_v100s-pcie-32gb File=/dev/nvidia0 Cores=0-19 Links=-1,1,1,2,2,0,0,0",
        "Name=gpu Type=tesla_v100s-pcie-32gb File=/dev/nvidia1 Cores=0-19 Links=1,-1,2,1,0,2,0,0",
        "Name=gpu Type=tesla_v100s-pcie-32gb File=/dev/nvidia2 Cores=0-19 Links=1,2,-1,2,0,0,1,0",
        "Name=gpu Type=tesla_v100s-pcie-32gb File=/dev/nvidia3 Cores=0-19 Links=2,1,2,-1,0,0,0,1",
        "Name=gpu Type=tesla_v100s-pcie-32gb File=/dev/nvidia4 Cores=0-19 Links=2,0,0,0,-1,1,1,2",
        "Name=gpu Type=tesla_v100s-pcie-32gb File=/dev/nvidia5 Cores=0-19 Links=0,2,0,0,1,-1,2,1",
        "Name=gpu Type=tesla_v100s-pcie-32gb File=/dev/nvidia6 Cores=0-19 Links=0,0,1,0,1,2,-1,2",
        "Name=gpu Type=tesla_v100s-pcie-32gb File=/dev/nvidia7 Cores=0-19 Links=0,0,0,1,2,1,2,-1",
    ]


def test_gres_h100_nv18_two_sockets():
    # Two machines: the 8x V100S -q -x with the sglang 8x H100 topo and the p5.48xlarge CPU layout.
    lines = gres_conf_lines(v100s_gpus(), parse_topo(topo(TOPO_H100)), P5_CPUS)
    assert lines[0] == "Name=gpu Type=tesla_v100s-pcie-32gb File=/dev/nvidia0 Cores=0-47 Links=-1,18,18,18,18,18,18,18"
    assert lines[3] == "Name=gpu Type=tesla_v100s-pcie-32gb File=/dev/nvidia3 Cores=0-47 Links=18,18,18,-1,18,18,18,18"
    assert lines[4] == "Name=gpu Type=tesla_v100s-pcie-32gb File=/dev/nvidia4 Cores=48-95 Links=18,18,18,18,-1,18,18,18"
    assert lines[7] == "Name=gpu Type=tesla_v100s-pcie-32gb File=/dev/nvidia7 Cores=48-95 Links=18,18,18,18,18,18,18,-1"
    assert len(lines) == 8


def test_gres_a100_nps4_cores():
    lines = gres_conf_lines(v100s_gpus(), parse_topo(topo(TOPO_A100)), EPYC_CPUS)
    assert [line.split(" Cores=")[1].split(" ")[0] for line in lines] == ["0-63"] * 4 + ["64-127"] * 4
    assert lines[5].endswith(" Links=12,12,12,12,12,-1,12,12")


def test_gres_pcie_only_single_gpu_ansi_topo():
    # Two machines: the Tesla T4 -q -x with the 1-GPU H100 VM topo (0-19, no NVLink), one socket of 10 cores x 2.
    cpus = smt_topology(1, 10)
    assert gres_conf_lines(parse_smi_xml(xml(T4))["gpus"], parse_topo(topo(TOPO_ANSI)), cpus) == [
        "Name=gpu Type=tesla_t4 File=/dev/nvidia0 Cores=0-9"]


def test_gres_pcie_only_two_sockets_collapse_per_socket():
    # A PCIe-only 8-GPU box (no such topo capture exists): GPUs 0-3 near socket 0, 4-7 near socket 1.
    pcie_topo = {"gpus": [{"index": i, "cpu_affinity": "0-47,96-143" if i < 4 else "48-95,144-191",
                           "numa_affinity": None, "gpu_numa_id": None, "nvlinks": {}} for i in range(8)]}
    assert gres_conf_lines(v100s_gpus(), pcie_topo, P5_CPUS) == [
        "Name=gpu Type=tesla_v100s-pcie-32gb File=/dev/nvidia[0-3] Cores=0-47",
        "Name=gpu Type=tesla_v100s-pcie-32gb File=/dev/nvidia[4-7] Cores=48-95",
    ]


def test_gres_mig_uses_minor_and_caps_by_minor():
    assert gres_conf_lines(a100_gpus(), mig_files=parse_mig_minors(MIG_MINORS)) == [
        "Name=gpu Type=nvidia_a100_1g.20gb MultipleFiles=/dev/nvidia1,/dev/nvidia-caps/nvidia-cap165,/dev/nvidia-caps/nvidia-cap166",
        "Name=gpu Type=nvidia_a100_1g.20gb MultipleFiles=/dev/nvidia1,/dev/nvidia-caps/nvidia-cap174,/dev/nvidia-caps/nvidia-cap175",
        "Name=gpu Type=nvidia_a100_1g.20gb MultipleFiles=/dev/nvidia1,/dev/nvidia-caps/nvidia-cap183,/dev/nvidia-caps/nvidia-cap184",
        "Name=gpu Type=nvidia_a100_1g.20gb MultipleFiles=/dev/nvidia1,/dev/nvidia-caps/nvidia-cap192,/dev/nvidia-caps/nvidia-cap193",
    ]
    assert slurm_gres(a100_gpus()) == "gpu:nvidia_a100_1g.20gb:4"


def test_gres_mig_without_mig_minors_names_the_parent_only():
    assert gres_conf_lines(a100_gpus()) == ["Name=gpu Type=nvidia_a100_1g.20gb MultipleFiles=/dev/nvidia1"] * 4


def test_gres_mig_same_cores_as_parent_no_links():
    # The A100 (MIG) with the 1-GPU ANSI topo: Cores like its parent, never Links.
    cpus = smt_topology(1, 10)
    lines = gres_conf_lines(a100_gpus(), parse_topo(topo(TOPO_ANSI)), cpus, parse_mig_minors(MIG_MINORS))
    assert lines[0] == ("Name=gpu Type=nvidia_a100_1g.20gb MultipleFiles=/dev/nvidia1,/dev/nvidia-caps/nvidia-cap165,"
                        "/dev/nvidia-caps/nvidia-cap166 Cores=0-9")


def test_gres_mig_disabled_a100_is_named_by_minor_not_index():
    gpus = parse_smi_xml(xml(A100_MIG))["gpus"]
    gpus[0]["mig_mode"] = "disabled"
    assert gres_conf_lines(gpus) == ["Name=gpu Type=nvidia_a100-sxm4-80gb File=/dev/nvidia1"]
    assert slurm_gres(gpus) == "gpu:nvidia_a100-sxm4-80gb:1"


def test_gres_mig_enabled_without_instances_gives_nothing():
    gpus = parse_smi_xml(xml(A100_MIG))["gpus"]
    gpus[0]["mig_devices"] = []
    assert gres_conf_lines(gpus) == []
    assert slurm_gres(gpus) == ""


def test_gres_mixed_models_pci_order_and_per_type_collapse():
    # Built from two captures: the dual RTX 2070 box plus the T4 as a third GPU (minor 2, PCI 00:1E.0).
    gpus = parse_smi_xml(xml(DUAL_2070))["gpus"]
    t4 = parse_smi_xml(xml(T4))["gpus"][0]
    t4.update(index=2, minor_number=2)
    gpus.append(t4)
    assert gres_conf_lines(gpus) == [
        "Name=gpu Type=tesla_t4 File=/dev/nvidia2",
        "Name=gpu Type=nvidia_geforce_rtx_2070 File=/dev/nvidia[0-1]",
    ]
    assert slurm_gres(gpus) == "gpu:nvidia_geforce_rtx_2070:2,gpu:tesla_t4:1"


def test_slurm_gres_from_listings():
    # Types from -L alone (memory unknown: the profile's size is used).
    def from_listing(name):
        return [{"index": gpu["index"], "slurm_type": slurm_type_name(gpu["name"]), "mig_mode": "enabled",
                 "mig_devices": [dict(mig, memory_mib=None) for mig in gpu["mig_devices"]]}
                for gpu in parse_smi_list(listing(name))]
    assert slurm_gres(from_listing("nvgpuexp_8x-h100-mig-1g10gb.txt")) == "gpu:nvidia_h100_80gb_hbm3_1g.10gb:56"
    assert slurm_gres(from_listing("nvcloudnativedocs_h100_mig-mixed_CRLF.txt.gz")) == (
        "gpu:nvidia_h100_80gb_hbm3_1g.10gb:2,gpu:nvidia_h100_80gb_hbm3_2g.20gb:1,gpu:nvidia_h100_80gb_hbm3_3g.40gb:1")
    assert slurm_gres([]) == ""


@pytest.mark.parametrize("mutate, message", [
    (lambda gpus: gpus[0].update(minor_number=None),
     "GPU 0 (00000000:00:0D.0) has no minor number: its /dev/nvidiaN is unknown"),
    (lambda gpus: gpus[1].update(minor_number=0), "two GPUs have minor number 0"),
])
def test_gres_bad_gpus(mutate, message):
    gpus = v100s_gpus()
    mutate(gpus)
    with pytest.raises(GpuFactsError) as err:
        gres_conf_lines(gpus)
    assert str(err.value) == message


def test_gres_windows_capture_has_no_minor():
    with pytest.raises(GpuFactsError) as err:
        gres_conf_lines(parse_smi_xml(xml("telegraf_rtx-3080-v12.xml"))["gpus"])
    assert str(err.value) == "GPU 0 (00000000:04:00.0) has no minor number: its /dev/nvidiaN is unknown"


def test_gres_topo_count_mismatch():
    with pytest.raises(GpuFactsError) as err:
        gres_conf_lines(parse_smi_xml(xml(T4))["gpus"], parse_topo(topo(TOPO_H100)))
    assert str(err.value) == "nvidia-smi topo -m lists 8 GPUs, nvidia-smi -q -x 1"


# ---------------------------------------------------------------------------
# nvidia-smi -q -x: NVLink fabric (gpu_fabric)
#
# Every capture here reports its fabric N/A (DTD v12 prints state and status, v13 adds cliqueId and clusterUuid)
# or has no <fabric> element (v11): no public capture of a GPU registered in a multi-node NVLink domain (GB200
# NVL72) was found. The registered case is the project's H100 capture DOCTORED (its N/A values replaced by the
# words nvidia-smi prints for a registered GPU: state Completed, status Success); it is no capture.

H100_FABRIC_NA = ("<fabric>\n\t\t\t<state>N/A</state>\n\t\t\t<status>N/A</status>\n\t\t\t<cliqueId>N/A</cliqueId>"
                  "\n\t\t\t<clusterUuid>N/A</clusterUuid>")


@pytest.mark.parametrize("name, count", [(H100_580, 1), (DUAL_2070, 2), (A100_MIG, 1), (T4, 1), (V100S_8X, 8)])
def test_fabric_of_the_captures_is_none(name, count):
    # v13 (H100 on 580, 2070 on 590) and v12 (A100): all N/A; v11 (T4) and the V100S capture: no <fabric>.
    assert [gpu["fabric"] for gpu in parse_smi_xml(xml(name))["gpus"]] == [None] * count


def test_fabric_registered_doctored_h100():
    text = doctored(H100_580, 0, H100_FABRIC_NA,
                    "<fabric>\n\t\t\t<state>Completed</state>\n\t\t\t<status>Success</status>\n\t\t\t"
                    "<cliqueId>32766</cliqueId>\n\t\t\t<clusterUuid>6a8d1c8f-3f5e-4c1b-9b0a-2d7e1f4c5a90</clusterUuid>")
    assert parse_smi_xml(text)["gpus"][0]["fabric"] == {
        "state": "Completed", "status": "Success", "clique_id": "32766",
        "cluster_uuid": "6a8d1c8f-3f5e-4c1b-9b0a-2d7e1f4c5a90"}


def test_fabric_in_progress_keeps_what_is_known_doctored_h100():
    text = doctored(H100_580, 0, H100_FABRIC_NA, "<fabric><state>In Progress</state><status>N/A</status>")
    assert parse_smi_xml(text)["gpus"][0]["fabric"] == {
        "state": "In Progress", "status": None, "clique_id": None, "cluster_uuid": None}


def test_fabric_values_are_one_short_line():
    gpu = parse_smi_xml("<nvidia_smi_log><gpu><product_name>X</product_name><fabric><state>Completed\n  x</state>"
                        "<clusterUuid>%s</clusterUuid></fabric></gpu></nvidia_smi_log>" % ("9" * 5000))["gpus"][0]
    assert gpu["fabric"] == {"state": "Completed x", "status": None, "clique_id": None, "cluster_uuid": "9" * 80 + "..."}


# ---------------------------------------------------------------------------
# build_facts (what the module returns)

def test_build_facts_8x_with_dgx1_topo():
    facts, warnings = build_facts(parse_smi_xml(xml(V100S_8X)), parse_topo(topo(TOPO_DGX1)), DGX1_CPUS)
    assert warnings == []
    assert facts["count"] == 8
    assert facts["driver_version"] == "460.73.01"
    assert facts["cuda_version"] == "11.2"
    assert facts["slurm_gres"] == "gpu:tesla_v100s-pcie-32gb:8"
    assert facts["gres_conf"][0] == "Name=gpu Type=tesla_v100s-pcie-32gb File=/dev/nvidia0 Cores=0-19 Links=-1,1,1,2,2,0,0,0"
    assert facts["gpus"][0] == dict(
        plain_gpu(0, 0, V100S_UUIDS[0], "Tesla V100S-PCIE-32GB", "tesla_v100s-pcie-32gb", 32510, V100S_BUSES[0],
                  health=HEALTH[V100S_8X][0]),
        cpu_affinity="0-19,40-59", numa_affinity=None, cores="0-19", nvlinks={"1": 1, "2": 1, "3": 2, "4": 2})


def test_build_facts_topo_of_other_size_is_dropped_with_a_warning():
    facts, warnings = build_facts(parse_smi_xml(xml(T4)), parse_topo(topo(TOPO_H100)), P5_CPUS)
    assert warnings == ["nvidia-smi topo -m lists 8 GPUs but nvidia-smi -q -x 1: CPU affinity and NVLinks left out"]
    assert facts["gres_conf"] == ["Name=gpu Type=tesla_t4 File=/dev/nvidia0"]
    assert facts["gpus"][0]["cpu_affinity"] is None


def test_build_facts_without_cpu_topology_warns():
    facts, warnings = build_facts(parse_smi_xml(xml(T4)), parse_topo(topo(TOPO_ANSI)), {})
    assert warnings == ["CPU topology unknown: gres.conf lines carry no Cores="]
    assert facts["gres_conf"] == ["Name=gpu Type=tesla_t4 File=/dev/nvidia0"]
    assert facts["gpus"][0]["cpu_affinity"] == "0-19"
    assert facts["gpus"][0]["cores"] is None


def test_build_facts_mig():
    facts, warnings = build_facts(parse_smi_xml(xml(A100_MIG)), listing=A100_LISTING, mig_minors=parse_mig_minors(MIG_MINORS))
    assert warnings == []
    assert facts["count"] == 1
    assert facts["slurm_gres"] == "gpu:nvidia_a100_1g.20gb:4"
    assert facts["gpus"][0]["mig_devices"][3] == {
        "index": 3, "gpu_instance_id": 6, "compute_instance_id": 0, "multiprocessor_count": 14, "memory_mib": 19968,
        "profile": "1g.20gb", "uuid": "MIG-a100-3", "slurm_type": "nvidia_a100_1g.20gb",
        "files": ["/dev/nvidia1", "/dev/nvidia-caps/nvidia-cap192", "/dev/nvidia-caps/nvidia-cap193"]}


def test_build_facts_h100_580_from_one_machine():
    # -q -x, topo -m and -L of the same VM. Its CPU topology was not captured: 16 CPUs (topo's 0-15) taken
    # as one socket of 16 cores without SMT, which is an assumption; any one-socket layout gives Cores=0-15.
    smi = parse_smi_xml(xml(H100_580))
    listed = parse_smi_list(listing(LIST_H100_580))
    assert [(gpu["index"], gpu["name"], gpu["uuid"]) for gpu in listed] == [
        (gpu["index"], gpu["name"], gpu["uuid"]) for gpu in smi["gpus"]]
    facts, warnings = build_facts(smi, parse_topo(topo(TOPO_H100_580)), dict((cpu, (0, cpu)) for cpu in range(16)),
                                  listing=listed)
    assert warnings == []
    assert facts["count"] == 1
    assert facts["gres_conf"] == ["Name=gpu Type=nvidia_h100_80gb_hbm3 File=/dev/nvidia0 Cores=0-15"]
    assert facts["slurm_gres"] == "gpu:nvidia_h100_80gb_hbm3:1"
    gpu = facts["gpus"][0]
    assert (gpu["pci_bus_id"], gpu["uuid"], gpu["memory_mib"]) == ("00000000:00:06.0", H100_580_UUID, 81559)
    assert (gpu["cpu_affinity"], gpu["numa_affinity"], gpu["nvlinks"], gpu["cores"]) == ("0-15", "0", {}, "0-15")
    assert (facts["nvlink_all_to_all"], facts["fabric_manager_needed"]) == (False, False)


def test_build_facts_no_gpus():
    facts, warnings = build_facts({"driver_version": "550.1", "cuda_version": None, "gpus": []})
    assert (facts, warnings) == ({"driver_version": "550.1", "cuda_version": None, "count": 0, "gpus": [], "gres_conf": [],
                                  "slurm_gres": "", "pci_gpus": [], "nvswitches": [], "nvlink_all_to_all": False,
                                  "fabric_manager_needed": False}, [])


# ---------------------------------------------------------------------------
# PCI functions (sysfs) and NVSwitch fabric detection

# The hand-built trees under tests/fixtures/sysfs/handbuilt_* (see their READMEs and GPU_SOURCES.md).
# Their function directories use '_' for ':' (ansible-test's no-illegal-filenames).
SYSFS_H100 = "handbuilt_hgx-h100-8gpu"
SYSFS_A100 = "handbuilt_hgx-a100-8gpu"
SYSFS_RTX = "handbuilt_pcie-rtx3090-workstation"
H100_PCI_GPUS = ["0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0", "0000:5d:00.0",
                 "0000:9a:00.0", "0000:ab:00.0", "0000:ba:00.0", "0000:db:00.0"]
H100_NVSWITCHES = ["0000:05:00.0", "0000:06:00.0", "0000:07:00.0", "0000:08:00.0"]
A100_PCI_GPUS = ["0000:07:00.0", "0000:0f:00.0", "0000:47:00.0", "0000:4e:00.0",
                 "0000:87:00.0", "0000:90:00.0", "0000:b7:00.0", "0000:bd:00.0"]
A100_NVSWITCHES = ["0000:c4:00.0", "0000:c5:00.0", "0000:c6:00.0", "0000:c7:00.0", "0000:c8:00.0", "0000:c9:00.0"]


def pci_entries(tree):
    """(address, vendor, class) of every function of a hand-built tree, None for a missing file."""
    base = os.path.join(FIXTURES, "sysfs", tree, "bus", "pci", "devices")
    entries = []
    for name in sorted(os.listdir(base)):
        values = []
        for leaf in ("vendor", "class"):
            path = os.path.join(base, name, leaf)
            values.append(fixture(os.path.join("sysfs", tree, "bus", "pci", "devices", name), leaf)
                          if os.path.exists(path) else None)
        entries.append((name.replace("_", ":"), values[0], values[1]))
    return entries


@pytest.mark.parametrize("tree, expected", [
    (SYSFS_H100, {"pci_gpus": H100_PCI_GPUS, "nvswitches": H100_NVSWITCHES}),
    (SYSFS_A100, {"pci_gpus": A100_PCI_GPUS, "nvswitches": A100_NVSWITCHES}),
    # The RTX 3090 is a VGA controller (0x030000); its HD audio function 0000:65:00.1 (0x040300) is not a GPU.
    (SYSFS_RTX, {"pci_gpus": ["0000:65:00.0"], "nvswitches": []}),
])
def test_pci_devices_of_hand_built_trees(tree, expected):
    # Host bridges (8086 0x060000), the ASPEED BMC VGA (1a03 0x030000) and ConnectX-7 (15b3 0x020700) are ignored.
    assert parse_pci_devices(pci_entries(tree)) == expected


GOOD_GPU = ("0000:3b:00.0", "0x10de\n", "0x030200\n")


@pytest.mark.parametrize("entry", [
    ("0000:3c:00.0", "zzz\n", "0x030200\n"),
    ("0000:3c:00.0", "0x10de\n", None),
    ("0000:3c:00.0", None, "0x030200\n"),
    ("0000:3c:00.0", "", ""),
    ("0000:3c:00.0", "0x10de\n", "0x0302\n"),
    ("0000:3c:00.0", "0x10de\n", "0x03020000\n"),
    ("0000:3c:00.0", "0x10de\n", "zzz"),
    ("0000:3c:00.0", "0x10dee\n", "0x030200\n"),
    ("0000:3c:00.0", "10de\n", "0x030200\n"),
    ("0000:3c:00.0", "0x10de 0x10de\n", "0x030200\n"),
    ("0000:3c:00.0", b"\xff\xfe\x00", b"0x030200\n"),
    ("0000:3c:00.0", 0x10de, 0x030200),
    ("not-a-function", "0x10de\n", "0x030200\n"),
    ("0000:3c:00.8", "0x10de\n", "0x030200\n"),
    ("3c:00.0", "0x10de\n", "0x030200\n"),
    (None, "0x10de\n", "0x030200\n"),
    ("0000:3c:00.0", "0x10de\n"),
    ("0000:3c:00.0 0x10de 0x030200",),
    "0000:3c:00.0",
    None,
    # NVIDIA functions that are neither: HD audio, USB (Turing), a PCI-to-PCI bridge, an IDE controller.
    ("0000:3c:00.1", "0x10de\n", "0x040300\n"),
    ("0000:3c:00.2", "0x10de\n", "0x0c0330\n"),
    ("0000:3c:00.0", "0x10de\n", "0x060400\n"),
    ("0000:00:08.0", "0x10de\n", "0x010185\n"),
    # Other vendors' GPUs and bridges.
    ("0000:03:00.0", "0x1a03\n", "0x030000\n"),
    ("0000:c4:00.0", "0x1002\n", "0x038000\n"),
    ("0000:00:00.0", "0x8086\n", "0x068000\n"),
])
def test_pci_devices_skip_garbage_and_other_functions(entry):
    assert parse_pci_devices([entry, GOOD_GPU]) == {"pci_gpus": ["0000:3b:00.0"], "nvswitches": []}


def test_pci_devices_forms_and_order():
    entries = [
        ("10000:00:00.0", "0x10de", "0x030200"),          # VMD domains are 5 hex digits: sorted as numbers
        ("0000:3B:00.0", "0x10DE\n", "0x030200\n"),        # upper case is read and reported in sysfs' lower case
        (b"0000:3b:00.0", b"0x10de\n", b"0x030200\n"),     # bytes, as the module reads them; a duplicate
        ("0000:0a:00.0", "  0x10de  \n", "0x038000\n"),    # display controller "other" is base class 0x03 too
        ("0000:02:00.0", "0x10de\n", "0x068000\n"),
        ("0000:01:00.0", "0x10de\n", "0x0680ff\n"),
    ]
    assert parse_pci_devices(entries) == {
        "pci_gpus": ["0000:0a:00.0", "0000:3b:00.0", "10000:00:00.0"],
        "nvswitches": ["0000:01:00.0", "0000:02:00.0"],
    }


@pytest.mark.parametrize("entries", [None, [], (), "0000:3b:00.0 0x10de 0x030200", {"0000:3b:00.0": ("0x10de", "0x030200")}, 7])
def test_pci_devices_of_nothing(entries):
    assert parse_pci_devices(entries) == {"pci_gpus": [], "nvswitches": []}


def topo_table(cells):
    """A topo -m matrix (tab separated, as the driver prints it) from {(i, j): cell} for i < j; other pairs SYS."""
    count = max(max(pair) for pair in cells) + 1
    lines = ["\t" + "\t".join("GPU%d" % i for i in range(count)) + "\tCPU Affinity\tNUMA Affinity"]
    for i in range(count):
        row = [" X " if i == j else cells.get((min(i, j), max(i, j)), "SYS") for j in range(count)]
        lines.append("GPU%d\t" % i + "\t".join(row) + "\t0-15\t0")
    return "\n".join(lines) + "\n"


def all_pairs(count, cell):
    return dict(((i, j), cell) for i in range(count) for j in range(i + 1, count))


def with_pair(cells, pair, cell):
    result = dict(cells)
    result[pair] = cell
    return result


@pytest.mark.parametrize("text, expected", [
    # NVSwitch: every GPU reports all its links towards every peer.
    (topo(TOPO_H100), True),                                   # 8x H100, NV18: 18 * 7 = 126
    (topo(TOPO_A100), True),                                   # 8x A100, NV12: 12 * 7 = 84
    (topo_table(all_pairs(4, "NV12")), True),                  # 4 GPUs of an 8x A100 NVSwitch board: 36
    # Direct meshes and bridges.
    (topo(TOPO_DGX1), False),                                  # DGX-1 hybrid cube mesh, NV1/NV2, not all pairs
    (topo(TOPO_ANSI), False),                                  # a single GPU
    (topo_table(all_pairs(4, "NV4")), False),                  # 4x A100 HGX: 4 * 3 = 12
    (topo_table(all_pairs(4, "NV6")), False),                  # 4x H100 HGX: 6 * 3 = 18, not more than 18
    (topo_table(all_pairs(2, "NV4")), False),                  # 2-GPU NVLink bridge
    (topo_table(all_pairs(2, "NV18")), False),                 # 18 * 1 = 18: not told from a direct link
    (topo_table(all_pairs(8, "NV18")), True),                  # the hand-built table reads like the capture
    (topo_table(with_pair(all_pairs(8, "NV18"), (0, 1), "NV17")), False),  # one pair differs
    (topo_table(with_pair(all_pairs(8, "NV12"), (2, 5), "SYS")), False),   # one pair without NVLink
    (topo_table(all_pairs(8, "PIX")), False),                  # PCIe only
])
def test_nvlink_all_to_all_from_topo(text, expected):
    result = parse_topo(text)
    assert nvlink_all_to_all(result["gpus"]) is expected


def test_nvlink_all_to_all_takes_build_facts_gpus():
    # build_facts keys nvlinks by peer index as a string (JSON keys); the answer is the same.
    # Two machines: the 8x V100S -q -x with the sglang 8x H100 topo.
    facts, _warnings = build_facts(parse_smi_xml(xml(V100S_8X)), parse_topo(topo(TOPO_H100)), P5_CPUS)
    assert facts["gpus"][0]["nvlinks"] == dict(("%d" % peer, 18) for peer in range(1, 8))
    assert nvlink_all_to_all(facts["gpus"]) is True


@pytest.mark.parametrize("gpus", [
    None, [], "GPU0 NV18", {0: {1: 18}},
    [{"index": 0, "nvlinks": {}}],
    [{"index": 0, "nvlinks": {1: 18}}, {"index": 0, "nvlinks": {1: 18}}],
    [{"index": 0, "nvlinks": {1: 18}}, {"index": 1, "nvlinks": None}],
    [{"index": 0, "nvlinks": {1: 18}}, {"index": 1}],
    [{"index": 0, "nvlinks": {1: 18}}, "GPU1"],
    [{"index": "zero", "nvlinks": {1: 18}}, {"index": 1, "nvlinks": {0: 18}}],
    [{"index": True, "nvlinks": {1: 18}}, {"index": 1, "nvlinks": {True: 18}}],
    [{"index": 0, "nvlinks": {1: "18"}}, {"index": 1, "nvlinks": {0: "18"}}],
    [{"index": 0, "nvlinks": {1: True}}, {"index": 1, "nvlinks": {0: True}}],
    [{"index": 0, "nvlinks": {1: 0}}, {"index": 1, "nvlinks": {0: 0}}],
    [{"index": 0, "nvlinks": {1: -30}}, {"index": 1, "nvlinks": {0: -30}}],
    [{"index": 0, "nvlinks": {"1": 30, 1: 30}}, {"index": 1, "nvlinks": {0: 30}}],
    [{"index": 0, "nvlinks": {"x": 30}}, {"index": 1, "nvlinks": {0: 30}}],
    [{"index": 0, "nvlinks": {1: 30, 0: 30}}, {"index": 1, "nvlinks": {0: 30, 1: 30}}],
    [{"index": 0, "nvlinks": {2: 30}}, {"index": 1, "nvlinks": {0: 30}}],
])
def test_nvlink_all_to_all_unreadable_is_false(gpus):
    assert nvlink_all_to_all(gpus) is False


def test_nvlink_all_to_all_reads_its_input_only():
    gpus = parse_topo(topo(TOPO_A100))["gpus"]
    before = repr(gpus)
    assert nvlink_all_to_all(gpus) is True
    assert repr(gpus) == before


@pytest.mark.parametrize("pci, topo_gpus, expected", [
    (None, None, {"pci_gpus": [], "nvswitches": [], "nvlink_all_to_all": False, "fabric_manager_needed": False}),
    # NVSwitch chips on the PCI bus: needed even before nvidia-smi can tell the topology.
    ({"pci_gpus": H100_PCI_GPUS, "nvswitches": H100_NVSWITCHES}, None,
     {"pci_gpus": H100_PCI_GPUS, "nvswitches": H100_NVSWITCHES, "nvlink_all_to_all": False, "fabric_manager_needed": True}),
    # The NVLink counts alone (sysfs not read, or switches not on the PCI bus).
    (None, parse_topo(topo(TOPO_H100))["gpus"],
     {"pci_gpus": [], "nvswitches": [], "nvlink_all_to_all": True, "fabric_manager_needed": True}),
    ({"pci_gpus": ["0000:65:00.0"], "nvswitches": []}, parse_topo(topo(TOPO_ANSI))["gpus"],
     {"pci_gpus": ["0000:65:00.0"], "nvswitches": [], "nvlink_all_to_all": False, "fabric_manager_needed": False}),
    ("garbage", "garbage", {"pci_gpus": [], "nvswitches": [], "nvlink_all_to_all": False, "fabric_manager_needed": False}),
])
def test_fabric_facts(pci, topo_gpus, expected):
    assert fabric_facts(pci, topo_gpus) == expected


def test_build_facts_hgx_h100_board():
    # Three sources: the 8x V100S -q -x, the sglang 8x H100 topo and the hand-built HGX H100 PCI tree.
    facts, warnings = build_facts(parse_smi_xml(xml(V100S_8X)), parse_topo(topo(TOPO_H100)), P5_CPUS,
                                  pci_devices=parse_pci_devices(pci_entries(SYSFS_H100)))
    assert warnings == []
    assert (facts["pci_gpus"], facts["nvswitches"]) == (H100_PCI_GPUS, H100_NVSWITCHES)
    assert (facts["nvlink_all_to_all"], facts["fabric_manager_needed"]) == (True, True)
    assert facts["count"] == 8
    assert facts["gres_conf"][0] == "Name=gpu Type=tesla_v100s-pcie-32gb File=/dev/nvidia0 Cores=0-47 Links=-1,18,18,18,18,18,18,18"


def test_build_facts_dgx1_mesh_needs_no_fabric_manager():
    facts, _warnings = build_facts(parse_smi_xml(xml(V100S_8X)), parse_topo(topo(TOPO_DGX1)), DGX1_CPUS,
                                   pci_devices={"pci_gpus": [], "nvswitches": []})
    assert (facts["nvlink_all_to_all"], facts["fabric_manager_needed"]) == (False, False)


def test_build_facts_topo_of_other_size_gives_no_all_to_all():
    # The T4 (1 GPU) with the 8x H100 NV18 topo: the topo is dropped, so is its all-to-all.
    facts, warnings = build_facts(parse_smi_xml(xml(T4)), parse_topo(topo(TOPO_H100)), P5_CPUS)
    assert warnings == ["nvidia-smi topo -m lists 8 GPUs but nvidia-smi -q -x 1: CPU affinity and NVLinks left out"]
    assert (facts["nvlink_all_to_all"], facts["fabric_manager_needed"]) == (False, False)


# ---------------------------------------------------------------------------
# Property-based: garbage in -> GpuFactsError or a valid result, never another exception

XML_SEEDS = [xml(name) for name in sorted(os.listdir(os.path.join(FIXTURES, "nvidia-smi-xml")))
             if name.endswith(".xml")] + [TRUNCATED_V100S]
TOPO_SEEDS = [topo(name) for name in sorted(os.listdir(os.path.join(FIXTURES, "nvidia-smi-topo")))]
LIST_SEEDS = [listing(name) for name in sorted(os.listdir(os.path.join(FIXTURES, "nvidia-smi-L")))]
FUZZ = settings(max_examples=400, deadline=None, database=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

NASTY = st.sampled_from(["<", ">", "</gpu>", "<gpu>", "\x00", "\x1b[4m", "\t", "\n", "N/A", "NV", "NV99", "X", "-",
                         ",", "GPU0", "GPU9", "NIC0", "99999999999", "-1", "&amp;", "<![CDATA[", "\ufffd", "\r\n",
                         "CPU Affinity", "MIG", "(UUID: ", "Device", ":"])


@st.composite
def mutated(draw, seeds):
    """A capture with a few random slices deleted, replaced or cut."""
    text = draw(st.sampled_from(seeds))
    for _round in range(draw(st.integers(1, 4))):
        start = draw(st.integers(0, len(text)))
        end = draw(st.integers(start, min(len(text), start + 200)))
        action = draw(st.sampled_from(["delete", "replace", "insert", "truncate"]))
        if action == "truncate":
            text = text[:start]
        else:
            piece = "" if action == "delete" else draw(st.one_of(NASTY, st.text(max_size=20)))
            text = text[:start] + piece + text[end if action != "insert" else start:]
    return text


def garbage(seeds):
    return st.one_of(st.text(max_size=300), st.binary(max_size=300), mutated(seeds))


def check_smi(data):
    try:
        smi = parse_smi_xml(data)
    except GpuFactsError as exc:
        assert "\n" not in str(exc)
        return
    assert isinstance(smi["gpus"], list)
    try:
        facts, _warnings = build_facts(smi, parse_topo(topo(TOPO_ANSI)), smt_topology(1, 10),
                                       listing=[], mig_minors=parse_mig_minors(MIG_MINORS))
    except GpuFactsError as exc:
        assert "\n" not in str(exc)
        return
    assert facts["count"] == len(smi["gpus"])
    assert all(line.startswith("Name=gpu Type=") for line in facts["gres_conf"])


@FUZZ
@given(garbage(XML_SEEDS))
def test_fuzz_smi_xml(data):
    check_smi(data)


@FUZZ
@given(garbage(TOPO_SEEDS))
def test_fuzz_topo(data):
    try:
        result = parse_topo(data)
    except GpuFactsError as exc:
        assert "\n" not in str(exc)
        return
    assert result["columns"][0] == "GPU0"
    for gpu in result["gpus"]:
        if gpu["cpu_affinity"] is not None:
            slurm_cores(cpu_list(gpu["cpu_affinity"]), P5_CPUS)


@FUZZ
@given(garbage(LIST_SEEDS))
def test_fuzz_list(data):
    try:
        result = parse_smi_list(data)
    except GpuFactsError as exc:
        assert "\n" not in str(exc)
        return
    assert result and all(gpu["uuid"] for gpu in result)
    try:
        slurm_gres([{"index": gpu["index"], "slurm_type": slurm_type_name(gpu["name"]), "mig_mode": "enabled",
                     "mig_devices": [dict(mig, memory_mib=None) for mig in gpu["mig_devices"]]} for gpu in result])
    except GpuFactsError as exc:
        assert "\n" not in str(exc)


@FUZZ
@given(st.one_of(st.text(max_size=80), st.binary(max_size=80),
                 st.lists(st.one_of(st.integers(-5, 70000).map(str), st.sampled_from(["-", ",", " ", "a"])),
                          max_size=12).map("".join)))
def test_fuzz_cpu_list_and_mig_minors(data):
    for parser in (cpu_list, parse_mig_minors):
        try:
            parser(data)
        except GpuFactsError as exc:
            assert "\n" not in str(exc)


SYSFS_TEXT = st.one_of(st.none(), st.text(max_size=12), st.binary(max_size=12),
                       st.sampled_from(["0x10de\n", "0x030200\n", "0x068000\n", "0x040300\n", "0x15b3\n", "0x", "0x10de0"]))


@FUZZ
@given(st.one_of(
    st.lists(st.tuples(st.one_of(st.sampled_from(["0000:3b:00.0", "0000:05:00.0", "ffff:ff:1f.7"]), st.text(max_size=16),
                                 st.binary(max_size=16), st.none(), st.integers()), SYSFS_TEXT, SYSFS_TEXT), max_size=6),
    st.lists(st.one_of(st.none(), st.text(max_size=8), st.tuples(SYSFS_TEXT), st.lists(SYSFS_TEXT, max_size=4)), max_size=4),
    st.text(max_size=20), st.none(), st.integers()))
def test_fuzz_pci_devices(entries):
    result = parse_pci_devices(entries)
    assert sorted(result) == ["nvswitches", "pci_gpus"]
    for addresses in result.values():
        assert all(isinstance(address, str) and address == address.lower() for address in addresses)
        assert len(set(addresses)) == len(addresses)


PEER = st.one_of(st.integers(-1, 9), st.sampled_from(["0", "1", "2", "x", ""]), st.booleans(), st.none())


@FUZZ
@given(st.one_of(
    st.lists(st.fixed_dictionaries({"index": PEER, "nvlinks": st.one_of(
        st.dictionaries(PEER, st.one_of(st.integers(-2, 40), st.text(max_size=3), st.booleans(), st.none()), max_size=9),
        st.none(), st.text(max_size=5))}), max_size=9),
    st.lists(st.one_of(st.none(), st.integers(), st.text(max_size=5), st.dictionaries(st.text(max_size=6), PEER)), max_size=4),
    st.text(max_size=10), st.none()))
def test_fuzz_nvlink_all_to_all(gpus):
    assert nvlink_all_to_all(gpus) in (True, False)
    assert isinstance(fabric_facts({"pci_gpus": [], "nvswitches": []}, gpus)["fabric_manager_needed"], bool)


# --- readings (the GPU exporter's gauges) --------------------------------------


def _readings(name):
    with open(os.path.join(FIXTURES, "nvidia-smi-xml", name), "rb") as handle:
        return [gpu["readings"] for gpu in parse_smi_xml(handle.read(), readings=True)["gpus"]]


@pytest.mark.parametrize("name, expected", [
    # DTD v11: power_readings/power_draw and power_limit, clocks_throttle_reasons.
    ("datakit_8x-tesla-v100s-pcie-32gb.xml", {
        "utilization_gpu_pct": 97, "utilization_memory_pct": 52, "memory_used_mib": 31689, "memory_total_mib": 32510,
        "temperature_c": 66, "memory_temperature_c": 63, "slowdown_temperature_c": 87, "slowdown_margin_c": 21,
        "shutdown_margin_c": 24, "power_w": 232.8,
        "power_limit_w": 250.0, "clocks_mhz": {"graphics": 1410, "sm": 1410, "mem": 1107, "video": 1275}}),
    # v12: gpu_power_readings/power_draw and current_power_limit, clocks_event_reasons; utilization N/A.
    ("telegraf_a100-sxm4-v12.xml", {
        "utilization_gpu_pct": None, "utilization_memory_pct": None, "memory_used_mib": 50, "memory_total_mib": 81920,
        "temperature_c": 27, "memory_temperature_c": 44, "slowdown_temperature_c": 89, "slowdown_margin_c": 62,
        "shutdown_margin_c": 65, "power_w": 67.03,
        "power_limit_w": 500.0, "clocks_mhz": {"graphics": 1275, "sm": 1275, "mem": 1593, "video": 1275}}),
    # v13: instant_power_draw (no power_draw), power_state "Requested functionality has been deprecated".
    ("telegraf_dual_2070-v13.xml", {
        "utilization_gpu_pct": 0, "utilization_memory_pct": 0, "memory_used_mib": 1, "memory_total_mib": 8192,
        "temperature_c": 14, "memory_temperature_c": None, "slowdown_temperature_c": 91, "slowdown_margin_c": 77,
        "shutdown_margin_c": 80, "power_w": 9.23,
        "power_limit_w": 175.0, "clocks_mhz": {"graphics": 300, "sm": 300, "mem": 405, "video": 540}}),
    # A GPU without power readings (Quadro P400: N/A).
    ("telegraf_quadro-p400.xml", {
        "utilization_gpu_pct": 0, "utilization_memory_pct": 3, "memory_used_mib": 0, "memory_total_mib": 1998,
        "temperature_c": 33, "memory_temperature_c": None, "slowdown_temperature_c": 100, "slowdown_margin_c": 67,
        "shutdown_margin_c": 70, "power_w": None,
        "power_limit_w": None, "clocks_mhz": {"graphics": 139, "sm": 139, "mem": 405, "video": 544}}),
    # Driver 580 (T.Limit): gpu_temp_tlimit 37 C, slowdown at -2 C and shutdown at -8 C from T.Limit, no absolute
    # thresholds. Margins 37 - (-2) = 39 and 37 - (-8) = 45: slowdown at 50 + 39 = 89 C, as NVML said on that machine.
    (H100_580, {
        "utilization_gpu_pct": 0, "utilization_memory_pct": 0, "memory_used_mib": 0, "memory_total_mib": 81559,
        "temperature_c": 50, "memory_temperature_c": 53, "slowdown_temperature_c": None, "slowdown_margin_c": 39,
        "shutdown_margin_c": 45, "power_w": 80.3, "power_limit_w": 700.0,
        "clocks_mhz": {"graphics": 345, "sm": 345, "mem": 2619, "video": 765}}),
    # Driver 590 Blackwell, the same layout: tlimit 68 C, slowdown -2 C, shutdown -5 C.
    ("telegraf_pro-6000-maxq-blackwell-v13.xml", {
        "temperature_c": 24, "slowdown_temperature_c": None, "slowdown_margin_c": 70, "shutdown_margin_c": 73}),
])
def test_readings_of_each_layout(name, expected):
    readings = _readings(name)[0]
    assert dict((key, readings[key]) for key in expected) == expected


TLIMIT_PAIR = ("<temperature><gpu_temp_tlimit>30 C</gpu_temp_tlimit>"
               "<gpu_temp_slow_tlimit_threshold>-2 C</gpu_temp_slow_tlimit_threshold>")


@pytest.mark.parametrize("name, old, new, margins", [
    # DOCTORED (not captures): a T.Limit reading and slowdown offset added to the V100S's absolute thresholds:
    # the T.Limit pair wins for slowdown (30 - (-2)); shutdown has no T.Limit offset, so 90 - 66 from the absolutes.
    (V100S_8X, "<temperature>", TLIMIT_PAIR, (32, 24)),
    # The H100's T.Limit values garbled one at a time: what cannot be read gives no margin, never an error.
    (H100_580, "<gpu_temp_tlimit>37 C<", "<gpu_temp_tlimit>37.5 C<", (None, None)),
    (H100_580, "<gpu_temp_tlimit>37 C<", "<gpu_temp_tlimit>N/A<", (None, None)),
    (H100_580, "<gpu_temp_tlimit>37 C<", "<gpu_temp_tlimit>99999 C<", (None, None)),
    (H100_580, "<gpu_temp_slow_tlimit_threshold>-2 C<", "<gpu_temp_slow_tlimit_threshold>- 2 C<", (None, 45)),
    (H100_580, "<gpu_temp_max_tlimit_threshold>-8 C<", "<gpu_temp_max_tlimit_threshold>-8 F<", (39, None)),
    # Past the threshold the margin is negative: 37 C from T.Limit read as -5 C, so 3 C past slowdown.
    (H100_580, "<gpu_temp_tlimit>37 C<", "<gpu_temp_tlimit>-5 C<", (-3, 3)),
    # Absolute layout, hotter than its slowdown temperature: 88 C against 87 C.
    (V100S_8X, "<gpu_temp>66 C<", "<gpu_temp>88 C<", (-1, 2)),
])
def test_temperature_margins_of_doctored_captures(name, old, new, margins):
    readings = parse_smi_xml(doctored(name, 0, old, new), readings=True)["gpus"][0]["readings"]
    assert (readings["slowdown_margin_c"], readings["shutdown_margin_c"]) == margins


def test_clock_event_reasons():
    idle = _readings("telegraf_dual_2070-v13.xml")[0]["clock_event_reasons"]
    assert idle["gpu_idle"] is True and idle["hw_thermal_slowdown"] is False
    # Under load, two of the eight V100S hold their clocks down at the software power cap.
    busy = _readings("datakit_8x-tesla-v100s-pcie-32gb.xml")
    held = [(index, sorted(name for name, active in gpu["clock_event_reasons"].items() if active))
            for index, gpu in enumerate(busy)]
    assert [item for item in held if item[1]] == [(3, ["sw_power_cap"]), (6, ["sw_power_cap"])]


def test_readings_and_processes_only_when_asked():
    with open(os.path.join(FIXTURES, "nvidia-smi-xml", "datakit_8x-tesla-v100s-pcie-32gb.xml"), "rb") as handle:
        text = handle.read()
    plain = parse_smi_xml(text)["gpus"][0]
    assert "readings" not in plain and "processes" not in plain
    full = parse_smi_xml(text, processes=True, readings=True)["gpus"][0]
    assert full["processes"] == [{"pid": 37305, "type": "C", "name": "python", "used_memory_mib": 31683}]


def test_build_facts_h200_580_from_one_machine():
    # -q -x, topo -m and -L of the device tool's H200 VM; lscpu -p of the same capture: 16 CPUs, one socket,
    # one core each. What gpu_facts returned on that machine (tools/device/gpu-check.sh) is the same.
    smi = parse_smi_xml(xml(H200_580))
    listed = parse_smi_list(listing(LIST_H200_580))
    facts, warnings = build_facts(smi, parse_topo(topo(TOPO_H200_580)), dict((cpu, (0, cpu)) for cpu in range(16)),
                                  listing=listed)
    assert warnings == []
    assert facts["count"] == 1
    assert facts["gres_conf"] == ["Name=gpu Type=nvidia_h200 File=/dev/nvidia0 Cores=0-15"]
    assert facts["slurm_gres"] == "gpu:nvidia_h200:1"
    gpu = facts["gpus"][0]
    assert (gpu["pci_bus_id"], gpu["uuid"], gpu["memory_mib"]) == ("00000000:00:06.0", H200_580_UUID, 143771)
    assert (facts["nvlink_all_to_all"], facts["fabric_manager_needed"]) == (False, False)
