# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Slurm model filters (plugins/filter/slurm_model.py) through their Python functions.

A plain dict stands in for hostvars: hostvars[host] is the host's variables,
with ansible_facts (hardware facts and gpuops_gpus, as setup and gpu_facts
leave them) and the slurm_node_* variables. GPU facts are those of a real
capture (8x Tesla V100S-PCIE-32GB) through the gpu_facts parser.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import copy
import json
import os

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.gpuops.cluster.plugins.filter import slurm_model as slurm_model_filters
from ansible_collections.gpuops.cluster.plugins.filter.slurm_model import FilterModule
from ansible_collections.gpuops.cluster.plugins.module_utils.gpu._gpu_facts import build_facts, parse_smi_xml
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._slurm_model import build_model

from ansible.module_utils.six.moves.collections_abc import Mapping

FILTERS = FilterModule().filters()
NAMES = ["slurm_bundle_handlers", "slurm_config_drift", "slurm_host_files", "slurm_inventory_errors", "slurm_log_errors", "slurm_model", "slurm_node_name",
         "slurm_rejected_reason", "slurm_restart_changes", "slurm_restart_plan", "slurm_running_files"]
FIXTURES = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures"))


def _gpus():
    with open(os.path.join(FIXTURES, "nvidia-smi-xml", "datakit_8x-tesla-v100s-pcie-32gb.xml")) as handle:
        facts, _warnings = build_facts(parse_smi_xml(handle.read()))
    facts.update(status="ok", error=None, device_files=["/dev/nvidia%d" % i for i in range(8)])
    return facts


GPUS = _gpus()
V100 = "gpu:tesla_v100s-pcie-32gb:8"
# What `setup` (gather_subset min, hardware) gathers on a 2-socket, 128-thread server with 1 TB, in part.
SERVER_FACTS = {"memtotal_mb": 1031000, "memfree_mb": 1020000, "processor_vcpus": 128, "processor_count": 2,
                "processor_cores": 32, "processor_threads_per_core": 2, "processor_nproc": 128,
                "architecture": "x86_64", "distribution": "Debian", "fqdn": "gpu01.example.org"}
SETTINGS = {
    "cluster_name": "lab", "controller_group": "slurm_controller", "compute_group": "slurm_compute",
    "dbd_group": "slurm_dbd", "series": "22.05", "user": "slurm", "config_dir": "/etc/slurm", "log_dir": "/var/log/slurm",
    "state_dir": "/var/lib/slurm/slurmctld", "spool_dir": "/var/lib/slurm/slurmd", "slurmctld_pidfile": "/run/slurmctld.pid",
    "slurmd_pidfile": "/run/slurmd.pid", "configless": False, "accounting": False, "dbd_port": 6819,
    "config_defaults": {"AuthType": "auth/munge", "SlurmctldPort": 6817, "SelectTypeParameters": "CR_Core_Memory"},
    "accounting_config": {"AccountingStorageType": "accounting_storage/slurmdbd"},
    "config": {}, "cgroup_defaults": {"22.05": {"ConstrainCores": True}}, "cgroup_config": {},
    "partitions": [{"name": "gpu", "nodes": "ALL", "default": True}],
    "real_memory_margin_pct": 5, "real_memory_round_mb": 1024, "real_memory_group_pct": 1,
    "restart_keys": ["SelectTypeParameters", "SlurmctldHost"],
    "allow_gres_decrease": False, "dbd_accounts": [], "dbd_db_password": "", "munge_key_length": 0,
}
NODE_LINE = ("CPUs=128 Sockets=2 CoresPerSocket=32 ThreadsPerCore=2 RealMemory=978944 Gres=%s State=UNKNOWN" % V100)


def _hostvars(count=2, fqdn=False, **extra):
    """hostvars of a controller and count GPU nodes; extra: host -> variables to add."""
    hostvars = {"ctl": {"inventory_hostname": "ctl", "ansible_facts": {"hostname": "ctl", "memtotal_mb": 3900}}}
    for number in range(1, count + 1):
        short = "gpu%02d" % number
        host = short + ".example.org" if fqdn else short
        hostvars[host] = {"inventory_hostname": host, "group_names": ["slurm_compute"], "ansible_host": "10.0.0.%d" % number,
                          "ansible_facts": dict(SERVER_FACTS, hostname=short, gpuops_gpus=copy.deepcopy(GPUS))}
    for host, variables in extra.items():
        hostvars.setdefault(host, {}).update(variables)
    return hostvars


