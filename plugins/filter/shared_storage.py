# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters of the shared_storage role: shared_storage_plan and shared_storage_host_mounts
(docs: the .yml files beside this one); logic in module_utils/site/_shared_storage.py."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.gpuops.cluster.plugins.module_utils.common._file_state import FileStateError, probe_text
from ansible_collections.gpuops.cluster.plugins.module_utils.common._settings_values import plain_data
from ansible_collections.gpuops.cluster.plugins.module_utils.site._shared_storage import (
    MountTodoError,
    SharedStorageError,
    client_todo,
    external_errors,
    host_errors,
    host_mounts,
    plan,
    server_not_started,
)


def _host_info(hostvars, host):
    """The addresses and names by which an exports(5) client pattern can let a host in."""
    try:
        variables = hostvars[host]
    except KeyError:
        return {"addresses": [], "names": [host]}
    facts = variables.get("ansible_facts") or {}
    addresses = []
    candidates = [variables.get("ansible_host"), (facts.get("default_ipv4") or {}).get("address"),
                  (facts.get("default_ipv6") or {}).get("address")]
    candidates += list(facts.get("all_ipv4_addresses") or []) + list(facts.get("all_ipv6_addresses") or [])
    # What the shared_storage role read with `hostname --all-ip-addresses` where the facts have none.
    candidates += list(variables.get("__shared_storage_addresses") or [])
    for address in candidates:
        if address and str(address) not in addresses:
            addresses.append(str(address))
    names = []
    for name in (host, variables.get("ansible_host"), facts.get("hostname"), facts.get("fqdn"),
                 facts.get("nodename")):
        if name and str(name) not in names:
            names.append(str(name))
    return {"addresses": addresses, "names": names}


def shared_storage_plan(hostvars, server_group, controllers, clients, settings):
    """The shared storage plan (server, export lines, mounts, errors) from the groups, the hosts' facts, settings."""
    try:
        info = dict((host, _host_info(hostvars, host)) for host in list(clients or []))
        return plan(plain_data(settings), list(server_group or []), list(controllers or []), info)
    except SharedStorageError as exc:
        raise AnsibleFilterError("shared_storage_plan: %s" % exc)


def shared_storage_host_mounts(the_plan, host):
    """What one host does with each mount of the plan (action nfs, bind, local or check)."""
    if not isinstance(the_plan, dict):
        raise AnsibleFilterError("shared_storage_host_mounts: the input must be the plan of shared_storage_plan")
    return host_mounts(the_plan, host)


def shared_storage_host_errors(settings):
    """What is wrong with one host's shared_storage settings (the OS data, shared_storage_kernel_nfs)."""
    return host_errors(settings)


def shared_storage_external_errors(host, findmnt=None, write=None):
    """Messages for the external file systems of one host that are not mounted, of another type or not writable."""
    return external_errors(host, findmnt or [], write or [])


def shared_storage_server_not_started(host, reason, exports_file, service):
    """What the role says on a server whose kernel cannot serve NFS."""
    return server_not_started(host, reason, exports_file, service)


def shared_storage_client_todo(mounts, contents, kernel):
    """The mounts ansible.posix.mount would change and the mount points nothing is mounted on, from host_probe's
    contents of /etc/fstab and /proc/self/mounts."""
    try:
        return client_todo(mounts, probe_text(contents, "/etc/fstab") or "", probe_text(contents, "/proc/self/mounts") or "",
                           bool(kernel))
    except (MountTodoError, FileStateError) as exc:
        raise AnsibleFilterError("shared_storage_client_todo: %s" % exc)


class FilterModule(object):
    """Shared storage filters."""

    def filters(self):
        return {
            "shared_storage_plan": shared_storage_plan,
            "shared_storage_host_mounts": shared_storage_host_mounts,
            "shared_storage_client_todo": shared_storage_client_todo,
            "shared_storage_host_errors": shared_storage_host_errors,
            "shared_storage_external_errors": shared_storage_external_errors,
            "shared_storage_server_not_started": shared_storage_server_not_started,
        }
