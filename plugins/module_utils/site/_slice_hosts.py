# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Hosts a partial inventory lacks and a run needs (AWX job slicing), and the plays that leave them out.

An AWX job slice gets an inventory holding only its share of the hosts, in
every group; so does any inventory that holds part of a cluster. The
compute nodes of such a slice need the cluster's service hosts (the Slurm
controllers, the slurmdbd host, the NFS server, the monitoring host): their
names for slurm.conf and chrony, their files (the running slurm.conf, the
munge key) read by delegation. ``gpuops_slice_hosts`` names them with their
groups and connection variables; each playbook's first play adds the ones
this inventory lacks (``plan``), in their groups and in ``OUTSIDE_GROUP``,
and every play leaves that group out (``run_pattern``): the added hosts are
read, never converged, exactly as hosts outside a ``--limit`` are.

Pure functions; bad input is a message in ``errors``, never an exception.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import shown

# The group of the hosts added from gpuops_slice_hosts: every play leaves it out.
OUTSIDE_GROUP = "gpuops_slice_outside"
SETTING = "gpuops_slice_hosts"
# Inventory host names without host-pattern characters (: , ! & * [ ] ~ and spaces).
_HOST_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,252}\Z")
# Ansible's valid group names.
_GROUP_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}\Z")
_RESERVED_GROUPS = frozenset(("all", "ungrouped", OUTSIDE_GROUP))
_ENTRY_KEYS = frozenset(("groups", "vars"))
# Variables add_host itself takes: a host's variables may not shadow them.
_ADD_HOST_KEYS = frozenset(("name", "host", "hostname", "groups", "group", "groupname"))


def _entry_errors(name, entry):
    where = "%s[%s]" % (SETTING, shown(name))
    if not isinstance(entry, dict):
        return ["%s is %s: give a mapping with groups (a list of group names) and vars (its connection variables, "
                "for example ansible_host)." % (where, shown(entry))], None
    errors = []
    unknown = sorted(str(key) for key in entry if key not in _ENTRY_KEYS)
    if unknown:
        errors.append("%s has %s: only groups and vars are read (a typo?)." % (where, ", ".join(unknown)))
    groups = entry.get("groups")
    if not isinstance(groups, list) or not groups:
        errors.append("%s.groups is %s: give the inventory groups the host is in, for example [slurm_controller]."
                      % (where, shown(groups)))
        groups = []
    bad = [group for group in groups if not isinstance(group, str) or not _GROUP_RE.match(group)
           or group in _RESERVED_GROUPS]
    if bad:
        errors.append("%s.groups has %s: give group names of letters, digits and _ (not all, ungrouped or %s)."
                      % (where, ", ".join(shown(group) for group in bad), OUTSIDE_GROUP))
    variables = entry.get("vars", {})
    if variables is None:
        variables = {}
    if not isinstance(variables, dict):
        errors.append("%s.vars is %s: give a mapping of the host's variables (ansible_host, ansible_user, ...)."
                      % (where, shown(variables)))
        variables = {}
    bad_vars = [key for key in variables if not isinstance(key, str) or not _GROUP_RE.match(key)
                or key in _ADD_HOST_KEYS]
    if bad_vars:
        errors.append("%s.vars has %s: give variable names (letters, digits and _, not %s)."
                      % (where, ", ".join(shown(key) for key in bad_vars), ", ".join(sorted(_ADD_HOST_KEYS))))
    if errors:
        return errors, None
    return [], {"name": name, "groups": list(dict.fromkeys(groups)), "vars": dict(variables)}


def plan(setting, inventory_hosts):
    """{add, held, errors}: the hosts of gpuops_slice_hosts this inventory lacks, to add in their groups.

    setting: gpuops_slice_hosts, {name: {groups: [...], vars: {...}}} (None or
    {}: nothing). inventory_hosts: the names this inventory holds
    (groups['all']). A host the inventory holds is in this run and is not
    added (``held``); ``add`` lists {name, groups, vars} sorted by name.
    """
    result = {"add": [], "held": [], "errors": []}
    if setting is None or setting == {}:
        return result
    if not isinstance(setting, dict):
        result["errors"].append("%s is %s: give a mapping of host name to {groups: [...], vars: {...}}, or leave it "
                                "out." % (SETTING, shown(setting)))
        return result
    if not isinstance(inventory_hosts, (list, tuple, set, frozenset)):
        result["errors"].append("%s: the inventory's host list is %s, not a list." % (SETTING, shown(inventory_hosts)))
        return result
    held = set(str(host) for host in inventory_hosts)
    for name in sorted(setting, key=str):
        if not isinstance(name, str) or not _HOST_RE.match(name):
            result["errors"].append("%s has the host name %s: give an inventory host name (letters, digits, . _ -)."
                                    % (SETTING, shown(name)))
            continue
        errors, entry = _entry_errors(name, setting[name])
        result["errors"].extend(errors)
        if entry is None:
            continue
        if name in held:
            result["held"].append(name)
        else:
            result["add"].append(entry)
    if result["errors"]:
        result["add"] = []
    return result


def add_host_args(entry):
    """The arguments of one add_host call: its variables, then its name and groups (the outside group added)."""
    args = dict(entry.get("vars") or {})
    args.update({"name": entry["name"], "groups": list(entry["groups"]) + [OUTSIDE_GROUP]})
    return args


def run_pattern(pattern, groups):
    """A play's host pattern, leaving out the hosts added from gpuops_slice_hosts (when there are any).

    pattern: a host pattern, or a list of group names: the groups among them
    the inventory has, joined in that order (the first name alone when it has
    none, so the play matches nothing). groups: the inventory's groups
    ({name: [hosts]}). Without added hosts the pattern is returned as it is
    (no warning about a group that does not exist).
    """
    if isinstance(pattern, (list, tuple)):
        names = [name for name in pattern if isinstance(name, str) and name.strip()]
        if len(names) != len(pattern) or not names:
            raise ValueError("the host pattern is %s, not a non-empty list of group names" % shown(pattern))
        present = [name.strip() for name in names if isinstance(groups, dict) and name.strip() in groups]
        pattern = ":".join(present) or names[0].strip()
    if not isinstance(pattern, str) or not pattern.strip():
        raise ValueError("the host pattern is %s, not a non-empty string" % shown(pattern))
    if isinstance(groups, dict) and groups.get(OUTSIDE_GROUP):
        return "%s:!%s" % (pattern.strip(), OUTSIDE_GROUP)
    return pattern.strip()
