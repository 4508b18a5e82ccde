# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Slurm cluster model (module_utils/slurm/_slurm_model.py).

GPU facts come from a real capture (tests/fixtures/nvidia-smi-xml/
datakit_8x-tesla-v100s-pcie-32gb.xml: eight Tesla V100S-PCIE-32GB) through
the gpu_facts parser; the same capture cut to its first four GPUs stands for
that node after four GPUs dropped out of nvidia-smi. The hardware facts are
those `setup` gathers on a 2-socket, 32-core, 2-thread server with 1 TB,
written out from the `slurmd -C` line of such a node (SLURMD_C), and on the
Molecule containers (2 CPUs, one socket).

Expected values were written by hand from slurm.conf(5), gres.conf(5) and the
messages' format strings; every failure case names the variable and the fix.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import json
import os

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.gpuops.cluster.plugins.module_utils.gpu._gpu_facts import build_facts, parse_smi_xml
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._gres import gres_count
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._hostlist import expand
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._slurm_model import (
    NODE_VARS,
    SETTING_KEYS,
    SlurmModelError,
    auto_real_memory,
    build_model,
    bundle_handlers,
    check_inventory,
    gres_line,
    gres_value,
    group_nodes,
    group_real_memory,
    host_files,
    log_errors,
    node_name,
    parse_node_gres,
    rejected_reason,
    restart_changes,
    restart_batch_errors,
    restart_plan,
    restart_fingerprint,
)

from .cost import bounded

HERE = os.path.dirname(__file__)
FIXTURES = os.path.join(HERE, "..", "..", "..", "fixtures")
ROLE_VARS = os.path.join(HERE, "..", "..", "..", "..", "roles", "_slurm_common", "vars", "main.yml")


def _smi(gpus=None):
    """gpuops_gpus of the 8x V100S capture (its first `gpus` GPUs only), as gpu_facts returns it."""
    with open(os.path.join(FIXTURES, "nvidia-smi-xml", "datakit_8x-tesla-v100s-pcie-32gb.xml")) as handle:
        smi = parse_smi_xml(handle.read())
    if gpus is not None:
        smi["gpus"] = smi["gpus"][:gpus]
    facts, warnings = build_facts(smi)
    assert warnings == []
    # What the gpu_facts module adds around build_facts (plugins/modules/gpu_facts.py).
    facts.update(status="ok", error=None, device_files=["/dev/nvidia%d" % i for i in range(len(smi["gpus"]))])
    return facts


GPUS = _smi()
GPUS_4 = _smi(4)
V100 = "gpu:tesla_v100s-pcie-32gb:8"
V100_GRES_CONF = "Name=gpu Type=tesla_v100s-pcie-32gb File=/dev/nvidia[0-7]"
MISMATCH = "Failed to initialize NVML: Driver/library version mismatch"

# `slurmd -C` on a 2-socket server (UpTime left out), and the ansible facts of the same hardware.
SLURMD_C = "NodeName=gpu01 CPUs=128 Boards=1 SocketsPerBoard=2 CoresPerSocket=32 ThreadsPerCore=2 RealMemory=1031000"


def _facts_of_slurmd_c(line):
    fields = dict(token.split("=", 1) for token in line.split())
    return {"hostname": fields["NodeName"], "memtotal_mb": int(fields["RealMemory"]),
            "processor_vcpus": int(fields["CPUs"]),
            "processor_count": int(fields["Boards"]) * int(fields["SocketsPerBoard"]),
            "processor_cores": int(fields["CoresPerSocket"]), "processor_threads_per_core": int(fields["ThreadsPerCore"])}


SERVER = dict(_facts_of_slurmd_c(SLURMD_C))
del SERVER["hostname"]
SERVER_REAL_MEMORY = 1031000 * 95 // 100 // 1024 * 1024  # 978944: MemTotal less the default 5 %, in whole GiB
SERVER_LINE = ("CPUs=128 Sockets=2 CoresPerSocket=32 ThreadsPerCore=2 RealMemory=978944 Gres=%s State=UNKNOWN" % V100)
CONTAINER = {"memtotal_mb": 7940, "processor_vcpus": 2, "processor_count": 1, "processor_cores": 2,
             "processor_threads_per_core": 1}

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
    "real_memory_margin_pct": 5, "real_memory_round_mb": 1024, "real_memory_group_pct": 1,
    "restart_keys": ["SelectTypeParameters", "SlurmctldHost"],
    "allow_gres_decrease": False, "dbd_accounts": [], "dbd_db_password": "", "munge_key_length": 0,
    "nodes_down_max_pct": 10, "remove_nodes": [],
}
KEYS = SETTINGS["restart_keys"]


def _inventory(count=2, prefix="gpu", facts=None, gpus=None, controller="ctl", dbd=None, **node_vars):
    """A controller and `count` compute nodes gpu01.. with the server's facts and the V100S GPUs."""
    gpus = GPUS if gpus is None else gpus
    hosts = {controller: {"facts": {"hostname": controller}, "vars": {}}}
    computes = []
    for number in range(1, count + 1):
        host = "%s%02d" % (prefix, number)
        computes.append(host)
        hosts[host] = {"facts": dict(facts or SERVER, hostname=host), "gpus": copy.deepcopy(gpus),
                       "vars": copy.deepcopy(node_vars.get(host, {}))}
    if dbd:
        hosts[dbd] = {"facts": {}, "vars": {}}
    return {"controllers": [controller], "computes": computes, "dbd": [dbd] if dbd else [], "hosts": hosts}


def _add(inventory, host, facts=None, gpus=None, hostname=None, **host_vars):
    inventory["computes"].append(host)
    inventory["hosts"][host] = {"facts": dict(facts or SERVER, hostname=hostname or host),
                                "gpus": copy.deepcopy(GPUS if gpus is None else gpus), "vars": host_vars}
    return inventory


def _settings(**changes):
    settings_ = copy.deepcopy(SETTINGS)
    settings_.update(changes)
    return settings_


def _node_lines(model):
    return [line for line in model["slurm_conf"] if line.startswith("NodeName=")]


def _lines(model, prefix):
    return [line for line in model["slurm_conf"] if line.startswith(prefix)]


# --- node names ------------------------------------------------------------------

@pytest.mark.parametrize("host, slurm_node_name, fact_hostname, expected", [
    ("gpu01.example.org", "n001", "gpu01", "n001"),       # slurm_node_name wins
    ("gpu01.example.org", "n001", None, "n001"),
    ("gpu01.example.org", None, "node-17", "node-17"),    # then what slurmd registers with
    ("gpu01.example.org", "", "node-17", "node-17"),      # an empty slurm_node_name is not set
    ("gpu01.example.org", None, None, "gpu01"),           # then the first label of the inventory name
    ("gpu01.example.org", "", "", "gpu01"),
    ("gpu01.rack1.dc.example.org", None, None, "gpu01"),
    ("gpu01", None, None, "gpu01"),
    ("10.0.0.5", None, None, "10.0.0.5"),                 # an address is left whole
    ("10.0.0.5", None, "node5", "node5"),
    ("fd00::5", None, None, "fd00::5"),
    ("gpu01", 7, None, "7"),
])
def test_node_name_is_one_rule(host, slurm_node_name, fact_hostname, expected):
    assert node_name(host, slurm_node_name, fact_hostname) == expected


# --- gres ------------------------------------------------------------------------

@pytest.mark.parametrize("entry, line, value", [
    # typed, with files: File wins, Slurm counts the files
    ({"type": "a100", "count": 4, "file": "/dev/nvidia[0-3]"}, "Name=gpu Type=a100 File=/dev/nvidia[0-3]", "gpu:a100:4"),
    ({"name": "gpu", "type": "a100", "count": 4, "file": "/dev/nvidia[0-3]"}, "Name=gpu Type=a100 File=/dev/nvidia[0-3]",
     "gpu:a100:4"),
    # untyped
    ({"count": 2, "file": "/dev/nvidia[0-1]"}, "Name=gpu File=/dev/nvidia[0-1]", "gpu:2"),
    ({"type": "", "count": 1, "file": "/dev/nvidia0"}, "Name=gpu File=/dev/nvidia0", "gpu:1"),
    # Count where there is no file (a GRES that is not a device)
    ({"name": "shard", "count": 8}, "Name=shard Count=8", "shard:8"),
    ({"name": "mps", "type": "v100", "count": 400}, "Name=mps Type=v100 Count=400", "mps:v100:400"),
    # Cores and Links
    ({"type": "a100", "count": 2, "file": "/dev/nvidia[0-1]", "cores": "0-15,64-79"},
     "Name=gpu Type=a100 File=/dev/nvidia[0-1] Cores=0-15,64-79", "gpu:a100:2"),
    ({"count": 2, "file": "/dev/nvidia[0-1]", "cores": "0-15", "links": "-1,2"},
     "Name=gpu File=/dev/nvidia[0-1] Cores=0-15 Links=-1,2", "gpu:2"),
    ({"count": "4", "file": "/dev/nvidia[0-3]", "links": "-1,4,4,4"}, "Name=gpu File=/dev/nvidia[0-3] Links=-1,4,4,4",
     "gpu:4"),
    # a name given as empty or null is gpu
    ({"name": "", "count": 1, "file": "/dev/nvidia0"}, "Name=gpu File=/dev/nvidia0", "gpu:1"),
    ({"name": None, "count": 1, "file": "/dev/nvidia0"}, "Name=gpu File=/dev/nvidia0", "gpu:1"),
])
def test_gres_line_and_value(entry, line, value):
    assert gres_line(entry) == line
    assert gres_value([entry]) == value


def test_gres_value_joins_entries_in_order():
    entries = [{"type": "a100", "count": 4, "file": "/dev/nvidia[0-3]"}, {"type": "t4", "count": 2, "file": "/dev/nvidia[4-5]"},
               {"name": "shard", "count": 8}]
    assert gres_value(entries) == "gpu:a100:4,gpu:t4:2,shard:8"
    assert gres_value([]) == ""
    assert gres_count(gres_value(entries)) == 6


@pytest.mark.parametrize("value, name, count", [
    ("gpu:a100:4,gpu:t4:2", "gpu", 6),
    (V100, "gpu", 8),
    ("gpu:8", "gpu", 8),
    ("gpu:a100:4(S:0-1)", "gpu", 4),                 # socket suffix
    ("gpu:a100:4(S:0-1),gpu:t4:2(S:1)", "gpu", 6),
    ("gpu:a100:2(S:0,1)", "gpu", 2),                 # a comma inside the suffix
    (" gpu:2 , gpu:3", "gpu", 5),
    ("gpu:a100", "gpu", 1),                          # a type without a count is one
    ("gpu:2,shard:8", "gpu", 2),
    ("gpu:2,shard:8", "shard", 8),
    ("mps:400", "gpu", 0),
    ("gpu", "gpu", 0),
    ("", "gpu", 0),
    (None, "gpu", 0),
    ("gpu:9999999999999999999999", "gpu", 0),        # no number Slurm reads
    ("gpu:4K", "gpu", 0),
])
def test_gres_count(value, name, count):
    assert gres_count(value, name) == count


# --- the running slurm.conf ----------------------------------------------------------

RUNNING_CONF = """\
# Managed by Ansible (gpuops.cluster): local changes are overwritten.
ClusterName=lab
SlurmctldHost=ctl
GresTypes=gpu
# NodeName=old[1-9] Gres=gpu:9
NodeName=DEFAULT CPUs=128 RealMemory=979450 State=UNKNOWN
NodeName=gpu[01-03] Sockets=2 CoresPerSocket=32 Gres=gpu:a100:4,gpu:t4:1 State=UNKNOWN  # Gres=gpu:99
   nodename=gpu04 Gres=gpu:tesla_v100s-pcie-32gb:8(S:0-1)
NodeName=cpu[1-2],login1 CPUs=4
NodeName=gpu05 NodeAddr=10.0.0.5 CPUs=128 Gres=gpu:2
NodeName=DEFAULT Gres=gpu:h100:8
NodeName=h100-[01-02] CPUs=224
NodeName=h100-03 CPUs=224 Gres=gpu:h100:4
NodeName=bad[3-1 Gres=gpu:2
NodeName= Gres=gpu:2
Gres=gpu:2 NodeName=misplaced
NodeName
this line is garbage = = =
PartitionName=gpu Nodes=ALL Default=YES MaxTime=INFINITE State=UP
"""


def test_parse_node_gres_reads_a_running_slurm_conf():
    assert parse_node_gres(RUNNING_CONF) == {
        "gpu01": 5, "gpu02": 5, "gpu03": 5, "gpu04": 8, "cpu1": 0, "cpu2": 0, "login1": 0, "gpu05": 2,
        # NodeName=DEFAULT Gres= holds for the lines after it that give none (slurm.conf(5))
        "h100-01": 8, "h100-02": 8, "h100-03": 4,
    }


@pytest.mark.parametrize("text, expected", [
    ("", {}),
    (None, {}),
    ("# only comments\n\n", {}),
    ("NodeName=DEFAULT Gres=gpu:4\n", {}),
    ("NodeName=gpu01 Gres=gpu:4\nNodeName=gpu01 Gres=gpu:2\n", {"gpu01": 2}),   # the last line wins
    ("NodeName=gpu01 Gres=gpu:4\r\nNodeName=gpu02\r\n", {"gpu01": 4, "gpu02": 0}),
])
def test_parse_node_gres_small_texts(text, expected):
    assert parse_node_gres(text) == expected


# --- inventory checks ------------------------------------------------------------------

def _errors(inventory=None, **changes):
    return check_inventory(inventory or _inventory(2), _settings(**changes))


def test_a_correct_inventory_has_no_errors():
    assert _errors() == []
    assert _errors(_inventory(8, dbd="db01"), accounting=True, dbd_db_password="Zt4-9_x!Q2", munge_key_length=128,
                   dbd_accounts=[{"name": "chem", "users": ["alice", {"name": "bob"}]}, {"name": "phys.lab"}],
                   partitions=[{"name": "gpu", "nodes": ["gpu01", "gpu02"], "default": True,
                                "options": {"MaxTime": "1-00:00:00", "AllowGroups": ["chem", "phys"], "Hidden": False}},
                               {"name": "all", "nodes": "ALL"}]) == []


def _set_var(host, **host_vars):
    return lambda inv: inv["hosts"][host]["vars"].update(host_vars)


NAME_TAIL = ", which Slurm and hostlists cannot carry: use letters, digits, _ and - (up to 64). Set slurm_node_name for that host."


@pytest.mark.parametrize("change, expected", [
    pytest.param(lambda inv: inv.update(controllers=[]), [
        "No controller host: the inventory group slurm_controller (slurm_controller_group) is empty or missing. "
        "Add the host that runs slurmctld to it; an inventory that holds part of the cluster (an AWX job slice) "
        "names it in gpuops_slice_hosts instead."], id="no-controller"),
    pytest.param(lambda inv: inv.update(controllers=["ctl", "ctl2"]), [
        "The inventory group slurm_controller (slurm_controller_group) has 2 hosts (ctl, ctl2): the first runs the "
        "primary slurmctld and the others backups, which take over with the state the primary saved. "
        "slurm_state_save_location is empty, so each would keep its state on its own disk and a backup would take "
        "over without the jobs. Set slurm_state_save_location to a directory on storage every controller reaches "
        "(your shared file system or the collection's NFS export), or keep one host in that group."],
        id="two-controllers-without-shared-state"),
    pytest.param(lambda inv: inv.update(dbd=["db1", "db2", "db3"]), [
        "The inventory group slurm_dbd (slurm_dbd_group) has 3 hosts (db1, db2, db3); Slurm runs one slurmdbd and at "
        "most one backup (DbdBackupHost). Keep one or two hosts in that group (the primary first), or none to run "
        "slurmdbd on the controller."], id="three-dbd-hosts"),
    pytest.param(lambda inv: inv.update(dbd=["db1", "db2"]), [
        "The inventory group slurm_dbd (slurm_dbd_group) has two hosts (db1, db2): db1 runs slurmdbd and db2 its "
        "backup (DbdBackupHost), which takes over with the same database. That database must outlive the primary's "
        "host: set slurm_dbd_db_host to a database server both reach (not \"localhost\") and "
        "slurm_dbd_install_mariadb: false, with the database and its user made there; or keep one host in that "
        "group."], id="backup-dbd-with-a-local-database"),
    pytest.param(lambda inv: inv.update(controllers=["gpu01"]), [
        "gpu01 in both slurm_controller (slurm_controller_group) and slurm_compute (slurm_compute_group): the "
        "controller stays a separate host. Remove it from one group."], id="host-in-both-groups"),
    pytest.param(_set_var("gpu01", slurm_node_name="gpu01.lab"), ['The Slurm name of gpu01 is "gpu01.lab"' + NAME_TAIL],
                 id="name-with-a-dot"),
    pytest.param(_set_var("gpu01", slurm_node_name="gpu 01"), ['The Slurm name of gpu01 is "gpu 01"' + NAME_TAIL],
                 id="name-with-a-space"),
    pytest.param(_set_var("gpu01", slurm_node_name="gpu01\n"), ['The Slurm name of gpu01 is "gpu01\\n"' + NAME_TAIL],
                 id="name-with-a-trailing-newline"),
    pytest.param(_set_var("gpu01", slurm_node_name="-gpu01"), ['The Slurm name of gpu01 is "-gpu01"' + NAME_TAIL],
                 id="name-starting-with-a-dash"),
    pytest.param(_set_var("gpu01", slurm_node_name="g" * 65),
                 ['The Slurm name of gpu01 is "%s..."' % ("g" * 60) + NAME_TAIL], id="name-too-long"),
    pytest.param(_set_var("gpu02", slurm_node_name="gpu01"), [
        'Slurm node name "gpu01" is used by gpu01, gpu02: Slurm node name must be unique. Set slurm_node_name to tell '
        'them apart.'], id="duplicate-name"),
    pytest.param(lambda inv: inv["hosts"]["gpu02"]["facts"].update(hostname="gpu01"), [
        'Slurm node name "gpu01" is used by gpu01, gpu02: Slurm node name must be unique. Set slurm_node_name to tell '
        'them apart.'], id="duplicate-gathered-hostname"),
])
def test_inventory_errors(change, expected):
    inventory = _inventory(2)
    change(inventory)
    assert _errors(inventory) == expected


def test_fqdn_and_address_inventory_names():
    inventory = _inventory(0)
    for host in ("gpu01.a.example.org", "gpu01.b.example.org", "10.0.0.5"):
        inventory["computes"].append(host)
        inventory["hosts"][host] = {"vars": {}}  # the first play of site.yml gathers no facts
    assert _errors(inventory, partitions=[]) == [
        'The Slurm name of 10.0.0.5 is "10.0.0.5"' + NAME_TAIL,
        'Slurm node name "gpu01" is used by gpu01.a.example.org, gpu01.b.example.org: Slurm node name must be unique. '
        'Set slurm_node_name to tell them apart.']


GROUP_LIST = "slurm_partitions must be a list of partitions such as {name: gpu, nodes: ALL, default: true}, not "
OPTION_TAIL = " would not survive slurm.conf (empty, spaces or '#'); give a single word (or a list of words)."
OPTION_SEE = "; see slurm.conf(5), PARTITION CONFIGURATION."


def _part(**part):
    return {"partitions": [dict({"name": "gpu"}, **part)]}


