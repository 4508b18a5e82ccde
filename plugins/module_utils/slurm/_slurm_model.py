# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Slurm cluster model: one pure function from inventory and facts to configuration.

``build_model(inventory, settings)`` turns the groups, each node's facts and
host variables, and the cluster-wide settings into everything the Slurm roles
write: node names (one rule, ``node_name``), slurm.conf lines with identical
nodes grouped into one hostlist line (nodes of one model whose memory differs a
little share the smallest RealMemory: ``group_real_memory``), gres.conf lines
per node (facts or the inventory override, one renderer), cgroup.conf lines,
the restart fingerprint, and every input error as a message that names the
variable and the fix.

Compute nodes booted from an image are no inventory hosts: the settings
``node_profiles`` and ``image_nodes`` declare them by hardware profile (read
by the functions of the same names), so they are in slurm.conf before they
ever boot, described by their profile in every run.

It is computed once per play (a run_once task) and shared by every host,
which then only looks up its own entry in ``hosts``: a host's own work does
not grow with the size of the cluster.

Inputs (plain data; the filter plugin collects them from hostvars):

inventory::

    {"controllers": [host], "computes": [host, ...], "dbd": [host] or [],
     "hosts": {host: {"facts": {hostname, memtotal_mb, processor_vcpus,
                                processor_count, processor_cores,
                                processor_threads_per_core},
                      "gpus": gpuops_gpus or None,
                      "vars": {slurm_node_name, slurm_node_addr,
                               slurm_node_gres, slurm_node_real_memory,
                               slurm_node_features, slurm_node_weight}}}}

settings: see ``SETTING_KEYS``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import difflib
import json
import re

from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._gres import gres_count
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._hostlist import (
    HostlistError,
    compress,
    expand,
)
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._node_sources import (
    BLOCK_ORDER,
    DOWN_MAX_PCT_DEFAULT,
    IMAGE_WORDS,
    SOURCE_WORDS,
    down_errors,
    down_pct,
    down_pct_errors,
    node_source,
    parse_node_records,
    parse_topology_places,
    removal_errors,
)
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._slurm_conf import (
    Repeated,
    SLURM_CONF_KEYS,
    SlurmConfError,
    check_keys,
    node_name,
    render_lines,
    series_for,
    version_tuple,
)
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import clip as _clip
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import guarded, shown
from ansible_collections.gpuops.cluster.plugins.module_utils.fabric._topology import topology_plan
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._slurm_rest import (
    metrics_conf,
    rest_command,
    rest_conf,
    rest_errors,
    rest_listen,
)


class SlurmModelError(Exception):
    """The model's input is not the shape the filter promises (a bug, not a user error)."""


# Names Slurm and the shell handle without quoting. fullmatch (\Z), so a
# trailing newline is refused too.
_NODE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}\Z")
_PARTITION_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}\Z")
_ACCOUNT_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}\Z")
_USER_NAME = re.compile(r"[a-z_][a-z0-9_.-]{0,31}\Z")
_CLUSTER_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}\Z")
_GRES_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}\Z")
_GRES_FILE = re.compile(r"/dev/[A-Za-z0-9_./-]+(\[[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*\][A-Za-z0-9_./-]*)?\Z")
_CPU_LIST = re.compile(r"[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*\Z")
_LINKS = re.compile(r"-?[0-9]+(,-?[0-9]+)*\Z")
_POSITIVE = re.compile(r"[1-9][0-9]{0,8}\Z")
_ADDR = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,253}\Z")
_FEATURE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}\Z")

# PartitionName options (slurm.conf(5), 22.05 to 24.11). Nodes and
# PartitionName itself come from the partition's own name and nodes keys.
PARTITION_OPTIONS = frozenset("""
AllocNodes AllowAccounts AllowGroups AllowQos Alternate CpuBind Default DefaultTime DefCpuPerGPU DefMemPerCPU
DefMemPerGPU DefMemPerNode DenyAccounts DenyQos DisableRootJobs ExclusiveTopo ExclusiveUser GraceTime Hidden LLN
MaxCPUsPerGPU MaxCPUsPerNode MaxCPUsPerSocket MaxMemPerCPU MaxMemPerNode MaxNodes MaxTime MinNodes OverSubscribe
OverTimeLimit PowerDownOnIdle PreemptMode PriorityJobFactor PriorityTier QOS ReqResv ResumeTimeout RootOnly
SelectTypeParameters State SuspendTime SuspendTimeout TRESBillingWeights
""".split())
_PARTITION_KEYS = frozenset(["name", "nodes", "default", "options"])
# PartitionName line keys that a partition gives with its own keys, not under options.
_OWN_KEYS = {"nodes": "the partition's nodes key", "partitionname": "the partition's name key"}
_GRES_KEYS = frozenset(["name", "type", "count", "file", "cores", "links"])

# What the filter copies out of each compute node's host variables.
NODE_VARS = ("slurm_node_name", "slurm_node_addr", "slurm_node_gres", "slurm_node_real_memory",
             "slurm_node_features", "slurm_node_weight", "slurm_topology_switch", "slurm_topology_block")
FACT_KEYS = ("hostname", "memtotal_mb", "processor_vcpus", "processor_count", "processor_cores",
             "processor_threads_per_core")

SETTING_KEYS = (
    "cluster_name", "controller_group", "compute_group", "dbd_group", "series", "user", "config_dir", "log_dir",
    "state_dir", "spool_dir", "slurmctld_pidfile", "slurmd_pidfile", "configless", "accounting", "dbd_port",
    "config_defaults", "accounting_config", "config", "cgroup_defaults", "cgroup_config", "partitions",
    "real_memory_margin_pct", "real_memory_round_mb", "real_memory_group_pct", "restart_keys", "allow_gres_decrease",
    "dbd_accounts", "dbd_db_password", "munge_key_length", "topology", "state_save_location", "gres_autodetect",
    "install_from", "source_nvml", "nodes_down_max_pct", "remove_nodes", "restart_batch", "rest", "native_metrics",
    "jwt_key_path", "login_group", "login_configless", "node_profiles", "image_nodes",
)
# slurm_login_configless: auto (configless with sackd where the release ships it), true, false.
LOGIN_CONFIGLESS = ("auto", True, False)
# sackd, which fetches the configuration for a login node without slurmd, came with Slurm 23.11.
SACKD_SERIES = (23, 11)
# slurm_gres_autodetect: gres.conf AutoDetect. off: the collection's own gres.conf lines from gpu_facts only;
# nvml: Slurm's gpu/nvml plugin (built with NVML: slurm_install_from=source with slurm_source_nvml, or
# Debian's slurm-wlm-nvml-plugin); nvidia: gpu/nvidia (Slurm 24.11 and later, no NVML needed).
GRES_AUTODETECT = ("off", "nvml", "nvidia")
# slurm.conf(5) of 26.05: HealthCheckTimeout, "The default value is 60".
HEALTH_CHECK_TIMEOUT_DEFAULT = 60
AUTODETECT_NVIDIA_SINCE = (24, 11)
# The controllers' old spelling in slurm.conf: refused in slurm_config, since the model always writes
# SlurmctldHost (from the controller group, one line per host, the primary first) and slurmctld ignores
# BackupController and BackupAddr once SlurmctldHost is set.
LEGACY_CONTROLLER_KEYS = ("ControlMachine", "ControlAddr", "BackupController", "BackupAddr")
# settings["topology"]: what the slurm_topology* variables give (the role's defaults/main.yml and vars/main.yml).
TOPOLOGY_SETTINGS = ("plugin", "switch_parents", "block_sizes", "ca_hosts", "ibnetdiscover", "allow_missing")
# The topology plan's words for its inputs, and the variables a user sets them with.
_TOPOLOGY_WORDS = {"node_switches": "slurm_topology_switch", "switch_parents": "slurm_topology_switch_parents",
                   "block_sizes": "slurm_topology_block_sizes", "ca_hosts": "slurm_topology_ca_hosts",
                   "blocks": "slurm_topology_block"}
# The identifiers anywhere; "blocks" only where it names the input (blocks[rack1], "blocks: ...").
_TOPOLOGY_WORD_RE = re.compile(r"\b(node_switches|switch_parents|block_sizes|ca_hosts)\b|\b(blocks)(?=[\[:])")
_TOPOLOGY_WRITTEN = ("topology/tree", "topology/block")

# RealMemory from MemTotal: the settings' defaults (the role's) and the values they may take.
REAL_MEMORY_SETTINGS = {
    # key: (role variable, default, lowest, highest, what a bad value is told)
    "real_memory_margin_pct": ("slurm_real_memory_margin_pct", 5, 0, 99,
                               "give a whole number from 0 to 99, the percentage of MemTotal each node keeps out of "
                               "RealMemory."),
    "real_memory_round_mb": ("slurm_real_memory_round_mb", 1024, 0, 65536,
                             "give a whole number of MB from 0 to 65536: each node's RealMemory is rounded down to a "
                             "multiple of it (1024: whole GiB; 0 or 1: not rounded)."),
    "real_memory_group_pct": ("slurm_real_memory_group_pct", 1, 0, 10,
                              "give a whole number from 0 to 10: nodes of one model whose RealMemory is at most this "
                              "percentage below the largest share one NodeName line with the smallest (0: only equal "
                              "ones)."),
}

# The text to cap what an input error quotes of a user's value.
_SHOWN = 60


# slurm_dbd_db_host values that name the slurmdbd host itself (a backup slurmdbd could not reach its database).
LOCAL_DB_HOSTS = ("localhost", "127.0.0.1", "::1", "")


def _shown(value):
    try:
        text = value if isinstance(value, str) else json.dumps(value, default=str, sort_keys=True)
    except (ValueError, TypeError, RecursionError):
        # An int past 4,300 digits, keys that do not sort, nesting past what json recurses through.
        text = shown(value, _SHOWN)
    if len(text) > _SHOWN:
        text = text[:_SHOWN] + "..."
    return json.dumps(text) if isinstance(value, str) else text


def _compress(names):
    """A hostlist of names; names a hostlist cannot carry (already reported as errors) are joined as they are."""
    try:
        return compress(names)
    except HostlistError:
        return ",".join(str(name) for name in names)


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _as_int(value):
    """int of an int or a short decimal string; None otherwise (never a Python error)."""
    if _is_int(value):
        return value
    if isinstance(value, str) and re.match(r"[0-9]{1,12}\Z", value.strip()):
        return int(value.strip())
    return None


# --------------------------------------------------------------------------
# gres.conf: one renderer for facts and inventory overrides

def gres_line(entry):
    """``Name=gpu Type=a100 File=/dev/nvidia[0-3] Cores=0-15 Links=...`` for one GRES entry.

    entry: name (default gpu), type, count, file, cores, links. File wins over
    Count (Slurm counts the files).
    """
    name = entry.get("name") or "gpu"
    parts = ["Name=%s" % name]
    if entry.get("type"):
        parts.append("Type=%s" % entry["type"])
    if entry.get("file"):
        parts.append("File=%s" % entry["file"])
    else:
        parts.append("Count=%s" % entry.get("count"))
    if entry.get("cores"):
        parts.append("Cores=%s" % entry["cores"])
    if entry.get("links"):
        parts.append("Links=%s" % entry["links"])
    return " ".join(parts)


def gres_value(entries):
    """slurm.conf ``Gres=`` value for GRES entries: name[:type]:count joined by commas."""
    items = []
    for entry in entries:
        name = entry.get("name") or "gpu"
        items.append("%s%s:%s" % (name, (":" + entry["type"]) if entry.get("type") else "", entry.get("count")))
    return ",".join(items)


def _check_gres_override(host, entries):
    return _check_gres("slurm_node_gres on %s" % host, entries)


def _check_gres(var, entries):
    """The one rule for a list of GRES entries (slurm_node_gres, a hardware profile's gres); var names it."""
    errors = []
    if not isinstance(entries, list):
        return ["%s must be a list of GRES entries such as [{type: a100, count: 4, file: \"/dev/nvidia[0-3]\"}], "
                "not %s." % (var, _shown(entries))]
    for position, entry in enumerate(entries):
        where = "%s[%d]" % (var, position)
        if not isinstance(entry, dict):
            errors.append("%s must be a mapping with keys %s, not %s." % (where, ", ".join(sorted(_GRES_KEYS)), _shown(entry)))
            continue
        unknown = sorted(str(key) for key in entry if key not in _GRES_KEYS)
        if unknown:
            errors.append("%s has unknown keys %s: use only %s." % (where, ", ".join(unknown), ", ".join(sorted(_GRES_KEYS))))
        count = _as_int(entry.get("count"))
        if count is None or count < 1 or count > 1024:
            errors.append("%s: count %s is not a whole number from 1 to 1024; give the number of devices."
                          % (where, _shown(entry.get("count"))))
        name = entry.get("name", "gpu")
        if not isinstance(name, str) or not _GRES_TOKEN.match(name):
            errors.append("%s: name %s is not a GRES name (letters, digits, _ . -), for example gpu." % (where, _shown(name)))
        gtype = entry.get("type")
        if gtype not in (None, "") and (not isinstance(gtype, str) or not _GRES_TOKEN.match(gtype)):
            errors.append("%s: type %s is not a GRES type (letters, digits, _ . -), for example a100." % (where, _shown(gtype)))
        gfile = entry.get("file")
        if gfile not in (None, ""):
            if not isinstance(gfile, str) or not _GRES_FILE.match(gfile):
                errors.append("%s: file %s is not a device path such as /dev/nvidia0 or /dev/nvidia[0-3]."
                              % (where, _shown(gfile)))
            elif count is not None:
                try:
                    files = len(expand(gfile))
                except HostlistError:
                    files = None
                if files is not None and files != count:
                    errors.append("%s: file %s names %d devices but count is %d; make them agree."
                                  % (where, gfile, files, count))
        elif name == "gpu":
            errors.append("%s: a GPU needs file (for example \"/dev/nvidia[0-3]\"): Slurm binds GPUs by device file."
                          % where)
        cores = entry.get("cores")
        if cores not in (None, "") and (not isinstance(cores, str) or not _CPU_LIST.match(cores)):
            errors.append("%s: cores %s is not a CPU list such as 0-15,32-47." % (where, _shown(cores)))
        links = entry.get("links")
        if links not in (None, "") and (not isinstance(links, str) or not _LINKS.match(links)):
            errors.append("%s: links %s is not a list of link counts such as -1,2,2,2." % (where, _shown(links)))
    return errors


