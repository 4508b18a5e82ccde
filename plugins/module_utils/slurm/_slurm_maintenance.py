# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The slurm_maintenance role's settings as data: what is wrong with them (one message per problem, each naming
the slurm_maintenance_ variable, its value and the fix; never raises, whatever the values' types), and the line
that says what a host of the plan has to do."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.gpuops.cluster.plugins.module_utils.common._settings_values import (
    is_list,
    is_text,
    names,
    plain,
    whole_number,
)
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import shown

ON_TIMEOUT = ("proceed", "fail")
WAIT_MIN = 10


class SlurmMaintenanceError(Exception):
    """Input of a shape the role never builds."""


def settings_errors(settings):
    """Messages for the slurm_maintenance settings the playbook cannot use; [] when all is well.

    settings: action, version, tasks_file, on_timeout, drain_timeout, wait_timeout, max_release_jump, reason,
    backup_dir (the slurm_maintenance_ variables without the prefix); actions (the actions there are);
    tasks_file_found (whether tasks_file is a file on the Ansible controller); controller_group (the inventory
    group of slurmctld's hosts, slurm_controller_group), controller_hosts (its hosts, the primary first; None
    when there is no such group) and unreachable (the play's hosts Ansible could not reach, [] when all answered).
    """
    if not isinstance(settings, dict):
        return ["the slurm_maintenance settings must be a mapping of the slurm_maintenance_ variables, not %s."
                % shown(settings)]
    get = settings.get
    errors = []
    action = get("action")
    actions = [name for name in get("actions") if is_text(name)] if is_list(get("actions")) else []
    if not (is_text(action) and action in actions):
        errors.append("slurm_maintenance_action (%s) must be one of %s." % (plain(action), names(actions)))
    tasks_file = get("tasks_file")
    if not is_text(tasks_file):
        errors.append("slurm_maintenance_tasks_file (%s) must be the path of a task file, or empty."
                      % plain(tasks_file))
    elif action == "tasks" and not tasks_file:
        errors.append("slurm_maintenance_action tasks needs slurm_maintenance_tasks_file (empty): give the task file "
                      "to run on each drained node.")
    elif action == "tasks" and get("tasks_file_found") is not True:
        errors.append("slurm_maintenance_tasks_file %s is not a file on the Ansible controller." % plain(tasks_file))
    version = get("version")
    if not (is_text(version) and not version) and action != "upgrade":
        errors.append("slurm_maintenance_version (%s) is set, but slurm_maintenance_action is %s: set -e "
                      "slurm_maintenance_action=upgrade to upgrade, or drop the version." % (plain(version),
                                                                                             plain(action)))
    if not (is_text(get("on_timeout")) and get("on_timeout") in ON_TIMEOUT):
        errors.append("slurm_maintenance_on_timeout (%s) must be proceed or fail." % plain(get("on_timeout")))
    if whole_number(get("drain_timeout")) is None:
        errors.append("slurm_maintenance_drain_timeout (%s) must be a whole number of seconds (0: do not wait)."
                      % plain(get("drain_timeout")))
    wait = whole_number(get("wait_timeout"))
    if wait is None or wait < WAIT_MIN:
        errors.append("slurm_maintenance_wait_timeout (%s) must be a whole number of seconds, at least %d."
                      % (plain(get("wait_timeout")), WAIT_MIN))
    if whole_number(get("max_release_jump")) is None:
        errors.append("slurm_maintenance_max_release_jump (%s) must be a whole number (0: Slurm's own window)."
                      % plain(get("max_release_jump")))
    reason = get("reason")
    if not is_text(reason) or not reason:
        what = "" if is_text(reason) else " (it is %s)" % plain(reason)
        errors.append("slurm_maintenance_reason must not be empty%s." % what)
    backup_dir = get("backup_dir")
    if not (is_text(backup_dir) and backup_dir.startswith("/")):
        errors.append("slurm_maintenance_backup_dir (%s) must be an absolute path." % plain(backup_dir))
    hosts = get("controller_hosts")
    if not is_list(hosts) or not hosts:
        errors.append("The maintenance playbook needs the slurmctld host(s) in the group %s (slurm_controller_group); "
                      "it has none." % plain(get("controller_group")))
    unreached = get("unreachable")
    if is_list(unreached) and unreached:
        errors.append("Every Slurm host must answer before maintenance begins; not reached: %s. Bring them back, or "
                      "take them out of the inventory for this run (a compute node: drain it in Slurm first; a "
                      "controller: the maintenance restarts every slurmctld in order, so all of them must be up)."
                      % ", ".join(plain(name) for name in unreached))
    return errors


def plan_message(action, stale, installed, target, node_task):
    """What this host has to do, for the plan's debug line.

    action: the maintenance action; stale: the packages to upgrade; installed: package to installed version;
    target: the version they go to; node_task: for action tasks, whether the host is a compute node (then the
    tasks file runs there) - the tasks file's name, or "" on any other host.
    """
    if not is_list(stale) or not isinstance(installed, dict) or not all(is_text(name) for name in stale):
        raise SlurmMaintenanceError("expected the stale packages as a list of names and the installed ones as a "
                                    "mapping, not %s and %s" % (shown(stale), shown(installed)))
    if action == "upgrade":
        if stale:
            return "upgrade: " + " ".join("%s %s -> %s;" % (name, plain(installed.get(name)), plain(target))
                                          for name in stale)
        return "upgrade: every Slurm package is at %s, nothing to do" % plain(target)
    if action == "restart":
        return "restart: the Slurm daemons of this host are restarted"
    if node_task:
        return "%s: %s runs here while the node is drained" % (plain(action), plain(node_task))
    return "%s: nothing to do here" % plain(action)
