# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Slurm cluster model (module_utils/_slurm_model.py).

GPU facts come from a real capture (tests/fixtures/nvidia-smi-xml/
datakit_8x-tesla-v100s-pcie-32gb.xml) through the gpu_facts parser; the
hardware facts are those `setup` gathers on the Molecule containers (2 CPUs,
one socket) and on a 2-socket 128-thread server.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.gpuops.cluster.plugins.module_utils._gpu_facts import build_facts, parse_smi_xml
from ansible_collections.gpuops.cluster.plugins.module_utils._hostlist import expand
from ansible_collections.gpuops.cluster.plugins.module_utils._slurm_model import (
    SlurmModelError,
    build_model,
    check_inventory,
    gres_count,
    gres_line,
    gres_value,
    host_files,
    log_errors,
    node_name,
    parse_node_gres,
    restart_changes,
)

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures")


def _gpus():
    with open(os.path.join(FIXTURES, "nvidia-smi-xml", "datakit_8x-tesla-v100s-pcie-32gb.xml")) as handle:
        facts, _warnings = build_facts(parse_smi_xml(handle.read()))
    facts.update(status="ok", error=None, device_files=["/dev/nvidia%d" % i for i in range(8)])
    return facts


GPUS = _gpus()
V100 = "gpu:tesla_v100s-pcie-32gb:8"
SERVER = {"memtotal_mb": 1031000, "processor_vcpus": 128, "processor_count": 2, "processor_cores": 32,
          "processor_threads_per_core": 2}
SETTINGS = {
    "cluster_name": "lab", "controller_group": "slurm_controller", "compute_group": "slurm_compute",
    "dbd_group": "slurm_dbd", "series": "22.05", "user": "slurm", "config_dir": "/etc/slurm", "log_dir": "/var/log/slurm",
    "state_dir": "/var/lib/slurm/slurmctld", "spool_dir": "/var/lib/slurm/slurmd", "slurmctld_pidfile": "/run/slurmctld.pid",
    "slurmd_pidfile": "/run/slurmd.pid", "configless": False, "accounting": False, "dbd_port": 6819,
    "config_defaults": {"AuthType": "auth/munge", "SlurmctldPort": 6817, "SelectType": "select/cons_tres",
                        "SelectTypeParameters": "CR_Core_Memory", "MpiDefault": "none"},
    "accounting_config": {"AccountingStorageType": "accounting_storage/slurmdbd"},
    "config": {}, "cgroup_defaults": {"22.05": {"ConstrainCores": True}, "24.11": {"CgroupPlugin": "autodetect"}},
    "cgroup_config": {},
    "partitions": [{"name": "gpu", "nodes": "ALL", "default": True, "options": {"MaxTime": "INFINITE", "State": "UP"}}],
    "real_memory_margin_pct": 5, "restart_keys": ["SelectTypeParameters", "SlurmctldHost"],
    "allow_gres_decrease": False, "dbd_accounts": [], "dbd_db_password": "", "munge_key_length": 0,
}


def _inventory(count=2, prefix="gpu", facts=None, gpus=None, controller="ctl", dbd=None, **node_vars):
    gpus = GPUS if gpus is None else gpus
    hosts = {controller: {"facts": {"hostname": controller}, "vars": {}}}
    computes = []
    for number in range(1, count + 1):
        host = "%s%02d" % (prefix, number)
        computes.append(host)
        hosts[host] = {"facts": dict(facts or SERVER, hostname=host), "gpus": copy.deepcopy(gpus),
                       "vars": copy.deepcopy(node_vars.get(host, {}))}
    if dbd:
        hosts[dbd] = {"facts": {"hostname": dbd}, "vars": {}}
    return {"controllers": [controller], "computes": computes, "dbd": [dbd] if dbd else [], "hosts": hosts}


def _settings(**changes):
    settings_ = copy.deepcopy(SETTINGS)
    settings_.update(changes)
    return settings_


def _node_lines(model):
    return [line for line in model["slurm_conf"] if line.startswith("NodeName=")]


# --- node names --------------------------------------------------------------

@pytest.mark.parametrize("args, expected", [
    (("gpu01.example.org", "n001", "gpu01"), "n001"),
    (("gpu01.example.org", None, "gpu01"), "gpu01"),
    (("gpu01.example.org", "", None), "gpu01"),
    (("gpu01", None, None), "gpu01"),
    (("10.0.0.5", None, None), "10.0.0.5"),
    (("10.0.0.5", None, "node5"), "node5"),
])
def test_node_name_is_one_rule(args, expected):
    assert node_name(*args) == expected