# --------------------------------------------------------------------------
# The running slurm.conf (what the controller holds now)

def parse_node_gres(text):
    """{node name: GPU count} from the NodeName lines of a slurm.conf text (hostlists expanded).

    Lines that cannot be read are skipped: this only guards against lowering
    GRES, it never decides a value.
    """
    counts = {}
    default_gres = ""
    for raw in (text or "").splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line.lower().startswith("nodename="):
            continue
        fields = {}
        for token in line.split():
            if "=" in token:
                key, value = token.split("=", 1)
                fields[key.lower()] = value
        names = fields.get("nodename", "")
        if names.upper() == "DEFAULT":
            # Sets Gres for the NodeName lines after it that give none (slurm.conf(5)).
            default_gres = fields.get("gres", default_gres)
            continue
        try:
            hosts = expand(names)
        except HostlistError:
            continue
        count = gres_count(fields.get("gres", default_gres))
        for name in hosts:
            counts[name] = count
    return counts


# --------------------------------------------------------------------------
# Nodes

def _node(host, data, settings, errors, warnings):
    facts = data.get("facts") or {}
    hvars = data.get("vars") or {}
    gpus = data.get("gpus")
    name = node_name(host, hvars.get("slurm_node_name"), facts.get("hostname"))
    node = {"host": host, "name": name, "addr": hvars.get("slurm_node_addr") or ""}
    if facts.get("memtotal_mb") is None:
        node["facts_missing"] = True
        return node
    if gpus is not None and not isinstance(gpus, dict):
        errors.append("gpuops_gpus of %s is %s, not the mapping gpuops.cluster.gpu_facts gathers: remove gpuops_gpus from "
                      "the inventory (slurm_node_gres sets a node's GPUs)." % (host, _shown(gpus)))
        gpus = None
    cpus = _as_int(facts.get("processor_vcpus")) or 0
    sockets = _as_int(facts.get("processor_count")) or 0
    cores = _as_int(facts.get("processor_cores")) or 0
    threads = _as_int(facts.get("processor_threads_per_core")) or 0
    memtotal = _as_int(facts.get("memtotal_mb")) or 0
    margin = real_memory_setting(settings, "real_memory_margin_pct")
    auto = auto_real_memory(memtotal, margin, real_memory_setting(settings, "real_memory_round_mb"))
    real_memory = auto
    node["real_memory_given"] = hvars.get("slurm_node_real_memory") is not None
    if node["real_memory_given"]:
        real_memory = _as_int(hvars.get("slurm_node_real_memory"))
        if real_memory is None or real_memory < 1:
            errors.append("slurm_node_real_memory for %s is %s: give a whole number of MB, or remove it to use MemTotal "
                          "less slurm_real_memory_margin_pct." % (host, _shown(hvars.get("slurm_node_real_memory"))))
            real_memory = auto
        elif real_memory > memtotal:
            errors.append("slurm_node_real_memory for %s is %d MB but the node has %d MB: Slurm would mark it INVAL. "
                          "Lower it, or remove it to use MemTotal less %d%% (slurm_real_memory_margin_pct)."
                          % (host, real_memory, memtotal, margin))
    node.update({
        "cpus": cpus, "sockets": sockets, "cores_per_socket": cores, "threads_per_core": threads,
        "topology_consistent": cpus > 0 and sockets * cores * threads == cpus,
        "memtotal_mb": memtotal, "real_memory": real_memory,
        "mem_per_cpu": real_memory // max(cpus, 1),
    })
    if cpus > 0 and not node["topology_consistent"]:
        warnings.append("%s: %d sockets x %d cores x %d threads is not %d CPUs; its NodeName line gives CPUs= only."
                        % (host, sockets, cores, threads, cpus))
    features, features_ok = _features(hvars.get("slurm_node_features"))
    if not features_ok:
        errors.append("slurm_node_features for %s is %s: give a list of feature names (letters, digits, _ . -)."
                      % (host, _shown(features)))
        features = []
    node["features"] = features
    weight = hvars.get("slurm_node_weight")
    if not _weight_ok(weight):
        errors.append("slurm_node_weight for %s is %s: give a whole number from 1 (lower weights are used first)."
                      % (host, _shown(weight)))
        weight = None
    node["weight"] = _as_int(weight) if weight is not None else None
    if node["addr"] and (not isinstance(node["addr"], str) or not _ADDR.match(node["addr"])):
        errors.append("slurm_node_addr for %s is %s: give a host name or an IP address." % (host, _shown(node["addr"])))
    # GRES
    override = hvars.get("slurm_node_gres")
    if override is not None:
        # Its errors are check_inventory's (reported once, there).
        problems = _check_gres_override(host, override)
        entries = [] if problems else [dict(entry) for entry in override]
        node["gres_lines"] = [gres_line(entry) for entry in entries]
        node["gres_value"] = gres_value(entries)
        node["gres_source"] = "inventory"
    elif gpus and (_as_int(gpus.get("count")) or 0) > 0:
        node["gres_lines"] = list(gpus.get("gres_conf") or [])
        node["gres_value"] = gpus.get("slurm_gres") or ""
        node["gres_source"] = "gpu_facts"
    else:
        node["gres_lines"] = []
        node["gres_value"] = ""
        node["gres_source"] = "none"
    node["gpu_count"] = gres_count(node["gres_value"])
    return node


def _features(value):
    """(features, whether they keep the rule) of slurm_node_features or a profile's features: a list of feature
    names, or one text of names joined by commas; unset is none."""
    features = value or []
    if isinstance(features, str):
        features = [item for item in features.split(",") if item]
    ok = isinstance(features, list) and all(isinstance(item, str) and _FEATURE.match(item) for item in features)
    return features, ok


def _weight_ok(value):
    """Whether slurm_node_weight or a profile's weight keeps the rule: unset, or a whole number from 1."""
    return value is None or (_as_int(value) is not None and _as_int(value) >= 1)


def _gpu_loss(node, gpus, running):
    """Why this node's GPU GRES would be lower than the hardware or the running config says, or None."""
    if node.get("gres_source") == "inventory":
        facts_say = None
    else:
        facts_say = node.get("gpu_count", 0)
    gpus = gpus if isinstance(gpus, dict) else {}  # (not a mapping: _node reported it)
    pci = len(gpus.get("pci_gpus") or [])
    devices = len(gpus.get("device_files") or [])
    status = gpus.get("status") or "ok"
    said = gpus.get("error") or status
    host = "%s (%s)" % (node["host"], node["name"]) if node["host"] != node["name"] else node["host"]
    fix = ("Reboot the node or reload the NVIDIA driver (a driver updated without a reboot answers 'Driver/library "
           "version mismatch'), check `nvidia-smi` there, then run again; or set slurm_allow_gres_decrease: true to "
           "write the node with fewer GPUs on purpose.")
    if facts_say is not None and status not in ("ok", "no_nvidia_smi", "no_devices") and (pci or devices):
        return ("%s: nvidia-smi failed (%s) but the node has NVIDIA GPUs (PCI bus: %d, /dev/nvidiaN: %d); its Gres= "
                "would be dropped from slurm.conf and gres.conf emptied. %s" % (host, said, pci, devices, fix))
    if facts_say is not None and pci > facts_say:
        return ("%s: the PCI bus shows %d NVIDIA GPUs but nvidia-smi reports %d (%s); slurm.conf would lose %d. %s"
                % (host, pci, facts_say, said, pci - facts_say, fix))
    before = running.get(node["name"]) if running else None
    if before is not None and node.get("gpu_count", 0) < before:
        if node.get("gres_source") == "inventory":
            source = "slurm_node_gres in the inventory gives %d" % node.get("gpu_count", 0)
        elif status not in ("ok", "no_nvidia_smi", "no_devices"):
            source = "nvidia-smi failed (%s), which leaves %d" % (said, node.get("gpu_count", 0))
        else:
            source = "nvidia-smi reports %d (%s)" % (node.get("gpu_count", 0), said)
        return ("%s: the running slurm.conf gives it %d GPUs but %s (PCI bus: %d, /dev/nvidiaN: %d); writing that "
                "would take GPUs out of service. %s" % (host, before, source, pci, devices, fix))
    return None


def _model_key(node):
    """What must be equal, memory aside, for nodes to be one model: CPUs and their layout, GRES, features, weight."""
    return (node["cpus"], node["topology_consistent"], node["sockets"], node["cores_per_socket"], node["threads_per_core"],
            node["gres_value"], tuple(node["features"]), node["weight"])


def _node_key(node):
    """What must be equal for nodes to share one NodeName line: the model and RealMemory."""
    return _model_key(node) + (node["real_memory"],)


# --------------------------------------------------------------------------
# RealMemory

def real_memory_setting(settings, key):
    """The value of one of REAL_MEMORY_SETTINGS; its default when unset or bad (build_model reports a bad one)."""
    _variable, default, lowest, highest, _fix = REAL_MEMORY_SETTINGS[key]
    value = _as_int(settings.get(key))
    return default if value is None or not lowest <= value <= highest else value


def real_memory_setting_errors(settings):
    """A message for each REAL_MEMORY_SETTINGS value that is set but not a whole number in its range."""
    errors = []
    for key in sorted(REAL_MEMORY_SETTINGS):
        variable, _default, lowest, highest, fix = REAL_MEMORY_SETTINGS[key]
        value = settings.get(key)
        if value is not None and (_as_int(value) is None or not lowest <= _as_int(value) <= highest):
            errors.append("%s is %s: %s" % (variable, _shown(value), fix))
    return errors


def auto_real_memory(memtotal, margin_pct, round_mb):
    """RealMemory from MemTotal (MB): less margin_pct percent, rounded down to a multiple of round_mb.

    round_mb 0 or 1 does not round; a node with less than round_mb left is not rounded either (never 0).
    """
    memory = memtotal * (100 - margin_pct) // 100
    if round_mb > 1 and memory >= round_mb:
        memory -= memory % round_mb
    return memory


def group_real_memory(nodes, group_pct):
    """Nodes of one model whose RealMemory differs a little share one NodeName line, with the smallest RealMemory.

    Identical servers report MemTotal a few MB apart (firmware and kernel reservations), which would give each
    its own NodeName line. Within each model (``_model_key``: everything of the line but the memory), from the
    largest RealMemory down, the nodes at most group_pct percent below it form a group and all get the group's
    smallest RealMemory, which no member has less of (slurmd drains a node that has less than its RealMemory);
    the nodes below start the next group. A node with slurm_node_real_memory keeps it, and a node with a NodeAddr
    (a line of its own anyway) keeps its own.

    Returns ``({host: lowered RealMemory}, [a message for each group whose members were lowered])``.
    """
    models = {}
    order = []
    for node in nodes:
        if node.get("real_memory_given") or node.get("addr"):
            continue
        key = _model_key(node)
        if key not in models:
            models[key] = []
            order.append(key)
        models[key].append(node)
    lowered = {}
    messages = []
    for key in order:
        members = sorted(models[key], key=lambda n: -n["real_memory"])
        start = 0
        while start < len(members):
            largest = members[start]["real_memory"]
            end = start + 1
            while end < len(members) and (largest - members[end]["real_memory"]) * 100 <= largest * group_pct:
                end += 1
            group = members[start:end]
            smallest = group[-1]["real_memory"]
            changed = [node for node in group if node["real_memory"] != smallest]
            if changed:
                for node in changed:
                    lowered[node["name"]] = smallest
                messages.append(
                    "RealMemory=%d for %s (%d nodes of one model, %d of them lowered from up to %d MB: within %d%% "
                    "of the largest, slurm_real_memory_group_pct), so they share one NodeName line."
                    % (smallest, _compress(sorted(node["name"] for node in group)), len(group), len(changed),
                       largest, group_pct))
            start = end
    return lowered, messages


def _node_line(names, node):
    parts = ["NodeName=%s" % names]
    if node["addr"]:
        parts.append("NodeAddr=%s" % node["addr"])
    parts.append("CPUs=%d" % node["cpus"])
    if node["topology_consistent"]:
        parts.append("Sockets=%d CoresPerSocket=%d ThreadsPerCore=%d"
                     % (node["sockets"], node["cores_per_socket"], node["threads_per_core"]))
    parts.append("RealMemory=%d" % node["real_memory"])
    if node["gres_value"]:
        parts.append("Gres=%s" % node["gres_value"])
    if node["features"]:
        parts.append("Features=%s" % ",".join(node["features"]))
    if node["weight"] is not None:
        parts.append("Weight=%d" % node["weight"])
    parts.append("State=UNKNOWN")
    return " ".join(parts)


