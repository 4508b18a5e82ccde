# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The settings of the exporter roles (gpu_exporter, node_exporter): what is wrong with them, one message per
problem, each naming the variable, its value and the fix. Never raises, whatever the values' types."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.gpuops.cluster.plugins.module_utils.common._settings_values import (
    fix_messages,
    is_list,
    is_text,
    matches,
    not_a_mapping,
    path_is_absolute,
)

RDMA_PORT_RE = re.compile(r"[^:\s]+:[0-9]+")
GPU_EXPORTER_PATHS = ("install_dir", "config_path", "job_map_dir", "xid_state")


def _seconds(value):
    """A number of seconds, 1 or more (is number and >= 1; true is not a number here)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 1


def gpu_exporter_settings_errors(settings):
    """Messages for the gpu_exporter settings the role cannot use; [] when all is well.

    settings: sample_interval_s, nvidia_smi_timeout_s, install_dir, config_path, job_map_dir, xid_state,
    rdma_ports (the gpu_exporter_ variables without the prefix).
    """
    if not isinstance(settings, dict):
        return not_a_mapping("gpu_exporter", settings)
    problems = [(key, "gpu_exporter_%s must be a number of seconds >= 1" % key)
                for key in ("sample_interval_s", "nvidia_smi_timeout_s") if not _seconds(settings.get(key))]
    problems.extend((key, "gpu_exporter_%s must be an absolute path" % key)
                    for key in GPU_EXPORTER_PATHS if not path_is_absolute(settings.get(key)))
    ports = settings.get("rdma_ports")
    if not is_list(ports) or not all(matches(RDMA_PORT_RE, port) for port in ports):
        problems.append(("rdma_ports", 'gpu_exporter_rdma_ports must be a list of ports written "hca:port" like '
                                       "mlx5_0:1"))
    return fix_messages("gpu_exporter: ", settings, problems, "gpu_exporter_%s")


def node_exporter_settings_errors(settings):
    """Messages for the node_exporter settings the role cannot use; [] when all is well.

    settings: textfile_dir, extra_args (the node_exporter_ variables without the prefix).
    """
    if not isinstance(settings, dict):
        return not_a_mapping("node_exporter", settings)
    problems = []
    if not path_is_absolute(settings.get("textfile_dir")):
        problems.append(("textfile_dir", "node_exporter_textfile_dir must be an absolute path"))
    args = settings.get("extra_args")
    if not is_list(args) or not all(is_text(arg) and arg.startswith("--") for arg in args):
        problems.append(("extra_args", "node_exporter_extra_args must be a list of flags starting with --"))
    elif any(arg.startswith("--web.listen-address") for arg in args):
        problems.append(("extra_args", "node_exporter_extra_args must not set --web.listen-address (set "
                                       "gpuops_monitoring_address and gpuops_monitoring_node_exporter_port)"))
    return fix_messages("node_exporter: ", settings, problems, "node_exporter_%s")
