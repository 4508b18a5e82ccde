# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters of the slurm_maintenance role (docs: slurm_maintenance_*.yml beside this file; logic:
module_utils/slurm/_slurm_maintenance.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm import _slurm_maintenance as maintenance
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import clip


def slurm_maintenance_settings_errors(settings):
    """One message per problem, each naming the slurm_maintenance_ variable and the fix; [] when all is well."""
    return maintenance.settings_errors(settings)


def slurm_maintenance_plan_message(action, stale, installed, target, node_task):
    """What this host has to do, on one line."""
    try:
        return maintenance.plan_message(action, stale, installed, target, node_task)
    except maintenance.SlurmMaintenanceError as exc:
        raise AnsibleFilterError("slurm_maintenance_plan_message: %s" % exc)
    except (AttributeError, KeyError, TypeError, ValueError, OverflowError, RecursionError) as exc:
        raise AnsibleFilterError("slurm_maintenance_plan_message: unexpected input (%s: %s)"
                                 % (type(exc).__name__, clip(str(exc), 200)))


class FilterModule(object):
    """Filters of gpuops.cluster.slurm_maintenance."""

    def filters(self):
        return {
            "slurm_maintenance_settings_errors": slurm_maintenance_settings_errors,
            "slurm_maintenance_plan_message": slurm_maintenance_plan_message,
        }
