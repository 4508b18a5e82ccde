# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters over the Slurm cluster model (module_utils/slurm/_slurm_model.py).

slurm_model, slurm_inventory_errors, slurm_node_name, slurm_restart_changes,
slurm_restart_plan, slurm_bundle_handlers, slurm_log_errors, slurm_rejected_reason,
slurm_host_files and slurm_running_files;
their documentation is in the .yml files beside this one.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import binascii

from ansible.errors import AnsibleFilterError
from ansible.module_utils.common.collections import is_sequence
from ansible_collections.gpuops.cluster.plugins.module_utils.common._settings_values import plain_data
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._node_sources import config_drift, running_files
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._slurm_model import (
    FACT_KEYS,
    NODE_VARS,
    SlurmModelError,
    build_model,
    bundle_handlers,
    check_inventory,
    host_files,
    log_errors,
    node_name,
    rejected_reason,
    restart_changes,
    restart_plan,
)

# What the model reads of gpuops_gpus (gpu_facts): not the per-GPU details.
_GPU_KEYS = ("status", "error", "count", "slurm_gres", "gres_conf", "pci_gpus", "device_files")


def _host_data(hostvars, host, with_node_vars):
    """The few values the model needs of one host, read once from its hostvars."""
    try:
        variables = hostvars[host]
    except KeyError:
        return {}
    facts = variables.get("ansible_facts") or {}
    data = {"facts": dict((key, plain_data(facts.get(key))) for key in FACT_KEYS if facts.get(key) is not None)}
    gpus = facts.get("gpuops_gpus")
    if gpus is None:
        gpus = variables.get("gpuops_gpus")
    if hasattr(gpus, "get"):
        data["gpus"] = dict((key, plain_data(gpus.get(key))) for key in _GPU_KEYS)
        # Each GPU's NVLink fabric (ClusterUUID, CliqueId), for topology/block: the rest of a GPU's facts stays out.
        per_gpu = gpus.get("gpus")
        if is_sequence(per_gpu):
            data["gpu_fabric"] = [plain_data(gpu.get("fabric")) for gpu in per_gpu
                                  if hasattr(gpu, "get") and gpu.get("fabric")]
    else:
        data["gpus"] = plain_data(gpus) if gpus else None  # not gpu_facts' mapping: the model says so
    names = NODE_VARS if with_node_vars else ("slurm_node_name", "slurm_node_addr")
    data["vars"] = dict((key, plain_data(variables.get(key))) for key in names if variables.get(key) is not None)
    return data


def _inventory(hostvars, controllers, computes, dbd, with_facts=True, logins=None):
    controllers = list(controllers or [])
    computes = list(computes or [])
    dbd = list(dbd or [])
    logins = list(logins or [])
    hosts = {}
    for host in computes:
        hosts[host] = _host_data(hostvars, host, True)
    for host in controllers + dbd + logins:
        if host not in hosts:
            hosts[host] = _host_data(hostvars, host, False)
    if not with_facts:
        for data in hosts.values():
            data.pop("gpus", None)
            data.pop("gpu_fabric", None)
    return {"controllers": controllers, "computes": computes, "dbd": dbd, "logins": logins, "hosts": hosts}


def slurm_model(hostvars, controllers, computes, dbd, settings, running_conf=None, running_gres=None, reached=None,
                targeted=None, running_topology=None, logins=None):
    """The cluster model: node names, slurm.conf/gres.conf/cgroup.conf lines, restart fingerprint, errors."""
    try:
        inventory = _inventory(hostvars, controllers, computes, dbd, logins=logins)
        inventory["reached"] = None if reached is None else list(reached)
        inventory["targeted"] = None if targeted is None else list(targeted)
        return build_model(inventory, plain_data(settings), running_conf, running_gres, running_topology)
    except SlurmModelError as exc:
        raise AnsibleFilterError("slurm_model: %s" % exc)


