# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The slurm_compute role's pam_slurm_adopt settings: what is wrong with them, one message per problem, each
naming the variable and the fix. Never raises, whatever the values' types."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.gpuops.cluster.plugins.module_utils.common._settings_values import is_list, is_text, plain
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import shown

# A user name, or a group name in parentheses (pam_access).
ACCESS_RE = re.compile(r"[A-Za-z0-9_.][A-Za-z0-9_.@-]*|\([A-Za-z0-9_.][A-Za-z0-9_.@-]*\)")


def _access_name(value):
    """value | string matches ACCESS_RE (a whole number is its digits)."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value.bit_length() > 64:  # no user id; str() of one past 4300 digits raises
            return False
        value = str(value)
    return is_text(value) and ACCESS_RE.fullmatch(value) is not None


def pam_adopt_errors(settings):
    """Messages for the pam_slurm_adopt settings the role cannot use; [] when all is well.

    settings: allow (slurm_compute_pam_slurm_adopt_allow), os_family (the host's; Debian when unknown),
    prolog_flags and proctrack_type (slurm.conf's PrologFlags and ProctrackType; None when unset).
    """
    if not isinstance(settings, dict):
        return ["slurm_compute_pam_slurm_adopt: the settings must be a mapping, not %s." % shown(settings)]
    errors = []
    allow = settings.get("allow")
    os_family = settings.get("os_family", "Debian")
    if not is_list(allow) or not all(_access_name(name) for name in allow):
        errors.append("slurm_compute_pam_slurm_adopt_allow must be a list of user names or (group) names (it is %s)."
                      % plain(allow))
    if os_family != "Debian":
        errors.append("slurm_compute_pam_slurm_adopt: the PAM setup is written for Debian and Ubuntu's sshd (this "
                      "host: %s); leave it off elsewhere." % plain(os_family))
    flags = settings.get("prolog_flags")
    proctrack = settings.get("proctrack_type")
    if "contain" not in ("" if flags is None else plain(flags, 1000)).lower() or proctrack != "proctrack/cgroup":
        errors.append("slurm_compute_pam_slurm_adopt needs PrologFlags with Contain and ProctrackType=proctrack/cgroup "
                      "in slurm.conf (they are %s and %s): remove them from slurm_config to get the collection's "
                      "defaults, or turn slurm_compute_pam_slurm_adopt off."
                      % ("unset" if flags is None else plain(flags), "unset" if proctrack is None else plain(proctrack)))
    return errors


class PamSshdError(ValueError):
    """sshd's PAM stack cannot be given pam_slurm_adopt (no such file, not text)."""


PAM_MARKER = "# {mark} gpuops.cluster pam_slurm_adopt"
PAM_ACCOUNT_RE = re.compile(r"^@include common-account")
PAM_SESSION_RE = re.compile(r"^@include common-session(-noninteractive)?(\s.*)?$")
PAM_SESSION_LINE = "@include common-session-noninteractive"


def _with_block(text, block):
    """text with block between PAM_MARKER's BEGIN and END lines, as ansible.builtin.blockinfile writes it
    (insertafter the last '@include common-account' line, else at the end; an existing block replaced)."""
    begin = PAM_MARKER.format(mark="BEGIN") + "\n"
    end = PAM_MARKER.format(mark="END") + "\n"
    lines = text.splitlines(True)
    first = last = None
    for number, line in enumerate(lines):
        if line == begin:
            first = number
        if line == end:
            last = number
    if first is None or last is None:
        at = None
        for number, line in enumerate(lines):
            if PAM_ACCOUNT_RE.search(line):
                at = number
        at = len(lines) if at is None else at + 1
    else:
        at, stop = min(first, last), max(first, last)
        lines[at:stop + 1] = []
    if at > 0 and not lines[at - 1].endswith("\n"):
        lines[at - 1] += "\n"
    lines[at:at] = [begin] + block + [end]
    return "".join(lines)


def _with_session_line(text):
    """text whose last common-session include is the non-interactive one, as ansible.builtin.lineinfile
    writes it (the line appended when there is none)."""
    lines = re.findall(r"[^\n]*\n|[^\n]+$", text)
    found = None
    for number, line in enumerate(lines):
        if PAM_SESSION_RE.search(line):
            found = number
    if found is not None:
        lines[found] = PAM_SESSION_LINE + "\n"
    else:
        if lines and not lines[-1].endswith("\n"):
            lines.append("\n")
        lines.append(PAM_SESSION_LINE + "\n")
    return "".join(lines)


def pam_sshd_with_adopt(current, access_file):
    """sshd's PAM stack (current, the text of /etc/pam.d/sshd) with pam_slurm_adopt in its account stack.

    After '@include common-account': pam_access with access_file (who may log in without a job), then
    pam_slurm_adopt, between the collection's marker lines (replaced when present). The session stack
    includes common-session-noninteractive, which has no pam_systemd: a session in a systemd user slice
    would leave the job's cgroup. The result is what ansible.builtin.blockinfile and lineinfile write,
    so a host they configured is unchanged.
    """
    if current is None:
        raise PamSshdError("/etc/pam.d/sshd does not exist: the SSH server's package (openssh-server) writes it. "
                           "Install it, or set slurm_compute_pam_slurm_adopt: false.")
    if not is_text(current):
        raise PamSshdError("the text of /etc/pam.d/sshd must be a string, not %s" % shown(current))
    if not is_text(access_file) or not access_file.startswith("/") or any(c.isspace() for c in access_file):
        raise PamSshdError("the access file must be an absolute path without spaces, not %s" % shown(access_file))
    block = ["account sufficient pam_access.so accessfile=%s\n" % access_file, "account required pam_slurm_adopt.so\n"]
    return _with_session_line(_with_block(current, block))
