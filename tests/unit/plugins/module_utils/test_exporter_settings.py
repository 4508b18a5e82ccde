# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The settings checks of gpu_exporter, node_exporter (module_utils/monitoring/_exporter_settings.py) and nccl_tuning
(module_utils/fabric/_nccl_tuning.py): every message, all problems at once, garbage without a traceback."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest
import yaml

from ansible_collections.gpuops.cluster.plugins.module_utils.monitoring._exporter_settings import (
    gpu_exporter_settings_errors,
    node_exporter_settings_errors,
)
from ansible_collections.gpuops.cluster.plugins.module_utils.fabric._nccl_tuning import settings_errors as nccl_errors

ROLES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "roles")


def _defaults(role, keys, **change):
    with open(os.path.join(ROLES, role, "defaults", "main.yml")) as handle:
        defaults = yaml.safe_load(handle)
    value = dict((key, defaults[role + "_" + key]) for key in keys)
    value.update(change)
    return value


def gpu_settings(**change):
    return _defaults("gpu_exporter", ("sample_interval_s", "nvidia_smi_timeout_s", "install_dir", "config_path",
                                      "job_map_dir", "xid_state", "rdma_ports"), **change)


def node_settings(**change):
    return _defaults("node_exporter", ("textfile_dir", "extra_args"), **change)


def nccl_settings(**change):
    return _defaults("nccl_tuning", ("env", "sysctls", "topo_file"), **dict({"topo_file_found": False}, **change))


def test_defaults_pass():
    assert gpu_exporter_settings_errors(gpu_settings()) == []
    assert node_exporter_settings_errors(node_settings()) == []
    assert nccl_errors(nccl_settings()) == []


@pytest.mark.parametrize("function, settings", [
    (gpu_exporter_settings_errors, gpu_settings(sample_interval_s=1.5, rdma_ports=["mlx5_0:1", "ibp1s0:2"])),
    (node_exporter_settings_errors, node_settings(extra_args=["--collector.systemd", "--no-collector.wifi"])),
    (nccl_errors, nccl_settings(env={"NCCL_DEBUG": "WARN", "NCCL_IB_HCA": None}, topo_file="/srv/topo.xml",
                                topo_file_found=True)),
])
def test_good_values_pass(function, settings):
    assert function(settings) == []


BAD = [
    (gpu_exporter_settings_errors, gpu_settings(sample_interval_s=0),
     "gpu_exporter: gpu_exporter_sample_interval_s is 0. Fix: gpu_exporter_sample_interval_s must be a number of "
     "seconds >= 1."),
    (gpu_exporter_settings_errors, gpu_settings(nvidia_smi_timeout_s="10"),
     'gpu_exporter_nvidia_smi_timeout_s is "10". Fix: gpu_exporter_nvidia_smi_timeout_s must be a number'),
    (gpu_exporter_settings_errors, gpu_settings(sample_interval_s=True), "gpu_exporter_sample_interval_s is true."),
    (gpu_exporter_settings_errors, gpu_settings(xid_state="xid.json"),
     'gpu_exporter_xid_state is "xid.json". Fix: gpu_exporter_xid_state must be an absolute path.'),
    (gpu_exporter_settings_errors, gpu_settings(install_dir=None), "gpu_exporter_install_dir is null."),
    (gpu_exporter_settings_errors, gpu_settings(rdma_ports=["mlx5_0"]),
     'gpu_exporter_rdma_ports is ["mlx5_0"]. Fix: gpu_exporter_rdma_ports must be a list of ports written '
     '"hca:port" like mlx5_0:1.'),
    (gpu_exporter_settings_errors, gpu_settings(rdma_ports="mlx5_0:1"), 'gpu_exporter_rdma_ports is "mlx5_0:1".'),
    (node_exporter_settings_errors, node_settings(textfile_dir="textfiles"),
     'node_exporter: node_exporter_textfile_dir is "textfiles". Fix: node_exporter_textfile_dir must be an '
     "absolute path."),
    (node_exporter_settings_errors, node_settings(extra_args=["-v"]),
     "Fix: node_exporter_extra_args must be a list of flags starting with --."),
    (node_exporter_settings_errors, node_settings(extra_args="--v"), 'node_exporter_extra_args is "--v".'),
    (node_exporter_settings_errors, node_settings(extra_args=["--web.listen-address=:9100"]),
     "Fix: node_exporter_extra_args must not set --web.listen-address (set gpuops_monitoring_address and "
     "gpuops_monitoring_node_exporter_port)."),
    (nccl_errors, nccl_settings(env={"CUDA_VISIBLE_DEVICES": "0", "NCCL_DEBUG": "WARN"}),
     'nccl_tuning: nccl_tuning_env must be a dict of NCCL_* names (got ["CUDA_VISIBLE_DEVICES"]).'),
    (nccl_errors, nccl_settings(env=["NCCL_DEBUG"]), 'nccl_tuning_env must be a dict of NCCL_* names (got '
                                                     '["NCCL_DEBUG"]).'),
    (nccl_errors, nccl_settings(sysctls=[]), "nccl_tuning: nccl_tuning_sysctls must be a dict of sysctl names and "
                                             "values (got [])."),
    (nccl_errors, nccl_settings(topo_file="/nonexistent.xml"),
     'nccl_tuning: make nccl_tuning_topo_file empty or a file on the Ansible controller (it is "/nonexistent.xml").'),
    (nccl_errors, nccl_settings(topo_file=None), "make nccl_tuning_topo_file empty or a file"),
]


@pytest.mark.parametrize("function, settings, expected", BAD)
def test_each_bad_setting_is_named(function, settings, expected):
    errors = function(settings)
    assert len(errors) == 1, errors
    assert expected in errors[0], errors


def test_every_problem_at_once():
    errors = gpu_exporter_settings_errors(gpu_settings(sample_interval_s=0, config_path="x", rdma_ports=[1]))
    assert [error.split(" is ")[0] for error in errors] == [
        "gpu_exporter: gpu_exporter_sample_interval_s", "gpu_exporter: gpu_exporter_config_path",
        "gpu_exporter: gpu_exporter_rdma_ports"]


@pytest.mark.parametrize("function, role", [(gpu_exporter_settings_errors, "gpu_exporter"),
                                            (node_exporter_settings_errors, "node_exporter"),
                                            (nccl_errors, "nccl_tuning")])
@pytest.mark.parametrize("value", [None, [], "x", 3])
def test_garbage_gives_one_message(function, role, value):
    assert function(value) == ["%s: the settings must be a mapping of the %s_ variables, not %r." % (role, role, value)]
