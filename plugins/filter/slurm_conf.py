# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters over the Slurm configuration key catalogue.

slurm_conf_check, slurm_conf_lines and slurm_series; their documentation is in
the slurm_conf_check.yml, slurm_conf_lines.yml and slurm_series.yml files
beside this one.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.gpuops.cluster.plugins.module_utils._slurm_conf import (
    SlurmConfError,
    check_keys,
    render_lines,
    series_for,
)


def slurm_conf_check(settings, kind, version, varname):
    """Messages for the keys of settings that the installed Slurm rejects."""
    try:
        return check_keys(settings, kind, version, varname)
    except SlurmConfError as exc:
        raise AnsibleFilterError("slurm_conf_check: %s" % exc)


def slurm_conf_lines(settings):
    """Key=Value lines for slurm.conf or cgroup.conf, sorted by key."""
    try:
        return render_lines(settings)
    except SlurmConfError as exc:
        raise AnsibleFilterError("slurm_conf_lines: %s" % exc)


def slurm_series(version):
    """The catalogued Slurm series to check a version against."""
    try:
        return series_for(version)
    except SlurmConfError as exc:
        raise AnsibleFilterError("slurm_series: %s" % exc)


class FilterModule(object):
    """Slurm configuration filters."""

    def filters(self):
        return {
            "slurm_conf_check": slurm_conf_check,
            "slurm_conf_lines": slurm_conf_lines,
            "slurm_series": slurm_series,
        }