def group_nodes(nodes, key):
    """[(hostlist, first node)] grouping nodes whose key(node) is equal; nodes with a NodeAddr stay alone."""
    groups = {}
    order = []
    for node in nodes:
        group_key = ("addr", node["name"]) if node.get("addr") else ("key", key(node))
        if group_key not in groups:
            groups[group_key] = []
            order.append(group_key)
        groups[group_key].append(node)
    return [(_compress([node["name"] for node in groups[group_key]]), groups[group_key][0]) for group_key in order]


# --------------------------------------------------------------------------
# Nodes declared by hardware profile (slurm_node_profiles, slurm_image_nodes): booted from an image, never reached
# by Ansible, in slurm.conf before they ever boot

# What a profile gives: the field of `slurmd -C` on such a node that says it, and the largest value (Slurm keeps
# the counts in 16 bits; a RealMemory of 2^30 MB is a PiB).
PROFILE_NUMBERS = (("cpus", "CPUs", 65535), ("sockets", "Boards x SocketsPerBoard", 65535),
                   ("cores_per_socket", "CoresPerSocket", 65535), ("threads_per_core", "ThreadsPerCore", 65535),
                   ("real_memory", "RealMemory (MB)", 2 ** 30))
_PROFILE_KEYS = frozenset([key for key, _field, _most in PROFILE_NUMBERS] + ["gres", "features", "weight"])
_PROFILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}\Z")
_PROFILE_SHAPE = "{cpus, sockets, cores_per_socket, threads_per_core, real_memory; optional gres, features, weight}"
_IMAGE_NODE_KEYS = frozenset(["names", "profile", "addr"])
_IMAGE_NODE_SHAPE = "image nodes such as {names: \"gpu[001-128]\", profile: gpu8}"


def node_profiles(settings):
    """({profile name: its description}, [errors]) from slurm_node_profiles (settings["node_profiles"]).

    A description: cpus, sockets, cores_per_socket, threads_per_core, real_memory (MB, what slurm.conf says:
    no margin is taken off), features, weight (None when unset), gres_lines (gres.conf), gres_value (slurm.conf
    Gres=, what a booting node compares its GPUs with) and gpu_count. The GRES entries, features and weight keep
    the rules of slurm_node_gres, slurm_node_features and slurm_node_weight. A profile with an error is left out.
    """
    value = settings.get("node_profiles")
    if value is None:
        return {}, []
    if not isinstance(value, dict):
        return {}, ["slurm_node_profiles must be a mapping of hardware profiles, profile name -> %s, not %s."
                    % (_PROFILE_SHAPE, _shown(value))]
    profiles, errors = {}, []
    for name, profile in value.items():
        if not isinstance(name, str) or not _PROFILE_NAME.match(name):
            errors.append("slurm_node_profiles: the profile name %s takes letters, digits, _ . and - only (up to 64)."
                          % _shown(name))
            continue
        described, problems = _profile(name, profile)
        errors.extend(problems)
        if described is not None:
            profiles[name] = described
    return profiles, errors


def _profile(name, profile):
    """(one profile's description or None, [errors])."""
    where = "slurm_node_profiles.%s" % name
    if not isinstance(profile, dict):
        return None, ["%s must be a mapping %s, not %s." % (where, _PROFILE_SHAPE, _shown(profile))]
    errors = []
    unknown = sorted(_key_text(key) for key in profile if key not in _PROFILE_KEYS)
    if unknown:
        errors.append("%s has unknown keys %s: use only %s."
                      % (where, ", ".join(unknown), ", ".join(sorted(_PROFILE_KEYS))))
    numbers = {}
    for key, field, most in PROFILE_NUMBERS:
        number = _as_int(profile.get(key))
        if number is None or not 1 <= number <= most:
            errors.append("%s: %s is %s; give a whole number from 1 to %d, what `slurmd -C` prints as %s on such a "
                          "node." % (where, key, "missing" if profile.get(key) is None else _shown(profile.get(key)),
                                     most, field))
            number = None
        numbers[key] = number
    layout = [numbers[key] for key in ("sockets", "cores_per_socket", "threads_per_core")]
    if all(number and number >= 1 for number in layout + [numbers["cpus"]]) \
            and layout[0] * layout[1] * layout[2] != numbers["cpus"]:
        errors.append("%s: sockets x cores_per_socket x threads_per_core is %d x %d x %d = %d, not cpus %d; give the "
                      "layout `slurmd -C` prints on such a node." % (where, layout[0], layout[1], layout[2],
                                                                     layout[0] * layout[1] * layout[2], numbers["cpus"]))
    entries = []
    if profile.get("gres") is not None:
        problems = _check_gres(where + ".gres", profile["gres"])
        errors.extend(problems)
        entries = [] if problems else [dict(entry) for entry in profile["gres"]]
    features, features_ok = _features(profile.get("features"))
    if not features_ok:
        errors.append("%s: features %s: give a list of feature names (letters, digits, _ . -)." % (where, _shown(features)))
    weight = profile.get("weight")
    if not _weight_ok(weight):
        errors.append("%s: weight %s: give a whole number from 1 (lower weights are used first)." % (where, _shown(weight)))
    if errors:
        return None, errors
    value = gres_value(entries)
    return dict(numbers, features=list(features), weight=_as_int(weight) if weight is not None else None,
                gres_lines=[gres_line(entry) for entry in entries], gres_value=value, gpu_count=gres_count(value)), []


def image_nodes(settings, profiles):
    """([{name, profile, addr}] in the order slurm_image_nodes gives them, [errors]) from slurm_image_nodes.

    Each entry: names (a Slurm hostlist such as gpu[001-128]), profile (a name of slurm_node_profiles), addr
    (optional NodeAddr, for an entry of one node). profiles: node_profiles' result; the nodes of a profile with
    errors are left out (the errors are the profile's). A name given twice is an error, and kept once.
    """
    value = settings.get("image_nodes")
    if value is None:
        return [], []
    errors = []
    given = settings.get("node_profiles") if isinstance(settings.get("node_profiles"), dict) else {}
    known = _clip(", ".join(sorted(_key_text(name) for name in given)), 200) or "none yet"
    nodes, places = [], {}
    for where, entry in _mappings(value, "slurm_image_nodes", _IMAGE_NODE_SHAPE, errors):
        unknown = sorted(_key_text(key) for key in entry if key not in _IMAGE_NODE_KEYS)
        if unknown:
            errors.append("%s has unknown keys %s: use only names, profile and addr." % (where, ", ".join(unknown)))
        names = _image_names(where, entry.get("names"), errors)
        profile = entry.get("profile")
        if profile in (None, ""):
            errors.append("%s has no profile: name one of slurm_node_profiles (%s)." % (where, known))
            profile = None
        elif not isinstance(profile, str) or profile not in given:
            errors.append("%s: the profile %s is not in slurm_node_profiles (%s); add it there or fix the name."
                          % (where, _shown(profile), known))
            profile = None
        addr = entry.get("addr")
        addr = "" if addr is None else addr
        if addr != "":
            if not isinstance(addr, str) or not _ADDR.match(addr):
                errors.append("%s: addr %s: give the node's host name or IP address (its NodeAddr)." % (where, _shown(addr)))
                addr = None
            elif names is not None and len(names) != 1:
                errors.append("%s: addr %s is given for %d nodes (%s), but a NodeAddr belongs to one node. Give addr "
                              "only on an entry whose names is one node, or leave it out (slurmctld then reaches the "
                              "nodes by their names)." % (where, addr, len(names), _clip(entry["names"], 80)))
                addr = None
        if names is None:
            continue
        for name in names:
            places.setdefault(name, []).append(where)
        if profile in profiles and addr is not None:
            nodes.extend({"name": name, "profile": profile, "addr": addr} for name in names)
    repeated = {}
    for name, owners in places.items():
        if len(owners) > 1:
            repeated.setdefault(tuple(sorted(set(owners), key=_position)), []).append(name)
    for owners, names in sorted(repeated.items(), key=lambda item: _position(item[0][0])):
        errors.append("%s named more than once in slurm_image_nodes (%s): give each node one entry."
                      % (_clip(_compress(names), 200), "within %s" % owners[0] if len(owners) == 1
                         else "in %s" % " and ".join(owners)))
    seen = set()
    unique = []
    for node in nodes:
        if node["name"] not in seen:
            seen.add(node["name"])
            unique.append(node)
    return unique, errors


def _key_text(key):
    """A mapping's key in a message: text as it is, anything else as _shown shows it (never str() of a huge int)."""
    return key if isinstance(key, str) else _shown(key)


def _position(where):
    """The position of slurm_image_nodes[N] (for the order of messages)."""
    match = re.search(r"\[([0-9]+)\]\Z", where)
    return int(match.group(1)) if match else 0


def _image_names(where, names, errors):
    """The Slurm names of an image node entry's names (a hostlist), or None with the error."""
    if not isinstance(names, str) or not names.strip():
        errors.append("%s has no names: give a Slurm hostlist of its nodes such as \"gpu[001-128]\", not %s."
                      % (where, _shown(names)))
        return None
    try:
        expanded = expand(names)
    except HostlistError as exc:
        errors.append("%s: names %s is not a Slurm hostlist (%s); write it as Slurm does, for example "
                      "\"gpu[001-128]\"." % (where, _shown(names), _clip(str(exc), 200)))
        return None
    bad = [name for name in expanded if not _NODE_NAME.match(name)]
    if bad:
        errors.append("%s: names %s gives %s, which Slurm and hostlists cannot carry as a node name: use letters, "
                      "digits, _ and - (up to 64)." % (where, _shown(names), _shown(bad[0])))
        return None
    return expanded


def _image_node(entry, profile):
    """A compute node of the model from an image node and its profile (source image, no inventory host)."""
    node = {"host": None, "name": entry["name"], "addr": entry["addr"], "memtotal_mb": None,
            "real_memory_given": True, "topology_consistent": True, "gres_lines": list(profile["gres_lines"]),
            "features": list(profile["features"]), "gres_source": "profile", "profile": entry["profile"],
            "source": "image"}
    for key in ("cpus", "sockets", "cores_per_socket", "threads_per_core", "real_memory", "weight", "gres_value",
                "gpu_count"):
        node[key] = profile[key]
    node["mem_per_cpu"] = node["real_memory"] // max(node["cpus"], 1)
    return node


def _image_clash_errors(declared, held):
    """An error when image nodes carry the Slurm name of an inventory host. held: {Slurm name: (host, its group)} of
    the compute, controller and login hosts."""
    clash = sorted(set(node["name"] for node in declared if node["name"] in held))
    if not clash:
        return []
    holders = sorted(set(held[name][0] for name in clash))
    groups = sorted(set(held[name][1] for name in clash))
    return ["slurm_image_nodes declares %s, which the inventory holds too (%s, in %s): a node booted from an image is "
            "no inventory host, since Ansible never reaches it. Take each out of slurm_image_nodes or out of the "
            "inventory group." % (_clip(_compress(clash), 200), _clip(", ".join(holders), 200), " and ".join(groups))]


# --------------------------------------------------------------------------
# Checks of the inventory and settings (no facts needed)

def _check_unique(kind, variable, names, errors):
    seen = {}
    for owner, name in names:
        seen.setdefault(name, []).append(owner)
    for name, owners in sorted(seen.items()):
        if len(owners) > 1:
            errors.append("%s %s is used by %s: %s must be unique. Set %s to tell them apart."
                          % (kind, _shown(name), ", ".join(owners), kind, variable))


def _series_tuple(series):
    match = re.match(r"^\s*(\d+)\.(\d+)", str(series or ""))
    return (int(match.group(1)), int(match.group(2))) if match else None


def login_configless(settings):
    """(whether login nodes run sackd in configless mode, [errors]) from slurm_login_configless and the series.

    auto: where the release ships sackd (Slurm 23.11 and later); true: required (an error on an older release);
    false: login nodes keep slurm.conf like every node.
    """
    value = settings.get("login_configless", "auto")
    if isinstance(value, str) and value.strip().lower() in ("true", "false", "yes", "no"):
        value = value.strip().lower() in ("true", "yes")
    if value not in LOGIN_CONFIGLESS and not (isinstance(value, str) and value.strip().lower() == "auto"):
        return False, ["slurm_login_configless is %s: use auto (sackd where the Slurm release has it), true or false."
                       % _shown(value)]
    series = _series_tuple(settings.get("series"))
    has_sackd = series is not None and series >= SACKD_SERIES
    if value is True and not has_sackd:
        return False, ["slurm_login_configless is true, but Slurm %s has no sackd (it came with 23.11), which fetches a "
                       "login node's configuration without slurmd. Set slurm_login_configless: auto or false (the login "
                       "nodes then keep slurm.conf), or install a later Slurm (slurm_install_from: source)."
                       % _shown(settings.get("series"))]
    return (has_sackd if value not in (True, False) else value), []


