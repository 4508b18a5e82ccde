# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The active GPU checks: the expectation table, the judgement of measurements, and where a run goes."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ansible_collections.gpuops.cluster.plugins.module_utils.health import _active as active
from ansible_collections.gpuops.cluster.plugins.module_utils.gpu._gpu_facts import parse_smi_xml
from ansible_collections.gpuops.cluster.plugins.module_utils.validate._validate import parse_scontrol_nodes

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures")
SMI = os.path.join(FIXTURES, "nvidia-smi-xml")


def _gpus(name):
    with open(os.path.join(SMI, name)) as handle:
        return parse_smi_xml(handle.read())["gpus"]


H100 = _gpus("gpuops_h100-80gb-hbm3_580.159.04_tlimit-v13.xml")
H200 = _gpus("gpuops_h200_580.159.04_tlimit-v13.xml")
A100 = _gpus("telegraf_a100-sxm4-v12.xml")
T4 = _gpus("telegraf_tesla-t4.xml")


@pytest.mark.parametrize("name, model", [
    ("NVIDIA H100 80GB HBM3", "H100 SXM"),
    ("NVIDIA H100 PCIe", "H100 PCIe"),
    ("NVIDIA H100 NVL", "H100 NVL"),
    ("NVIDIA H200", "H200"),
    ("NVIDIA B200", "B200"),
    ("NVIDIA GB200", None),
    ("NVIDIA A100-SXM4-80GB", "A100 SXM4 80GB"),
    ("NVIDIA A100-SXM4-40GB", "A100 SXM4 40GB"),
    ("NVIDIA A100 80GB PCIe", "A100 PCIe 80GB"),
    ("NVIDIA A100-PCIE-40GB", "A100 PCIe 40GB"),
    ("NVIDIA L40S", "L40S"),
    ("Tesla T4", None),
    ("NVIDIA GeForce RTX 3090", None),
    (None, None),
])
def test_the_table_knows_a_model_by_its_product_name(name, model):
    row = active.gpu_model(name)
    assert (row["model"] if row else None) == model


def test_every_row_has_a_source_and_positive_figures():
    for row in active.GPU_MODELS:
        assert row["source"] and row["bf16_tflops"] > 0 and row["memory_gbs"] > 0 and row["nvlink_gbs"] >= 0


def test_the_real_captures_read_as_their_models():
    assert [active.gpu_model(gpu["name"])["model"] for gpu in H100 + H200 + A100] == ["H100 SXM", "H200",
                                                                                      "A100 SXM4 80GB"]
    assert active.gpu_model(T4[0]["name"]) is None


def test_the_pcie_link_rate_comes_from_the_gpus_maximum_link():
    # The H100 capture reports gen 5 x16: 32 GT/s x 128/130 / 8 x 16 = 63.0 GB/s in each direction.
    assert round(active.pcie_link_gbs(H100[0]["pcie_link"]), 1) == 63.0
    assert round(active.pcie_link_gbs(A100[0]["pcie_link"]), 1) == 31.5
    assert round(active.pcie_link_gbs(T4[0]["pcie_link"]), 2) == 15.75
    assert active.pcie_link_gbs({"max_gen": 5, "max_width": None}) is None
    assert active.pcie_link_gbs(None) is None


def test_h100_expectations_are_the_datasheet_times_the_measurements_efficiency():
    expect = active.expectations(H100[0])
    assert expect["gpu_matmul"]["value"] == round(989.4 * 0.6, 1)
    assert expect["gpu_memory_bandwidth"]["value"] == round(3350 * 0.8, 1)
    assert expect["gpu_h2d_bandwidth"]["value"] == round(63.0154 * 0.7, 1)
    assert expect["nccl_allreduce"]["value"] == round(450 * 0.6, 1)
    assert "datasheet" in expect["gpu_matmul"]["source"]


def test_a_model_outside_the_table_is_measured_not_judged_unless_the_site_gives_a_value():
    expect = active.expectations(T4[0])
    assert expect["gpu_matmul"]["value"] is None and "not in the table" in expect["gpu_matmul"]["source"]
    assert expect["gpu_h2d_bandwidth"]["value"] is not None  # the PCIe link is known for any GPU
    site = {"Tesla T4": {"gpu_matmul": 40}, "H100 SXM": {"gpu_matmul": 700}}
    assert active.expectations(T4[0], site)["gpu_matmul"] == {"value": 40.0, "source": "node_health_active_expect"}
    assert active.expectations(H100[0], site)["gpu_matmul"]["value"] == 700.0


def _measured(matmul=700.0, memory=3000.0, h2d=52.0, d2h=53.0, allreduce=380.0, count=2):
    gpus = [{"index": index, "name": "NVIDIA H100 80GB HBM3", "gpu_matmul": matmul, "gpu_memory_bandwidth": memory,
             "gpu_h2d_bandwidth": h2d, "gpu_d2h_bandwidth": d2h} for index in range(count)]
    return json.dumps({"torch": "2.13.0+cu128", "gpus": gpus, "nccl_allreduce": allreduce, "seconds": 31.5})


