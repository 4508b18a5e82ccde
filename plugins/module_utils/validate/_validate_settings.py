# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The validate role's settings: what is wrong with them, one message per problem, each naming the validate_
variable, its value and the fix. Never raises, whatever the values' types."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.gpuops.cluster.plugins.module_utils.common._settings_values import (
    fix_messages,
    is_list,
    is_text,
    json_shown,
    matches,
    names,
    number,
    whole_number,
)
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import shown

PREFIX = "validate: "
PORT_RE = re.compile(r"[A-Za-z0-9_.-]+:[0-9]+")
FIGURE_NAMES = ("allreduce_single_node", "allreduce_multi_node", "ib_write_bw")


def _auto_or_bool(value):
    return isinstance(value, bool) or value == "auto"


def _whole_at_least(value, low, high=None):
    """value | int, checked: a number or its text (12.5 reads as 12), from low to high."""
    value = number(value)
    return value is not None and int(value) >= low and (high is None or int(value) <= high)


def _figures_ok(figures, figure_names):
    if not isinstance(figures, dict):
        return False
    return all(key in figure_names and (number(value) or 0) > 0 for key, value in figures.items())


def settings_errors(settings):
    """Messages for the validate settings the role cannot use; [] when all is well.

    settings: gpu_count, rdma_expected, ib_ports, ib_rate_gbps, perf, min_fraction, expected_figures,
    figure_names, report_dir, job_timeout_s, clock_max_skew_s, clock_samples (the validate_ variables without
    the prefix), controller_group (slurm_controller_group) and controller_hosts (its hosts; None: no such group).
    """
    if not isinstance(settings, dict):
        return [PREFIX + "the settings must be a mapping of the validate_ variables, not %s." % shown(settings)]
    get = settings.get
    figure_names = get("figure_names") if is_list(get("figure_names")) else list(FIGURE_NAMES)
    problems = []
    # Expected hardware.
    if whole_number(get("gpu_count")) is None:
        problems.append(("gpu_count", "validate_gpu_count must be a whole number (0: not checked)"))
    if not _auto_or_bool(get("rdma_expected")):
        problems.append(("rdma_expected", "validate_rdma_expected is auto, true or false"))
    if not is_list(get("ib_ports")) or not all(matches(PORT_RE, port) for port in get("ib_ports")):
        problems.append(("ib_ports", 'validate_ib_ports is a list of ports as "mlx5_0:1"'))
    if whole_number(get("ib_rate_gbps")) is None:
        problems.append(("ib_rate_gbps", "validate_ib_rate_gbps is a whole number of Gb/s (0: the fastest port's "
                                         "rate)"))
    # Performance.
    if not _auto_or_bool(get("perf")):
        problems.append(("perf", "validate_perf must be auto, true or false"))
    fraction = number(get("min_fraction"))
    if fraction is None or not 0 < fraction <= 1:
        problems.append(("min_fraction", "validate_min_fraction is a number above 0 and at most 1 (0.8: a result "
                                         "under 80% of its expected figure fails)"))
    if not _figures_ok(get("expected_figures"), figure_names):
        problems.append(("expected_figures", "validate_expected_figures may only name %s, each with a positive "
                                             "number" % names(figure_names)))
    # Report and jobs.
    if not is_text(get("report_dir")) or not get("report_dir"):
        problems.append(("report_dir", "validate_report_dir must name a directory"))
    if not _whole_at_least(get("job_timeout_s"), 10):
        problems.append(("job_timeout_s", "validate_job_timeout_s must be at least 10 seconds"))
    skew = number(get("clock_max_skew_s"))
    if skew is None or skew < 0:
        problems.append(("clock_max_skew_s", "validate_clock_max_skew_s is a number of seconds, 0 or more"))
    if not _whole_at_least(get("clock_samples"), 1, 50):
        problems.append(("clock_samples", "validate_clock_samples is a whole number from 1 to 50"))
    errors = fix_messages("", settings, problems, "validate_%s")
    hosts = get("controller_hosts")
    if not is_list(hosts) or not hosts:
        errors.append("the inventory group %s (slurm_controller_group) has %s. Fix: put slurmctld's host (and "
                      "its backups after it) in it."
                      % (json_shown(get("controller_group"), 60), "no hosts" if is_list(hosts) or not hosts
                         else "no host list"))
    return [PREFIX + error for error in errors]