def check_inventory(inventory, settings):
    """Input errors that need no gathered facts: groups, names, partitions, GRES overrides, accounts, secrets."""
    errors = []
    controllers = list(inventory.get("controllers") or [])
    computes = list(inventory.get("computes") or [])
    dbd = list(inventory.get("dbd") or [])
    cgroup = settings.get("controller_group", "slurm_controller")
    ngroup = settings.get("compute_group", "slurm_compute")
    dgroup = settings.get("dbd_group", "slurm_dbd")
    if not controllers:
        errors.append("No controller host: the inventory group %s (slurm_controller_group) is empty or missing. "
                      "Add the host that runs slurmctld to it; an inventory that holds part of the cluster (an AWX job slice) "
                      "names it in gpuops_slice_hosts instead." % cgroup)
    elif len(controllers) > 1 and not settings.get("state_save_location"):
        errors.append("The inventory group %s (slurm_controller_group) has %d hosts (%s): the first runs the primary "
                      "slurmctld and the others backups, which take over with the state the primary saved. "
                      "slurm_state_save_location is empty, so each would keep its state on its own disk and a backup "
                      "would take over without the jobs. Set slurm_state_save_location to a directory on storage every "
                      "controller reaches (your shared file system or the collection's NFS export), or keep one host "
                      "in that group." % (cgroup, len(controllers), ", ".join(controllers)))
    if len(dbd) > 2:
        errors.append("The inventory group %s (slurm_dbd_group) has %d hosts (%s); Slurm runs one slurmdbd and at most "
                      "one backup (DbdBackupHost). Keep one or two hosts in that group (the primary first), or none to "
                      "run slurmdbd on the controller." % (dgroup, len(dbd), ", ".join(dbd)))
    elif len(dbd) == 2:
        db_host = str(settings.get("dbd_db_host") or "localhost").strip().lower()
        local = db_host in LOCAL_DB_HOSTS or db_host.split(".", 1)[0] == str(dbd[0]).lower().split(".", 1)[0]
        if settings.get("dbd_install_mariadb", True) is not False or local:
            errors.append("The inventory group %s (slurm_dbd_group) has two hosts (%s): %s runs slurmdbd and %s its backup "
                          "(DbdBackupHost), which takes over with the same database. That database must outlive the "
                          "primary's host: set slurm_dbd_db_host to a database server both reach (not %s) and "
                          "slurm_dbd_install_mariadb: false, with the database and its user made there; or keep one "
                          "host in that group." % (dgroup, ", ".join(dbd), dbd[0], dbd[1],
                                                   _shown(settings.get("dbd_db_host") or "localhost")))
        elif not settings.get("dbd_db_password"):
            errors.append("A backup slurmdbd (%s) needs the database password both slurmdbd hosts use: set "
                          "slurm_dbd_db_password (from your vault)." % dbd[1])
    both = [host for host in controllers if host in set(computes)]
    if both:
        errors.append("%s in both %s (slurm_controller_group) and %s (slurm_compute_group): the controller stays a separate "
                      "host. Remove it from one group." % (", ".join(both), cgroup, ngroup))
    lgroup = settings.get("login_group", "slurm_login")
    for host in inventory.get("logins") or []:
        if host in set(controllers) or host in set(computes):
            errors.append("%s is in %s (slurm_login_group) and in %s: a login node runs neither slurmctld nor slurmd. "
                          "Remove it from one group." % (host, lgroup, cgroup if host in set(controllers) else ngroup))
    errors.extend(login_configless(settings)[1] if inventory.get("logins") else [])
    cluster = settings.get("cluster_name")
    if not isinstance(cluster, str) or not _CLUSTER_NAME.match(cluster):
        errors.append("slurm_cluster_name %s: use lower-case letters, digits, _ and - (up to 40, starting with a letter "
                      "or digit); slurmdbd keys its tables by it." % _shown(cluster))
    key_length = _as_int(settings.get("munge_key_length")) or 0
    if 0 < key_length < 32:
        errors.append("slurm_munge_key is %d characters long; munge needs at least 32. Put a longer random key in your "
                      "vault (for example the output of `openssl rand -base64 96`), or leave it empty to have one "
                      "generated." % key_length)
    hosts = inventory.get("hosts") or {}
    names = []
    for host in computes:
        data = hosts.get(host) or {}
        hvars = data.get("vars") or {}
        facts = data.get("facts") or {}
        name = node_name(host, hvars.get("slurm_node_name"), facts.get("hostname"))
        if not _NODE_NAME.match(name):
            errors.append("The Slurm name of %s is %s, which Slurm and hostlists cannot carry: use letters, digits, _ "
                          "and - (up to 64). Set slurm_node_name for that host." % (host, _shown(name)))
        names.append((host, name))
        if hvars.get("slurm_node_gres") is not None:
            errors.extend(_check_gres_override(host, hvars["slurm_node_gres"]))
    _check_unique("Slurm node name", "slurm_node_name", names, errors)
    ctl_names = []
    for host in controllers:
        data = hosts.get(host) or {}
        ctl_names.append((host, node_name(host, (data.get("vars") or {}).get("slurm_node_name"),
                                          (data.get("facts") or {}).get("hostname"))))
    _check_unique("The Slurm name of a controller", "slurm_node_name", ctl_names, errors)
    profiles, profile_errors = node_profiles(settings)
    errors.extend(profile_errors)
    declared, image_errors = image_nodes(settings, profiles)
    errors.extend(image_errors)
    held = {}
    for host in inventory.get("logins") or []:
        data = hosts.get(host) or {}
        held[node_name(host, (data.get("vars") or {}).get("slurm_node_name"),
                       (data.get("facts") or {}).get("hostname"))] = (host, lgroup)
    held.update((name, (host, cgroup)) for host, name in ctl_names)
    held.update((name, (host, ngroup)) for host, name in names)
    errors.extend(_image_clash_errors(declared, held))
    errors.extend(_check_partitions(settings.get("partitions"), computes, ngroup,
                                    set(node["name"] for node in declared)))
    mpi_default = settings.get("mpi_default")
    if str(mpi_default).startswith("pmix") and settings.get("install_pmix") is False:
        errors.append("slurm_mpi_default is %s but slurm_install_pmix is false: slurmd could not load the PMIx "
                      "library and every srun would fail. Set slurm_install_pmix: true, or slurm_mpi_default: none "
                      "(or pmi2)." % _shown(mpi_default))
    errors.extend(_check_health_check(settings))
    if settings.get("accounting"):
        errors.extend(_check_accounts(settings.get("dbd_accounts")))
        password = settings.get("dbd_db_password")
        if isinstance(password, str) and password and re.search(r"[#\s]", password):
            errors.append("slurm_dbd_db_password holds a '#', a space or a newline: slurmdbd.conf would cut it there "
                          "(StoragePass takes no quoting). Make a new one from letters, digits and punctuation other "
                          "than '#', and store it in your vault.")
    return errors


HEALTH_CHECK_NODE_STATES = ("ALLOC", "ANY", "CYCLE", "IDLE", "MIXED", "NONDRAINED_IDLE")


def _check_health_check(settings):
    """slurm_health_check_interval and slurm_health_check_node_state (slurm.conf HealthCheck*)."""
    errors = []
    if "health_check_interval" in settings:
        interval = _as_int(settings.get("health_check_interval"))
        if interval is None or interval < 1:
            errors.append("slurm_health_check_interval is %s: give the seconds between two runs of the node health "
                          "check (slurmd runs <slurm_config_dir>/healthcheck, which runs healthcheck.d/*), for example "
                          "300. 0 would run it only when slurmd starts; to run no health check, leave healthcheck.d "
                          "empty (do not apply gpuops.cluster.node_health)." % _shown(settings.get("health_check_interval")))
    if "health_check_node_state" in settings:
        state = settings.get("health_check_node_state")
        words = str(state).upper().split(",") if isinstance(state, str) else []
        if not words or any(word not in HEALTH_CHECK_NODE_STATES for word in words):
            errors.append("slurm_health_check_node_state is %s: give %s (several joined by commas; CYCLE spreads the "
                          "runs over the interval)." % (_shown(state), ", ".join(HEALTH_CHECK_NODE_STATES)))
    return errors


def _mappings(items, variable, shape, errors):
    """(where, item) for each mapping of the list items; anything else is an error naming variable[i]."""
    if not isinstance(items, list):
        errors.append("%s must be a list of %s, not %s." % (variable, shape, _shown(items)))
        return []
    found = []
    for position, item in enumerate(items):
        where = "%s[%d]" % (variable, position)
        if isinstance(item, dict):
            found.append((where, item))
        else:
            errors.append("%s must be a mapping (%s), not %s." % (where, shape, _shown(item)))
    return found


def _check_partitions(partitions, computes, group="slurm_compute", image_names=()):
    """Errors of slurm_partitions. A partition's nodes: ALL, or hosts of the compute group and hostlists of image
    nodes (image_names: the Slurm names slurm_image_nodes declares)."""
    errors = []
    names = []
    shape = "partitions such as {name: gpu, nodes: ALL, default: true}"
    for where, part in _mappings(partitions, "slurm_partitions", shape, errors):
        name = part.get("name")
        if not name:
            errors.append("%s has no name: give every partition a name." % where)
            continue
        if not isinstance(name, str) or not _PARTITION_NAME.match(name):
            errors.append("%s: the partition name %s takes letters, digits, _ and - only (up to 64)." % (where, _shown(name)))
            continue
        names.append((where, name))
        unknown = sorted(str(key) for key in part if key not in _PARTITION_KEYS)
        if unknown:
            errors.append("slurm_partitions: partition %s has keys %s; use name, nodes, default and options (any "
                          "PartitionName option goes under options)." % (name, ", ".join(unknown)))
        nodes = part.get("nodes", "ALL")
        if nodes != "ALL":
            listed = [nodes] if isinstance(nodes, str) else nodes
            if not isinstance(listed, list) or not all(isinstance(item, str) for item in listed):
                errors.append("slurm_partitions: partition %s: nodes must be ALL or a list of inventory hosts%s, not %s."
                              % (name, " and hostlists of image nodes" if image_names else "", _shown(nodes)))
            else:
                known = set(computes)
                missing = [item for item in listed if item not in known and not _image_item(item, image_names)]
                if missing and image_names:
                    errors.append("slurm_partitions: partition %s names %s, neither hosts of the %s group (%s) nor "
                                  "image nodes of slurm_image_nodes (%s). Fix the node names, add the hosts to the "
                                  "group, or declare the nodes in slurm_image_nodes."
                                  % (name, _clip(", ".join(missing), 200), group,
                                     _clip(", ".join(computes), 200) or "empty",
                                     _clip(_compress(sorted(image_names)), 200)))
                elif missing:
                    errors.append("slurm_partitions: partition %s names %s, not in the %s group (%s). Fix the node "
                                  "names or add the hosts to the group."
                                  % (name, _clip(", ".join(missing), 200), group,
                                     _clip(", ".join(computes), 200) or "empty"))
        options = part.get("options") or {}
        if not isinstance(options, dict):
            errors.append("slurm_partitions: partition %s: options must be a mapping of PartitionName options, not %s."
                          % (name, _shown(options)))
            continue
        lower = dict((key.lower(), key) for key in PARTITION_OPTIONS)
        for key, value in options.items():
            if key not in PARTITION_OPTIONS:
                close = difflib.get_close_matches(str(key).lower(), sorted(lower), n=1, cutoff=0.8)
                hint = (lower.get(str(key).lower()) or _OWN_KEYS.get(str(key).lower())
                        or (lower[close[0]] if close else None))
                errors.append("slurm_partitions: partition %s: %s is not a PartitionName option%s; see slurm.conf(5), "
                              "PARTITION CONFIGURATION." % (name, _shown(str(key)), " (did you mean %s?)" % hint if hint else ""))
            elif _option_text(value) in (None, "") or re.search(r"[\s#]", _option_text(value)):
                errors.append("slurm_partitions: partition %s: %s=%s would not survive slurm.conf (empty, spaces or '#'); "
                              "give a single word (or a list of words)." % (name, key, _shown(value)))
    _check_unique("Partition name", "slurm_partitions[].name", names, errors)
    return errors


def _image_item(item, image_names):
    """The image node names of one item of a partition's nodes (a hostlist of them), or [] when it is not one."""
    if not image_names:
        return []
    try:
        names = expand(item)
    except HostlistError:
        return []
    return names if all(name in image_names for name in names) else []


def _option_text(value):
    """A PartitionName option's value as slurm.conf writes it (YES/NO, lists joined by commas), or None."""
    if isinstance(value, bool):
        return "YES" if value else "NO"
    if isinstance(value, (str, int, float)):
        return str(value)
    if isinstance(value, list) and all(isinstance(item, (str, int, float)) for item in value):
        return ",".join(_option_text(item) for item in value)
    return None


def _check_accounts(accounts):
    errors = []
    if accounts is None:
        return errors
    names = []
    for where, account in _mappings(accounts, "slurm_dbd_accounts", "accounts with at least a name", errors):
        name = account.get("name")
        if not isinstance(name, str) or not _ACCOUNT_NAME.match(name):
            errors.append("%s: the account name %s takes letters, digits, _ . and - only (up to 64, no newline)."
                          % (where, _shown(name)))
        else:
            names.append((where, name.lower()))
        users = account.get("users") or []
        if not isinstance(users, list):
            errors.append("%s (%s): users must be a list." % (where, name))
            continue
        seen = []
        for index, user in enumerate(users):
            uname = user.get("name") if isinstance(user, dict) else user
            if not isinstance(uname, str) or not _USER_NAME.match(uname):
                errors.append("%s (%s): users[%d] %s is not a user name (lower-case letters, digits, _ . -, starting "
                              "with a letter or _, no newline)." % (where, name, index, _shown(uname)))
            else:
                seen.append(("%s.users[%d]" % (where, index), uname))
        _check_unique("User", "the users list of account %s" % name, seen, errors)
    _check_unique("Account name", "slurm_dbd_accounts[].name", names, errors)
    return errors


