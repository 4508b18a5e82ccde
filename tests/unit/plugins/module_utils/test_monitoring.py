# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The monitoring plan (module_utils/monitoring/_monitoring.py): targets (with those kept from the running
prometheus.yml), prometheus.yml, alertmanager.yml, settings checks."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest
import yaml

from ansible_collections.gpuops.cluster.plugins.module_utils.monitoring._monitoring import (
    JOBS,
    MonitoringError,
    alertmanager_config,
    host_target,
    image_targets,
    kept_targets,
    prometheus_config,
    running_targets,
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


IMAGE_PROFILES = {
    "h100x8": {"cpus": 64, "sockets": 2, "cores_per_socket": 32, "threads_per_core": 1, "real_memory": 500000,
               "gres": [{"name": "gpu", "type": "nvidia_h100", "count": 8, "file": "/dev/nvidia[0-7]"}]},
    "cpu": {"cpus": 8, "sockets": 1, "cores_per_socket": 8, "threads_per_core": 1, "real_memory": 16000},
}


def test_image_nodes_are_scraped_at_their_nodeaddr_else_by_name():
    nodes = [{"names": "img[01-02]", "profile": "h100x8"}, {"names": "img03", "profile": "h100x8", "addr": "10.2.0.3"},
             {"names": "cpuimg01", "profile": "cpu"}, {"names": "bad01", "profile": "nope"}]
    image = image_targets(nodes, IMAGE_PROFILES)
    assert image == [
        {"host": "img01", "node": "img01", "address": "img01", "gpus": True},
        {"host": "img02", "node": "img02", "address": "img02", "gpus": True},
        {"host": "img03", "node": "img03", "address": "10.2.0.3", "gpus": True},
        {"host": "cpuimg01", "node": "cpuimg01", "address": "cpuimg01", "gpus": False}]
    plan = targets(HOSTVARS, ALL, COMPUTE, ["ctl.example.org"], ["ctl.example.org"], image=image)
    assert [target["host"] for target in plan["targets"]["node"]] == ALL + ["img01", "img02", "img03", "cpuimg01"]
    assert [target["host"] for target in plan["targets"]["gpu"]][-3:] == ["img01", "img02", "img03"]
    assert plan["targets"]["gpu"][-1] == {"host": "img03", "node": "img03", "address": "10.2.0.3"}
    # A running prometheus.yml's image node targets are this plan's own: none is kept twice.
    running = yaml.safe_dump(prometheus_config(plan, SETTINGS))
    again = targets(HOSTVARS, ALL, COMPUTE, ["ctl.example.org"], ["ctl.example.org"], running=running,
                    inventory=ALL, image=image)
    assert again["targets"] == plan["targets"] and again["kept"] == []
    # An inventory host of the same Slurm name is scraped once, as the inventory gives it.
    same = targets(HOSTVARS, ALL, COMPUTE, [], ["ctl.example.org"], image=[
        {"host": "gpu01", "node": "gpu01", "address": "gpu01", "gpus": True}])
    assert [target["node"] for target in same["targets"]["gpu"]].count("gpu01") == 1
    assert image_targets([], IMAGE_PROFILES) == [] and image_targets(None, {}) == []


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
     "prometheus_alertmanager_receivers: receiver names must be unique; given more than once: 'a'"),
])
def test_settings_errors(settings, message):
    assert settings_errors(settings) == [message]


def test_good_settings_have_no_errors():
    assert settings_errors(dict(SETTINGS, retention_time="30d", receivers=[{"name": "default"}])) == []


# --- hosts the running prometheus.yml has and this run's inventory does not (AWX slices) ----------------------------

