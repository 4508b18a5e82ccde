# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The slurm_login role's filters: its settings and the systemd drop-ins that limit each user's sessions.

Documentation in slurm_login_*.yml beside this file; logic in module_utils/site/_login.py.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.gpuops.cluster.plugins.module_utils.common._settings_values import plain_data
from ansible_collections.gpuops.cluster.plugins.module_utils.site import _login


def slurm_login_settings_errors(settings):
    """[] or a message per wrong slurm_login limit setting, naming the fix."""
    return _login.settings_errors(plain_data(settings))


def slurm_login_dropins(settings):
    """{user: text, root: text}: the drop-ins of user-.slice and user-0.slice."""
    settings = plain_data(settings)
    return {"user": _login.user_slice_dropin(settings), "root": _login.root_slice_dropin()}


class FilterModule(object):
    """slurm_login filters."""

    def filters(self):
        return {
            "slurm_login_settings_errors": slurm_login_settings_errors,
            "slurm_login_dropins": slurm_login_dropins,
        }