# --- gres --------------------------------------------------------------------

@pytest.mark.parametrize("entry, line, value", [
    ({"type": "a100", "count": 4, "file": "/dev/nvidia[0-3]"}, "Name=gpu Type=a100 File=/dev/nvidia[0-3]", "gpu:a100:4"),
    ({"count": 2, "file": "/dev/nvidia[0-1]", "cores": "0-15", "links": "-1,2"},
     "Name=gpu File=/dev/nvidia[0-1] Cores=0-15 Links=-1,2", "gpu:2"),
    ({"name": "shard", "count": 8}, "Name=shard Count=8", "shard:8"),
])
def test_gres_line_and_value(entry, line, value):
    assert gres_line(entry) == line
    assert gres_value([entry]) == value


@pytest.mark.parametrize("value, count", [
    ("gpu:a100:4,gpu:t4:2", 6), (V100, 8), ("gpu:a100:4(S:0-1)", 4), ("gpu:a100", 1), ("gpu:2,shard:8", 2),
    ("", 0), (None, 0), ("gpu:9999999999999999999999", 0),
])
def test_gres_count(value, count):
    assert gres_count(value) == count


def test_parse_node_gres_expands_hostlists_and_skips_what_it_cannot_read():
    text = "\n".join([
        "# NodeName=old[1-9] Gres=gpu:9",
        "NodeName=DEFAULT Gres=gpu:1",
        "NodeName=gpu[01-03] CPUs=4 Gres=gpu:a100:4,gpu:t4:1 State=UNKNOWN  # comment",
        "NodeName=cpu01 CPUs=4",
        "NodeName=bad[3-1 Gres=gpu:2",
        "PartitionName=gpu Nodes=ALL",
    ])
    assert parse_node_gres(text) == {"gpu01": 5, "gpu02": 5, "gpu03": 5, "cpu01": 0}


# --- the model ---------------------------------------------------------------

def test_identical_nodes_share_one_hostlist_line():
    model = build_model(_inventory(8), _settings())
    assert model["errors"] == []
    assert _node_lines(model) == [
        "NodeName=gpu[01-08] CPUs=128 Sockets=2 CoresPerSocket=32 ThreadsPerCore=2 RealMemory=979450 "
        "Gres=%s State=UNKNOWN" % V100]
    assert model["hosts"]["gpu03"]["gres_conf"] == ["Name=gpu Type=tesla_v100s-pcie-32gb File=/dev/nvidia[0-7]"]
    assert model["settings"]["DefMemPerCPU"] == 979450 // 128
    assert model["settings"]["SlurmctldHost"] == "ctl"
    assert "PartitionName=gpu Nodes=ALL Default=YES MaxTime=INFINITE State=UP" in model["slurm_conf"]


def test_different_nodes_keep_their_lines_in_order_and_addresses_stay_alone():
    inventory = _inventory(4, gpu02={"slurm_node_real_memory": 500000}, gpu04={"slurm_node_addr": "10.0.0.4"})
    model = build_model(inventory, _settings())
    names = [line.split()[0] for line in _node_lines(model)]
    assert names == ["NodeName=gpu[01,03]", "NodeName=gpu02", "NodeName=gpu04"]
    assert "NodeAddr=10.0.0.4" in _node_lines(model)[2]


def test_inconsistent_topology_gives_cpus_only_and_a_warning():
    facts = dict(SERVER, processor_vcpus=100)
    model = build_model(_inventory(1, facts=facts), _settings())
    assert "Sockets=" not in _node_lines(model)[0]
    assert model["warnings"] == ["gpu01: 2 sockets x 32 cores x 2 threads is not 100 CPUs; its NodeName line gives CPUs= only."]


def test_real_memory_above_memtotal_is_an_error():
    model = build_model(_inventory(1, gpu01={"slurm_node_real_memory": 2000000}), _settings())
    assert model["errors"] == [
        "slurm_node_real_memory for gpu01 is 2000000 MB but the node has 1031000 MB: Slurm would mark it INVAL. "
        "Lower it, or remove it to use MemTotal less 5% (slurm_real_memory_margin_pct)."]