def _computes(hostvars):
    return sorted(host for host in hostvars if host != "ctl" and not host.startswith("db"))


def _model(hostvars, settings=None, running=None, dbd=None):
    return FILTERS["slurm_model"](hostvars, ["ctl"], _computes(hostvars), dbd or [], settings or SETTINGS, running)


def _node_lines(model):
    return [line for line in model["slurm_conf"] if line.startswith("NodeName=")]


class LazyMapping(Mapping):
    """Stands in for Ansible's lazy containers (HostVarsVars, templated dicts): a Mapping, not a dict."""

    def __init__(self, data):
        self._data = data

    def __getitem__(self, key):
        value = self._data[key]
        return LazyMapping(value) if isinstance(value, dict) else value

    def __iter__(self):
        return iter(self._data)

    def __len__(self):
        return len(self._data)


def test_filter_names():
    assert sorted(FILTERS) == NAMES


# --- slurm_model -----------------------------------------------------------------------

def test_slurm_model_reads_hostvars():
    model = _model(_hostvars(8))
    assert model["errors"] == [] and model["warnings"] == []
    assert _node_lines(model) == ["NodeName=gpu[01-08] " + NODE_LINE]
    assert model["hosts"]["gpu05"]["gres_conf"] == ["Name=gpu Type=tesla_v100s-pcie-32gb File=/dev/nvidia[0-7]"]
    assert model["controller"] == {"host": "ctl", "name": "ctl", "addr": ""}
    assert model["node_count"] == 8


def test_slurm_model_is_the_model_of_the_values_it_reads():
    hostvars = _hostvars(2, gpu02={"slurm_node_weight": 5, "slurm_node_features": ["pcie"], "unrelated": "x"})
    fact_keys = ("memtotal_mb", "processor_vcpus", "processor_count", "processor_cores", "processor_threads_per_core")
    facts = dict((key, SERVER_FACTS[key]) for key in fact_keys)
    gpus = dict((key, GPUS.get(key)) for key in ("status", "error", "count", "slurm_gres", "gres_conf", "pci_gpus",
                                                 "device_files"))
    inventory = {"controllers": ["ctl"], "computes": ["gpu01", "gpu02"], "dbd": [], "hosts": {
        "ctl": {"facts": {"hostname": "ctl", "memtotal_mb": 3900}, "gpus": None, "vars": {}},
        "gpu01": {"facts": dict(facts, hostname="gpu01"), "gpus": gpus, "vars": {}},
        "gpu02": {"facts": dict(facts, hostname="gpu02"), "gpus": gpus,
                  "vars": {"slurm_node_weight": 5, "slurm_node_features": ["pcie"]}}}}
    assert _model(hostvars) == build_model(inventory, SETTINGS)


def test_slurm_model_takes_lazy_containers():
    hostvars = _hostvars(2)
    settings = dict(SETTINGS, partitions=[{"name": "gpu", "nodes": ("gpu01", "gpu02")}])
    lazy = FILTERS["slurm_model"](LazyMapping(hostvars), ("ctl",), ("gpu01", "gpu02"), (), LazyMapping(settings))
    assert lazy == _model(hostvars, dict(SETTINGS, partitions=[{"name": "gpu", "nodes": ["gpu01", "gpu02"]}]))
    assert "PartitionName=gpu Nodes=gpu[01-02]" in lazy["slurm_conf"]


def test_slurm_model_names_fqdn_hosts_by_their_gathered_hostname():
    model = _model(_hostvars(2, fqdn=True))
    assert model["errors"] == []
    assert _node_lines(model) == ["NodeName=gpu[01-02] " + NODE_LINE]
    assert model["hosts"]["gpu01.example.org"]["name"] == "gpu01"


