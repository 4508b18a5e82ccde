# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The validate role's settings check (module_utils/validate/_validate_settings.py): every message, all problems at once."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest
import yaml

from ansible_collections.gpuops.cluster.plugins.module_utils.validate._validate_settings import FIGURE_NAMES, settings_errors

DEFAULTS = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "roles", "validate", "defaults", "main.yml")
KEYS = ("gpu_count", "rdma_expected", "ib_ports", "ib_rate_gbps", "perf", "min_fraction", "expected_figures",
        "report_dir", "job_timeout_s", "clock_max_skew_s", "clock_samples")


def settings(**change):
    """The settings the role passes with its defaults and one controller."""
    with open(DEFAULTS) as handle:
        defaults = yaml.safe_load(handle)
    value = dict((key, defaults["validate_" + key]) for key in KEYS)
    value.update(figure_names=list(FIGURE_NAMES), controller_group="slurm_controller", controller_hosts=["ctl"])
    value.update(change)
    return value


def test_defaults_pass():
    assert settings_errors(settings()) == []


@pytest.mark.parametrize("change", [
    {"gpu_count": 8}, {"gpu_count": "8"}, {"rdma_expected": True}, {"rdma_expected": "auto"},
    {"ib_ports": ["mlx5_0:1", "mlx5_1:1"]}, {"ib_rate_gbps": 400}, {"perf": False}, {"min_fraction": 1},
    {"min_fraction": "0.5"}, {"expected_figures": {"ib_write_bw": 380, "allreduce_single_node": "300.5"}},
    {"job_timeout_s": "10"}, {"clock_max_skew_s": 0}, {"clock_samples": 50},
])
def test_good_values_pass(change):
    assert settings_errors(settings(**change)) == []


BAD = [
    ({"gpu_count": -1}, "validate: validate_gpu_count is -1. Fix: validate_gpu_count must be a whole number (0: not "
                        "checked)."),
    ({"gpu_count": True}, "validate_gpu_count is true."),
    ({"rdma_expected": "yes"}, 'validate_rdma_expected is "yes". Fix: validate_rdma_expected is auto, true or false.'),
    ({"ib_ports": ["mlx5_0"]}, 'validate_ib_ports is ["mlx5_0"]. Fix: validate_ib_ports is a list of ports as '
                               '"mlx5_0:1".'),
    ({"ib_ports": "mlx5_0:1"}, 'validate_ib_ports is "mlx5_0:1".'),
    ({"ib_rate_gbps": "fast"}, "Fix: validate_ib_rate_gbps is a whole number of Gb/s (0: the fastest port's rate)."),
    ({"perf": "sometimes"}, "Fix: validate_perf must be auto, true or false."),
    ({"min_fraction": 0}, "validate_min_fraction is 0. Fix: validate_min_fraction is a number above 0 and at most 1"),
    ({"min_fraction": 1.5}, "validate_min_fraction is 1.5."),
    ({"min_fraction": "most"}, 'validate_min_fraction is "most".'),
    ({"expected_figures": {"allreduce": 300}}, "Fix: validate_expected_figures may only name allreduce_single_node, "
                                               "allreduce_multi_node, ib_write_bw, each with a positive number."),
    ({"expected_figures": {"ib_write_bw": 0}}, 'validate_expected_figures is {"ib_write_bw": 0}.'),
    ({"expected_figures": ["ib_write_bw"]}, "validate_expected_figures is [\"ib_write_bw\"]."),
    ({"report_dir": ""}, 'validate_report_dir is "". Fix: validate_report_dir must name a directory.'),
    ({"job_timeout_s": 5}, "validate_job_timeout_s is 5. Fix: validate_job_timeout_s must be at least 10 seconds."),
    ({"clock_max_skew_s": -1}, "Fix: validate_clock_max_skew_s is a number of seconds, 0 or more."),
    ({"clock_samples": 51}, "Fix: validate_clock_samples is a whole number from 1 to 50."),
    ({"controller_hosts": None}, 'validate: the inventory group "slurm_controller" (slurm_controller_group) has no '
                                 "hosts. Fix: put slurmctld's host (and its backups after it) in it."),
    ({"controller_hosts": []}, "(slurm_controller_group) has no hosts."),
    ({"controller_hosts": "ctl"}, "(slurm_controller_group) has no host list."),
]


def test_backup_controllers_are_welcome():
    assert settings_errors(settings(controller_hosts=["ctl1", "ctl2"])) == []


@pytest.mark.parametrize("change, expected", BAD)
def test_each_bad_setting_is_named(change, expected):
    errors = settings_errors(settings(**change))
    assert len(errors) == 1, errors
    assert expected in errors[0]
    assert errors[0].startswith("validate: ")


def test_every_problem_at_once():
    errors = settings_errors(settings(gpu_count="x", perf="x", clock_samples=0))
    assert [error.split(" is ")[0] for error in errors] == [
        "validate: validate_gpu_count", "validate: validate_perf", "validate: validate_clock_samples"]


@pytest.mark.parametrize("value", [None, [], "x", 3, {"gpu_count": {"a": [1]}, "figure_names": 7}])
def test_garbage_gives_messages(value):
    errors = settings_errors(value)
    assert errors and all(isinstance(error, str) and error.startswith("validate: ") for error in errors)
