# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The node health check's pure part (module_utils/health/_health.py), over real captures (tests/fixtures/health)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import os
import re

import pytest

from ansible_collections.gpuops.cluster.plugins.module_utils.health import _health as health
from ansible_collections.gpuops.cluster.plugins.module_utils.gpu._gpu_facts import parse_smi_xml
from ansible_collections.gpuops.cluster.plugins.module_utils.validate._validate import parse_scontrol_nodes

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures")
HEALTH = os.path.join(FIXTURES, "health")
V100S = os.path.join(FIXTURES, "nvidia-smi-xml", "datakit_8x-tesla-v100s-pcie-32gb.xml")
# Driver 580 on a real H100: T.Limit readings only (gpu_temp 50 C, gpu_temp_tlimit 37 C, slowdown offset -2 C).
H100 = os.path.join(FIXTURES, "nvidia-smi-xml", "gpuops_h100-80gb-hbm3_580.159.04_tlimit-v13.xml")
# The same layout on a real H200 (tools/device/gpu-check.sh): gpu_temp 26 C, gpu_temp_tlimit 61 C, slowdown -2 C.
H200 = os.path.join(FIXTURES, "nvidia-smi-xml", "gpuops_h200_580.159.04_tlimit-v13.xml")
GRES = "gpu:tesla_v100s-pcie-32gb:8"


def _read(*parts):
    with open(os.path.join(*parts), "rb") as handle:
        return handle.read().decode("utf-8", "replace")


def _v100s(persistence=True, text=None):
    """The 8 V100S of the capture (or text, an edited copy) as the program parses them: with processes and readings."""
    text = _read(V100S) if text is None else text
    if persistence:
        text = text.replace("<persistence_mode>Disabled</persistence_mode>", "<persistence_mode>Enabled</persistence_mode>")
    return parse_smi_xml(text, processes=True, readings=True)


def _settings(**changes):
    smi = _v100s()
    settings = {
        "node": "gpu01", "checks": {}, "xid_drain": list(health.DEFAULT_DRAIN_XIDS),
        "memory_drain": list(health.DEFAULT_MEMORY_DRAIN), "temp_slowdown_margin_c": 0, "nvidia_smi_timeout_s": 10,
        "kill_grace_s": 5, "kill_wait_s": 5, "kernel_log": "/dev/kmsg", "rdma_expected": "auto",
        "expect": health.expectation(GRES, smi["gpus"], "460.73.01"),
    }
    settings.update(changes)
    return settings


def _seen(smi=None, **changes):
    seen = {"smi": {"outcome": "xml", "rc": 0, "timed_out": False, "parsed": smi or _v100s()},
            "pci_gpus": [], "hardware": False, "no_hardware_reason": "container", "modules": {},
            "xid": {"state": {"open": []}, "events": []}}
    seen.update(changes)
    return seen


def _by_check(results):
    return dict((item["check"], item) for item in results)


# --------------------------------------------------------------------------
# The kernel log

@pytest.mark.parametrize("name, expected", [
    ("gpud-readme_dmesg-ctime_xid13-109.log", {(13, "0000:cb:00"), (31, "0000:cb:00"), (109, "0000:cb:00")}),
    ("gpud_dev-kmsg-raw_no-xid.log", set()),
    ("gpud_dmesg-ctime_xid119.log", {(119, "0000:9b:00")}),
    ("gpud_dmesg-decode-iso_xid13-43.log", {(13, "0000:38:00"), (43, "0000:38:00")}),
    ("gpud_dmesg-time-format-iso_xid48-63-94.log", {(48, "0000:19:00"), (63, "0000:19:00"), (94, "0000:19:00")}),
    ("issue_gpu-burn-1_dmesg_aer-xid79.log", {(79, "0000:02:00")}),
    ("issue_nvsentinel-155_dmesg_fallen-off-bus-no-xid.log", set()),
    ("issue_open-gpu-kernel-modules-1150_kernel-prefix_xid45.log",
     {(45, "0000:97:00"), (45, "0000:ba:00"), (45, "0000:dc:00"), (45, "0000:ed:00")}),
    ("issue_open-gpu-kernel-modules-1151_bare-nvrm_xid79-154.log", {(79, "0000:01:00"), (154, "0000:01:00")}),
    ("issue_vllm-40652_talosctl-dmesg_xid45-74-154.log", {(45, "0000:48:00"), (74, "0000:48:00"), (154, "0000:48:00")}),
    ("repo_my-t450s_syslog-kern_xid79-pid-unknown.log", {(79, "0000:01:00")}),
    ("ubuntu-forums-archive_syslog_old-format-xid13.log", {(13, "0000:03:00")}),
    ("issue_dxvk-1799_journalctl-k_xid31.log", {(31, "0000:c1:00")}),
])
def test_xid_events_of_real_kernel_logs(name, expected):
    events = health.parse_log_text(_read(HEALTH, "kernel-log", name))
    assert set((event["xid"], event["pci"]) for event in events) == expected


