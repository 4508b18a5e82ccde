# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whether a host is a container, from its virtualization facts: the one rule the roles share.

A container cannot load kernel modules (the GPU roles), set the clock (chrony) or serve and
mount NFS with its kernel (shared_storage). Ansible's facts say so with a virtualization_role
of "guest" and a virtualization_type of one of CONTAINER_TYPES; a role of "host" with the same
type is the machine that runs containers, not one of them.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

# ansible_facts['virtualization_type'] values that mean "inside a container".
CONTAINER_TYPES = ("docker", "podman", "container", "containerd", "lxc", "openvz", "systemd-nspawn")


def container_state(virtualization_role="", virtualization_type="", container_types=None):
    """{"container": bool, "kind": str, "reason": str} for a host's virtualization facts.

    kind is the virtualization type when the host is a container, else "". reason is
    "running in a <kind> container" ("running in a container" for the plain kind "container"),
    or "" when the host is not one. container_types replaces CONTAINER_TYPES when given.
    Facts that are missing or not text read as "not a container".
    """
    role = virtualization_role if isinstance(virtualization_role, str) else ""
    kind = virtualization_type if isinstance(virtualization_type, str) else ""
    types = CONTAINER_TYPES if container_types is None else list(container_types)
    container = role == "guest" and kind in types
    if not container:
        return {"container": False, "kind": "", "reason": ""}
    return {"container": True, "kind": kind,
            "reason": "running in a %scontainer" % ("" if kind == "container" else kind + " ")}


def host_container(facts, container_types=None):
    """container_state for a host's ansible_facts (a mapping; anything else reads as no facts)."""
    facts = facts if isinstance(facts, dict) else {}
    return container_state(facts.get("virtualization_role", ""), facts.get("virtualization_type", ""),
                           container_types)