def _by_check(results):
    return dict((item["check"], item) for item in results)


def test_healthy_h100s_pass_every_measured_check():
    res = _by_check(active.active_results("gpu01", active.parse_measurements(_measured()), H100 * 2, {}))
    assert [res[name]["status"] for name in active.MEASURED] == ["pass"] * 5
    assert res["gpu_matmul"]["measured"] == 700.0 and res["gpu_matmul"]["unit"] == "TFLOPS"
    assert [item["pass"] for item in res["gpu_matmul"]["values"]] == [True, True]


def test_a_slow_gpu_fails_with_its_index_value_and_expectation():
    doc = json.loads(_measured())
    doc["gpus"][1]["gpu_matmul"] = 400.0
    res = _by_check(active.active_results("gpu01", active.parse_measurements(json.dumps(doc)), H100 * 2, {}))
    assert res["gpu_matmul"]["status"] == "fail"
    assert res["gpu_matmul"]["message"] == ("bf16 matrix multiply: GPU 1 400 TFLOPS < 505 (expected 594 -15%)")
    assert [item["pass"] for item in res["gpu_matmul"]["values"]] == [True, False]
    assert res["gpu_memory_bandwidth"]["status"] == "pass"


def test_the_tolerance_setting_moves_the_floor():
    doc = active.parse_measurements(_measured(matmul=540.0))
    assert _by_check(active.active_results("n", doc, H100 * 2, {}))["gpu_matmul"]["status"] == "pass"
    assert _by_check(active.active_results("n", doc, H100 * 2, {"tolerance": 0.05}))["gpu_matmul"]["status"] == "fail"


def test_a_pcie_link_trained_below_its_maximum_shows_as_slow_host_copies():
    # A link at x8 moves about half of what the x16 the GPU reports as its maximum would.
    doc = active.parse_measurements(_measured(h2d=26.0, d2h=26.5))
    res = _by_check(active.active_results("n", doc, H100 * 2, {}))
    assert res["gpu_h2d_bandwidth"]["status"] == "fail" and res["gpu_d2h_bandwidth"]["status"] == "fail"
    assert "GPU 0 26.0 GB/s < 37.5" in res["gpu_h2d_bandwidth"]["message"]


def test_a_measurement_that_failed_fails_its_check_with_the_programs_reason():
    doc = json.loads(_measured())
    doc["gpus"][0]["gpu_memory_bandwidth"] = {"error": "RuntimeError: a device-to-device copy came back different"}
    res = _by_check(active.active_results("n", active.parse_measurements(json.dumps(doc)), H100 * 2, {}))
    assert res["gpu_memory_bandwidth"]["status"] == "fail"
    assert "GPU 0: RuntimeError: a device-to-device copy came back different" in res["gpu_memory_bandwidth"]["message"]


def test_nothing_measured_is_not_run_with_the_reason():
    doc = active.parse_measurements('{"torch": "2.13.0+cpu", "gpus": [], "error": "torch 2.13.0+cpu sees no CUDA GPU '
                                    '(a CPU build of PyTorch)"}')
    res = active.active_results("n", doc, H100, {})
    assert [item["status"] for item in res] == ["not_run"] * 5
    assert res[0]["message"] == "torch 2.13.0+cpu sees no CUDA GPU (a CPU build of PyTorch)"
    res = active.active_results("n", None, H100, {}, "no PyTorch environment")
    assert res[0]["message"] == "no PyTorch environment"


def test_switched_off_checks_are_left_out_and_one_gpu_has_no_allreduce():
    doc = active.parse_measurements(_measured(count=1))
    res = _by_check(active.active_results("n", doc, H100, {"checks": {"gpu_matmul": False}}))
    assert "gpu_matmul" not in res
    assert res["nccl_allreduce"]["status"] == "not_run" and "one GPU" in res["nccl_allreduce"]["message"]


def test_a_model_without_an_expectation_is_reported_not_judged():
    doc = active.parse_measurements(_measured())
    res = _by_check(active.active_results("n", doc, T4 * 2, {}))
    assert res["gpu_matmul"]["status"] == "not_run" and "measured, not judged" in res["gpu_matmul"]["message"]
    assert res["gpu_matmul"]["measured"] == 700.0


@pytest.mark.parametrize("text, words", [
    ("", "no JSON document"),
    ("Traceback (most recent call last):\n  File x\nRuntimeError: CUDA error", "no JSON document"),
    ("{not json", "not JSON"),
    ("[1, 2]", "no JSON document"),
    ('{"gpus": {}}', "list of mappings"),
    ('{"gpus": [{"index": "0"}]}', "no whole index"),
    (None, "must be text"),
])
def test_output_the_parser_cannot_read_says_why(text, words):
    with pytest.raises(active.ActiveCheckError, match=words):
        active.parse_measurements(text)


def test_the_last_json_line_is_the_document_after_library_noise():
    text = "NCCL INFO Bootstrap : Using eth0\n" + _measured() + "\n"
    assert len(active.parse_measurements(text)["gpus"]) == 2


