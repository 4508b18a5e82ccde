# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""GPU metric samples (module_utils/monitoring/_gpu_metrics.py) over real captures and the health check's GPU-to-job map."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible_collections.gpuops.cluster.plugins.module_utils.gpu._gpu_facts import parse_smi_xml
from ansible_collections.gpuops.cluster.plugins.module_utils.monitoring._gpu_metrics import (
    FAMILIES,
    PREFIX,
    GpuMetricsError,
    check_samples,
    exposition,
    gpu_labels,
    gpu_samples,
    grouped,
    job_labels,
    nvlink_samples,
    parse_nvlink_errors,
    rdma_samples,
    xid_samples,
)

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures", "nvidia-smi-xml")
NVLINK = os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures", "nvidia-smi-nvlink")


def _smi(name):
    with open(os.path.join(FIXTURES, name), "rb") as handle:
        return parse_smi_xml(handle.read(), readings=True)


def _find(samples, name, **labels):
    return [value for metric, have, value in samples
            if metric == PREFIX + name and all(have.get(key) == want for key, want in labels.items())]


H100_580 = "gpuops_h100-80gb-hbm3_580.159.04_tlimit-v13.xml"
JOB_MAP = {3: {"minor": 3, "job_id": "42", "user": "alice", "uid": "3101", "account": "chem", "partition": "gpu"}}


def test_every_gpu_is_labelled_with_the_job_that_holds_it():
    samples = gpu_samples(_smi("datakit_8x-tesla-v100s-pcie-32gb.xml"), JOB_MAP)
    assert _find(samples, "exporter_up") == [1]
    assert len(_find(samples, "info")) == 8
    assert _find(samples, "utilization_ratio", gpu="3", job_id="42", user="alice", account="chem") == [0.23]
    assert len(_find(samples, "utilization_ratio", job_id="")) == 7
    assert _find(samples, "power_watts", gpu="0") == [232.8]
    assert _find(samples, "memory_used_bytes", gpu="0") == [31689 * 1024 * 1024]
    assert _find(samples, "clock_hertz", gpu="0", clock="sm") == [1410000000]
    assert _find(samples, "clock_event_active", gpu="3", reason="sw_power_cap") == [1]
    assert _find(samples, "ecc_uncorrectable_errors", gpu="0", scope="volatile") == [0]
    assert _find(samples, "pcie_link_width", gpu="0", which="max") == [16]


def test_what_a_gpu_does_not_report_is_left_out():
    samples = gpu_samples(_smi("telegraf_a100-sxm4-v12.xml"))
    assert _find(samples, "utilization_ratio") == []
    assert _find(samples, "memory_temperature_celsius") == [44]
    quadro = gpu_samples(_smi("telegraf_quadro-p400.xml"))
    assert _find(quadro, "power_watts") == [] and _find(quadro, "ecc_uncorrectable_errors") == []


@pytest.mark.parametrize("name, temperature, slowdown, slowdown_margin, shutdown_margin", [
    # Absolute thresholds (slowdown 87 C, shutdown 90 C): exported, and the margins computed from them.
    ("datakit_8x-tesla-v100s-pcie-32gb.xml", 66, [87], 21, 24),
    ("telegraf_a100-sxm4-v12.xml", 27, [89], 62, 65),
    # Driver 580 prints T.Limit margins only: no slowdown temperature, the margins from T.Limit
    # (37 - (-2) and 37 - (-8)).
    (H100_580, 50, [], 39, 45),
    ("telegraf_pro-6000-maxq-blackwell-v13.xml", 24, [], 70, 73),
])
def test_temperature_margins_of_both_layouts(name, temperature, slowdown, slowdown_margin, shutdown_margin):
    samples = gpu_samples(_smi(name))
    assert _find(samples, "temperature_celsius", gpu="0") == [temperature]
    assert _find(samples, "slowdown_temperature_celsius", gpu="0") == slowdown
    assert _find(samples, "temp_slowdown_margin_celsius", gpu="0") == [slowdown_margin]
    assert _find(samples, "temp_shutdown_margin_celsius", gpu="0") == [shutdown_margin]


