# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The monitoring alert rules (module_utils/monitoring/_alert_rules.py): shape, settings, messages.

What the rules fire on is tested by promtool (tests/promtool, tools/promtool.sh).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os

import pytest
import yaml

from ansible_collections.gpuops.cluster.plugins.module_utils.monitoring._alert_rules import (
    DEFAULTS,
    RULE_KEYS,
    RULES,
    AlertRulesError,
    alert_rules,
    alert_settings_errors,
)

ROLE_DEFAULTS = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..",
                             "roles", "prometheus", "defaults", "main", "alerts.yml")
PROMTOOL_TESTS = os.path.join(os.path.dirname(__file__), "..", "..", "..", "promtool")


def _rules(settings=None):
    return dict((rule["alert"], rule) for group in alert_rules(settings or {})["groups"] for rule in group["rules"])


def _role_settings():
    with open(ROLE_DEFAULTS) as handle:
        defaults = yaml.safe_load(handle)
    return dict((name[len("prometheus_alert_"):], value) for name, value in defaults.items())


def test_every_rule_has_expr_for_labels_and_annotations():
    rules = _rules()
    assert sorted(rules) == sorted(rule[1] for rule in RULES)
    for name, rule in rules.items():
        assert name.startswith("Gpuops")
        assert sorted(rule) == ["alert", "annotations", "expr", "for", "labels"], name
        assert rule["expr"].strip() and rule["for"], name
        assert rule["labels"]["severity"] in ("critical", "warning", "info"), name
        assert sorted(rule["annotations"]) == ["description", "summary"], name
        assert "{{ $labels." in rule["annotations"]["summary"] + rule["annotations"]["description"], name


def test_groups_and_a_plain_json_result():
    rules = alert_rules({})
    names = [group["name"] for group in rules["groups"]]
    assert names == ["gpuops-nodes", "gpuops-gpus", "gpuops-slurm", "gpuops-storage"]
    assert json.loads(json.dumps(rules)) == rules


def test_role_defaults_are_the_module_defaults():
    settings = _role_settings()
    assert settings == DEFAULTS
    assert alert_settings_errors(settings) == []
    assert alert_rules(settings) == alert_rules({})


def test_every_alert_has_a_promtool_test():
    text = ""
    for name in sorted(os.listdir(PROMTOOL_TESTS)):
        with open(os.path.join(PROMTOOL_TESTS, name)) as handle:
            text += handle.read()
    for alert in _rules():
        assert "alertname: %s\n" % alert in text, alert


@pytest.mark.parametrize("alert, expr, duration", [
    ("GpuopsNodeDown", 'up{job="node"} == 0', "2m"),
    ("GpuopsNodeDrainedByHealthCheck", 'gpuops_slurm_node_state{state=~"drain.*",reason=~"gpuops-health:.*"} == 1',
     "0s"),
    ("GpuopsNodeDrained", 'gpuops_slurm_node_state{state=~"drain.*",reason!~"gpuops-health:.*"} == 1', "0s"),
    ("GpuopsExporterDown", 'up{job!~"node|slurmctld"} == 0', "2m"),
    ("GpuopsGpuUncorrectableEccErrors", 'gpuops_gpu_ecc_uncorrectable_errors{scope="volatile"} > 0', "0s"),
    ("GpuopsRdmaPortDown", "gpuops_rdma_port_active == 0", "2m"),
    ("GpuopsSlurmdbdDown", "gpuops_slurm_dbd_up == 0", "2m"),
])
def test_simple_rules(alert, expr, duration):
    rule = _rules()[alert]
    assert (rule["expr"], rule["for"]) == (expr, duration)


def test_the_rules_that_must_fire_fast():
    rules = _rules()
    for alert in ("GpuopsNodeDrainedByHealthCheck", "GpuopsGpuCountBelowGres", "GpuopsGpuUncorrectableEccErrors",
                  "GpuopsGpuRowRemapFailure", "GpuopsGpuMemoryRepairPending"):
        assert rules[alert]["for"] == "0s", alert
    assert (rules["GpuopsGpuTooHot"]["for"], rules["GpuopsDiskAlmostFull"]["for"]) == ("5m", "10m")


