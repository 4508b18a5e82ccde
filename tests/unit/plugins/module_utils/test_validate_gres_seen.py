# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""gres_seen: what slurmd -G prints, against gpu_facts.

The captures under tests/fixtures/slurmd-G are slurmd's own output (listed in
tests/fixtures/VALIDATE_SOURCES.md), with the gres.conf the collection wrote from
the replayed nvidia-smi captures of the Molecule clusters.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible_collections.gpuops.cluster.plugins.module_utils.gpu._gpu_facts import build_facts, parse_smi_xml
from ansible_collections.gpuops.cluster.plugins.module_utils.validate._validate_checks import (
    gres_seen_result,
    node_checks,
    parse_slurmd_gres,
)

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures", "slurmd-G")


def _read(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def _gpus(kind, count, first_minor=0):
    return {"gpus": [{"index": i, "minor_number": first_minor + i, "slurm_type": kind, "mig_mode": None,
                      "mig_devices": []} for i in range(count)],
            "slurm_gres": "gpu:%s:%d" % (kind, count)}


V100S = "tesla_v100s-pcie-32gb"


def test_slurm_24_11_prints_one_record_with_a_file_range():
    records = parse_slurmd_gres(_read("slurm-24.11.5_debian13_configless_8x-v100s.txt"))
    assert records == [{"Name": "gpu", "Type": V100S, "Count": "8", "Index": "0", "ID": "7696487",
                        "File": "/dev/nvidia[0-7]", "Links": "(null)",
                        "Flags": "HAS_FILE,HAS_TYPE,ENV_NVML,ENV_RSMI,ENV_ONEAPI,ENV_OPENCL,ENV_DEFAULT"}]


@pytest.mark.parametrize("name, kind, count", [
    # 22.05 ends the record with its links as a bare "(null)".
    ("slurm-22.05.8_debian12_8x-v100s.txt", V100S, 8),
    ("slurm-24.11.5_debian13_configless_8x-v100s.txt", V100S, 8),
    # 26.05 prefixes its log lines with the time, and logs other things first.
    ("slurm-26.05.3_debian12_8x-v100s.txt", V100S, 8),
])
def test_the_gpus_slurmd_sees_are_the_ones_gpu_facts_found(name, kind, count):
    res = gres_seen_result("gpu01", {"rc": 0, "stdout": "", "stderr": _read(name)}, _gpus(kind, count))
    assert res["status"] == "pass", res
    assert res["message"].startswith("slurmd sees the %d GPUs gpu_facts found (%s on /dev/nvidia0, " % (count, kind))


H200_XML = os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures", "nvidia-smi-xml",
                        "gpuops_h200_580.159.04_tlimit-v13.xml")


@pytest.mark.parametrize("gres_conf", ["autodetect-nvml", "autodetect-nvidia", "gpu-facts", "nvml-and-ours"])
def test_slurms_own_detection_of_a_real_h200_agrees_with_gpu_facts(gres_conf):
    # slurmd 26.05.3 (the collection's build, with NVML) on a real H200; gpu_facts from that machine's nvidia-smi -q -x.
    with open(H200_XML) as handle:
        gpus = build_facts(parse_smi_xml(handle.read()))[0]
    text = _read("slurm-26.05.3_ubuntu24.04_1x-h200_%s.txt" % gres_conf)
    assert [record["Type"] for record in parse_slurmd_gres(text)] == ["nvidia_h200"]
    res = gres_seen_result("gpu01", {"rc": 0, "stdout": "", "stderr": text}, gpus)
    assert res["status"] == "pass", res
    assert res["message"] == "slurmd sees the 1 GPU gpu_facts found (nvidia_h200 on /dev/nvidia0)"


def test_a_gpu_slurmd_does_not_see_is_named():
    res = gres_seen_result("gpu01", _read("slurm-24.11.5_debian13_configless_8x-v100s.txt"), _gpus(V100S, 9))
    assert res["status"] == "fail"
    assert "slurmd sees 8 GPUs, gpu_facts 9; only slurmd: none; only gpu_facts: %s on /dev/nvidia8." % V100S \
        in res["message"]


def test_a_type_slurm_names_otherwise_is_named_on_both_sides():
    text = "slurmd: Gres Name=gpu Type=nvidia_h100_80gb_hbm3 Count=1 Index=0 ID=7696487 File=/dev/nvidia0 " \
           "Links=(null) Flags=HAS_FILE,HAS_TYPE,ENV_NVML"
    res = gres_seen_result("gpu01", text, _gpus("h100_80gb_hbm3", 1))
    assert res["status"] == "fail"
    assert "only slurmd: nvidia_h100_80gb_hbm3 on /dev/nvidia0; only gpu_facts: h100_80gb_hbm3 on /dev/nvidia0" \
        in res["message"]


def test_no_gpu_and_no_gres_passes():
    res = gres_seen_result("cpu01", {"rc": 0, "stdout": "", "stderr": ""}, {"gpus": [], "slurm_gres": ""})
    assert res["status"] == "pass" and res["message"] == "no GPU: slurmd sees none, as gpu_facts"


def test_slurmd_failing_is_reported_with_its_words():
    res = gres_seen_result("gpu01", {"rc": 1, "stdout": "", "stderr": "slurmd: fatal: Unable to determine this slurmd's NodeName"},
                           _gpus(V100S, 1))
    assert res["status"] == "fail"
    assert res["message"] == "slurmd -G failed (rc 1): slurmd: fatal: Unable to determine this slurmd's NodeName"


def test_mig_is_compared_by_count():
    gpus = {"gpus": [{"index": 0, "minor_number": 0, "slurm_type": "a100", "mig_mode": "enabled",
                      "mig_devices": [{"index": 0}, {"index": 1}]}], "slurm_gres": "gpu:1g.5gb:2"}
    text = "\n".join("slurmd: Gres Name=gpu Type=1g.5gb Count=1 Index=%d ID=7696487 File=/dev/nvidia0,"
                     "/dev/nvidia-caps/nvidia-cap%d Links=(null) Flags=HAS_FILE,HAS_TYPE,ENV_NVML" % (i, 21 + i)
                     for i in range(2))
    res = gres_seen_result("gpu01", text, gpus)
    assert res["status"] == "pass", res


def test_garbage_gives_a_failed_check_not_a_traceback():
    for text in ("slurmd: Gres Name=gpu Type=x Count=99999999999999999999999999 File=(null)",
                 "slurmd: Gres Name=gpu Type=x Count=100000000000000 File=(null)",
                 "slurmd: Gres Name=gpu Type=x Count=1 File=/dev/nvidia[9-", b"\xff\xfe", None, 7):
        res = gres_seen_result("gpu01", text, _gpus(V100S, 1))
        assert res["status"] == "fail"


def test_the_node_checks_carry_gres_seen_for_a_compute_node_only():
    data = {"node": "gpu01", "role": "compute", "gpus": _gpus(V100S, 8),
            "slurmd_gres": {"rc": 0, "stdout": "", "stderr": _read("slurm-24.11.5_debian13_configless_8x-v100s.txt")}}
    checks = [item["check"] for item in node_checks(data, {})]
    assert "gres_seen" in checks
    assert "gres_seen" not in [item["check"] for item in node_checks(dict(data, role="controller"), {})]