def test_the_h100_on_580_in_the_text_format():
    text = exposition(gpu_samples(_smi(H100_580), {0: {"job_id": "7", "user": "bob", "account": "phys"}}))
    labels = ('account="phys",gpu="0",job_id="7",minor="0",model="NVIDIA H100 80GB HBM3",'
              'user="bob",uuid="GPU-104baf67-c9e7-9043-3448-86f3e2175141"')
    lines = text.splitlines()
    assert "gpuops_gpu_temp_slowdown_margin_celsius{%s} 39.0" % labels in lines
    assert "gpuops_gpu_temp_shutdown_margin_celsius{%s} 45.0" % labels in lines
    assert "# TYPE gpuops_gpu_temp_slowdown_margin_celsius gauge" in lines
    assert not any(line.startswith("gpuops_gpu_slowdown_temperature_celsius") for line in lines)
    assert ('gpuops_gpu_info{account="phys",driver="580.159.04",gpu="0",job_id="7",minor="0",'
            'model="NVIDIA H100 80GB HBM3",pci_bus_id="00000000:00:06.0",user="bob",'
            'uuid="GPU-104baf67-c9e7-9043-3448-86f3e2175141"} 1.0') in lines


def test_no_usable_output_is_exporter_up_0_with_the_reason():
    assert gpu_samples(None, error="nvidia-smi did not answer within 10s") == [
        (PREFIX + "exporter_up", {"reason": "nvidia-smi did not answer within 10s"}, 0)]


def test_every_name_has_a_family_and_labels_are_strings():
    for name in ("datakit_8x-tesla-v100s-pcie-32gb.xml", "telegraf_dual_2070-v13.xml", "telegraf_a100-sxm4-v12.xml",
                 H100_580):
        for metric, labels, value in gpu_samples(_smi(name), JOB_MAP):
            assert metric[len(PREFIX):] in FAMILIES, metric
            assert all(isinstance(item, str) for item in labels.values()), labels
            assert isinstance(value, (int, float)) and not isinstance(value, bool)


def test_job_labels():
    assert job_labels(JOB_MAP, 3) == {"job_id": "42", "user": "alice", "account": "chem"}
    assert job_labels({"3": JOB_MAP[3]}, 3)["user"] == "alice"
    assert job_labels(None, 0) == {"job_id": "", "user": "", "account": ""}


def test_xid_counts_are_matched_to_the_gpu_by_pci_bus_id():
    smi = _smi("datakit_8x-tesla-v100s-pcie-32gb.xml")
    bus = smi["gpus"][7]["pci_bus_id"]  # 00000000:00:14.0
    state = {"counts": [{"pci": "0000:00:14", "xid": 79, "count": 2}, {"pci": "0000:ff:00", "xid": 13, "count": 1},
                        {"pci": "x", "xid": 1, "count": "many"}]}
    samples = xid_samples(state, smi)
    assert bus.lower().endswith("00:14.0")
    assert samples == [
        (PREFIX + "xid_errors_total", {"pci_bus_id": "0000:00:14", "xid": "79", "gpu": "7"}, 2),
        (PREFIX + "xid_errors_total", {"pci_bus_id": "0000:ff:00", "xid": "13", "gpu": ""}, 1),
    ]
    assert xid_samples(None) == [] and xid_samples({"counts": "garbage"}) == []


def test_rdma_ports_active_or_not():
    wanted = [("mlx5_0:1", {"state": "Active", "rate_gbps": 200}, 200), ("mlx5_1:1", {"state": "Down"}, 200),
              ("mlx5_2:1", None, 200)]
    assert rdma_samples(wanted) == [
        ("gpuops_rdma_port_active", {"device": "mlx5_0", "port": "1"}, 1),
        ("gpuops_rdma_port_rate_gbps", {"device": "mlx5_0", "port": "1"}, 200),
        ("gpuops_rdma_port_active", {"device": "mlx5_1", "port": "1"}, 0),
        ("gpuops_rdma_port_active", {"device": "mlx5_2", "port": "1"}, 0),
    ]


