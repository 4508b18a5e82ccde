# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The slurm_compute filters: sshd's PAM stack with pam_slurm_adopt is the text ansible.builtin.blockinfile
and lineinfile wrote with the role's former settings, checked against those modules themselves; bad input
is an AnsibleFilterError naming the fix."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible.errors import AnsibleFilterError
from ansible.module_utils.testing import patch_module_args
from ansible.modules import blockinfile, lineinfile
from ansible_collections.gpuops.cluster.plugins.filter.slurm_compute import slurm_compute_pam_sshd

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
    assert slurm_compute_pam_sshd(text, ACCESS) == expected
    # and once written, it stays as it is
    assert slurm_compute_pam_sshd(expected, ACCESS) == expected


def test_a_missing_file_is_a_filter_error_naming_the_fix():
    with pytest.raises(AnsibleFilterError) as caught:
        slurm_compute_pam_sshd(None, ACCESS)
    assert str(caught.value).startswith("slurm_compute_pam_sshd: /etc/pam.d/sshd does not exist")