# A cluster of ten hosts, its monitoring host (mon) apart; an AWX slice holds every n-th host of the inventory.
CLUSTER = dict([("mon.example.org", _host("10.0.0.2", "mon")), ("ctl.example.org", _host("10.0.0.1", "ctl"))]
               + [("gpu%02d.example.org" % index, _host("10.0.1.%d" % index, "gpu%02d" % index, gpus=8))
                  for index in range(1, 7)]
               + [("cpu01.example.org", _host("10.0.2.1", "cpu01", gpus=0)),
                  ("v6node.example.org", _host("10.0.2.6", "v6node", gpus=4, gpuops_monitoring_address="fd00::6",
                                               slurm_node_name="node-six"))])
CLUSTER_ALL = list(CLUSTER)
CLUSTER_COMPUTE = [host for host in CLUSTER_ALL if host.startswith(("gpu", "cpu", "v6"))]


def _plan(inventory, running=None, remove=None, by_name=False, hostvars=None):
    """targets() as the role calls it on the monitoring host of a run whose inventory is inventory."""
    compute = [host for host in CLUSTER_COMPUTE if host in inventory]
    controllers = [host for host in ["ctl.example.org"] if host in inventory]
    return targets(hostvars or dict((host, CLUSTER[host]) for host in inventory), inventory, compute, controllers,
                   ["mon.example.org"], by_name, running, inventory, remove)


def _text(plan):
    """prometheus.yml as the role writes it (to_nice_yaml)."""
    return yaml.safe_dump(prometheus_config(plan, SETTINGS), indent=2, width=1000, default_flow_style=False)


def _hosts(plan, job):
    return [target["host"] for target in plan["targets"][job]]


WHOLE = _text(_plan(CLUSTER_ALL))


class _TaggedStr(str):
    """A str subclass, as Ansible's templated text is."""


def test_the_running_targets_are_read_back_as_targets_gives_them():
    whole = _plan(CLUSTER_ALL)
    found = running_targets(WHOLE)
    for job in JOBS:
        assert found[job] == whole["targets"][job]
    assert found["gpu"][-1] == {"host": "v6node.example.org", "node": "node-six", "address": "fd00::6"}
    assert whole["kept"] == [] and kept_targets(WHOLE, CLUSTER_ALL) == {"node": [], "gpu": [], "slurm": []}
    assert running_targets(_TaggedStr(WHOLE)) == found and running_targets(WHOLE.encode()) == found


@pytest.mark.parametrize("count", [2, 3, 4, 10])
def test_a_slice_writes_what_the_whole_inventory_writes(count):
    """AWX slices: the one that holds the monitoring host writes prometheus.yml byte for byte as a whole run."""
    for offset in range(count):
        inventory = CLUSTER_ALL[offset::count]
        if "mon.example.org" not in inventory:
            continue
        plan = _plan(inventory, running=WHOLE)
        assert _text(plan) == WHOLE
        assert plan["kept"] == sorted(set(CLUSTER_ALL) - set(inventory))
        # The next run of the same slice reads what this one wrote: nothing moves.
        assert _text(_plan(inventory, running=_text(plan))) == WHOLE


def test_only_the_monitoring_host_keeps_every_other_host_in_place():
    plan = _plan(["mon.example.org"], running=WHOLE)
    assert _text(plan) == WHOLE
    assert plan["kept"] == sorted(CLUSTER_ALL[1:])
    assert plan["targets"]["slurm"] == [{"host": "ctl.example.org", "node": "ctl", "address": "10.0.0.1"}]


def test_kept_targets_are_the_hosts_the_inventory_does_not_hold():
    inventory = ["mon.example.org", "ctl.example.org", "gpu01.example.org"]
    kept = kept_targets(WHOLE, inventory)
    assert [target["host"] for target in kept["gpu"]] == ["gpu%02d.example.org" % index for index in range(2, 7)] \
        + ["v6node.example.org"]
    assert "cpu01.example.org" in [target["host"] for target in kept["node"]]
    assert "cpu01.example.org" not in [target["host"] for target in kept["gpu"]]  # no GPU: never a gpu target
    assert kept["slurm"] == []