def test_inventory_gres_override_goes_through_the_same_renderer():
    gres = [{"type": "a100", "count": 4, "file": "/dev/nvidia[0-3]", "cores": "0-31"}]
    model = build_model(_inventory(1, gpu01={"slurm_node_gres": gres}), _settings())
    assert model["errors"] == []
    assert model["hosts"]["gpu01"]["gres_conf"] == ["Name=gpu Type=a100 File=/dev/nvidia[0-3] Cores=0-31"]
    assert "Gres=gpu:a100:4" in _node_lines(model)[0]


def test_configless_gres_lives_on_the_controller_with_hostlists():
    model = build_model(_inventory(3), _settings(configless=True))
    assert model["hosts"]["ctl"]["gres_conf"] == [
        "NodeName=gpu[01-03] Name=gpu Type=tesla_v100s-pcie-32gb File=/dev/nvidia[0-7]"]
    assert model["hosts"]["gpu01"]["gres_conf"] == []
    assert model["hosts"]["gpu01"]["holds_config"] is False
    assert model["hosts"]["ctl"]["writes_gres"] is True
    assert model["settings"]["SlurmctldParameters"] == "enable_configless"
    assert model["slurmd_options"] == "--conf-server ctl:6817"


def test_accounting_names_the_dbd_host_by_its_slurm_name():
    inventory = _inventory(1, dbd="db.example.org")
    inventory["hosts"]["db.example.org"]["facts"] = {}
    model = build_model(inventory, _settings(accounting=True))
    assert model["settings"]["AccountingStorageHost"] == "db"
    assert model["hosts"]["db.example.org"]["dbd_only"] is True
    assert model["hosts"]["db.example.org"]["holds_config"] is True


def test_user_config_wins_and_null_removes_a_default():
    model = build_model(_inventory(1), _settings(config={"MpiDefault": None, "SelectTypeParameters": "CR_Core"}))
    assert not any(line.startswith("MpiDefault=") for line in model["slurm_conf"])
    assert "SelectTypeParameters=CR_Core" in model["slurm_conf"]
    assert model["restart"]["settings"]["SelectTypeParameters"] == "CR_Core"


def test_partition_lists_become_hostlists_and_booleans_yes_no():
    parts = [{"name": "debug", "nodes": ["gpu01", "gpu02"], "options": {"Hidden": True, "RootOnly": False}}]
    model = build_model(_inventory(2), _settings(partitions=parts))
    assert "PartitionName=debug Nodes=gpu[01-02] Hidden=YES RootOnly=NO" in model["slurm_conf"]


def test_missing_facts_are_one_error_with_a_hostlist():
    inventory = _inventory(3)
    for host in ("gpu01", "gpu02"):
        inventory["hosts"][host]["facts"] = {}
    model = build_model(inventory, _settings())
    assert [error for error in model["errors"] if error.startswith("No hardware facts")] == [
        "No hardware facts for gpu[01-02]: slurm.conf is built from every compute node's facts. Run the play over "
        "the whole slurm_compute group (not with a --limit that leaves nodes out), with fact gathering on, and make "
        "sure those hosts are reachable."]


# --- GPUs are never lowered silently ---------------------------------------

MISMATCH = "Failed to initialize NVML: Driver/library version mismatch"


def _lost(**changes):
    gpus = dict(GPUS, status="no_driver", error=MISMATCH, count=0, gres_conf=[], slurm_gres="")
    gpus.update(changes)
    return gpus


def test_driver_mismatch_on_a_node_with_devices_stops_with_the_fix():
    inventory = _inventory(2)
    inventory["hosts"]["gpu02"]["gpus"] = _lost(pci_gpus=["0000:3b:00.0"] * 8)
    model = build_model(inventory, _settings())
    assert len(model["errors"]) == 1
    error = model["errors"][0]
    assert error.startswith("gpu02: nvidia-smi failed (%s) but the node has NVIDIA GPUs (PCI bus: 8, /dev/nvidiaN: 8)"
                            % MISMATCH)
    assert "Reboot the node or reload the NVIDIA driver" in error and "slurm_allow_gres_decrease: true" in error


def test_pci_bus_showing_more_gpus_than_nvidia_smi_stops():
    gpus = dict(GPUS, pci_gpus=["x"] * 9)
    model = build_model(_inventory(1, gpus=gpus), _settings())
    assert model["errors"][0].startswith("gpu01: the PCI bus shows 9 NVIDIA GPUs but nvidia-smi reports 8 (ok); "
                                         "slurm.conf would lose 1.")