def test_slurm_model_gpus_from_a_variable_when_not_in_facts():
    hostvars = _hostvars(1)
    hostvars["gpu01"]["gpuops_gpus"] = hostvars["gpu01"]["ansible_facts"].pop("gpuops_gpus")
    assert _node_lines(_model(hostvars)) == ["NodeName=gpu01 " + NODE_LINE]
    # the facts win over the variable
    hostvars["gpu01"]["ansible_facts"]["gpuops_gpus"] = dict(GPUS, count=0, slurm_gres="", gres_conf=[])
    assert _node_lines(_model(hostvars)) == ["NodeName=gpu01 " + NODE_LINE.replace(" Gres=%s" % V100, "")]


def test_slurm_model_reports_gpuops_gpus_that_is_not_a_mapping():
    hostvars = _hostvars(1)
    hostvars["gpu01"]["ansible_facts"]["gpuops_gpus"] = "8"
    assert _model(hostvars)["errors"] == [
        'gpuops_gpus of gpu01 is "8", not the mapping gpuops.cluster.gpu_facts gathers: remove gpuops_gpus from the '
        "inventory (slurm_node_gres sets a node's GPUs)."]


def test_slurm_model_inventory_gres_override():
    gres = [{"type": "a100", "count": 4, "file": "/dev/nvidia[0-3]", "cores": "0-31"}]
    model = _model(_hostvars(2, gpu02={"slurm_node_gres": gres}))
    assert model["errors"] == []
    assert model["hosts"]["gpu02"]["gres_conf"] == ["Name=gpu Type=a100 File=/dev/nvidia[0-3] Cores=0-31"]
    assert _node_lines(model)[1] == "NodeName=gpu02 " + NODE_LINE.replace(V100, "gpu:a100:4")


def test_slurm_model_node_vars_of_the_controller_are_not_read():
    """Only a compute node's slurm_node_gres and the like count; the controller's name and address do."""
    hostvars = _hostvars(1, ctl={"slurm_node_gres": "junk", "slurm_node_addr": "10.0.0.254", "slurm_node_name": "head"})
    model = _model(hostvars)
    assert model["errors"] == []
    assert model["settings"]["SlurmctldHost"] == "head(10.0.0.254)"


def test_slurm_model_host_missing_from_hostvars():
    # Not in this run, no running slurm.conf, no cached facts: named and left out, no stop for the others.
    model = FILTERS["slurm_model"](_hostvars(1), ["ctl"], ["gpu01", "gpu02"], [], SETTINGS, "", "", ["ctl", "gpu01"],
                                   ["ctl", "gpu01"])
    assert model["errors"] == []
    assert model["node_sources"] == {"facts": "gpu01", "none": "gpu02"}
    assert model["node_source_notes"] == [
        "gpu02: no source: not reached in this run, not in the running slurm.conf and no cached facts"]


def test_slurm_model_a_node_down_is_described_by_the_running_slurm_conf():
    whole = _model(_hostvars(2))
    running = "\n".join(whole["slurm_conf"])
    hostvars = _hostvars(2)
    del hostvars["gpu02"]["ansible_facts"]
    model = FILTERS["slurm_model"](hostvars, ["ctl"], ["gpu01", "gpu02"], [], SETTINGS, running, "", ["ctl", "gpu01"],
                                   ["ctl", "gpu01", "gpu02"])
    assert model["errors"] == [] and model["slurm_conf"] == whole["slurm_conf"]
    assert model["node_sources"] == {"facts": "gpu01", "running": "gpu02"}


def test_slurm_model_running_conf():
    hostvars = _hostvars(2)
    hostvars["gpu02"]["ansible_facts"]["gpuops_gpus"] = {
        "status": "no_driver", "error": "Failed to initialize NVML: Driver/library version mismatch", "count": 0,
        "gres_conf": [], "slurm_gres": "", "pci_gpus": [], "device_files": []}
    running = "NodeName=gpu[01-02] CPUs=128 Gres=%s\n" % V100
    errors = _model(hostvars, running=running)["errors"]
    assert len(errors) == 1 and errors[0].startswith("gpu02: the running slurm.conf gives it 8 GPUs but nvidia-smi failed")
    model = _model(hostvars, dict(SETTINGS, allow_gres_decrease=True), running)
    assert model["errors"] == [] and len(model["warnings"]) == 1
    assert _model(hostvars, running="")["errors"] == []