@pytest.mark.parametrize("changes, expected", [
    pytest.param({"cluster_name": "My Cluster"}, [
        'slurm_cluster_name "My Cluster": use lower-case letters, digits, _ and - (up to 40, starting with a letter or '
        'digit); slurmdbd keys its tables by it.'], id="cluster-name-with-capitals-and-space"),
    pytest.param({"cluster_name": "lab\n"}, [
        'slurm_cluster_name "lab\\n": use lower-case letters, digits, _ and - (up to 40, starting with a letter or '
        'digit); slurmdbd keys its tables by it.'], id="cluster-name-with-newline"),
    pytest.param({"cluster_name": None}, [
        "slurm_cluster_name null: use lower-case letters, digits, _ and - (up to 40, starting with a letter or "
        "digit); slurmdbd keys its tables by it."], id="cluster-name-missing"),
    pytest.param({"munge_key_length": 10}, [
        "slurm_munge_key is 10 characters long; munge needs at least 32. Put a longer random key in your vault (for "
        "example the output of `openssl rand -base64 96`), or leave it empty to have one generated."], id="short-munge-key"),
    pytest.param({"munge_key_length": "31"}, [
        "slurm_munge_key is 31 characters long; munge needs at least 32. Put a longer random key in your vault (for "
        "example the output of `openssl rand -base64 96`), or leave it empty to have one generated."],
        id="short-munge-key-length-templated"),
    pytest.param({"munge_key_length": "0"}, [], id="no-munge-key-is-generated"),
    pytest.param({"munge_key_length": 32}, [], id="munge-key-of-32"),
    # MPI
    pytest.param({"mpi_default": "pmix", "install_pmix": False}, [
        'slurm_mpi_default is "pmix" but slurm_install_pmix is false: slurmd could not load the PMIx library and every '
        'srun would fail. Set slurm_install_pmix: true, or slurm_mpi_default: none (or pmi2).'], id="pmix-without-pmix"),
    pytest.param({"mpi_default": "none", "install_pmix": False}, [], id="no-mpi-without-pmix"),
    pytest.param({"mpi_default": "pmix", "install_pmix": True}, [], id="pmix-with-pmix"),
    # the node health check
    pytest.param({"health_check_interval": 0}, [
        "slurm_health_check_interval is 0: give the seconds between two runs of the node health check (slurmd runs "
        "<slurm_config_dir>/healthcheck, which runs healthcheck.d/*), for example 300. 0 would run it only when slurmd "
        "starts; to run no health check, leave healthcheck.d empty (do not apply gpuops.cluster.node_health)."],
        id="health-check-interval-0"),
    pytest.param({"health_check_interval": "300", "health_check_node_state": "idle,cycle"}, [],
                 id="health-check-settings"),
    pytest.param({"health_check_node_state": "BUSY"}, [
        'slurm_health_check_node_state is "BUSY": give ALLOC, ANY, CYCLE, IDLE, MIXED, NONDRAINED_IDLE (several '
        'joined by commas; CYCLE spreads the runs over the interval).'], id="health-check-node-state"),
    # partitions
    pytest.param({"partitions": "gpu"}, [GROUP_LIST + '"gpu".'], id="partitions-not-a-list"),
    pytest.param({"partitions": ["gpu"]}, [
        'slurm_partitions[0] must be a mapping (partitions such as {name: gpu, nodes: ALL, default: true}), not "gpu".'],
        id="partition-not-a-mapping"),
    pytest.param({"partitions": [{"nodes": "ALL"}]}, ["slurm_partitions[0] has no name: give every partition a name."],
                 id="partition-without-name"),
    pytest.param({"partitions": [{"name": "gpu\n"}]}, [
        'slurm_partitions[0]: the partition name "gpu\\n" takes letters, digits, _ and - only (up to 64).'],
        id="partition-name-with-newline"),
    pytest.param({"partitions": [{"name": "gpu nodes"}]}, [
        'slurm_partitions[0]: the partition name "gpu nodes" takes letters, digits, _ and - only (up to 64).'],
        id="partition-name-with-space"),
    pytest.param({"partitions": [{"name": "gpu"}, {"name": "debug"}, {"name": "gpu"}]}, [
        'Partition name "gpu" is used by slurm_partitions[0], slurm_partitions[2]: Partition name must be unique. Set '
        'slurm_partitions[].name to tell them apart.'], id="duplicate-partition"),
    pytest.param(_part(MaxTime=5, state="UP"), [
        "slurm_partitions: partition gpu has keys MaxTime, state; use name, nodes, default and options (any "
        "PartitionName option goes under options)."], id="partition-unknown-keys"),
    pytest.param(_part(options={"maxtime": "1:00"}), [
        'slurm_partitions: partition gpu: "maxtime" is not a PartitionName option (did you mean MaxTime?)' + OPTION_SEE],
        id="option-in-the-wrong-case"),
    pytest.param(_part(options={"MaxTim": "1:00"}), [
        'slurm_partitions: partition gpu: "MaxTim" is not a PartitionName option (did you mean MaxTime?)' + OPTION_SEE],
        id="option-misspelt"),
    pytest.param(_part(options={"Bogus": "1"}), [
        'slurm_partitions: partition gpu: "Bogus" is not a PartitionName option' + OPTION_SEE], id="option-unknown"),
    pytest.param(_part(options={"Nodes": "gpu01"}), [
        'slurm_partitions: partition gpu: "Nodes" is not a PartitionName option (did you mean the partition\'s nodes '
        'key?)' + OPTION_SEE],
        id="nodes-is-no-option"),
    pytest.param(_part(options={"AllowGroups": "a b"}), [
        'slurm_partitions: partition gpu: AllowGroups="a b"' + OPTION_TAIL], id="option-value-with-space"),
    pytest.param(_part(options={"AllowGroups": "a#b"}), [
        'slurm_partitions: partition gpu: AllowGroups="a#b"' + OPTION_TAIL], id="option-value-with-hash"),
    pytest.param(_part(options={"MaxTime": "1:00\n"}), [
        'slurm_partitions: partition gpu: MaxTime="1:00\\n"' + OPTION_TAIL], id="option-value-with-newline"),
    pytest.param(_part(options={"MaxTime": ""}), ['slurm_partitions: partition gpu: MaxTime=""' + OPTION_TAIL],
                 id="option-value-empty"),
    pytest.param(_part(options={"MaxTime": None}), ["slurm_partitions: partition gpu: MaxTime=null" + OPTION_TAIL],
                 id="option-value-null"),
    pytest.param(_part(options={"AllowGroups": ["a b"]}), ['slurm_partitions: partition gpu: AllowGroups=["a b"]' + OPTION_TAIL],
                 id="option-list-item-with-space"),
    pytest.param(_part(options={"AllowGroups": []}), ["slurm_partitions: partition gpu: AllowGroups=[]" + OPTION_TAIL],
                 id="option-list-empty"),
    pytest.param(_part(options={"AllowGroups": {"a": 1}}), ['slurm_partitions: partition gpu: AllowGroups={"a": 1}' + OPTION_TAIL],
                 id="option-value-mapping"),
    pytest.param(_part(options={"AllowGroups": ["chem", "phys"], "Hidden": True, "MaxNodes": 4}), [],
                 id="option-values-list-bool-int"),
    pytest.param(_part(options="MaxTime=1"), [
        'slurm_partitions: partition gpu: options must be a mapping of PartitionName options, not "MaxTime=1".'],
        id="options-not-a-mapping"),
    pytest.param(_part(nodes=["gpu01", "gpu09", "cpu01"]), [
        "slurm_partitions: partition gpu names gpu09, cpu01, not in the slurm_compute group (gpu01, gpu02). Fix the "
        "node names or add the hosts to the group."], id="partition-nodes-not-in-group"),
    pytest.param(_part(nodes="gpu[01-02]"), [
        "slurm_partitions: partition gpu names gpu[01-02], not in the slurm_compute group (gpu01, gpu02). Fix the "
        "node names or add the hosts to the group."], id="partition-nodes-as-hostlist"),
    pytest.param(_part(nodes=5), ["slurm_partitions: partition gpu: nodes must be ALL or a list of inventory hosts, not 5."],
                 id="partition-nodes-junk"),
    pytest.param(_part(nodes=["gpu01", 2]), [
        'slurm_partitions: partition gpu: nodes must be ALL or a list of inventory hosts, not ["gpu01", 2].'],
        id="partition-nodes-not-strings"),
    pytest.param(_part(nodes="gpu02"), [], id="partition-of-one-host"),
])
def test_setting_errors(changes, expected):
    assert _errors(**changes) == expected


def test_partition_nodes_outside_an_empty_group():
    inventory = _inventory(0)
    assert _errors(inventory, compute_group="gpus", **_part(nodes=["gpu01"])) == [
        "slurm_partitions: partition gpu names gpu01, not in the gpus group (empty). Fix the node names or add the "
        "hosts to the group."]


GRES = "slurm_node_gres on gpu01"
A100 = {"type": "a100", "count": 4, "file": "/dev/nvidia[0-3]"}


@pytest.mark.parametrize("gres, expected", [
    pytest.param("gpu:a100:4", [
        GRES + ' must be a list of GRES entries such as [{type: a100, count: 4, file: "/dev/nvidia[0-3]"}], not '
        '"gpu:a100:4".'], id="not-a-list"),
    pytest.param({"type": "a100"}, [
        GRES + ' must be a list of GRES entries such as [{type: a100, count: 4, file: "/dev/nvidia[0-3]"}], not '
        '{"type": "a100"}.'], id="a-mapping-not-a-list"),
    pytest.param(["gpu:a100:4"], [
        GRES + '[0] must be a mapping with keys cores, count, file, links, name, type, not "gpu:a100:4".'],
        id="entry-not-a-mapping"),
    pytest.param([dict(A100, size=1, Count=4)], [
        GRES + "[0] has unknown keys Count, size: use only cores, count, file, links, name, type."], id="unknown-keys"),
    pytest.param([{"type": "a100", "count": 0, "name": "shard"}], [
        GRES + "[0]: count 0 is not a whole number from 1 to 1024; give the number of devices."], id="count-0"),
    pytest.param([{"type": "a100", "count": "x", "file": "/dev/nvidia0"}], [
        GRES + '[0]: count "x" is not a whole number from 1 to 1024; give the number of devices.'], id="count-x"),
    pytest.param([{"type": "a100", "count": None, "file": "/dev/nvidia0"}], [
        GRES + "[0]: count null is not a whole number from 1 to 1024; give the number of devices."], id="count-missing"),
    pytest.param([{"type": "a100", "count": True, "file": "/dev/nvidia0"}], [
        GRES + "[0]: count true is not a whole number from 1 to 1024; give the number of devices."], id="count-bool"),
    pytest.param([{"type": "a100", "count": 1025, "name": "shard"}], [
        GRES + "[0]: count 1025 is not a whole number from 1 to 1024; give the number of devices."], id="count-1025"),
    pytest.param([{"type": "a100", "count": 10 ** 30, "name": "shard"}], [
        GRES + "[0]: count 1000000000000000000000000000000 is not a whole number from 1 to 1024; give the number of "
        "devices."], id="count-huge-int"),
    pytest.param([{"type": "a100", "count": "9" * 5000, "file": "/dev/nvidia0"}], [
        GRES + '[0]: count "%s..." is not a whole number from 1 to 1024; give the number of devices.' % ("9" * 60)],
        id="count-huge-text"),
    pytest.param([{"type": "a100", "count": 2, "file": "nvidia[0-1]"}], [
        GRES + '[0]: file "nvidia[0-1]" is not a device path such as /dev/nvidia0 or /dev/nvidia[0-3].'],
        id="file-not-under-dev"),
    pytest.param([{"type": "a100", "count": 2, "file": "/dev/nvidia0,/dev/nvidia1"}], [
        GRES + '[0]: file "/dev/nvidia0,/dev/nvidia1" is not a device path such as /dev/nvidia0 or /dev/nvidia[0-3].'],
        id="file-list"),
    pytest.param([{"type": "a100", "count": 2, "file": "/dev/nvidia[0-1]\n"}], [
        GRES + '[0]: file "/dev/nvidia[0-1]\\n" is not a device path such as /dev/nvidia0 or /dev/nvidia[0-3].'],
        id="file-with-newline"),
    pytest.param([{"type": "a100", "count": 2, "file": "/dev/nvidia[0-3]"}], [
        GRES + "[0]: file /dev/nvidia[0-3] names 4 devices but count is 2; make them agree."], id="file-count-mismatch"),
    pytest.param([{"type": "a100", "count": 2, "file": "/dev/nvidia0"}], [
        GRES + "[0]: file /dev/nvidia0 names 1 devices but count is 2; make them agree."], id="one-file-two-gpus"),
    pytest.param([{"type": "a100", "count": 2}], [
        GRES + '[0]: a GPU needs file (for example "/dev/nvidia[0-3]"): Slurm binds GPUs by device file.'],
        id="gpu-without-file"),
    pytest.param([{"name": "shard", "count": 8}], [], id="shard-without-file"),
    pytest.param([{"type": "a 100", "count": 1, "file": "/dev/nvidia0"}], [
        GRES + '[0]: type "a 100" is not a GRES type (letters, digits, _ . -), for example a100.'], id="type-with-space"),
    pytest.param([{"type": ["a100"], "count": 1, "file": "/dev/nvidia0"}], [
        GRES + '[0]: type ["a100"] is not a GRES type (letters, digits, _ . -), for example a100.'], id="type-list"),
    pytest.param([{"name": "gp u", "count": 1}], [
        GRES + '[0]: name "gp u" is not a GRES name (letters, digits, _ . -), for example gpu.'], id="bad-name"),
    pytest.param([{"count": 1, "file": "/dev/nvidia0", "cores": "0-x"}], [
        GRES + '[0]: cores "0-x" is not a CPU list such as 0-15,32-47.'], id="bad-cores"),
    pytest.param([{"count": 1, "file": "/dev/nvidia0", "cores": 15}], [
        GRES + "[0]: cores 15 is not a CPU list such as 0-15,32-47."], id="cores-a-number"),
    pytest.param([{"count": 1, "file": "/dev/nvidia0", "links": "a,b"}], [
        GRES + '[0]: links "a,b" is not a list of link counts such as -1,2,2,2.'], id="bad-links"),
    pytest.param([A100, {"type": "t4", "count": 2, "file": "/dev/nvidia[4-5]", "cores": "0-15,64-79", "links": "-1,2"}],
                 [], id="two-good-entries"),
    pytest.param([A100, {"type": "t4", "count": 3, "file": "/dev/nvidia[4-5]"}], [
        GRES + "[1]: file /dev/nvidia[4-5] names 2 devices but count is 3; make them agree."], id="second-entry-bad"),
    pytest.param([], [], id="no-gres"),
])
def test_gres_override_errors(gres, expected):
    assert _errors(_inventory(1, gpu01={"slurm_node_gres": gres})) == expected


ACCOUNT_NAME = " takes letters, digits, _ . and - only (up to 64, no newline)."
USER_NAME = " is not a user name (lower-case letters, digits, _ . -, starting with a letter or _, no newline)."
PASSWORD = ("slurm_dbd_db_password holds a '#', a space or a newline: slurmdbd.conf would cut it there (StoragePass "
            "takes no quoting). Make a new one from letters, digits and punctuation other than '#', and store it in "
            "your vault.")


@pytest.mark.parametrize("changes, expected", [
    pytest.param({"dbd_accounts": [{"name": "chem\n"}]}, ['slurm_dbd_accounts[0]: the account name "chem\\n"' + ACCOUNT_NAME],
                 id="account-with-trailing-newline"),
    pytest.param({"dbd_accounts": [{"name": "chem lab"}]}, ['slurm_dbd_accounts[0]: the account name "chem lab"' + ACCOUNT_NAME],
                 id="account-with-space"),
    pytest.param({"dbd_accounts": [{"users": ["alice"]}]}, ["slurm_dbd_accounts[0]: the account name null" + ACCOUNT_NAME],
                 id="account-without-name"),
    pytest.param({"dbd_accounts": ["chem"]}, [
        'slurm_dbd_accounts[0] must be a mapping (accounts with at least a name), not "chem".'], id="account-not-a-mapping"),
    pytest.param({"dbd_accounts": "chem"}, ['slurm_dbd_accounts must be a list of accounts with at least a name, not "chem".'],
                 id="accounts-not-a-list"),
    pytest.param({"dbd_accounts": [{"name": "chem"}, {"name": "Chem"}]}, [
        'Account name "chem" is used by slurm_dbd_accounts[0], slurm_dbd_accounts[1]: Account name must be unique. Set '
        'slurm_dbd_accounts[].name to tell them apart.'], id="duplicate-account-any-case"),
    pytest.param({"dbd_accounts": [{"name": "chem", "users": ["alice", "Bob"]}]}, [
        'slurm_dbd_accounts[0] (chem): users[1] "Bob"' + USER_NAME], id="user-with-capital"),
    pytest.param({"dbd_accounts": [{"name": "chem", "users": ["alice\n"]}]}, [
        'slurm_dbd_accounts[0] (chem): users[0] "alice\\n"' + USER_NAME], id="user-with-trailing-newline"),
    pytest.param({"dbd_accounts": [{"name": "chem", "users": [{"name": "1alice"}]}]}, [
        'slurm_dbd_accounts[0] (chem): users[0] "1alice"' + USER_NAME], id="user-starting-with-digit"),
    pytest.param({"dbd_accounts": [{"name": "chem", "users": [{"shares": 1}]}]}, [
        "slurm_dbd_accounts[0] (chem): users[0] null" + USER_NAME], id="user-without-name"),
    pytest.param({"dbd_accounts": [{"name": "chem", "users": "alice"}]}, ["slurm_dbd_accounts[0] (chem): users must be a list."],
                 id="users-not-a-list"),
    pytest.param({"dbd_accounts": [{"name": "chem", "users": ["alice", {"name": "alice"}]}]}, [
        'User "alice" is used by slurm_dbd_accounts[0].users[0], slurm_dbd_accounts[0].users[1]: User must be unique. '
        'Set the users list of account chem to tell them apart.'], id="duplicate-user"),
    pytest.param({"dbd_accounts": [{"name": "chem", "users": ["alice"]}, {"name": "phys", "users": ["alice"]}]}, [],
                 id="one-user-in-two-accounts"),
    pytest.param({"dbd_accounts": None}, [], id="no-accounts"),
    pytest.param({"dbd_db_password": "abc#defghijkl"}, [PASSWORD], id="password-with-hash"),
    pytest.param({"dbd_db_password": "abc defghijkl"}, [PASSWORD], id="password-with-space"),
    pytest.param({"dbd_db_password": "abcdefghijkl\n"}, [PASSWORD], id="password-with-newline"),
    pytest.param({"dbd_db_password": "abc\tdefghijkl"}, [PASSWORD], id="password-with-tab"),
    pytest.param({"dbd_db_password": "Zt4-9_x!Q2$%&"}, [], id="password-fine"),
    pytest.param({"dbd_db_password": ""}, [], id="no-password"),
])
def test_accounting_errors(changes, expected):
    assert _errors(accounting=True, **changes) == expected


def test_the_password_is_never_quoted():
    password = "s3cr3t#Value"
    errors = _errors(accounting=True, dbd_db_password=password)
    assert errors == [PASSWORD] and password not in " ".join(errors)


def test_accounts_and_password_are_only_checked_with_accounting():
    assert _errors(dbd_db_password="a b", dbd_accounts=[{"name": "bad name"}]) == []


def test_errors_come_in_a_fixed_order_and_all_at_once():
    inventory = _inventory(2, gpu02={"slurm_node_name": "gpu 02", "slurm_node_gres": "gpu:4"})
    inventory["controllers"] = []
    errors = _errors(inventory, cluster_name="Lab", munge_key_length=8, partitions=[{"name": "a b"}])
    assert [error.split(" ", 3)[:3] for error in errors] == [
        ["No", "controller", "host:"], ["slurm_cluster_name", '"Lab":', "use"], ["slurm_munge_key", "is", "8"],
        ["The", "Slurm", "name"], ["slurm_node_gres", "on", "gpu02"], ["slurm_partitions[0]:", "the", "partition"]]


# --- the model: nodes ------------------------------------------------------------------

def test_identical_nodes_share_one_hostlist_line():
    model = build_model(_inventory(8), _settings())
    assert model["errors"] == [] and model["warnings"] == []
    assert _node_lines(model) == ["NodeName=gpu[01-08] " + SERVER_LINE]
    assert model["node_count"] == 8
    for number in range(1, 9):
        assert model["hosts"]["gpu%02d" % number]["gres_conf"] == [V100_GRES_CONF]
    assert model["settings"]["DefMemPerCPU"] == SERVER_REAL_MEMORY // 128 == 7648


def test_the_node_line_agrees_with_slurmd_c():
    """slurmd refuses (INVAL) a node whose line claims more than `slurmd -C` finds."""
    inventory = _inventory(0)
    _add(inventory, "gpu01", facts=_facts_of_slurmd_c(SLURMD_C))
    line = dict(token.split("=", 1) for token in _node_lines(build_model(inventory, _settings()))[0].split())
    slurmd = dict(token.split("=", 1) for token in SLURMD_C.split())
    assert line["NodeName"] == slurmd["NodeName"]
    assert line["CPUs"] == slurmd["CPUs"]
    assert int(line["Sockets"]) == int(slurmd["Boards"]) * int(slurmd["SocketsPerBoard"])
    assert (line["CoresPerSocket"], line["ThreadsPerCore"]) == (slurmd["CoresPerSocket"], slurmd["ThreadsPerCore"])
    assert int(line["RealMemory"]) <= int(slurmd["RealMemory"])


def test_the_whole_slurm_conf_of_a_small_cluster():
    model = build_model(_inventory(2), _settings())
    assert model["errors"] == []
    assert model["slurm_conf"] == [
        "AuthType=auth/munge",
        "ClusterName=lab",
        "DefMemPerCPU=7648",
        "MpiDefault=none",
        "SelectType=select/cons_tres",
        "SelectTypeParameters=CR_Core_Memory",
        "SlurmctldHost=ctl",
        "SlurmctldLogFile=/var/log/slurm/slurmctld.log",
        "SlurmctldPidFile=/run/slurmctld.pid",
        "SlurmctldPort=6817",
        "SlurmdLogFile=/var/log/slurm/slurmd.log",
        "SlurmdPidFile=/run/slurmd.pid",
        "SlurmdSpoolDir=/var/lib/slurm/slurmd",
        "SlurmUser=slurm",
        "StateSaveLocation=/var/lib/slurm/slurmctld",
        "",
        "# Nodes",
        "NodeName=gpu[01-02] " + SERVER_LINE,
        "",
        "# Partitions",
        "PartitionName=gpu Nodes=ALL Default=YES MaxTime=INFINITE State=UP",
    ]
    assert model["cgroup_conf"] == ["ConstrainCores=yes"]
    assert model["controller"] == {"host": "ctl", "name": "ctl", "addr": ""}
    assert model["dbd"] == {"host": "ctl", "name": "ctl", "backup_host": None, "backup_name": ""}
    assert model["slurmd_options"] == ""