# --------------------------------------------------------------------------
# The model

def _host_entry(host, controllers, computes, dbd_hosts, configless, names, rest_hosts=(), jwt=False, logins=(),
                login_configless=False):
    is_controller = host in controllers
    is_compute = host in computes
    is_dbd = host in dbd_hosts
    is_login = host in logins and not is_controller and not is_compute
    sackd = is_login and bool(login_configless)
    return {
        # slurmrestd runs here; the JWT key is kept here (the controllers and slurmdbd hosts, with the REST API).
        "rest": host in rest_hosts,
        "jwt": bool(jwt) and (is_controller or is_dbd),
        "name": names.get(host) or node_name(host),
        "controller": is_controller,
        "compute": is_compute,
        "dbd": is_dbd,
        "dbd_only": is_dbd and not is_controller and not is_compute,
        # A login node: the Slurm commands, munge, no slurmd; with sackd (configless) it holds no configuration.
        "login": is_login,
        "sackd": sackd,
        "holds_config": is_controller or is_dbd or (is_compute and not configless) or (is_login and not sackd),
        "writes_gres": (configless and is_controller) or (not configless and is_compute),
        "gres_conf": [],
    }


def _partition_lines(partitions, nodes_by_host, image_names=()):
    """PartitionName lines: Nodes=ALL, or the Slurm names of the hosts listed and of the image nodes of the
    hostlists listed."""
    lines = []
    for part in partitions if isinstance(partitions, list) else []:
        if not isinstance(part, dict) or not isinstance(part.get("name"), str) or not part["name"]:
            continue
        nodes = part.get("nodes", "ALL")
        if nodes == "ALL":
            text = "ALL"
        else:
            listed = [nodes] if isinstance(nodes, str) else nodes if isinstance(nodes, list) else []
            names = []
            for item in listed:
                if isinstance(item, str) and item in nodes_by_host:
                    names.append(nodes_by_host[item]["name"])
                elif isinstance(item, str):
                    names.extend(_image_item(item, image_names))
            text = _compress(names)
        parts = ["PartitionName=%s" % part["name"], "Nodes=%s" % text]
        default = part.get("default", False)
        if default is True or str(default).lower() in ("yes", "true", "1"):
            parts.append("Default=YES")
        options = part.get("options") or {}
        for key, value in (options.items() if isinstance(options, dict) else []):
            parts.append("%s=%s" % (key, _option_text(value)))
        lines.append(" ".join(parts))
    return lines


def restart_fingerprint(settings, nodes, configless, restart_keys):
    """What only a restart of slurmctld and slurmd applies: the restart keys' values and the node definitions."""
    node_items = []
    for names, node in group_nodes(nodes, lambda n: (n["gres_value"], n["real_memory"], n["cpus"])):
        node_items.append("%s:%s:%s:%s" % (names, node["gres_value"], node["real_memory"], node["cpus"]))
    wanted = dict((str(key).lower(), key) for key in restart_keys)
    return {
        "settings": dict((wanted[str(key).lower()], _json_value(settings[key])) for key in sorted(settings, key=str)
                         if str(key).lower() in wanted and settings[key] is not None),
        "nodes": node_items,
        "configless": bool(configless),
    }


def _json_value(value):
    if isinstance(value, (list, tuple)):
        return [_json_value(item) for item in value]
    return value


# A restart record is a mapping of settings (values: text, numbers, lists of them) and node lines: nothing in it is
# nested deeper than this. A deeper one (hand-edited, or garbage) is no record; it is never walked recursively.
RECORD_DEPTH = 8


def _deeper_than(value, limit):
    """Whether lists and mappings in value nest deeper than limit (found without recursion)."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (list, tuple, dict)):
            if depth >= limit:
                return True
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return False


def _value_text(value):
    """A setting's value in a change message: text as it is, anything else as repr() shows it (cut at 200)."""
    return value if isinstance(value, str) else shown(value, 200)


def _expand_fingerprint_nodes(items):
    result = {}
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, str):
            continue  # not a node line of a record: nothing to compare
        names, _sep, rest = item.partition(":")
        try:
            hosts = expand(names)
        except HostlistError:
            hosts = [names]
        for host in hosts:
            result[host] = rest
    return result


# Slurm 23.11 made `scontrol reconfigure` start new slurmctld and slurmd processes on the new files (scontrol(1)),
# and slurm.conf(5) says since then that a change of the node definitions needs "restarting or reconfiguring" every
# daemon. Before 23.11 a reconfigure did not re-read the nodes: a change to any node's definition needed slurmctld and
# every slurmd restarted.
RECONFIGURE_NODES_SINCE = (23, 11)


def restart_plan(recorded, new, restart_keys, daemons_active, record_stale, host=None, series=None):
    """What only a restart applies on one host this run ([] for nothing to restart).

    recorded: the record's text (JSON), or None when the host has none.
    daemons_active: whether the host's daemon (slurmctld, slurmd) ran before
    this run. One that did not starts on the new files, so nothing needs a
    restart there; a running daemon with no record gets ["first start"]
    (started by something else, or by an earlier version of the collection).
    record_stale: whether the record differs from the new fingerprint.
    host: the host's part of the model (name, controller, compute); None
    gives every change (the whole cluster's view). series: the Slurm release
    ("24.11"); decides whether a node definition change reaches only the
    node it describes (23.11 and later) or every daemon (before, or unknown).
    """
    if not record_stale or not daemons_active:
        return []
    if recorded is None:
        return ["first start"]
    try:
        old = json.loads(recorded)
    except (ValueError, TypeError, RecursionError):
        # Not JSON, not text, or brackets nested past what the decoder recurses through: no record.
        old = None
    if host is None:
        return restart_changes(old, new, restart_keys)
    return host_restart_changes(old, new, restart_keys, host, series)


# slurm_restart_batch: how many slurmd a restart takes down at once, at most (the handlers' throttle).
RESTART_BATCH_MAX = 10000


def restart_batch_errors(value):
    """A message when slurm_restart_batch is not a whole number from 1 to RESTART_BATCH_MAX, else []."""
    if value is None:
        return []
    number = value
    if isinstance(value, str) and value.strip().isdigit() and len(value.strip()) <= 5:
        number = int(value.strip())
    if isinstance(number, int) and not isinstance(number, bool) and 1 <= number <= RESTART_BATCH_MAX:
        return []
    return ["slurm_restart_batch is %s: give a whole number from 1 to %d, the most slurmd restarted at once "
            "(the next ones restart when these have started)." % (_shown(value), RESTART_BATCH_MAX)]


def host_restart_changes(old, new, restart_keys, host, series):
    """The changes of restart_changes that one host's daemons must be restarted for.

    A restart key or configless mode: every host. A node definition (GPUs,
    memory, CPUs): on Slurm 23.11 and later only that node's slurmd (the
    controller and the other nodes take it with scontrol reconfigure); before
    23.11, or with the release unknown, slurmctld and every slurmd.
    """
    host = host if isinstance(host, dict) else {}
    if not isinstance(old, dict) or _deeper_than(old, RECORD_DEPTH):
        return ["no record of the settings the daemons run with"]
    new = new if isinstance(new, dict) and not _deeper_than(new, RECORD_DEPTH) else {}
    release = version_tuple(series) if isinstance(series, str) else None
    if release is None or release[:2] < RECONFIGURE_NODES_SINCE:
        return restart_changes(old, new, restart_keys)
    changes = restart_changes(dict(old, nodes=[]), dict(new, nodes=[]), restart_keys)
    name = host.get("name")
    if host.get("compute") and isinstance(name, str):
        before = _expand_fingerprint_nodes(old.get("nodes")).get(name)
        after = _expand_fingerprint_nodes(new.get("nodes")).get(name)
        if before != after:
            changes.append("node definition of %s (gres:memory:cpus) %s -> %s"
                           % (name, "(none)" if before is None else before, "(none)" if after is None else after))
    return changes


def bundle_handlers(bundle, host, probe, daemons_active):
    """The handlers a write of one host's file bundle notifies ([] for none), in a fixed order.

    bundle: the entries about to be written, by kind (munge, config, slurmd,
    jwt, rest; an empty list for a kind with nothing to write). host: the host's part of
    the model (its compute flag). probe: what host_probe found before this run
    (packages, services). daemons_active: whether the host's Slurm daemon ran
    before this run.

    Only a daemon that ran before this run is restarted or reconfigured: one
    that did not starts on the new files. A new munge key restarts munge where
    its package is installed; new configuration files reconfigure slurmctld and
    slurmd; a changed unit drop-in reloads systemd first; new slurmd files
    (options, drop-in, gres.conf) restart a slurmd that runs on a node; a new
    JWT key reconfigures (slurmctld restarts in place); slurmrestd's new
    drop-in restarts a slurmrestd that ran.
    """
    bundle = bundle if isinstance(bundle, dict) else {}
    probe = probe if isinstance(probe, dict) else {}
    packages = probe.get("packages") if isinstance(probe.get("packages"), dict) else {}
    services = probe.get("services") if isinstance(probe.get("services"), dict) else {}
    slurmd_unit = services.get("slurmd") if isinstance(services.get("slurmd"), dict) else {}
    host = host if isinstance(host, dict) else {}
    slurmd_files = [entry for entry in bundle.get("slurmd") or [] if isinstance(entry, dict)]
    rest_files = [entry for entry in bundle.get("rest") or [] if isinstance(entry, dict)]
    rest_unit = services.get("slurmrestd") if isinstance(services.get("slurmrestd"), dict) else {}
    handlers = []
    if bundle.get("munge") and packages.get("munge"):
        handlers.append("restart munge")
    # A new JWT key is read when slurmctld restarts, which scontrol reconfigure does from 23.11 on.
    if (bundle.get("config") or bundle.get("jwt")) and daemons_active:
        handlers.append("reconfigure")
    if any(".service.d" in str(entry.get("path", "")) for entry in slurmd_files + rest_files):
        handlers.append("daemon reload")
    if slurmd_files and host.get("compute") and slurmd_unit.get("active"):
        handlers.append("restart slurmd")
    sackd_unit = services.get("sackd") if isinstance(services.get("sackd"), dict) else {}
    if slurmd_files and host.get("sackd") and sackd_unit.get("active"):
        handlers.append("restart sackd")
    # slurmrestd reads its options at start; a new slurm.conf it reads on each request's connection.
    if (rest_files or bundle.get("jwt")) and host.get("rest") and rest_unit.get("active"):
        handlers.append("restart slurmrestd")
    return handlers


def restart_changes(old, new, restart_keys):
    """Human-readable changes between two restart records that only a restart applies ([] when none).

    Node lists may be grouped (gpu[01-08]:...) or not: they are compared node by node.
    """
    if not isinstance(old, dict) or _deeper_than(old, RECORD_DEPTH):
        return ["no record of the settings the daemons run with"]
    new = new if isinstance(new, dict) and not _deeper_than(new, RECORD_DEPTH) else {}
    changes = []
    old_settings = old.get("settings") if isinstance(old.get("settings"), dict) else {}
    new_settings = new.get("settings") if isinstance(new.get("settings"), dict) else {}
    for key in sorted(str(key) for key in restart_keys or []):
        before = old_settings.get(key)
        after = new_settings.get(key)
        if _json_value(before) != _json_value(after):
            changes.append("%s %s -> %s" % (key, "(unset)" if before is None else _value_text(before),
                                            "(unset)" if after is None else _value_text(after)))
    before_nodes = _expand_fingerprint_nodes(old.get("nodes"))
    after_nodes = _expand_fingerprint_nodes(new.get("nodes"))
    if before_nodes != after_nodes:
        gone = sorted(set(before_nodes) - set(after_nodes))
        added = sorted(set(after_nodes) - set(before_nodes))
        differ = sorted(name for name in set(before_nodes) & set(after_nodes) if before_nodes[name] != after_nodes[name])
        parts = []
        if gone:
            parts.append("removed %s" % _compress(gone))
        if added:
            parts.append("added %s" % _compress(added))
        for name in differ[:8]:
            parts.append("%s %s -> %s" % (name, before_nodes[name], after_nodes[name]))
        if len(differ) > 8:
            parts.append("and %d more changed" % (len(differ) - 8))
        changes.append("node definitions (gres:memory:cpus): %s" % "; ".join(parts))
    if bool(old.get("configless")) != bool(new.get("configless")):
        changes.append("configless mode %s -> %s" % (bool(old.get("configless")), bool(new.get("configless"))))
    return changes


def _merge(*layers):
    merged = {}
    spelling = {}
    for layer in layers:
        # A layer that is not a mapping is reported by the caller (check_keys or _mapping).
        for key, value in (layer.items() if isinstance(layer, dict) else []):
            # Slurm reads keys without regard to case: a later layer's key replaces an earlier one written in
            # another case (keeping the first spelling), rather than giving slurm.conf the key twice.
            key = spelling.setdefault(str(key).lower(), key)
            merged[key] = value
    return merged


def _sets(config, *keys):
    """Whether the settings mapping config gives one of keys (in any case) a value."""
    wanted = set(key.lower() for key in keys)
    return isinstance(config, dict) and any(str(key).lower() in wanted and value is not None
                                            for key, value in config.items())


def _mapping(settings, key, variable, errors):
    """settings[key] when it is a mapping (or unset); else {} and an error naming the variable."""
    value = settings.get(key)
    if value is None or isinstance(value, dict):
        return value or {}
    errors.append("%s must be a mapping of Slurm settings, not %s." % (variable, _shown(value)))
    return {}