def test_slurm_model_with_a_slurmdbd_host():
    hostvars = _hostvars(1, **{"db.example.org": {"ansible_facts": {"hostname": "slurmdb"}}})
    model = _model(hostvars, dict(SETTINGS, accounting=True), dbd=["db.example.org"])
    assert model["errors"] == []
    assert "AccountingStorageHost=slurmdb" in model["slurm_conf"]
    assert model["hosts"]["db.example.org"]["dbd_only"] is True
    assert model["hosts"]["db.example.org"]["gres_conf"] == []


@pytest.mark.parametrize("settings", [None, "lab", ["x"]])
def test_slurm_model_bad_settings_are_a_filter_error(settings):
    with pytest.raises(AnsibleFilterError, match=r"^slurm_model: build_model takes the inventory and the settings as "
                                                 r"mappings$"):
        FILTERS["slurm_model"](_hostvars(1), ["ctl"], ["gpu01"], [], settings)


def test_slurm_model_malformed_gpu_facts_are_a_filter_error():
    hostvars = _hostvars(1)
    hostvars["gpu01"]["ansible_facts"]["gpuops_gpus"] = {"count": 1, "slurm_gres": "gpu:1", "gres_conf": 5}
    with pytest.raises(AnsibleFilterError, match=r"^slurm_model: cluster model: cannot read this input"):
        _model(hostvars)


def test_slurm_model_result_is_json():
    model = _model(_hostvars(2), dict(SETTINGS, configless=True))
    assert json.loads(json.dumps(model)) == model


# --- slurm_inventory_errors ------------------------------------------------------------

def test_slurm_inventory_errors_of_a_good_inventory():
    assert FILTERS["slurm_inventory_errors"](_hostvars(2), ["ctl"], ["gpu01", "gpu02"], [], SETTINGS) == []


def test_slurm_inventory_errors_need_no_facts():
    hostvars = dict((host, {"inventory_hostname": host}) for host in ("ctl", "gpu01.example.org", "gpu02.example.org"))
    assert FILTERS["slurm_inventory_errors"](hostvars, ["ctl"], ["gpu01.example.org", "gpu02.example.org"], [],
                                             SETTINGS) == []


def test_slurm_inventory_errors_finds_them_all():
    hostvars = _hostvars(3, gpu02={"slurm_node_name": "gpu01"}, gpu03={"slurm_node_gres": [{"type": "a100", "count": 4}]})
    errors = FILTERS["slurm_inventory_errors"](
        LazyMapping(hostvars), [], ["gpu01", "gpu02", "gpu03"], ["db1", "db2", "db3"],
        LazyMapping(dict(SETTINGS, cluster_name="Lab", partitions=[{"name": "gpu", "options": {"maxtime": "1:00"}}])))
    assert errors == [
        "No controller host: the inventory group slurm_controller (slurm_controller_group) is empty or missing. Add the "
        "host that runs slurmctld to it; an inventory that holds part of the cluster (an AWX job slice) names it in "
        "gpuops_slice_hosts instead.",
        "The inventory group slurm_dbd (slurm_dbd_group) has 3 hosts (db1, db2, db3); Slurm runs one slurmdbd and at "
        "most one backup (DbdBackupHost). Keep one or two hosts in that group (the primary first), or none to run "
        "slurmdbd on the controller.",
        'slurm_cluster_name "Lab": use lower-case letters, digits, _ and - (up to 40, starting with a letter or digit); '
        "slurmdbd keys its tables by it.",
        'slurm_node_gres on gpu03[0]: a GPU needs file (for example "/dev/nvidia[0-3]"): Slurm binds GPUs by device file.',
        'Slurm node name "gpu01" is used by gpu01, gpu02: Slurm node name must be unique. Set slurm_node_name to tell '
        "them apart.",
        'slurm_partitions: partition gpu: "maxtime" is not a PartitionName option (did you mean MaxTime?); see '
        "slurm.conf(5), PARTITION CONFIGURATION.",
    ]


