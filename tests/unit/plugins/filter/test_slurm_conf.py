# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.gpuops.cluster.plugins.filter.slurm_conf import FilterModule

FILTERS = FilterModule().filters()


def test_filter_names():
    assert sorted(FILTERS) == ["slurm_conf_check", "slurm_conf_lines", "slurm_series"]


@pytest.mark.parametrize(
    "args, expected",
    [
        (({"ClusterName": "gpu"}, "slurm.conf", "24.11.5", "slurm_config"), []),
        (({"TaskAffinity": True}, "cgroup.conf", "22.05.8", "slurm_cgroup_config"),
         ["slurm_cgroup_config: 'TaskAffinity' was removed in Slurm 21.08 and is rejected by "
          "the installed Slurm 22.05; remove it (use TaskPlugin=task/affinity,task/cgroup in "
          "slurm.conf instead)."]),
        (({"SlurmctlPort": 6817}, "slurm.conf", "22.05", "slurm_config"),
         ["slurm_config: 'SlurmctlPort' is not a slurm.conf key in Slurm 22.05; fix the "
          "spelling or remove it (did you mean 'SlurmctldPort'?)"]),
    ],
)
def test_slurm_conf_check(args, expected):
    assert FILTERS["slurm_conf_check"](*args) == expected


@pytest.mark.parametrize(
    "args, message",
    [
        (({}, "slurm.conf", "21.08.8", "slurm_config"),
         "slurm_conf_check: Slurm 21.08 (from '21.08.8') is older than the oldest catalogued "
         "series 22.05; supported series are 22.05, 24.11"),
        (({}, "topology.conf", "24.11", "slurm_config"),
         "slurm_conf_check: unknown configuration file kind 'topology.conf'; use one of "
         "cgroup.conf, slurm.conf"),
        (("x", "slurm.conf", "24.11", "slurm_config"),
         "slurm_conf_check: slurm_config must be a dictionary of Slurm settings, got str"),
    ],
)
def test_slurm_conf_check_errors(args, message):
    with pytest.raises(AnsibleFilterError) as excinfo:
        FILTERS["slurm_conf_check"](*args)
    assert excinfo.value.message == message


@pytest.mark.parametrize(
    "settings, lines",
    [
        ({"TaskPlugin": ["task/cgroup", "task/affinity"], "ConstrainCores": True,
          "CgroupPlugin": None},
         ["ConstrainCores=yes", "TaskPlugin=task/cgroup,task/affinity"]),
        ({}, []),
    ],
)
def test_slurm_conf_lines(settings, lines):
    assert FILTERS["slurm_conf_lines"](settings) == lines


def test_slurm_conf_lines_error():
    with pytest.raises(AnsibleFilterError) as excinfo:
        FILTERS["slurm_conf_lines"]({"ClusterName": "a\nb"})
    assert excinfo.value.message == (
        "slurm_conf_lines: the value of Slurm key 'ClusterName' contains a newline, which would "
        "end the line in the configuration file; put it on one line"
    )


@pytest.mark.parametrize(
    "version, series",
    [("22.05.8", "22.05"), ("23.11.4", "22.05"), ("24.11.5", "24.11"), ("25.05.1", "24.11")],
)
def test_slurm_series(version, series):
    assert FILTERS["slurm_series"](version) == series


@pytest.mark.parametrize(
    "version, message",
    [
        ("20.11.7",
         "slurm_series: Slurm 20.11 (from '20.11.7') is older than the oldest catalogued series "
         "22.05; supported series are 22.05, 24.11"),
        ("banana",
         "slurm_series: cannot read a Slurm version from 'banana'; expected something like "
         "'24.11.5' or '22.05'"),
    ],
)
def test_slurm_series_errors(version, message):
    with pytest.raises(AnsibleFilterError) as excinfo:
        FILTERS["slurm_series"](version)
    assert excinfo.value.message == message