def _record_node(host, name, record, data, settings, errors):
    """A compute node described by the running slurm.conf's record (no fresh facts of it in this run): the
    hardware as the controller holds it; what the inventory gives (NodeAddr, features, weight, GRES, RealMemory)
    over it, as for any node. host None: a node the inventory does not hold (kept as it is)."""
    hvars = (data or {}).get("vars") or {}
    node = {"host": host, "name": name, "addr": record.get("addr") or "", "memtotal_mb": None,
            "cpus": record["cpus"], "sockets": record["sockets"], "cores_per_socket": record["cores_per_socket"],
            "threads_per_core": record["threads_per_core"], "real_memory": record["real_memory"],
            "real_memory_given": False, "features": list(record["features"]), "weight": record["weight"],
            "gres_lines": list(record["gres_lines"]), "gres_value": record["gres_value"], "gres_source": "running",
            "gpu_count": record["gpu_count"]}
    node["topology_consistent"] = (node["cpus"] > 0 and node["sockets"] > 0
                                   and node["sockets"] * node["cores_per_socket"] * node["threads_per_core"] == node["cpus"])
    if host is not None:
        given = _node(host, {"facts": {"memtotal_mb": max(node["real_memory"], 1), "processor_vcpus": node["cpus"],
                                       "processor_count": node["sockets"], "processor_cores": node["cores_per_socket"],
                                       "processor_threads_per_core": node["threads_per_core"]},
                             "vars": dict((key, value) for key, value in hvars.items()
                                          if key not in ("slurm_node_real_memory",)),
                             "gpus": None}, settings, errors, [])
        if hvars.get("slurm_node_addr"):
            node["addr"] = given["addr"]
        if hvars.get("slurm_node_features") is not None:
            node["features"] = given["features"]
        if hvars.get("slurm_node_weight") is not None:
            node["weight"] = given["weight"]
        if hvars.get("slurm_node_gres") is not None:
            node.update(gres_lines=given["gres_lines"], gres_value=given["gres_value"], gres_source="inventory",
                        gpu_count=given["gpu_count"])
        memory = _as_int(hvars.get("slurm_node_real_memory"))
        if memory is not None and memory > 0:
            node.update(real_memory=memory, real_memory_given=True)
    node["mem_per_cpu"] = node["real_memory"] // max(node["cpus"], 1)
    return node


def _compute_nodes(computes, hosts, settings, errors, warnings, records=None, reached=None, declared=(),
                   profiles=None):
    """The compute nodes, each from its best source (module_utils/slurm/_node_sources.py: facts of this run, the
    running slurm.conf, cached facts, a hardware profile), their RealMemory lowered to their group's; the memory
    groups; and {source: [Slurm names]}.

    records: the running slurm.conf's node descriptions; reached: the hosts this run reached (None: every host's
    facts are this run's). declared: the image nodes (image_nodes), each described by its profile of profiles,
    whatever the records say. Nodes the records hold and neither the inventory nor declared does are kept as they
    are, unless slurm_remove_nodes names them.
    """
    records = records or {}
    nodes = []
    sources = {}
    for host in computes:
        data = hosts.get(host) or {}
        node = _node(host, data, settings, errors, warnings)
        in_run = reached is None or host in reached
        source = node_source(in_run, not node.get("facts_missing"), node["name"] in records)
        if source == "running":
            node = _record_node(host, node["name"], records[node["name"]], data, settings, errors)
        node["source"] = source
        sources.setdefault(source, []).append(node["name"])
        if source != "none":
            nodes.append(node)
    held = set(node["name"] for node in nodes) | set(sources.get("none", []))
    for entry in declared or ():
        if entry["name"] in held:
            continue  # an inventory host's name too: check_inventory's error
        nodes.append(_image_node(entry, profiles[entry["profile"]]))
        sources.setdefault("image", []).append(entry["name"])
    remove = settings.get("remove_nodes")
    remove = remove if isinstance(remove, list) else []
    known = set(node["name"] for node in nodes) | set(sources.get("none", []))
    for name in sorted(records):
        if name in known or name in remove:
            continue
        node = _record_node(None, name, records[name], {}, settings, errors)
        node["source"] = "kept"
        sources.setdefault("kept", []).append(name)
        nodes.append(node)
    if sources.get("none"):
        warnings.append("No description of %s: not reached in this run, not in the running slurm.conf and no cached "
                        "facts, so left out of slurm.conf until a run reaches it." % _compress(sources["none"]))
    if sources.get("kept"):
        warnings.append("Kept in slurm.conf as the running one describes them, though the inventory (%s) does not "
                        "hold them: %s. A --limit, an AWX slice or an inventory mistake never removes a node; "
                        "slurm_remove_nodes does." % (settings.get("compute_group", "slurm_compute"),
                                                      _compress(sources["kept"])))
    lowered, memory_groups = group_real_memory(nodes, real_memory_setting(settings, "real_memory_group_pct"))
    for node in nodes:
        if node["name"] in lowered:
            node["real_memory"] = lowered[node["name"]]
            node["mem_per_cpu"] = node["real_memory"] // max(node["cpus"], 1)
    return nodes, memory_groups, sources


# The reason the Slurm plays drain a GPU node whose nvidia-smi failed with (the prefix; the error follows). A node
# drained with it is resumed by the first run that finds nvidia-smi working there again.
GPU_FAILED_REASON = "gpuops: nvidia-smi failed"


def gpu_failed_reason(said):
    """The drain reason of a GPU node whose nvidia-smi failed: GPU_FAILED_REASON, then what it said (cut at 120)."""
    said = _clip(str(said), 120) if said is not None else ""
    return "%s: %s" % (GPU_FAILED_REASON, said) if said else GPU_FAILED_REASON


def _smi_failed(gpus):
    """Whether gpu_facts says nvidia-smi failed on a node whose PCI bus or /dev shows NVIDIA GPUs."""
    gpus = gpus if isinstance(gpus, dict) else {}
    status = gpus.get("status") or "ok"
    return status not in ("ok", "no_nvidia_smi", "no_devices") and bool(gpus.get("pci_gpus") or gpus.get("device_files"))


def _gres_losses(nodes, hosts, running_conf, settings, errors, warnings, records=None):
    """GPUs the running slurm.conf has and the new one drops: errors, or warnings with slurm_allow_gres_decrease.

    A node whose nvidia-smi failed while it has NVIDIA GPUs, which the running slurm.conf describes, is no stop for
    the others: it keeps that description (its GPUs), and is returned ({host, name, reason}) to be drained with the
    reason and left out of the run. Returns those nodes.
    """
    running = parse_node_gres(running_conf) if running_conf else {}
    records = records or {}
    losses = []
    failed = []
    image_losses = {}
    for position, node in enumerate(nodes):
        if node.get("source") in ("running", "kept"):
            continue  # described as the running slurm.conf has it: nothing is lowered
        if node.get("source") == "image":
            before = running.get(node["name"])
            if before is not None and node["gpu_count"] < before:
                image_losses.setdefault((node["profile"], before, node["gpu_count"]), []).append(node["name"])
            continue
        data = hosts.get(node["host"]) or {}
        loss = _gpu_loss(node, data.get("gpus"), running)
        if not loss:
            continue
        if (not settings.get("allow_gres_decrease") and node.get("gres_source") != "inventory"
                and _smi_failed(data.get("gpus")) and node["name"] in records):
            said = _clip(str(data["gpus"].get("error") or data["gpus"].get("status")), 120)
            kept = _record_node(node["host"], node["name"], records[node["name"]], data, settings, errors)
            kept["source"] = "running"
            nodes[position] = kept
            failed.append({"host": node["host"], "name": node["name"], "reason": gpu_failed_reason(said)})
            warnings.append("%s: nvidia-smi failed (%s) but the node has NVIDIA GPUs: it is drained with that reason and "
                            "left out of this run, and slurm.conf keeps its GPUs as the running one has them. Reboot "
                            "the node or reload the NVIDIA driver, then run again: the run that finds nvidia-smi "
                            "working resumes it." % (node["host"], said))
            continue
        losses.append(loss)
    for (profile, before, after), names in sorted(image_losses.items()):
        losses.append("%s (slurm_image_nodes, profile %s): the running slurm.conf gives them %d GPUs but the profile's "
                      "gres gives %d; writing that would take GPUs out of service. Fix the gres of %s in "
                      "slurm_node_profiles, or set slurm_allow_gres_decrease: true to write the nodes with fewer GPUs "
                      "on purpose." % (_clip(_compress(names), 200), profile, before, after, profile))
    if settings.get("allow_gres_decrease"):
        warnings.extend("slurm_allow_gres_decrease is true, so this is written anyway: " + loss for loss in losses)
    else:
        errors.extend(losses)
    return failed


def _slurmctld_hosts(ctl_entries):
    """SlurmctldHost: one line per controller, the primary first (name, or name(address))."""
    values = [entry["name"] + ("(%s)" % entry["addr"] if entry["addr"] else "") for entry in ctl_entries]
    if not values:
        return ""
    return values[0] if len(values) == 1 else Repeated(values)


def _health_check_timeout(conf, series, user_config):
    """Slurm 26.05 (the first catalogued release with HealthCheckTimeout, default 60 s) logs an error on every daemon
    start when the timeout is not less than HealthCheckInterval ("HealthCheckTimeout (60) must be less than
    HealthCheckInterval (5), please review", seen in Molecule): a shorter interval gets a timeout 1 s shorter,
    unless slurm_config sets one."""
    try:
        known = series is not None and "HealthCheckTimeout" in SLURM_CONF_KEYS[series_for(series)]
    except SlurmConfError:
        return
    if not known or any(str(key).lower() == "healthchecktimeout" for key in (user_config if isinstance(user_config, dict) else {})):
        return
    interval = _as_int(conf.get("HealthCheckInterval"))
    if interval is not None and 2 <= interval <= HEALTH_CHECK_TIMEOUT_DEFAULT:
        conf["HealthCheckTimeout"] = interval - 1


def _slurm_settings(settings, nodes, ctl_entries, dbd_entry, topology, errors, serve_configless=None):
    """slurm.conf's and cgroup.conf's settings, merged: defaults, what the model knows (the topology plugin
    model_topology chose among them), accounting, the user's. serve_configless: slurmctld serves the configuration
    (configless slurmd, or sackd on the login nodes); default: the configless setting."""
    configless = bool(settings.get("configless")) if serve_configless is None else bool(serve_configless)
    user_config = settings.get("config") if isinstance(settings.get("config"), dict) else {}
    legacy = [key.lower() for key in LEGACY_CONTROLLER_KEYS]
    clash = sorted(str(key) for key in user_config if str(key).strip().lower() in legacy)
    if clash:
        group = settings.get("controller_group", "slurm_controller")
        errors.append("slurm_config sets %s, the old spelling of the controllers: the collection writes SlurmctldHost "
                      "from the inventory group %s (slurm_controller_group), and slurmctld ignores BackupController "
                      "and BackupAddr once SlurmctldHost is set. Remove %s from slurm_config; give a controller's "
                      "address with slurm_node_addr on that host." % (", ".join(clash), group, ", ".join(clash)))
    computed = {
        "ClusterName": settings.get("cluster_name"),
        "SlurmctldHost": _slurmctld_hosts(ctl_entries),
        "SlurmUser": settings.get("user"),
        "StateSaveLocation": settings.get("state_dir"),
        "SlurmdSpoolDir": settings.get("spool_dir"),
        "SlurmctldPidFile": settings.get("slurmctld_pidfile"),
        "SlurmdPidFile": settings.get("slurmd_pidfile"),
        "SlurmctldLogFile": "%s/slurmctld.log" % settings.get("log_dir"),
        "SlurmdLogFile": "%s/slurmd.log" % settings.get("log_dir"),
        "SlurmctldParameters": "enable_configless" if configless else None,
        # Memory per CPU for jobs that do not ask: the smallest node's share. Not beside a DefMemPerNode or
        # DefMemPerGPU of slurm_config: they exclude each other, and slurmctld would take DefMemPerCPU.
        "DefMemPerCPU": (min(node["mem_per_cpu"] for node in nodes)
                         if nodes and not _sets(settings.get("config"), "DefMemPerNode", "DefMemPerGPU") else None),
    }
    if topology["written"]:
        wanted = (settings.get("config") or {}).get("TopologyPlugin") if isinstance(settings.get("config"), dict) else None
        if wanted not in (None, "", topology["plugin"]):
            errors.append("slurm_config sets TopologyPlugin=%s, but the collection writes topology.conf for %s (%s) "
                          "Choose the plugin with slurm_topology (tree, block, none) and leave TopologyPlugin out of "
                          "slurm_config." % (_shown(wanted), topology["plugin"], topology["reason"]))
        computed["TopologyPlugin"] = topology["plugin"]
    accounting = {}
    if settings.get("accounting"):
        accounting = _merge(_mapping(settings, "accounting_config", "slurm_accounting_config", errors),
                            {"AccountingStorageHost": dbd_entry["name"], "AccountingStoragePort": settings.get("dbd_port"),
                             "AccountingStorageBackupHost": dbd_entry.get("backup_name") or None})
    user_config = settings.get("config") or {}
    cgroup_config = settings.get("cgroup_config") or {}
    series = settings.get("series")
    for values, kind, var in ((user_config, "slurm.conf", "slurm_config"), (cgroup_config, "cgroup.conf", "slurm_cgroup_config")):
        try:
            errors.extend(check_keys(values, kind, series, var))
        except SlurmConfError as exc:
            errors.append("%s: %s" % (var, exc))
    conf = _merge(_mapping(settings, "config_defaults", "the collection's slurm.conf defaults", errors), computed,
                  accounting, user_config)
    _health_check_timeout(conf, series, user_config)
    # Slurm's own interfaces (module_utils/slurm/_slurm_rest.py): JWT for the REST API, native metrics by release.
    # Given in slurm_config, the user's values stand.
    own = rest_conf(settings.get("rest"), settings.get("jwt_key_path"))
    metrics, metrics_errors = metrics_conf(settings.get("native_metrics"), series, conf)
    errors.extend(metrics_errors)
    for key, value in list(own.items()) + list(metrics.items()):
        if not _sets(user_config, key):
            conf[key] = value
    if configless:
        # slurm_config's own SlurmctldParameters keep configless mode on: slurmd fetches its configuration with it.
        # (A value of another type is left to render_lines, which reports it.)
        value = conf.get("SlurmctldParameters") or ""
        items = value.split(",") if isinstance(value, str) else value
        if isinstance(items, list) and all(isinstance(item, str) for item in items):
            items = [item.strip() for item in items if item.strip()]
            if "enable_configless" not in items:
                conf["SlurmctldParameters"] = ",".join(items + ["enable_configless"])
    cgroup_defaults = _mapping(settings, "cgroup_defaults", "the collection's cgroup.conf defaults", errors)
    cgroup = _merge(cgroup_defaults.get(series if isinstance(series, str) else None) or cgroup_defaults.get("24.11"),
                    cgroup_config)
    return conf, cgroup


