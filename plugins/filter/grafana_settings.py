# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""grafana_settings_errors: what is wrong with the grafana role's settings (docs: grafana_settings_errors.yml;
logic: module_utils/monitoring/_grafana_settings.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.gpuops.cluster.plugins.module_utils.monitoring import _grafana_settings


def grafana_settings_errors(settings):
    """One message per problem, each naming the grafana_ variable and the fix; [] when all is well."""
    return _grafana_settings.settings_errors(settings)


class FilterModule(object):
    """The grafana role's settings check."""

    def filters(self):
        return {"grafana_settings_errors": grafana_settings_errors}