def test_grouped_families_keep_one_label_set_and_the_text_format_escapes():
    samples = [("gpuops_gpu_exporter_up", {"reason": 'nvidia-smi "failed"\nnext'}, 0),
               ("gpuops_gpu_xid_errors_total", {"gpu": "1", "pci_bus_id": "p", "xid": "79"}, 3),
               ("gpuops_gpu_xid_errors_total", {"other": "x"}, 1)]
    families = grouped(samples)
    assert [(name, kind, keys, len(rows)) for name, kind, dummy, keys, rows in families] == [
        ("gpuops_gpu_exporter_up", "gauge", ("reason",), 1),
        ("gpuops_gpu_xid_errors_total", "counter", ("gpu", "pci_bus_id", "xid"), 1),
    ]
    text = exposition(samples)
    assert 'gpuops_gpu_exporter_up{reason="nvidia-smi \\"failed\\"\\nnext"} 0.0' in text.splitlines()
    assert "# TYPE gpuops_gpu_xid_errors_total counter" in text


def test_a_scrape_of_8_gpus_in_the_text_format():
    smi = _smi("datakit_8x-tesla-v100s-pcie-32gb.xml")
    text = exposition(gpu_samples(smi, JOB_MAP))
    lines = [line for line in text.splitlines() if line.startswith(PREFIX + "info{")]
    assert len(lines) == 8
    assert sum('job_id="42"' in line and 'user="alice"' in line and 'account="chem"' in line for line in lines) == 1


# --- nvidia-smi nvlink -e ----------------------------------------------------------

ZERO3 = {"replay_errors": 0, "recovery_errors": 0, "crc_errors": 0}


def _nvlink(name):
    with open(os.path.join(NVLINK, name), "rb") as handle:
        return handle.read()


# (capture, GPU indexes, {GPU: links listed}, {(GPU, link): counters} checked)
NVLINK_CAPTURES = [
    ("brev-shadeform-report_8xa100-sxm4-40gb_535.161.08_i0.txt", [0], {0: list(range(12))},
     {(0, 0): ZERO3, (0, 1): ZERO3, (0, 11): ZERO3}),
    ("stas00-ml-engineering_h100-80gb-hbm3_excerpt.txt", [0], {0: [0, 1, 17]},
     {(0, 0): ZERO3, (0, 1): ZERO3, (0, 17): ZERO3}),
    # nvidia-smi nvlink -s of two A100 PCIe without NVLink: a GPU line, then one line that is not a link.
    ("hpe-e-learning_2xa100-pcie-40gb_555.42.02_nvlink-s_no-nvlink.txt", [0, 1], {0: [], 1: []}, {}),
]


@pytest.mark.parametrize("name, gpus, links, counters", NVLINK_CAPTURES, ids=[item[0] for item in NVLINK_CAPTURES])
def test_nvlink_errors_of_real_captures(name, gpus, links, counters):
    errors = parse_nvlink_errors(_nvlink(name))
    assert sorted(errors) == gpus
    assert dict((gpu, sorted(errors[gpu])) for gpu in errors) == links
    for (gpu, link), want in counters.items():
        assert errors[gpu][link] == want
    assert parse_nvlink_errors(_nvlink(name).decode("utf-8")) == errors


@pytest.mark.parametrize("name", ["gpuops_h100-80gb-hbm3_580.159.04_nvlink-e_empty.txt",
                                  "gpuops_h100-80gb-hbm3_580.159.04_nvlink-s_empty.txt"])
