# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where a compute node's description comes from when the run has no fresh facts of it.

On a fleet some node is always down, admins run ``--limit`` and AWX slices a job over several inventories: the
model must describe nodes this run did not reach. The rule (``node_source``):

* a node reached by this run: its facts (``facts``);
* a node outside the run (``--limit``, a slice, unreachable, failed) that the running slurm.conf describes: that
  description, as the controller holds it (``running``), so a node nobody looked at never changes;
* a node outside the run that the running slurm.conf lacks, with facts in hostvars (a fact cache the site
  enabled, or an earlier play of this run): those facts (``cached``);
* otherwise none (``none``): the node is reported by name and left out; it is not in the running slurm.conf, so
  nothing it had is lost.

Nodes the running slurm.conf describes and the inventory does not hold at all are kept as they are (``kept``):
they leave slurm.conf only when ``slurm_remove_nodes`` names them (``removal_errors``).

Nodes booted from an image (``slurm_image_nodes``) are never reached by Ansible and are no inventory hosts: each is
described by its hardware profile (``slurm_node_profiles``) in every run (``image``), never by the running
slurm.conf, and never kept or warned about as missing from the inventory.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import binascii

from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import guarded, shown
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._gres import gres_count
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._hostlist import HostlistError, compress, expand

SOURCE_WORDS = {
    "facts": "facts gathered in this run",
    "running": "the running slurm.conf (not reached in this run)",
    "cached": "facts from the fact cache (not reached in this run)",
    "kept": "the running slurm.conf (not in this inventory; slurm_remove_nodes removes it)",
    "none": "no source: not reached in this run, not in the running slurm.conf and no cached facts",
    "image": "a hardware profile of slurm_node_profiles (slurm_image_nodes; booted from an image, never reached by "
             "Ansible)",
}
# The note of the image nodes of one profile (model's node_source_notes): IMAGE_WORDS % profile name.
IMAGE_WORDS = "the hardware profile %s (slurm_image_nodes; booted from an image, never reached by Ansible)"
# The key of parse_topology_places' result that holds the blocks' order (no node is named so: "/" is not in a name).
BLOCK_ORDER = "/block-order"
# slurm_nodes_down_max_pct: the default, and its bounds.
DOWN_MAX_PCT_DEFAULT = 10
_INT_KEYS = {"cpus": "cpus", "sockets": "sockets", "corespersocket": "cores_per_socket",
             "threadspercore": "threads_per_core", "realmemory": "real_memory", "weight": "weight"}


class NodeSourceError(Exception):
    """Input of a shape the role never gives (a bug, not a user error)."""


def _hosts_text(names):
    try:
        return compress(sorted(names))
    except HostlistError:
        return ",".join(sorted(str(name) for name in names))


def _fields(line):
    fields = {}
    for token in line.split():
        if "=" in token:
            key, value = token.split("=", 1)
            fields[key.lower()] = value
    return fields


def _record(fields):
    record = {"cpus": 0, "sockets": 0, "cores_per_socket": 0, "threads_per_core": 0, "real_memory": 0,
              "weight": None, "gres_value": fields.get("gres", ""), "addr": "", "gres_lines": []}
    for key, name in _INT_KEYS.items():
        value = fields.get(key)
        if value is not None and value.isdigit() and len(value) <= 12:
            record[name] = int(value)
    features = fields.get("features") or fields.get("feature") or ""
    record["features"] = [item for item in features.split(",") if item]
    record["gpu_count"] = gres_count(record["gres_value"])
    return record


def parse_node_records(slurm_conf, gres_conf=""):
    """{Slurm node name: its description} from the NodeName lines of a slurm.conf (and the NodeName= lines of a
    gres.conf, as a configless controller serves it).

    Each description: cpus, sockets, cores_per_socket, threads_per_core, real_memory, weight (None when not
    given), gres_value, gpu_count, features, addr (only a hostlist of one node carries its NodeAddr) and
    gres_lines. NodeName=DEFAULT lines set the values of the lines after them, as slurm.conf(5) says. Lines
    that cannot be read are skipped.
    """
    if slurm_conf is not None and not isinstance(slurm_conf, str):
        raise NodeSourceError("slurm_conf must be text, not %s" % shown(slurm_conf, 60))
    if gres_conf is not None and not isinstance(gres_conf, str):
        raise NodeSourceError("gres_conf must be text, not %s" % shown(gres_conf, 60))
    records = {}
    defaults = {}
    for raw in (slurm_conf or "").splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line.lower().startswith("nodename="):
            continue
        fields = _fields(line)
        names = fields.pop("nodename", "")
        if names.upper() == "DEFAULT":
            defaults.update(fields)
            continue
        try:
            hosts = expand(names)
        except HostlistError:
            continue
        merged = dict(defaults)
        merged.update(fields)
        for name in hosts:
            record = _record(merged)
            if len(hosts) == 1 and merged.get("nodeaddr"):
                record["addr"] = merged["nodeaddr"]
            records[name] = record
    for raw in (gres_conf or "").splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line.lower().startswith("nodename="):
            continue
        names, _sep, rest = line.partition(" ")
        try:
            hosts = expand(names.split("=", 1)[1])
        except HostlistError:
            continue
        for name in hosts:
            if name in records and rest.strip():
                records[name]["gres_lines"].append(rest.strip())
    return records