def test_slurm_inventory_errors_with_the_first_plays_settings():
    """The first play passes only the inventory part of the settings (__slurm_inventory_settings), templated."""
    settings = {"cluster_name": "lab", "controller_group": "slurm_controller", "compute_group": "slurm_compute",
                "dbd_group": "slurm_dbd", "partitions": [{"name": "gpu", "nodes": "ALL", "default": True}],
                "munge_key_length": "0", "accounting": True, "dbd_accounts": [{"name": "chem", "users": ["alice"]}],
                "dbd_db_password": "Zt4-9_x!Q2"}
    assert FILTERS["slurm_inventory_errors"](_hostvars(2), ["ctl"], ["gpu01", "gpu02"], [], settings) == []
    assert FILTERS["slurm_inventory_errors"](_hostvars(2), ["ctl"], ["gpu01", "gpu02"], [],
                                             dict(settings, munge_key_length="12")) == [
        "slurm_munge_key is 12 characters long; munge needs at least 32. Put a longer random key in your vault (for "
        "example the output of `openssl rand -base64 96`), or leave it empty to have one generated."]


def test_slurm_inventory_errors_bad_settings_are_a_filter_error():
    with pytest.raises(AnsibleFilterError, match=r"^slurm_inventory_errors: inventory: cannot read this input"):
        FILTERS["slurm_inventory_errors"](_hostvars(1), ["ctl"], ["gpu01"], [], None)


# --- slurm_node_name -----------------------------------------------------------------------

@pytest.mark.parametrize("args, expected", [
    (("gpu01.example.org",), "gpu01"),
    (("gpu01.example.org", None, "node-17"), "node-17"),
    (("gpu01.example.org", "n001", "node-17"), "n001"),
    (("gpu01.example.org", "", None), "gpu01"),
    (("10.0.0.5",), "10.0.0.5"),
    (("10.0.0.5", None, "gpu05"), "gpu05"),
])
def test_slurm_node_name(args, expected):
    assert FILTERS["slurm_node_name"](*args) == expected


# --- slurm_restart_changes -----------------------------------------------------------------

NEW = {"settings": {"SelectTypeParameters": "CR_Core_Memory", "SlurmctldHost": "ctl"},
       "nodes": ["gpu[01-04]:%s:978944:128" % V100], "configless": False}
KEYS = ["SelectTypeParameters", "SlurmctldHost"]


@pytest.mark.parametrize("old, keys, expected", [
    (NEW, KEYS, []),
    (json.loads(json.dumps(NEW)), tuple(KEYS), []),
    (LazyMapping(dict(NEW, nodes=["gpu%02d:%s:978944:128" % (i, V100) for i in range(1, 5)])), KEYS, []),
    (dict(NEW, settings={"SelectTypeParameters": "CR_Core", "SlurmctldHost": "ctl"}), KEYS,
     ["SelectTypeParameters CR_Core -> CR_Core_Memory"]),
    (dict(NEW, settings={"SelectTypeParameters": "CR_Core", "SlurmctldHost": "ctl"}), None, []),
    (dict(NEW, nodes=["gpu[01-02]:%s:978944:128" % V100]), KEYS,
     ["node definitions (gres:memory:cpus): added gpu[03-04]"]),
    (dict(NEW, configless=True), KEYS, ["configless mode True -> False"]),
    ("", KEYS, ["no record of the settings the daemons run with"]),
])
def test_slurm_restart_changes(old, keys, expected):
    assert FILTERS["slurm_restart_changes"](old, LazyMapping(NEW), keys) == expected


@pytest.mark.parametrize("recorded, active, expected", [
    (None, True, ["first start"]),
    (None, False, []),
    (base64.b64encode(json.dumps(NEW).encode()).decode(), True, []),
    (base64.b64encode(json.dumps(dict(NEW, configless=True)).encode()).decode(), True,
     ["configless mode True -> False"]),
    ("!!not base64", True, ["no record of the settings the daemons run with"]),
])
def test_slurm_restart_plan(recorded, active, expected):
    stale = recorded is None or expected != []
    assert FILTERS["slurm_restart_plan"](recorded, LazyMapping(NEW), KEYS, active, stale) == expected


# What host_probe returns of a host, as the role reads it (packages, services).
def _probe(munge_installed=True, slurmd_active=True):
    return LazyMapping({"packages": {"munge": munge_installed, "slurmd": True},
                        "services": {"slurmd": {"active": slurmd_active, "enabled": True},
                                     "munge": {"active": True, "enabled": True}}})


