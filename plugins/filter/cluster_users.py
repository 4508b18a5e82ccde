# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters of the cluster_users role: cluster_users_plan, cluster_users_host_view, cluster_users_conflicts,
cluster_users_directory_clashes, cluster_users_todo and cluster_users_probe_paths.

Their documentation is in the <filter name>.yml files beside this one, the
logic in module_utils/site/_cluster_users.py.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import binascii

from ansible.errors import AnsibleFilterError
from ansible_collections.gpuops.cluster.plugins.module_utils.site import _cluster_users as cu
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import clip


def _call(name, func, *args):
    try:
        return func(*args)
    except cu.ClusterUsersError as exc:
        raise AnsibleFilterError("%s: %s" % (name, exc))
    except (AttributeError, KeyError, TypeError, ValueError, OverflowError, RecursionError) as exc:
        raise AnsibleFilterError("%s: unexpected input (%s: %s)" % (name, type(exc).__name__, clip(str(exc), 200)))


def cluster_users_plan(users, groups, settings=None):
    """The users and groups to create, checked and filled in: {users, groups, errors}."""
    return _call("cluster_users_plan", cu.plan, users, groups, settings)


def cluster_users_host_view(passwd, group, plan):
    """The entries of one host's getent passwd/group results that matter to the plan."""
    return _call("cluster_users_host_view", cu.host_view, passwd, group, plan)


def cluster_users_conflicts(plan, views):
    """Messages for every uid/gid conflict between the plan and the hosts' views."""
    return _call("cluster_users_conflicts", cu.conflicts, plan, views)


def cluster_users_directory_clashes(plan, views, lookups):
    """Messages for every planned name or number that another NSS source (the directory) holds on some host."""
    return _call("cluster_users_directory_clashes", cu.directory_clashes, plan, views, lookups)


def cluster_users_todo(plan, passwd, group, probe=None, settings=None):
    """What the modules must still do on this host: {groups, users, homes, keys} (plan entries)."""
    probe = probe or {}
    contents = {}
    for path, data in (probe.get("contents") or {}).items():
        try:
            contents[path] = base64.b64decode(data).decode("utf-8", "replace")
        except (binascii.Error, TypeError, ValueError):
            contents[path] = ""
    return _call("cluster_users_todo", cu.host_todo, passwd, group, plan, probe.get("files") or [], contents, settings)


def cluster_users_probe_paths(plan):
    """{paths, read}: what host_probe looks at for cluster_users_todo."""
    return _call("cluster_users_probe_paths", cu.probe_paths, plan)


class FilterModule(object):
    """Cluster users filters."""

    def filters(self):
        return {
            "cluster_users_plan": cluster_users_plan,
            "cluster_users_host_view": cluster_users_host_view,
            "cluster_users_conflicts": cluster_users_conflicts,
            "cluster_users_directory_clashes": cluster_users_directory_clashes,
            "cluster_users_todo": cluster_users_todo,
            "cluster_users_probe_paths": cluster_users_probe_paths,
        }