def parse_topology_places(topology_conf):
    """{Slurm node name: {"switch": leaf switch, "block": block}} from a topology.conf's SwitchName and BlockName
    lines that list Nodes= (the places of the nodes a run keeps without inventory variables), and under
    BLOCK_ORDER the blocks in the order the file lists them. Lines that cannot be read are skipped."""
    if topology_conf is not None and not isinstance(topology_conf, str):
        raise NodeSourceError("topology_conf must be text, not %s" % shown(topology_conf, 60))
    places = {}
    order = []
    for raw in (topology_conf or "").splitlines():
        fields = _fields(raw.split("#", 1)[0])
        kind = "switch" if "switchname" in fields else "block" if "blockname" in fields else None
        if kind is None or not fields.get("nodes"):
            continue
        try:
            names = expand(fields["nodes"])
        except HostlistError:
            continue
        label = fields["switchname" if kind == "switch" else "blockname"]
        if kind == "block" and label not in order:
            order.append(label)
        for name in names:
            places.setdefault(name, {})[kind] = label
    # The blocks in the order topology.conf lists them: a run keeps that order (Slurm prefers blocks in it).
    places[BLOCK_ORDER] = order
    return places


def node_source(in_run, has_facts, has_record):
    """Which source describes a compute node: facts, running, cached or none (see the module's rule)."""
    if in_run and has_facts:
        return "facts"
    if has_record:
        return "running"
    if has_facts:
        return "cached"
    return "none"