def test_heterogeneous_nodes_get_lines_in_first_seen_order():
    inventory = _inventory(0)
    _add(inventory, "cpu01", facts=CONTAINER, gpus={})
    _add(inventory, "gpu01")
    _add(inventory, "cpu02", facts=CONTAINER, gpus={})
    _add(inventory, "gpu02")
    _add(inventory, "gpu03", gpus=GPUS_4)
    model = build_model(inventory, _settings())
    assert model["errors"] == []
    assert _node_lines(model) == [
        "NodeName=cpu[01-02] CPUs=2 Sockets=1 CoresPerSocket=2 ThreadsPerCore=1 RealMemory=7168 State=UNKNOWN",
        "NodeName=gpu[01-02] " + SERVER_LINE,
        "NodeName=gpu03 CPUs=128 Sockets=2 CoresPerSocket=32 ThreadsPerCore=2 RealMemory=978944 "
        "Gres=gpu:tesla_v100s-pcie-32gb:4 State=UNKNOWN",
    ]
    assert model["hosts"]["cpu01"]["gres_conf"] == []
    assert model["hosts"]["gpu03"]["gres_conf"] == ["Name=gpu Type=tesla_v100s-pcie-32gb File=/dev/nvidia[0-3]"]
    # DefMemPerCPU: the smallest node's share (7168 MB over 2 CPUs)
    assert model["settings"]["DefMemPerCPU"] == 3584


def test_nodes_with_an_address_stay_alone():
    inventory = _inventory(4, gpu02={"slurm_node_addr": "10.0.0.2"}, gpu03={"slurm_node_addr": "gpu03-ib.example.org"})
    model = build_model(inventory, _settings())
    assert model["errors"] == []
    assert _node_lines(model) == [
        "NodeName=gpu[01,04] " + SERVER_LINE,
        "NodeName=gpu02 NodeAddr=10.0.0.2 " + SERVER_LINE,
        "NodeName=gpu03 NodeAddr=gpu03-ib.example.org " + SERVER_LINE,
    ]


@pytest.mark.parametrize("addr", ["10.0.0.2\n", "gpu 02", ["10.0.0.2"]])
def test_a_bad_node_address_is_an_error(addr):
    model = build_model(_inventory(1, gpu01={"slurm_node_addr": addr}), _settings())
    assert model["errors"] == [
        "slurm_node_addr for gpu01 is %s: give a host name or an IP address." % json.dumps(addr)]


def test_inconsistent_topology_gives_cpus_only_and_a_warning():
    inventory = _inventory(1)
    _add(inventory, "gpu02", facts=dict(SERVER, processor_vcpus=96))
    model = build_model(inventory, _settings())
    assert model["errors"] == []
    assert model["warnings"] == [
        "gpu02: 2 sockets x 32 cores x 2 threads is not 96 CPUs; its NodeName line gives CPUs= only."]
    assert _node_lines(model) == [
        "NodeName=gpu01 " + SERVER_LINE,
        "NodeName=gpu02 CPUs=96 RealMemory=978944 Gres=%s State=UNKNOWN" % V100]


@pytest.mark.parametrize("margin, real_memory", [(5, 978944), (10, 927744), (0, 1030144), ("5", 978944), (None, 978944)])
def test_real_memory_is_memtotal_less_the_margin(margin, real_memory):
    model = build_model(_inventory(1), _settings(real_memory_margin_pct=margin))
    assert model["errors"] == []
    assert "RealMemory=%d " % real_memory in _node_lines(model)[0]


@pytest.mark.parametrize("margin", [100, -1, "x", 10 ** 30, [5]])
def test_a_margin_outside_0_to_99_is_an_error(margin):
    model = build_model(_inventory(1), _settings(real_memory_margin_pct=margin))
    assert model["errors"] == [
        "slurm_real_memory_margin_pct is %s: give a whole number from 0 to 99, the percentage of MemTotal each node "
        "keeps out of RealMemory." % json.dumps(margin)]
    assert "RealMemory=978944 " in _node_lines(model)[0]


def test_real_memory_override():
    model = build_model(_inventory(2, gpu02={"slurm_node_real_memory": 500000}), _settings())
    assert model["errors"] == []
    assert [line.split()[0] + " " + line.split()[5] for line in _node_lines(model)] == [
        "NodeName=gpu01 RealMemory=978944", "NodeName=gpu02 RealMemory=500000"]
    assert model["settings"]["DefMemPerCPU"] == 500000 // 128


@pytest.mark.parametrize("value, expected", [
    (1031001, "slurm_node_real_memory for gpu01 is 1031001 MB but the node has 1031000 MB: Slurm would mark it INVAL. "
              "Lower it, or remove it to use MemTotal less 5% (slurm_real_memory_margin_pct)."),
    (2000000, "slurm_node_real_memory for gpu01 is 2000000 MB but the node has 1031000 MB: Slurm would mark it INVAL. "
              "Lower it, or remove it to use MemTotal less 5% (slurm_real_memory_margin_pct)."),
    (0, "slurm_node_real_memory for gpu01 is 0: give a whole number of MB, or remove it to use MemTotal less "
        "slurm_real_memory_margin_pct."),
    ("lots", 'slurm_node_real_memory for gpu01 is "lots": give a whole number of MB, or remove it to use MemTotal less '
             "slurm_real_memory_margin_pct."),
    ("512G", 'slurm_node_real_memory for gpu01 is "512G": give a whole number of MB, or remove it to use MemTotal less '
             "slurm_real_memory_margin_pct."),
])
def test_real_memory_override_errors(value, expected):
    model = build_model(_inventory(1, gpu01={"slurm_node_real_memory": value}), _settings())
    assert model["errors"] == [expected]


def test_real_memory_override_up_to_memtotal_is_fine():
    model = build_model(_inventory(1, gpu01={"slurm_node_real_memory": "1031000"}), _settings())
    assert model["errors"] == [] and "RealMemory=1031000 " in _node_lines(model)[0]


# --- RealMemory rounded, and nodes of one model on one line ----------------------------

@pytest.mark.parametrize("memtotal, margin, round_mb, real_memory", [
    (1031000, 5, 1024, 978944),     # 979450 MB down to 956 GiB
    (1031000, 5, 0, 979450),        # 0 and 1: not rounded
    (1031000, 5, 1, 979450),
    (1031000, 0, 4096, 1028096),    # 251 x 4 GiB
    (1031000, 5, 65536, 917504),    # 14 x 64 GiB
    (2048, 0, 1024, 2048),          # on a multiple: kept
    (2047, 0, 1024, 1024),
    (1024, 0, 1024, 1024),
    (1023, 0, 1024, 1023),          # less than one unit left: not rounded to 0
    (7940, 5, 1024, 7168),          # a Molecule container
])
def test_auto_real_memory(memtotal, margin, round_mb, real_memory):
    assert auto_real_memory(memtotal, margin, round_mb) == real_memory


