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


# sshd's PAM stack with pam_slurm_adopt: the same text ansible.builtin.blockinfile and lineinfile
# wrote with the role's former settings, checked against those modules themselves.
import json  # noqa: E402

from ansible.module_utils.testing import patch_module_args  # noqa: E402
from ansible.modules import blockinfile, lineinfile  # noqa: E402
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._slurm_compute import (  # noqa: E402
    PamSshdError, pam_sshd_with_adopt)

ACCESS = "/etc/security/access-slurm-adopt.conf"
# Debian 12's /etc/pam.d/sshd (openssh-server 1:9.2p1-2), its comments shortened.
DEBIAN_SSHD = """# PAM configuration for the Secure Shell service

# Standard Un*x authentication.
@include common-auth

account    required     pam_nologin.so

# Standard Un*x authorization.
@include common-account

session [success=ok ignore=ignore module_unknown=ignore default=bad]        pam_selinux.so close
session    required     pam_loginuid.so
session    optional     pam_keyinit.so force revoke

# Standard Un*x session setup and teardown.
@include common-session

session    optional     pam_motd.so  motd=/run/motd.dynamic
session    optional     pam_motd.so noupdate
session    required     pam_limits.so
session    required     pam_env.so user_readenv=1 envfile=/etc/default/locale
session [success=ok ignore=ignore module_unknown=ignore default=bad]        pam_selinux.so open

# Standard Un*x password updating.
@include common-password
"""


def _module(module, args, capsys):
    with patch_module_args(args):
        with pytest.raises(SystemExit):
            module.main()
    result = json.loads(capsys.readouterr().out)
    assert not result.get("failed"), result


def _as_ansible_wrote_it(tmp_path, capsys, text):
    path = tmp_path / "sshd"
    path.write_text(text)
    _module(blockinfile, {"path": str(path), "marker": "# {mark} gpuops.cluster pam_slurm_adopt",
                          "insertafter": "^@include common-account",
                          "block": "account sufficient pam_access.so accessfile=%s\n"
                                   "account required pam_slurm_adopt.so\n" % ACCESS}, capsys)
    _module(lineinfile, {"path": str(path), "regexp": r"^@include common-session(-noninteractive)?(\s.*)?$",
                         "line": "@include common-session-noninteractive"}, capsys)
    return path.read_text()


@pytest.mark.parametrize("text", [
    DEBIAN_SSHD,
    DEBIAN_SSHD.replace("@include common-session\n", "@include common-session-noninteractive\n"),
    DEBIAN_SSHD.replace("@include common-account\n", "@include common-account\n@include common-account # again\n"),
    DEBIAN_SSHD.replace("@include common-account\n", "").replace("@include common-session\n", ""),
    DEBIAN_SSHD.rstrip("\n"),
    DEBIAN_SSHD + "# BEGIN gpuops.cluster pam_slurm_adopt\naccount required pam_old.so\n"
                  "# END gpuops.cluster pam_slurm_adopt\n",
    "# END gpuops.cluster pam_slurm_adopt\nx\n# BEGIN gpuops.cluster pam_slurm_adopt\n@include common-account\n",
    "# BEGIN gpuops.cluster pam_slurm_adopt\n@include common-account\n",
    "@include common-session   # with a comment\n@include common-session\n",
    "",
], ids=["debian12", "noninteractive-already", "two-account-lines", "no-includes", "no-final-newline",
        "old-block-at-the-end", "markers-reversed", "begin-marker-alone", "two-session-lines", "empty"])
def test_the_pam_stack_is_what_blockinfile_and_lineinfile_wrote(tmp_path, capsys, text):
    expected = _as_ansible_wrote_it(tmp_path, capsys, text)
    assert pam_sshd_with_adopt(text, ACCESS) == expected
    # and once written, it stays as it is
    assert pam_sshd_with_adopt(expected, ACCESS) == expected


def test_the_debian_stack_gets_the_block_after_its_account_include():
    new = pam_sshd_with_adopt(DEBIAN_SSHD, ACCESS)
    assert ("@include common-account\n# BEGIN gpuops.cluster pam_slurm_adopt\n"
            "account sufficient pam_access.so accessfile=/etc/security/access-slurm-adopt.conf\n"
            "account required pam_slurm_adopt.so\n# END gpuops.cluster pam_slurm_adopt\n") in new
    assert "\n@include common-session-noninteractive\n" in new and "\n@include common-session\n" not in new


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
