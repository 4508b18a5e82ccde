# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""slurm_dbd_settings_errors: what is wrong with the slurm_dbd role's settings (docs: slurm_dbd_settings_errors.yml;
logic: module_utils/slurm/_slurm_dbd_settings.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.gpuops.cluster.plugins.module_utils.slurm import _slurm_dbd_settings


def slurm_dbd_settings_errors(settings):
    """One message per problem, each naming the slurm_dbd_ variable and the fix; [] when all is well."""
    return _slurm_dbd_settings.settings_errors(settings)


class FilterModule(object):
    """The slurm_dbd role's settings check."""

    def filters(self):
        return {"slurm_dbd_settings_errors": slurm_dbd_settings_errors}