def _spread(count, spread_mb, names="gpu%02d", memtotal=1031000):
    """`count` identical servers whose MemTotal runs evenly from `memtotal` down to `spread_mb` less."""
    inventory = _inventory(0)
    for index in range(count):
        _add(inventory, names % (index + 1), facts=dict(SERVER, memtotal_mb=memtotal - spread_mb * index // max(count - 1, 1)))
    return inventory


# 0.5 % of 1031000 MB: 5155 MB. Less 5 % and in whole GiB, the nodes run from 956 GiB (978944 MB) down to
# 1025845 MB x 0.95 = 974552 MB, 951 GiB (973824 MB): six values, one line with the smallest.
SPREAD_LINE = "CPUs=128 Sockets=2 CoresPerSocket=32 ThreadsPerCore=2 RealMemory=973824 Gres=%s State=UNKNOWN" % V100


def test_memtotal_spread_by_half_a_percent_over_64_nodes_gives_one_line():
    inventory = _spread(64, 5155)
    model = build_model(inventory, _settings())
    assert model["errors"] == [] and model["warnings"] == []
    assert _node_lines(model) == ["NodeName=gpu[01-64] " + SPREAD_LINE]
    # gpu61-gpu64 (MemTotal below 1026156 MB) are at 951 GiB already.
    assert model["memory_groups"] == [
        "RealMemory=973824 for gpu[01-64] (64 nodes of one model, 60 of them lowered from up to 978944 MB: within 1% "
        "of the largest, slurm_real_memory_group_pct), so they share one NodeName line."]
    assert model["settings"]["DefMemPerCPU"] == 973824 // 128
    for host in inventory["computes"]:
        # Never more than a node has: at most its own MemTotal less the margin.
        assert 973824 <= inventory["hosts"][host]["facts"]["memtotal_mb"] * 95 // 100
    assert model["restart"]["nodes"] == ["gpu[01-64]:%s:973824:128" % V100]


def test_memtotal_spread_by_half_a_percent_over_1024_nodes_gives_one_line():
    model = build_model(_spread(1024, 5155, names="gpu%04d"), _settings())
    assert model["errors"] == []
    assert _node_lines(model) == ["NodeName=gpu[0001-1024] " + SPREAD_LINE]
    assert len(model["memory_groups"]) == 1 and model["memory_groups"][0].startswith("RealMemory=973824 for gpu[0001-1024] (1024 nodes")


def test_a_node_with_half_the_memory_keeps_its_own_line():
    inventory = _spread(64, 5155)
    inventory["hosts"]["gpu33"]["facts"]["memtotal_mb"] = 515500
    model = build_model(inventory, _settings())
    assert _node_lines(model) == [
        "NodeName=gpu[01-32,34-64] " + SPREAD_LINE,
        # 515500 x 0.95 = 489725 MB: 478 GiB
        "NodeName=gpu33 " + SPREAD_LINE.replace("973824", "489472")]
    assert model["settings"]["DefMemPerCPU"] == 489472 // 128
    assert [line.split(" (")[0] for line in model["memory_groups"]] == ["RealMemory=973824 for gpu[01-32,34-64]"]


@pytest.mark.parametrize("low, lines", [
    (99000, ["NodeName=n[1-3] CPUs=128 RealMemory=99000"]),                   # exactly 1 % below: one group
    (98999, ["NodeName=n[1-2] CPUs=128 RealMemory=99500", "NodeName=n3 CPUs=128 RealMemory=98999"]),
])
def test_the_group_reaches_exactly_group_pct_below_its_largest(low, lines):
    nodes = [{"host": "n%d" % i, "name": "n%d" % i, "addr": "", "real_memory": memory, "cpus": 128,
              "topology_consistent": False, "sockets": 0, "cores_per_socket": 0, "threads_per_core": 0,
              "gres_value": "", "features": [], "weight": None} for i, memory in ((1, 100000), (2, 99500), (3, low))]
    lowered, messages = group_real_memory(nodes, 1)
    for node in nodes:
        node["real_memory"] = lowered.get(node["host"], node["real_memory"])
    assert ["NodeName=%s CPUs=128 RealMemory=%d" % (names, node["real_memory"])
            for names, node in group_nodes(nodes, lambda n: n["real_memory"])] == lines
    assert len(messages) == 1


def test_groups_go_down_from_the_largest_and_never_chain():
    # 100000, 99200, 98400: each within 1 % of the one above, but 98400 is 1.6 % below 100000.
    nodes = [{"host": "n%d" % i, "name": "n%d" % i, "addr": "", "real_memory": memory, "cpus": 1,
              "topology_consistent": True, "sockets": 1, "cores_per_socket": 1, "threads_per_core": 1,
              "gres_value": "", "features": [], "weight": None} for i, memory in ((1, 99200), (2, 98400), (3, 100000))]
    assert group_real_memory(nodes, 1) == ({"n3": 99200}, [
        "RealMemory=99200 for n[1,3] (2 nodes of one model, 1 of them lowered from up to 100000 MB: within 1% of the "
        "largest, slurm_real_memory_group_pct), so they share one NodeName line."])
    assert group_real_memory(nodes, 0) == ({}, [])
    assert group_real_memory([], 1) == ({}, [])


def test_nodes_across_a_gib_boundary_share_the_lower_one():
    inventory = _inventory(0)
    # 978944 MB is 956 GiB: 1030468 MB x 0.95 = 978944.6, 1030466 MB x 0.95 = 978942.7 (955 GiB: 977920).
    _add(inventory, "gpu01", facts=dict(SERVER, memtotal_mb=1030468))
    _add(inventory, "gpu02", facts=dict(SERVER, memtotal_mb=1030466))
    model = build_model(inventory, _settings())
    assert _node_lines(model) == ["NodeName=gpu[01-02] " + SERVER_LINE.replace("978944", "977920")]
    model = build_model(inventory, _settings(real_memory_group_pct=0))
    assert _node_lines(model) == ["NodeName=gpu01 " + SERVER_LINE, "NodeName=gpu02 " + SERVER_LINE.replace("978944", "977920")]
    assert model["memory_groups"] == []


def test_without_rounding_the_group_takes_the_smallest_memtotal_less_the_margin():
    model = build_model(_spread(64, 5155), _settings(real_memory_round_mb=0))
    # 1025845 x 0.95 = 974552 MB
    assert _node_lines(model) == ["NodeName=gpu[01-64] " + SPREAD_LINE.replace("973824", "974552")]
    model = build_model(_spread(64, 5155), _settings(real_memory_round_mb=0, real_memory_group_pct=0))
    assert len(_node_lines(model)) == 64 and model["memory_groups"] == []


def test_slurm_node_real_memory_is_kept_as_given_and_left_out_of_the_group():
    inventory = _spread(4, 5155)
    inventory["hosts"]["gpu02"]["vars"]["slurm_node_real_memory"] = 978000
    inventory["hosts"]["gpu04"]["vars"]["slurm_node_real_memory"] = 970000
    model = build_model(inventory, _settings())
    assert model["errors"] == []
    # gpu01 (1031000 MB: 956 GiB) and gpu03 (1027564 MB: 953 GiB, 975872 MB) are grouped without them.
    assert _node_lines(model) == [
        "NodeName=gpu[01,03] " + SPREAD_LINE.replace("973824", "975872"),
        "NodeName=gpu02 " + SPREAD_LINE.replace("973824", "978000"),
        "NodeName=gpu04 " + SPREAD_LINE.replace("973824", "970000")]
    assert model["memory_groups"] == [
        "RealMemory=975872 for gpu[01,03] (2 nodes of one model, 1 of them lowered from up to 978944 MB: within 1% of "
        "the largest, slurm_real_memory_group_pct), so they share one NodeName line."]


def test_only_nodes_of_one_model_are_grouped():
    inventory = _spread(4, 5155)
    inventory["hosts"]["gpu02"]["gpus"] = GPUS_4
    inventory["hosts"]["gpu03"]["vars"]["slurm_node_features"] = ["ib"]
    inventory["hosts"]["gpu04"]["vars"]["slurm_node_addr"] = "10.0.0.4"
    model = build_model(inventory, _settings())
    assert model["memory_groups"] == []
    assert [line.split()[0] + " " + line.split()[-4 if "Features" in line else -3] for line in _node_lines(model)] == [
        "NodeName=gpu01 RealMemory=978944", "NodeName=gpu02 RealMemory=976896", "NodeName=gpu03 RealMemory=975872",
        "NodeName=gpu04 RealMemory=973824"]


@pytest.mark.parametrize("changes, expected", [
    ({"real_memory_round_mb": -1}, "slurm_real_memory_round_mb is -1: give a whole number of MB from 0 to 65536: each "
     "node's RealMemory is rounded down to a multiple of it (1024: whole GiB; 0 or 1: not rounded)."),
    ({"real_memory_round_mb": 65537}, "slurm_real_memory_round_mb is 65537: give a whole number of MB from 0 to 65536: "
     "each node's RealMemory is rounded down to a multiple of it (1024: whole GiB; 0 or 1: not rounded)."),
    ({"real_memory_round_mb": "1G"}, 'slurm_real_memory_round_mb is "1G": give a whole number of MB from 0 to 65536: '
     "each node's RealMemory is rounded down to a multiple of it (1024: whole GiB; 0 or 1: not rounded)."),
    ({"real_memory_round_mb": True}, "slurm_real_memory_round_mb is true: give a whole number of MB from 0 to 65536: "
     "each node's RealMemory is rounded down to a multiple of it (1024: whole GiB; 0 or 1: not rounded)."),
    ({"real_memory_group_pct": 11}, "slurm_real_memory_group_pct is 11: give a whole number from 0 to 10: nodes of one "
     "model whose RealMemory is at most this percentage below the largest share one NodeName line with the smallest "
     "(0: only equal ones)."),
    ({"real_memory_group_pct": "1%"}, 'slurm_real_memory_group_pct is "1%": give a whole number from 0 to 10: nodes of '
     "one model whose RealMemory is at most this percentage below the largest share one NodeName line with the "
     "smallest (0: only equal ones)."),
])
def test_real_memory_setting_errors(changes, expected):
    model = build_model(_spread(4, 5155), _settings(**changes))
    assert model["errors"] == [expected]


@pytest.mark.parametrize("changes", [{"real_memory_round_mb": "1024", "real_memory_group_pct": "1"},
                                     {"real_memory_round_mb": None, "real_memory_group_pct": None}])
def test_real_memory_settings_as_text_or_unset_are_the_defaults(changes):
    model = build_model(_spread(64, 5155), _settings(**changes))
    assert model["errors"] == [] and _node_lines(model) == ["NodeName=gpu[01-64] " + SPREAD_LINE]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(memtotals=st.lists(st.integers(min_value=204800, max_value=4 * 1024 * 1024), min_size=1, max_size=40),
       spread=st.integers(min_value=0, max_value=50), round_mb=st.sampled_from([0, 1, 512, 1024]))
def test_one_model_within_half_a_percent_is_one_line_never_above_a_nodes_memory(memtotals, spread, round_mb):
    """MemTotal at most 0.5 % apart (of 200 GB or more, so a GiB is at most 0.5 % too): one line."""
    top = max(memtotals)
    memtotals = [top - (top - memtotal) * spread // 10000 for memtotal in memtotals]  # spread: 0 to 0.5 %
    inventory = _inventory(0)
    for index, memtotal in enumerate(memtotals):
        _add(inventory, "n%03d" % index, facts=dict(SERVER, memtotal_mb=memtotal))
    model = build_model(inventory, _settings(real_memory_round_mb=round_mb))
    assert model["errors"] == []
    lines = _node_lines(model)
    assert len(lines) == 1
    real_memory = int(lines[0].split("RealMemory=")[1].split()[0])
    assert real_memory == min(auto_real_memory(memtotal, 5, round_mb) for memtotal in memtotals)


def test_features_and_weight():
    inventory = _inventory(4, gpu01={"slurm_node_features": ["v100s", "pcie"], "slurm_node_weight": 10},
                           gpu02={"slurm_node_features": "v100s,pcie", "slurm_node_weight": "10"},
                           gpu03={"slurm_node_weight": 20})
    model = build_model(inventory, _settings())
    assert model["errors"] == []
    assert _node_lines(model) == [
        "NodeName=gpu[01-02] " + SERVER_LINE.replace(" State=", " Features=v100s,pcie Weight=10 State="),
        "NodeName=gpu03 " + SERVER_LINE.replace(" State=", " Weight=20 State="),
        "NodeName=gpu04 " + SERVER_LINE]


@pytest.mark.parametrize("host_vars, expected", [
    ({"slurm_node_features": ["a b"]},
     'slurm_node_features for gpu01 is ["a b"]: give a list of feature names (letters, digits, _ . -).'),
    ({"slurm_node_features": {"nvlink": True}},
     'slurm_node_features for gpu01 is {"nvlink": true}: give a list of feature names (letters, digits, _ . -).'),
    ({"slurm_node_features": "a b,c"},
     'slurm_node_features for gpu01 is ["a b", "c"]: give a list of feature names (letters, digits, _ . -).'),
    ({"slurm_node_weight": 0}, "slurm_node_weight for gpu01 is 0: give a whole number from 1 (lower weights are used first)."),
    ({"slurm_node_weight": "heavy"},
     'slurm_node_weight for gpu01 is "heavy": give a whole number from 1 (lower weights are used first).'),
])
def test_feature_and_weight_errors(host_vars, expected):
    model = build_model(_inventory(1, gpu01=host_vars), _settings())
    assert model["errors"] == [expected]
    assert "Features=" not in _node_lines(model)[0] and "Weight=" not in _node_lines(model)[0]


def test_inventory_gres_override_goes_through_the_same_renderer():
    gres = [{"type": "a100", "count": 4, "file": "/dev/nvidia[0-3]", "cores": "0-31"},
            {"type": "t4", "count": 2, "file": "/dev/nvidia[4-5]", "links": "-1,2"}]
    model = build_model(_inventory(2, gpu01={"slurm_node_gres": gres}), _settings())
    assert model["errors"] == []
    assert model["hosts"]["gpu01"]["gres_conf"] == [gres_line(entry) for entry in gres] == [
        "Name=gpu Type=a100 File=/dev/nvidia[0-3] Cores=0-31", "Name=gpu Type=t4 File=/dev/nvidia[4-5] Links=-1,2"]
    assert model["hosts"]["gpu02"]["gres_conf"] == [V100_GRES_CONF]
    assert _node_lines(model) == [
        "NodeName=gpu01 " + SERVER_LINE.replace(V100, "gpu:a100:4,gpu:t4:2"),
        "NodeName=gpu02 " + SERVER_LINE]


def test_an_empty_override_means_no_gres():
    model = build_model(_inventory(1, gpu01={"slurm_node_gres": []}), _settings())
    assert model["errors"] == []
    assert "Gres=" not in _node_lines(model)[0] and model["hosts"]["gpu01"]["gres_conf"] == []


def test_a_bad_override_is_reported_once_and_writes_no_gres():
    model = build_model(_inventory(1, gpu01={"slurm_node_gres": [{"type": "a100", "count": 2}]}), _settings())
    assert model["errors"] == [
        'slurm_node_gres on gpu01[0]: a GPU needs file (for example "/dev/nvidia[0-3]"): Slurm binds GPUs by device file.']
    assert "Gres=" not in _node_lines(model)[0]


def test_gpuops_gpus_that_is_not_a_mapping_is_an_error():
    inventory = _inventory(1)
    inventory["hosts"]["gpu01"]["gpus"] = "8x a100"
    model = build_model(inventory, _settings())
    assert model["errors"] == [
        'gpuops_gpus of gpu01 is "8x a100", not the mapping gpuops.cluster.gpu_facts gathers: remove gpuops_gpus from '
        'the inventory (slurm_node_gres sets a node\'s GPUs).']


@pytest.mark.parametrize("gpus", [{"pci_gpus": True}, {"count": 1, "slurm_gres": "gpu:1", "gres_conf": 5}])
def test_malformed_gpu_facts_are_the_models_own_error(gpus):
    inventory = _inventory(1)
    inventory["hosts"]["gpu01"]["gpus"] = gpus
    with pytest.raises(SlurmModelError, match=r"^cluster model: cannot read this input \(TypeError: "):
        build_model(inventory, _settings())


def test_nodes_without_gpus():
    inventory = _inventory(0)
    _add(inventory, "n1", gpus={"status": "no_nvidia_smi", "count": 0, "gres_conf": [], "slurm_gres": "", "pci_gpus": [],
                                "device_files": []})
    _add(inventory, "n2", gpus={})
    inventory["hosts"]["n2"]["gpus"] = None
    model = build_model(inventory, _settings())
    assert model["errors"] == []
    assert _node_lines(model) == ["NodeName=n[1-2] " + SERVER_LINE.replace(" Gres=%s" % V100, "")]


# --- configless, hosts, accounting ------------------------------------------------------

def test_configless_gres_lives_on_the_controller_with_hostlists():
    gres = [{"type": "a100", "count": 4, "file": "/dev/nvidia[0-3]"}, {"type": "t4", "count": 2, "file": "/dev/nvidia[4-5]"}]
    inventory = _inventory(4, gpu03={"slurm_node_gres": gres})
    _add(inventory, "cpu01", facts=CONTAINER, gpus={})
    model = build_model(inventory, _settings(configless=True))
    assert model["errors"] == []
    assert model["hosts"]["ctl"]["gres_conf"] == [
        "NodeName=gpu[01-02,04] " + V100_GRES_CONF,
        "NodeName=gpu03 Name=gpu Type=a100 File=/dev/nvidia[0-3]",
        "NodeName=gpu03 Name=gpu Type=t4 File=/dev/nvidia[4-5]"]
    for host in ("gpu01", "gpu03", "cpu01"):
        assert model["hosts"][host]["gres_conf"] == []
    assert model["settings"]["SlurmctldParameters"] == "enable_configless"
    assert model["slurmd_options"] == "--conf-server ctl:6817"
    assert "SlurmctldParameters=enable_configless" in model["slurm_conf"]


def test_configless_slurmd_options_follow_the_port_and_the_controller_name():
    inventory = _inventory(1, controller="ctl.example.org")
    inventory["hosts"]["ctl.example.org"]["facts"] = {"hostname": "head"}
    model = build_model(inventory, _settings(configless=True, config={"SlurmctldPort": 7817}))
    assert model["slurmd_options"] == "--conf-server head:7817"
    assert model["settings"]["SlurmctldHost"] == "head"


def test_every_controller_in_order_on_slurmctldhost_and_conf_server():
    # The model writes one SlurmctldHost line per controller, the primary (the group's first host) first;
    # slurmd's --conf-server lists them in the same order (slurmd(8)), and every controller serves gres.conf.
    inventory = _inventory(2)
    inventory["controllers"] = ["ctl", "ctl2"]
    inventory["hosts"]["ctl2"] = {"facts": {"hostname": "head2"}, "vars": {"slurm_node_addr": "10.0.0.2"}}
    model = build_model(inventory, _settings(configless=True, state_save_location="/shared/slurmctld"))
    assert _lines(model, "SlurmctldHost=") == ["SlurmctldHost=ctl", "SlurmctldHost=head2(10.0.0.2)"]
    assert model["slurmd_options"] == "--conf-server ctl:6817,head2:6817"
    assert [entry["name"] for entry in model["controllers"]] == ["ctl", "head2"]
    assert model["controller"]["host"] == "ctl"
    assert model["hosts"]["ctl"]["gres_conf"] == model["hosts"]["ctl2"]["gres_conf"] != []
    assert model["errors"] == []


@pytest.mark.parametrize("keys", [["BackupController"], ["ControlMachine", "backupaddr"]])
def test_the_old_spelling_of_the_controllers_is_refused(keys):
    model = build_model(_inventory(1), _settings(config=dict((key, "x") for key in keys)))
    assert model["errors"] == [
        "slurm_config sets %s, the old spelling of the controllers: the collection writes SlurmctldHost from the "
        "inventory group slurm_controller (slurm_controller_group), and slurmctld ignores BackupController and "
        "BackupAddr once SlurmctldHost is set. Remove %s from slurm_config; give a controller's address with "
        "slurm_node_addr on that host." % (", ".join(sorted(keys)), ", ".join(sorted(keys)))]


@pytest.mark.parametrize("value, expected", [
    ("idle_on_node_suspend", "idle_on_node_suspend,enable_configless"),
    ("enable_configless,idle_on_node_suspend", "enable_configless,idle_on_node_suspend"),
    (["cloud_dns", "idle_on_node_suspend"], "cloud_dns,idle_on_node_suspend,enable_configless"),
    (None, "enable_configless"),
    ("", "enable_configless"),
])
def test_configless_keeps_enable_configless_in_the_users_slurmctld_parameters(value, expected):
    model = build_model(_inventory(1), _settings(configless=True, config={"SlurmctldParameters": value}))
    assert model["errors"] == []
    assert model["settings"]["SlurmctldParameters"] == expected


def test_slurmctld_parameters_are_the_users_without_configless():
    model = build_model(_inventory(1), _settings(config={"SlurmctldParameters": "idle_on_node_suspend"}))
    assert model["settings"]["SlurmctldParameters"] == "idle_on_node_suspend"


def _entry(name, controller=False, compute=False, dbd=False, dbd_only=False, holds_config=False, writes_gres=False,
           gres_conf=None, login=False, sackd=False):
    return {"name": name, "controller": controller, "compute": compute, "dbd": dbd, "dbd_only": dbd_only,
            "holds_config": holds_config, "writes_gres": writes_gres, "gres_conf": gres_conf or [],
            "rest": False, "jwt": False, "login": login, "sackd": sackd}


@pytest.mark.parametrize("configless, hosts", [
    (False, {
        "ctl": _entry("ctl", controller=True, holds_config=True),
        "gpu01": _entry("gpu01", compute=True, holds_config=True, writes_gres=True, gres_conf=[V100_GRES_CONF]),
        "db.example.org": _entry("db", dbd=True, dbd_only=True, holds_config=True),
    }),
    (True, {
        "ctl": _entry("ctl", controller=True, holds_config=True, writes_gres=True,
                      gres_conf=["NodeName=gpu01 " + V100_GRES_CONF]),
        "gpu01": _entry("gpu01", compute=True),
        "db.example.org": _entry("db", dbd=True, dbd_only=True, holds_config=True),
    }),
])
def test_host_entries(configless, hosts):
    model = build_model(_inventory(1, dbd="db.example.org"), _settings(configless=configless, accounting=True))
    assert model["errors"] == []
    assert model["hosts"] == hosts


# --- login nodes ------------------------------------------------------------------

def _with_login(inventory, *hosts):
    inventory["logins"] = list(hosts)
    for host in hosts:
        inventory["hosts"].setdefault(host, {"facts": {"hostname": host}, "vars": {}})
    return inventory


@pytest.mark.parametrize("series, value, sackd", [
    ("22.05", "auto", False),    # no sackd before 23.11: the login node keeps slurm.conf
    ("24.11", "auto", True),
    ("26.05", "auto", True),
    ("26.05", False, False),
    ("26.05", "false", False),
    ("24.11", True, True),
])
def test_login_nodes_run_sackd_where_the_release_has_it(series, value, sackd):
    model = build_model(_with_login(_inventory(1), "login1"), _settings(series=series, login_configless=value))
    assert model["errors"] == []
    assert model["hosts"]["login1"] == _entry("login1", login=True, sackd=sackd, holds_config=not sackd)
    assert model["login_hosts"] == ["login1"]
    if sackd:
        assert model["sackd_options"] == "--conf-server ctl:6817"
        assert "enable_configless" in model["settings"]["SlurmctldParameters"]
        # the nodes keep their files: only the login nodes fetch theirs
        assert model["hosts"]["gpu01"]["holds_config"] is True
        assert model["slurmd_options"] == ""
    else:
        assert model["sackd_options"] == ""
        assert model["settings"].get("SlurmctldParameters") is None


def test_no_login_nodes_no_sackd_and_no_configless():
    model = build_model(_inventory(1), _settings(series="26.05"))
    assert model["sackd_options"] == "" and model["login_hosts"] == []
    assert model["settings"].get("SlurmctldParameters") is None


@pytest.mark.parametrize("value, fragment", [
    (True, "has no sackd (it came with 23.11)"),
    ("sometimes", "use auto (sackd where the Slurm release has it), true or false"),
])
def test_login_configless_errors(value, fragment):
    model = build_model(_with_login(_inventory(1), "login1"), _settings(series="22.05", login_configless=value))
    assert any(fragment in error for error in model["errors"]), model["errors"]


def test_a_login_node_is_no_controller_or_compute_node():
    errors = check_inventory(_with_login(_inventory(1), "gpu01", "ctl"), _settings())
    assert any("gpu01 is in slurm_login (slurm_login_group) and in slurm_compute" in e for e in errors), errors
    assert any("ctl is in slurm_login (slurm_login_group) and in slurm_controller" in e for e in errors), errors


def test_a_login_nodes_files_and_packages():
    model = build_model(_with_login(_inventory(1), "login1"), _settings(series="26.05"))
    paths = {"config_dir": "/etc/slurm", "log_dir": "/var/log/slurm", "state_dir": "/s", "spool_dir": "/sp",
             "slurmd_env_file": "/etc/default/slurmd", "sackd_env_file": "/etc/default/sackd",
             "configless_dropin": "/etc/systemd/system/slurmd.service.d/x.conf"}
    contents = {"slurm.conf": "a", "cgroup.conf": "b", "gres.conf": "c", "slurmd_env": "d", "dropin": "e",
                "sackd_env": 'SACKD_OPTIONS="--conf-server ctl:6817"'}
    files = host_files(model["hosts"]["login1"], paths, contents)
    written = [entry["path"] for entry in files["config"] + files["slurmd"] if "content" in entry]
    assert written == ["/etc/default/sackd"]
    assert bundle_handlers({"slurmd": files["slurmd"]}, model["hosts"]["login1"],
                           {"services": {"sackd": {"active": True}}}, False) == ["restart sackd"]
    assert bundle_handlers({"slurmd": files["slurmd"]}, model["hosts"]["login1"],
                           {"services": {"sackd": {"active": False}}}, False) == []


def test_slurmdbd_on_the_controller_or_on_a_compute_node():
    model = build_model(_inventory(1), _settings(accounting=True))
    assert model["hosts"]["ctl"] == _entry("ctl", controller=True, dbd=True, holds_config=True)
    assert model["dbd"] == {"host": "ctl", "name": "ctl", "backup_host": None, "backup_name": ""}
    inventory = _inventory(2)
    inventory["dbd"] = ["gpu02"]
    model = build_model(inventory, _settings(accounting=True, configless=True))
    assert model["hosts"]["gpu02"] == _entry("gpu02", compute=True, dbd=True, holds_config=True)
    assert model["settings"]["AccountingStorageHost"] == "gpu02"


def test_a_backup_slurmdbd():
    inventory = _inventory(1, dbd="db1")
    inventory["dbd"] = ["db1", "ctl"]
    good = dict(accounting=True, dbd_db_host="sqlserver", dbd_install_mariadb=False, dbd_db_password="Zt4-9_x!Q2")
    model = build_model(inventory, _settings(**good))
    assert model["errors"] == []
    assert model["dbd"] == {"host": "db1", "name": "db1", "backup_host": "ctl", "backup_name": "ctl"}
    assert _lines(model, "AccountingStorage") == [
        "AccountingStorageBackupHost=ctl", "AccountingStorageHost=db1", "AccountingStoragePort=6819",
        "AccountingStorageType=accounting_storage/slurmdbd"]
    assert model["hosts"]["ctl"]["dbd"] is True and model["hosts"]["ctl"]["dbd_only"] is False
    assert model["hosts"]["db1"]["dbd_only"] is True
    for change, needle in ((dict(dbd_install_mariadb=True), "slurm_dbd_install_mariadb: false"),
                           (dict(dbd_db_host="127.0.0.1"), 'not "127.0.0.1"'),
                           (dict(dbd_db_host="db1.example.org"), 'not "db1.example.org"'),
                           (dict(dbd_db_password=""), "set slurm_dbd_db_password (from your vault)")):
        errors = build_model(inventory, _settings(**dict(good, **change)))["errors"]
        assert len(errors) == 1 and needle in errors[0], errors


@pytest.mark.parametrize("dbd_data, name", [
    ({"facts": {}, "vars": {}}, "db"),
    ({"facts": {"hostname": "slurmdb1"}, "vars": {}}, "slurmdb1"),
    ({"facts": {"hostname": "slurmdb1"}, "vars": {"slurm_node_name": "accounting"}}, "accounting"),
])
def test_accounting_names_the_dbd_host_by_its_slurm_name(dbd_data, name):
    inventory = _inventory(1, dbd="db.example.org")
    inventory["hosts"]["db.example.org"] = dbd_data
    model = build_model(inventory, _settings(accounting=True))
    assert model["errors"] == []
    assert [line for line in model["slurm_conf"] if line.startswith("Accounting")] == [
        "AccountingStorageHost=%s" % name, "AccountingStoragePort=6819",
        "AccountingStorageType=accounting_storage/slurmdbd"]
    assert model["dbd"] == {"host": "db.example.org", "name": name, "backup_host": None, "backup_name": ""}


def test_no_accounting_settings_without_accounting():
    model = build_model(_inventory(1, dbd="db"), _settings())
    assert _lines(model, "Accounting") == []


def test_accounting_config_that_is_not_a_mapping_is_an_error():
    model = build_model(_inventory(1), _settings(accounting=True, accounting_config="accounting_storage/slurmdbd"))
    assert model["errors"] == [
        'slurm_accounting_config must be a mapping of Slurm settings, not "accounting_storage/slurmdbd".']


# --- settings ---------------------------------------------------------------------------

def test_user_config_wins_and_null_removes_a_default():
    config = {"MpiDefault": None, "SelectTypeParameters": "CR_Core", "DefMemPerCPU": 4000, "SlurmctldHost": "ctl(10.0.0.1)"}
    model = build_model(_inventory(1), _settings(config=config))
    assert model["errors"] == []
    assert _lines(model, "MpiDefault=") == []
    assert "MpiDefault" not in [line.split("=")[0] for line in model["slurm_conf"]]
    assert _lines(model, "SelectTypeParameters=") == ["SelectTypeParameters=CR_Core"]
    assert _lines(model, "DefMemPerCPU=") == ["DefMemPerCPU=4000"]
    assert model["restart"]["settings"] == {"SelectTypeParameters": "CR_Core", "SlurmctldHost": "ctl(10.0.0.1)"}


def test_user_keys_replace_defaults_in_any_case():
    """Slurm reads keys without regard to case: slurm.conf gets each key once, and the restart record sees it."""
    config = {"selecttypeparameters": "CR_Core", "mpidefault": None, "slurmctldport": 7817}
    model = build_model(_inventory(1), _settings(config=config))
    assert model["errors"] == []
    keys = ("selecttypeparameters=", "mpidefault=", "slurmctldport=")
    assert [line for line in model["slurm_conf"] if line.lower().startswith(keys)] == [
        "SelectTypeParameters=CR_Core", "SlurmctldPort=7817"]
    assert model["restart"]["settings"] == {"SelectTypeParameters": "CR_Core", "SlurmctldHost": "ctl"}


@pytest.mark.parametrize("config", [{"DefMemPerNode": 100000}, {"defmempergpu": 64000}])
def test_def_mem_per_cpu_gives_way_to_the_users_def_mem_per_node_or_gpu(config):
    """They exclude each other, and slurmctld would take DefMemPerCPU over the user's."""
    model = build_model(_inventory(1), _settings(config=config))
    assert model["errors"] == []
    assert _lines(model, "DefMemPerCPU=") == []
    assert "DefMemPerCPU" not in model["settings"] or model["settings"]["DefMemPerCPU"] is None


def test_the_controller_address_goes_into_slurmctld_host():
    inventory = _inventory(1)
    inventory["hosts"]["ctl"]["vars"] = {"slurm_node_addr": "10.0.0.1"}
    assert build_model(inventory, _settings())["settings"]["SlurmctldHost"] == "ctl(10.0.0.1)"


def test_cgroup_conf_by_series_and_user_cgroup_config():
    model = build_model(_inventory(1), _settings(series="24.11", cgroup_config={"ConstrainRAMSpace": True}))
    assert model["errors"] == []
    assert model["cgroup_conf"] == ["CgroupPlugin=autodetect", "ConstrainRAMSpace=yes"]


@pytest.mark.parametrize("changes, expected", [
    ({"config": {"SelectTypeParamters": "CR_Core"}},
     ["slurm_config: 'SelectTypeParamters' is not a slurm.conf key in Slurm 22.05; fix the spelling or remove it "
      "(did you mean 'SelectTypeParameters'?)"]),
    ({"config": {"ConstrainCores": True}},
     ["slurm_config: 'ConstrainCores' is a cgroup.conf key, not a slurm.conf key; move it to the cgroup.conf settings."]),
    ({"config": "SelectTypeParameters=CR_Core"},
     ["slurm_config: slurm_config must be a dictionary of Slurm settings, got str"]),
    ({"cgroup_config": ["ConstrainCores"]},
     ["slurm_cgroup_config: slurm_cgroup_config must be a dictionary of Slurm settings, got list"]),
    ({"config": {"SlurmctldTimeout": "120\n300"}},
     ["slurm.conf: the value of Slurm key 'SlurmctldTimeout' contains a newline, which would end the line in the "
      "configuration file; put it on one line"]),
    ({"config_defaults": ["AuthType=auth/munge"]},
     ['the collection\'s slurm.conf defaults must be a mapping of Slurm settings, not ["AuthType=auth/munge"].']),
])
def test_setting_errors_of_the_model(changes, expected):
    model = build_model(_inventory(1), _settings(**changes))
    assert model["errors"] == expected


def test_role_defaults_are_accepted_by_both_catalogued_series():
    """The real defaults of _slurm_common (vars/main.yml) give no error and render."""
    with open(ROLE_VARS) as handle:
        role_vars = yaml.safe_load(handle)
    for series in ("22.05", "24.11"):
        model = build_model(_inventory(2), _settings(
            series=series, config_defaults=role_vars["__slurm_config_defaults"],
            cgroup_defaults=role_vars["__slurm_cgroup_defaults"], restart_keys=role_vars["__slurm_restart_keys"],
            accounting=True, configless=True))
        assert model["errors"] == [], series
        assert "GresTypes=gpu" in model["slurm_conf"]
        assert sorted(model["restart"]["settings"]) == sorted(
            key for key in role_vars["__slurm_restart_keys"] if model["settings"].get(key) is not None)
        # The confinement every cluster runs, the lab and the Molecule clusters included.
        for line in ("ProctrackType=proctrack/cgroup", "TaskPlugin=task/cgroup,task/affinity",
                     "PrologFlags=Alloc,Contain", "JobAcctGatherType=jobacct_gather/cgroup"):
            assert line in model["slurm_conf"], (series, line)
        constrain = ["ConstrainCores=yes", "ConstrainDevices=yes", "ConstrainRAMSpace=yes", "ConstrainSwapSpace=yes"]
        expected = {"22.05": ["CgroupPlugin=autodetect", "CgroupAutomount=yes"] + constrain,
                    "24.11": ["CgroupPlugin=autodetect"] + constrain}[series]
        assert sorted(model["cgroup_conf"]) == sorted(expected), series


@pytest.mark.parametrize("series, config, error", [
    # cgroup v2, what Debian 12 and 13 boot with: autodetect finds it; forcing it renders the same constraints.
    ("22.05", {"CgroupPlugin": "cgroup/v2"}, None),
    ("24.11", {"CgroupPlugin": "cgroup/v2", "EnableControllers": True}, None),
    # EnableControllers is new in 23.02: 22.05 does not know it.
    ("22.05", {"CgroupPlugin": "cgroup/v2", "EnableControllers": True}, "EnableControllers"),
    # CgroupAutomount (cgroup v1 only) was removed in 23.11.
    ("24.11", {"CgroupAutomount": True}, "CgroupAutomount"),
])
def test_cgroup_v2_path_per_series(series, config, error):
    with open(ROLE_VARS) as handle:
        role_vars = yaml.safe_load(handle)
    model = build_model(_inventory(1), _settings(
        series=series, config_defaults=role_vars["__slurm_config_defaults"],
        cgroup_defaults=role_vars["__slurm_cgroup_defaults"], cgroup_config=config))
    if error is None:
        assert model["errors"] == []
        assert "CgroupPlugin=cgroup/v2" in model["cgroup_conf"]
        assert "ConstrainDevices=yes" in model["cgroup_conf"]
    else:
        assert len(model["errors"]) == 1 and error in model["errors"][0], model["errors"]


def test_partition_lines():
    parts = [
        {"name": "gpu", "nodes": "ALL", "default": True, "options": {"MaxTime": "INFINITE", "State": "UP"}},
        {"name": "debug", "nodes": ["gpu03", "gpu01", "gpu02"], "default": "yes",
         "options": {"Hidden": True, "RootOnly": False, "AllowGroups": ["admins", "ops"], "MaxNodes": 2}},
        {"name": "one", "nodes": "gpu04", "default": False},
        {"name": "named", "nodes": ["gpu05"]},
    ]
    inventory = _inventory(5, gpu05={"slurm_node_name": "big05"})
    model = build_model(inventory, _settings(partitions=parts))
    assert model["errors"] == []
    assert _lines(model, "PartitionName=") == [
        "PartitionName=gpu Nodes=ALL Default=YES MaxTime=INFINITE State=UP",
        "PartitionName=debug Nodes=gpu[01-03] Default=YES Hidden=YES RootOnly=NO AllowGroups=admins,ops MaxNodes=2",
        "PartitionName=one Nodes=gpu04",
        "PartitionName=named Nodes=big05",
    ]
    assert model["slurm_conf"][-6:-4] == ["", "# Partitions"]


def test_no_partitions():
    model = build_model(_inventory(1), _settings(partitions=[]))
    assert model["slurm_conf"][-2:] == ["", "# Partitions"]


def test_nodes_without_any_description_are_named_and_left_out_never_an_error():
    inventory = _inventory(4)
    for host in ("gpu01", "gpu02", "gpu04"):
        inventory["hosts"][host]["facts"] = {}
    del inventory["hosts"]["gpu03"]
    model = build_model(inventory, _settings(compute_group="gpu_nodes"))
    assert model["errors"] == []
    assert ("No description of gpu[01-04]: not reached in this run, not in the running slurm.conf and no cached "
            "facts, so left out of slurm.conf until a run reaches it." in model["warnings"])
    assert model["node_count"] == 0 and _node_lines(model) == []
    assert model["node_sources"] == {"none": "gpu[01-04]"}


def _running(inventory, settings=None):
    """The slurm.conf and gres.conf a whole run of inventory writes (configless: gres.conf on the controller)."""
    model = build_model(inventory, settings or _settings(configless=True))
    assert model["errors"] == []
    return "\n".join(model["slurm_conf"]) + "\n", "\n".join(model["hosts"]["ctl"]["gres_conf"]) + "\n", model


def test_nodes_outside_the_run_are_described_by_the_running_slurm_conf_and_nothing_changes():
    # A whole run, then one limited to gpu02 (a --limit, the others down or in another slice): the nodes outside
    # it have no facts in hostvars, and the running slurm.conf describes them as the whole run wrote them.
    settings = _settings(configless=True)
    conf, gres, whole = _running(_inventory(4), settings)
    limited = _inventory(4)
    for host in ("gpu01", "gpu03", "gpu04"):
        limited["hosts"][host]["facts"] = {}
        limited["hosts"][host]["gpus"] = None
    limited.update(reached=["ctl", "gpu02"], targeted=["ctl", "gpu02"])
    model = build_model(limited, settings, conf, gres)
    assert model["errors"] == []
    assert model["slurm_conf"] == whole["slurm_conf"]
    assert model["hosts"]["ctl"]["gres_conf"] == whole["hosts"]["ctl"]["gres_conf"]
    assert model["restart"] == whole["restart"]
    assert model["node_sources"] == {"facts": "gpu02", "running": "gpu[01,03-04]"}
    assert model["node_source_notes"] == ["gpu[01,03-04]: the running slurm.conf (not reached in this run)"]


def test_the_running_description_wins_over_cached_facts_for_a_node_outside_the_run():
    conf, gres, whole = _running(_inventory(2))
    inventory = _inventory(2)
    inventory["hosts"]["gpu02"]["facts"]["memtotal_mb"] = 2 * SERVER["memtotal_mb"]   # a stale cache, say
    inventory.update(reached=["ctl", "gpu01"], targeted=["ctl", "gpu01"])
    model = build_model(inventory, _settings(configless=True), conf, gres)
    assert model["slurm_conf"] == whole["slurm_conf"] and model["node_sources"]["running"] == "gpu02"


def test_cached_facts_describe_a_node_outside_the_run_that_slurm_conf_lacks():
    conf, gres, _whole = _running(_inventory(2))
    inventory = _add(_inventory(2), "gpu03")
    inventory.update(reached=["ctl", "gpu01"], targeted=["ctl", "gpu01"])
    model = build_model(inventory, _settings(configless=True), conf, gres)
    assert model["node_sources"] == {"cached": "gpu03", "facts": "gpu01", "running": "gpu02"}
    assert _node_lines(model)[0].startswith("NodeName=gpu[01-03] ")


def test_inventory_settings_of_a_node_outside_the_run_still_apply():
    conf, gres, _whole = _running(_inventory(2))
    inventory = _inventory(2, gpu02={"slurm_node_features": ["big"], "slurm_node_weight": 5})
    inventory["hosts"]["gpu02"]["facts"] = {}
    inventory.update(reached=["ctl", "gpu01"], targeted=["ctl", "gpu01"])
    model = build_model(inventory, _settings(configless=True), conf, gres)
    assert [line for line in _node_lines(model) if "gpu02" in line][0].endswith(
        "Gres=gpu:tesla_v100s-pcie-32gb:8 Features=big Weight=5 State=UNKNOWN")


def test_a_node_the_inventory_no_longer_holds_is_kept_until_slurm_remove_nodes_names_it():
    # An AWX slice (or an inventory mistake): gpu02 is not in this inventory at all.
    conf, gres, whole = _running(_inventory(2))
    sliced = _inventory(1)
    model = build_model(sliced, _settings(configless=True), conf, gres)
    assert model["errors"] == [] and model["slurm_conf"] == whole["slurm_conf"]
    assert model["restart"] == whole["restart"]
    assert model["node_sources"]["kept"] == "gpu02"
    assert any("Kept in slurm.conf" in text and "gpu02" in text and "slurm_remove_nodes" in text
               for text in model["warnings"])
    # ... and the controller's gres.conf keeps its GPUs.
    assert model["hosts"]["ctl"]["gres_conf"] == whole["hosts"]["ctl"]["gres_conf"]
    removed = build_model(_inventory(1), _settings(configless=True, remove_nodes=["gpu02"]), conf, gres)
    assert removed["errors"] == [] and [line for line in _node_lines(removed) if "gpu02" in line] == []


def test_slurm_remove_nodes_refuses_a_node_still_in_the_inventory_and_names_an_unknown_one():
    conf, gres, _whole = _running(_inventory(2))
    model = build_model(_inventory(2), _settings(configless=True, remove_nodes=["gpu02", "gpu09"]), conf, gres)
    assert any("gpu02" in text and "still in the compute group" in text for text in model["errors"])
    assert any("gpu09" in text and "nothing to remove" in text for text in model["warnings"])
    bad = build_model(_inventory(1), _settings(remove_nodes="gpu02"), conf, gres)
    assert any(text.startswith("slurm_remove_nodes is") for text in bad["errors"])


@pytest.mark.parametrize("total, down, pct, stops", [
    (4, 1, 10, False),      # one node is always allowed
    (4, 2, 10, True),
    (4, 2, 50, False),
    (1000, 100, 10, False),
    (1000, 101, 10, True),
    (4, 1, 0, True),        # 0: none may be down
    (4, 4, 100, False),
])
def test_a_run_stops_only_when_more_nodes_are_down_than_slurm_nodes_down_max_pct_allows(total, down, pct, stops):
    inventory = _inventory(total)
    computes = inventory["computes"]
    for host in computes[:down]:
        inventory["hosts"][host]["facts"] = {}
    inventory.update(reached=["ctl"] + computes[down:], targeted=["ctl"] + computes)
    model = build_model(inventory, _settings(nodes_down_max_pct=pct))
    messages = [text for text in model["errors"] if "slurm_nodes_down_max_pct" in text]
    assert bool(messages) is stops
    if stops:
        assert "%d of the %d nodes" % (down, total) in messages[0]


@pytest.mark.parametrize("value", [-1, 101, "ten", True, 2.5, [10], "1000"])
def test_slurm_nodes_down_max_pct_refuses_what_is_not_a_percentage(value):
    model = build_model(_inventory(1), _settings(nodes_down_max_pct=value))
    assert any(text.startswith("slurm_nodes_down_max_pct is") for text in model["errors"])


@pytest.mark.parametrize("plugin, var", [("tree", "slurm_topology_switch"), ("block", "slurm_topology_block")])
def test_a_kept_node_keeps_its_place_in_the_running_topology(plugin, var):
    topology = {"plugin": plugin, "switch_parents": {}, "block_sizes": [], "ca_hosts": [], "ibnetdiscover": "",
                "allow_missing": False}
    settings = _settings(configless=True, topology=topology, series="24.11")
    place = "leaf1" if plugin == "tree" else "rack1"
    whole = build_model(_inventory(2, gpu01={var: place}, gpu02={var: place}), settings)
    assert whole["errors"] == [] and whole["topology_conf"]
    conf = "\n".join(whole["slurm_conf"])
    gres = "\n".join(whole["hosts"]["ctl"]["gres_conf"])
    sliced = _inventory(1, gpu01={var: place})
    model = build_model(sliced, settings, conf, gres, "\n".join(whole["topology_conf"]))
    assert model["errors"] == []
    assert model["topology_conf"] == whole["topology_conf"] and model["slurm_conf"] == whole["slurm_conf"]
    # Without the running topology.conf its place is unknown: named, and the play stops.
    lost = build_model(sliced, settings, conf, gres)
    assert any("gpu02" in text and "topology.conf" in text for text in lost["errors"])


@pytest.mark.parametrize("plugin, var, places", [
    ("block", "slurm_topology_block", ["rack1", "rack1", "rack2", "rack2"]),
    ("tree", "slurm_topology_switch", ["leaf1", "leaf1", "leaf2", "leaf2"]),
])
@pytest.mark.parametrize("held", [["gpu01", "gpu02"], ["gpu03", "gpu04"], ["gpu04"]])
def test_slices_give_the_files_of_one_whole_run(plugin, var, places, held):
    topology = {"plugin": plugin, "switch_parents": {"leaf1": "spine", "leaf2": "spine"}, "block_sizes": [],
                "ca_hosts": [], "ibnetdiscover": "", "allow_missing": False}
    settings = _settings(configless=True, topology=topology, series="24.11")
    node_vars = dict(("gpu%02d" % (number + 1), {var: place}) for number, place in enumerate(places))
    whole = build_model(_inventory(4, **node_vars), settings)
    sliced = _inventory(4, **node_vars)
    sliced["computes"] = held
    model = build_model(sliced, settings, "\n".join(whole["slurm_conf"]), "\n".join(whole["hosts"]["ctl"]["gres_conf"]),
                        "\n".join(whole["topology_conf"]))
    assert model["errors"] == []
    assert (model["slurm_conf"], model["topology_conf"], model["restart"]) == (
        whole["slurm_conf"], whole["topology_conf"], whole["restart"])
    assert model["hosts"]["ctl"]["gres_conf"] == whole["hosts"]["ctl"]["gres_conf"]


def test_bad_shapes_are_a_model_error_not_a_traceback():
    with pytest.raises(SlurmModelError, match="build_model takes the inventory and the settings as mappings"):
        build_model([], {})
    with pytest.raises(SlurmModelError):
        build_model({}, None)


def test_an_empty_inventory_gives_errors_and_a_model():
    model = build_model({}, _settings(partitions=[]))
    assert model["errors"] == [
        "No controller host: the inventory group slurm_controller (slurm_controller_group) is empty or missing. Add the "
        "host that runs slurmctld to it; an inventory that holds part of the cluster (an AWX job slice) names it in "
        "gpuops_slice_hosts instead."]
    assert model["node_count"] == 0 and model["hosts"] == {}


# --- GPUs are never lowered silently ----------------------------------------------------

FIX = ("Reboot the node or reload the NVIDIA driver (a driver updated without a reboot answers 'Driver/library version "
       "mismatch'), check `nvidia-smi` there, then run again; or set slurm_allow_gres_decrease: true to write the node "
       "with fewer GPUs on purpose.")


def _lost(**changes):
    """gpu_facts of the V100S node when nvidia-smi cannot talk to the driver (plugins/modules/gpu_facts.py _empty)."""
    gpus = {"status": "no_driver", "error": MISMATCH, "count": 0, "gres_conf": [], "slurm_gres": "", "gpus": [],
            "pci_gpus": [], "device_files": []}
    gpus.update(changes)
    return gpus


PCI_8 = ["0000:00:%02x.0" % slot for slot in range(0x0d, 0x15)]
DEV_8 = ["/dev/nvidia%d" % i for i in range(8)]


@pytest.mark.parametrize("gpus, running, expected", [
    pytest.param(_lost(pci_gpus=PCI_8, device_files=DEV_8), None,
                 "gpu02: nvidia-smi failed (%s) but the node has NVIDIA GPUs (PCI bus: 8, /dev/nvidiaN: 8); its Gres= "
                 "would be dropped from slurm.conf and gres.conf emptied. " % MISMATCH + FIX, id="driver-mismatch"),
    pytest.param(_lost(device_files=DEV_8), None,
                 "gpu02: nvidia-smi failed (%s) but the node has NVIDIA GPUs (PCI bus: 0, /dev/nvidiaN: 8); its Gres= "
                 "would be dropped from slurm.conf and gres.conf emptied. " % MISMATCH + FIX, id="device-files-only"),
    pytest.param(_lost(error=None, pci_gpus=PCI_8), None,
                 "gpu02: nvidia-smi failed (no_driver) but the node has NVIDIA GPUs (PCI bus: 8, /dev/nvidiaN: 0); its "
                 "Gres= would be dropped from slurm.conf and gres.conf emptied. " + FIX, id="no-error-text"),
    pytest.param(_lost(status="no_nvidia_smi", error=None, pci_gpus=PCI_8), None,
                 "gpu02: the PCI bus shows 8 NVIDIA GPUs but nvidia-smi reports 0 (no_nvidia_smi); slurm.conf would lose "
                 "8. " + FIX, id="no-nvidia-smi-on-a-gpu-node"),
    pytest.param(dict(GPUS, pci_gpus=PCI_8 + ["0000:00:15.0"]), None,
                 "gpu02: the PCI bus shows 9 NVIDIA GPUs but nvidia-smi reports 8 (ok); slurm.conf would lose 1. " + FIX,
                 id="pci-shows-more"),
    pytest.param(GPUS_4, "NodeName=gpu[01-02] CPUs=128 Gres=%s\n" % V100,
                 "gpu02: the running slurm.conf gives it 8 GPUs but nvidia-smi reports 4 (ok) (PCI bus: 0, "
                 "/dev/nvidiaN: 4); writing that would take GPUs out of service. " + FIX, id="running-conf-had-more"),
    pytest.param(_lost(), "NodeName=gpu[01-02] CPUs=128 Gres=%s\n" % V100,
                 "gpu02: the running slurm.conf gives it 8 GPUs but nvidia-smi failed (%s), which leaves 0 (PCI bus: 0, "
                 "/dev/nvidiaN: 0); writing that would take GPUs out of service. " % MISMATCH + FIX,
                 id="running-conf-and-nvidia-smi-failed"),
])
def test_gpu_loss_stops_with_the_fix(gpus, running, expected):
    inventory = _inventory(2)
    inventory["hosts"]["gpu02"]["gpus"] = gpus
    model = build_model(inventory, _settings(), running)
    assert model["errors"] == [expected]
    allowed = build_model(inventory, _settings(allow_gres_decrease=True), running)
    assert allowed["errors"] == []
    assert allowed["warnings"] == ["slurm_allow_gres_decrease is true, so this is written anyway: " + expected]


def test_the_message_names_the_inventory_host_and_its_slurm_name():
    inventory = _inventory(0)
    _add(inventory, "gpu07.example.org", hostname="gpu07", gpus=_lost(pci_gpus=PCI_8))
    error = build_model(inventory, _settings())["errors"][0]
    assert error.startswith("gpu07.example.org (gpu07): nvidia-smi failed (%s)" % MISMATCH)


def test_running_conf_with_more_gpus_stops_also_for_an_inventory_override():
    running = "NodeName=gpu[01-02] CPUs=128 Gres=gpu:a100:8\n"
    gres = [{"type": "a100", "count": 4, "file": "/dev/nvidia[0-3]"}]
    model = build_model(_inventory(2, gpu01={"slurm_node_gres": gres}), _settings(), running)
    assert model["errors"] == [
        "gpu01: the running slurm.conf gives it 8 GPUs but slurm_node_gres in the inventory gives 4 (PCI bus: 0, "
        "/dev/nvidiaN: 8); writing that would take GPUs out of service. " + FIX]


def test_an_inventory_override_is_trusted_over_a_failing_nvidia_smi():
    gres = [{"type": "v100s", "count": 8, "file": "/dev/nvidia[0-7]"}]
    inventory = _inventory(1, gpu01={"slurm_node_gres": gres})
    inventory["hosts"]["gpu01"]["gpus"] = _lost(pci_gpus=PCI_8, device_files=DEV_8)
    model = build_model(inventory, _settings(), "NodeName=gpu01 Gres=%s\n" % V100)
    assert model["errors"] == []
    assert "Gres=gpu:v100s:8 " in _node_lines(model)[0]


def test_allow_gres_decrease_writes_the_node_without_its_gpus():
    inventory = _inventory(1)
    inventory["hosts"]["gpu01"]["gpus"] = _lost(pci_gpus=PCI_8)
    model = build_model(inventory, _settings(allow_gres_decrease=True), "NodeName=gpu01 Gres=%s\n" % V100)
    assert model["errors"] == [] and len(model["warnings"]) == 1
    assert "Gres=" not in _node_lines(model)[0]
    assert model["hosts"]["gpu01"]["gres_conf"] == []


@pytest.mark.parametrize("running", [
    "NodeName=gpu01 Gres=gpu:4\n",                    # more GPUs than before
    "NodeName=gpu01 Gres=%s\n" % V100,                # as many
    "NodeName=cpu[01-04] CPUs=4\n",                   # gpu02 is brand new
    "NodeName=gpu[01-02] CPUs=128 Gres=shard:64\n",   # no GPU GRES before
    "NodeName=gpu[01-02] CPUs=128 Gres=%s\n" % V100,
    "",
    "this is not a slurm.conf",
])
def test_new_nodes_and_more_gpus_are_fine(running):
    assert build_model(_inventory(2), _settings(), running)["errors"] == []


def test_each_lost_node_is_one_message():
    inventory = _inventory(3)
    inventory["hosts"]["gpu01"]["gpus"] = _lost(pci_gpus=PCI_8)
    inventory["hosts"]["gpu03"]["gpus"] = GPUS_4
    model = build_model(inventory, _settings(), "NodeName=gpu[01-03] Gres=%s\n" % V100)
    assert [error.split(":")[0] for error in model["errors"]] == ["gpu03"]
    # gpu01's nvidia-smi failed while the running slurm.conf has its GPUs: drained and left out, no stop.
    assert [entry["host"] for entry in model["gpu_failed"]] == ["gpu01"]


def test_a_node_whose_nvidia_smi_failed_is_drained_and_left_out_keeping_its_gpus():
    conf, gres, whole = _running(_inventory(2))
    inventory = _inventory(2)
    inventory["hosts"]["gpu02"]["gpus"] = _lost(pci_gpus=PCI_8, device_files=DEV_8)
    model = build_model(inventory, _settings(configless=True), conf, gres)
    assert model["errors"] == []
    assert model["gpu_failed"] == [{"host": "gpu02", "name": "gpu02",
                                    "reason": "gpuops: nvidia-smi failed: %s" % MISMATCH}]
    assert model["gpu_failed_reason"] == "gpuops: nvidia-smi failed"
    assert model["slurm_conf"] == whole["slurm_conf"] and model["restart"] == whole["restart"]
    assert model["hosts"]["ctl"]["gres_conf"] == whole["hosts"]["ctl"]["gres_conf"]
    assert any(text.startswith("gpu02: nvidia-smi failed") and "drained" in text for text in model["warnings"])
    # The admin's choice still writes it with fewer GPUs, and nothing is drained.
    allowed = build_model(inventory, _settings(configless=True, allow_gres_decrease=True), conf, gres)
    assert allowed["gpu_failed"] == [] and allowed["errors"] == []
    assert [line for line in _node_lines(allowed) if "gpu02" in line and "Gres=" not in line]


# --- the restart decision ---------------------------------------------------------------

def test_restart_fingerprint_groups_nodes_by_what_only_a_restart_applies():
    inventory = _inventory(4, gpu02={"slurm_node_weight": 5}, gpu04={"slurm_node_real_memory": 500000})
    _add(inventory, "cpu01", facts=CONTAINER, gpus={})
    model = build_model(inventory, _settings(configless=True))
    assert model["restart"] == {
        "settings": {"SelectTypeParameters": "CR_Core_Memory", "SlurmctldHost": "ctl"},
        # gpu02's weight is applied by scontrol reconfigure: it shares gpu01's entry but not its NodeName line
        "nodes": ["gpu[01-03]:%s:978944:128" % V100, "gpu04:%s:500000:128" % V100, "cpu01::7168:2"],
        "configless": True,
    }
    assert len(_node_lines(model)) == 4


def test_restart_fingerprint_leaves_out_unset_keys_and_keeps_nodes_with_an_address_alone():
    nodes = [{"name": "a1", "gres_value": "gpu:2", "real_memory": 10, "cpus": 4, "addr": ""},
             {"name": "a2", "gres_value": "gpu:2", "real_memory": 10, "cpus": 4, "addr": "10.0.0.2"},
             {"name": "a3", "gres_value": "gpu:2", "real_memory": 10, "cpus": 4, "addr": ""}]
    assert restart_fingerprint({"A": 1, "B": None, "C": (1, 2), "D": "x"}, nodes, 0, ["A", "B", "C"]) == {
        "settings": {"A": 1, "C": [1, 2]}, "nodes": ["a[1,3]:gpu:2:10:4", "a2:gpu:2:10:4"], "configless": False}


def test_group_nodes():
    nodes = [{"name": "n%d" % i, "kind": i % 2, "addr": ""} for i in range(1, 7)]
    nodes[4]["addr"] = "10.0.0.5"
    assert [(names, node["name"]) for names, node in group_nodes(nodes, lambda n: n["kind"])] == [
        ("n[1,3]", "n1"), ("n[2,4,6]", "n2"), ("n5", "n5")]
    assert group_nodes([], lambda n: 0) == []


NEW = build_model(_inventory(4), _settings())["restart"]
NODE = "%s:978944:128" % V100


@pytest.mark.parametrize("old, expected", [
    pytest.param(NEW, [], id="identical"),
    pytest.param(json.loads(json.dumps(NEW)), [], id="identical-through-json"),
    pytest.param(dict(NEW, nodes=["gpu%02d:%s" % (i, NODE) for i in range(1, 5)]), [], id="old-ungrouped-list"),
    pytest.param(dict(NEW, nodes=["gpu[01-02]:" + NODE, "gpu[03-04]:" + NODE]), [], id="grouped-differently"),
    pytest.param(dict(NEW, settings=dict(NEW["settings"], SelectTypeParameters="CR_Core")),
                 ["SelectTypeParameters CR_Core -> CR_Core_Memory"], id="changed-key"),
    pytest.param(dict(NEW, settings={"SlurmctldHost": "ctl"}), ["SelectTypeParameters (unset) -> CR_Core_Memory"],
                 id="key-set"),
    pytest.param(dict(NEW, settings=dict(NEW["settings"], SelectType="select/linear")), [],
                 id="a-key-that-is-no-restart-key"),
    pytest.param(dict(NEW, nodes=["gpu[01-03]:" + NODE, "gpu04:gpu:tesla_v100s-pcie-32gb:4:978944:128"]),
                 ["node definitions (gres:memory:cpus): gpu04 gpu:tesla_v100s-pcie-32gb:4:978944:128 -> " + NODE],
                 id="changed-node"),
    pytest.param(dict(NEW, nodes=["gpu[01-02]:" + NODE]),
                 ["node definitions (gres:memory:cpus): added gpu[03-04]"], id="added-nodes"),
    pytest.param(dict(NEW, nodes=["gpu[01-06]:" + NODE, "cpu1:gpu:1:10:2"]),
                 ["node definitions (gres:memory:cpus): removed cpu1,gpu[05-06]"], id="removed-nodes"),
    pytest.param(dict(NEW, configless=True), ["configless mode True -> False"], id="configless-flip"),
    pytest.param(dict(NEW, configless=True, settings={}, nodes=[]),
                 ["SelectTypeParameters (unset) -> CR_Core_Memory", "SlurmctldHost (unset) -> ctl",
                  "node definitions (gres:memory:cpus): added gpu[01-04]", "configless mode True -> False"],
                 id="everything"),
    pytest.param("garbage", ["no record of the settings the daemons run with"], id="not-a-mapping"),
    pytest.param(None, ["no record of the settings the daemons run with"], id="none"),
    pytest.param([NEW], ["no record of the settings the daemons run with"], id="a-list"),
    pytest.param({"settings": "x", "nodes": 5, "configless": "yes"},
                 ["SelectTypeParameters (unset) -> CR_Core_Memory", "SlurmctldHost (unset) -> ctl",
                  "node definitions (gres:memory:cpus): added gpu[01-04]", "configless mode True -> False"],
                 id="a-mapping-of-junk"),
])
def test_restart_changes(old, expected):
    assert restart_changes(old, NEW, KEYS) == expected


def test_restart_changes_of_more_than_eight_nodes_are_counted():
    old = {"settings": {}, "nodes": ["n%02d:gpu:8:1:1" % i for i in range(1, 11)], "configless": False}
    new = {"settings": {}, "nodes": ["n[01-10]:gpu:4:1:1"], "configless": False}
    changes = restart_changes(old, new, [])
    assert len(changes) == 1
    assert changes[0] == ("node definitions (gres:memory:cpus): " + "; ".join(
        "n%02d gpu:8:1:1 -> gpu:4:1:1" % i for i in range(1, 9)) + "; and 2 more changed")


# --- files and logs -------------------------------------------------------------------------

PATHS = {"config_dir": "/etc/slurm", "log_dir": "/var/log/slurm", "state_dir": "/var/lib/slurm/slurmctld",
         "spool_dir": "/var/lib/slurm/slurmd", "slurmd_env_file": "/etc/default/slurmd",
         "configless_dropin": "/etc/systemd/system/slurmd.service.d/gpuops-configless.conf",
         "task_prolog": "/etc/slurm/task_prolog"}
CONTENTS = {"slurm.conf": "S", "cgroup.conf": "C", "gres.conf": "G", "slurmd_env": "E", "dropin": "D", "task_prolog": "P"}


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


def test_compute_nodes_keep_the_four_node_scripts_and_their_directories():
    model = build_model(_inventory(1), _settings())
    paths = dict(PATHS, prolog="/etc/slurm/prolog", epilog="/etc/slurm/epilog", health_check="/etc/slurm/healthcheck")
    contents = dict(CONTENTS, prolog="PR", epilog="EP", health_check="HC")
    node = host_files(model["hosts"]["gpu01"], paths, contents)
    scripts = [(entry["path"], entry.get("content", entry.get("state")), entry["mode"]) for entry in node["slurmd"][2:10]]
    assert scripts == [
        ("/etc/slurm/task_prolog", "P", "0755"), ("/etc/slurm/task_prolog.d", "directory", "0755"),
        ("/etc/slurm/prolog", "PR", "0755"), ("/etc/slurm/prolog.d", "directory", "0755"),
        ("/etc/slurm/epilog", "EP", "0755"), ("/etc/slurm/epilog.d", "directory", "0755"),
        ("/etc/slurm/healthcheck", "HC", "0755"), ("/etc/slurm/healthcheck.d", "directory", "0755")]
    assert host_files(model["hosts"]["ctl"], paths, contents)["slurmd"] == []


def test_host_files_in_configless_mode():
    model = build_model(_inventory(1, dbd="db"), _settings(configless=True, accounting=True))
    node = host_files(model["hosts"]["gpu01"], PATHS, CONTENTS, configless=True)
    assert [entry["path"] for entry in node["config"]] == ["/etc/slurm", "/var/log/slurm", "/var/lib/slurm/slurmd"]
    assert [entry.get("content", entry.get("state")) for entry in node["slurmd"]] == [
        "E", "P", "directory", "directory", "D"]
    assert node["slurmd"][1]["mode"] == "0755" and node["slurmd"][2]["path"] == "/etc/slurm/task_prolog.d"
    ctl = host_files(model["hosts"]["ctl"], PATHS, CONTENTS, configless=True)
    assert [entry["path"] for entry in ctl["slurmd"]] == ["/etc/slurm/gres.conf"]
    dbd = host_files(model["hosts"]["db"], PATHS, CONTENTS, configless=True)
    assert [entry["path"] for entry in dbd["config"]] == [
        "/etc/slurm", "/var/log/slurm", "/etc/slurm/slurm.conf", "/etc/slurm/cgroup.conf"]
    assert dbd["slurmd"] == []


SLURMCTLD_LOG = [
    "[2026-11-24T00:57:39.001] slurmctld version 22.05.8 started on cluster lab",
    "[2026-11-24T00:57:40.102] error: old problem",
    "[2026-11-24T00:57:40.103] debug:  no errors here",
    "[2026-11-24T00:57:41.204] error: Bad SelectTypeParameter: CR_Bogus",
    "[2026-11-24T00:57:41.205] error: Bad SelectTypeParameter: CR_Bogus",
    "error: Bad SelectTypeParameter: CR_Bogus",
    "[2026-11-24T00:57:41.206] fatal: Unable to process configuration file",
    "slurmctld.service: Main process exited, code=exited, status=1/FAILURE",
]


@pytest.mark.parametrize("lines, kwargs, expected", [
    (SLURMCTLD_LOG, {}, ["error: old problem", "error: Bad SelectTypeParameter: CR_Bogus",
                         "fatal: Unable to process configuration file"]),
    (SLURMCTLD_LOG, {"limit": 2}, ["error: Bad SelectTypeParameter: CR_Bogus", "fatal: Unable to process configuration file"]),
    (SLURMCTLD_LOG, {"limit": 1}, ["fatal: Unable to process configuration file"]),
    (SLURMCTLD_LOG, {"limit": 0}, []),
    (SLURMCTLD_LOG, {"width": 12}, ["error: old p", "error: Bad S", "fatal: Unabl"]),
    (["x" * 500 + " error"], {"width": 10}, ["x" * 10]),
    (["slurmd[812]: ERROR: Unable to read GRES config"], {}, ["slurmd[812]: ERROR: Unable to read GRES config"]),
    (["  [ts]   fatal: no   "], {}, ["fatal: no"]),
    (["errors: 0", "terror", "info: ok"], {}, []),
    ([], {}, []),
    (None, {}, []),
])
def test_log_errors(lines, kwargs, expected):
    assert log_errors(lines, **kwargs) == expected


def test_log_errors_reads_only_the_last_2000_lines():
    assert log_errors(["error: early"] + ["info"] * 2000) == []
    assert log_errors(["error: early"] + ["info"] * 1999) == ["error: early"]


# --- properties ---------------------------------------------------------------------------

TEXT_WITH_NEWLINES = st.text(alphabet=st.sampled_from(list("gpu01 _-.#:=[]\n\t,") + ["\x00", "\u2028"]), max_size=20)
SCALAR = st.one_of(st.none(), st.booleans(), st.integers(min_value=-10 ** 30, max_value=10 ** 30), st.text(max_size=20),
                   TEXT_WITH_NEWLINES, st.just("9" * 5000))
JUNK = st.recursive(
    SCALAR, lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)),
    max_leaves=6)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(host_vars=st.dictionaries(st.sampled_from(NODE_VARS), JUNK, max_size=3),
       changes=st.dictionaries(st.sampled_from(SETTING_KEYS), JUNK, max_size=3),
       running=st.one_of(st.none(), TEXT_WITH_NEWLINES))
def test_junk_in_host_vars_or_settings_gives_errors_not_exceptions(host_vars, changes, running):
    inventory = _inventory(2, gpu01=host_vars)
    settings_ = _settings(accounting=True)
    settings_.update(changes)
    model = build_model(inventory, settings_, running)
    assert isinstance(model["errors"], list) and all(isinstance(error, str) for error in model["errors"])
    assert all(isinstance(line, str) and "\n" not in line for line in model["slurm_conf"] + model["cgroup_conf"]) or \
        model["errors"]
    assert isinstance(check_inventory(inventory, settings_), list)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(partitions=JUNK, accounts=JUNK)
def test_junk_partitions_and_accounts_give_errors_not_exceptions(partitions, accounts):
    model = build_model(_inventory(2), _settings(partitions=partitions, accounting=True, dbd_accounts=accounts))
    assert isinstance(model["errors"], list)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(parts=st.lists(st.fixed_dictionaries({"name": st.sampled_from(["gpu", "debug", "a b", ""])}, optional={
    "nodes": st.one_of(st.just("ALL"), st.lists(st.one_of(st.sampled_from(["gpu01", "gpu02", "gpu09"]), JUNK), max_size=3)),
    "default": JUNK, "options": st.dictionaries(st.sampled_from(["MaxTime", "Hidden", "maxtime", "X"]), JUNK, max_size=2),
}), max_size=3))
def test_partition_shaped_junk_gives_errors_not_exceptions(parts):
    model = build_model(_inventory(2), _settings(partitions=parts))
    assert isinstance(model["errors"], list)


NODE_NAME = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_-]{0,12}", fullmatch=True)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(names=st.lists(NODE_NAME, min_size=1, max_size=40, unique=True))
def test_identical_nodes_always_give_one_line_whose_hostlist_expands_back(names):
    inventory = _inventory(0)
    for name in names:
        _add(inventory, name)
    model = build_model(inventory, _settings())
    assert model["errors"] == []
    lines = _node_lines(model)
    assert len(lines) == 1
    assert lines[0].endswith(" " + SERVER_LINE)
    assert sorted(expand(lines[0].split()[0][len("NodeName="):])) == sorted(names)
    assert len(expand(lines[0].split()[0][len("NodeName="):])) == len(names)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(numbers=st.sets(st.integers(min_value=0, max_value=5000), min_size=1, max_size=60),
       fqdn=st.booleans(), width=st.integers(min_value=1, max_value=5))