def test_xid_line_fields():
    event = health.parse_xid_line("[ 1843.308145] NVRM: Xid (PCI:0000:02:00): 79, pid=12890, GPU has fallen off the bus.")
    assert event == {"xid": 79, "pci": "0000:02:00", "detail": "pid=12890, GPU has fallen off the bus."}
    # The 2012 form without "PCI:" and a GSP log line that only mentions an XID.
    assert health.parse_xid_line("NVRM: Xid (0000:03:00): 13, 0003 00000000 0000a097")["pci"] == "0000:03:00"
    assert health.parse_xid_line("NVRM: _kgspLogXid119: ********* GSP Timeout *********") is None
    assert health.normalize_pci("PCI:0009:01:00") == "0009:01:00"
    assert health.normalize_pci("00000000:3B:00.0") == "0000:3b:00"


def test_kmsg_records_sequence_and_xid():
    records = [line for line in _read(HEALTH, "kernel-log", "gpud_dev-kmsg-raw_no-xid.log").splitlines() if line]
    events, last = health.parse_kmsg(records)
    assert events == []
    assert last == int(records[-1].split(",")[1])
    # A /dev/kmsg record carrying a real XID line (the prefix of the raw records above, the message of a real log).
    line = _read(HEALTH, "kernel-log", "repo_my-t450s_syslog-kern_xid79-pid-unknown.log").splitlines()
    message = [text for text in line if "Xid" in text][0].split("kernel: ", 1)[1]
    events, last = health.parse_kmsg(records + ["4,%d,99999999,-;%s" % (last + 1, message)])
    assert [(event["xid"], event["seq"]) for event in events] == [(79, last)]


def test_xid_state_keeps_draining_xids_until_a_new_boot():
    events = health.parse_log_text(_read(HEALTH, "kernel-log", "gpud_dmesg-time-format-iso_xid48-63-94.log"))
    state = health.xid_state(None, "boot-1", events, [48, 79])
    assert [event["xid"] for event in state["open"]] == [48]
    again = health.xid_state(state, "boot-1", [], [48, 79])
    assert again["open"] == state["open"]
    assert health.xid_state(again, "boot-2", [], [48, 79])["open"] == []
    many = health.xid_state(None, "b", [{"xid": 79, "pci": "x", "detail": ""}] * 100, [79])
    assert len(many["open"]) == 64


def test_xid_result_fails_with_the_xid_and_reports_the_others():
    events = health.parse_log_text(_read(HEALTH, "kernel-log", "issue_gpu-burn-1_dmesg_aer-xid79.log"))
    state = health.xid_state(None, "b", events, health.DEFAULT_DRAIN_XIDS)
    res = health.xid_result("n", state, events, health.DEFAULT_DRAIN_XIDS)
    assert res["status"] == "fail"
    assert res["message"] == ("XID 79 on GPU 0000:02:00 (GPU has fallen off the bus): reset the GPU or reboot, "
                              "then gpuops-health clear-xid")
    app = health.parse_log_text(_read(HEALTH, "kernel-log", "issue_dxvk-1799_journalctl-k_xid31.log"))
    res = health.xid_result("n", health.xid_state(None, "b", app, [79]), app, [79])
    assert res["status"] == "pass"
    assert "reported: XID 31 on GPU 0000:c1:00 (GPU memory page fault)" in res["message"]
    assert health.xid_result("n", None, [], [79], "Permission denied")["status"] == "not_run"


# --------------------------------------------------------------------------
# Settings

def test_good_settings_pass():
    assert health.settings_errors(_settings()) == []


@pytest.mark.parametrize("change, message", [
    ({"xid_drain": [79, "foo"]}, "node_health_xid_drain has unknown XID(s) 'foo': give numbers from NVIDIA's XID "
                                 "catalogue"),
    ({"xid_drain": [1000]}, "node_health_xid_drain has unknown XID(s) 1000"),
    ({"xid_drain": "79"}, "node_health_xid_drain must be a list of XID numbers"),
    ({"checks": {"gpu_cuont": False}}, "node_health_checks names unknown check(s) gpu_cuont: use nvidia_smi,"),
    ({"checks": {"xid": "no"}}, "node_health_checks: xid must be true or false."),
    ({"memory_drain": ["ecc"]}, "node_health_memory_drain must be a list of volatile_uncorrectable"),
    ({"nvidia_smi_timeout_s": 0}, "node_health_nvidia_smi_timeout_s is 0: give a whole number of seconds from 1 to 300."),
    ({"kill_wait_s": "x"}, "node_health_kill_wait_s is 'x'"),
    ({"kernel_log": "kern.log"}, "node_health_kernel_log is 'kern.log': give /dev/kmsg or the absolute path"),
    ({"rdma_expected": "yes"}, "node_health_rdma_expected is 'yes': give auto, true or false."),
    ({"temp_slowdown_margin_c": -1}, "node_health_temp_slowdown_margin_c is -1: give a whole number of degrees Celsius "
                                     "from 0 (drain once a GPU reaches its slowdown temperature) to 30"),
    ({"temp_slowdown_margin_c": 31}, "node_health_temp_slowdown_margin_c is 31: give a whole number of degrees"),
    ({"temp_slowdown_margin_c": 2.5}, "node_health_temp_slowdown_margin_c is 2.5: give a whole number of degrees"),
    ({"temp_slowdown_margin_c": True}, "node_health_temp_slowdown_margin_c is True: give a whole number of degrees"),
    ({"temp_slowdown_margin_c": "5 C"}, "node_health_temp_slowdown_margin_c is '5 C': give a whole number of degrees"),
    ({"temp_slowdown_margin_c": None}, "node_health_temp_slowdown_margin_c is None: give a whole number of degrees"),
])
def test_bad_settings_are_named_with_the_fix(change, message):
    errors = health.settings_errors(_settings(**change))
    assert len(errors) == 1 and errors[0].startswith(message), errors