def gres_autodetect(settings):
    """(gres.conf's AutoDetect value or None for off, [error messages]) of slurm_gres_autodetect."""
    value = settings.get("gres_autodetect", "off")
    value = "off" if value is None or value is False else value
    if value not in GRES_AUTODETECT:
        return None, ["slurm_gres_autodetect is %s; use off (the collection's gres.conf from gpu_facts), nvml or "
                      "nvidia (Slurm 24.11 and later)." % _shown(value)]
    if value == "off":
        return None, []
    errors = []
    series = settings.get("series")
    release = version_tuple(series) if isinstance(series, str) else None
    if value == "nvidia" and release is not None and release[:2] < AUTODETECT_NVIDIA_SINCE:
        errors.append("slurm_gres_autodetect: nvidia needs Slurm 24.11 or later (gpu/nvidia); this is Slurm %d.%02d. "
                      "Use nvml, or install a newer Slurm (slurm_install_from: source)." % release[:2])
    if value == "nvml" and settings.get("install_from") == "source" and settings.get("source_nvml") is False:
        errors.append("slurm_gres_autodetect: nvml needs Slurm built with NVML, and slurm_source_nvml is false; "
                      "set slurm_source_nvml: true (the packages are built again), or use nvidia.")
    return value, errors


def _host_entries(inventory, nodes, names, dbd_hosts, configless, autodetect=None, rest_hosts=(), jwt=False,
                  login_configless=False, serve_images=False):
    """Each Slurm host's entry (its roles, its gres.conf lines, AutoDetect first when set), by inventory name.

    serve_images: image nodes fetch their configuration from the controllers (slurmd --conf-server) even when
    the converged nodes keep their own files: the controllers then hold every node's gres.conf lines
    (NodeName=...), as in configless mode, and the converged nodes their own."""
    controllers = list(inventory.get("controllers") or [])
    computes = list(inventory.get("computes") or [])
    dbd = list(inventory.get("dbd") or [])
    logins = list(inventory.get("logins") or [])
    host_entries = {}
    for host in controllers + computes + dbd + logins:
        if host not in host_entries:
            host_entries[host] = _host_entry(host, set(controllers), set(computes), dbd_hosts, configless, names,
                                             set(rest_hosts), jwt, set(logins), login_configless)
    first = ["AutoDetect=%s" % autodetect] if autodetect else []
    for node in nodes:
        if node["host"] not in host_entries:
            continue  # kept from the running slurm.conf: no host of the inventory
        entry = host_entries[node["host"]]
        entry["gres_conf"] = [] if configless else first + list(node["gres_lines"])
    serves = configless or serve_images
    configless_gres = list(first) if serves else []
    if serves:
        for names_expr, node in group_nodes(nodes, lambda n: tuple(n["gres_lines"])):
            configless_gres.extend("NodeName=%s %s" % (names_expr, line) for line in node["gres_lines"])
    for host in controllers:  # every controller serves the configuration in configless mode
        host_entries[host]["gres_conf"] = configless_gres if serves else []
        host_entries[host]["writes_gres"] = host_entries[host]["writes_gres"] or serves
    return host_entries


def _topology_key(node):
    """The key a node has in the topology plan: its inventory host, or its Slurm name for a node kept from the running
    slurm.conf (no inventory host)."""
    return node["host"] if node["host"] is not None else node["name"]


def _topology_inputs(nodes, hosts, kept_places=None):
    """(node_switches, blocks, gpus) for the topology plan from each node's slurm_topology_switch and
    slurm_topology_block and its GPUs' NVLink fabric; a node kept from the running slurm.conf keeps its place in the
    running topology.conf (kept_places: parse_topology_places)."""
    switches, blocks, gpus = {}, {}, {}
    for node in nodes:
        if node["host"] is None:
            place = (kept_places or {}).get(node["name"]) or {}
            if place.get("switch"):
                switches[node["name"]] = place["switch"]
            if place.get("block"):
                blocks.setdefault(place["block"], []).append(node["name"])
            continue
        data = hosts.get(node["host"]) or {}
        node_vars = data.get("vars") or {}
        if node_vars.get("slurm_topology_switch") not in (None, ""):
            switches[node["host"]] = node_vars["slurm_topology_switch"]
        block = node_vars.get("slurm_topology_block")
        if block not in (None, ""):
            blocks.setdefault(block if isinstance(block, str) else _shown(block), []).append(node["host"])
        fabric = data.get("gpu_fabric")
        if isinstance(fabric, list) and fabric:
            gpus[node["host"]] = {"gpus": [{"fabric": item} for item in fabric]}
    # The blocks the running topology.conf lists keep its order; new ones follow in inventory order.
    order = [name for name in (kept_places or {}).get(BLOCK_ORDER) or [] if name in blocks]
    rest = [(name, members) for name, members in blocks.items() if name not in order]
    blocks = dict([(name, blocks[name]) for name in order] + rest)
    return switches, blocks, gpus


def _missing_text(missing):
    """Missing nodes grouped by why: 'gpu[03-04] (not in node_switches ...); gpu09 (...)'."""
    by_reason = {}
    for entry in missing:
        by_reason.setdefault(entry["reason"], []).append(entry["node"])
    return "; ".join("%s (%s)" % (_compress(names), reason) for reason, names in sorted(by_reason.items()))


def _topology_words(text):
    """A topology plan message in the words of the role's variables."""
    return _TOPOLOGY_WORD_RE.sub(lambda match: _TOPOLOGY_WORDS[match.group(0)], text)


def model_topology(settings, nodes, hosts, errors, warnings, kept_places=None):
    """The cluster's topology.conf (module_utils/fabric/_topology.py's plan) from the slurm_topology* settings, each
    node's slurm_topology_switch and slurm_topology_block, and its GPUs' NVLink fabric.

    Returns {plugin: the plugin chosen, written: whether topology.conf and TopologyPlugin are written (tree or
    block), reason, lines, notes, missing: [Slurm names]}. A node the topology leaves out is an error (named,
    with why) unless allow_missing is set, then a warning.
    """
    topo = settings.get("topology")
    result = {"plugin": None, "written": False, "reason": None, "lines": [], "notes": [], "missing": []}
    if topo is None:
        return result
    if not isinstance(topo, dict):
        errors.append("The topology settings (slurm_topology*) must be a mapping, not %s." % _shown(topo))
        return result
    unknown = sorted(str(key) for key in topo if key not in TOPOLOGY_SETTINGS)
    if unknown:
        errors.append("The topology settings have unknown key(s) %s; known: %s."
                      % (_shown(", ".join(unknown)), ", ".join(sorted(TOPOLOGY_SETTINGS))))
        return result
    switches, blocks, gpus = _topology_inputs(nodes, hosts, kept_places)
    plan = topology_plan(dict((_topology_key(node), node["name"]) for node in nodes), settings.get("series"), {
        "plugin": topo.get("plugin") or "auto", "node_switches": switches, "blocks": blocks, "gpus": gpus,
        "switch_parents": topo.get("switch_parents") or {}, "block_sizes": topo.get("block_sizes") or None,
        "ibnetdiscover": topo.get("ibnetdiscover") or "", "ca_hosts": topo.get("ca_hosts") or {}})
    if plan["errors"]:
        errors.append("Topology (slurm_topology): %s." % _topology_words("; ".join(plan["errors"])).rstrip("."))
        return result
    result.update(plugin=plan["plugin"], reason=_topology_words(plan["reason"]),
                  notes=[_topology_words(note) for note in plan["notes"]])
    if plan["plugin"] not in _TOPOLOGY_WRITTEN:
        return result
    result.update(written=True, lines=plan["lines"], missing=[entry["node"] for entry in plan["missing"]])
    if plan["missing"]:
        text = _topology_words(_missing_text(plan["missing"]))
        if topo.get("allow_missing"):
            warnings.append("slurm_topology_allow_missing is true, so %d node(s) are left out of topology.conf, "
                            "where Slurm places no job that needs the topology: %s" % (len(plan["missing"]), text))
        else:
            errors.append("topology.conf (%s) would leave out %d node(s): %s. Slurm places no job that spans "
                          "switches or blocks on a node outside the topology. Give each node its leaf switch or "
                          "rack (slurm_topology_switch) or block (slurm_topology_block), mend the fabric "
                          "discovery, or set slurm_topology_allow_missing: true to leave them out on purpose."
                          % (plan["plugin"], len(plan["missing"]), text))
    return result