def test_running_conf_with_more_gpus_stops_also_for_an_inventory_override():
    running = "NodeName=gpu[01-02] CPUs=128 Gres=gpu:a100:8\n"
    gres = [{"type": "a100", "count": 4, "file": "/dev/nvidia[0-3]"}]
    model = build_model(_inventory(2, gpu01={"slurm_node_gres": gres}), _settings(), running)
    assert model["errors"] == [
        "gpu01: the running slurm.conf gives it 8 GPUs but slurm_node_gres in the inventory gives 4 (PCI bus: 0, "
        "/dev/nvidiaN: 8); writing that would take GPUs out of service. Reboot the node or reload the NVIDIA driver "
        "(a driver updated without a reboot answers 'Driver/library version mismatch'), check `nvidia-smi` there, then "
        "run again; or set slurm_allow_gres_decrease: true to write the node with fewer GPUs on purpose."]


def test_allow_gres_decrease_turns_the_stop_into_a_warning():
    inventory = _inventory(1)
    inventory["hosts"]["gpu01"]["gpus"] = _lost()
    model = build_model(inventory, _settings(allow_gres_decrease=True), "NodeName=gpu01 Gres=%s\n" % V100)
    assert model["errors"] == []
    assert model["warnings"][0].startswith("slurm_allow_gres_decrease is true, so this is written anyway: gpu01: ")
    assert "Gres=" not in _node_lines(model)[0]
    assert model["hosts"]["gpu01"]["gres_conf"] == []


def test_a_new_node_or_more_gpus_is_fine():
    model = build_model(_inventory(2), _settings(), "NodeName=gpu01 Gres=gpu:4\n")
    assert model["errors"] == []


# --- inventory checks ---------------------------------------------------------

def _errors(inventory=None, **changes):
    return check_inventory(inventory or _inventory(2), _settings(**changes))


def test_a_correct_inventory_has_no_errors():
    assert _errors() == []


@pytest.mark.parametrize("inventory_change, expected", [
    (lambda inv: inv.update(controllers=[]), "No controller host: the inventory group slurm_controller"),
    (lambda inv: inv.update(controllers=["ctl", "ctl2"]), "has 2 hosts (ctl, ctl2); gpuops.cluster runs exactly one"),
    (lambda inv: inv.update(dbd=["a", "b"]), "The inventory group slurm_dbd (slurm_dbd_group) has 2 hosts (a, b)"),
    (lambda inv: inv.update(controllers=["gpu01"]), "gpu01 in both slurm_controller"),
    (lambda inv: inv["hosts"]["gpu01"]["vars"].update(slurm_node_name="gpu01\n"), 'The Slurm name of gpu01 is "gpu01\\n"'),
    (lambda inv: inv["hosts"]["gpu01"]["vars"].update(slurm_node_name="gpu 01"), 'The Slurm name of gpu01 is "gpu 01"'),
    (lambda inv: inv["hosts"]["gpu01"]["vars"].update(slurm_node_name="gpu02"),
     "Slurm node name \"gpu02\" is used by gpu01, gpu02"),
])
def test_inventory_errors(inventory_change, expected):
    inventory = _inventory(2)
    inventory_change(inventory)
    errors = _errors(inventory)
    assert any(expected in error for error in errors), errors