def slurm_inventory_errors(hostvars, controllers, computes, dbd, settings, logins=None):
    """The input errors that need no gathered facts (names, partitions, GRES overrides, accounts)."""
    try:
        return check_inventory(_inventory(hostvars, controllers, computes, dbd, with_facts=False, logins=logins),
                               plain_data(settings))
    except SlurmModelError as exc:
        raise AnsibleFilterError("slurm_inventory_errors: %s" % exc)


def slurm_node_name(host, slurm_node_name=None, fact_hostname=None):
    """How Slurm names an inventory host (the collection's one rule)."""
    return node_name(host, slurm_node_name, fact_hostname)


def slurm_restart_changes(old, new, restart_keys):
    """What only a restart applies, between the recorded and the new restart fingerprint ([] for nothing)."""
    return restart_changes(plain_data(old), plain_data(new), list(restart_keys or []))


def slurm_restart_plan(recorded_b64, new, restart_keys, daemons_active, record_stale, host=None, series=None):
    """What only a restart applies on one host this run, from the record host_probe read (base64 or None)."""
    recorded = None
    if recorded_b64 not in (None, ""):
        try:
            recorded = base64.b64decode(str(recorded_b64), validate=True).decode("utf-8", "replace")
        except (TypeError, ValueError, binascii.Error):
            recorded = ""
    return restart_plan(recorded, plain_data(new), list(restart_keys or []), bool(daemons_active), bool(record_stale),
                        plain_data(host) if host is not None else None, None if series is None else str(series))


def slurm_bundle_handlers(bundle, host, probe, daemons_active, prefix=""):
    """The handlers a write of one host's file bundle notifies, each name after prefix."""
    return [prefix + name for name in bundle_handlers(plain_data(bundle), plain_data(host), plain_data(probe), bool(daemons_active))]


def slurm_host_files(host, paths, contents, user="slurm", configless=False):
    """file_bundle entries (config, slurmd) for one host's part of the model."""
    try:
        return host_files(plain_data(host), plain_data(paths), plain_data(contents), user, bool(configless))
    except (KeyError, TypeError, AttributeError) as exc:
        raise AnsibleFilterError("slurm_host_files: missing or malformed input: %s" % exc)


def slurm_rejected_reason(daemon, host, log_lines, previous_files, log_dir, answered=False, node=None,
                          node_state=None):
    """Why a Slurm daemon did not come back on a new configuration, what was put back, and the fix."""
    try:
        return rejected_reason(daemon, host, list(log_lines or []), list(previous_files or []), log_dir,
                               bool(answered), node, plain_data(node_state))
    except SlurmModelError as exc:
        raise AnsibleFilterError("slurm_rejected_reason: %s" % exc)


def slurm_log_errors(lines, limit=3):
    """The last distinct error and fatal lines of a Slurm daemon's log."""
    return log_errors(lines, limit)


def slurm_running_files(slurped, probe_contents, config_dir, names):
    """{name: text} of the files the controller runs with, from the slurp loop's result or the controller's probe."""
    return running_files(plain_data(slurped), plain_data(probe_contents), config_dir, plain_data(names))


def slurm_config_drift(new, running, names):
    """[message] for each file whose new text differs from the one the controller runs with."""
    return config_drift(plain_data(new), plain_data(running), plain_data(names))


class FilterModule(object):
    """Slurm cluster model filters."""

    def filters(self):
        return {
            "slurm_model": slurm_model,
            "slurm_inventory_errors": slurm_inventory_errors,
            "slurm_node_name": slurm_node_name,
            "slurm_restart_changes": slurm_restart_changes,
            "slurm_restart_plan": slurm_restart_plan,
            "slurm_bundle_handlers": slurm_bundle_handlers,
            "slurm_log_errors": slurm_log_errors,
            "slurm_rejected_reason": slurm_rejected_reason,
            "slurm_host_files": slurm_host_files,
            "slurm_running_files": slurm_running_files,
            "slurm_config_drift": slurm_config_drift,
        }
