# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Slurm hostlist filters.

slurm_hostlist_compress and slurm_hostlist_expand; their documentation is in
the slurm_hostlist_compress.yml and slurm_hostlist_expand.yml files beside
this one.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._hostlist import (
    HostlistError,
    compress,
    expand,
)


def slurm_hostlist_compress(names):
    """One Slurm hostlist expression (gpu[01-03,07]) for a list of host names."""
    try:
        return compress(names)
    except HostlistError as exc:
        raise AnsibleFilterError("slurm_hostlist_compress: %s" % exc)


def slurm_hostlist_expand(expr):
    """The host names of a Slurm hostlist expression."""
    try:
        return expand(expr)
    except HostlistError as exc:
        raise AnsibleFilterError("slurm_hostlist_expand: %s" % exc)


class FilterModule(object):
    """Slurm hostlist filters."""

    def filters(self):
        return {
            "slurm_hostlist_compress": slurm_hostlist_compress,
            "slurm_hostlist_expand": slurm_hostlist_expand,
        }