KEY = {"path": "/etc/munge/munge.key", "mode": "0400", "content_b64": "a2V5"}
CONF = {"path": "/etc/slurm/slurm.conf", "content": "ClusterName=lab\n"}
GRES = {"path": "/etc/slurm/gres.conf", "content": "Name=gpu File=/dev/nvidia0\n"}
DROPIN = {"path": "/etc/systemd/system/slurmd.service.d/gpuops-configless.conf", "content": "[Service]\n"}
NODE = {"compute": True, "controller": False}
CTL = {"compute": False, "controller": True}


@pytest.mark.parametrize("bundle, host, probe, active, expected", [
    # A converged host: nothing written, nothing notified.
    ({"munge": [], "config": [], "slurmd": []}, NODE, _probe(), True, []),
    # A fresh host: the packages are not there yet, no daemon ran; the
    # daemons start on the new files, and only the drop-in needs systemd to
    # read it again.
    ({"munge": [KEY], "config": [CONF], "slurmd": [GRES, DROPIN]}, NODE, _probe(False, False), False,
     ["daemon reload"]),
    # A new key where munge is installed restarts it.
    ({"munge": [KEY], "config": [], "slurmd": []}, NODE, _probe(), True, ["restart munge"]),
    # New configuration and gres.conf on a node whose slurmd runs.
    ({"munge": [], "config": [CONF], "slurmd": [GRES]}, NODE, _probe(), True, ["reconfigure", "restart slurmd"]),
    # The controller: reconfigure only; slurmd's files are not its own.
    ({"munge": [], "config": [CONF], "slurmd": [GRES]}, CTL, _probe(), True, ["reconfigure"]),
    # slurmd stopped before this run: it starts on the new files.
    ({"munge": [], "config": [CONF], "slurmd": [GRES]}, NODE, _probe(slurmd_active=False), False, []),
    # Everything at once, in the handlers' order.
    ({"munge": [KEY], "config": [CONF], "slurmd": [DROPIN]}, NODE, _probe(), True,
     ["restart munge", "reconfigure", "daemon reload", "restart slurmd"]),
    # Kinds left out, a probe without the keys: nothing to notify, no error.
    ({}, NODE, {}, True, []),
])
def test_slurm_bundle_handlers(bundle, host, probe, active, expected):
    assert FILTERS["slurm_bundle_handlers"](LazyMapping(bundle), LazyMapping(host), probe, active) == expected


def test_slurm_bundle_handlers_prefix():
    bundle = {"munge": [], "config": [CONF], "slurmd": [DROPIN]}
    assert FILTERS["slurm_bundle_handlers"](bundle, NODE, _probe(), True, prefix="_slurm_common ") == [
        "_slurm_common reconfigure", "_slurm_common daemon reload", "_slurm_common restart slurmd"]


def test_slurm_restart_changes_of_a_model():
    """What config_files.yml does: the record (to_nice_json, then from_json) against the next run's model."""
    first = _model(_hostvars(4))["restart"]
    record = json.loads(json.dumps(first, indent=4, sort_keys=True))
    assert FILTERS["slurm_restart_changes"](record, _model(_hostvars(4))["restart"], SETTINGS["restart_keys"]) == []
    changed = _model(_hostvars(4, gpu03={"slurm_node_real_memory": 500000}),
                     dict(SETTINGS, config={"SelectTypeParameters": "CR_Core"}))["restart"]
    assert FILTERS["slurm_restart_changes"](record, changed, SETTINGS["restart_keys"]) == [
        "SelectTypeParameters CR_Core_Memory -> CR_Core",
        "node definitions (gres:memory:cpus): gpu03 %s:978944:128 -> %s:500000:128" % (V100, V100)]


# --- slurm_log_errors ------------------------------------------------------------------------

LOG = ["[2026-11-24T00:57:40.102] error: old problem",
       "[2026-11-24T00:57:41.204] error: Bad SelectTypeParameter: CR_Bogus",
       "[2026-11-24T00:57:41.206] fatal: Unable to process configuration file",
       "[2026-11-24T00:57:41.206] fatal: Unable to process configuration file"]


