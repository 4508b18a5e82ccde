# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The slurm_compute role's pam_slurm_adopt check (module_utils/slurm/_slurm_compute.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._slurm_compute import (
    PamSshdError, pam_adopt_errors, pam_sshd_with_adopt)

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


# sshd's PAM stack with pam_slurm_adopt (the text checked against blockinfile and lineinfile themselves in
# tests/unit/plugins/filter/test_slurm_compute_filters.py, where ansible's modules can be imported).

ACCESS = "/etc/security/access-slurm-adopt.conf"
DEBIAN_SSHD = """@include common-auth
account    required     pam_nologin.so
@include common-account
session    required     pam_loginuid.so
@include common-session
session    required     pam_limits.so
@include common-password
"""


def test_the_debian_stack_gets_the_block_after_its_account_include():
    new = pam_sshd_with_adopt(DEBIAN_SSHD, ACCESS)
    assert new == """@include common-auth
account    required     pam_nologin.so
@include common-account
# BEGIN gpuops.cluster pam_slurm_adopt
account sufficient pam_access.so accessfile=/etc/security/access-slurm-adopt.conf
account required pam_slurm_adopt.so
# END gpuops.cluster pam_slurm_adopt
session    required     pam_loginuid.so
@include common-session-noninteractive
session    required     pam_limits.so
@include common-password
"""
    assert pam_sshd_with_adopt(new, ACCESS) == new


def test_an_old_block_is_replaced_and_a_missing_session_line_appended():
    old = ("@include common-account\n# BEGIN gpuops.cluster pam_slurm_adopt\naccount required pam_old.so\n"
           "# END gpuops.cluster pam_slurm_adopt\nsession required pam_limits.so")
    assert pam_sshd_with_adopt(old, ACCESS) == (
        "@include common-account\n# BEGIN gpuops.cluster pam_slurm_adopt\n"
        "account sufficient pam_access.so accessfile=/etc/security/access-slurm-adopt.conf\n"
        "account required pam_slurm_adopt.so\n# END gpuops.cluster pam_slurm_adopt\n"
        "session required pam_limits.so\n@include common-session-noninteractive\n")


@pytest.mark.parametrize("current, access, message", [
    (None, ACCESS, "/etc/pam.d/sshd does not exist: the SSH server's package (openssh-server) writes it. "
                   "Install it, or set slurm_compute_pam_slurm_adopt: false."),
    (b"bytes", ACCESS, "the text of /etc/pam.d/sshd must be a string, not b'bytes'"),
    (DEBIAN_SSHD, "relative/path", "the access file must be an absolute path without spaces, not 'relative/path'"),
    (DEBIAN_SSHD, "/etc/a b", "the access file must be an absolute path without spaces, not '/etc/a b'"),
    (DEBIAN_SSHD, None, "the access file must be an absolute path without spaces, not None"),
])
def test_what_cannot_be_written_is_refused_with_the_fix(current, access, message):
    with pytest.raises(PamSshdError) as caught:
        pam_sshd_with_adopt(current, access)
    assert str(caught.value) == message