@pytest.mark.parametrize("value", [0, 30, "5", " 12 "])
def test_slowdown_margins_the_role_accepts(value):
    # Ansible may template the setting into text ("5"): whole_number reads it, as for the time limits.
    assert health.settings_errors(_settings(temp_slowdown_margin_c=value)) == []


def test_expectation_from_the_facts():
    smi = _v100s()
    expect = health.expectation(GRES, smi["gpus"], "460.73.01", ["mlx5_0:1"],
                                [{"name": "mlx5_0", "ports": [{"port": 1, "rate_gbps": 200}]}])
    assert expect["gpu_count"] == 8
    assert expect["gpu_types"] == {"tesla_v100s-pcie-32gb": 8}
    assert expect["gpu_minors"] == list(range(8))
    assert expect["pci_bus_ids"][0] == "00000000:00:0D.0"
    assert expect["ib_ports"] == ["mlx5_0:1"] and expect["ib_rate_gbps"] == 200
    with pytest.raises(health.HealthError):
        health.expectation("gpu:(bad", [])


# --------------------------------------------------------------------------
# Evaluation

def test_healthy_node_passes_every_check_it_can_make():
    results = health.evaluate("gpu01", "interval", _settings(), _seen())
    statuses = dict((item["check"], item["status"]) for item in results)
    assert statuses == {"nvidia_smi": "pass", "gpu_count": "pass", "gpu_model": "pass", "xid": "pass",
                        "gpu_memory_errors": "pass", "gpu_temperature": "pass", "driver_version": "pass",
                        "driver_loaded": "not_run",
                        "persistence_mode": "pass", "rdma_ports": "not_run", "peermem_loaded": "not_run",
                        "gpu_processes": "pass"}
    assert health.drain_reason(results) is None


def test_a_gpu_gone_from_nvidia_smi_fails_gpu_count_naming_it():
    smi = _v100s()
    gone = smi["gpus"].pop()
    res = _by_check(health.evaluate("gpu01", "prolog", _settings(), _seen(smi)))
    assert res["gpu_count"]["status"] == "fail"
    assert res["gpu_count"]["message"] == ("nvidia-smi lists 7 of the 8 GPUs in the node's GRES (missing %s)"
                                           % gone["pci_bus_id"])
    assert res["gpu_model"]["message"] == "GPU types short of the GRES: tesla_v100s-pcie-32gb: 7 of 8"


def test_a_node_without_gpus_in_its_gres_is_not_asked_for_any():
    settings = _settings(expect=health.expectation("", []))
    seen = _seen()
    seen["smi"] = {"outcome": "missing", "error": "nvidia-smi not found"}
    res = _by_check(health.evaluate("cpu01", "interval", settings, seen))
    assert res["nvidia_smi"]["status"] == "not_run" and res["gpu_count"]["message"] == "the node's Gres has no GPU"
    assert health.drain_reason(list(res.values())) is None


def test_the_pci_bus_counts_on_hardware():
    seen = _seen(pci_gpus=["0000:3b:00.0"] * 7, hardware=True)
    res = _by_check(health.evaluate("gpu01", "prolog", _settings(), seen))
    assert res["gpu_count"]["message"] == "the PCI bus shows 7 NVIDIA GPU(s)"


def test_uncorrectable_ecc_drains_and_aggregate_is_reported():
    smi = _v100s()
    smi["gpus"][2]["ecc_uncorrectable"] = {"volatile": 1, "aggregate": 3}
    res = _by_check(health.evaluate("gpu01", "prolog", _settings(), _seen(smi)))
    assert res["gpu_memory_errors"]["status"] == "fail"
    assert res["gpu_memory_errors"]["message"] == ("GPU 2: 1 uncorrectable ECC error(s) (volatile); "
                                                   "GPU 2: 3 uncorrectable ECC error(s) (aggregate)")
    smi["gpus"][2]["ecc_uncorrectable"] = {"volatile": 0, "aggregate": 3}
    res = _by_check(health.evaluate("gpu01", "prolog", _settings(), _seen(smi)))
    assert res["gpu_memory_errors"]["status"] == "pass"
    assert "reported: GPU 2: 3 uncorrectable ECC error(s) (aggregate)" in res["gpu_memory_errors"]["message"]