@pytest.mark.parametrize("args, expected", [
    ((LOG,), ["error: old problem", "error: Bad SelectTypeParameter: CR_Bogus", "fatal: Unable to process configuration file"]),
    ((LOG, 1), ["fatal: Unable to process configuration file"]),
    ((["x" * 400 + " error"],), ["x" * 300]),
    (([],), []),
    ((None,), []),
])
def test_slurm_log_errors(args, expected):
    assert FILTERS["slurm_log_errors"](*args) == expected


# --- slurm_host_files ------------------------------------------------------------------------

PATHS = {"config_dir": "/etc/slurm", "log_dir": "/var/log/slurm", "state_dir": "/var/lib/slurm/slurmctld",
         "spool_dir": "/var/lib/slurm/slurmd", "slurmd_env_file": "/etc/default/slurmd",
         "configless_dropin": "/etc/systemd/system/slurmd.service.d/gpuops-configless.conf",
         "task_prolog": "/etc/slurm/task_prolog"}
CONTENTS = {"slurm.conf": "S", "cgroup.conf": "C", "gres.conf": "G", "slurmd_env": "E", "dropin": "D", "task_prolog": "P"}


def test_slurm_host_files():
    model = _model(_hostvars(1))
    files = FILTERS["slurm_host_files"](LazyMapping(model["hosts"]["gpu01"]), LazyMapping(PATHS), LazyMapping(CONTENTS))
    assert [entry["path"] for entry in files["slurmd"]] == ["/etc/slurm/gres.conf", "/etc/default/slurmd",
                                                            "/etc/slurm/task_prolog", "/etc/slurm/task_prolog.d",
                                                            PATHS["configless_dropin"]]


def test_slurm_host_files_missing_input_is_a_filter_error():
    model = _model(_hostvars(1))
    paths = dict(PATHS)
    del paths["spool_dir"]
    with pytest.raises(AnsibleFilterError, match=r"^slurm_host_files: missing or malformed input: 'spool_dir'$"):
        FILTERS["slurm_host_files"](model["hosts"]["gpu01"], paths, CONTENTS)


def test_the_model_filter_passes_each_gpus_nvlink_fabric_to_the_topology():
    fabric = {"state": "Completed", "status": "Success", "clique_id": "1", "cluster_uuid": "u-1"}
    gpus = {"status": "ok", "count": 2, "gpus": [{"name": "GB200", "fabric": fabric}, {"name": "GB200", "fabric": fabric}]}
    hostvars = {"ctl": {"ansible_facts": {"hostname": "ctl"}},
                "gpu01": {"ansible_facts": {"hostname": "gpu01"}, "gpuops_gpus": gpus, "slurm_topology_block": "r1"}}
    inventory = slurm_model_filters._inventory(hostvars, ["ctl"], ["gpu01"], [])
    assert inventory["hosts"]["gpu01"]["gpu_fabric"] == [fabric, fabric]
    assert inventory["hosts"]["gpu01"]["vars"]["slurm_topology_block"] == "r1"
    assert "gpu_fabric" not in slurm_model_filters._inventory(hostvars, ["ctl"], ["gpu01"], [], with_facts=False)["hosts"]["gpu01"]


def test_slurm_config_drift_names_the_first_line_that_differs():
    assert FILTERS["slurm_config_drift"]({"slurm.conf": "A=1\nB=3\n"}, {"slurm.conf": "A=1\nB=2\n"}, ["slurm.conf"]) == [
        "slurm.conf line 2: the controller runs with 'B=2', this run would write 'B=3'"]


def test_slurm_running_files_decodes_the_slurped_files():
    slurped = {"results": [{"item": "slurm.conf", "content": base64.b64encode(b"ClusterName=lab\n").decode()},
                           {"item": "gres.conf", "failed": True}]}
    assert FILTERS["slurm_running_files"](slurped, {}, "/etc/slurm", ["slurm.conf", "gres.conf"]) == {
        "slurm.conf": "ClusterName=lab\n", "gres.conf": ""}


def test_slurm_restart_plan_for_one_host_and_release():
    record = base64.b64encode(json.dumps(dict(NEW, configless=True)).encode()).decode()
    host = LazyMapping({"name": "gpu01", "compute": True, "controller": False})
    assert FILTERS["slurm_restart_plan"](record, LazyMapping(NEW), KEYS, True, True, host=host, series="24.11") == [
        "configless mode True -> False"]
