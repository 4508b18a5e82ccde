# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Settings checks of the exporter roles and nccl_tuning (docs: gpu_exporter_settings_errors.yml,
node_exporter_settings_errors.yml, nccl_tuning_settings_errors.yml; logic: module_utils/monitoring/_exporter_settings.py,
module_utils/fabric/_nccl_tuning.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.gpuops.cluster.plugins.module_utils.fabric import _nccl_tuning
from ansible_collections.gpuops.cluster.plugins.module_utils.monitoring import _exporter_settings


def gpu_exporter_settings_errors(settings):
    """One message per gpu_exporter setting the role cannot use; [] when all is well."""
    return _exporter_settings.gpu_exporter_settings_errors(settings)


def node_exporter_settings_errors(settings):
    """One message per node_exporter setting the role cannot use; [] when all is well."""
    return _exporter_settings.node_exporter_settings_errors(settings)


def nccl_tuning_settings_errors(settings):
    """One message per nccl_tuning setting the role cannot use; [] when all is well."""
    return _nccl_tuning.settings_errors(settings)


class FilterModule(object):
    """Settings checks of gpuops.cluster.gpu_exporter, node_exporter and nccl_tuning."""

    def filters(self):
        return {
            "gpu_exporter_settings_errors": gpu_exporter_settings_errors,
            "node_exporter_settings_errors": node_exporter_settings_errors,
            "nccl_tuning_settings_errors": nccl_tuning_settings_errors,
        }