def test_nvlink_of_an_h100_without_nvlink_peers_on_580_prints_nothing(name):
    # The project's H100 in a VM: nvidia-smi nvlink -e and -s printed nothing at all (not the GPU line and
    # "Device does not have or support Nvlink" that other drivers print). No counters, so no NVLink samples.
    assert _nvlink(name) == b""
    with pytest.raises(GpuMetricsError) as err:
        parse_nvlink_errors(_nvlink(name))
    assert str(err.value) == "nvidia-smi nvlink -e: no GPU line in the output"


def test_nvlink_errors_of_concatenated_per_gpu_runs_and_newer_counters():
    # HAND-WRITTEN from the A100 capture: two runs of nvidia-smi nvlink -e -i N one after the other, and
    # counter lines of the names and values newer drivers print (per SOURCES.md, not a capture of one).
    one = _nvlink("brev-shadeform-report_8xa100-sxm4-40gb_535.161.08_i0.txt").decode("utf-8")
    two = one.replace("GPU 0:", "GPU 1:").replace("Link 3: CRC Errors: 0", "Link 3: CRC Errors: 7")
    extra = ("\t Link 0: CRC Flit Errors: 2\n\t Link 0: CRC Data Errors: N/A\n\t Link 0: Effective BER: 15e-255\n"
             "\t Link 0: FEC Errors - 0: 36140749276\n\t Link 0: Tx packets: 5\n\t Link 1: <inactive>\n")
    errors = parse_nvlink_errors(one + two + "GPU 2: NVIDIA GB200\n" + extra)
    assert sorted(errors) == [0, 1, 2]
    assert errors[1][3] == {"replay_errors": 0, "recovery_errors": 0, "crc_errors": 7}
    assert errors[2] == {0: {"crc_flit_errors": 2, "fec_errors_0": 36140749276, "tx_packets": 5}}


@pytest.mark.parametrize("text, message", [
    ("", "nvidia-smi nvlink -e: no GPU line in the output"),
    ("\n\n", "nvidia-smi nvlink -e: no GPU line in the output"),
    ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n",
     "nvidia-smi nvlink -e line 1: 'NVIDIA-SMI has failed because it couldn't communicate with t...' before any "
     "GPU line; not nvidia-smi nvlink -e output"),
    ("\t Link 0: Replay Errors: 0\n",
     "nvidia-smi nvlink -e line 1: 'Link 0: Replay Errors: 0' before any GPU line; not nvidia-smi nvlink -e output"),
    ("GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-1)\n\t Link 0: 25 GB/s\n",
     "nvidia-smi nvlink -e line 2: 'Link 0: 25 GB/s' is not 'Link N: counter: value'"),
    ("GPU 0: A (UUID: GPU-1)\nGPU 0: A (UUID: GPU-1)\n", "nvidia-smi nvlink -e line 2: GPU 0 is listed twice"),
    ("GPU 0: A\n\t Link 0: Replay Errors: %s\n" % ("9" * 30),
     "nvidia-smi nvlink -e line 2: replay_errors: the number 999999999999999999999999... has 30 digits; "
     "at most 18 are read"),
    (None, "nvidia-smi nvlink -e: output must be text, got NoneType"),
])
def test_nvlink_errors_of_what_is_not_nvlink_e_output(text, message):
    with pytest.raises(GpuMetricsError) as info:
        parse_nvlink_errors(text)
    assert str(info.value) == message


def test_nvlink_samples_carry_the_gpu_labels_and_only_error_counters():
    smi = _smi("datakit_8x-tesla-v100s-pcie-32gb.xml")
    errors = {3: {0: {"replay_errors": 1, "crc_flit_errors": 0, "tx_packets": 9}}, 42: {2: {"crc_errors": 5}}, 4: {}}
    samples = nvlink_samples(errors, smi, JOB_MAP)
    base = gpu_labels([gpu for gpu in smi["gpus"] if gpu["index"] == 3][0], JOB_MAP)
    assert base["job_id"] == "42" and base["uuid"]
    assert samples == [
        (PREFIX + "nvlink_errors_total", dict(base, link="0", counter="crc_flit_errors"), 0),
        (PREFIX + "nvlink_errors_total", dict(base, link="0", counter="replay_errors"), 1),
        (PREFIX + "nvlink_errors_total", {"gpu": "42", "minor": "", "uuid": "", "model": "", "job_id": "", "user": "",
                                          "account": "", "link": "2", "counter": "crc_errors"}, 5),
    ]
    assert FAMILIES["nvlink_errors_total"][0] == "counter"
    assert nvlink_samples({}) == [] and nvlink_samples(None) == []