@pytest.mark.parametrize("field, value, text", [
    ("retired_pages", {"single_bit": 0, "double_bit": 1, "pending": True}, "GPU 0: page retirement pending"),
    ("remapped_rows", {"correctable": 0, "uncorrectable": 1, "pending": True, "failure": False},
     "GPU 0: row remapping pending"),
    ("remapped_rows", {"correctable": 0, "uncorrectable": 0, "pending": False, "failure": True},
     "GPU 0: row remapping failed (replace the GPU)"),
])
def test_pending_retirement_and_remapping_drain(field, value, text):
    smi = _v100s()
    smi["gpus"][0][field] = value
    res = _by_check(health.evaluate("gpu01", "interval", _settings(), _seen(smi)))
    assert res["gpu_memory_errors"]["status"] == "fail"
    assert text in res["gpu_memory_errors"]["message"]


def test_nvidia_smi_timing_out_fails_and_the_gpu_checks_say_why_they_did_not_run():
    seen = _seen()
    seen["smi"] = {"outcome": None, "rc": -9, "timed_out": True}
    res = _by_check(health.evaluate("gpu01", "prolog", _settings(), seen))
    assert res["nvidia_smi"]["message"] == "nvidia-smi did not answer within 10s (a wedged GPU or driver)"
    assert res["gpu_count"]["status"] == "not_run"
    assert health.drain_reason(list(res.values())) == (
        "gpuops-health: nvidia_smi: nvidia-smi did not answer within 10s (a wedged GPU or driver)")


def test_driver_errors_and_versions():
    seen = _seen()
    seen["smi"] = {"outcome": "no_driver", "rc": 9, "timed_out": False,
                   "error": "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."}
    res = _by_check(health.evaluate("gpu01", "prolog", _settings(), seen))
    assert res["nvidia_smi"]["status"] == "fail"
    assert res["nvidia_smi"]["message"].startswith("nvidia-smi failed (no_driver, rc 9): NVIDIA-SMI has failed")
    expect = dict(_settings()["expect"], driver_version="550.54.15")
    res = _by_check(health.evaluate("gpu01", "prolog", _settings(expect=expect), _seen()))
    assert res["driver_version"]["message"] == ("driver 460.73.01 runs, the inventory pins 550.54.15: install the "
                                                "pinned driver or reboot into it")
    expect["driver_version"] = "460"
    assert _by_check(health.evaluate("gpu01", "prolog", _settings(expect=expect), _seen()))["driver_version"][
        "status"] == "pass"


def test_persistence_mode_off_fails_and_checks_switch_off():
    seen = _seen(_v100s(persistence=False))
    res = _by_check(health.evaluate("gpu01", "interval", _settings(), seen))
    assert res["persistence_mode"]["status"] == "fail"
    res = _by_check(health.evaluate("gpu01", "interval", _settings(checks={"persistence_mode": False}), seen))
    assert "persistence_mode" not in res


def test_the_prolog_runs_no_rdma_and_the_epilog_looks_for_leftovers():
    prolog = [item["check"] for item in health.evaluate("n", "prolog", _settings(), _seen())]
    assert "rdma_ports" not in prolog and "gpu_processes" not in prolog
    seen = _seen(processes={"job": "42", "killed": {}, "survivors": {}})
    epilog = _by_check(health.evaluate("n", "epilog", _settings(), seen))
    assert epilog["gpu_processes"]["message"] == "job 42 left no process behind"


def test_rdma_ports_from_validate():
    hcas = [{"name": "mlx5_0", "ports": [{"port": 1, "state": "Down", "physical_state": "Polling", "rate_gbps": 10,
                                          "link_layer": "InfiniBand"}]}]
    seen = _seen(ib={"hcas": hcas, "source": "ibstat"})
    expect = dict(_settings()["expect"], ib_ports=["mlx5_0:1"], ib_rate_gbps=200)
    res = _by_check(health.evaluate("n", "interval", _settings(expect=expect), seen))
    assert res["rdma_ports"]["status"] == "fail"
    assert res["rdma_ports"]["message"] == "ports not as expected: mlx5_0:1 Down/Polling"


# --------------------------------------------------------------------------
# Temperature: the margin to slowdown, from both layouts of nvidia-smi -q -x

def _edit_gpu(text, gpu, **fields):
    """text (a real capture) with fields of the gpu-th <gpu> set ({"gpu_temp": "85 C"}); a field given None is taken
    out. Each field must be there: an edit that changes nothing fails the test."""
    start = [match.start() for match in re.finditer("<gpu id=", text)][gpu]
    end = text.index("</gpu>", start)
    part = text[start:end]
    for name, value in fields.items():
        pattern = re.compile(r"<%s>[^<]*</%s>\s*" % (name, name))
        assert pattern.search(part), name
        part = pattern.sub("" if value is None else "<%s>%s</%s>\n" % (name, value, name), part, count=1)
    return text[:start] + part + text[end:]


def _h100(**fields):
    return parse_smi_xml(_edit_gpu(_read(H100), 0, **fields), readings=True)


def _h100_settings(**changes):
    smi = _h100()
    return _settings(expect=health.expectation("gpu:h100_80gb_hbm3:1", smi["gpus"], "580.159.04"), **changes)