@pytest.mark.parametrize("remove", [["gpu02.example.org"], ["gpu02"], ["gpu02", "gpu02.example.org", "nowhere"]])
def test_a_kept_host_leaves_when_the_removal_list_names_it_or_its_slurm_node(remove):
    inventory = CLUSTER_ALL[0::2]
    assert "gpu02.example.org" not in inventory
    plan = _plan(inventory, running=WHOLE, remove=remove)
    for job in ("node", "gpu"):
        assert "gpu02.example.org" not in _hosts(plan, job)
    assert "gpu02.example.org" not in plan["kept"]
    assert plan["kept"] == sorted(set(CLUSTER_ALL) - set(inventory) - {"gpu02.example.org"})
    # By its Slurm node name when it differs from the inventory name's first label.
    assert "v6node.example.org" not in _hosts(_plan(inventory, running=WHOLE, remove=["node-six"]), "gpu")


def test_the_removal_list_never_takes_out_a_host_of_the_inventory():
    plan = _plan(CLUSTER_ALL, running=WHOLE, remove=["gpu01", "gpu02.example.org"])
    assert _text(plan) == WHOLE and plan["kept"] == []


def test_a_host_of_the_inventory_is_never_scraped_twice():
    # The running file has gpu01 at an old address: the inventory's description wins, once.
    running = WHOLE.replace("10.0.1.1:", "10.9.9.9:")
    plan = _plan(CLUSTER_ALL, running=running)
    assert _text(plan) == WHOLE
    for job in JOBS:
        assert len(_hosts(plan, job)) == len(set(_hosts(plan, job)))
    # A host renamed in the inventory (same Slurm node name): its old instance is not kept beside it.
    renamed = dict((host, CLUSTER[host]) for host in CLUSTER_ALL if host != "gpu01.example.org")
    renamed["gpu01.lab"] = CLUSTER["gpu01.example.org"]
    inventory = [host if host != "gpu01.example.org" else "gpu01.lab" for host in CLUSTER_ALL]
    plan = targets(renamed, inventory, [host for host in inventory if host.startswith(("gpu", "cpu", "v6"))],
                   ["ctl.example.org"], ["mon.example.org"], False, WHOLE, inventory, [])
    assert plan["kept"] == []
    assert [target["node"] for target in plan["targets"]["gpu"]].count("gpu01") == 1


def test_a_kept_host_scraped_by_name_or_at_ipv6_stays_so():
    hostvars = dict(CLUSTER, **{"gpu02.example.org": {"ansible_host": "gpu02-ib"}})
    whole = _plan(CLUSTER_ALL, by_name=True, hostvars=hostvars)
    assert whole["by_name"] == ["gpu02.example.org"]
    kept = kept_targets(_text(whole), ["mon.example.org"])
    assert {"host": "gpu02.example.org", "node": "gpu02", "address": "gpu02-ib"} in kept["node"]
    assert {"host": "v6node.example.org", "node": "node-six", "address": "fd00::6"} in kept["node"]
    assert _text(_plan(["mon.example.org"], running=_text(whole))) == _text(whole)


def _running(job, *groups):
    return yaml.safe_dump({"scrape_configs": [{"job_name": job, "static_configs": list(groups)}]})


GOOD_GROUP = {"targets": ["10.0.1.9:9100"], "labels": {"instance": "gpu09.example.org", "node": "gpu09"}}


