# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A rolling reimage of the nodes booted from an image (playbooks/node_reimage.yml), driven by Slurm.

Each node names the image it booted in its Slurm Comment (``gpuops-image=<name>:<version>``, written by
gpuops-node-join at boot: module_utils/slurm/_node_join.py), so the controller knows which nodes run which
image without connecting to any. The reimage moves the nodes to a target image in batches: ``scontrol reboot
ASAP nextstate=RESUME`` drains a batch, lets its running jobs finish, reboots each node through slurm.conf's
RebootProgram (the node boots the new image: its provisioning system, such as Warewulf, serves the new
version), and takes it back; the next batch starts only once every node of the batch is back on the target
with a passing check. The cluster never has more than a batch out of service, and a batch that comes back
wrong stops the rollout.

reimage_plan(nodes_text, names, target, batch) and batch_status(nodes_text, names, target) are pure; bad input
gives errors, never an exception.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import shown
from ansible_collections.gpuops.cluster.plugins.module_utils.health._active import is_pending
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._hostlist import HostlistError, compress, expand
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._node_join import image_comment
from ansible_collections.gpuops.cluster.plugins.module_utils.validate._validate import (
    ValidateError,
    parse_scontrol_nodes,
)

_TARGET = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}:[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}\Z")
_BATCH = re.compile(r"\s*([0-9]{1,6})\s*(%?)\s*\Z")
# Flags that keep a node out of service: it is not back while it has one.
_OUT = frozenset(("drain", "drained", "draining", "fail", "failing", "not_responding", "reboot_requested",
                  "reboot_issued", "powered_down", "powering_down", "powering_up", "maint"))
_DOWN = frozenset(("down", "unknown", "future"))


def _names(text):
    return compress(sorted(text)) if text else ""


def batch_size(value, total):
    """(nodes per batch, error): a whole number of nodes, or a percentage of total ("25%"), at least 1."""
    match = _BATCH.match(str(value)) if isinstance(value, (str, int)) and not isinstance(value, bool) else None
    if not match or int(match.group(1)) < 1 or (match.group(2) and int(match.group(1)) > 100):
        return 0, ("node_image_reimage_batch is %s: give a number of nodes (1 or more) or a percentage of them "
                   "(1%% to 100%%), how many may be out of service at once." % shown(value))
    number = int(match.group(1))
    if match.group(2):
        return max(1, total * number // 100), None
    return number, None


def _on_target(node, comment):
    return (node.get("fields") or {}).get("Comment", "") == comment


def reimage_plan(nodes_text, names, target, batch):
    """What the reimage does: {"done", "todo", "skipped", "batches", "summary", "errors"}.

    nodes_text: ``scontrol -o show node <names>``; names: the nodes to move (a list of names or hostlist
    expressions); target: "name:version". done: on the target already (by their Comment); skipped:
    {name: why} for nodes down or not responding (not rebooted: Slurm could not reach them; they boot the new
    image when they come back); todo: the others, in name order, cut into batches (hostlist expressions).
    """
    errors = []
    if not isinstance(target, str) or not _TARGET.match(target):
        errors.append("node_image_reimage_to is %s: give the image as name:version (gpuops-node:2), the name and "
                      "version the image was built with (node_image_name, node_image_version)." % shown(target))
    wanted = []
    for item in names if isinstance(names, list) else [names]:
        try:
            wanted.extend(expand(item) if isinstance(item, str) and item else [])
        except HostlistError as exc:
            errors.append("node_image_reimage_nodes: %s is not a Slurm hostlist (%s)." % (shown(item), exc))
    wanted = sorted(set(wanted))
    if not wanted and not errors:
        errors.append("No node to reimage: node_image_reimage_nodes is empty and slurm_image_nodes declares none.")
    try:
        nodes = parse_scontrol_nodes(nodes_text if isinstance(nodes_text, str) else "")
    except ValidateError as exc:
        nodes = {}
        errors.append("Slurm's node list could not be read: %s" % exc)
    missing = [name for name in wanted if name not in nodes]
    if missing and not errors:
        errors.append("Slurm does not know %s: declare them in slurm_image_nodes and run playbooks/slurm.yml first, "
                      "or leave them out of node_image_reimage_nodes." % _names(missing))
    size, error = batch_size(batch, len(wanted))
    errors.extend([error] if error else [])
    if errors:
        return {"done": [], "todo": [], "skipped": {}, "batches": [], "summary": "", "errors": errors}
    comment = image_comment(target)
    done, todo, skipped = [], [], {}
    for name in wanted:
        node = nodes[name]
        if _on_target(node, comment) and not set(node["flags"]) & _OUT and node["base_state"] not in _DOWN:
            done.append(name)
        elif node["base_state"] in _DOWN or "not_responding" in node["flags"]:
            skipped[name] = "%s%s" % (node["state"], (": %s" % node["reason"]) if node.get("reason") else "")
        else:
            todo.append(name)
    batches = [_names(todo[start:start + size]) for start in range(0, len(todo), size)]
    summary = "to %s: %d node(s) on it already, %d to move in %d batch(es) (%s)" % (
        target, len(done), len(todo), len(batches), "; ".join(batches) or "none")
    if skipped:
        summary += "; not rebooted (down: they boot the new image when they come back): %s" % _names(skipped)
    return {"done": done, "todo": todo, "skipped": skipped, "batches": batches, "summary": summary, "errors": []}


def batch_status(nodes_text, names, target):
    """Where a batch stands: {"back", "waiting", "failed", "errors", "message"} (message: each node not back, why).

    back: on the target image, in service; failed: {name: why} booted the target but drained or down (its check
    failed: the rollout stops there); waiting: {name: why} the others (jobs still running, rebooting, booting, held
    by the health check's boot gate until its active checks pass).
    """
    try:
        batch = expand(names) if isinstance(names, str) else sorted(names or [])
        nodes = parse_scontrol_nodes(nodes_text if isinstance(nodes_text, str) else "")
    except (HostlistError, ValidateError, TypeError) as exc:
        why = "the batch's state could not be read: %s" % exc
        return {"back": [], "waiting": {}, "failed": {}, "errors": [why], "message": why}
    comment = image_comment(target) if isinstance(target, str) else None
    back, waiting, failed = [], {}, {}
    for name in batch:
        node = nodes.get(name)
        if node is None:
            waiting[name] = "not listed by Slurm"
            continue
        flags = set(node["flags"])
        reason = (": %s" % node["reason"]) if node.get("reason") else ""
        if not _on_target(node, comment):
            waiting[name] = "%s, still on %s%s" % (
                node["state"], (node.get("fields") or {}).get("Comment") or "an unrecorded image", reason)
        elif flags & {"reboot_requested", "reboot_issued"} or "not_responding" in flags:
            waiting[name] = "%s (rebooting)%s" % (node["state"], reason)
        elif is_pending(node.get("reason")):
            # The health check's boot gate holds it until its active checks pass, then resumes it.
            waiting[name] = "%s (its health checks run)%s" % (node["state"], reason)
        elif flags & _OUT or node["base_state"] in _DOWN:
            failed[name] = "%s%s" % (node["state"], reason)
        else:
            back.append(name)
    return {"back": back, "waiting": waiting, "failed": failed, "errors": [],
            "message": "; ".join(["%s booted it but is %s" % item for item in sorted(failed.items())]
                                 + ["%s is %s" % item for item in sorted(waiting.items())])}