def _temperature(settings, smi, mode="prolog"):
    return _by_check(health.evaluate("gpu01", mode, settings, _seen(smi)))["gpu_temperature"]


def test_the_t_limit_layout_of_a_real_h200_is_judged():
    # 61 C below T.Limit and slowdown 2 C past it: 63 C to go at 26 C, so slowdown at 89 C as on the H100.
    smi = parse_smi_xml(_read(H200), readings=True)
    settings = _settings(expect=health.expectation("gpu:nvidia_h200:1", smi["gpus"], "580.159.04"))
    results = _by_check(health.evaluate("gpu01", "interval", settings, _seen(smi)))
    assert results["gpu_temperature"]["measured"] == [{"gpu": 0, "pci_bus_id": "00000000:00:06.0", "temperature_c": 26,
                                                       "slowdown_margin_c": 63, "slowdown_c": 89}]
    assert [results[name]["status"] for name in ("gpu_count", "gpu_model", "gpu_temperature", "gpu_memory_errors")] == [
        "pass"] * 4


def test_the_t_limit_layout_of_driver_580_is_judged():
    # 37 C below T.Limit, slowdown 2 C past it: 39 C to go at 50 C (NVML gave this H100's slowdown as 89 C).
    res = _temperature(_h100_settings(), _h100())
    assert res["status"] == "pass"
    assert res["measured"] == [{"gpu": 0, "pci_bus_id": "00000000:00:06.0", "temperature_c": 50,
                                "slowdown_margin_c": 39, "slowdown_c": 89}]
    assert res["message"] == ("1 GPU(s) more than 0 C below their slowdown temperature (closest: GPU 0 "
                              "(00000000:00:06.0) at 50 C is 39 C from its slowdown temperature (89 C))")
    assert res["expected"] == "more than 0 C below the slowdown temperature"


def test_the_absolute_layout_of_older_drivers_is_judged():
    # The V100S capture: slowdown 87 C on every GPU, GPU 0 the hottest at 66 C.
    res = _temperature(_settings(), _v100s())
    assert res["status"] == "pass"
    assert [item["slowdown_margin_c"] for item in res["measured"]] == [21, 29, 30, 26, 28, 23, 26, 30]
    assert res["measured"][3] == {"gpu": 3, "pci_bus_id": "00000000:00:10.0", "temperature_c": 61,
                                  "slowdown_margin_c": 26, "slowdown_c": 87}
    assert res["message"].endswith("(closest: GPU 0 (00000000:00:0D.0) at 66 C is 21 C from its slowdown "
                                   "temperature (87 C))")


def test_a_gpu_past_slowdown_drains_naming_it_absolute_layout():
    text = _edit_gpu(_read(V100S), 3, gpu_temp="89 C")
    res = _by_check(health.evaluate("gpu01", "prolog", _settings(), _seen(_v100s(text=text))))
    assert res["gpu_temperature"]["status"] == "fail"
    assert res["gpu_temperature"]["message"] == ("GPU 3 (00000000:00:10.0) at 89 C is 2 C past its slowdown "
                                                 "temperature (87 C): check the fans and the airflow")
    assert res["gpu_temperature"]["measured"][3]["slowdown_margin_c"] == -2
    assert health.drain_reason(list(res.values())) == (
        "gpuops-health: gpu_temperature: GPU 3 (00000000:00:10.0) at 89 C is 2 C past its slowdown temperature "
        "(87 C): check the fans and the airflow")


def test_a_gpu_at_slowdown_drains_naming_it_t_limit_layout():
    # At 89 C this H100 is 2 C past T.Limit (gpu_temp_tlimit -2 C), which is its slowdown offset.
    res = _temperature(_h100_settings(), _h100(gpu_temp="89 C", gpu_temp_tlimit="-2 C"))
    assert res["status"] == "fail"
    assert res["message"] == ("GPU 0 (00000000:00:06.0) at 89 C is at its slowdown temperature (89 C): check the "
                              "fans and the airflow")


@pytest.mark.parametrize("threshold, temperature, status", [
    (0, "86 C", "pass"), (0, "87 C", "fail"), (0, "95 C", "fail"),
    (5, "81 C", "pass"), (5, "82 C", "fail"),
    (20, "66 C", "pass"), (20, "67 C", "fail"),  # the other GPUs are 21 C or more from slowdown
])
def test_threshold_boundaries_absolute_layout(threshold, temperature, status):
    text = _edit_gpu(_read(V100S), 7, gpu_temp=temperature)
    res = _temperature(_settings(temp_slowdown_margin_c=threshold), _v100s(text=text))
    assert res["status"] == status
    assert res["message"].startswith("GPU 7 (00000000:00:14.0) at %s" % temperature) == (status == "fail")