def test_numbered_nodes_give_one_line_with_the_names_slurm_knows(numbers, fqdn, width):
    inventory = _inventory(0)
    names = ["gpu%0*d" % (width, number) for number in sorted(numbers)]
    for name in names:
        host = name + ".example.org" if fqdn else name
        _add(inventory, host, hostname=name if fqdn else None)
        inventory["hosts"][host]["facts"].pop("hostname") if fqdn else None
    model = build_model(inventory, _settings())
    lines = _node_lines(model)
    assert model["errors"] == [] and len(lines) == 1
    assert expand(lines[0].split()[0][len("NodeName="):]) == names


SETTING_VALUE = st.one_of(st.none(), st.booleans(), st.integers(min_value=-10 ** 6, max_value=10 ** 6),
                          st.text(max_size=20), st.lists(st.text(max_size=5), max_size=3))
FINGERPRINT_NODE = st.builds(
    lambda names, gres, memory, cpus: "%s:%s:%d:%d" % (names, gres, memory, cpus),
    st.one_of(NODE_NAME, st.builds(lambda low, high: "n[%d-%d]" % (low, low + high), st.integers(0, 50),
                                   st.integers(0, 50))),
    st.sampled_from(["", V100, "gpu:a100:4,gpu:t4:2", "gpu:2(S:0-1)"]), st.integers(0, 10 ** 7), st.integers(1, 512))