def test_nvlink_samples_of_a_capture_without_smi_in_the_text_format():
    samples = nvlink_samples(parse_nvlink_errors(_nvlink("stas00-ml-engineering_h100-80gb-hbm3_excerpt.txt")))
    assert len(samples) == 9
    assert samples[0] == (PREFIX + "nvlink_errors_total", {
        "gpu": "0", "minor": "", "uuid": "", "model": "", "job_id": "", "user": "", "account": "", "link": "0",
        "counter": "crc_errors"}, 0)
    assert "# TYPE gpuops_gpu_nvlink_errors_total counter" in exposition(samples)


def test_gpu_samples_use_gpu_labels():
    smi = _smi("datakit_8x-tesla-v100s-pcie-32gb.xml")
    info = [labels for name, labels, dummy in gpu_samples(smi, JOB_MAP) if name == PREFIX + "info"]
    assert [dict((key, labels[key]) for key in gpu_labels(smi["gpus"][0])) for labels in info][3] == \
        gpu_labels(smi["gpus"][3], JOB_MAP)


def test_check_samples_of_the_active_run_and_of_the_pair_check_each_carry_their_run():
    from ansible_collections.gpuops.cluster.plugins.module_utils.health import _fabric_check as fabric
    active = {"epoch": 1800000000.5, "results": [
        {"check": "gpu_matmul", "status": "fail", "unit": "TFLOPS",
         "values": [{"gpu": 0, "value": 80.0, "expected": 100.0}, {"gpu": 1, "value": None, "expected": 100.0}]},
        {"check": "diag", "status": "not_run", "values": "junk"}, {"check": "xid", "status": "fail"}, "junk"]}
    assert check_samples(active) == [
        (PREFIX + "check_last_run_timestamp_seconds", {"run": "active"}, 1800000000.5),
        (PREFIX + "check_passed", {"check": "gpu_matmul"}, 0),
        (PREFIX + "check_value", {"check": "gpu_matmul", "gpu": "0", "unit": "TFLOPS"}, 80.0),
        (PREFIX + "check_expected", {"check": "gpu_matmul", "gpu": "0", "unit": "TFLOPS"}, 100.0),
        (PREFIX + "check_expected", {"check": "gpu_matmul", "gpu": "1", "unit": "TFLOPS"}, 100.0)]
    records = [fabric.fabric_entry(partner, {"value": value}, {"value": 100.0}, 0.15, 1800000000.0)
               for partner, value in (("gpu02", 12.0), ("gpu03", 95.0))]
    verdict = fabric.fabric_verdict("gpu01", records, ["gpu02", "gpu03"], 1800000100.0)["result"]
    pair = check_samples({"epoch": 1800000100.0, "results": [verdict]}, "fabric")
    labels = {"check": "fabric_allreduce", "gpu": "", "unit": "GB/s", "partner": "gpu02"}
    assert pair[:3] == [(PREFIX + "check_last_run_timestamp_seconds", {"run": "fabric"}, 1800000100.0),
                        (PREFIX + "check_passed", {"check": "fabric_allreduce"}, 1),
                        (PREFIX + "check_value", labels, 12.0)]
    assert (PREFIX + "check_value", dict(labels, partner="gpu03"), 95.0) in pair
    assert check_samples(None) == [] and check_samples({"results": "x"}) == []