@pytest.mark.parametrize("threshold, tlimit, status, text", [
    (0, "-1 C", "pass", "is 1 C from"), (0, "-2 C", "fail", "is at"), (0, "-5 C", "fail", "is 3 C past"),
    (3, "2 C", "pass", "is 4 C from"), (3, "1 C", "fail", "is 3 C from"),
])
def test_threshold_boundaries_t_limit_layout(threshold, tlimit, status, text):
    res = _temperature(_h100_settings(temp_slowdown_margin_c=threshold), _h100(gpu_temp_tlimit=tlimit))
    assert res["status"] == status
    assert "GPU 0 (00000000:00:06.0) at 50 C %s its slowdown temperature" % text in res["message"]


def test_the_threshold_comes_from_the_settings_and_a_hand_edited_file_falls_back_to_0():
    smi = _h100(gpu_temp_tlimit="2 C")  # 4 C to go
    assert _temperature(_h100_settings(temp_slowdown_margin_c="5"), smi)["status"] == "fail"
    for bad in (None, -3, 99, "x", True, [5]):
        res = _temperature(_h100_settings(temp_slowdown_margin_c=bad), smi)
        assert res["status"] == "pass" and res["expected"] == "more than 0 C below the slowdown temperature"
    settings = _h100_settings()
    del settings["temp_slowdown_margin_c"]
    assert _temperature(settings, smi)["status"] == "pass"


def test_several_hot_gpus_are_named_hottest_first():
    text = _read(V100S)
    for gpu, temperature in ((1, "88 C"), (4, "90 C"), (5, "87 C"), (6, "91 C"), (7, "89 C")):
        text = _edit_gpu(text, gpu, gpu_temp=temperature)
    res = _temperature(_settings(), _v100s(text=text))
    assert res["message"].startswith("GPU 6 (00000000:00:13.0) at 91 C is 4 C past its slowdown temperature (87 C); "
                                     "GPU 4 (00000000:00:11.0) at 90 C is 3 C past")
    assert res["message"].endswith("; and 1 more: check the fans and the airflow")
    assert len(health.drain_reason([res])) <= health.REASON_LIMIT


def test_a_gpu_without_either_layout_is_not_judged():
    # GPU 2 of the V100S without its absolute slowdown threshold; the H100 without its T.Limit reading.
    text = _edit_gpu(_read(V100S), 2, gpu_temp_slow_threshold=None)
    text = _edit_gpu(text, 5, gpu_temp_slow_threshold="N/A")
    res = _temperature(_settings(), _v100s(text=text))
    assert res["status"] == "pass"
    assert res["measured"][2] == {"gpu": 2, "pci_bus_id": "00000000:00:0F.0", "temperature_c": 57,
                                  "slowdown_margin_c": None, "slowdown_c": None}
    assert res["message"].startswith("6 GPU(s) more than 0 C below")
    assert res["message"].endswith("; GPU 2, 5 report(s) no slowdown temperature: not judged")
    # A hot GPU without a threshold is still not judged: no drain without a margin.
    text = _edit_gpu(text, 2, gpu_temp="99 C")
    assert _temperature(_settings(), _v100s(text=text))["status"] == "pass"
    res = _temperature(_h100_settings(), _h100(gpu_temp="99 C", gpu_temp_tlimit="N/A"))
    assert res["status"] == "not_run" and res["measured"][0]["slowdown_margin_c"] is None
    assert res["message"].startswith("the GPUs report no slowdown temperature")
    res = _temperature(_h100_settings(), _h100(gpu_temp_slow_tlimit_threshold=None))
    assert res["status"] == "not_run"


def test_a_margin_without_a_temperature_is_still_judged():
    # gpu_temp unreadable, the T.Limit pair there: the margin decides, the text gives no degrees it does not know.
    res = _temperature(_h100_settings(), _h100(gpu_temp="N/A", gpu_temp_tlimit="-3 C"))
    assert res["status"] == "fail"
    assert res["message"].startswith("GPU 0 (00000000:00:06.0) is 1 C past its slowdown temperature: ")


def test_every_real_capture_gives_each_gpu_a_margin_and_passes():
    # Twelve captures, DTD v11 to v13, absolute and T.Limit layouts: each GPU has a margin, none of them drains.
    folder = os.path.join(FIXTURES, "nvidia-smi-xml")
    names = sorted(os.listdir(folder))
    assert len(names) >= 12
    for name in names:
        gpus = parse_smi_xml(_read(folder, name), readings=True)["gpus"]
        res = health.temperature_result("n", gpus)
        assert res["status"] == "pass", (name, res)
        assert all(item["slowdown_margin_c"] is not None for item in res["measured"]), name


def test_readings_not_parsed_or_switched_off_or_no_smi():
    # Without readings (a caller that did not ask for them) nothing is judged; the check switches off by name.
    smi = parse_smi_xml(_read(V100S))
    assert _temperature(_settings(), smi)["status"] == "not_run"
    res = _by_check(health.evaluate("gpu01", "interval", _settings(checks={"gpu_temperature": False}), _seen()))
    assert "gpu_temperature" not in res
    seen = _seen()
    seen["smi"] = {"outcome": None, "rc": -9, "timed_out": True}
    assert _by_check(health.evaluate("gpu01", "prolog", _settings(), seen))["gpu_temperature"]["status"] == "not_run"
    assert health.temperature_result("n", [])["status"] == "not_run"
    assert [mode for mode in health.MODES if "gpu_temperature" in health.MODE_CHECKS[mode]] == [
        "active", "epilog", "interval", "prolog"]