@pytest.mark.parametrize("running", [
    None, "", "   \n", "{", "[", "- a\n- b\n", "scrape_configs", "scrape_configs: 3\n", b"\xff\xfe{",
    "scrape_configs: [3, x, null]\n", "scrape_configs:\n  - job_name: node\n    static_configs: x\n",
    _running("ipmi", GOOD_GROUP), _running(["node"], GOOD_GROUP),
    _running("node", "x", None, [GOOD_GROUP]),
    _running("node", dict(GOOD_GROUP, targets="10.0.1.9:9100")),
    _running("node", dict(GOOD_GROUP, labels=["gpu09"])),
    _running("node", dict(GOOD_GROUP, labels={"instance": 9, "node": "gpu09"})),
    _running("node", dict(GOOD_GROUP, labels={"instance": "", "node": "gpu09"})),
    _running("node", dict(GOOD_GROUP, labels={"instance": "gpu09", "node": ["gpu09"]})),
    _running("node", dict(GOOD_GROUP, labels={"node": "gpu09"})),
    _running("node", dict(GOOD_GROUP, targets=[])),
    _running("node", dict(GOOD_GROUP, targets=["10.0.1.9"])),
    _running("node", dict(GOOD_GROUP, targets=["fd00::9:9100"])),
    _running("node", dict(GOOD_GROUP, targets=["[gpu09]:9100"])),
    _running("node", dict(GOOD_GROUP, targets=["[10.0.1.9]:9100"])),
    _running("node", dict(GOOD_GROUP, targets=["gpu 09:9100"])),
    _running("node", dict(GOOD_GROUP, targets=["10.0.1.9:99999"])),
    _running("node", dict(GOOD_GROUP, targets=["http://10.0.1.9:9100"])),
    _running("node", dict(GOOD_GROUP, targets=[9100])),
    "a: &a [*a]\n", "{a: !!python/object/apply:os.system [true]}\n", "[" * 5000 + "]" * 5000,
], ids=lambda value: repr(value)[:40])
def test_running_text_that_is_missing_or_not_prometheus_yml_keeps_nothing(running):
    assert kept_targets(running, ["mon.example.org"], []) == {"node": [], "gpu": [], "slurm": []}
    plan = _plan(CLUSTER_ALL, running=running)
    assert plan["kept"] == [] and _text(plan) == WHOLE


def test_of_a_running_file_of_another_shape_only_the_good_targets_count():
    running = yaml.safe_dump({"global": {}, "scrape_configs": [
        {"job_name": "node", "static_configs": [
            "x", dict(GOOD_GROUP, labels={"instance": "bad"}, targets=["::"]), GOOD_GROUP,
            dict(GOOD_GROUP, targets=["10.0.1.99:9100"]),
            {"targets": ["[fd00::a]:9100", "x"], "labels": {"instance": "gpu10.example.org"}}]},
        {"job_name": "gpu"}, "junk"]})
    assert kept_targets(running, []) == {"node": [
        {"host": "gpu09.example.org", "node": "gpu09", "address": "10.0.1.9"},
        {"host": "gpu10.example.org", "node": "gpu10", "address": "fd00::a"}], "gpu": [], "slurm": []}


@pytest.mark.parametrize("inventory, remove, message", [
    ("mon", [], "the inventory must be a list of host names (groups['all']), not 'mon'"),
    (None, [], "the inventory must be a list of host names (groups['all']), not None"),
    ([], "gpu03", "prometheus_remove_hosts (with slurm_remove_nodes) must be a list of host or Slurm node names, "
                  "not 'gpu03'"),
    ([], [3], "prometheus_remove_hosts (with slurm_remove_nodes) must be a list of host or Slurm node names, not [3]"),
])
def test_kept_targets_refuses_an_inventory_or_removal_list_of_another_type(inventory, remove, message):
    with pytest.raises(MonitoringError) as caught:
        kept_targets(WHOLE, inventory, remove)
    assert str(caught.value) == message


@pytest.mark.parametrize("remove, message", [
    ("gpu17", "prometheus_remove_hosts must be a list of inventory host or Slurm node names to take out of "
              "prometheus.yml ([gpu17]), not 'gpu17'"),
    (["gpu17", 3, ""], "prometheus_remove_hosts[1]: 3 is not a host name: give an inventory host or Slurm node "
                       "name (gpu17)"),
])
def test_prometheus_remove_hosts_is_checked(remove, message):
    assert settings_errors(dict(SETTINGS, remove_hosts=remove))[0] == message
    assert settings_errors(dict(SETTINGS, remove_hosts=["gpu17", "gpu18.example.org"])) == []
