# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The slurm_compute role's pam_slurm_adopt check (module_utils/slurm/_slurm_compute.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._slurm_compute import pam_adopt_errors

SETTINGS = {"allow": ["root", "(admins)", "svc.user@example"], "os_family": "Debian",
            "prolog_flags": "Alloc,Contain", "proctrack_type": "proctrack/cgroup"}


def settings(**change):
    return dict(SETTINGS, **change)


def test_good_settings_pass():
    assert pam_adopt_errors(settings()) == []
    assert pam_adopt_errors(settings(allow=[], prolog_flags="contain")) == []
    assert pam_adopt_errors(settings(allow=[1000])) == []


@pytest.mark.parametrize("change, expected", [
    ({"allow": ["root", "ops team"]}, "slurm_compute_pam_slurm_adopt_allow must be a list of user names or (group) "
                                      "names (it is ['root', 'ops team'])."),
    ({"allow": "root"}, "slurm_compute_pam_slurm_adopt_allow must be a list of user names or (group) names (it is "
                        "root)."),
    ({"allow": [None]}, "(it is [None])"),
    ({"os_family": "RedHat"}, "slurm_compute_pam_slurm_adopt: the PAM setup is written for Debian and Ubuntu's sshd "
                              "(this host: RedHat); leave it off elsewhere."),
    ({"prolog_flags": "Alloc"}, "slurm_compute_pam_slurm_adopt needs PrologFlags with Contain and "
                                "ProctrackType=proctrack/cgroup in slurm.conf (they are Alloc and proctrack/cgroup): "
                                "remove them from slurm_config to get the collection's defaults, or turn "
                                "slurm_compute_pam_slurm_adopt off."),
    ({"prolog_flags": None, "proctrack_type": None}, "(they are unset and unset)"),
    ({"proctrack_type": "proctrack/linuxproc"}, "(they are Alloc,Contain and proctrack/linuxproc)"),
])
def test_each_problem_is_named(change, expected):
    errors = pam_adopt_errors(settings(**change))
    assert len(errors) == 1, errors
    assert expected in errors[0]


@pytest.mark.parametrize("value", [None, [], "x", 3])
def test_garbage_gives_a_message(value):
    assert pam_adopt_errors(value) == ["slurm_compute_pam_slurm_adopt: the settings must be a mapping, not %r."
                                       % (value,)]


def test_a_number_too_long_to_print_is_named_not_raised():
    # Found by the hostile-settings test (a YAML integer of more than 4300 digits): str() of it raises.
    errors = pam_adopt_errors(settings(allow=["root", 10 ** 5000]))
    assert len(errors) == 1 and errors[0].startswith("slurm_compute_pam_slurm_adopt_allow must be a list of user names")