# --------------------------------------------------------------------------
# The decision

FAILED = [health.result("n", "gpu_count", "fail", 7, 8, "nvidia-smi lists 7 of the 8 GPUs in the node's GRES")]
PASSED = [health.result("n", "gpu_count", "pass", 8, 8, "8 GPU(s)")]
OURS = "gpuops-health: gpu_count: nvidia-smi lists 7 of the 8 GPUs in the node's GRES"
ACTIVE_OURS = "gpuops-health: gpu_matmul: bf16 matrix multiply: GPU 3 412 TFLOPS < 504 (expected 594 -15%)"
PENDING = "gpuops-health: active: checks pending (boot)"


def _node(state, reason=None):
    line = "NodeName=n State=%s" % state + (" Reason=%s" % reason if reason else "")
    return parse_scontrol_nodes(line)["n"]


@pytest.mark.parametrize("results, node, mode, action", [
    (FAILED, _node("IDLE"), "interval", "drain"),
    (FAILED, _node("MIXED"), "prolog", "drain"),
    (FAILED, None, "prolog", "drain"),
    (FAILED, _node("IDLE+DRAIN", "fan broken [root@2026-11-24T10:00:00]"), "interval", "none"),
    (FAILED, _node("DOWN*", "Not responding [slurm@2026-11-24T10:00:00]"), "interval", "none"),
    (FAILED, _node("IDLE+DRAIN", OURS + " [root@2026-11-24T10:00:00]"), "interval", "none"),
    (FAILED, _node("IDLE+DRAIN", "gpuops-health: xid: XID 79 [root@2026-11-24T10:00:00]"), "interval", "drain"),
    (FAILED, _node("IDLE+DRAIN", "gpuops-health: gpu_count: 6 of 8 [root@2026-11-24T10:00:00]"), "interval", "none"),
    (PASSED, _node("IDLE+DRAIN", OURS + " [root@2026-11-24T10:00:00]"), "interval", "resume"),
    (PASSED, _node("IDLE+DRAIN", OURS + " [root@2026-11-24T10:00:00]"), "prolog", "none"),
    (PASSED, _node("IDLE+DRAIN", OURS + " [root@2026-11-24T10:00:00]"), "active", "resume"),
    # A drain for an active check is lifted by the active run only: the periodic one passes without measuring.
    (PASSED, _node("IDLE+DRAIN", ACTIVE_OURS + " [root@2026-11-24T10:00:00]"), "interval", "none"),
    (PASSED, _node("IDLE+DRAIN", ACTIVE_OURS + " [root@2026-11-24T10:00:00]"), "active", "resume"),
    (PASSED, _node("DOWN+DRAIN", PENDING + " [root@2026-11-24T10:00:00]"), "interval", "none"),
    (PASSED, _node("IDLE+DRAIN", PENDING + " [root@2026-11-24T10:00:00]"), "active", "resume"),
    (PASSED, _node("IDLE+DRAIN", "gpuops-health: diag: dcgmi diag -r 1 failed: Memory"), "interval", "none"),
    # The periodic run failing on a node an active check holds keeps the active reason: the active run decides.
    (FAILED, _node("IDLE+DRAIN", ACTIVE_OURS + " [root@2026-11-24T10:00:00]"), "interval", "none"),
    (FAILED, _node("IDLE+DRAIN", PENDING + " [root@2026-11-24T10:00:00]"), "active", "drain"),
    (FAILED, _node("ALLOCATED"), "active", "drain"),
    (PASSED, _node("IDLE+DRAIN", "fan broken [root@2026-11-24T10:00:00]"), "active", "none"),
    (PASSED, _node("IDLE+DRAIN", "fan broken [root@2026-11-24T10:00:00]"), "interval", "none"),
    (PASSED, _node("IDLE"), "interval", "none"),
])
def test_decisions(results, node, mode, action):
    assert health.decide(results, node, mode)["action"] == action


def test_an_admin_drain_of_a_real_node_is_left_alone():
    node = parse_scontrol_nodes(_read(HEALTH, "scontrol", "unige-hpc-community-4287_scontrol-show-node_slurm25.11_"
                                      "idle-drain_noindent.txt").replace("\n", "\n ", 100))["gpu010"]
    assert node["reason"] == "health_ps___blocked [root@2026-04-29T03:06:18]"
    assert health.decide(PASSED, node, "interval")["action"] == "none"
    assert health.decide(FAILED, node, "interval")["action"] == "none"


def test_drain_reason_is_short_and_names_the_others():
    results = FAILED + [health.result("n", "xid", "fail", [79], [], "x" * 400)]
    reason = health.drain_reason(results)
    assert reason.startswith(OURS) and reason.endswith(" (+1 more: xid)")
    long = [health.result("n", "xid", "fail", [79], [], "y" * 400)]
    assert len(health.drain_reason(long)) == health.REASON_LIMIT and health.drain_reason(long).endswith("...")


