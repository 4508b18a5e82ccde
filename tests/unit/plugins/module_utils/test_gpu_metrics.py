# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""GPU metric samples (module_utils/_gpu_metrics.py) over real captures and the health check's GPU-to-job map."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

from ansible_collections.gpuops.cluster.plugins.module_utils._gpu_facts import parse_smi_xml
from ansible_collections.gpuops.cluster.plugins.module_utils._gpu_metrics import (
    FAMILIES,
    PREFIX,
    exposition,
    gpu_samples,
    grouped,
    job_labels,
    rdma_samples,
    xid_samples,
)

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures", "nvidia-smi-xml")


def _smi(name):
    with open(os.path.join(FIXTURES, name), "rb") as handle:
        return parse_smi_xml(handle.read(), readings=True)


def _find(samples, name, **labels):
    return [value for metric, have, value in samples
            if metric == PREFIX + name and all(have.get(key) == want for key, want in labels.items())]


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


def test_no_usable_output_is_exporter_up_0_with_the_reason():
    assert gpu_samples(None, error="nvidia-smi did not answer within 10s") == [
        (PREFIX + "exporter_up", {"reason": "nvidia-smi did not answer within 10s"}, 0)]


def test_every_name_has_a_family_and_labels_are_strings():
    for name in ("datakit_8x-tesla-v100s-pcie-32gb.xml", "telegraf_dual_2070-v13.xml", "telegraf_a100-sxm4-v12.xml"):
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