def test_joins_are_on_node():
    rules = _rules()
    assert "> on (node) group_left () count by (node) (gpuops_gpu_info)" in rules["GpuopsGpuCountBelowGres"]["expr"]
    assert rules["GpuopsGpuTooHot"]["expr"] == (
        "gpuops_gpu_temperature_celsius > 85\nor gpuops_gpu_temperature_celsius\n"
        "  and on (node, gpu) (gpuops_gpu_temp_slowdown_margin_celsius <= 5)")


def test_settings_override():
    rules = _rules({
        "for": {"gpu_too_hot": "10m", "node_down": "90s"},
        "severity": {"gpu_too_hot": "critical"},
        "gpu_temperature_c": 83,
        "disk_free_ratio": 0.05,
        "shared_mountpoint": "/lustre",
        "shared_free_ratio": 0.2,
        "extra_labels": {"cluster": "gpu-a", "tier": 2},
    })
    hot = rules["GpuopsGpuTooHot"]
    assert hot["for"] == "10m"
    assert hot["labels"] == {"cluster": "gpu-a", "tier": "2", "severity": "critical"}
    assert hot["expr"].startswith("gpuops_gpu_temperature_celsius > 83\n")
    assert "above 83 C" in hot["annotations"]["description"]
    assert rules["GpuopsNodeDown"]["for"] == "90s"
    # A rule the settings leave out keeps its defaults.
    assert rules["GpuopsSlurmctldDown"]["for"] == "1m"
    assert rules["GpuopsSlurmctldDown"]["labels"] == {"cluster": "gpu-a", "tier": "2", "severity": "critical"}
    disk = rules["GpuopsDiskAlmostFull"]["expr"]
    assert 'mountpoint!="/lustre"' in disk and "< 0.05\n" in disk
    assert "below 5%." in rules["GpuopsDiskAlmostFull"]["annotations"]["description"]
    shared = rules["GpuopsSharedStorageAlmostFull"]["expr"]
    assert 'mountpoint="/lustre"' in shared and shared.endswith(") < 0.2")
    assert "below 20%:" in rules["GpuopsSharedStorageAlmostFull"]["annotations"]["description"]


def test_a_mountpoint_is_quoted_for_promql():
    expr = _rules({"shared_mountpoint": '/data/"x"\\y'})["GpuopsSharedStorageAlmostFull"]["expr"]
    assert 'mountpoint="/data/\\"x\\"\\\\y"' in expr


def test_defaults_are_not_changed_by_a_call():
    before = json.dumps(DEFAULTS, sort_keys=True)
    alert_rules({"for": {"node_down": "5m"}, "extra_labels": {"cluster": "a"}})
    assert json.dumps(DEFAULTS, sort_keys=True) == before


