# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The slurm_maintenance role's settings check and plan line (module_utils/slurm/_slurm_maintenance.py): every message,
all problems at once."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest
import yaml

from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._slurm_maintenance import (
    SlurmMaintenanceError,
    plan_message,
    settings_errors,
)

ROLE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "roles", "slurm_maintenance")
KEYS = ("action", "version", "tasks_file", "on_timeout", "drain_timeout", "wait_timeout", "max_release_jump", "reason",
        "backup_dir")


def settings(**change):
    """The settings the role passes with its defaults, one controller."""
    with open(os.path.join(ROLE, "defaults", "main.yml")) as handle:
        defaults = yaml.safe_load(handle)
    with open(os.path.join(ROLE, "vars", "main.yml")) as handle:
        actions = yaml.safe_load(handle)["__slurm_maintenance_actions"]
    value = dict((key, defaults["slurm_maintenance_" + key]) for key in KEYS)
    value.update(actions=actions, tasks_file_found=False, controller_group="slurm_controller",
                 controller_hosts=["ctl"])
    value.update(change)
    return value


VERSION = ("slurm_maintenance_version (%s) is set, but slurm_maintenance_action is %s: set -e "
           "slurm_maintenance_action=upgrade to upgrade, or drop the version.")
GROUP = "The maintenance playbook needs the slurmctld host(s) in the group %s (slurm_controller_group); it has none."
UNREACHED = ("Every Slurm host must answer before maintenance begins; not reached: %s. Bring them back, or take them "
             "out of the inventory for this run (a compute node: drain it in Slurm first; a controller: the maintenance "
             "restarts every slurmctld in order, so all of them must be up).")
BAD = [
    ({"action": "reboot"}, "slurm_maintenance_action (reboot) must be one of upgrade, restart, tasks."),
    ({"action": None}, "slurm_maintenance_action (None) must be one of upgrade, restart, tasks."),
    ({"action": "tasks"}, "slurm_maintenance_action tasks needs slurm_maintenance_tasks_file (empty): give the task "
                          "file to run on each drained node."),
    ({"action": "tasks", "tasks_file": "/srv/fw.yml"},
     "slurm_maintenance_tasks_file /srv/fw.yml is not a file on the Ansible controller."),
    ({"tasks_file": ["a.yml"]}, "slurm_maintenance_tasks_file (['a.yml']) must be the path of a task file, or empty."),
    ({"version": "24.11.5-4"}, VERSION % ("24.11.5-4", "restart")),
    ({"version": None}, VERSION % ("None", "restart")),
    ({"version": 24.11}, VERSION % ("24.11", "restart")),
    ({"on_timeout": "wait"}, "slurm_maintenance_on_timeout (wait) must be proceed or fail."),
    ({"drain_timeout": "1h"}, "slurm_maintenance_drain_timeout (1h) must be a whole number of seconds (0: do not "
                              "wait)."),
    ({"drain_timeout": -1}, "slurm_maintenance_drain_timeout (-1) must be a whole number of seconds (0: do not "
                            "wait)."),
    ({"wait_timeout": 5}, "slurm_maintenance_wait_timeout (5) must be a whole number of seconds, at least 10."),
    ({"wait_timeout": "ten"}, "slurm_maintenance_wait_timeout (ten) must be a whole number of seconds, at least 10."),
    ({"max_release_jump": 1.5}, "slurm_maintenance_max_release_jump (1.5) must be a whole number (0: Slurm's own "
                                "window)."),
    ({"reason": ""}, "slurm_maintenance_reason must not be empty."),
    ({"reason": None}, "slurm_maintenance_reason must not be empty (it is None)."),
    ({"backup_dir": "backups"}, "slurm_maintenance_backup_dir (backups) must be an absolute path."),
    ({"controller_hosts": None}, GROUP % "slurm_controller"),
    ({"controller_hosts": [], "controller_group": "ctl"}, GROUP % "ctl"),
    ({"unreachable": ["ctl1"]}, UNREACHED % "ctl1"),
    ({"unreachable": ["ctl1", "gpu07"]}, UNREACHED % "ctl1, gpu07"),
]


def test_the_defaults_have_no_errors():
    assert settings_errors(settings()) == []


@pytest.mark.parametrize("good", [
    {"action": "upgrade", "version": "24.11.5-4"}, {"action": "upgrade"}, {"action": "tasks", "tasks_file": "fw.yml",
                                                                           "tasks_file_found": True},
    {"drain_timeout": 0}, {"drain_timeout": "7200"}, {"wait_timeout": 10}, {"max_release_jump": "3"},
    {"on_timeout": "fail"}, {"controller_hosts": ["ctl1", "ctl2"]}, {"controller_hosts": ["c1", "c2", "c3"]},
    {"unreachable": []},
])
def test_good_settings_have_no_errors(good):
    assert settings_errors(settings(**good)) == []


@pytest.mark.parametrize("change, message", BAD, ids=[str(index) for index in range(len(BAD))])
def test_each_bad_setting_gives_its_message(change, message):
    assert settings_errors(settings(**change)) == [message]


def test_several_bad_settings_give_every_message():
    errors = settings_errors(settings(action="tasks", tasks_file="/srv/fw.yml", version="24.11", on_timeout="x",
                                      wait_timeout=1, reason="", controller_hosts=[]))
    assert errors == [
        "slurm_maintenance_tasks_file /srv/fw.yml is not a file on the Ansible controller.",
        VERSION % ("24.11", "tasks"),
        "slurm_maintenance_on_timeout (x) must be proceed or fail.",
        "slurm_maintenance_wait_timeout (1) must be a whole number of seconds, at least 10.",
        "slurm_maintenance_reason must not be empty.",
        GROUP % "slurm_controller",
    ]


@pytest.mark.parametrize("value", [None, [], "x", 3, {"action": object()}])
def test_garbage_gives_messages(value):
    errors = settings_errors(value)
    assert errors and all("slurm_maintenance_" in message or "slurm_controller_group" in message
                          for message in errors)


INSTALLED = {"slurmd": "22.05.8-4", "slurm-client": "22.05.8-4"}


@pytest.mark.parametrize("args, line", [
    (("upgrade", ["slurm-client", "slurmd"], INSTALLED, "24.11.5-4", ""),
     "upgrade: slurm-client 22.05.8-4 -> 24.11.5-4; slurmd 22.05.8-4 -> 24.11.5-4;"),
    (("upgrade", [], INSTALLED, "22.05.8-4", ""), "upgrade: every Slurm package is at 22.05.8-4, nothing to do"),
    (("restart", [], INSTALLED, "", ""), "restart: the Slurm daemons of this host are restarted"),
    (("tasks", [], INSTALLED, "", "/srv/fw.yml"), "tasks: /srv/fw.yml runs here while the node is drained"),
    (("tasks", [], INSTALLED, "", ""), "tasks: nothing to do here"),
])
def test_plan_message(args, line):
    assert plan_message(*args) == line


@pytest.mark.parametrize("stale, installed", [(None, {}), ([3], {}), (["slurmd"], [])])
def test_plan_message_of_garbage(stale, installed):
    with pytest.raises(SlurmMaintenanceError):
        plan_message("upgrade", stale, installed, "24.11", "")


def test_a_long_list_of_actions_is_cut():
    # Found by test_hostile_settings: a message quoting every action of a huge list.
    errors = settings_errors(settings(actions=["upgrade", "9" * 5000] + ["x"] * 20))
    assert errors == ["slurm_maintenance_action (restart) must be one of upgrade, %s..., x, x, x, x, x, x, x, x "
                      "and 12 more." % ("9" * 60)]
