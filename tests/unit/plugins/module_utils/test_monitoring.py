# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The monitoring plan (module_utils/monitoring/_monitoring.py): targets, prometheus.yml, alertmanager.yml, settings checks."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.gpuops.cluster.plugins.module_utils.monitoring._monitoring import (
    alertmanager_config,
    host_target,
    prometheus_config,
    settings_errors,
    targets,
)

PORTS = {"node": 9100, "gpu": 9445, "slurm": 9446, "prometheus": 9090, "alertmanager": 9093}
SETTINGS = {"scrape_interval": "30s", "scrape_timeout": "10s", "evaluation_interval": "30s",
            "rule_files": ["/etc/prometheus/rules/gpuops.rules.yml"], "ports": PORTS}


def _host(address, hostname=None, gpus=None, **more):
    facts = {"default_ipv4": {"address": address}}
    if hostname:
        facts["hostname"] = hostname
    if gpus is not None:
        facts["gpuops_gpus"] = {"count": gpus, "pci_gpus": []}
    variables = {"ansible_facts": facts}
    variables.update(more)
    return variables


HOSTVARS = {
    "ctl.example.org": _host("10.0.0.1", "ctl"),
    "gpu01.example.org": _host("10.0.0.11", "gpu01", gpus=8),
    "gpu02.example.org": _host("10.0.0.12", "gpu02", gpus=8, gpuops_monitoring_address="10.1.0.12",
                               slurm_node_name="node-b"),
    "cpu01.example.org": _host("10.0.0.21", "cpu01", gpus=0),
}
ALL = sorted(HOSTVARS)
COMPUTE = ["gpu01.example.org", "gpu02.example.org", "cpu01.example.org"]


def test_each_host_is_scraped_at_its_monitoring_address_with_its_slurm_name():
    plan = targets(HOSTVARS, ALL, COMPUTE, ["ctl.example.org"], ["ctl.example.org"])
    assert plan["errors"] == []
    assert plan["targets"]["gpu"] == [{"host": "gpu01.example.org", "node": "gpu01", "address": "10.0.0.11"},
                                      {"host": "gpu02.example.org", "node": "node-b", "address": "10.1.0.12"}]
    assert [target["host"] for target in plan["targets"]["node"]] == ALL
    assert plan["targets"]["slurm"] == [{"host": "ctl.example.org", "node": "ctl", "address": "10.0.0.1"}]


def test_a_host_without_an_address_is_named_with_the_fix():
    hostvars = dict(HOSTVARS, **{"new.example.org": {}, "bad.example.org": {"gpuops_monitoring_address": "eth0"}})
    plan = targets(hostvars, ALL + ["new.example.org", "bad.example.org"], COMPUTE, [], ["ctl.example.org"])
    assert plan["errors"] == [
        "new.example.org: no address: set gpuops_monitoring_address, or gather its facts (it has no default IPv4 route)",
        "bad.example.org: gpuops_monitoring_address 'eth0' is not an IP address"]
    assert "new.example.org" not in [target["host"] for target in plan["targets"]["node"]]
    named = targets(dict(hostvars, **{"new.example.org": {"ansible_host": "new-bmc"}}), ALL + ["new.example.org"],
                    COMPUTE, [], ["ctl.example.org"], by_name=True)
    assert named["errors"] == [] and named["by_name"] == ["new.example.org"]
    assert named["targets"]["node"][-1] == {"host": "new.example.org", "node": "new", "address": "new-bmc"}
    node_job = [job for job in prometheus_config(named, SETTINGS)["scrape_configs"] if job["job_name"] == "node"][0]
    assert node_job["static_configs"][-1]["targets"] == ["new-bmc:9100"]


def test_prometheus_config():
    plan = targets(HOSTVARS, ALL, COMPUTE, ["ctl.example.org"], ["ctl.example.org"])
    config = prometheus_config(plan, dict(SETTINGS, external_labels={"cluster": "lab"},
                                          extra_scrape_configs=[{"job_name": "ipmi"}]))
    jobs = [job["job_name"] for job in config["scrape_configs"]]
    assert jobs == ["prometheus", "alertmanager", "node", "gpu", "slurm", "ipmi"]
    gpu = config["scrape_configs"][3]
    assert gpu["static_configs"][1] == {"targets": ["10.1.0.12:9445"],
                                        "labels": {"instance": "gpu02.example.org", "node": "node-b"}}
    assert config["scrape_configs"][4]["honor_labels"] is True
    assert config["alerting"] == {"alertmanagers": [{"static_configs": [{"targets": ["10.0.0.1:9093"]}]}]}
    assert config["global"] == {"scrape_interval": "30s", "scrape_timeout": "10s", "evaluation_interval": "30s",
                                "external_labels": {"cluster": "lab"}}
    assert config["rule_files"] == ["/etc/prometheus/rules/gpuops.rules.yml"]


def test_ipv6_targets_are_bracketed():
    assert host_target("h", {"gpuops_monitoring_address": "fd00::5"})["address"] == "fd00::5"
    plan = {"targets": {"node": [{"host": "h", "node": "h", "address": "fd00::5"}]}}
    assert prometheus_config(plan, SETTINGS)["scrape_configs"][0]["static_configs"][0]["targets"] == ["[fd00::5]:9100"]


def test_alertmanager_config():
    assert alertmanager_config({}) == {
        "route": {"receiver": "default", "group_by": ["alertname", "node"], "group_wait": "10s",
                  "group_interval": "1m", "repeat_interval": "4h"},
        "receivers": [{"name": "default"}]}
    config = alertmanager_config({"receivers": [{"name": "admins", "email_configs": [{"to": "a@example.org"}]}],
                                  "route": {"repeat_interval": "12h"}, "inhibit_rules": [{"equal": ["node"]}]})
    assert config["route"]["receiver"] == "admins" and config["route"]["repeat_interval"] == "12h"
    assert config["inhibit_rules"] == [{"equal": ["node"]}]


@pytest.mark.parametrize("settings, message", [
    ({"scrape_interval": "30 seconds"},
     "prometheus_scrape_interval: '30 seconds' is not a Prometheus duration: write it like 15s, 1m or 30d"),
    ({"retention_time": "forever"},
     "prometheus_retention_time: 'forever' is not a Prometheus duration: write it like 15s, 1m or 30d"),
    ({"scrape_interval": "10s", "scrape_timeout": "15s"},
     "prometheus_scrape_timeout: 15s is longer than prometheus_scrape_interval 10s: make it shorter"),
    ({"ports": dict(PORTS, gpu=70000)},
     "gpuops_monitoring_gpu_exporter_port: 70000 is not a TCP port: give a number from 1 to 65535"),
    ({"ports": dict(PORTS, slurm=9100)},
     "gpuops_monitoring_*_port: two services have the same port (9090, 9093, 9100, 9100, 9445): give each its own"),
    ({"receivers": []}, "prometheus_alertmanager_receivers: give a list of Alertmanager receivers, at least one "
                        "(a name alone is a receiver that drops alerts)"),
    ({"receivers": [{"email_configs": []}]}, "prometheus_alertmanager_receivers[0]: each receiver needs a name"),
    ({"receivers": [{"name": "a"}, {"name": "a"}]},
     "prometheus_alertmanager_receivers: receiver names must be unique (a, a)"),
])
def test_settings_errors(settings, message):
    assert settings_errors(settings) == [message]


def test_good_settings_have_no_errors():
    assert settings_errors(dict(SETTINGS, retention_time="30d", receivers=[{"name": "default"}])) == []