FINGERPRINT = st.fixed_dictionaries({
    "settings": st.dictionaries(st.sampled_from(["SelectTypeParameters", "SlurmctldHost", "AuthType", "Other"]),
                                SETTING_VALUE, max_size=4),
    "nodes": st.lists(FINGERPRINT_NODE, max_size=6),
    "configless": st.booleans(),
})


@settings(max_examples=60, deadline=None)
@given(fingerprint=FINGERPRINT, keys=st.lists(st.sampled_from(["SelectTypeParameters", "SlurmctldHost", "AuthType"])))
def test_a_fingerprint_has_no_changes_against_itself(fingerprint, keys):
    assert restart_changes(fingerprint, fingerprint, keys) == []
    assert restart_changes(json.loads(json.dumps(fingerprint)), fingerprint, keys) == []
    assert restart_changes(copy.deepcopy(fingerprint), fingerprint, keys) == []


@settings(max_examples=60, deadline=None)
@given(old=st.one_of(FINGERPRINT, JUNK), new=FINGERPRINT,
       keys=st.lists(st.sampled_from(["SelectTypeParameters", "SlurmctldHost", "AuthType"])))
def test_restart_changes_never_raise(old, new, keys):
    changes = restart_changes(old, new, keys)
    assert isinstance(changes, list) and all(isinstance(change, str) for change in changes)


GRES_ENTRY = st.builds(
    lambda gtype, count, first: {"type": gtype, "count": count,
                                 "file": "/dev/nvidia%d" % first if count == 1
                                 else "/dev/nvidia[%d-%d]" % (first, first + count - 1)},
    st.one_of(st.none(), st.from_regex(r"[a-z][a-z0-9_.-]{0,10}", fullmatch=True)), st.integers(1, 16),
    st.integers(0, 8))
NODE_GRES = st.one_of(st.none(), st.lists(GRES_ENTRY, min_size=0, max_size=3),
                      st.sampled_from(["facts", "facts4", "none"]))


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(gres=st.lists(NODE_GRES, min_size=1, max_size=12), configless=st.booleans())
def test_parse_node_gres_reads_back_the_gpu_counts_of_a_rendered_slurm_conf(gres, configless):
    inventory = _inventory(0)
    expected = {}
    for number, node_gres in enumerate(gres, 1):
        host = "gpu%02d" % number
        if isinstance(node_gres, list):
            _add(inventory, host, slurm_node_gres=node_gres)
            expected[host] = sum(entry["count"] for entry in node_gres)
        elif node_gres == "facts4":
            _add(inventory, host, gpus=GPUS_4)
            expected[host] = 4
        elif node_gres == "none":
            _add(inventory, host, gpus={})
            expected[host] = 0
        else:
            _add(inventory, host)
            expected[host] = 8
    model = build_model(inventory, _settings(configless=configless))
    assert model["errors"] == []
    text = "\n".join(model["slurm_conf"]) + "\n"
    assert parse_node_gres(text) == expected
    # and a model built against its own output loses nothing
    assert build_model(inventory, _settings(configless=configless), text)["errors"] == []


@pytest.mark.parametrize("recorded, active, stale, expected", [
    pytest.param(None, True, True, ["first start"], id="running-without-a-record"),
    pytest.param(None, False, True, [], id="fresh-host-starts-on-the-new-files"),
    pytest.param(json.dumps(NEW), True, False, [], id="record-up-to-date"),
    pytest.param(json.dumps(dict(NEW, configless=True)), True, True, ["configless mode True -> False"], id="changed"),
    pytest.param(json.dumps(dict(NEW, configless=True)), False, True, [], id="changed-but-not-running"),
    pytest.param("{not json", True, True, ["no record of the settings the daemons run with"], id="unreadable"),
])
def test_restart_plan(recorded, active, stale, expected):
    assert restart_plan(recorded, NEW, KEYS, active, stale) == expected


# One node's memory lowered (gpu02), as a record and a new fingerprint of a 4-node cluster.
_MEM_NEW = dict(NEW, nodes=["gpu01:" + NODE, "gpu02:%s:950000:128" % V100, "gpu[03-04]:" + NODE])
_CTL = {"name": "ctl", "controller": True, "compute": False}


def _node(name):
    return {"name": name, "controller": False, "compute": True}


@pytest.mark.parametrize("host, series, expected", [
    pytest.param(_node("gpu02"), "24.11", ["node definition of gpu02 (gres:memory:cpus) %s:978944:128 -> %s:950000:128"
                                           % (V100, V100)], id="the-changed-node-restarts-its-slurmd"),
    pytest.param(_node("gpu01"), "24.11", [], id="another-node-is-reconfigured"),
    pytest.param(_CTL, "26.05", [], id="slurmctld-is-reconfigured-since-23.11"),
    pytest.param(_CTL, "23.02", "all", id="slurmctld-restarts-before-23.11"),
    pytest.param(_node("gpu01"), "22.05", "all", id="every-slurmd-restarts-before-23.11"),
    pytest.param(_node("gpu01"), None, "all", id="an-unknown-release-counts-as-before"),
    pytest.param(_node("gpu01"), "not a release", "all", id="garbage-release-counts-as-before"),
    pytest.param(None, "24.11", "all", id="no-host-is-the-whole-cluster"),
])
def test_a_node_definition_restarts_only_that_node_since_23_11(host, series, expected):
    everything = restart_plan(json.dumps(NEW), _MEM_NEW, KEYS, True, True)
    assert everything and "gpu02" in everything[0]
    plan = restart_plan(json.dumps(NEW), _MEM_NEW, KEYS, True, True, host, series)
    assert plan == (everything if expected == "all" else expected)


@pytest.mark.parametrize("host", [_node("gpu01"), _node("gpu02"), _CTL])
def test_a_restart_key_or_configless_restarts_every_host_on_every_release(host):
    old = dict(NEW, configless=not NEW["configless"])
    for series in ("22.05", "24.11", "26.05"):
        assert restart_plan(json.dumps(old), NEW, KEYS, True, True, host, series) == [
            "configless mode %s -> %s" % (old["configless"], NEW["configless"])]
    key = sorted(NEW["settings"])[0]
    old = dict(NEW, settings=dict(NEW["settings"], **{key: "something/else"}))
    assert restart_plan(json.dumps(old), _MEM_NEW, KEYS, True, True, host, "26.05")[0].startswith(key + " something/else")


def test_a_node_added_on_23_11_restarts_nothing_running():
    grown = dict(NEW, nodes=NEW["nodes"] + ["gpu05:" + NODE])
    assert restart_plan(json.dumps(NEW), grown, KEYS, True, True, _CTL, "24.11") == []
    assert restart_plan(json.dumps(NEW), grown, KEYS, True, True, _node("gpu01"), "24.11") == []
    assert "added gpu05" in restart_plan(json.dumps(NEW), grown, KEYS, True, True, _CTL, "23.02")[0]