def build_model(inventory, settings, running_conf=None, running_gres=None, running_topology=None):
    """The cluster model (see the module docstring); never raises for bad user input: it lands in errors.

    running_conf, running_gres, running_topology: the slurm.conf, gres.conf and topology.conf the controller runs
    with (text), which describe
    the nodes this run does not reach (inventory["reached"]: the hosts the run reached; inventory["targeted"]:
    the hosts it meant to reach; both None when every host's facts are this run's).
    """
    if not isinstance(inventory, dict) or not isinstance(settings, dict):
        raise SlurmModelError("build_model takes the inventory and the settings as mappings")
    errors = check_inventory(inventory, settings)
    warnings = []
    controllers = list(inventory.get("controllers") or [])
    computes = list(inventory.get("computes") or [])
    dbd = list(inventory.get("dbd") or [])
    hosts = inventory.get("hosts") or {}
    reached = inventory.get("reached")
    targeted = inventory.get("targeted")
    configless = bool(settings.get("configless"))
    logins = list(inventory.get("logins") or [])
    sackd = bool(logins) and login_configless(settings)[0]
    ctl_host = controllers[0] if controllers else None
    dbd_host = dbd[0] if dbd else ctl_host
    dbd_backup = dbd[1] if len(dbd) == 2 else None

    errors.extend(real_memory_setting_errors(settings))
    errors.extend(down_pct_errors(settings.get("nodes_down_max_pct")))
    errors.extend(restart_batch_errors(settings.get("restart_batch")))
    records = parse_node_records(running_conf or "", running_gres or "")
    # Their errors are check_inventory's (reported once, there).
    profiles = node_profiles(settings)[0]
    declared = image_nodes(settings, profiles)[0]
    nodes, memory_groups, sources = _compute_nodes(computes, hosts, settings, errors, warnings, records,
                                                   None if reached is None else set(reached), declared, profiles)
    names_in_inventory = set(node["name"] for node in nodes if node["host"] is not None) | set(sources.get("none", []))
    image_names = set(sources.get("image", []))
    removal, removal_notes = removal_errors(settings.get("remove_nodes"), names_in_inventory, records, image_names)
    errors.extend(removal)
    warnings.extend(removal_notes)
    if reached is not None and targeted is not None:
        down = [host for host in computes if host in set(targeted) and host not in set(reached)]
        pct = down_pct(settings.get("nodes_down_max_pct"))
        errors.extend(down_errors(down, len(computes), DOWN_MAX_PCT_DEFAULT if pct is None else pct,
                                  settings.get("compute_group", "slurm_compute")))
    gpu_failed = _gres_losses(nodes, hosts, running_conf, settings, errors, warnings, records)

    names = dict((node["host"], node["name"]) for node in nodes if node["host"] is not None)
    for host in controllers + dbd:
        data = hosts.get(host) or {}
        names[host] = node_name(host, (data.get("vars") or {}).get("slurm_node_name"),
                                (data.get("facts") or {}).get("hostname"))
    # The primary first, then the backups in inventory order (SlurmctldHost lines, --conf-server).
    ctl_entries = [{"host": host, "name": names.get(host, ""),
                    "addr": ((hosts.get(host) or {}).get("vars") or {}).get("slurm_node_addr") or ""}
                   for host in controllers]
    ctl = ctl_entries[0] if ctl_entries else {"host": None, "name": "", "addr": ""}
    dbd_entry = {"host": dbd_host, "name": names.get(dbd_host, ""),
                 "backup_host": dbd_backup, "backup_name": names.get(dbd_backup, "") if dbd_backup else ""}

    autodetect, autodetect_errors = gres_autodetect(settings)
    errors.extend(autodetect_errors)
    rest = settings.get("rest") if isinstance(settings.get("rest"), dict) else {}
    rest_on = rest.get("enabled") is True
    rest_hosts = [host for host in (rest.get("hosts") or []) if isinstance(host, str)] if rest_on else []
    errors.extend(rest_errors(rest, settings.get("series")))
    strangers = [host for host in rest_hosts if host not in controllers and host not in dbd]
    if rest_on and strangers:
        errors.append("slurmrestd's hosts (slurm_rest_group) hold %s, which is not a controller or slurmdbd host: "
                      "slurmrestd needs slurm.conf, munge and the JWT key there. Put the host in the controller or "
                      "slurmdbd group as well, or leave the slurm_rest group empty (the first controller runs it)."
                      % ", ".join(strangers))
    topology = model_topology(settings, nodes, hosts, errors, warnings, parse_topology_places(running_topology or ""))
    # Image nodes fetch their configuration from the controllers, whatever the converged nodes do.
    images = any(node.get("source") == "image" for node in nodes)
    conf, cgroup = _slurm_settings(settings, nodes, ctl_entries, dbd_entry, topology, errors,
                                   configless or sackd or images)
    conf_servers = ",".join("%s:%s" % (entry["name"], conf.get("SlurmctldPort") or 6817) for entry in ctl_entries)
    conf_lines, cgroup_lines = [], []
    try:
        conf_lines = render_lines(conf)
        cgroup_lines = render_lines(cgroup)
    except SlurmConfError as exc:
        # The file it is for, then what is wrong with the key (slurm_config or slurm_cgroup_config, or the
        # slurm_ variable that sets it).
        errors.append("%s: %s" % ("cgroup.conf" if conf_lines else "slurm.conf", exc))
        conf_lines, cgroup_lines = [], []

    grouped = group_nodes(nodes, _node_key)
    node_lines = [_node_line(names_expr, node) for names_expr, node in grouped]
    nodes_by_host = dict((node["host"], node) for node in nodes if node["host"] is not None)
    partition_lines = _partition_lines(settings.get("partitions"), nodes_by_host, image_names)

    restart_keys = settings.get("restart_keys") or []
    restart_keys = [key for key in restart_keys if isinstance(key, str)] if isinstance(restart_keys, list) else []
    image = [node for node in nodes if node.get("source") == "image"]
    by_profile = {}
    for node in image:
        by_profile.setdefault(node["profile"], []).append(node["name"])
    return {
        "errors": errors,
        "warnings": warnings,
        "memory_groups": memory_groups,
        "controller": ctl,
        "controllers": ctl_entries,
        "dbd": dbd_entry,
        "hosts": _host_entries(inventory, nodes, names, [dbd_host, dbd_backup], configless, autodetect,
                               rest_hosts, rest_on, sackd, images),
        # slurmrestd (off: enabled false): its hosts, its options and SLURMRESTD_LISTEN.
        "rest": {"enabled": rest_on, "hosts": rest_hosts,
                 "options": rest_command(rest, settings.get("series"), bool(settings.get("accounting"))) if rest_on else "",
                 "listen": rest_listen(rest) if rest_on else "",
                 # slurmdbd.conf's AuthAltParameters: the key only (slurmdbd.conf(5) knows no token options).
                 "dbd_params": ("jwt_key=%s" % settings.get("jwt_key_path")) if rest_on else ""},
        # slurmctld serves /metrics/... (MetricsType set by the release rule or the user).
        "native_metrics": str(conf.get("MetricsType") or "").lower() == "metrics/openmetrics",
        "gres_autodetect": autodetect or "off",
        "node_count": len(nodes),
        # Where each node's description came from ({source: [Slurm names]}, module_utils/slurm/_node_sources.py).
        "node_sources": dict((source, _compress(sorted(names))) for source, names in sorted(sources.items())),
        # GPU nodes whose nvidia-smi failed: drained with the reason and left out of the run ({host, name, reason}).
        "gpu_failed": gpu_failed,
        "gpu_failed_reason": GPU_FAILED_REASON,
        # The nodes described from something else than this run's facts, one line per source.
        "node_source_notes": ["%s: %s" % (_compress(sorted(sources[source])), SOURCE_WORDS[source])
                              for source in ("running", "cached", "kept", "none") if sources.get(source)]
        + ["%s: %s" % (_compress(sorted(names)), IMAGE_WORDS % profile) for profile, names in sorted(by_profile.items())],
        # The nodes booted from an image (slurm_image_nodes), by name, and the hardware profiles
        # (slurm_node_profiles): the image build records them, so a booting node compares its GPUs with its
        # profile's gres_value.
        "image_nodes": [{"name": node["name"], "profile": node["profile"], "addr": node["addr"],
                         "gres_value": node["gres_value"], "gpu_count": node["gpu_count"]}
                        for node in sorted(image, key=lambda n: n["name"])],
        "node_profiles": profiles,
        "settings": dict((key, list(value) if isinstance(value, Repeated) else value) for key, value in conf.items()),
        "slurm_conf": conf_lines + [""] + ["# Nodes"] + node_lines + [""] + ["# Partitions"] + partition_lines,
        "cgroup_conf": cgroup_lines,
        # topology.conf's lines (none when no topology is written) and what was chosen and why.
        "topology_conf": topology["lines"],
        "topology": dict((key, topology[key]) for key in ("plugin", "written", "reason", "notes", "missing")),
        "restart": restart_fingerprint(conf, nodes, configless, restart_keys),
        # slurmd's options: in configless mode it fetches the configuration from the controller.
        "slurmd_options": ("--conf-server %s" % conf_servers) if configless else "",
        # sackd's options on the login nodes that fetch their configuration (slurm_login_configless).
        "sackd_options": ("--conf-server %s" % conf_servers) if sackd else "",
        # What a node's overlay gives gpuops-node-join (conf_server in join.conf): the controllers, primary first.
        "conf_server": conf_servers,
        "login_hosts": logins,
    }


# --------------------------------------------------------------------------
# What a daemon's log says went wrong

_LOG_ERROR = re.compile(r"\b(fatal|error)\b[:]?", re.IGNORECASE)


def log_errors(lines, limit=3, width=300):
    """The last `limit` distinct error/fatal lines of a Slurm daemon's log, cut to `width` characters each."""
    found = []
    for line in reversed([str(item) for item in (lines or [])][-2000:]):
        if len(found) >= limit:
            break
        if not _LOG_ERROR.search(line):
            continue
        text = re.sub(r"^\[[^\]]*\]\s*", "", line.strip())[:width]
        if text and text not in found:
            found.append(text)
    return list(reversed(found))


_REJECTED_FIX = {
    "slurmctld": "Fix the setting (slurm_config, slurm_cgroup_config, slurm_partitions or the node definitions) and "
                 "run again.",
    "slurmd": "Fix the node's definition (slurm_node_gres, slurm_node_real_memory, its GPUs) or the setting and run "
              "again.",
    "reconfigure": "Fix the setting and run again, or run with -e slurm_allow_restart=true to let slurmctld restart on "
                   "it.",
}


def rejected_reason(daemon, host, log_lines, previous_files, log_dir, answered=False, node=None, node_state=None):
    """Why a Slurm daemon did not come back on a new configuration, what was put back, and the fix.

    daemon: slurmctld or slurmd, or reconfigure: scontrol reconfigure failed with slurm_allow_restart false
    (node_state: its registered result; nothing was restarted). host: the inventory host (node: its Slurm name, for
    slurmd). log_lines: the
    daemon's log and journal (its last error lines are quoted, else node_state's stdout or stderr, the
    registered scontrol show node, else where the log is). previous_files: the paths of the files put back.
    answered: whether slurmctld answers again on them.
    """
    if daemon not in _REJECTED_FIX:
        raise SlurmModelError("rejected_reason: daemon must be slurmctld, slurmd or reconfigure, not %s" % _shown(daemon))
    state = node_state if isinstance(node_state, dict) else {}
    if daemon == "reconfigure":
        return _reconfigure_refused(host, state, previous_files)
    why = (" / ".join(log_errors(log_lines)) or str(state.get("stdout") or "").strip()
           or str(state.get("stderr") or "").strip() or "see %s/%s.log" % (log_dir, daemon))
    where = host if daemon == "slurmctld" else "%s (%s)" % (host, node)
    names = ", ".join(str(path).rsplit("/", 1)[-1] for path in previous_files or [])
    if daemon == "slurmctld":
        back = ("The previous version of %s was put back on every host where it had been replaced, and slurmctld %s"
                % (names, "runs on it again. " if answered else "still does not answer: look at its log. ")
                if names else "There was no previous configuration to go back to. ")
    else:
        back = "The previous version of %s was put back and slurmd restarted on it. " % names if names else ""
    return "%s on %s did not come back on the new configuration: %s. %s%s" % (
        daemon, where, why, back, _REJECTED_FIX[daemon])


def _reconfigure_refused(host, result, previous_files):
    """Why the new configuration is not in use when scontrol reconfigure failed and no restart is allowed."""
    output = str(result.get("stderr") or "").strip() or str(result.get("stdout") or "").strip() or "no output"
    output = " ".join(output.split())
    if len(output) > 400:
        output = output[:397] + "..."
    names = ", ".join(str(path).rsplit("/", 1)[-1] for path in previous_files or [])
    back = ("the previous %s was put back on every host that got the new one." % names if names
            else "there was no previous configuration to put back.")
    return ("scontrol reconfigure failed on %s (rc %s): %s. slurm_allow_restart is false, so slurmctld was not "
            "restarted and keeps running on its previous configuration; %s %s"
            % (host, result.get("rc", "?"), output, back, _REJECTED_FIX["reconfigure"]))


# --------------------------------------------------------------------------
# The files a host keeps, from its part of the model

NODE_SCRIPTS = ("task_prolog", "prolog", "epilog", "health_check")


def host_files(host, paths, contents, user="slurm", configless=False):
    """{"config": [...], "slurmd": [...]}: file_bundle entries for one host (its entry in the model's hosts).

    paths: config_dir, log_dir, state_dir, spool_dir, slurmd_env_file, configless_dropin, and the node
    scripts task_prolog, prolog, epilog, health_check (NODE_SCRIPTS; one left out is not written).
    contents: slurm.conf, cgroup.conf, gres.conf, slurmd_env, dropin and the node scripts (text), and
    topology.conf when the model writes one (empty or absent: not written).
    A compute node keeps the node scripts slurm.conf names (TaskProlog, Prolog, Epilog,
    HealthCheckProgram), each of which runs the scripts of its .d directory (other roles drop theirs
    there), and those directories.
    The configuration files keep their previous version for a rollback.
    """
    def directory(path, owner="root", mode="0755"):
        return {"path": path, "state": "directory", "owner": owner, "group": owner, "mode": mode}

    def text(path, content, keep=False, mode="0644"):
        entry = {"path": path, "owner": "root", "group": "root", "mode": mode, "content": content}
        if keep:
            entry["keep_previous"] = True
        return entry

    config_dir = paths["config_dir"]
    config = [directory(config_dir), directory(paths["log_dir"], user)]
    if host.get("controller"):
        config.append(directory(paths["state_dir"], user, "0750"))
    if host.get("compute"):
        # Owned by the Slurm user, as Debian's slurmd package makes it (its postinst chowns it): the
        # directory is written before the package, and the two must agree (slurmd runs as root).
        config.append(directory(paths["spool_dir"], user))
    if host.get("holds_config"):
        config.append(text(config_dir + "/slurm.conf", contents["slurm.conf"], True))
        config.append(text(config_dir + "/cgroup.conf", contents["cgroup.conf"], True))
        # Only a topology the model writes: one the site keeps itself (its own TopologyPlugin) is left alone.
        if contents.get("topology.conf"):
            config.append(text(config_dir + "/topology.conf", contents["topology.conf"], True))
    slurmd = []
    if host.get("writes_gres"):
        slurmd.append(text(config_dir + "/gres.conf", contents["gres.conf"], True))
    if host.get("compute"):
        slurmd.append(text(paths["slurmd_env_file"], contents["slurmd_env"]))
        # The node scripts slurm.conf names (TaskProlog, Prolog, Epilog, HealthCheckProgram): each runs
        # the executable files of its .d directory, where the collection's roles and your own put theirs.
        for key in NODE_SCRIPTS:
            if paths.get(key):
                slurmd.append(text(paths[key], contents[key], mode="0755"))
                slurmd.append(directory(paths[key] + ".d"))
    if host.get("sackd") and paths.get("sackd_env_file"):
        # A login node's sackd: its options (--conf-server), read by the unit of either kind of packages.
        slurmd.append(text(paths["sackd_env_file"], contents["sackd_env"]))
    if host.get("compute"):
        dropin = paths["configless_dropin"]
        if configless:
            slurmd.append(directory(dropin.rsplit("/", 1)[0]))
            slurmd.append(text(dropin, contents["dropin"]))
        else:
            slurmd.append({"path": dropin, "state": "absent"})
    return {"config": config, "slurmd": slurmd}


# No error of Python's own leaves a parser: anything no rule foresaw becomes SlurmModelError.
parse_node_gres = guarded(SlurmModelError, 'slurm.conf')(parse_node_gres)
check_inventory = guarded(SlurmModelError, 'inventory')(check_inventory)
build_model = guarded(SlurmModelError, 'cluster model')(build_model)
