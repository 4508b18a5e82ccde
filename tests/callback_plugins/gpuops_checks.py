# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# Test-only callback (the Molecule base config enables it): what a verify
# suite checked. For every task result it records the file the task is
# written in (the suite), the action, the host, whether it passed, and the
# task's start and end, as one JSON line appended to $GPUOPS_CHECKS_OUT.
# tools/test-summary.py turns those lines into the table `make test` prints.
from __future__ import annotations

DOCUMENTATION = r"""
name: gpuops_checks
type: aggregate
short_description: Per suite check counts and times, for make test's summary
description:
  - Appends one JSON line per task result (suite file, action, host, status,
    start and end) to the file named by the environment variable
    E(GPUOPS_CHECKS_OUT); does nothing when it is unset.
requirements:
  - enable in callbacks_enabled (.config/molecule/config.yml does)
"""

import json
import os
import time

from ansible.plugins.callback import CallbackBase

# The actions that are checks: a result that can fail the suite on what the
# cluster did. assert is the usual one; fail (with a condition) the other.
# A command with a failed_when condition of its own is a check too.
CHECK_ACTIONS = frozenset({"assert", "ansible.builtin.assert", "fail", "ansible.builtin.fail"})
NO_CONDITION = frozenset({"false", "False", "no"})


def is_check(task):
    if task.action in CHECK_ACTIONS:
        return True
    conditions = getattr(task, "failed_when", None) or []
    if not isinstance(conditions, list):
        conditions = [conditions]
    return any(c is not False and str(c).strip() not in NO_CONDITION for c in conditions)


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "gpuops_checks"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self):
        super().__init__()
        self._out = os.environ.get("GPUOPS_CHECKS_OUT", "")
        self._playbook = ""
        self._play_path = ""
        self._run = "%d-%d" % (os.getpid(), int(time.time() * 1000))
        self._started = {}

    def v2_playbook_on_start(self, playbook):
        self._playbook = os.path.abspath(playbook._file_name)

    def v2_playbook_on_play_start(self, play):
        # The file the play is written in: an imported suite's own file.
        self._play_path = (play.get_path() or ":").rsplit(":", 1)[0]

    def _task_start(self, task):
        self._started[task._uuid] = time.time()

    def v2_playbook_on_task_start(self, task, is_conditional):
        self._task_start(task)

    def v2_playbook_on_handler_task_start(self, task):
        self._task_start(task)

    def _record(self, result, status):
        if not self._out:
            return
        task = result._task
        # The suite is the play's file (tasks a suite includes from a role
        # count for it), as molecule/<scenario>/<file>.
        path = self._play_path or (task.get_path() or ":").rsplit(":", 1)[0]
        parts = path.split(os.sep)
        suite = "/".join(parts[-2:]) if len(parts) >= 2 else path
        line = {
            "suite": suite,
            "run": self._run,
            "playbook": self._playbook,
            "check_mode": self._cli_check(),
            "action": task.action,
            "check": is_check(task),
            "task": task.get_name(),
            "host": result._host.get_name(),
            "status": status,
            "start": self._started.get(task._uuid, time.time()),
            "end": time.time(),
        }
        with open(self._out, "a", encoding="utf-8") as out:
            out.write(json.dumps(line) + "\n")

    @staticmethod
    def _cli_check():
        try:
            from ansible import context
            return bool(context.CLIARGS.get("check", False))
        except Exception:  # pylint: disable=broad-except
            return False

    def v2_runner_on_ok(self, result):
        self._record(result, "ok")

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._record(result, "ignored" if ignore_errors else "failed")

    def v2_runner_on_skipped(self, result):
        self._record(result, "skipped")

    def v2_runner_on_unreachable(self, result):
        self._record(result, "unreachable")