# --------------------------------------------------------------------------
# The epilog's clean-up and the GPU-to-job map

def test_leftovers_are_the_jobs_own_processes():
    smi = _v100s()
    gpus = copy.deepcopy(smi["gpus"])
    minors = health.job_gpu_minors("0,1", list(range(8)))
    assert minors == [0, 1]
    pid_on_gpu0 = gpus[0]["processes"][0]["pid"]
    owners = {1: 0, 500: 0, 777: 3201, 778: 3201, pid_on_gpu0: 3201, 999: 0}
    environ = {777: "42", 778: "43", 999: "42"}
    found = health.leftover_pids("42", 3201, gpus, minors, environ, owners, protect={999})
    assert found == {777: "SLURM_JOB_ID=42 in its environment", pid_on_gpu0: "python on GPU 0"}
    # Another user's process on the job's GPU (nvidia-persistenced, DCGM) is not the job's.
    owners[pid_on_gpu0] = 0
    assert pid_on_gpu0 not in health.leftover_pids("42", 3201, gpus, minors, environ, owners)
    assert health.job_gpu_minors("", [0, 1]) == [] and health.job_gpu_minors("0,9", [4, 5]) == [4]


def test_stuck_processes_keep_the_node_drained():
    stuck = {1971: "SLURM_JOB_ID=4 in its environment, left by job 4"}
    res = health.processes_result("n", None, {}, stuck)
    assert res["status"] == "fail"
    assert res["message"] == "still there after SIGKILL: pid 1971 (SLURM_JOB_ID=4 in its environment, left by job 4)"
    assert health.processes_result("n", None, {}, {})["message"] == "no process a job left behind is stuck"


def test_processes_result():
    assert health.processes_result("n", "42", {}, {777: "SLURM_JOB_ID=42 in its environment"})["message"] == (
        "job 42 left pid 777 (SLURM_JOB_ID=42 in its environment) that survived SIGKILL (stuck in the driver?)")
    assert health.processes_result("n", "42", {5: "python on GPU 0"}, {})["message"] == (
        "killed what job 42 left behind: pid 5 (python on GPU 0)")


def test_gpu_job_entry():
    env = {"SLURM_JOB_ID": "42", "SLURM_JOB_USER": "alice", "SLURM_JOB_UID": "3101", "SLURM_JOB_ACCOUNT": "chem",
           "SLURM_JOB_PARTITION": "gpu"}
    assert health.gpu_job_entry(env, 3) == {"minor": 3, "job_id": "42", "user": "alice", "uid": "3101",
                                            "account": "chem", "partition": "gpu"}


# --------------------------------------------------------------------------
# DCGM

def test_dcgmi_diag_failing_run():
    text = _read(HEALTH, "dcgmi", "azhpc-h200-doc_dcgmi-diag-r1_fail-persistence.txt")
    rows = health.parse_dcgmi_diag(text)
    assert ("Persistence Mode", "fail") in rows and ("Denylist", "pass") in rows
    res = health.diag_result("n", 226, text)
    assert res["status"] == "fail" and res["message"] == "dcgmi diag -r 1 failed: Persistence Mode fail (expected pass)"


def test_dcgmi_diag_passing_run_and_no_dcgm():
    text = _read(HEALTH, "dcgmi", "issue_dcgm-55_dcgmi-diag-r3_pass-deployment_excerpt.txt")
    res = health.diag_result("n", 0, text)
    assert res["status"] == "pass"
    assert health.diag_result("n", None, None, "DCGM is not installed")["status"] == "not_run"


def test_summary():
    record = health.summary("n", "interval", FAILED, {"action": "drain", "reason": OURS, "why": "a check failed"},
                            "2026-11-24T10:00:00+0000", 0.1234)
    assert record["status"] == "fail" and record["counts"] == {"pass": 0, "fail": 1, "not_run": 0}
    assert record["duration_s"] == 0.123 and record["reason"] == OURS


@pytest.mark.parametrize("now, installed, allow, stops", [
    (8, '{"expect": {"gpu_count": 8}}', False, False),
    (8, "", False, False),
    (7, '{"expect": {"gpu_count": 8}}', False, True),
    (7, '{"expect": {"gpu_count": 8}}', True, False),
    (7, '{"expect": {"gpu_count": 8}}', "yes", False),
    (7, '{"expect": {"gpu_count": 8}}', "false", True),
    (7, "not json", False, False),
    (7, '{"expect": {"gpu_count": "8"}}', False, False),
    (7, "[]", False, False),
])
def test_gpu_decrease_errors(now, installed, allow, stops):
    from ansible_collections.gpuops.cluster.plugins.module_utils.health._health import gpu_decrease_errors
    errors = gpu_decrease_errors("gpu01", now, installed, allow)
    assert bool(errors) == stops
    if stops:
        assert errors == ["gpu01 shows 7 GPU(s) now, and the health check was watching 8: a GPU is missing "
                          "(nvidia-smi, the PCI bus). Fix the node, or, when GPUs were removed on purpose, run again "
                          "with -e slurm_allow_gres_decrease=true (the Slurm roles ask the same)."]