@pytest.mark.parametrize("changes, expected", [
    ({"cluster_name": "My Cluster"}, 'slurm_cluster_name "My Cluster": use lower-case letters'),
    ({"munge_key_length": 10}, "slurm_munge_key is 10 characters long; munge needs at least 32."),
    ({"partitions": [{"name": "gpu"}, {"name": "gpu"}]}, 'Partition name "gpu" is used by slurm_partitions[0], slurm_partitions[1]'),
    ({"partitions": [{"name": "gpu\n"}]}, 'slurm_partitions[0]: the partition name "gpu\\n" takes letters'),
    ({"partitions": [{"name": "gpu", "MaxTime": 5}]}, "partition gpu has keys MaxTime; use name, nodes, default and options"),
    ({"partitions": [{"name": "gpu", "options": {"maxtime": "1:00"}}]},
     'partition gpu: "maxtime" is not a PartitionName option (did you mean MaxTime?)'),
    ({"partitions": [{"name": "gpu", "options": {"AllowGroups": "a b"}}]}, "AllowGroups=\"a b\" would not survive slurm.conf"),
    ({"partitions": [{"name": "gpu", "nodes": ["gpu09"]}]}, "partition gpu names gpu09, not in the slurm_compute group (gpu01, gpu02)"),
    ({"partitions": "gpu"}, "slurm_partitions must be a list"),
    ({"accounting": True, "dbd_accounts": [{"name": "chem\n"}]}, 'slurm_dbd_accounts[0]: the account name "chem\\n"'),
    ({"accounting": True, "dbd_accounts": [{"name": "chem", "users": ["alice", "Bob"]}]}, 'users[1] "Bob" is not a user name'),
    ({"accounting": True, "dbd_accounts": [{"name": "chem", "users": ["alice", "alice"]}]}, 'User "alice" is used by'),
    ({"accounting": True, "dbd_accounts": [{"name": "chem"}, {"name": "Chem"}]}, 'Account name "chem" is used by'),
    ({"accounting": True, "dbd_db_password": "abc#defghijkl"}, "slurm_dbd_db_password holds a '#', a space or a newline"),
    ({"accounting": True, "dbd_db_password": "abcdefghijkl\n"}, "slurm_dbd_db_password holds a '#', a space or a newline"),
])
def test_setting_errors(changes, expected):
    errors = _errors(**changes)
    assert any(expected in error for error in errors), errors


def test_password_is_only_checked_with_accounting():
    assert _errors(dbd_db_password="a b") == []


@pytest.mark.parametrize("gres, expected", [
    ("gpu", "slurm_node_gres on gpu01 must be a list of GRES entries"),
    ([{"type": "a100", "count": 4, "file": "/dev/nvidia[0-3]", "size": 1}], "slurm_node_gres on gpu01[0] has unknown keys size"),
    ([{"type": "a100", "count": 0, "file": "/dev/nvidia0"}], "count 0 is not a whole number from 1 to 1024"),
    ([{"type": "a100", "count": "x", "file": "/dev/nvidia0"}], 'count "x" is not a whole number'),
    ([{"type": "a100", "count": "9" * 5000, "file": "/dev/nvidia0"}], "is not a whole number from 1 to 1024"),
    ([{"type": "a100", "count": 2, "file": "nvidia[0-1]"}], 'file "nvidia[0-1]" is not a device path'),
    ([{"type": "a100", "count": 2, "file": "/dev/nvidia[0-3]"}], "file /dev/nvidia[0-3] names 4 devices but count is 2"),
    ([{"type": "a100", "count": 2}], "a GPU needs file"),
    ([{"type": "a 100", "count": 1, "file": "/dev/nvidia0"}], 'type "a 100" is not a GRES type'),
    ([{"count": 1, "file": "/dev/nvidia0", "cores": "0-x"}], 'cores "0-x" is not a CPU list'),
    ([{"count": 1, "file": "/dev/nvidia0", "links": "a,b"}], 'links "a,b" is not a list of link counts'),
])
def test_gres_override_errors(gres, expected):
    errors = _errors(_inventory(1, gpu01={"slurm_node_gres": gres}))
    assert any(expected in error for error in errors), errors


# --- restart decision --------------------------------------------------------

def test_restart_changes():
    keys = ["SelectTypeParameters", "SlurmctldHost"]
    new = build_model(_inventory(2), _settings())["restart"]
    assert new["nodes"] == ["gpu[01-02]:%s:979450:128" % V100]
    assert restart_changes(new, new, keys) == []
    old_format = dict(new, nodes=["gpu01:%s:979450:128" % V100, "gpu02:%s:979450:128" % V100])
    assert restart_changes(old_format, new, keys) == []
    changed = dict(new, settings=dict(new["settings"], SelectTypeParameters="CR_Core"))
    assert restart_changes(changed, new, keys) == ["SelectTypeParameters CR_Core -> CR_Core_Memory"]
    fewer = dict(new, nodes=["gpu01:%s:979450:128" % V100, "gpu03:gpu:1:10:2"])
    assert restart_changes(fewer, new, keys) == ["node definitions (gres:memory:cpus): removed gpu03; added gpu02"]
    assert restart_changes(dict(new, configless=True), new, keys) == ["configless mode True -> False"]
    assert restart_changes("garbage", new, keys) == ["no record of the settings the daemons run with"]