@given(st.one_of(st.text(max_size=200), st.binary(max_size=200), st.none(), st.integers()))
def test_the_parser_raises_nothing_but_its_own_error(text):
    try:
        active.parse_measurements(text)
    except active.ActiveCheckError:
        pass


def test_settings_errors_name_the_variable_and_the_fix():
    assert active.settings_errors({"tolerance": 0.15, "expect": {}, "diag_level": 1}) == []
    errors = active.settings_errors({"tolerance": 1.5, "diag_level": 7, "timeout_s": 5, "deadline_h": 0,
                                     "python": "python3", "expect": {"H100": {"gpu_matmull": 1, "gpu_matmul": -1}}})
    text = " ".join(errors)
    for words in ("node_health_active_tolerance", "node_health_diag_level", "node_health_active_timeout_s",
                  "node_health_active_deadline_h", "node_health_active_python", "names 'gpu_matmull'",
                  "['H100'][gpu_matmul] must be a positive number"):
        assert words in text, words
    assert active.settings_errors("x") and active.settings_errors({"expect": []})


_VALUES = st.one_of(st.integers(), st.text(max_size=3), st.dictionaries(st.text(max_size=3), st.floats()))


@given(st.dictionaries(st.sampled_from(["tolerance", "diag_level", "expect", "timeout_s", "deadline_h", "python"]),
                       st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=5),
                                 st.dictionaries(st.text(max_size=5), _VALUES))))
def test_settings_errors_never_raise(settings):
    assert isinstance(active.settings_errors(settings), list)


def _node(state, reason=None):
    line = "NodeName=n State=%s Partitions=gpu,debug" % state + (" Reason=%s" % reason if reason else "")
    return parse_scontrol_nodes(line)["n"]


@pytest.mark.parametrize("state, reason, pending, action", [
    ("IDLE", None, False, "submit"),
    ("MIXED", None, False, "submit"),
    ("ALLOCATED", None, True, "skip"),
    ("IDLE+DRAIN", "gpuops-health: gpu_matmul: slow [root@2026-11-30T10:00:00]", False, "run"),
    ("DOWN+DRAIN", "gpuops-health: active: checks pending (boot) [root@2026-11-30T10:00:00]", False, "run"),
    ("MIXED+DRAIN", "gpuops-health: xid: XID 79 [root@2026-11-30T10:00:00]", False, "skip"),
    ("IDLE+DRAIN", "cable swap [root@2026-11-30T10:00:00]", False, "skip"),
    ("DOWN", "Not responding [slurm@2026-11-30T10:00:00]", False, "skip"),
])
def test_where_an_active_run_goes(state, reason, pending, action):
    assert active.active_plan(_node(state, reason), pending)["action"] == action


def test_an_unreadable_state_is_skipped():
    assert active.active_plan(None)["action"] == "skip"
    assert active.gate_plan(None)["action"] == "skip"


@pytest.mark.parametrize("state, reason, action", [
    ("IDLE", None, "drain"),
    ("DOWN*", "Not responding [slurm@2026-11-30T10:00:00]", "drain"),
    ("DOWN", "Node unexpectedly rebooted [slurm@2026-11-30T10:00:00]", "drain"),
    ("DOWN", "psu replaced, do not use [root@2026-11-30T10:00:00]", "skip"),
    ("IDLE+DRAIN", "cable swap [root@2026-11-30T10:00:00]", "skip"),
    ("IDLE+DRAIN", "gpuops-health: xid: XID 79 [root@2026-11-30T10:00:00]", "run"),
    ("MIXED", None, "submit"),
])
def test_a_joining_node_is_drained_until_checked_unless_someone_else_holds_it(state, reason, action):
    assert active.gate_plan(_node(state, reason))["action"] == action


def test_the_check_job_is_exclusive_low_priority_and_bounded():
    argv = active.check_job_argv("/usr/bin/sbatch", "/usr/local/sbin/gpuops-health", "gpu01", 8, ["gpu", "debug"],
                                 "/var/lib/gpuops/health/", 900, 12)
    assert argv == ["/usr/bin/sbatch", "--job-name=gpuops-health-active-gpu01", "--nodelist=gpu01", "--nodes=1",
                    "--exclusive", "--nice=10000", "--time=15", "--deadline=now+12hours",
                    "--output=/var/lib/gpuops/health/active-job-%j.log", "--parsable", "--partition=gpu,debug",
                    "--gres=gpu:8", "--wrap=/usr/local/sbin/gpuops-health active-job"]
    assert active.pending_reason("boot") == "gpuops-health: active: checks pending (boot)"


def test_a_gpu_cuda_does_not_show_fails_and_no_gpu_at_all_is_not_run():
    doc = active.parse_measurements(_measured(count=1))
    res = _by_check(active.active_results("n", doc, H100 * 2, {}))
    assert res["gpu_matmul"]["status"] == "fail"
    assert "GPU 1: nvidia-smi lists it, CUDA does not show it (1 of 2 GPUs)" in res["gpu_matmul"]["message"]
    empty = active.parse_measurements('{"torch": "2.13.0+cu128", "gpus": []}')
    assert [item["status"] for item in active.active_results("n", empty, [], {})] == ["not_run"] * 5
