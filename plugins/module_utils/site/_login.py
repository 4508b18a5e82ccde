# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A login node's limits for interactive work (role slurm_login).

Users share a login node: one user's build or notebook must not take the
CPUs and memory from everyone else. systemd puts each user's sessions in
their own slice (user-UID.slice, through pam_systemd); a drop-in for
``user-.slice`` sets every such slice's CPUQuota, MemoryMax and TasksMax at
once (systemd 239 and later), and one for ``user-0.slice`` leaves root
unlimited, so an admin can always log in and act.

settings_errors(settings) names each wrong setting and its fix;
user_slice_dropin(settings) and root_slice_dropin() print the drop-ins.
Bad input never raises.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import shown

# Each setting: (variable, smallest, largest); 0 turns a limit off.
LIMITS = (
    ("cpu_quota_pct", "slurm_login_user_cpu_quota_pct", 1, 100000),
    ("memory_max_pct", "slurm_login_user_memory_max_pct", 1, 100),
    ("tasks_max", "slurm_login_user_tasks_max", 16, 4194304),
)
HEADER = "# Managed by Ansible (gpuops.cluster.slurm_login): local changes are overwritten.\n"


def _value(settings, key):
    value = settings.get(key) if isinstance(settings, dict) else None
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def settings_errors(settings):
    """[] or one message per wrong limit setting, naming the variable and the fix."""
    if not isinstance(settings, dict):
        return ["the slurm_login settings must be a mapping, not %s" % shown(settings)]
    errors = []
    for key, variable, low, high in LIMITS:
        value = _value(settings, key)
        if value is None or (value != 0 and not low <= value <= high):
            errors.append("%s is %s: give a whole number from %d to %d, or 0 for no limit."
                          % (variable, shown(settings.get(key)), low, high))
    return errors


def user_slice_dropin(settings):
    """The text of /etc/systemd/system/user-.slice.d/ drop-in: every user's slice limited (0: that limit off)."""
    if settings_errors(settings):
        return ""
    cpu, memory, tasks = (_value(settings, limit[0]) for limit in LIMITS)
    lines = [HEADER.rstrip("\n"),
             "# Every user's sessions on this login node share these limits (user-UID.slice).",
             "[Slice]",
             "CPUAccounting=yes",
             "MemoryAccounting=yes",
             "TasksAccounting=yes",
             "CPUQuota=%s" % ("%d%%" % cpu if cpu else ""),
             "MemoryMax=%s" % ("%d%%" % memory if memory else "infinity"),
             "TasksMax=%s" % (tasks if tasks else "infinity")]
    return "\n".join(lines) + "\n"


def root_slice_dropin():
    """The drop-in for user-0.slice: root's sessions keep no limit (an admin can always act)."""
    return "\n".join([HEADER.rstrip("\n"),
                      "# root is not limited: an admin can always log in and act.",
                      "[Slice]",
                      "CPUQuota=",
                      "MemoryMax=infinity",
                      "TasksMax=infinity"]) + "\n"
