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