@pytest.mark.parametrize("value, ok", [
    (16, True), (1, True), ("8", True), (10000, True), (None, True),
    (0, False), (-1, False), (10001, False), (True, False), (2.5, False), ("all", False), ([4], False), ("99999", False),
])
def test_slurm_restart_batch_is_a_count(value, ok):
    assert (restart_batch_errors(value) == []) is ok
    model = build_model(_inventory(1), _settings(restart_batch=value))
    assert any(text.startswith("slurm_restart_batch is") for text in model["errors"]) is not ok


@pytest.mark.parametrize("bundle, probe", [
    (None, None),
    ("garbage", ["not", "a", "probe"]),
    ({"munge": None, "config": None, "slurmd": ["a string, not an entry"]}, {"packages": None, "services": None}),
    ({"slurmd": [{"path": "/etc/slurm/gres.conf"}]}, {"services": {"slurmd": "running"}}),
])
def test_bundle_handlers_on_malformed_input(bundle, probe):
    # Nothing to notify rather than a traceback: the bundle task itself
    # fails on malformed entries, with the module's message.
    assert bundle_handlers(bundle, {"compute": True}, probe, True) == []


def test_bundle_handlers_fresh_controller_with_configless_dropin():
    bundle = {"munge": [{"path": "/etc/munge/munge.key"}], "config": [{"path": "/etc/slurm/slurm.conf"}],
              "slurmd": [{"path": "/etc/systemd/system/slurmd.service.d/gpuops.conf"}]}
    probe = {"packages": {}, "services": {}}
    assert bundle_handlers(bundle, {"controller": True, "compute": False}, probe, False) == ["daemon reload"]


# --- topology (module_utils/fabric/_topology.py through the model) ------------------------

TOPOLOGY = {"plugin": "auto", "switch_parents": {}, "block_sizes": [], "ca_hosts": {}, "ibnetdiscover": "",
            "allow_missing": False}


def _topology_model(count=4, series="24.11", topology=None, **node_vars):
    settings_ = _settings(series=series, topology=dict(TOPOLOGY, **(topology or {})))
    return build_model(_inventory(count, **node_vars), settings_)


def _switches(**leaves):
    """node vars putting gpu01.. on the named leaves: _switches(leaf1=[1, 2], leaf2=[3, 4])."""
    return dict(("gpu%02d" % number, {"slurm_topology_switch": leaf}) for leaf, numbers in leaves.items()
                for number in numbers)


def test_no_topology_data_writes_no_topology():
    model = _topology_model()
    assert model["errors"] == []
    assert model["topology_conf"] == [] and not _lines(model, "TopologyPlugin=")
    assert model["topology"]["plugin"] == "topology/default" and not model["topology"]["written"]
    assert model["topology"]["reason"].startswith("topology/default: no switch tree is known.")
    # No topology settings at all (an older caller): nothing either.
    assert build_model(_inventory(2), _settings())["topology"]["plugin"] is None


def test_the_inventory_tree_gives_topology_tree():
    node_vars = _switches(leaf1=[1, 2], leaf2=[3, 4])
    model = _topology_model(topology={"switch_parents": {"leaf1": "spine", "leaf2": "spine"}}, **node_vars)
    assert model["errors"] == []
    assert _lines(model, "TopologyPlugin=") == ["TopologyPlugin=topology/tree"]
    assert model["topology_conf"] == ["SwitchName=leaf1 Nodes=gpu[01-02]", "SwitchName=leaf2 Nodes=gpu[03-04]",
                                      "SwitchName=spine Switches=leaf[1-2]"]
    assert model["topology"] == {"plugin": "topology/tree", "written": True, "missing": [], "notes": [],
                                 "reason": "topology/tree: the switch tree is known."}


def test_a_node_left_out_of_the_topology_stops_the_play_naming_it():
    node_vars = _switches(leaf1=[1, 2], leaf2=[3])
    model = _topology_model(**node_vars)
    assert model["errors"] == [
        "topology.conf (topology/tree) would leave out 1 node(s): gpu04 (not in slurm_topology_switch (no leaf switch "
        "or rack given for it)). Slurm places no job that spans switches or blocks on a node outside the topology. "
        "Give each node its leaf switch or rack (slurm_topology_switch) or block (slurm_topology_block), mend the "
        "fabric discovery, or set slurm_topology_allow_missing: true to leave them out on purpose."]
    allowed = _topology_model(topology={"allow_missing": True}, **node_vars)
    assert allowed["errors"] == []
    assert allowed["topology"]["missing"] == ["gpu04"]
    assert [w for w in allowed["warnings"] if "topology" in w] == [
        "slurm_topology_allow_missing is true, so 1 node(s) are left out of topology.conf, where Slurm places no job "
        "that needs the topology: gpu04 (not in slurm_topology_switch (no leaf switch or rack given for it))"]
    assert allowed["topology_conf"] == ["SwitchName=leaf1 Nodes=gpu[01-02]", "SwitchName=leaf2 Nodes=gpu03"]