def down_limit(total, pct):
    """How many of total compute nodes may be down (not reached by a run that targets them) before the play
    stops: pct percent of them, rounded down, but at least one while pct is above 0."""
    if pct <= 0 or total <= 0:
        return 0
    return max(1, total * pct // 100)


def down_errors(down, total, pct, group="slurm_compute"):
    """The stop message when more compute nodes are down than slurm_nodes_down_max_pct allows, else []."""
    limit = down_limit(total, pct)
    if len(down) <= limit:
        return []
    return ["%d of the %d nodes of %s were not reached or failed in this run (%s), more than "
            "slurm_nodes_down_max_pct (%d%%: %d node(s)) allows, so nothing is changed: a failure this wide is more "
            "likely the network or the controller host than the nodes. Bring them back, leave them out with --limit, "
            "or raise slurm_nodes_down_max_pct." % (len(down), total, group, _hosts_text(down), pct, limit)]


def down_pct(value):
    """slurm_nodes_down_max_pct as a whole number from 0 to 100, or None when it is not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.strip().isdigit() and len(value.strip()) <= 3:
        value = int(value.strip())
    if isinstance(value, int) and 0 <= value <= 100:
        return value
    return None


def down_pct_errors(value):
    """A message when slurm_nodes_down_max_pct is not a whole number from 0 to 100, else []."""
    if value is None or down_pct(value) is not None:
        return []
    return ["slurm_nodes_down_max_pct is %s: give a whole number from 0 to 100, the percentage of the compute nodes a "
            "run may fail to reach before it stops (0: none may)." % shown(value, 60)]


def removal_errors(remove, inventory_names, records, image_names=()):
    """(errors, warnings) for slurm_remove_nodes: Slurm node names that leave slurm.conf on purpose.

    inventory_names: the Slurm names of the compute nodes of the inventory; records: the running slurm.conf's
    (parse_node_records); image_names: the nodes slurm_image_nodes declares. A name still in the inventory or still
    declared is an error (remove it from the group or slurm_image_nodes first); one the running slurm.conf lacks is
    a warning (nothing to remove).
    """
    errors, warnings = [], []
    if remove is None:
        return errors, warnings
    if not isinstance(remove, list) or not all(isinstance(name, str) and name for name in remove):
        return (["slurm_remove_nodes is %s: give a list of Slurm node names to take out of slurm.conf, such as "
                 "[gpu17, gpu18]." % shown(remove, 60)], warnings)
    still = sorted(name for name in remove if name in inventory_names)
    if still:
        errors.append("slurm_remove_nodes names %s, still in the compute group of the inventory: remove the host from "
                      "the inventory as well, or take it out of slurm_remove_nodes." % _hosts_text(still))
    image_names = set(image_names or ())
    declared = sorted(set(name for name in remove if name in image_names and name not in inventory_names))
    if declared:
        errors.append("slurm_remove_nodes names %s, still declared in slurm_image_nodes: take the node out of "
                      "slurm_image_nodes as well, or take it out of slurm_remove_nodes." % _hosts_text(declared))
    unknown = sorted(name for name in remove
                     if name not in records and name not in inventory_names and name not in image_names)
    if unknown:
        warnings.append("slurm_remove_nodes names %s, which the running slurm.conf does not have: nothing to remove."
                        % _hosts_text(unknown))
    return errors, warnings


parse_node_records = guarded(NodeSourceError, "slurm.conf node records")(parse_node_records)
parse_topology_places = guarded(NodeSourceError, "topology.conf")(parse_topology_places)
removal_errors = guarded(NodeSourceError, "slurm_remove_nodes")(removal_errors)


def running_files(slurped, probe_contents, config_dir, names):
    """{name: text} of the files the controller runs with (slurm.conf, gres.conf, topology.conf).

    slurped: the registered result of the slurp loop over names (run when the
    controller is outside the play; skipped otherwise). probe_contents: the
    controller's probe ({path: base64}), used when the loop did not run.
    A file that is missing, unreadable or not base64 is "" (nothing known).
    """
    names = [name for name in (names if isinstance(names, list) else []) if isinstance(name, str)]
    base = str(config_dir or "").rstrip("/")
    by_path = {}
    if isinstance(slurped, dict) and not slurped.get("skipped") and isinstance(slurped.get("results"), list):
        for result in slurped["results"]:
            if isinstance(result, dict) and isinstance(result.get("item"), str):
                by_path["%s/%s" % (base, result["item"])] = result.get("content")
    elif isinstance(probe_contents, dict):
        by_path = probe_contents
    texts = {}
    for name in names:
        encoded = by_path.get("%s/%s" % (base, name))
        texts[name] = ""
        if isinstance(encoded, str) and encoded:
            try:
                texts[name] = base64.b64decode(encoded, validate=True).decode("utf-8", "replace")
            except (ValueError, TypeError, binascii.Error):
                texts[name] = ""
    return texts


def config_drift(new, running, names):
    """[message] for each of names whose new text differs from the one the controller runs with.

    For a run without a controller (a --limit, an AWX slice): the files it
    writes on the nodes must be the ones slurmctld runs with, or the nodes
    would run a configuration the controller never got. new and running:
    {name: text} (a name missing or None is ""). Each message names the file
    and its first line that differs, both versions cut short.
    """
    new = new if isinstance(new, dict) else {}
    running = running if isinstance(running, dict) else {}
    drift = []
    for name in names if isinstance(names, list) else []:
        if not isinstance(name, str):
            continue
        theirs = running.get(name) if isinstance(running.get(name), str) else ""
        ours = new.get(name) if isinstance(new.get(name), str) else ""
        if theirs == ours:
            continue
        if not theirs:
            drift.append("%s: the controller runs without one, this run would write %d lines" % (name, len(ours.splitlines())))
            continue
        if not ours:
            drift.append("%s: the controller runs with one (%d lines), this run would write none"
                         % (name, len(theirs.splitlines())))
            continue
        old_lines, new_lines = theirs.splitlines(), ours.splitlines()
        number = next((index for index, (old, line) in enumerate(zip(old_lines, new_lines)) if old != line),
                      min(len(old_lines), len(new_lines)))
        drift.append("%s line %d: the controller runs with %s, this run would write %s"
                     % (name, number + 1, shown(old_lines[number] if number < len(old_lines) else "(end of file)", 120),
                        shown(new_lines[number] if number < len(new_lines) else "(end of file)", 120)))
    return drift