@pytest.mark.parametrize("settings, message", [
    ({"for": {"gpu_too_hot": "5 minutes"}},
     "prometheus_alert_for.gpu_too_hot is '5 minutes': give a Prometheus duration such as 0s, 30s, 5m or 1h30m."),
    ({"for": {"node_down": 120}},
     "prometheus_alert_for.node_down is 120: give a Prometheus duration such as 0s, 30s, 5m or 1h30m."),
    ({"for": {"node_down": "5m2h"}},
     "prometheus_alert_for.node_down is '5m2h': give a Prometheus duration such as 0s, 30s, 5m or 1h30m."),
    ({"for": {"gpu_hot": "5m", "disk": "1h"}},
     "prometheus_alert_for names unknown rule(s) disk, gpu_hot: use " + ", ".join(RULE_KEYS) + "."),
    ({"for": ["5m"]}, "prometheus_alert_for must be a mapping of rule to duration (gpu_too_hot: 5m), not ['5m']."),
    ({"severity": {"node_down": "very high"}},
     "prometheus_alert_severity.node_down is 'very high': give a word such as critical, warning or info."),
    ({"severity": {"nodes": "critical"}},
     "prometheus_alert_severity names unknown rule(s) nodes: use " + ", ".join(RULE_KEYS) + "."),
    ({"gpu_temperature_c": 150}, "prometheus_alert_gpu_temperature_c is 150: give degrees Celsius from 40 to 110."),
    ({"gpu_temperature_c": "85"}, "prometheus_alert_gpu_temperature_c is '85': give degrees Celsius from 40 to 110."),
    ({"gpu_temperature_c": True}, "prometheus_alert_gpu_temperature_c is True: give degrees Celsius from 40 to 110."),
    ({"disk_free_ratio": 10}, "prometheus_alert_disk_free_ratio is 10: give the free fraction below which the alert "
                              "fires, between 0 and 1 (0.1 for 10%)."),
    ({"disk_free_ratio": 0}, "prometheus_alert_disk_free_ratio is 0: give the free fraction below which the alert "
                             "fires, between 0 and 1 (0.1 for 10%)."),
    ({"shared_free_ratio": 1.0}, "prometheus_alert_shared_free_ratio is 1.0: give the free fraction below which the "
                                 "alert fires, between 0 and 1 (0.1 for 10%)."),
    ({"shared_mountpoint": "shared"}, "prometheus_alert_shared_mountpoint is 'shared': give the absolute path the "
                                      "shared storage is mounted at (/shared)."),
    ({"extra_labels": ["cluster=a"]}, "prometheus_alert_extra_labels must be a mapping of label name to value "
                                      "(cluster: gpu-a), not ['cluster=a']."),
    ({"extra_labels": {"my-cluster": "a"}}, "prometheus_alert_extra_labels has the label name 'my-cluster': give "
                                            "letters, digits and _ (not starting with a digit or __)."),
    ({"extra_labels": {"severity": "page"}},
     "prometheus_alert_extra_labels sets severity: set prometheus_alert_severity per rule instead."),
    ({"extra_labels": {"cluster": ["a"]}}, "prometheus_alert_extra_labels.cluster is ['a']: give a string."),
    ({"gpu_temp": 85}, "unknown alert setting(s) gpu_temp: the settings are disk_free_ratio, extra_labels, for, "
                       "gpu_temperature_c, severity, shared_free_ratio, shared_mountpoint (variables "
                       "prometheus_alert_<setting>)."),
])
def test_settings_errors(settings, message):
    assert alert_settings_errors(settings) == [message]
    with pytest.raises(AlertRulesError) as info:
        alert_rules(settings)
    assert str(info.value) == message


@pytest.mark.parametrize("duration", ["0s", "0", "30s", "5m", "1h30m", "2d", "1w", "1y", "500ms", "1h0m0s"])
def test_good_durations(duration):
    assert alert_settings_errors({"for": {"gpu_xid": duration}}) == []


@pytest.mark.parametrize("duration", ["", "5", "5M", "-5m", "5m ", "1.5h", "m", "5 m"])
def test_bad_durations(duration):
    assert alert_settings_errors({"for": {"gpu_xid": duration}}) == [
        "prometheus_alert_for.gpu_xid is %r: give a Prometheus duration such as 0s, 30s, 5m or 1h30m." % duration]


def test_every_error_at_once():
    errors = alert_settings_errors({"for": {"node_down": "2 minutes"}, "gpu_temperature_c": 20,
                                    "disk_free_ratio": 1.5, "shared_free_ratio": -0.1})
    assert [error.split(" ", 1)[0] for error in errors] == [
        "prometheus_alert_for.node_down", "prometheus_alert_gpu_temperature_c", "prometheus_alert_disk_free_ratio",
        "prometheus_alert_shared_free_ratio"]


def test_settings_that_are_not_a_mapping():
    assert alert_settings_errors(None) == [
        "the alert settings must be a mapping of the prometheus_alert_ variables without the prefix, not None."]