# --- files and logs ------------------------------------------------------------

PATHS = {"config_dir": "/etc/slurm", "log_dir": "/var/log/slurm", "state_dir": "/var/lib/slurm/slurmctld",
         "spool_dir": "/var/lib/slurm/slurmd", "slurmd_env_file": "/etc/default/slurmd",
         "configless_dropin": "/etc/systemd/system/slurmd.service.d/gpuops-configless.conf"}
CONTENTS = {"slurm.conf": "S", "cgroup.conf": "C", "gres.conf": "G", "slurmd_env": "E", "dropin": "D"}


def test_host_files_follow_the_host_entry():
    model = build_model(_inventory(1), _settings())
    node = host_files(model["hosts"]["gpu01"], PATHS, CONTENTS)
    assert [entry["path"] for entry in node["config"]] == [
        "/etc/slurm", "/var/log/slurm", "/var/lib/slurm/slurmd", "/etc/slurm/slurm.conf", "/etc/slurm/cgroup.conf"]
    assert all(entry.get("keep_previous") for entry in node["config"][3:] + node["slurmd"][:1])
    assert node["slurmd"][-1] == {"path": PATHS["configless_dropin"], "state": "absent"}
    ctl = host_files(model["hosts"]["ctl"], PATHS, CONTENTS)
    assert [entry["path"] for entry in ctl["slurmd"]] == []
    assert ctl["config"][2] == {"path": "/var/lib/slurm/slurmctld", "state": "directory", "owner": "slurm",
                                "group": "slurm", "mode": "0750"}


def test_log_errors_keeps_the_last_distinct_error_lines():
    lines = ["[2026-11-24T00:57:40.1] error: old", "info line", "[2026-11-24T00:57:41.2] error: Bad SelectTypeParameter: CR_Bogus",
             "error: Bad SelectTypeParameter: CR_Bogus", "fatal: Unable to process configuration file"]
    assert log_errors(lines, limit=2) == ["error: Bad SelectTypeParameter: CR_Bogus",
                                          "fatal: Unable to process configuration file"]
    assert log_errors(["x" * 500 + " error"], width=10) == ["x" * 10]
    assert log_errors(None) == []


def test_bad_shapes_are_a_model_error_not_a_traceback():
    with pytest.raises(SlurmModelError):
        build_model([], {})


# --- properties ----------------------------------------------------------------

JUNK = st.one_of(st.none(), st.booleans(), st.integers(min_value=-10 ** 30, max_value=10 ** 30), st.text(max_size=30),
                 st.lists(st.text(max_size=5), max_size=3), st.dictionaries(st.text(max_size=5), st.integers(), max_size=3))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(key=st.sampled_from(["slurm_node_name", "slurm_node_addr", "slurm_node_gres", "slurm_node_real_memory",
                            "slurm_node_features", "slurm_node_weight"]), value=JUNK,
       setting=st.sampled_from(["partitions", "cluster_name", "dbd_accounts", "munge_key_length", "config"]), junk=JUNK)
def test_junk_in_host_vars_or_settings_gives_errors_not_exceptions(key, value, setting, junk):
    inventory = _inventory(2, gpu01={key: value})
    changes = {setting: junk, "accounting": True}
    if setting == "config" and not isinstance(junk, dict):
        changes = {"accounting": True}
    model = build_model(inventory, _settings(**changes))
    assert isinstance(model["errors"], list)


@settings(max_examples=30, deadline=None)
@given(numbers=st.sets(st.integers(min_value=1, max_value=5000), min_size=1, max_size=60))
def test_identical_nodes_always_give_one_line_whose_hostlist_expands_back(numbers):
    inventory = _inventory(0)
    for number in sorted(numbers):
        host = "n%04d" % number
        inventory["computes"].append(host)
        inventory["hosts"][host] = {"facts": dict(SERVER, hostname=host), "gpus": GPUS, "vars": {}}
    model = build_model(inventory, _settings())
    lines = _node_lines(model)
    assert len(lines) == 1
    assert sorted(expand(lines[0].split()[0][len("NodeName="):])) == sorted(inventory["computes"])
    assert parse_node_gres("\n".join(model["slurm_conf"])) == dict((host, 8) for host in inventory["computes"])
    assert restart_changes(model["restart"], model["restart"], ["SelectTypeParameters"]) == []
