# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""slice_hosts_plan and run_hosts: the hosts a partial inventory lacks, and the plays that leave them out.

Documentation in slice_hosts_plan.yml and run_hosts.yml beside this file;
logic in module_utils/site/_slice_hosts.py.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.gpuops.cluster.plugins.module_utils.common._settings_values import plain_data
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import clip
from ansible_collections.gpuops.cluster.plugins.module_utils.site import _slice_hosts


def slice_hosts_plan(setting, inventory_hosts):
    """{add, held, errors}: the hosts of gpuops_slice_hosts this inventory lacks, each with its add_host arguments."""
    try:
        result = _slice_hosts.plan(plain_data(setting), plain_data(inventory_hosts))
        result["add"] = [_slice_hosts.add_host_args(entry) for entry in result["add"]]
        return result
    except (AttributeError, KeyError, TypeError, ValueError, RecursionError) as exc:
        raise AnsibleFilterError("slice_hosts_plan: unexpected input (%s: %s)" % (type(exc).__name__, clip(str(exc), 200)))


def run_hosts(pattern, groups):
    """The play's host pattern without the hosts added from gpuops_slice_hosts."""
    try:
        return _slice_hosts.run_pattern(plain_data(pattern), plain_data(groups))
    except (AttributeError, TypeError, ValueError) as exc:
        raise AnsibleFilterError("run_hosts: %s" % clip(str(exc), 200))


class FilterModule(object):
    """Partial inventory filters."""

    def filters(self):
        return {"slice_hosts_plan": slice_hosts_plan, "run_hosts": run_hosts}