def test_inventory_blocks_give_topology_block_where_the_release_has_it():
    node_vars = dict(("gpu%02d" % n, {"slurm_topology_block": "rack%d" % ((n + 1) // 2)}) for n in range(1, 5))
    model = _topology_model(**node_vars)
    assert model["errors"] == []
    assert _lines(model, "TopologyPlugin=") == ["TopologyPlugin=topology/block"]
    assert model["topology_conf"] == ["BlockName=rack1 Nodes=gpu[01-02]", "BlockName=rack2 Nodes=gpu[03-04]"]
    # 22.05 has no topology/block: asked for, it is refused with the release; auto writes nothing.
    old = _topology_model(series="22.05", topology={"plugin": "block"}, **node_vars)
    assert old["errors"] == ["Topology (slurm_topology): topology/block was requested, but Slurm 22.05 does not have "
                             "it (23.11 and later do); request tree, flat or auto."]
    assert _topology_model(series="22.05", **node_vars)["topology"]["written"] is False


def test_nvlink_domains_from_the_gpu_facts_give_the_blocks():
    inventory = _inventory(4)
    for number, host in enumerate(inventory["computes"]):
        fabric = {"state": "Completed", "status": "Success", "clique_id": "1",
                  "cluster_uuid": "uuid-%d" % (number // 2)}
        inventory["hosts"][host]["gpu_fabric"] = [fabric, fabric]
    model = build_model(inventory, _settings(series="24.11", topology=dict(TOPOLOGY)))
    assert model["errors"] == []
    assert model["topology_conf"] == ["BlockName=b1 Nodes=gpu[01-02]", "BlockName=b2 Nodes=gpu[03-04]"]


def test_topology_errors_name_the_variables():
    node_vars = _switches(leaf1=[1, 2, 3, 4])
    model = _topology_model(topology={"switch_parents": {"leaf1": "bad name"}}, **node_vars)
    assert len(model["errors"]) == 1 and "slurm_topology_switch_parents" in model["errors"][0]
    assert "switch_parents[" not in model["errors"][0].replace("slurm_topology_switch_parents", "")
    bad_plugin = _topology_model(topology={"plugin": "dragonfly"}, **node_vars)
    assert bad_plugin["errors"] == ["Topology (slurm_topology): topology plugin 'dragonfly' is not one this "
                                    "collection writes; use auto, tree, block or flat."]
    assert _topology_model(topology={"tree": 1})["errors"] == [
        'The topology settings have unknown key(s) "tree"; known: allow_missing, block_sizes, ca_hosts, '
        'ibnetdiscover, plugin, switch_parents.']
    clash = build_model(_inventory(4, **node_vars),
                        _settings(series="24.11", topology=dict(TOPOLOGY), config={"TopologyPlugin": "topology/block"}))
    assert [e for e in clash["errors"] if "TopologyPlugin" in e][0].startswith(
        'slurm_config sets TopologyPlugin="topology/block", but the collection writes topology.conf for topology/tree')


def test_topology_conf_is_written_with_slurm_conf_and_rolls_back_with_it():
    paths = {"config_dir": "/etc/slurm", "log_dir": "/var/log/slurm", "state_dir": "/s", "spool_dir": "/d",
             "slurmd_env_file": "/etc/default/slurmd", "configless_dropin": "/etc/systemd/system/slurmd.service.d/x.conf"}
    contents = {"slurm.conf": "a", "cgroup.conf": "b", "gres.conf": "c", "slurmd_env": "d", "dropin": "e",
                "topology.conf": "SwitchName=leaf1 Nodes=gpu01\n"}
    files = host_files({"controller": True, "holds_config": True}, paths, contents)
    topo = [entry for entry in files["config"] if entry.get("path") == "/etc/slurm/topology.conf"]
    assert topo == [{"path": "/etc/slurm/topology.conf", "owner": "root", "group": "root", "mode": "0644",
                     "content": "SwitchName=leaf1 Nodes=gpu01\n", "keep_previous": True}]
    contents["topology.conf"] = ""
    files = host_files({"controller": True, "holds_config": True}, paths, contents)
    assert not [entry for entry in files["config"] if "topology" in entry.get("path", "")]


# --- the message when a daemon rejects a configuration ------------------------------

@pytest.mark.parametrize("result, files, expected", [
    ({"rc": 1, "stderr": "slurm_reconfigure error: Invalid\n  argument", "stdout": ""}, ["/etc/slurm/slurm.conf"],
     "scontrol reconfigure failed on ctl (rc 1): slurm_reconfigure error: Invalid argument. slurm_allow_restart is "
     "false, so slurmctld was not restarted and keeps running on its previous configuration; the previous slurm.conf "
     "was put back on every host that got the new one. Fix the setting and run again, or run with -e "
     "slurm_allow_restart=true to let slurmctld restart on it."),
    ({"rc": 1}, [], "there was no previous configuration to put back."),
    ({"stdout": "x" * 1000}, [], "(rc ?): " + "x" * 397 + "..."),
    ("garbage", None, "(rc ?): no output."),
])
def test_rejected_reason_for_a_reconfigure_that_failed_without_restarts(result, files, expected):
    assert expected in rejected_reason("reconfigure", "ctl", [], files, "/var/log/slurm", node_state=result)


def test_rejected_reason_slurmctld_quotes_the_log_and_says_what_was_put_back():
    log = ["[2026-11-24T00:57:41.204] error: Bad SelectTypeParameter: CR_Bogus",
           "[2026-11-24T00:57:41.205] fatal: Unable to process configuration file"]
    assert rejected_reason("slurmctld", "ctl", log, ["/etc/slurm/slurm.conf", "/etc/slurm/cgroup.conf"],
                           "/var/log/slurm", answered=True) == (
        "slurmctld on ctl did not come back on the new configuration: error: Bad SelectTypeParameter: CR_Bogus / "
        "fatal: Unable to process configuration file. The previous version of slurm.conf, cgroup.conf was put back "
        "on every host where it had been replaced, and slurmctld runs on it again. Fix the setting (slurm_config, "
        "slurm_cgroup_config, slurm_partitions or the node definitions) and run again.")
    assert rejected_reason("slurmctld", "ctl", [], ["/etc/slurm/slurm.conf"], "/var/log/slurm").endswith(
        "and slurmctld still does not answer: look at its log. Fix the setting (slurm_config, slurm_cgroup_config, "
        "slurm_partitions or the node definitions) and run again.")
    assert rejected_reason("slurmctld", "ctl", [], [], "/var/log/slurm") == (
        "slurmctld on ctl did not come back on the new configuration: see /var/log/slurm/slurmctld.log. There was "
        "no previous configuration to go back to. Fix the setting (slurm_config, slurm_cgroup_config, "
        "slurm_partitions or the node definitions) and run again.")


def test_rejected_reason_slurmd_falls_back_to_what_scontrol_said():
    state = {"rc": 0, "stdout": "NodeName=gpu01 State=DOWN+NOT_RESPONDING \n", "stderr": ""}
    assert rejected_reason("slurmd", "gpu01.example.org", ["slurmd started"], [], "/var/log/slurm", node="gpu01",
                           node_state=state) == (
        "slurmd on gpu01.example.org (gpu01) did not come back on the new configuration: NodeName=gpu01 "
        "State=DOWN+NOT_RESPONDING. Fix the node's definition (slurm_node_gres, slurm_node_real_memory, its GPUs) "
        "or the setting and run again.")
    assert rejected_reason("slurmd", "gpu01", [], ["/etc/slurm/gres.conf"], "/var/log/slurm", node="gpu01") == (
        "slurmd on gpu01 (gpu01) did not come back on the new configuration: see /var/log/slurm/slurmd.log. The "
        "previous version of gres.conf was put back and slurmd restarted on it. Fix the node's definition "
        "(slurm_node_gres, slurm_node_real_memory, its GPUs) or the setting and run again.")
    with pytest.raises(SlurmModelError, match="slurmctld, slurmd or reconfigure"):
        rejected_reason("slurmdbd", "x", [], [], "/var/log/slurm")


def test_controllers_need_distinct_slurm_names():
    inventory = _inventory(1)
    inventory["controllers"] = ["ctl", "ctl.example.org"]
    inventory["hosts"]["ctl.example.org"] = {"facts": {"hostname": "other"}, "vars": {"slurm_node_name": "ctl"}}
    errors = check_inventory(inventory, _settings(state_save_location="/shared/slurmctld"))
    assert errors == ['The Slurm name of a controller "ctl" is used by ctl, ctl.example.org: The Slurm name of a '
                      'controller must be unique. Set slurm_node_name to tell them apart.']


# --- slurm_gres_autodetect ------------------------------------------------------------


def test_autodetect_off_keeps_the_collections_gres_conf_only():
    model = build_model(_inventory(1), _settings())
    assert model["gres_autodetect"] == "off"
    assert not any(line.startswith("AutoDetect") for line in model["hosts"]["gpu01"]["gres_conf"])


@pytest.mark.parametrize("value, series", [("nvml", "22.05"), ("nvml", "26.05"), ("nvidia", "24.11"), ("nvidia", "26.05")])
def test_autodetect_comes_first_in_gres_conf_with_the_collections_lines_after(value, series):
    off = build_model(_inventory(1), _settings(series=series))
    model = build_model(_inventory(1), _settings(series=series, gres_autodetect=value))
    assert model["errors"] == []
    assert model["hosts"]["gpu01"]["gres_conf"] == ["AutoDetect=%s" % value] + off["hosts"]["gpu01"]["gres_conf"]
    # Configless: the controller serves one file, AutoDetect once at its top.
    model = build_model(_inventory(2), _settings(series=series, gres_autodetect=value, configless=True))
    served = model["hosts"]["ctl"]["gres_conf"]
    assert served[0] == "AutoDetect=%s" % value and all(line.startswith("NodeName=") for line in served[1:])


@pytest.mark.parametrize(
    "changes, expected",
    [
        ({"gres_autodetect": "nvidia", "series": "22.05"},
         "slurm_gres_autodetect: nvidia needs Slurm 24.11 or later (gpu/nvidia); this is Slurm 22.05. Use nvml, or "
         "install a newer Slurm (slurm_install_from: source)."),
        ({"gres_autodetect": "nvml", "series": "26.05", "install_from": "source", "source_nvml": False},
         "slurm_gres_autodetect: nvml needs Slurm built with NVML, and slurm_source_nvml is false; set "
         "slurm_source_nvml: true (the packages are built again), or use nvidia."),
        ({"gres_autodetect": "rsmi"},
         "slurm_gres_autodetect is \"rsmi\"; use off (the collection's gres.conf from gpu_facts), nvml or nvidia "
         "(Slurm 24.11 and later)."),
    ],
)
def test_autodetect_the_release_or_build_cannot_do_is_refused(changes, expected):
    assert expected in build_model(_inventory(1), _settings(**changes))["errors"]


@pytest.mark.parametrize("series, interval, config, expected", [
    ("26.05", 5, {}, "HealthCheckTimeout=4"),     # what 26.05 logged as an error with the default 60
    ("26.05", 300, {}, None),                     # the default 60 is less than the interval
    ("26.05", 5, {"HealthCheckTimeout": 3}, "HealthCheckTimeout=3"),
    ("24.11", 5, {}, None),                       # no such key before
    ("22.05", 5, {}, None),
])
def test_a_short_health_check_interval_gets_a_shorter_timeout_where_slurm_has_one(series, interval, config, expected):
    model = build_model(_inventory(1), _settings(series=series, config=config,
                                                 config_defaults=dict(SETTINGS["config_defaults"],
                                                                      HealthCheckInterval=interval)))
    assert model["errors"] == []
    lines = _lines(model, "HealthCheckTimeout=")
    assert lines == ([expected] if expected else [])


# --- nodes declared by hardware profile (slurm_node_profiles, slurm_image_nodes) ------------

def _dual_2070():
    """gpuops_gpus of a real dual RTX 2070 node (tests/fixtures/nvidia-smi-xml/telegraf_dual_2070-v13.xml)."""
    with open(os.path.join(FIXTURES, "nvidia-smi-xml", "telegraf_dual_2070-v13.xml")) as handle:
        facts, warnings = build_facts(parse_smi_xml(handle.read()))
    assert warnings == []
    return facts


# A node of the dual RTX 2070 capture booted from an image: `slurmd -C` of a 1-socket, 8-core, 2-thread machine.
RTX = {"cpus": 16, "sockets": 1, "cores_per_socket": 8, "threads_per_core": 2, "real_memory": 60000,
       "gres": [{"type": "nvidia_geforce_rtx_2070", "count": 2, "file": "/dev/nvidia[0-1]"}]}
RTX_GRES = "gpu:nvidia_geforce_rtx_2070:2"
RTX_GRES_CONF = "Name=gpu Type=nvidia_geforce_rtx_2070 File=/dev/nvidia[0-1]"
RTX_LINE = "CPUs=16 Sockets=1 CoresPerSocket=8 ThreadsPerCore=2 RealMemory=60000 Gres=%s State=UNKNOWN" % RTX_GRES
IMAGE_NOTE = "the hardware profile %s (slurm_image_nodes; booted from an image, never reached by Ansible)"


def _images(entries, profiles=None, **changes):
    """Settings with image nodes (configless) and the rtx profile (or profiles)."""
    base = {"configless": True, "node_profiles": copy.deepcopy(profiles if profiles is not None else {"rtx": RTX}),
            "image_nodes": copy.deepcopy(entries)}
    base.update(changes)
    return _settings(**base)


def test_image_nodes_are_in_slurm_conf_before_they_boot():
    parts = [{"name": "gpu", "nodes": "ALL", "default": True}, {"name": "rtx", "nodes": ["gpu01", "rtx[001-064]"]},
             {"name": "last", "nodes": "rtx128"}]
    model = build_model(_inventory(2), _images([{"names": "rtx[001-128]", "profile": "rtx"}], partitions=parts))
    assert model["errors"] == [] and model["warnings"] == []
    assert _node_lines(model) == ["NodeName=gpu[01-02] " + SERVER_LINE, "NodeName=rtx[001-128] " + RTX_LINE]
    # Configless: the controller serves their gres.conf lines, with NodeName= like every node's.
    assert model["hosts"]["ctl"]["gres_conf"] == ["NodeName=gpu[01-02] " + V100_GRES_CONF,
                                                  "NodeName=rtx[001-128] " + RTX_GRES_CONF]
    # ALL (the default partition) holds them; a partition's nodes take hostlists of them.
    assert _lines(model, "PartitionName=") == ["PartitionName=gpu Nodes=ALL Default=YES",
                                               "PartitionName=rtx Nodes=gpu01,rtx[001-064]",
                                               "PartitionName=last Nodes=rtx128"]
    assert model["node_sources"] == {"facts": "gpu[01-02]", "image": "rtx[001-128]"}
    assert model["node_source_notes"] == ["rtx[001-128]: " + IMAGE_NOTE % "rtx"]
    # No inventory host, no host entry: Ansible never reaches them.
    assert sorted(model["hosts"]) == ["ctl", "gpu01", "gpu02"]
    assert model["node_count"] == 130
    # DefMemPerCPU: the smallest share, now theirs (60000 MB / 16 CPUs).
    assert "DefMemPerCPU=3750" in model["slurm_conf"]
    assert model["restart"]["nodes"] == ["gpu[01-02]:%s:978944:128" % V100, "rtx[001-128]:%s:60000:16" % RTX_GRES]
    assert len(model["image_nodes"]) == 128
    assert model["image_nodes"][:2] == [
        {"name": "rtx001", "profile": "rtx", "addr": "", "gres_value": RTX_GRES, "gpu_count": 2},
        {"name": "rtx002", "profile": "rtx", "addr": "", "gres_value": RTX_GRES, "gpu_count": 2}]
    assert model["node_profiles"] == {"rtx": {
        "cpus": 16, "sockets": 1, "cores_per_socket": 8, "threads_per_core": 2, "real_memory": 60000,
        "features": [], "weight": None, "gres_lines": [RTX_GRES_CONF], "gres_value": RTX_GRES, "gpu_count": 2}}


def test_a_profiles_gres_is_what_gpu_facts_reports_on_such_a_node():
    # A booting node compares its GPUs (gpu_facts' slurm_gres) with its profile's gres_value.
    facts = _dual_2070()
    model = build_model(_inventory(0), _images([{"names": "rtx01", "profile": "rtx"}]))
    assert model["node_profiles"]["rtx"]["gres_value"] == facts["slurm_gres"] == RTX_GRES
    assert model["node_profiles"]["rtx"]["gres_lines"] == facts["gres_conf"]


def test_a_thousand_image_nodes_are_one_line_and_cheap():
    settings_ = _images([{"names": "gpu[0001-1000]", "profile": "rtx"}])
    model, seconds = bounded(2.0, build_model, _inventory(0), settings_)
    assert model["errors"] == []
    assert _node_lines(model) == ["NodeName=gpu[0001-1000] " + RTX_LINE]
    assert model["hosts"]["ctl"]["gres_conf"] == ["NodeName=gpu[0001-1000] " + RTX_GRES_CONF]
    assert model["restart"]["nodes"] == ["gpu[0001-1000]:%s:60000:16" % RTX_GRES]
    assert [node["name"] for node in model["image_nodes"]] == ["gpu%04d" % number for number in range(1, 1001)]
    assert seconds < 2.0


def test_image_nodes_share_a_line_with_identical_inventory_nodes():
    # A profile that says what the facts of gpu01 and gpu02 give (after the margin): one model, one line.
    server = {"cpus": 128, "sockets": 2, "cores_per_socket": 32, "threads_per_core": 2, "real_memory": SERVER_REAL_MEMORY,
              "gres": [{"type": "tesla_v100s-pcie-32gb", "count": 8, "file": "/dev/nvidia[0-7]"}]}
    model = build_model(_inventory(2), _images([{"names": "gpu[03-04]", "profile": "v100"}], {"v100": server}))
    assert model["errors"] == []
    assert _node_lines(model) == ["NodeName=gpu[01-04] " + SERVER_LINE]
    assert model["hosts"]["ctl"]["gres_conf"] == ["NodeName=gpu[01-04] " + V100_GRES_CONF]
    assert model["node_sources"] == {"facts": "gpu[01-02]", "image": "gpu[03-04]"}


def test_a_profiles_real_memory_is_never_lowered_to_share_a_line():
    # An inventory node of the same model with less memory: the group takes its value, the image nodes keep theirs.
    server = {"cpus": 128, "sockets": 2, "cores_per_socket": 32, "threads_per_core": 2,
              "real_memory": SERVER_REAL_MEMORY + 1024,
              "gres": [{"type": "tesla_v100s-pcie-32gb", "count": 8, "file": "/dev/nvidia[0-7]"}]}
    model = build_model(_inventory(1), _images([{"names": "gpu[02-03]", "profile": "v100"}], {"v100": server}))
    assert model["errors"] == [] and model["memory_groups"] == []
    assert _node_lines(model) == ["NodeName=gpu01 " + SERVER_LINE,
                                  "NodeName=gpu[02-03] " + SERVER_LINE.replace("978944", "979968")]


def test_image_node_features_weight_and_address():
    profiles = {"rtx": dict(RTX, features=["rtx2070", "image"], weight=10), "cpu": {
        "cpus": 8, "sockets": 1, "cores_per_socket": 4, "threads_per_core": 2, "real_memory": 30000,
        "features": "cpu,small"}}
    model = build_model(_inventory(0), _images([{"names": "rtx[1-2]", "profile": "rtx"},
                                                {"names": "cpu1", "profile": "cpu", "addr": "10.1.0.1"},
                                                {"names": "cpu2", "profile": "cpu"}], profiles))
    assert model["errors"] == []
    assert _node_lines(model) == [
        "NodeName=rtx[1-2] %s Features=rtx2070,image Weight=10 State=UNKNOWN" % RTX_LINE[:-len(" State=UNKNOWN")],
        "NodeName=cpu1 NodeAddr=10.1.0.1 CPUs=8 Sockets=1 CoresPerSocket=4 ThreadsPerCore=2 RealMemory=30000 "
        "Features=cpu,small State=UNKNOWN",
        "NodeName=cpu2 CPUs=8 Sockets=1 CoresPerSocket=4 ThreadsPerCore=2 RealMemory=30000 Features=cpu,small "
        "State=UNKNOWN"]
    # A node without GRES has no gres.conf line.
    assert model["hosts"]["ctl"]["gres_conf"] == ["NodeName=rtx[1-2] " + RTX_GRES_CONF]
    assert model["node_source_notes"] == ["cpu[1-2]: " + IMAGE_NOTE % "cpu", "rtx[1-2]: " + IMAGE_NOTE % "rtx"]
    assert [(node["name"], node["addr"], node["gpu_count"]) for node in model["image_nodes"]] == [
        ("cpu1", "10.1.0.1", 0), ("cpu2", "", 0), ("rtx1", "", 2), ("rtx2", "", 2)]


def test_the_running_slurm_conf_never_overrides_a_profile_and_never_keeps_an_image_node():
    conf, gres, whole = _running(_inventory(1), _images([{"names": "rtx[01-04]", "profile": "rtx"}]))
    # More memory in the profile: the new value, not the running one; no node is kept or warned about.
    bigger = dict(RTX, real_memory=62000)
    model = build_model(_inventory(1), _images([{"names": "rtx[01-04]", "profile": "rtx"}], {"rtx": bigger}),
                        conf, gres)
    assert model["errors"] == [] and model["warnings"] == []
    assert _node_lines(model)[1] == "NodeName=rtx[01-04] " + RTX_LINE.replace("60000", "62000")
    assert model["node_sources"] == {"facts": "gpu01", "image": "rtx[01-04]"}
    assert restart_changes(whole["restart"], model["restart"], KEYS) == [
        "node definitions (gres:memory:cpus): rtx01 %s:60000:16 -> %s:62000:16; rtx02 %s:60000:16 -> %s:62000:16; "
        "rtx03 %s:60000:16 -> %s:62000:16; rtx04 %s:60000:16 -> %s:62000:16" % ((RTX_GRES,) * 8)]
    # A run that reaches no compute node (a --limit to the controller) writes the same.
    limited = _inventory(1)
    limited.update(reached=["ctl"], targeted=["ctl"])
    again = build_model(limited, _images([{"names": "rtx[01-04]", "profile": "rtx"}]), conf, gres)
    assert again["errors"] == [] and again["slurm_conf"] == whole["slurm_conf"]
    assert again["node_sources"] == {"image": "rtx[01-04]", "running": "gpu01"}
    # Taken out of slurm_image_nodes, a node is kept as the running slurm.conf has it, until slurm_remove_nodes.
    fewer = build_model(_inventory(1), _images([{"names": "rtx[01-03]", "profile": "rtx"}]), conf, gres)
    assert fewer["node_sources"]["kept"] == "rtx04" and fewer["slurm_conf"] == whole["slurm_conf"]
    removed = build_model(_inventory(1), _images([{"names": "rtx[01-03]", "profile": "rtx"}], remove_nodes=["rtx04"]),
                          conf, gres)
    assert removed["errors"] == [] and _node_lines(removed)[1] == "NodeName=rtx[01-03] " + RTX_LINE


def test_a_profile_that_drops_gpus_the_running_slurm_conf_has_stops_once_per_profile():
    conf, gres, _whole = _running(_inventory(0), _images([{"names": "rtx[01-64]", "profile": "rtx"}]))
    one = dict(RTX, gres=[{"type": "nvidia_geforce_rtx_2070", "count": 1, "file": "/dev/nvidia0"}])
    settings_ = _images([{"names": "rtx[01-64]", "profile": "rtx"}], {"rtx": one})
    message = ("rtx[01-64] (slurm_image_nodes, profile rtx): the running slurm.conf gives them 2 GPUs but the "
               "profile's gres gives 1; writing that would take GPUs out of service. Fix the gres of rtx in "
               "slurm_node_profiles, or set slurm_allow_gres_decrease: true to write the nodes with fewer GPUs on "
               "purpose.")
    assert build_model(_inventory(0), settings_, conf, gres)["errors"] == [message]
    settings_["allow_gres_decrease"] = True
    model = build_model(_inventory(0), settings_, conf, gres)
    assert model["errors"] == []
    assert model["warnings"] == ["slurm_allow_gres_decrease is true, so this is written anyway: " + message]
    assert model["node_profiles"]["rtx"]["gres_value"] == "gpu:nvidia_geforce_rtx_2070:1"


PROFILE_TAIL = "what `slurmd -C` prints as %s on such a node."


@pytest.mark.parametrize("changes, expected", [
    pytest.param({"node_profiles": ["rtx"]}, [
        'slurm_node_profiles must be a mapping of hardware profiles, profile name -> {cpus, sockets, '
        'cores_per_socket, threads_per_core, real_memory; optional gres, features, weight}, not ["rtx"].',
        'slurm_image_nodes[0]: the profile "rtx" is not in slurm_node_profiles (none yet); add it there or fix the '
        'name.'], id="profiles-not-a-mapping"),
    pytest.param({"node_profiles": {"rtx 2070": RTX}}, [
        'slurm_node_profiles: the profile name "rtx 2070" takes letters, digits, _ . and - only (up to 64).',
        'slurm_image_nodes[0]: the profile "rtx" is not in slurm_node_profiles (rtx 2070); add it there or fix the '
        'name.'], id="bad-profile-name"),
    pytest.param({"node_profiles": {"rtx": 16}}, [
        "slurm_node_profiles.rtx must be a mapping {cpus, sockets, cores_per_socket, threads_per_core, real_memory; "
        "optional gres, features, weight}, not 16."], id="profile-not-a-mapping"),
    pytest.param({"node_profiles": {"rtx": dict(RTX, memory=60000)}}, [
        "slurm_node_profiles.rtx has unknown keys memory: use only cores_per_socket, cpus, features, gres, "
        "real_memory, sockets, threads_per_core, weight."], id="unknown-key"),
    pytest.param({"node_profiles": {"rtx": dict((key, value) for key, value in RTX.items() if key != "real_memory")}}, [
        "slurm_node_profiles.rtx: real_memory is missing; give a whole number from 1 to 1073741824, "
        + PROFILE_TAIL % "RealMemory (MB)"], id="missing-real-memory"),
    pytest.param({"node_profiles": {"rtx": dict(RTX, cpus=0)}}, [
        "slurm_node_profiles.rtx: cpus is 0; give a whole number from 1 to 65535, " + PROFILE_TAIL % "CPUs"],
        id="zero-cpus"),
    pytest.param({"node_profiles": {"rtx": dict(RTX, sockets="two", threads_per_core=-2)}}, [
        'slurm_node_profiles.rtx: sockets is "two"; give a whole number from 1 to 65535, '
        + PROFILE_TAIL % "Boards x SocketsPerBoard",
        "slurm_node_profiles.rtx: threads_per_core is -2; give a whole number from 1 to 65535, "
        + PROFILE_TAIL % "ThreadsPerCore"], id="not-whole-numbers"),
    pytest.param({"node_profiles": {"rtx": dict(RTX, cores_per_socket=6)}}, [
        "slurm_node_profiles.rtx: sockets x cores_per_socket x threads_per_core is 1 x 6 x 2 = 12, not cpus 16; "
        "give the layout `slurmd -C` prints on such a node."], id="layout-not-cpus"),
    pytest.param({"node_profiles": {"rtx": dict(RTX, gres=[{"type": "nvidia_geforce_rtx_2070", "count": 2}])}}, [
        'slurm_node_profiles.rtx.gres[0]: a GPU needs file (for example "/dev/nvidia[0-3]"): Slurm binds GPUs by '
        'device file.'], id="gres-the-rule-of-slurm_node_gres"),
    pytest.param({"node_profiles": {"rtx": dict(RTX, gres=[{"count": 3, "file": "/dev/nvidia[0-1]"}])}}, [
        "slurm_node_profiles.rtx.gres[0]: file /dev/nvidia[0-1] names 2 devices but count is 3; make them agree."],
        id="gres-files-and-count"),
    pytest.param({"node_profiles": {"rtx": dict(RTX, gres={"count": 2})}}, [
        'slurm_node_profiles.rtx.gres must be a list of GRES entries such as [{type: a100, count: 4, file: '
        '"/dev/nvidia[0-3]"}], not {"count": 2}.'], id="gres-not-a-list"),
    pytest.param({"node_profiles": {"rtx": dict(RTX, features=["big gpu"], weight=0)}}, [
        'slurm_node_profiles.rtx: features ["big gpu"]: give a list of feature names (letters, digits, _ . -).',
        "slurm_node_profiles.rtx: weight 0: give a whole number from 1 (lower weights are used first)."],
        id="features-and-weight"),
    pytest.param({"image_nodes": {"names": "rtx[01-04]", "profile": "rtx"}}, [
        'slurm_image_nodes must be a list of image nodes such as {names: "gpu[001-128]", profile: gpu8}, not '
        '{"names": "rtx[01-04]", "profile": "rtx"}.'], id="image-nodes-not-a-list"),
    pytest.param({"image_nodes": ["rtx[01-04]"]}, [
        'slurm_image_nodes[0] must be a mapping (image nodes such as {names: "gpu[001-128]", profile: gpu8}), not '
        '"rtx[01-04]".'], id="entry-not-a-mapping"),
    pytest.param({"image_nodes": [{"names": "rtx[01-04]", "profile": "rtx", "group": "gpu"}]}, [
        "slurm_image_nodes[0] has unknown keys group: use only names, profile and addr."], id="entry-unknown-key"),
    pytest.param({"image_nodes": [{"profile": "rtx"}]}, [
        'slurm_image_nodes[0] has no names: give a Slurm hostlist of its nodes such as "gpu[001-128]", not null.'],
        id="no-names"),
    pytest.param({"image_nodes": [{"names": "rtx[01-", "profile": "rtx"}]}, [
        'slurm_image_nodes[0]: names "rtx[01-" is not a Slurm hostlist (unclosed \'[\' at character 4 of '
        '\'rtx[01-\'); write it as Slurm does, for example "gpu[001-128]".'], id="unparsable-hostlist"),
    pytest.param({"image_nodes": [{"names": "rtx[04-01]", "profile": "rtx"}]}, [
        'slurm_image_nodes[0]: names "rtx[04-01]" is not a Slurm hostlist (descending range \'04-01\' at character '
        '5 of \'rtx[04-01]\': 4 > 1); write it as Slurm does, for example "gpu[001-128]".'], id="descending-range"),
    pytest.param({"image_nodes": [{"names": "rtx.lab[1-2]", "profile": "rtx"}]}, [
        'slurm_image_nodes[0]: names "rtx.lab[1-2]" gives "rtx.lab1", which Slurm and hostlists cannot carry as a '
        'node name: use letters, digits, _ and - (up to 64).'], id="name-slurm-cannot-carry"),
    pytest.param({"image_nodes": [{"names": "rtx[01-04]"}]}, [
        "slurm_image_nodes[0] has no profile: name one of slurm_node_profiles (rtx)."], id="no-profile"),
    pytest.param({"image_nodes": [{"names": "rtx[01-04]", "profile": "rtx2070"}]}, [
        'slurm_image_nodes[0]: the profile "rtx2070" is not in slurm_node_profiles (rtx); add it there or fix the '
        'name.'], id="unknown-profile"),
    pytest.param({"image_nodes": [{"names": "rtx[01-04]", "profile": "rtx", "addr": "10.1.0.1"}]}, [
        "slurm_image_nodes[0]: addr 10.1.0.1 is given for 4 nodes (rtx[01-04]), but a NodeAddr belongs to one node. "
        "Give addr only on an entry whose names is one node, or leave it out (slurmctld then reaches the nodes by "
        "their names)."], id="addr-of-several-nodes"),
    pytest.param({"image_nodes": [{"names": "rtx01", "profile": "rtx", "addr": "10.1.0.1 #"}]}, [
        'slurm_image_nodes[0]: addr "10.1.0.1 #": give the node\'s host name or IP address (its NodeAddr).'],
        id="bad-addr"),
    pytest.param({"image_nodes": [{"names": "rtx[01-04]", "profile": "rtx"}, {"names": "rtx[03-08]", "profile": "rtx"},
                                  {"names": "rtx[09-10],rtx10", "profile": "rtx"}]}, [
        "rtx[03-04] named more than once in slurm_image_nodes (in slurm_image_nodes[0] and slurm_image_nodes[1]): "
        "give each node one entry.",
        "rtx10 named more than once in slurm_image_nodes (within slurm_image_nodes[2]): give each node one entry."],
        id="a-name-in-two-entries"),
    pytest.param({"image_nodes": [{"names": "gpu[02-03]", "profile": "rtx"}]}, [
        "slurm_image_nodes declares gpu02, which the inventory holds too (gpu02, in slurm_compute): a node booted "
        "from an image is no inventory host, since Ansible never reaches it. Take each out of slurm_image_nodes or "
        "out of the inventory group."], id="an-inventory-compute-host"),
    pytest.param({"image_nodes": [{"names": "ctl,login1,rtx1", "profile": "rtx"}]}, [
        "slurm_image_nodes declares ctl,login1, which the inventory holds too (ctl, login1, in slurm_controller and "
        "slurm_login): a node booted from an image is no inventory host, since Ansible never reaches it. Take each "
        "out of slurm_image_nodes or out of the inventory group."], id="the-controller-and-a-login-node"),
    pytest.param({"partitions": [{"name": "rtx", "nodes": ["gpu01", "rtx[03-06]", "gpu09"]}]}, [
        "slurm_partitions: partition rtx names rtx[03-06], gpu09, neither hosts of the slurm_compute group "
        "(gpu01, gpu02) nor image nodes of slurm_image_nodes (rtx[01-04]). Fix the node names, add the hosts to the "
        "group, or declare the nodes in slurm_image_nodes."], id="partition-of-undeclared-nodes"),
])
def test_image_node_errors(changes, expected):
    inventory = _with_login(_inventory(2), "login1")
    settings_ = _images([{"names": "rtx[01-04]", "profile": "rtx"}], **changes)
    assert check_inventory(inventory, settings_) == expected
    # build_model reports them once (check_inventory's), and never raises on them.
    model = build_model(inventory, settings_)
    assert [error for error in model["errors"] if error in expected] == expected


def test_image_nodes_beside_converged_nodes_that_keep_their_files():
    # Not configless: the converged nodes keep slurm.conf and their own gres.conf; the controller serves the
    # configuration to the image nodes and holds every node's gres.conf lines.
    model = build_model(_inventory(2), _images([{"names": "rtx[01-04]", "profile": "rtx"}], configless=False))
    assert model["errors"] == []
    assert "enable_configless" in model["settings"]["SlurmctldParameters"]
    assert model["slurmd_options"] == "" and model["conf_server"] == "ctl:6817"
    ctl = model["hosts"]["ctl"]
    assert ctl["writes_gres"] and not ctl["compute"]
    assert [line for line in ctl["gres_conf"] if line.startswith("NodeName=rtx[01-04] ")] == [
        "NodeName=rtx[01-04] Name=gpu Type=nvidia_geforce_rtx_2070 File=/dev/nvidia[0-1]"]
    assert any(line.startswith("NodeName=gpu") for line in ctl["gres_conf"])
    node = model["hosts"]["gpu01"]
    assert node["holds_config"] and node["writes_gres"]
    assert node["gres_conf"] and not any(line.startswith("NodeName=") for line in node["gres_conf"])
    # Without image nodes nothing of it.
    plain = build_model(_inventory(2), _settings(configless=False))
    assert plain["hosts"]["ctl"]["gres_conf"] == [] and not plain["hosts"]["ctl"]["writes_gres"]


def test_slurm_remove_nodes_refuses_an_image_node_still_declared():
    model = build_model(_inventory(1), _images([{"names": "rtx[01-04]", "profile": "rtx"}], remove_nodes=["rtx04"]))
    assert model["errors"] == ["slurm_remove_nodes names rtx04, still declared in slurm_image_nodes: take the node out "
                               "of slurm_image_nodes as well, or take it out of slurm_remove_nodes."]


def test_no_image_nodes_changes_nothing():
    plain = build_model(_inventory(2), _settings())
    for changes in ({"node_profiles": {}, "image_nodes": []}, {"node_profiles": {"rtx": RTX}, "image_nodes": []}):
        model = build_model(_inventory(2), _settings(**changes))
        assert model["errors"] == [] and model["slurm_conf"] == plain["slurm_conf"]
        assert model["image_nodes"] == [] and model["node_source_notes"] == []
    # Profiles without image nodes need no configless mode, and are returned (checked) all the same.
    assert build_model(_inventory(2), _settings(node_profiles={"rtx": RTX}))["node_profiles"]["rtx"]["gpu_count"] == 2


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entries=st.lists(st.fixed_dictionaries({}, optional={
    "names": st.one_of(st.sampled_from(["rtx[01-04]", "rtx[03-05]", "gpu01", "ctl", "rtx[", "a.b", ""]), JUNK),
    "profile": st.one_of(st.sampled_from(["rtx", "cpu", ""]), JUNK),
    "addr": st.one_of(st.sampled_from(["10.0.0.1", "", "bad addr"]), JUNK)}), max_size=4),
    profile=st.dictionaries(st.sampled_from(sorted(RTX) + ["x"]), JUNK, max_size=4))
def test_image_shaped_junk_gives_errors_not_exceptions(entries, profile):
    model = build_model(_inventory(2), _images(entries, {"rtx": dict(RTX), "cpu": profile}))
    assert isinstance(model["errors"], list) and all(isinstance(error, str) for error in model["errors"])
    if not model["errors"]:
        assert all(isinstance(line, str) and "\n" not in line for line in model["slurm_conf"])


def test_image_nodes_without_topology_data_write_no_topology():
    settings_ = _images([{"names": "rtx[01-04]", "profile": "rtx"}], series="24.11", topology=dict(TOPOLOGY))
    model = build_model(_inventory(2), settings_)
    assert model["errors"] == [] and model["topology_conf"] == []
    assert model["topology"]["plugin"] == "topology/default"
